#pragma once
// "Make it fit": the Memory panel's advice for a scenario whose most loaded GPU needs more memory than
// it has. Every candidate is re-costed with build_report, so the advice and the report never disagree.
//
// The knobs, cheapest first (what each one costs is why it sits where it does):
//   0. a pipeline schedule that holds fewer micro-batches (GPipe, ZB-H2 or DualPipe -> 1F1B, which
//      keeps at most p in flight on a stage; Narayanan et al. 2021, section 2.2.1): the same work,
//      a bubble of its own, and DualPipe's second parameter copy gone;
//   1. a higher ZeRO stage: more data-parallel traffic, the same compute;
//   2. a smaller micro-batch: fewer activations held, more micro-batches (and a different bubble);
//   3. selective, then full recompute: re-runs part, then all, of the forward in the backward;
//   4. more TP: every block gains collectives on the critical path;
//   5. more PP: a longer pipeline, a bigger bubble and more activations in flight on the first stage.
//   6. only when none of those fits: the optimizer offloaded to host memory (training.offload), with
//      any of the fixes above: its state leaves the GPU and the step pays the host link and CPU Adam.
// TP and PP grow by powers of two and are paid for by the data-parallel dims (dp_replicate first, then
// dp_shard), so the world size stays the same. A ZeRO stage above 0 with no shard group turns the plain
// replicas into shards (dp_replicate -> dp_shard).
//
// The choice: the shortest step time (the cost model's) among every fix that fits, however many knobs
// it turns, so the advice is the fix a person would want rather than merely the smallest; it names
// every field it changes, the data-parallel dims that pay for TP and PP included. A model given only
// as a parameter count has no step time: there the first fitting candidate wins, fewest knobs first,
// in the knob order above.

#include "core/model/memory.hpp"
#include "core/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shardscope {

// One knob's change, e.g. {"zero", "0", "3"}: text = "zero 0 -> 3".
struct KnobChange {
    std::string knob;  // schedule, zero, micro_batch, recompute, tp, pp
    std::string from;
    std::string to;
    [[nodiscard]] std::string text() const { return knob + " " + from + " -> " + to; }
};

// Knob changes as one line: "zero 0 -> 3, recompute none -> full".
[[nodiscard]] std::string changes_text(const std::vector<KnobChange>& changes);

struct FitAdvice {
    bool needed = false;                 // false: the scenario already fits
    bool found = false;                  // some candidate fits
    std::vector<KnobChange> changes;     // the chosen fix (empty unless found)
    Scenario scenario;                   // the fixed scenario (the input when nothing fits)
    double total_bytes = 0;              // its most loaded GPU
    MemoryBreakdown memory;              // that GPU's parts (the panel's "after the fix" bar)
    double capacity_bytes = 0;           // the GPU's memory
    std::optional<double> step_s;        // its step time (null for a count-only model)
    // When nothing fits: the lightest candidate and a floor on what it needs (every stage holding at
    // least one micro-batch), so the panel can say how far off the cluster is: no candidate needs less.
    std::vector<KnobChange> closest_changes;
    double closest_bytes = 0;
    int candidates_costed = 0;           // how many scenarios were re-costed (build_report)
    int candidates_screened = 0;         // how many valid candidates were looked at

    // "zero 0 -> 3, recompute none -> full"
    [[nodiscard]] std::string summary() const;
};

// The advice for s, which must pass validate_scenario.
[[nodiscard]] FitAdvice advise_fit(const Scenario& s);

// The scenario with ZeRO stage `zero`, kept valid: stage 0 folds dp_shard into dp_replicate (plain
// replicas, DDP); a stage above 0 with dp_shard 1 turns dp_replicate into dp_shard. The same edit the
// panel's ZeRO control and the advisor make.
[[nodiscard]] Scenario with_zero_stage(const Scenario& s, int zero);

// A layout carried onto a model it cannot run as it is (a model imported over a scenario laid out
// for another): each knob the new model's shape rules out comes down to the nearest value that runs,
// the rule that refused it telling which (virtual stages to what the layers allow, else 1F1B without
// them; pp, tp and cp halved, their factor going to dp_replicate so the world stays the same; ep
// halved, or 1 for a dense model). `rule` is "" when the result passes validate_scenario, else the
// rule no knob here can meet.
struct CarriedLayout {
    Scenario scenario;
    std::vector<KnobChange> changes;  // every field moved, as the advice names them
    std::string rule;
};
[[nodiscard]] CarriedLayout carry_layout_to_model(const Scenario& s);

// The data-parallel dims that differ between two scenarios ("dp_shard 128 -> 1"), in mesh order: what
// with_zero_stage moves besides the stage, which a control that does it must say.
[[nodiscard]] std::vector<KnobChange> data_parallel_changes(const Scenario& before, const Scenario& after);

}  // namespace shardscope
