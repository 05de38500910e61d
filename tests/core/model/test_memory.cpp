#include "core/model/memory.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

namespace {

// A model given only by its parameter count, on one node, no parallelism.
Scenario count_only(double params) {
    Scenario s;
    s.model = ModelSpec{};
    s.model.params = params;
    s.cluster.nodes = 1;
    s.cluster.gpus_per_node = 8;
    s.parallel = ParallelSpec{};
    s.parallel.dp_replicate = 8;
    s.training.global_batch = 8;
    s.training.micro_batch = 1;
    return s;
}

// The hand-countable tiny model (tests/common/scenarios.hpp: 784 params a block, embedding 128,
// output 136) on pp stages, one GPU each.
Scenario tiny(int64_t pp) {
    Scenario s = test::tiny_gelu();
    s.cluster.gpus_per_node = pp;
    s.parallel.pp = pp;
    s.training.attention = AttentionKernel::eager;  // Korthikanti's 5as/h term counts
    return s;
}

}  // namespace

TEST_CASE("a 7B model in fp32 with Adam needs 112 GB of model state") {
    // 4 B weights + 4 B grads + 8 B Adam (m, v) = 16 B/param; 7e9 * 16 = 112e9 bytes.
    CHECK(state_bytes_per_param(Precision::fp32).total() == 16.0);
    CHECK(model_state_bytes(7e9, Precision::fp32, 0, 1).total() == doctest::Approx(112e9));
}

TEST_CASE("the three precisions") {
    // mixed-bf16 2 + 2 + 12, megatron-bf16 2 + 4 + 12 (docs/design.md).
    const auto mixed = state_bytes_per_param(Precision::mixed_bf16);
    CHECK(mixed.weights == 2.0);
    CHECK(mixed.grads == 2.0);
    CHECK(mixed.optimizer == 12.0);
    CHECK(state_bytes_per_param(Precision::megatron_bf16).total() == 18.0);
}

TEST_CASE("ZeRO paper example: 7.5B parameters, mixed precision Adam, 64-way data parallel") {
    // Rajbhandari et al. 2020, Figure 1: 2+2+12 = 16 B/param -> 120 GB; stage 1: (2+2+12/64)*7.5e9 =
    // 31.4 GB; stage 2: (2+14/64)*7.5e9 = 16.6 GB; stage 3: 16/64*7.5e9 = 1.875 GB.
    CHECK(model_state_bytes(7.5e9, Precision::mixed_bf16, 0, 64).total() == doctest::Approx(120e9));
    CHECK(model_state_bytes(7.5e9, Precision::mixed_bf16, 1, 64).total() == doctest::Approx(31.40625e9));
    CHECK(model_state_bytes(7.5e9, Precision::mixed_bf16, 2, 64).total() == doctest::Approx(16.640625e9));
    CHECK(model_state_bytes(7.5e9, Precision::mixed_bf16, 3, 64).total() == doctest::Approx(1.875e9));
    // Rounded as the paper prints them (decimal GB).
    CHECK(model_state_bytes(7.5e9, Precision::mixed_bf16, 1, 64).total() / 1e9 == doctest::Approx(31.4).epsilon(0.001));
    CHECK(model_state_bytes(7.5e9, Precision::mixed_bf16, 2, 64).total() / 1e9 == doctest::Approx(16.6).epsilon(0.003));
    CHECK(model_state_bytes(7.5e9, Precision::mixed_bf16, 3, 64).total() / 1e9 == doctest::Approx(1.88).epsilon(0.003));
}

