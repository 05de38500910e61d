#pragma once
// The pipeline a scenario runs, as a PipelineSpec the timeline panel can simulate and edit ("from
// scenario"), and the activation memory each stage holds at a simulated timeline's peak.
//
// The spec is the cost model's own (scenario_pipeline_spec in cost_model.hpp: per-stage compute with
// the exposed per-micro-batch TP / CP / EP / FSDP communication folded in, p2p_time over the pp dim's
// link), so the panel's "from scenario" timeline is the one the Report's bubble was read from.

#include "core/pipeline/pipeline.hpp"
#include "core/scenario/scenario.hpp"

#include <vector>

namespace shardscope {

// Schedule, stages (pp), micro-batches per step (at least 1), virtual stages, per-stage F/B/W in seconds
// and p2p_time, exactly as build_report simulates them. A model given only as `params` has no FLOPs:
// then every stage costs F = 1, B = 2 in arbitrary units and p2p_time is 0.
[[nodiscard]] PipelineSpec pipeline_spec_for(const Scenario& s);

// The spec's costs as the timeline panel edits them: one cost per stage, each backward split into B
// and W (half each, as the cost model splits it for zero-bubble schedules) so that a comparison with a
// zero-bubble schedule has a W to move, and a typical middle stage with the ends as extra fractions of it.
struct EditableStageCosts {
    std::vector<StageCost> per_stage;  // spec.stages entries, each with w > 0 unless b was 0
    StageCost typical;                 // the second stage when there are more than two, else the first
    double first_extra = 0;            // first stage's total / typical's total - 1
    double last_extra = 0;             // last stage's total / typical's total - 1
};
[[nodiscard]] EditableStageCosts editable_stage_costs(const PipelineSpec& spec);

// Activation bytes one GPU of each stage holds at the timeline's peak: peak_activation_microbatches
// times the stage's per-micro-batch activations (Korthikanti, via stage_memory) for the scenario's model
// cut into timeline.stages stages. Empty when the model has no architecture, the timeline failed, or
// there are more stages than layers.
[[nodiscard]] std::vector<double> activation_bytes_per_stage(const Scenario& s, const PipelineTimeline& timeline);

}  // namespace shardscope
