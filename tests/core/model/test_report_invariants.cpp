// The invariants every accepted scenario's report satisfies (report_invariant_violation): the step
// positive and finite and no shorter than the busiest stage's compute, 0 < MFU <= 1, hardware FLOP/s
// at most the peak, memory parts summing to the total. A property test over random valid scenarios,
// the cases that used to break them, and the planner ranking only reports that keep them.
#include "tests/common/scenarios.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/params.hpp"
#include "core/planner/planner.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

using namespace shardscope;

namespace {

// Llama 3 8B's shapes cut to one layer (hidden 4096, 32 heads of 128, 8 KV heads, ffn 14336, vocab
// 128256, seq 8192) on one H100 whose GEMMs may reach the peak (matmul_efficiency 1), fused kernels,
// 8 sequences a step.
Scenario one_layer_on_one_gpu() {
    Scenario s = default_scenario();
    s.model.layers = 1;
    s.cluster.nodes = s.cluster.gpus_per_node = 1;
    s.cluster.gpu.matmul_efficiency = 1.0;
    s.parallel = ParallelSpec{};
    s.training = TrainingSpec{};
    s.training.global_batch = 8;
    s.training.fused_kernels = true;
    return s;
}

// A random pick from a list.
template <typename T>
T pick(std::mt19937_64& rng, const std::vector<T>& options) {
    return options[std::uniform_int_distribution<std::size_t>(0, options.size() - 1)(rng)];
}

int64_t random_divisor(std::mt19937_64& rng, int64_t n) {
    std::vector<int64_t> divisors;
    for (int64_t d = 1; d <= n; ++d)
        if (n % d == 0) divisors.push_back(d);
    return pick(rng, divisors);
}

ModelSpec random_model(std::mt19937_64& rng) {
    ModelSpec m;
    m.layers = std::uniform_int_distribution<int64_t>(1, 96)(rng);
    m.heads = pick<int64_t>(rng, {1, 2, 4, 8, 16, 32, 64, 128});
    m.hidden = m.heads * pick<int64_t>(rng, {16, 64, 128, 256});
    m.kv_heads = random_divisor(rng, m.heads);
    m.ffn_hidden = m.hidden * pick<int64_t>(rng, {1, 2, 4}) + pick<int64_t>(rng, {0, 64});
    m.vocab = pick<int64_t>(rng, {2, 1000, 32000, 128256, 256000});
    m.seq_len = pick<int64_t>(rng, {1, 128, 1024, 8192, 32768, 131072});
    m.ffn = pick(rng, std::vector<Ffn>{Ffn::gelu, Ffn::swiglu});
    m.tie_embeddings = pick(rng, std::vector<bool>{false, true});
    const int dropout = std::uniform_int_distribution<int>(0, 2)(rng);  // unset, off, on
    if (dropout > 0) m.dropout = dropout == 2;
    if (pick(rng, std::vector<bool>{false, false, true})) {
        m.experts = pick<int64_t>(rng, {2, 8, 64});
        m.top_k = std::uniform_int_distribution<int64_t>(1, std::min<int64_t>(m.experts, 8))(rng);
        m.expert_ffn_hidden = m.hidden * pick<int64_t>(rng, {1, 2});
        m.shared_experts = pick<int64_t>(rng, {0, 1});
        m.dense_layers = std::uniform_int_distribution<int64_t>(0, m.layers - 1)(rng);
        m.capacity_factor = pick(rng, std::vector<double>{0.0, 1.0, 1.25});
    }
    return m;
}

ClusterSpec random_cluster(std::mt19937_64& rng) {
    ClusterSpec c;
    // H100 (with FP8) and A100 figures of the shipped presets, and a GPU slow enough that latency rules.
    const int kind = std::uniform_int_distribution<int>(0, 2)(rng);
    c.gpu.name = kind == 0 ? "H100" : kind == 1 ? "A100" : "slow";
    c.gpu.memory_gb = kind == 1 ? 80 : pick<double>(rng, {16, 80, 141});
    c.gpu.peak_tflops = kind == 0 ? 989 : kind == 1 ? 312 : 10;
    c.gpu.peak_fp8_tflops = kind == 0 ? 1979 : 0;
    c.gpu.hbm_gbps = kind == 0 ? 3350 : kind == 1 ? 2039 : 300;
    if (pick(rng, std::vector<bool>{false, true})) c.gpu.matmul_efficiency = pick<double>(rng, {0.3, 0.8, 1.0});
    c.gpus_per_node = pick<int64_t>(rng, {1, 2, 4, 8});
    c.nodes = pick<int64_t>(rng, {1, 2, 4, 16, 64});
    c.intra_node = LinkSpec{pick<double>(rng, {25, 370}), pick<double>(rng, {0, 2, 50})};
    c.inter_node = LinkSpec{pick<double>(rng, {3, 48}), pick<double>(rng, {0, 5, 100}), pick<int64_t>(rng, {0, 1})};
    return c;
}

// Factors that split the GPUs, each drawn from what the GPUs left over allow, and the model's rules.
ParallelSpec random_parallel(std::mt19937_64& rng, const ModelSpec& m, int64_t gpus) {
    ParallelSpec p;
    int64_t left = gpus;
    const auto take = [&](int64_t of) {
        const int64_t f = random_divisor(rng, std::gcd(left, of));
        left /= f;
        return f;
    };
    p.tp = take(std::gcd(m.heads, m.kv_heads));
    p.pp = take(m.layers);
    p.cp = take(m.seq_len);
    p.dp_shard = take(left);
    p.dp_replicate = random_divisor(rng, left);
    p.zero = p.dp_shard > 1 ? std::uniform_int_distribution<int>(1, 3)(rng) : std::uniform_int_distribution<int>(0, 3)(rng);
    p.sequence_parallel = p.tp > 1 && pick(rng, std::vector<bool>{false, true});
    p.tp_comm_overlap = pick(rng, std::vector<bool>{false, true});
    p.ep_comm_overlap = pick(rng, std::vector<bool>{false, true});
    if (m.is_moe()) p.ep = random_divisor(rng, std::gcd(m.experts, p.dp_shard * p.cp));
    std::shuffle(p.order.begin(), p.order.end(), rng);
    return p;
}

TrainingSpec random_training(std::mt19937_64& rng, const ParallelSpec& p, int64_t gpus) {
    TrainingSpec t;
    const int64_t replicas = p.dp_replicate * (gpus / p.product());
    t.micro_batch = pick<int64_t>(rng, {1, 2, 4});
    const int64_t m = p.pp * pick<int64_t>(rng, {1, 2, 4, 8});
    t.global_batch = t.micro_batch * p.dp_shard * replicas * m;
    t.schedule = pick(rng, std::vector<Schedule>{Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved_1f1b,
                                                 Schedule::zb_h1, Schedule::zb_h2, Schedule::dualpipe});
    if (t.schedule == Schedule::interleaved_1f1b) t.virtual_stages = pick<int64_t>(rng, {2, 3});
    t.recompute = pick(rng, std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full});
    t.precision = pick(rng, std::vector<Precision>{Precision::mixed_bf16, Precision::fp32, Precision::megatron_bf16,
                                                   Precision::megatron_fp16, Precision::fp8});
    t.attention = pick(rng, std::vector<AttentionKernel>{AttentionKernel::flash, AttentionKernel::eager});
    t.fused_kernels = pick(rng, std::vector<bool>{false, true});
    const auto coin = [&] { return pick(rng, std::vector<bool>{false, true}); };
    t.recompute_modules = RecomputeModules{coin(), coin(), coin(), coin()};
    t.activation_func_fp8_input_store = coin();  // applies only with fp8 on the fused stack
    t.bf16_adam_moments = coin();
    return t;
}