TEST_CASE("70B parameters in 16-bit on 80 GB GPUs: weights alone need TP >= 2") {
    Scenario s = count_only(70e9);
    // 70e9 * 2 B = 140 GB of weights on one GPU: more than 80 GB.
    const StageMemory one = stage_memory(s, count_params(s.model), 0, 1);
    CHECK(one.bytes.params == doctest::Approx(140e9));
    CHECK(one.bytes.params > gpu_memory_bytes(s.cluster));
    CHECK_FALSE(one.bytes.activations.has_value());  // no architecture, no activations
    // TP = 2 halves them: 70 GB fits under 80 GB.
    s.parallel.tp = 2;
    s.parallel.dp_replicate = 4;
    const StageMemory two = stage_memory(s, count_params(s.model), 0, 1);
    CHECK(two.bytes.params == doctest::Approx(70e9));
    CHECK(two.bytes.params < gpu_memory_bytes(s.cluster));
}

TEST_CASE("Korthikanti et al. 2022 per-layer activations, each recompute / SP case") {
    // s = 4, b = 2, h = 8, a = 2: sbh = 64.
    ActivationShape sh;
    sh.seq_len = 4;
    sh.micro_batch = 2;
    sh.hidden = 8;
    sh.heads = 2;
    // Eager attention stores the s x s scores (flash, the default, never does: see below).
    sh.eager_attention = true;
    // No parallelism: sbh(34 + 5as/h) = 64 * (34 + 5*2*4/8) = 64 * 39 = 2496.
    CHECK(activation_bytes_per_layer(sh) == doctest::Approx(2496));
    sh.tp = 2;
    // TP 2: sbh(10 + 24/t + 5as/(ht)) = 64 * (10 + 12 + 2.5) = 1568.
    CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1568));
    sh.sequence_parallel = true;
    // TP 2 + SP: sbh(34/t + 5as/(ht)) = 64 * (17 + 2.5) = 1248.
    CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1248));
    sh.recompute = Recompute::selective;
    // TP 2 + SP + selective: sbh * 34/t = 64 * 17 = 1088.
    CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1088));
    sh.sequence_parallel = false;
    // TP 2 + selective: sbh(10 + 24/t) = 64 * 22 = 1408.
    CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1408));
    sh.recompute = Recompute::full;
    // Full recompute keeps the block's input: 2sbh = 128; sharded by SP: 2sbh/t = 64.
    CHECK(activation_bytes_per_layer(sh) == doctest::Approx(128));
    sh.sequence_parallel = true;
    CHECK(activation_bytes_per_layer(sh) == doctest::Approx(64));
    // Flash attention with no recompute stores what selective recompute keeps: no 5as/(ht) term.
    sh.recompute = Recompute::none;
    sh.eager_attention = false;
    CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1088));
}

namespace {

// h = 8, a = 2 as a Llama-style block: GQA (one 4-wide KV head), SwiGLU 12 wide, no dropout.
// s = 4, b = 2: 8 tokens; h = 8, a = 2.
ActivationShape eight_tokens() {
    ActivationShape sh;
    sh.seq_len = 4;
    sh.micro_batch = 2;
    sh.hidden = 8;
    sh.heads = 2;
    return sh;
}

void llama_style(ActivationShape& sh) {
    sh.dropout = false;
    sh.swiglu = true;
    sh.ffn_hidden = 12;
    sh.q_width = 8;
    sh.key_width = 4;
    sh.value_width = 4;
    sh.out_width = 8;
}

}  // namespace

