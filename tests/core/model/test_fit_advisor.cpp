#include "core/model/cost_model.hpp"
#include "core/model/fit_advisor.hpp"
#include "core/model/validation_suite.hpp"
#include "core/scenario/presets.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace shardscope;
using shardscope::test::llama70b_ddp;

TEST_CASE("with_zero_stage keeps the scenario valid: stage 0 is DDP, a sharding stage needs shards") {
    const Scenario d = default_scenario();  // dp_shard 8, dp_replicate 2, zero 3
    const Scenario ddp = with_zero_stage(d, 0);
    CHECK(ddp.parallel.zero == 0);
    CHECK(ddp.parallel.dp_shard == 1);
    CHECK(ddp.parallel.dp_replicate == 16);
    CHECK(validate_scenario(ddp).empty());

    const Scenario back = with_zero_stage(ddp, 2);
    CHECK(back.parallel.zero == 2);
    CHECK(back.parallel.dp_shard == 16);
    CHECK(back.parallel.dp_replicate == 1);
    CHECK(validate_scenario(back).empty());

    // Between sharding stages the mesh stays as it is (HSDP keeps its replicas).
    const Scenario one = with_zero_stage(d, 1);
    CHECK(one.parallel.dp_shard == 8);
    CHECK(one.parallel.dp_replicate == 2);
}

TEST_CASE("fit advice: nothing to do for a scenario that fits") {
    Scenario s = default_scenario();
    s.training.recompute = Recompute::full;  // 2sbh/t per block: a few GiB
    const FitAdvice a = advise_fit(s);
    CHECK_FALSE(a.needed);
    CHECK_FALSE(a.found);
    CHECK(a.changes.empty());
    CHECK(a.candidates_costed == 0);
}

