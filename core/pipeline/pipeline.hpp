#pragma once
// The pipeline schedule simulator: GPipe, 1F1B, interleaved 1F1B, ZB-H1, ZB-H2 and DualPipe on one
// event engine. Each schedule only decides the order of operations on every device; the engine then
// starts every operation as soon as its device is free and its input has arrived, so dependencies hold
// by construction and the bubble is measured from the resulting events, never typed in.
//
// Vocabulary: a "stage" here is a device of the pipeline (p of them). A micro-batch crosses a path of
// model chunks: p chunks for 1F1B-like schedules, v*p for interleaved 1F1B (chunk c of device d is
// path position c*p + d, Narayanan et al. 2021), and p for each of DualPipe's two directions (device d
// holds path position d of direction 0 and p-1-d of direction 1, DeepSeek-V3 technical report 2024).

#include "core/scenario/scenario.hpp"

#include <string>
#include <vector>

namespace shardscope {

// Time of one micro-batch's work on one stage. F forward, B backward for the inputs, W backward for the
// weights. Schedules that do not split the backward run one op of cost b + w.
struct StageCost {
    double f = 1;
    double b = 1;
    double w = 0;

    [[nodiscard]] double full_backward() const noexcept { return b + w; }
    [[nodiscard]] double total() const noexcept { return f + b + w; }
};

struct PipelineSpec {
    Schedule schedule = Schedule::one_f_one_b;
    int stages = 1;                  // p
    int microbatches = 1;            // m (DualPipe: both directions together, m/2 each)
    int virtual_stages = 1;          // v, model chunks per device; read by interleaved 1F1B only
    std::vector<StageCost> costs;    // one per stage, or a single entry for all; empty = {1, 1, 0}
    // Seconds from the end of an op to its output being usable on the neighbouring stage (one
    // activation or its gradient). Sends do not occupy the stage, but with 1F1B's strict order each
    // steady-state step waits a round trip, so the step grows by more than the 2(p-1) hops of fill and
    // drain: the measured bubble already contains the exposed pipeline communication.
    double p2p_time = 0;
};

enum class OpKind {
    forward,          // F
    backward_input,   // B: gradient with respect to the inputs, sent upstream
    backward_weight,  // W: gradient with respect to the weights, local
    backward          // B and W as one op (schedules that do not split the backward)
};

struct PipelineEvent {
    int stage = 0;        // device
    int microbatch = 0;
    int chunk = 0;        // model chunk on this device: interleaved 0..v-1, DualPipe its direction 0/1
    OpKind kind = OpKind::forward;
    double start = 0;
    double end = 0;
    // The input this op waited for, for hover text and send/recv arrows: the stage it came from
    // (-1 when the input was local, e.g. a W after its B, or there was none) and when it arrived
    // (the producer's end plus p2p_time).
    int from_stage = -1;
    double input_ready = 0;
};

struct PipelineTimeline {
    int stages = 0;
    std::vector<std::vector<PipelineEvent>> events;  // per stage, by start time
    double makespan = 0;
    // Idle time over all stages within [0, makespan] divided by stages * makespan.
    double bubble_fraction = 0;
    // The largest idle time of one stage between its own first start and last end: the "bubble" of
    // Qi et al. 2023 and of DeepSeek-V3's Table 2, which ignores the ramp-up before a stage's first op.
    double max_stage_bubble = 0;
    std::vector<double> busy;                  // per stage: summed op durations
    // Per stage, at its peak: the (micro-batch, chunk) activations held (forward done, weight gradient
    // not yet). With v > 1 each chunk holds 1/v of the stage's layers.
    std::vector<int> peak_inflight;
    // The same peak in units of one micro-batch through the stage's full share of layers: peak_inflight
    // / v for interleaved 1F1B; DualPipe's chunks are each a full stage, so its count stands.
    std::vector<double> peak_activation_microbatches;
    std::string error;                         // non-empty when the spec was rejected; nothing else is set