TEST_CASE("activations of blocks other than GPT's, tensor by tensor") {
    ActivationShape sh = eight_tokens();
    SUBCASE("Llama-style: GQA (one 4-wide KV head), SwiGLU 12 wide, no dropout") {
        llama_style(sh);
        // Per token: attention 2h + 2h + Q, K, V 2(8 + 4 + 4) + output 2 * 8 = 32 + 32 + 16 = 80;
        // MLP 2h + 2h + 6 * 12 = 32 + 72 = 104: 184 B; 8 tokens: 1472.
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1472));
        sh.tp = 2;
        // TP 2 without SP: the four h-wide tensors (64 B) stay whole, the rest halves: 64 + (48 + 72) / 2
        // = 124 -> 992.
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(992));
        sh.sequence_parallel = true;
        // With SP everything halves: 92 -> 736.
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(736));
        sh.eager_attention = true;
        // Eager keeps the probabilities, 2as/t = 2 * 2 * 4 / 2 = 8 B a token (no dropout: no mask, no
        // dropped copy): 100 * 8 = 800.
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(800));
        sh.dropout = true;
        // Dropout adds two h-wide masks (1 B each, halved by SP: 8 a token) and 3as/t more of the
        // scores (12 a token): (100 + 8 + 12) * 8 = 960.
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(960));
    }
    SUBCASE("MoE: 4 experts, top 2, 6-wide SwiGLU experts, one shared expert") {
        sh.dropout = false;
        sh.swiglu = true;
        sh.moe = true;
        sh.experts = 4;
        sh.routed_copies = 2;
        sh.expert_ffn_hidden = 6;
        sh.shared_experts = 1;
        // Per token: attention (GPT widths) 2h + 2h + 2(3h) + 2h = 12h = 96; MLP 2h + 2h = 32, router
        // scores and probabilities 4 * 4 = 16, two routed copies of 4h + 6 * 6 = 68 each = 136, the
        // shared expert 6 * 6 = 36: 96 + 32 + 16 + 136 + 36 = 316 B; 8 tokens: 2528.
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(2528));
        sh.routed_copies = 2 * 1.25;  // capacity factor 1.25 pads each expert's batch
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(2528 + 0.5 * 68 * 8));
    }
    SUBCASE("FP8: GEMM inputs kept as FP8, the attention output twice") {
        llama_style(sh);
        sh.fp8_linear_inputs = true;
        // The Llama-style block above (184 B a token in bf16): the QKV and first-MLP inputs drop from 2h
        // to h (-16), the second matmul's input from 2 x 12 to 12 (-12), the attention output gains its
        // FP8 copy (+8): 164 B; 8 tokens: 1312.
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1312));
        sh.moe = true;
        sh.experts = 4;
        sh.routed_copies = 2;
        sh.expert_ffn_hidden = 6;
        sh.shared_experts = 1;
        // Attention as above: 2h + h + 2(8 + 4 + 4) + 3 * 8 = 16 + 8 + 32 + 24 = 80; MLP 2h + h = 24, router
        // 16, two copies of (h + 2h) + (4 + 1) * 6 = 24 + 30 = 54 each, the shared expert 30:
        // 80 + 24 + 16 + 108 + 30 = 258 B; 8 tokens: 2064.
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(2064));
    }
    SUBCASE("MLA: latents before and after their norms") {
        sh.dropout = false;
        sh.swiglu = true;
        sh.ffn_hidden = 12;
        sh.q_latent = 3;
        sh.kv_latent = 2;
        sh.q_width = 10;  // 2 heads of 5 (nope 3 + rope 2)
        sh.key_width = 10;
        sh.value_width = 8;
        sh.out_width = 8;
        // Per token: 2h + 2h + 4(3 + 2) + 2(10 + 10 + 8) + 2 * 8 = 32 + 20 + 56 + 16 = 124; MLP 32 + 72 =
        // 104: 228 B; 8 tokens: 1824.
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1824));
    }
    SUBCASE("full recompute keeps the block's input whatever the block") {
        sh.moe = true;
        sh.experts = 4;
        sh.routed_copies = 2;
        sh.expert_ffn_hidden = 6;
        sh.recompute = Recompute::full;
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(2 * 8 * 8));
    }
}