TEST_CASE("fit advice: eager attention's stored scores need one knob; flash fits as it is") {
    // The default layout: Llama 3 8B, tp 2 + SP, pp 2, 1F1B, seq 8192, no recompute. Per token a block
    // keeps (memory.hpp): attention 4h + Q, K, V 2(h + h/4 + h/4) + output 2h = 9h, MLP 4h + SwiGLU
    // 6 x 14336 = 21h: 34h, all split by t = 2 under SP, and no dropout masks (Llama has none). With
    // eager attention the 32 x 8192 probabilities of each token add 2as/t = 2 * 32 * 8192 / 2 B: per
    // block 8192 * (17 * 4096 + 262,144) B = 2,717,908,992 B; stage 0 keeps 2 micro-batches of its 16
    // blocks: x 32 = 86,973,087,744 B, over 80 GB. Without the scores 8192 * 17 * 4096 = 570,425,344 B
    // per block, x 32 = 18,253,611,008 B: what flash attention stores with no recompute at all.
    Scenario s = default_scenario();
    s.training.recompute = Recompute::none;
    Scenario eager = s;
    eager.training.attention = AttentionKernel::eager;
    const Report before = build_report(eager);
    REQUIRE_FALSE(before.fits);
    CHECK(before.stages[0].bytes.activations.value() == doctest::Approx(86'973'087'744.0));
    const Report flash = build_report(s);
    CHECK(flash.fits);
    CHECK(flash.stages[0].bytes.activations.value() == doctest::Approx(18'253'611'008.0));
    CHECK_FALSE(advise_fit(s).needed);

    // The advice is the fastest fix that fits, so it is no slower than selective recompute (which
    // fits: the scores are recomputed, not stored), and it names every field it changes.
    const FitAdvice a = advise_fit(eager);
    CHECK(a.needed);
    REQUIRE(a.found);
    for (const KnobChange& c : a.changes) CHECK(c.from != c.to);
    const Report after = build_report(a.scenario);
    CHECK(after.fits);
    CHECK(a.total_bytes == doctest::Approx(after.memory.total()));
    // Selective on this (PyTorch) stack is torchtitan's op-level policy: a block keeps its input h,
    // the attention output h and the outputs of its 1st, 3rd, 5th and 7th matmuls (wq h, wv h/4,
    // w1 14336, w2 h), all split by t = 2 under SP: 15,872 elements, 31,744 B a token; x 8192 tokens
    // x 32 blocks in flight = 8,321,499,136 B.
    Scenario selective = eager;
    selective.training.recompute = Recompute::selective;
    const Report sel = build_report(selective);
    REQUIRE(sel.fits);
    CHECK(sel.stages[0].bytes.activations.value() == doctest::Approx(8'321'499'136.0));
    CHECK(*after.time.step <= *sel.time.step);
}

TEST_CASE("fit advice: Llama 3 70B as DDP on 64 GPUs: ZeRO-3 with full recompute fits; the norms' recompute with TP 4 fits faster") {
    // No single knob rescues 1.1 TB of model state plus 180 GB of activations (80 blocks of
    // sbh = 67,108,864 x 33.5 B: per token attention 4h + Q, K, V 2(h + h/8 + h/8) + output 2h = 8.5h,
    // MLP 4h + SwiGLU 6 x 28672 = 21h; flash attention, no dropout). ZeRO-3 over 64 shards 70,553,706,496 * 16 B / 64 = 17,638,426,624 B; full
    // recompute keeps each block's input, 2sbh = 134,217,728 B, x 80 = 10,737,418,240 B; other = two
    // gathered bf16 blocks 3,422,617,600 + fp32 logits 4 * 8192 * 128256 = 4,202,692,608 + Megatron's
    // 40M-element bf16 gradient bucket 80,000,000 + the block being recomputed, sbh * 33.5 =
    // 2,248,146,944 (flash: no scores). Tensors 38,329,302,016 B; reserved 1 GiB + 5% of that.
    Scenario s = llama70b_ddp(8);
    s.training.fused_kernels = true;
    Scenario full = with_zero_stage(s, 3);
    full.training.recompute = Recompute::full;
    const Report two_knobs = build_report(full);
    REQUIRE(two_knobs.fits);
    CHECK(two_knobs.memory.total() == doctest::Approx(38'329'302'016.0 * 1.05 + 1073741824.0));
    CHECK(two_knobs.memory.activations.value() == doctest::Approx(10'737'418'240.0));
    // On Megatron-LM's stack selective recompute of the attention core saves nothing under flash, but
    // its norm module drops two h-wide tensors a block: with TP 4 that fits and re-runs far less than
    // the whole forward, so it is the fastest fix.
    const FitAdvice a = advise_fit(s);
    CHECK(a.needed);
    REQUIRE(a.found);
    CHECK(a.summary() ==
          "zero 0 -> 3, recompute none -> selective (core_attn, layernorm), tp 1 -> 4, dp_shard 1 -> 16, dp_replicate 64 -> 1");
    CHECK(*a.step_s < *two_knobs.time.step);
    CHECK(a.memory.total() == doctest::Approx(a.total_bytes));
    CHECK(a.total_bytes <= a.capacity_bytes);
    CHECK(validate_scenario(a.scenario).empty());
    CHECK(build_report(a.scenario).fits);
}

TEST_CASE("fit advice: DeepSeek-V3 with its recompute modules unticked is offered them back, not full recompute") {
    // The published layout fits with layernorm, mla_up_proj and moe_act (test_validation.cpp); with none
    // of them it needs far more than 79.6 GiB, and ticking them again is the fastest fix.
    std::ifstream in(std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "assets" / "clusters" / "dgx-h100.json");
    std::stringstream text;
    text << in.rdbuf();
    const ClusterPresetLoad h100 = parse_cluster_preset(text.str());
    REQUIRE_MESSAGE(h100.ok(), h100.error);
    const ValidationClusters clusters{h100.preset->cluster, h100.preset->cluster};
    Scenario s;
    for (const PublishedRun& r : published_runs(clusters))
        if (r.name == "DeepSeek-V3  p16 e64 dualpipe") s = r.scenario;
    REQUIRE(s.model.is_mla());
    s.training.recompute_modules = RecomputeModules{false, false, false, false};
    const FitAdvice a = advise_fit(s);
    REQUIRE(a.found);
    CHECK(a.summary() == "recompute selective (no module) -> selective (layernorm, mla_up_proj, moe_act)");
}

TEST_CASE("fit advice: Llama 3 70B fits on 8 GPUs of 80 GB only with its optimizer on the host") {
    // 70.6B params x 16 B of mixed-precision Adam state = 1.13 TB against 8 x 80 GB = 640 GB in all:
    // no layout of these 8 GPUs holds it with the optimizer on them.
    Scenario s = llama70b_ddp(1);
    FitAdvice a = advise_fit(s);
    CHECK(a.needed);
    REQUIRE(a.found);
    CHECK(a.scenario.training.offload == Offload::optimizer);
    CHECK(a.summary().find("offload none -> optimizer") != std::string::npos);
    CHECK(a.total_bytes <= a.capacity_bytes);
    // The lightest GPU-only try is still reported, with a floor over the card: the model state ZeRO-3
    // spreads over the 8 alone is 70.55B x 16 B / 8 = 141 GB.
    CHECK(a.candidates_screened > 0);
    CHECK_FALSE(a.closest_changes.empty());
    CHECK(a.closest_bytes > a.capacity_bytes);
    CHECK(a.closest_bytes > 70'553'706'496.0 * 16 / 8);
    // With a host too small for the offloaded state (100 GB for the node's 1.13 TB) nothing fits at all.
    s.cluster.host.memory_gb = 100;
    a = advise_fit(s);
    CHECK(a.needed);
    CHECK_FALSE(a.found);
    CHECK(a.changes.empty());
    CHECK(a.closest_bytes < a.total_bytes);
    CHECK(a.closest_bytes > a.capacity_bytes);
}

TEST_CASE("fit advice: a count-only model takes the first fitting knob") {
    Scenario s;
    s.model = ModelSpec{};
    s.model.params = 7.5e9;
    s.cluster.nodes = 8;
    s.cluster.gpus_per_node = 8;
    s.parallel = ParallelSpec{};
    s.parallel.dp_replicate = 64;
    s.training.global_batch = 64;
    const FitAdvice a = advise_fit(s);
    REQUIRE(a.found);
    CHECK(a.summary() == "zero 0 -> 1, dp_shard 1 -> 64, dp_replicate 64 -> 1");
    CHECK_FALSE(a.step_s.has_value());
    // ZeRO-1 over 64: 7.5e9 * (2 + 2 + 12/64) = 31,406,250,000 B.
    // 7.5e9 x (2 + 2 + 12/64) B of model state, plus the runtime's 1 GiB and 5% allocator slack.
    CHECK(a.total_bytes == doctest::Approx(31.40625e9 * 1.05 + 1073741824.0));
}

TEST_CASE("fit advice: leftover GPUs count as the replicas they are") {
    // Llama 3 70B with every dim at 1 on 64 GPUs runs 64 copies, as DDP over 64 does: the same fix.
    Scenario s = llama70b_ddp(8);
    s.training.fused_kernels = true;  // as above: Megatron-LM's selective recompute
    s.parallel.dp_replicate = 1;
    REQUIRE(validate_scenario(s).empty());
    const FitAdvice a = advise_fit(s);
    REQUIRE(a.found);
    CHECK(a.summary() ==
          "zero 0 -> 3, recompute none -> selective (core_attn, layernorm), tp 1 -> 4, dp_shard 1 -> 16, dp_replicate 64 -> 1");
    CHECK(a.scenario.parallel.product() == 64);
}

TEST_CASE("fit advice: GPipe over 32 micro-batches is offered 1F1B, which fits at GPipe's speed, before full recompute") {
    // The pipeline lesson's GPipe step: Llama 3 8B on one node of 8 H100s, tp 2 x pp 4, 32 micro-batches.
    // GPipe keeps all 32 micro-batches' activations on each stage (62 GiB of them on the last, 90.6
    // GiB in all); 1F1B keeps at most p = 4 (Narayanan et al. 2021, section 2.2.1) with the same
    // bubble, (p - 1) / (m + p - 1), and the same work, so it is the fastest fix.
    Scenario s = default_scenario();
    s.cluster.nodes = 1;
    s.parallel.tp = 2;
    s.parallel.pp = 4;
    s.parallel.dp_shard = 1;
    s.parallel.dp_replicate = 1;
    s.parallel.zero = 0;
    s.training.global_batch = 32;
    s.training.micro_batch = 1;
    s.training.schedule = Schedule::gpipe;
    s.training.recompute = Recompute::selective;
    REQUIRE(validate_scenario(s).empty());
    const Report gpipe = build_report(s);
    REQUIRE_FALSE(gpipe.fits);
    const FitAdvice a = advise_fit(s);
    REQUIRE(a.found);
    CHECK(a.summary() == "schedule gpipe -> 1f1b");
    CHECK(a.scenario.training.schedule == Schedule::one_f_one_b);
    CHECK(build_report(a.scenario).fits);
    // Full recompute would fit too, but re-runs the forward: slower than the schedule's switch.
    Scenario full = s;
    full.training.recompute = Recompute::full;
    const Report recomputed = build_report(full);
    REQUIRE(recomputed.fits);
    CHECK(*a.step_s < *recomputed.time.step);
    CHECK(*a.step_s == doctest::Approx(*gpipe.time.step).epsilon(0.02));
}

TEST_CASE("a layout carried onto a model it cannot run: the nearest that runs, every moved field named") {
    // Interleaved 1F1B with 20 chunks a stage on 4 stages (80 layers' worth), then an 8B of 32 layers:
    // 4 x 20 = 80 chunks exceed them; 8 a stage is the most 32 layers allow.
    Scenario s = default_scenario();  // Llama 3 8B: 32 layers, 32 heads (8 kv)
    s.cluster.nodes = 4;
    s.parallel.tp = 1;
    s.parallel.pp = 4;
    s.parallel.dp_shard = 8;
    s.parallel.dp_replicate = 1;
    s.training.schedule = Schedule::interleaved_1f1b;
    s.training.virtual_stages = 20;
    s.training.global_batch = 256;
    REQUIRE_FALSE(validate_scenario(s).empty());
    CarriedLayout c = carry_layout_to_model(s);
    CHECK(c.rule.empty());
    CHECK(changes_text(c.changes) == "virtual_stages 20 -> 8");
    CHECK(validate_scenario(c.scenario).empty());
    // TP 16 over 32 heads and 8 KV heads: 8 is the largest that divides both; the replicas take the 2.
    s = default_scenario();
    s.cluster.nodes = 4;
    s.parallel.tp = 16;
    s.parallel.pp = 1;
    s.parallel.dp_shard = 2;
    s.parallel.dp_replicate = 1;
    s.training.schedule = Schedule::one_f_one_b;
    c = carry_layout_to_model(s);
    CHECK(c.rule.empty());
    CHECK(changes_text(c.changes) == "tp 16 -> 8, dp_replicate 1 -> 2");
    CHECK(c.scenario.cluster.gpu_count() == 32);
    // 64 stages over 32 layers: 32, the pipeline's schedule kept; a dense model drops ep.
    s = default_scenario();
    s.cluster.nodes = 8;
    s.parallel.tp = 1;
    s.parallel.pp = 64;
    s.parallel.dp_shard = 1;
    s.parallel.dp_replicate = 1;
    c = carry_layout_to_model(s);
    CHECK(c.rule.empty());
    CHECK(changes_text(c.changes) == "pp 64 -> 32, dp_replicate 1 -> 2");
    // What no knob here can meet is said, and nothing claims to run it.
    s = default_scenario();
    s.model.seq_len = 0;
    c = carry_layout_to_model(s);
    CHECK_FALSE(c.rule.empty());
}