// A random scenario; about half break a cross-field rule (a schedule the layout does not allow, FP8
// on an A100) and are skipped by the caller, as the loader would refuse them.
Scenario random_scenario(std::mt19937_64& rng) {
    Scenario s;
    s.model = random_model(rng);
    s.cluster = random_cluster(rng);
    s.parallel = random_parallel(rng, s.model, s.cluster.gpu_count());
    s.training = random_training(rng, s.parallel, s.cluster.gpu_count());
    return s;
}

}  // namespace

TEST_CASE("a 1-layer model with a large vocabulary stays under 100% MFU: the embedding lookup is no matmul") {
    const Scenario s = one_layer_on_one_gpu();
    REQUIRE(validate_scenario(s).empty());
    const ParamCounts counts = count_params(s.model);
    // Embedding 128256 x 4096 = 525,336,576; block: attention 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040,
    // SwiGLU 3 x 4096 x 14336 = 176,160,768, norms 2 x 4096; output layer 525,336,576; final norm 4096.
    REQUIRE(counts.total == doctest::Approx(1268789248.0));
    const Report r = build_report(s);
    // 8 x 8192 = 65,536 tokens; matmul parameters 1,268,789,248 - 525,336,576 = 743,452,672; the scores
    // 3 x 2 x 1 layer x 32 heads x (128 + 128) x 8192 x 65536.
    const double tokens = 65536;
    const double scores = 3.0 * 2 * 32 * 256 * 8192 * tokens;
    CHECK(*r.model_flops_per_step == doctest::Approx(6.0 * 743452672 * tokens + scores));
    CHECK(report_invariant_violation(s, r) == "");
    CHECK(*r.throughput.mfu <= 1.0);
    // Counting the lookup as a matmul, as before, the same step would claim more than the peak.
    const double lookup_as_matmul = 6.0 * 525336576 * tokens;
    CHECK((*r.model_flops_per_step + lookup_as_matmul) / (*r.time.step * 989e12) > 1.0);
}