TEST_CASE("Megatron-LM's recompute modules and FP8 activation inputs take away what they rebuild") {
    // 8 tokens of hidden 8 (above); no dropout, SwiGLU.
    ActivationShape sh = eight_tokens();
    sh.dropout = false;
    sh.swiglu = true;
    SUBCASE("layernorm: the two norms' outputs are not kept") {
        llama_style(sh);
        // The Llama-style block keeps 184 B a token (above); its two norm outputs, 2h each, go: 152;
        // 8 tokens: 1216.
        sh.recompute_norms = true;
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1216));
        sh.fp8_linear_inputs = true;
        // In FP8 (164 B a token) the norm outputs were the 1-byte copies: 164 - 16 = 148 -> 1184.
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1184));
    }
    SUBCASE("FP8 activation input: SwiGLU's gate and up in 1 byte") {
        llama_style(sh);
        sh.fp8_linear_inputs = true;
        sh.fp8_activation_input = true;
        // 164 B a token in FP8, of which gate and up 4 x 12 = 48; at 1 byte: 24 -> 140; 8 tokens: 1120.
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1120));
    }
    SUBCASE("MLA up-projection: Q, K, V and the normed latents are rebuilt") {
        sh.ffn_hidden = 12;
        sh.q_latent = 3;
        sh.kv_latent = 2;
        sh.q_width = 10;
        sh.key_width = 10;
        sh.value_width = 8;
        sh.out_width = 8;
        // 228 B a token (above) less Q, K, V 2(10 + 10 + 8) = 56 and the normed latents 2(3 + 2) = 10:
        // 162; 8 tokens: 1296.
        sh.recompute_mla_up_proj = true;
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(1296));
    }
    SUBCASE("MoE on the fused stack: the weight instead of each copy's output; moe_act") {
        sh.moe = true;
        sh.experts = 4;
        sh.routed_copies = 2;
        sh.expert_ffn_hidden = 6;
        sh.shared_experts = 1;
        // 316 B a token (above); each routed copy keeps its 4-byte weight instead of its 2h = 16-byte
        // output: 316 - 2 x 12 = 292; 8 tokens: 2336.
        sh.weighted_expert_activation = true;
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(2336));
        // moe_act: each copy's activation output (the second matmul's input, 2 x 6) goes: 292 - 24 = 268,
        // the shared expert's stays; 8 tokens: 2144.
        sh.recompute_expert_act = true;
        CHECK(activation_bytes_per_layer(sh) == doctest::Approx(2144));
    }
}

TEST_CASE("bf16 Adam moments: 4 bytes a parameter fewer in every precision") {
    TrainingSpec t;
    for (Precision p : kAllPrecisions) {
        t.precision = p;
        t.bf16_adam_moments = false;
        const double fp32_moments = state_bytes_per_param(t).optimizer;
        t.bf16_adam_moments = true;
        CHECK(state_bytes_per_param(t).optimizer == doctest::Approx(fp32_moments - 4.0));
        CHECK(state_bytes_per_param(t).weights == doctest::Approx(state_bytes_per_param(p).weights));
    }
    t.precision = Precision::mixed_bf16;
    // fp32 master weights 4 + m 2 + v 2 (DeepSeek-V3 report, section 3.3.3).
    CHECK(state_bytes_per_param(t).optimizer == doctest::Approx(8.0));
}

TEST_CASE("FP8 parameters: the blocks keep 1 byte of weight and gather 1, the embedding and output layer 2") {
    TrainingSpec t;
    t.precision = Precision::fp8;
    t.fused_kernels = true;
    CHECK(state_bytes_per_param(t).weights == 3.0);  // BF16 weight and its FP8 copy
    CHECK(gathered_block_weight_bytes(t) == 2.0);     // gathered in BF16, each GPU casting its own copy
    t.fp8_param_gather = true;
    CHECK(state_bytes_per_param(t).weights == 1.0);
    CHECK(state_bytes_per_param(t).grads == 4.0);      // FP32 main grads, as before
    CHECK(state_bytes_per_param(t).optimizer == 12.0); // FP32 master, m and v
    CHECK(end_layer_state_bytes(t).weights == 2.0);
    CHECK(gathered_block_weight_bytes(t) == 1.0);
    // One embedding or output weight for every three block weights: (1 x 2 + 3 x 1) / 4.
    CHECK(gathered_mean_weight_bytes(t, 1.0, 3.0) == doctest::Approx(1.25));
    // Without FP8 on Megatron-LM's stack the switch does nothing.
    t.fused_kernels = false;
    CHECK(state_bytes_per_param(t).weights == 3.0);
    CHECK(gathered_block_weight_bytes(t) == 2.0);
}

