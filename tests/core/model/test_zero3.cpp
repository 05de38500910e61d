#include "core/model/cost_model.hpp"
#include "core/model/memory.hpp"
#include "core/model/validation_suite.hpp"
#include "core/model/zero3.hpp"
#include "core/scenario/presets.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace shardscope;

namespace {

ModelSpec gpt(int64_t hidden, int64_t layers) {
    ModelSpec m;
    m.name = "gpt";
    m.layers = layers;
    m.hidden = hidden;
    m.ffn_hidden = 4 * hidden;
    m.heads = hidden / 128;
    m.kv_heads = m.heads;
    m.vocab = 51200;
    m.seq_len = 2048;
    m.ffn = Ffn::gelu;
    m.tie_embeddings = true;
    return m;
}

ClusterSpec shipped_a100() {
    std::ifstream in(std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "assets" / "clusters" / "dgx-a100-80gb.json");
    std::stringstream text;
    text << in.rdbuf();
    const ClusterPresetLoad load = parse_cluster_preset(text.str());
    REQUIRE_MESSAGE(load.ok(), load.error);
    return load.preset->cluster;
}

// Narayanan et al. 2021 Table 2's GPT 175B at a fixed global batch of 1536, one micro-batch a step.
Scenario table2_175b(int64_t gpus, std::optional<ZeroImpl> impl) {
    ValidationClusters clusters{shipped_a100(), shipped_a100()};
    for (const PublishedRun& r : published_runs(clusters)) {
        if (r.name != "GPT 175B  ZeRO-3 dp" + std::to_string(gpus) + " b" + std::to_string(1536 / gpus)) continue;
        Scenario s = r.scenario;
        s.parallel.zero_impl = impl;
        return s;
    }
    FAIL("no Table 2 row for " << gpus << " GPUs");
    return {};
}

}  // namespace

TEST_CASE("zero_impl loads, saves only when set, and names its values when wrong") {
    Scenario s;
    s.model = gpt(1024, 2);
    s.parallel.dp_shard = 8;
    s.parallel.zero = 3;
    CHECK(scenario_to_json(s).find("zero_impl") == std::string::npos);
    s.parallel.zero_impl = ZeroImpl::deepspeed_0_3;
    const std::string text = scenario_to_json(s);
    CHECK(text.find("\"zero_impl\": \"deepspeed-0.3\"") != std::string::npos);
    const ScenarioLoad back = parse_scenario(text);
    REQUIRE(back.ok());
    CHECK(back.scenario->parallel.zero_impl == ZeroImpl::deepspeed_0_3);
    std::string bad = text;
    bad.replace(bad.find("\"deepspeed-0.3\""), 15, "\"zero-infinity\"");
    const ScenarioLoad rejected = parse_scenario(bad);
    CHECK_FALSE(rejected.ok());
    CHECK(rejected.error.find("parallel.zero_impl") != std::string::npos);
    CHECK(rejected.error.find("fsdp2, fsdp1, megatron-fsdp, deepspeed, deepspeed-0.3") != std::string::npos);
}

TEST_CASE("unset, ZeRO-3 runs on the stack's own implementation") {
    ParallelSpec p;
    CHECK(effective_zero_impl(p, false) == ZeroImpl::fsdp2);
    CHECK(effective_zero_impl(p, true) == ZeroImpl::megatron_fsdp);
    p.zero_impl = ZeroImpl::deepspeed;
    CHECK(effective_zero_impl(p, true) == ZeroImpl::deepspeed);
}

