#include "core/model/params.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace shardscope;

namespace {

ModelSpec arch(int64_t layers, int64_t hidden, int64_t ffn_hidden, int64_t heads, int64_t kv_heads,
               int64_t vocab, Ffn ffn) {
    ModelSpec m;
    m.layers = layers;
    m.hidden = hidden;
    m.ffn_hidden = ffn_hidden;
    m.heads = heads;
    m.kv_heads = kv_heads;
    m.vocab = vocab;
    m.seq_len = 8;
    m.ffn = ffn;
    return m;
}

// Relative error against a published total.
double rel_err(double got, double published) { return (got - published) / published; }

}  // namespace

TEST_CASE("a tiny dense GQA model counted by hand") {
    // hidden 8, 2 heads (head_dim 4), 1 kv head, swiglu ffn 16, vocab 10, 2 layers.
    const ParamCounts c = count_params(arch(2, 8, 16, 2, 1, 10, Ffn::swiglu));
    CHECK(c.from_architecture);
    CHECK(c.attention_per_layer == 192);   // q,o: 2*8*8 = 128; k,v: 2*8*(1*4) = 64
    CHECK(c.norms_per_layer == 16);        // 2 * 8
    CHECK(c.dense_ffn_per_layer == 384);   // 3 * 8 * 16
    CHECK(c.dense_layer() == 592);         // 192 + 16 + 384
    CHECK(c.embedding == 80);              // 10 * 8
    CHECK(c.output == 80);                 // untied LM head
    CHECK(c.final_norm == 8);
    CHECK(c.total == 1352);                // 2*592 + 80 + 80 + 8
    CHECK(c.active_per_token == 1352);     // dense: every parameter is active
    CHECK(c.moe_layers == 0);
    CHECK(c.dense_layers == 2);
}

TEST_CASE("gelu and squared ReLU have two FFN matrices, swiglu three") {
    const ParamCounts g = count_params(arch(1, 8, 16, 2, 2, 10, Ffn::gelu));
    CHECK(g.dense_ffn_per_layer == 256);   // 2 * 8 * 16
    CHECK(g.attention_per_layer == 256);   // full MHA: 4 * 8 * 8
    CHECK(count_params(arch(1, 8, 16, 2, 2, 10, Ffn::squared_relu)).dense_ffn_per_layer == 256);
}

TEST_CASE("Nemotron-4 340B, squared ReLU, counts to its published size") {
    // Nemotron-4 340B (NVIDIA 2024, arXiv:2406.11704, its architecture table): 96 layers, hidden 18432, 96 heads,
    // 8 KV heads, FFN 73728 with squared ReLU, vocab 256,000, untied embeddings: 341B by our count
    // (attention 2 x 18432^2 + 2 x 18432 x 1536, MLP 2 x 18432 x 73728, per layer; embedding and head
    // 256,000 x 18432 each).
    const ParamCounts c = count_params(arch(96, 18432, 73728, 96, 8, 256000, Ffn::squared_relu));
    CHECK(c.dense_ffn_per_layer == 2.0 * 18432 * 73728);
    CHECK(rel_err(c.total, 341e9) == doctest::Approx(0).epsilon(0.005));
}

TEST_CASE("a tiny MoE model with a leading dense layer counted by hand") {
    ModelSpec m = arch(2, 8, 16, 2, 1, 10, Ffn::gelu);
    m.experts = 4;
    m.top_k = 2;
    m.expert_ffn_hidden = 4;
    m.shared_experts = 1;
    m.dense_layers = 1;
    const ParamCounts c = count_params(m);
    CHECK(c.dense_layers == 1);
    CHECK(c.moe_layers == 1);
    CHECK(c.expert_ffn == 64);                 // 2 * 8 * 4
    CHECK(c.routed_experts_per_layer == 256);  // 4 * 64
    CHECK(c.shared_experts_per_layer == 64);   // 1 * 64
    CHECK(c.router_per_layer == 32);           // 8 * 4
    CHECK(c.dense_layer() == 464);             // 192 + 16 + 2*8*16
    CHECK(c.moe_layer() == 560);               // 192 + 16 + 256 + 64 + 32
    CHECK(c.total == 1192);                    // 80 + 80 + 8 + 464 + 560
    // Active: the MoE block keeps 2 of 4 routed experts: 192 + 16 + 32 + 64 + 2*64 = 432.
    CHECK(c.active_per_token == 1064);         // 168 + 464 + 432
    CHECK(layer_params(c, 0) == 464);
    CHECK(layer_params(c, 1) == 560);
    CHECK(layer_params(c, 2) == 0);
    CHECK(layer_routed_expert_params(c, 0) == 0);
    CHECK(layer_routed_expert_params(c, 1) == 256);

    // Two stages: embedding + dense block on the first, MoE block + LM head + final norm on the last.
    const StageParams s0 = stage_params(c, 2, 0);
    const StageParams s1 = stage_params(c, 2, 1);
    CHECK(s0.embedding == 80);
    CHECK(s0.output == 0);
    CHECK(s0.blocks_non_expert == 464);
    CHECK(s0.routed_experts == 0);
    CHECK(s0.total() == 544);
    CHECK(s1.embedding == 0);
    CHECK(s1.output == 88);                    // 80 + 8
    CHECK(s1.blocks_non_expert == 304);        // 560 - 256
    CHECK(s1.routed_experts == 256);
    CHECK(s0.total() + s1.total() == c.total);
}

