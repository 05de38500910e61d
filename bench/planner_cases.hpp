#pragma once
// The planner's benchmark cases: Llama 3 405B on 16,384 and on 131,072 H100s, every knob
// searched. Shared by bench/planner_bench.cpp and `shardscope bench` (app/cmd_bench.cpp) so both time
// the same thing. Header-only: bench/ has no library of its own.

#include "core/planner/planner.hpp"
#include "core/scenario/scenario.hpp"

#include <chrono>
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
};

inline std::vector<PlannerCase> planner_cases() {
    return {{"Llama 3 405B, 16,384 H100", llama3_405b_on(2048)},
            {"Llama 3 405B, 131,072 H100", llama3_405b_on(16384)}};
}

struct PlannerTiming {
    double seconds = 0;        // best of the runs
    PlanStats stats;
    std::string best;          // describe_layout of the winner
};

// Runs the full search `runs` times with `threads` threads (1: this thread alone; 0: one per
// hardware thread) and keeps the fastest, least disturbed run.
inline PlannerTiming time_planner(const Scenario& s, int runs, int threads) {
    PlannerTiming t;
    t.seconds = 1e300;
    PlanOptions options;
    options.threads = threads;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        PlanResult r = plan_layouts(s, options);
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