TEST_CASE("a block's tensors: Megatron's GPT block and a Llama block") {
    // GPT: LayerNorm gain and bias twice, fused QKV and its bias, the projection and its bias, the
    // two MLP matrices and their biases: 4 matrices, 8 vectors, all under 1e5 elements at h 12288.
    const BlockTensors g = block_tensors(gpt(12288, 96), false);
    REQUIRE(g.matrices.size() == 4);
    const double h2 = 12288.0 * 12288.0;
    CHECK(g.matrices[0] == 3 * h2);
    CHECK(g.matrices[1] == h2);
    CHECK(g.matrices[2] == 4 * h2);
    CHECK(g.matrices[3] == 4 * h2);
    CHECK(g.vectors == 8);
    CHECK(g.persistent_vectors == 8);
    // Llama 3 8B: q, k, v, o, gate, up, down and two RMSNorm gains.
    ModelSpec llama = gpt(4096, 32);
    llama.ffn = Ffn::swiglu;
    llama.ffn_hidden = 14336;
    llama.heads = 32;
    llama.kv_heads = 8;
    const BlockTensors l = block_tensors(llama, false);
    CHECK(l.matrices.size() == 7);
    CHECK(l.matrices[1] == 4096.0 * 1024);  // k: 8 heads of 128
    CHECK(l.vectors == 2);
    // A Megatron-Core Nemotron block: fused QKV and the projection, up and down, no biases, and two
    // LayerNorms with gain and bias.
    ModelSpec nemotron = llama;
    nemotron.ffn = Ffn::squared_relu;
    const BlockTensors n = block_tensors(nemotron, false);
    CHECK(n.matrices.size() == 4);
    CHECK(n.matrices[0] == 4096.0 * (4096 + 2 * 1024));
    CHECK(n.matrices[2] == 4096.0 * 14336);
    CHECK(n.vectors == 4);
}

TEST_CASE("DeepSpeed calls a collective per weight; FSDP one per block") {
    const ModelSpec m = gpt(12288, 96);
    const ParamCounts c = count_params(m);
    ParallelSpec p;
    const StageParams sp = stage_params(c, p, 0);
    const Zero3Calls fsdp = zero3_calls(ZeroImpl::fsdp2, m, c, sp, true);
    // 96 blocks, the embedding and the (tied) output layer's stage: 98 units; nothing regathered.
    CHECK(fsdp.gathers_per_pass == 98);
    CHECK(fsdp.reductions == 98);
    CHECK(fsdp.recompute_passes == 0);
    const Zero3Calls ds = zero3_calls(ZeroImpl::deepspeed_0_3, m, c, sp, true);
    // Four matrices a block gathered (the vectors stay whole), plus the embedding and output ends.
    CHECK(ds.gathers_per_pass == 96 * 4 + 2);
    // Every tensor reduced on its own: 12 a block, the ends and the final LayerNorm's two.
    CHECK(ds.reductions == 96 * 12 + 2 + 2);
    CHECK(ds.per_rank_copies);
    CHECK(ds.gathers_wait);
    CHECK(ds.reductions_wait);
    CHECK(ds.python_views);
    // After the recomputed forward, fc2 (next used at once) is kept; fc1 (2 x 4h^2 = 1.21e9 away),
    // the projection and QKV are gathered again: 3 of 4 calls, 8 of 12 h^2 elements.
    CHECK(ds.recompute_passes == 1);
    CHECK(ds.regather_calls == doctest::Approx(0.75));
    CHECK(ds.regather_bytes == doctest::Approx(8.0 / 12.0));
    const Zero3Calls today = zero3_calls(ZeroImpl::deepspeed, m, c, sp, true);
    CHECK_FALSE(today.per_rank_copies);
    CHECK_FALSE(today.gathers_wait);
    CHECK_FALSE(today.reductions_wait);
    CHECK_FALSE(today.python_views);
    // Gradients in 5e8-element buckets: 174.6e9 parameters on the stage.
    CHECK(today.reductions == std::ceil(c.total / 5e8));
}

TEST_CASE("PyTorch's list API: a copy kernel per rank per call, and a zero fill per gathered tensor") {
    // 2 calls of 1 MB each over 4 ranks at 1e12 B/s: each copy moves 2 x 250 kB = 0.5 us, under the
    // 3 us floor: 8 copies x 3 us; the fills write 1 MB (1 us), also floored: 2 x 3 us.
    CHECK(list_api_copies_s(2, 2e6, 4, 1e12, 3e-6, true) == doctest::Approx(30e-6));
    CHECK(list_api_copies_s(2, 2e6, 4, 1e12, 3e-6, false) == doctest::Approx(24e-6));
    // Large shards run at HBM speed: 1 call of 8 GB over 2 ranks: 2 copies of 2 x 4 GB = 16 ms.
    CHECK(list_api_copies_s(1, 8e9, 2, 1e12, 3e-6, false) == doctest::Approx(16e-3));
}