TEST_CASE("a model given only as a parameter count") {
    ModelSpec m;
    m.params = 70e9;
    const ParamCounts c = count_params(m);
    CHECK_FALSE(c.from_architecture);
    CHECK(c.total == 70e9);
    CHECK(c.active_per_token == 70e9);
    CHECK(c.embedding == 0);
    CHECK(c.attention_per_layer == 0);
    CHECK(c.layers == 0);
    const StageParams s = stage_params(c, 4, 3);
    CHECK(s.total() == 17.5e9);  // 70e9 / 4, no architecture to say otherwise
}

TEST_CASE("stages get whole layers, the ends losing one first") {
    // Llama 3 405B (Llama 3 paper, section 3.3.2): 126 layers on 16 stages, one layer fewer on the
    // first and last: 7 + 14*8 + 7 = 126.
    CHECK(stage_layers(126, 16, 0).first == 0);
    CHECK(stage_layers(126, 16, 0).count == 7);
    CHECK(stage_layers(126, 16, 1).first == 7);
    CHECK(stage_layers(126, 16, 1).count == 8);
    CHECK(stage_layers(126, 16, 14).count == 8);
    CHECK(stage_layers(126, 16, 15).first == 119);  // 7 + 14*8
    CHECK(stage_layers(126, 16, 15).count == 7);
    int64_t sum = 0;
    for (int64_t s = 0; s < 16; ++s) sum += stage_layers(126, 16, s).count;
    CHECK(sum == 126);
    // 5 layers on 3 stages: base 1, two stages get an extra one; only stage 0 stays short.
    CHECK(stage_layers(5, 3, 0).count == 1);
    CHECK(stage_layers(5, 3, 1).first == 1);
    CHECK(stage_layers(5, 3, 1).count == 2);
    CHECK(stage_layers(5, 3, 2).first == 3);
    CHECK(stage_layers(5, 3, 2).count == 2);
    // Even split: 80 layers on 4 stages, 20 each.
    CHECK(stage_layers(80, 4, 3).first == 60);
    CHECK(stage_layers(80, 4, 3).count == 20);
}

TEST_CASE("a stage's first layer is the sum of the layers on the stages before it") {
    // stage_layers computes `first` in closed form; the plain running sum of counts is the slow path.
    int64_t mismatches = 0;
    for (int64_t layers = 0; layers <= 160; ++layers)
        for (int64_t pp = 1; pp <= 140; ++pp) {
            int64_t first = 0;
            for (int64_t s = 0; s < pp; ++s) {
                const StageLayers sl = stage_layers(layers, pp, s);
                if (sl.first != first) ++mismatches;
                first += sl.count;
            }
            if (first != layers) ++mismatches;
        }
    CHECK(mismatches == 0);
}

namespace {

// The layers a custom split puts on one stage, written plainly: the reference the closed form of
// stage_layers' `first` is checked against (the end stages' own counts, or the embedding and the loss
// taking a layer's place).
int64_t plain_custom_count(int64_t layers, const ParallelSpec& p, int64_t stage) {
    const int64_t last = p.pp - 1;
    if (p.first_stage_layers > 0 || p.last_stage_layers > 0) {
        if (stage == 0 && p.first_stage_layers > 0) return p.first_stage_layers;
        if (stage == last && p.last_stage_layers > 0) return p.last_stage_layers;
        const int64_t lo = p.first_stage_layers > 0 ? 1 : 0;
        const int64_t rest_stages = p.pp - lo - (p.last_stage_layers > 0 ? 1 : 0);
        return stage_layers(layers - p.first_stage_layers - p.last_stage_layers, rest_stages, stage - lo).count;
    }
    const int64_t ef = p.embedding_in_pipeline_split ? 1 : 0, el = p.loss_in_pipeline_split ? 1 : 0;
    int64_t count = stage_layers(layers + ef + el, p.pp, stage).count;
    if (stage == 0) count -= ef;
    if (stage == last) count -= el;
    return std::max<int64_t>(0, count);
}

}  // namespace