TEST_CASE("a model's blocks: dropout by default for GeLU models only; leading dense layers of an MoE model") {
    Scenario s = default_scenario();  // Llama 3 8B
    CHECK_FALSE(s.model.uses_dropout());
    CHECK_FALSE(activation_shape(s).dropout);
    CHECK(activation_shape(s).swiglu);
    CHECK(activation_shape(s).key_width == 8 * 128);
    CHECK(activation_shape(s).out_width == 4096);
    s.model.ffn = Ffn::gelu;
    CHECK(s.model.uses_dropout());
    s.model.dropout = false;
    CHECK_FALSE(activation_shape(s).dropout);

    // 4 layers, the first one dense, on one stage: 1 dense block and 3 routed ones, each micro-batch.
    Scenario m = tiny(1);
    m.model.layers = 4;
    m.model.experts = 4;
    m.model.top_k = 2;
    m.model.expert_ffn_hidden = 8;
    m.model.dense_layers = 1;
    REQUIRE(validate_scenario(m).empty());
    const ParamCounts counts = count_params(m.model);
    const StageMemory st = stage_memory(m, counts, 0, 2.0);
    const double dense = activation_bytes_per_layer(activation_shape(m, false));
    const double moe = activation_bytes_per_layer(activation_shape(m, true));
    CHECK(moe > dense);
    CHECK(st.bytes.activations.value() == doctest::Approx(2.0 * (dense + 3.0 * moe)));
}

TEST_CASE("context parallelism divides the sequence") {
    ActivationShape sh;
    sh.seq_len = 8;
    sh.micro_batch = 2;
    sh.hidden = 8;
    sh.heads = 2;
    sh.eager_attention = true;
    sh.cp = 2;
    // s = 8/2 = 4: the unparallelised case above, 2496 bytes.
    CHECK(activation_bytes_per_layer(sh) == doctest::Approx(2496));
    sh.cp = 1;
    // s = 8: sbh = 128, 34 + 5*2*8/8 = 44 -> 5632; the s^2 term makes it more than twice 2496.
    CHECK(activation_bytes_per_layer(sh) == doctest::Approx(5632));
}