TEST_CASE("report_invariant_violation names the figure that breaks") {
    const Scenario s = one_layer_on_one_gpu();
    const Report good = build_report(s);
    REQUIRE(report_invariant_violation(s, good) == "");
    Report r = good;
    REQUIRE(r.breakdown.has_value());
    (*r.breakdown)[static_cast<std::size_t>(StepOp::mlp)].forward_s += 1.0;
    CHECK(report_invariant_violation(s, r).rfind("breakdown: its operations sum to ", 0) == 0);
    r = good;
    r.time.step = 0.0;
    CHECK(report_invariant_violation(s, r) == "time.step: 0.000000 s is not positive and finite");
    r = good;
    r.time.step = *good.time.compute / 2;
    CHECK(report_invariant_violation(s, r).rfind("time.step: ", 0) == 0);
    CHECK(report_invariant_violation(s, r).find("is shorter than the busiest stage's compute") != std::string::npos);
    r = good;
    r.throughput.mfu = 1.5;
    CHECK(report_invariant_violation(s, r) == "throughput.mfu: 1.5000 is not in (0, 1]");
    r = good;
    r.throughput.hardware_tflops_per_gpu = 990.0;
    CHECK(report_invariant_violation(s, r) == "throughput.hardware_tflops_per_gpu: 990.0 is not in (0, peak 989.0]");
    r = good;
    r.memory.other = -1;
    CHECK(report_invariant_violation(s, r) == "memory: a part is negative or not finite");
    r = good;
    r.stages.push_back(r.stages.front());
    r.stages.back().bytes.other += 1e9;
    CHECK(report_invariant_violation(s, r) == "memory: stage 0 holds more than the most loaded");
}

TEST_CASE("property: every report of a random valid scenario keeps the invariants") {
    std::mt19937_64 rng(20261124);  // fixed: the same scenarios every run
    int checked = 0;
    for (int i = 0; i < 6000 && checked < 2500; ++i) {
        const Scenario s = random_scenario(rng);
        if (!validate_scenario(s).empty()) continue;
        ++checked;
        const Report r = build_report(s);
        const std::string broken = report_invariant_violation(s, r);
        if (!broken.empty()) {
            CAPTURE(scenario_to_json(s));
            FAIL_CHECK(broken);
        }
        // A full report breaks its compute down by operation (the invariant then checks the sum).
        if (s.model.has_architecture() && !r.breakdown) FAIL_CHECK("no breakdown: " << scenario_to_json(s));
        if (r.moe && !s.model.is_moe()) FAIL_CHECK("MoE figures for a dense model: " << scenario_to_json(s));
    }
    // The generator must reach enough valid scenarios for the check to mean something.
    CHECK(checked >= 2000);
}

TEST_CASE("the planner never offers a layout past the simulator's limits or with an impossible figure") {
    // Llama 3 8B on 8 GPUs with 2^20 sequences a step: plain data parallel over 8 would need 131,072
    // micro-batches per pipeline, past the 65,536 the simulator runs; such layouts are not candidates.
    Scenario base = default_scenario();
    base.cluster.nodes = 1;
    base.training.global_batch = 1 << 20;
    PlanOptions options;
    options.top_k = 5;
    options.threads = 1;
    const PlanResult plan = plan_layouts(base, options);
    REQUIRE_FALSE(plan.ranked.empty());
    for (const PlanEntry& e : plan.ranked) {
        CAPTURE(scenario_to_json(e.scenario));
        CHECK(validate_scenario(e.scenario) == "");
        CHECK(report_invariant_violation(e.scenario, build_report(e.scenario)) == "");
        CHECK(e.mfu <= 1.0);
    }
    for (const Scenario& c : enumerate_candidates(base, options)) CHECK(validate_scenario(c) == "");
}