TEST_CASE("a custom split's stage starts after the layers of every stage before it (closed form vs plain sum)") {
    int64_t checked = 0, mismatches = 0;
    for (int64_t layers = 1; layers <= 130; layers += 3)
        for (int64_t pp = 2; pp <= 40; ++pp)
            for (int variant = 0; variant < 6; ++variant) {
                ParallelSpec p;
                p.pp = pp;
                p.embedding_in_pipeline_split = variant == 0 || variant == 2;
                p.loss_in_pipeline_split = variant == 1 || variant == 2;
                if (variant >= 3) {
                    p.first_stage_layers = variant != 4 ? 1 + layers / (2 * pp) : 0;
                    p.last_stage_layers = variant != 3 ? 1 + layers / (3 * pp) : 0;
                    if (p.first_stage_layers + p.last_stage_layers >= layers) continue;
                }
                int64_t first = 0;
                for (int64_t s = 0; s < pp; ++s) {
                    if (stage_layers(layers, p, s).first != first) ++mismatches;
                    first += plain_custom_count(layers, p, s);
                    ++checked;
                }
            }
    CHECK(checked > 10000);
    CHECK(mismatches == 0);
}

TEST_CASE("published totals of the dense presets within 2%") {
    // GPT-3 175B (Brown et al. 2020, table 2.1): 96 layers, d_model 12288, 96 heads, ffn 4*d, vocab 50257.
    const ParamCounts gpt3 = count_params(arch(96, 12288, 49152, 96, 96, 50257, Ffn::gelu));
    CHECK(std::abs(rel_err(gpt3.total, 175e9)) < 0.02);  // 12*96*12288^2 + 2*50257*12288 ~ 175.2e9
    // Llama 3 8B (Llama 3 paper, table 3; HF config vocab 128256): 8.03e9 published.
    const ParamCounts l8 = count_params(arch(32, 4096, 14336, 32, 8, 128256, Ffn::swiglu));
    CHECK(std::abs(rel_err(l8.total, 8.03e9)) < 0.02);
    CHECK(l8.total == doctest::Approx(8.0302e9).epsilon(1e-4));  // 32*218.1e6 + 2*525.3e6 + 4096
    // Llama 3 70B: 70.6e9 published.
    const ParamCounts l70 = count_params(arch(80, 8192, 28672, 64, 8, 128256, Ffn::swiglu));
    CHECK(std::abs(rel_err(l70.total, 70.6e9)) < 0.02);
    // Llama 3 405B: 405.8e9 published.
    const ParamCounts l405 = count_params(arch(126, 16384, 53248, 128, 8, 128256, Ffn::swiglu));
    CHECK(std::abs(rel_err(l405.total, 405.8e9)) < 0.02);
}

TEST_CASE("published totals and active counts of the MoE presets within 2%") {
    // Mixtral 8x7B (Jiang et al. 2024): 46.7e9 total, 12.9e9 active; 32 layers, 8 experts top-2.
    ModelSpec mix = arch(32, 4096, 14336, 32, 8, 32000, Ffn::swiglu);
    mix.experts = 8;
    mix.top_k = 2;
    mix.expert_ffn_hidden = 14336;
    const ParamCounts cm = count_params(mix);
    CHECK(std::abs(rel_err(cm.total, 46.7e9)) < 0.02);
    CHECK(std::abs(rel_err(cm.active_per_token, 12.9e9)) < 0.02);
    // DeepSeek-V3 (DeepSeek-AI 2024): 671e9 total, 37e9 active; 61 layers, first 3 dense (ffn 18432),
    // 256 routed experts of 2048 top-8 + 1 shared, vocab 129280. MLA stood in for by 96 kv heads.
    ModelSpec ds = arch(61, 7168, 18432, 128, 96, 129280, Ffn::swiglu);
    ds.experts = 256;
    ds.top_k = 8;
    ds.expert_ffn_hidden = 2048;
    ds.shared_experts = 1;
    ds.dense_layers = 3;
    const ParamCounts cd = count_params(ds);
    CHECK(std::abs(rel_err(cd.total, 671e9)) < 0.02);
    CHECK(std::abs(rel_err(cd.active_per_token, 37e9)) < 0.02);
    CHECK(cd.moe_layers == 58);
}

TEST_CASE("multi-token prediction modules sit on the last stage, a block of the last kind and their projection") {
    Scenario s = shardscope::test::round_model();
    s.model.mtp_layers = 2;
    const ParamCounts c = count_params(s.model);
    // The round model's dense block: q, k, v, o 4 x 256^2 = 262,144, GeLU MLP 2 x 256 x 1024 = 524,288,
    // two norms 512: 786,944; each module adds 3 x 256 + 2 x 256^2 = 131,840.
    CHECK(c.mtp_module() == 786944.0 + 131840.0);
    ModelSpec main_model = s.model;
    main_model.mtp_layers = 0;
    CHECK(c.total - count_params(main_model).total == 2.0 * (786944.0 + 131840.0));
    ParallelSpec p;
    p.pp = 2;
    CHECK(stage_params(c, p, 0).mtp == 0);
    CHECK(stage_params(c, p, 1).mtp == 2);
    CHECK(stage_params(c, p, 1).blocks_non_expert - stage_params(count_params(main_model), p, 1).blocks_non_expert ==
          2.0 * (786944.0 + 131840.0));
}