TEST_CASE("first and last pipeline stages differ: embedding first, output layer and logits last") {
    const Scenario s = tiny(2);
    const ParamCounts counts = count_params(s.model);
    // 1F1B keeps p - s micro-batches in flight: 2 on stage 0, 1 on stage 1.
    const auto stages = memory_per_stage(s, counts, {2.0, 1.0});
    REQUIRE(stages.size() == 2);
    // Stage 0: 2 blocks + embedding = 2*784 + 128 = 1696 params; 2 B each = 3392.
    CHECK(stages[0].bytes.params == doctest::Approx(3392));
    // Stage 1: 2 blocks + output 136 = 1704 params -> 3408 B of weights, 3408 B of grads, 12*1704 Adam.
    CHECK(stages[1].bytes.params == doctest::Approx(3408));
    CHECK(stages[1].bytes.grads == doctest::Approx(3408));
    CHECK(stages[1].bytes.optimizer == doctest::Approx(20448));
    // Activations: s=4, b=1, h=8, a=2 -> sbh = 32, 34 + 5*2*4/8 = 39 -> 1248 per block.
    // Stage 0: 2 blocks * 2 in flight = 4992; stage 1: 2 blocks * 1 = 2496.
    REQUIRE(stages[0].bytes.activations.has_value());
    CHECK(*stages[0].bytes.activations == doctest::Approx(4992));
    CHECK(*stages[1].bytes.activations == doctest::Approx(2496));
    // Only the last stage holds the loss's logits. On the PyTorch stack (the default) its peak is the
    // fp32 log-softmax and, at the backward's start, its gradient in and out: 12 B * s*b * vocab =
    // 12*4*16 = 768 (Megatron-LM's fused loss keeps 4 B a logit). No TP, no DP: no buffers.
    CHECK(stages[0].bytes.other == 0.0);
    CHECK(stages[1].bytes.other == doctest::Approx(768));
    Scenario fused = s;
    fused.training.fused_kernels = true;
    CHECK(memory_per_stage(fused, counts, {2.0, 1.0})[1].bytes.other == doctest::Approx(256));
    // Tensors at 16 B/param: stage 0 1696*16 + 4992 = 32128; stage 1 1704*16 + 2496 + 768 = 30528.
    CHECK(stages[0].bytes.tensors() == doctest::Approx(32128));
    CHECK(stages[1].bytes.tensors() == doctest::Approx(30528));
    // The runtime's reserve on top: 1 GiB fixed plus 5% of the tensors.
    CHECK(stages[0].bytes.reserved == doctest::Approx(1073741824.0 + 0.05 * 32128));
    CHECK(stages[0].bytes.total() == doctest::Approx(32128 + 1073741824.0 + 0.05 * 32128));
    CHECK(most_loaded(stages).stage == 0);
}

TEST_CASE("FSDP keeps two gathered blocks and a gradient bucket in `other`") {
    Scenario s = tiny(1);
    s.cluster.gpus_per_node = 4;
    s.parallel.dp_shard = 4;
    s.parallel.zero = 3;
    const StageMemory m = stage_memory(s, count_params(s.model), 0, 1);
    // Weights sharded 4 ways: (4*784 + 128 + 136) * 2 B / 4 = 3400 * 2 / 4 = 1700.
    CHECK(m.bytes.params == doctest::Approx(1700));
    // other = 2 gathered blocks 2*784*2 B = 3136 + the gradient bucket, Megatron's 40M elements or the
    // stage's whole gradient when smaller, 3400*2 B = 6800 + the loss's logits 12*4*16 = 768 -> 10704.
    CHECK(m.bytes.other == doctest::Approx(10704));
}

TEST_CASE("experts split over ep, then ZeRO over the rest of dp_shard*cp") {
    // 8e9 routed-expert params (count-only models have none), checked at the primitive:
    // ep 8 -> 1e9 local, ZeRO-1 over dp_shard*cp/ep = 2: weights 2e9, grads 2e9, Adam 12e9/2 = 6e9.
    const auto b = model_state_bytes(8e9 / 8, Precision::mixed_bf16, 1, 16 / 8);
    CHECK(b.params == doctest::Approx(2e9));
    CHECK(b.grads == doctest::Approx(2e9));
    CHECK(b.optimizer == doctest::Approx(6e9));
}

TEST_CASE("an MTP module's loss keeps its own logits, and its block its activations, on the last stage") {
    // The round model on one GPU, Megatron-LM's fused loss: 4 B a logit for the backward, 256 tokens x
    // 256 of vocab = 262,144 B a loss. The module's block keeps what one of the model's blocks keeps.
    Scenario s = shardscope::test::round_model();
    s.training.fused_kernels = true;
    const ParamCounts plain_counts = count_params(s.model);
    const StageMemory plain = stage_memory(s, plain_counts, 0, 1.0);
    s.model.mtp_layers = 1;
    const StageMemory with_mtp = stage_memory(s, count_params(s.model), 0, 1.0);
    CHECK(plain.other.logits == 262144.0);
    CHECK(with_mtp.other.logits == 2.0 * 262144.0);
    // Two blocks become three.
    CHECK(*with_mtp.bytes.activations == doctest::Approx(*plain.bytes.activations * 1.5));
}