    [[nodiscard]] bool ok() const noexcept { return error.empty(); }
    [[nodiscard]] std::size_t event_count() const noexcept;
};

// "" when the simulator can run the spec, else the rule it breaks, e.g.
// "microbatches: interleaved-1f1b needs a multiple of stages (4), got 6".
[[nodiscard]] std::string pipeline_spec_error(const PipelineSpec& spec);

// What one F/B/W op of `chunk` on `stage` costs: the stage's cost / v for interleaved 1F1B; for
// DualPipe the cost of the stage whose layers the chunk holds (d for direction 0, p-1-d for 1).
[[nodiscard]] StageCost op_cost(const PipelineSpec& spec, int stage, int chunk) noexcept;
// How long one op of `kind` runs with costs `c`: f, b, w, or b + w for a backward that is not split.
[[nodiscard]] double op_duration(const StageCost& c, OpKind kind) noexcept;

[[nodiscard]] PipelineTimeline simulate_pipeline(const PipelineSpec& spec);

// Re-derives every rule from the events alone: each (micro-batch, chunk) has exactly the ops its
// schedule needs; a stage runs one op at a time; F on a path position starts no earlier than the F of
// the previous position ended (+ p2p_time when on another stage); B (or the full backward) no earlier
// than its own F and the backward of the next position (+ p2p_time); W no earlier than its own B; op
// durations match the costs; makespan, bubble and peak_inflight agree with the events. "" when all
// hold, else the first broken rule.
[[nodiscard]] std::string check_pipeline(const PipelineSpec& spec, const PipelineTimeline& timeline);

// ---- Closed forms (equal stage costs c, no communication) -------------------------------------------
// Bubble time of the schedule as its source states it; `cost` is one stage's cost (before / v):
//   GPipe, 1F1B:      (p-1)(F+B+W)                         (as in the seed texts: (p-1)/(m+p-1))
//   interleaved 1F1B: (p-1)(F+B+W)/v                       Narayanan et al. 2021, section 2.2
//   ZB-H1:            (p-1)(F+B-W)                         Qi et al. 2023, "Zero Bubble Pipeline
//   ZB-H2:            (p-1)(F+B-2W)                        Parallelism", section 3
//   DualPipe:         (p/2-1)(F&B + B' - 3W)               DeepSeek-V3 technical report 2024, Table 2,
//                     with B' = B+W the full backward and F&B = F + B' (no overlap gain modelled)
[[nodiscard]] double closed_form_bubble_time(Schedule s, int stages, int virtual_stages,
                                             const StageCost& cost) noexcept;
// The bubble of a synchronous step (makespan - m(F+B+W)), which the simulator's bubble_fraction
// measures. Equal to the source's figure except for the zero-bubble schedules, whose papers count each
// stage from its own first op: a step still waits (p-1)F before the last stage starts, so
//   ZB-H1: (p-1) max(F, F+B-W)      ZB-H2: (p-1) max(F, F+B-2W)
// (ZB-H2's "zero bubble" needs Qi et al.'s optimizer post-validation to overlap that ramp with the
// next step). DualPipe's figure holds while F <= B and W <= B, as in DeepSeek's setting.
[[nodiscard]] double closed_form_step_bubble_time(Schedule s, int stages, int virtual_stages,
                                                  const StageCost& cost) noexcept;
// The closed form's formula in words, as its source writes it: "(p-1)/(m+p-1)" for 1F1B.
[[nodiscard]] const char* closed_form_bubble_text(Schedule s) noexcept;
// Step bubble as a fraction of the makespan: bubble / (bubble + m*(F+B+W)); 1F1B (p-1)/(m+p-1).
[[nodiscard]] double closed_form_bubble_fraction(Schedule s, int stages, int microbatches, int virtual_stages,
                                                 const StageCost& cost) noexcept;
// Peak (micro-batch, chunk) activations on `stage`: GPipe m; 1F1B min(p-s, m); interleaved
// min(2(p-s-1) + (v-1)p + 1, m*v) chunks (Megatron-LM's warm-up count + 1; 1F1B's when v = 1);
// ZB-H1 min(p, m); ZB-H2 min(2p-1, m); DualPipe p+1 (DeepSeek-V3 Table 2, "PP+1").
[[nodiscard]] int closed_form_peak_inflight(Schedule s, int stages, int microbatches, int virtual_stages,
                                            int stage) noexcept;
// Copies of the parameters each device holds: 2 for DualPipe, 1 otherwise.
[[nodiscard]] int parameter_copies(Schedule s) noexcept;

// The smallest number of micro-batches m the spec's schedule accepts whose closed-form step bubble
// fraction is below `target` (e.g. 8 stages of 1F1B under 0.05 needs m = 134). Reads schedule, stages,
// virtual_stages and the first stage's cost from `spec`. 0 when no m up to 1<<20 reaches it.
[[nodiscard]] int min_microbatches_for_bubble(const PipelineSpec& spec, double target);
// The same question asked of the simulator: the smallest m the schedule accepts whose simulated
// bubble_fraction, with every stage's own costs and the p2p time, is below `target`. Unequal stages
// need more micro-batches than the closed form says. The search doubles m, then bisects, which
// assumes the simulated bubble falls as m grows; a core test checks the result against a scan of
// every m for each schedule. 0 when no m the simulator accepts reaches the target.
[[nodiscard]] int min_microbatches_for_simulated_bubble(const PipelineSpec& spec, double target);

[[nodiscard]] std::string_view to_string(OpKind k) noexcept;  // "F", "B", "W", "BW"

}  // namespace shardscope
