#pragma once
// The pipeline a scenario runs, as a PipelineSpec the timeline panel can simulate and edit ("from
// scenario"), and the activation memory each stage holds at a simulated timeline's peak.
//
// Op costs follow cost_model.hpp's accounting for one micro-batch on one GPU of a stage: matmul FLOPs
// at peak_tflops * matmul_efficiency plus the memory-bound element-wise bytes streamed through HBM
// (once per forward, twice per backward, three times with a full recompute); the last stage adds the
// output layer. Split-backward schedules (ZB-H1, ZB-H2, DualPipe) get B = W = half the backward, as the
// cost model does. p2p_time is one activation (b * s/cp * h / tp elements) sent point-to-point over the
// pp dim's link. What this leaves out: the per-micro-batch TP / CP / EP / FSDP communication that the
// cost model adds to an op when it is exposed, so with those dims active the Report's bubble can differ
// slightly from the one simulated here. (cost_model.cpp keeps that part private; when it exposes its
// own spec, pipeline_spec_for should forward to it.)

#include "core/pipeline.hpp"
#include "core/scenario.hpp"

#include <vector>

namespace shardscope {

// Schedule, stages (pp), micro-batches per step (capped at the simulator's 65,536), virtual stages, per
// stage F/B/W in seconds and p2p_time. A model given only as `params` has no FLOPs: then every stage
// costs F = 1, B = 2 (W = 0, or B = W = 1 for split-backward schedules) in arbitrary units, as in the
// cost model, and p2p_time is 0.
[[nodiscard]] PipelineSpec pipeline_spec_for(const Scenario& s);

// Activation bytes one GPU of each stage holds at the timeline's peak: peak_activation_microbatches
// times the stage's per-micro-batch activations (Korthikanti, via stage_memory) for the scenario's model
// cut into timeline.stages stages. Empty when the model has no architecture, the timeline failed, or
// there are more stages than layers.
[[nodiscard]] std::vector<double> activation_bytes_per_stage(const Scenario& s, const PipelineTimeline& timeline);

}  // namespace shardscope
