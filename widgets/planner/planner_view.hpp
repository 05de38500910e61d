#pragma once
// The Planner panel's draw records: core's ranking (core/planner/planner.hpp) turned into table rows and
// scatter points once per search, so draw() only paints and tests assert on plain values.

#include "core/mesh/mesh_groups.hpp"
#include "core/planner/planner.hpp"

#include <imgui.h>

#include <string>
#include <vector>

namespace shardscope::ui {

// One dim of a row's mesh, as the table prints it: "dp_rep 2" in dp_replicate's palette colour.
struct MeshToken {
    Dim dim = Dim::tp;
    std::string text;
    ImU32 colour = 0;
};

// One ranked layout, as the table shows it (every figure formatted by core/scenario/units.hpp).
struct PlannerRow {
    int rank = 0;                // 1 = best under the objective
    std::string mesh;            // "tp 8 · pp 4 · dp_shard 2"
    std::vector<MeshToken> mesh_tokens;  // the same, one token per dim, coloured
    int64_t tp = 1, cp = 1, pp = 1, dp_shard = 1, dp_replicate = 1, ep = 1;
    int zero = 0;
    int64_t micro_batch = 1;
    std::string schedule;        // "1f1b", "interleaved-1f1b v2"; "" without a pipeline
    std::string recompute;
    bool tp_within_node = true;
    double step_s = 0, mfu = 0, memory_bytes = 0, headroom_bytes = 0;
    std::string step_text, mfu_text, memory_text, headroom_text;
    std::string why_below_best;  // "" for rank 1
    int alike = 0;               // near-identical layouts folded into this row
    std::string also;            // "also within 0.1%: zero 1 (+0.00%, 49.3 GiB); ..." ("" when alike is 0)
};

// One costed layout in the scatter: x memory per GPU, y step time.
struct PlannerPoint {
    double memory_bytes = 0;
    double step_s = 0;
    int rank = 0;                // its row's rank, 0 when it is not in the table
    bool on_front = false;       // on the Pareto front (no layout is both faster and smaller)
    std::string label;           // hover text
};

struct PlannerView {
    std::vector<PlannerRow> rows;           // best first
    std::vector<PlannerPoint> points;       // every fitting layout the search costed
    std::vector<PlannerPoint> front;        // the Pareto front, by step time
    double gpu_memory_bytes = 0;
    std::string summary;                    // "costed 75 of 7,164 candidates (68 layouts) ..."
    std::string runner_up;                  // why #2 loses to #1
    std::vector<std::string> notes;
    PlanObjective objective = PlanObjective::step;
};

[[nodiscard]] PlannerView build_planner_view(const PlanResult& result);

}  // namespace shardscope::ui
