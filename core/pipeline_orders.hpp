#pragma once
// Internal to the pipeline simulator: where a micro-batch's path runs, and the order in which each
// schedule runs its ops on every device. pipeline.cpp times these orders; the panel may also list them.

#include "core/pipeline.hpp"

#include <vector>

namespace shardscope::pipeline_detail {

struct ScheduledOp {
    OpKind kind = OpKind::forward;
    int microbatch = 0;
    int chunk = 0;
    // DualPipe's overlapped F&B pair: this op and the next start together, once both inputs are in.
    bool paired_with_next = false;
};

// Positions on a micro-batch's path: v*p for interleaved 1F1B, p otherwise.
[[nodiscard]] int path_length(const PipelineSpec& spec) noexcept;
// DualPipe feeds the first m/2 micro-batches from stage 0 (direction 0), the rest from stage p-1.
[[nodiscard]] int direction_of(const PipelineSpec& spec, int microbatch) noexcept;
[[nodiscard]] int device_at(const PipelineSpec& spec, int microbatch, int position) noexcept;
[[nodiscard]] int chunk_at(const PipelineSpec& spec, int microbatch, int position) noexcept;
// Inverse of the two above: the path position that `chunk` of `stage` is for this micro-batch.
[[nodiscard]] int position_on(const PipelineSpec& spec, int stage, int chunk, int microbatch) noexcept;
[[nodiscard]] int effective_virtual_stages(const PipelineSpec& spec) noexcept;

// Per device, the ops in the order the schedule runs them. The spec must be valid.
[[nodiscard]] std::vector<std::vector<ScheduledOp>> schedule_ops(const PipelineSpec& spec);

}  // namespace shardscope::pipeline_detail