TEST_CASE("DeepSpeed 0.3's gathers wait while Python builds a view per rank") {
    // 2 calls over 4 ranks: 8 views at PyTorch's 2.26 us a view op.
    CHECK(python_views_s(2, 4) == doctest::Approx(8 * 2.26e-6));
    CHECK(python_views_s(0, 4) == 0);
    CHECK(python_views_s(3, 1) == 0);
    // GPT 175B on 1,536 GPUs: 1,448 gathers a step, each building 1,536 views: 5.0 s on the host.
    CHECK(python_views_s(1448, 1536) == doctest::Approx(5.026).epsilon(0.001));
}

TEST_CASE("DeepSpeed 0.3's ZeRO-3 does not speed up with more GPUs at a fixed global batch; FSDP2 does") {
    // Narayanan et al. 2021 Table 2 measured 144, 88 and 44 TFLOP/s a GPU at 384, 768 and 1536 GPUs:
    // the step stayed near 67 s while each GPU's compute fell by 4x. DeepSpeed 0.3's per-parameter
    // collectives pay latency and a copy per rank, both growing with the group.
    const auto step = [](int64_t gpus, std::optional<ZeroImpl> impl) {
        const Report r = build_report(table2_175b(gpus, impl));
        REQUIRE(r.time.step);
        return *r.time.step;
    };
    const double ds384 = step(384, ZeroImpl::deepspeed_0_3), ds1536 = step(1536, ZeroImpl::deepspeed_0_3);
    const double fsdp384 = step(384, ZeroImpl::fsdp2), fsdp1536 = step(1536, ZeroImpl::fsdp2);
    // Compute alone falls by 4x; DeepSpeed 0.3's step by less than 2x, FSDP2's by more than 3x.
    CHECK(ds1536 > 0.5 * ds384);
    CHECK(fsdp1536 < fsdp384 / 3.0);
    CHECK(ds1536 > fsdp1536);
}

TEST_CASE("DeepSpeed 0.3 hides none of its ZeRO-3 traffic; today's DeepSpeed hides some under compute") {
    // Every gather of 0.3 waits behind torch.cuda.synchronize(), which waits for the reduction
    // stream too: the dim's whole time is on the critical path. Today's prefetches and overlaps.
    const auto dp_shard = [](std::optional<ZeroImpl> impl) {
        const Report r = build_report(table2_175b(384, impl));
        const DimCost* d = find_dim_cost(r, "dp_shard");
        REQUIRE(d != nullptr);
        return *d;
    };
    const DimCost old = dp_shard(ZeroImpl::deepspeed_0_3);
    CHECK(old.time_s > 0);
    CHECK(old.exposed_s == doctest::Approx(old.time_s));
    CHECK(old.contention_s == 0);
    const DimCost today = dp_shard(ZeroImpl::deepspeed);
    CHECK(today.exposed_s < 0.9 * today.time_s);
}

TEST_CASE("a DeepSpeed GPU holds one gathered submodule and its prefetch bucket, FSDP two blocks") {
    Scenario s = table2_175b(384, ZeroImpl::deepspeed_0_3);
    const ParamCounts c = count_params(s.model);
    const StageMemory ds = stage_memory(s, c, 0, 1);
    const double h2 = 12288.0 * 12288.0;
    // FP16: 2 bytes a gathered weight; the largest matrix is the MLP's 4h^2.
    CHECK(ds.other.gathered_blocks == doctest::Approx((4 * h2 + 5e7) * 2));
    s.parallel.zero_impl = ZeroImpl::fsdp2;
    const StageMemory fsdp = stage_memory(s, c, 0, 1);
    CHECK(fsdp.other.gathered_blocks == doctest::Approx(2 * 12 * h2 * 2).epsilon(0.001));
}

TEST_CASE("the ZeRO line says over how many ranks it shards, by whom, or that it shards nothing") {
    ParallelSpec p;
    CHECK(zero_text(p, false) == "ZeRO 0");
    p.zero = 3;
    CHECK(zero_text(p, false) == "ZeRO 3 (shards nothing: dp_shard x cp is 1)");
    p.dp_shard = 8;
    p.cp = 2;
    CHECK(zero_text(p, false) == "ZeRO 3 over 16 ranks (fsdp2)");
    CHECK(zero_text(p, true) == "ZeRO 3 over 16 ranks (megatron-fsdp)");
    p.zero = 1;
    CHECK(zero_text(p, true) == "ZeRO 1 over 16 ranks");
}
