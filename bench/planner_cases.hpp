#pragma once
// The planner's benchmark cases, each with its goal (one core, the whole search): Llama 3 405B on
// 16,384 H100s (50 ms), on 131,072 (100 ms) and on 16,384 with every mesh order (500 ms), every knob
// searched, and DeepSeek-V3 on 2,048 H800s as `shardscope validate --scenario` gives it (100 ms).
// Shared by bench/planner_bench.cpp and `shardscope bench` (app/cmd_bench.cpp) so both time the same
// thing. Header-only: bench/ has no library of its own.

#include "core/model/validation_suite.hpp"
#include "core/planner/planner.hpp"
#include "core/scenario/scenario.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::bench {

// Llama 3 405B (Meta's model card and paper: 126 layers, hidden 16384, FFN 53248, 128 heads, 8 KV
// heads, vocab 128,256, sequence 8192) on `nodes` DGX H100 nodes; global batch 2048 sequences.
inline Scenario llama3_405b_on(int64_t nodes) {
    Scenario s = default_scenario();
    s.model.name = "Llama 3 405B";
    s.model.layers = 126;
    s.model.hidden = 16384;
    s.model.ffn_hidden = 53248;
    s.model.heads = 128;
    s.model.kv_heads = 8;
    s.model.vocab = 128256;
    s.model.seq_len = 8192;
    s.cluster.nodes = nodes;
    s.parallel = ParallelSpec{};
    s.parallel.tp = 8;
    s.parallel.pp = 16;
    s.parallel.dp_shard = nodes * 8 / 128;
    s.parallel.zero = 1;
    s.parallel.sequence_parallel = true;
    s.training.global_batch = 2048;
    s.training.micro_batch = 1;
    return s;
}

struct PlannerCase {
    std::string name;
    Scenario scenario;
    PlanOptions options;
    std::string goal;  // one core, the whole search
    int runs = 5;      // the best of these is quoted
};

// The validation suite's DeepSeek-V3 row (its H800 cluster is the H100 preset with H800's NVLink), on
// the shipped H100 preset; nullopt without one.
inline std::optional<Scenario> deepseek_v3_row(const std::optional<ClusterSpec>& h100_preset) {
    if (!h100_preset) return std::nullopt;
    for (const PublishedRun& run : published_runs({*h100_preset, *h100_preset}))
        if (run.name.rfind("DeepSeek-V3  p16 e64 dualpipe", 0) == 0) return run.scenario;
    return std::nullopt;
}

// Without the H100 preset (a build that cannot find its assets) the DeepSeek-V3 case is left out.
inline std::vector<PlannerCase> planner_cases(const std::optional<ClusterSpec>& h100_preset) {
    PlanOptions every_order;
    every_order.all_orders = true;
    std::vector<PlannerCase> cases = {
        {"Llama 3 405B, 16,384 H100", llama3_405b_on(2048), {}, "50 ms"},
        {"Llama 3 405B, 131,072 H100", llama3_405b_on(16384), {}, "100 ms"},
        {"Llama 3 405B, 16,384 H100, every order", llama3_405b_on(2048), every_order, "500 ms", 3}};
    if (const std::optional<Scenario> dsv3 = deepseek_v3_row(h100_preset))
        cases.push_back({"DeepSeek-V3, 2,048 H800", *dsv3, {}, "100 ms", 3});
    return cases;
}

struct PlannerTiming {
    double seconds = 0;        // best of the runs
    PlanStats stats;
    std::string best;          // describe_layout of the winner
};

// Runs the case's full search c.runs times with `threads` threads (1: this thread alone; 0: one per
// hardware thread) and keeps the fastest, least disturbed run.
inline PlannerTiming time_planner(const PlannerCase& c, int threads) {
    PlannerTiming t;
    t.seconds = 1e300;
    PlanOptions options = c.options;
    options.threads = threads;
    for (int i = 0; i < c.runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        PlanResult r = plan_layouts(c.scenario, options);
        const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (dt < t.seconds) {
            t.seconds = dt;
            t.stats = r.stats;
            t.best = r.ranked.empty() ? "(none fits)" : describe_layout(r.ranked.front().scenario);
        }
    }
    return t;
}

}  // namespace shardscope::bench
