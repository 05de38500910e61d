#pragma once
// The planner's floors: bounds below build_report's memory and step time that it can compute for a
// whole group of candidates at once, so it costs in full only those that might rank (planner.cpp).
// Each floor stays a hair below the figure it bounds, so rounding never prunes a candidate that fits
// or ranks. Internal to core/planner: nothing outside the planner includes it.

#include "core/mesh/mesh.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/memory.hpp"
#include "core/model/params.hpp"
#include "core/pipeline/pipeline.hpp"
#include "core/scenario/scenario.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace shardscope {

// A schedule the planner tries, with its chunks per stage.
struct ScheduleChoice {
    Schedule schedule = Schedule::one_f_one_b;
    int64_t virtual_stages = 1;
};

// Per stage: memory without activations, and the activations of one micro-batch through the stage.
struct StageMemoryParts {
    double base = 0;          // model state + other (one parameter copy)
    double extra_copy = 0;    // what DualPipe's second copy of weights and gradients adds
    double one_inflight = 0;  // activations of one micro-batch
};

// One run of identical stages, by its first stage.
struct MemoryRun {
    int64_t first_stage = 0;
    StageMemoryParts parts;
    double state = 0;  // weights, gradients and optimizer state alone (no micro-batch changes them)
};

// What the makespan floors of a group's schedules read from its pipeline spec, gathered once: the last
// stage of every run of equal costs, with the unsplit work of the stages before it. Within a run the
// busy time is the same and the lead and trail only grow, so the run's last stage bounds it.
struct RunEnd {
    double busy = 0;             // m (F + B + W)
    double forward_before = 0;   // sum of F over the stages before
    double backward_before = 0;  // sum of B + W over the stages before
    double hops = 0;             // p2p time from stage 0
};

// The first stage of every run of identical stages: most stages of a deep pipeline repeat their
// neighbour, and a run is priced once.
[[nodiscard]] std::vector<int64_t> run_starts(const std::vector<StageShape>& shapes);

// `s` has the layout's knobs, its schedule left at 1f1b (one parameter copy); `shapes` is stage_shape
// of every stage (they do not depend on zero, micro-batch or recompute, so the caller computes them
// once per layout), `starts` their run_starts.
// `blocks` is block_activations(s), which the caller shares (it reads no ZeRO stage or data-parallel factor).
void memory_runs(const Scenario& s, const std::vector<StageShape>& shapes, const std::vector<int64_t>& starts,
                 const BlockActivations& blocks, std::vector<MemoryRun>& out);

// A floor on build_report's memory: each stage holds its schedule's peak of activations. No schedule's
// peak grows with the stage index (the same core test checks it), so a run's first stage is its
// fullest.
[[nodiscard]] double memory_floor(const std::vector<MemoryRun>& runs, int64_t pp, ScheduleChoice sc,
                                  int64_t microbatches);

// The most memory any stage needs before a single activation (base, or only model state): a floor
// under every schedule's memory_floor, so when it overflows the GPU nothing of the group fits.
[[nodiscard]] double least_memory(const std::vector<MemoryRun>& runs, bool state_only);

[[nodiscard]] std::vector<RunEnd> run_ends(const PipelineSpec& spec);

// A floor on the simulated makespan (see planner.hpp): stage s can start no earlier than the first
// chunk's forwards on stages 0..s-1 (plus a hop each), is busy m(F+B+W), and with a whole backward its
// last op is followed by that backward on stages s-1..0. The spec's costs are the unsplit F and B (+ W)
// of each stage. DualPipe feeds both ends at once: device d runs m/2 micro-batches through its own
// layers (path position d of direction 0) and m/2 through stage p-1-d's (position p-1-d of direction
// 1), and starts once the first micro-batch of either direction reaches it.
[[nodiscard]] double makespan_floor(const PipelineSpec& spec, const std::vector<RunEnd>& ends, ScheduleChoice sc);

// step_end_times of the first stage of every run of identical stages (the rest of a run repeat it).
[[nodiscard]] std::vector<StepEndTimes> step_end_times_of_runs(const Scenario& s, const ParamCounts& counts,
                                                               const DeviceMesh& mesh,
                                                               const std::vector<int64_t>& starts);

// A floor on what the step adds after the pipeline drains: build_report charges the busiest stage's
// step-end collectives beyond its last backward's compute. Whichever stage is busiest, the charge is at
// least the least over all stages, and each stage's backward op (compute plus exposed communication)
// hides at least as much as its compute alone would. A run's stages share their collectives, and the
// longest backward in the run hides the most.
[[nodiscard]] double step_end_floor(const std::vector<StepEndTimes>& ends, const std::vector<int64_t>& starts,
                                    const PipelineSpec& spec);

// A group's pipeline spec with the run ends its makespan floors read.
struct FlooredSpec {
    FlooredSpec() = default;
    explicit FlooredSpec(PipelineSpec s) : spec(std::move(s)), run_ends(shardscope::run_ends(spec)) {}
    PipelineSpec spec;
    std::vector<RunEnd> run_ends;
};

}  // namespace shardscope
