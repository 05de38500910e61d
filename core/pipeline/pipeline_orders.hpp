#pragma once
// Internal to the pipeline simulator: where a micro-batch's path runs, and the order in which each
// schedule runs its ops on every device. pipeline.cpp times these orders; the panel may also list them.

#include "core/pipeline/pipeline.hpp"

#include <algorithm>
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

// The most (micro-batch, chunk) activations a device holds at once over `ops` (its ScheduledOps in
// order, or its PipelineEvents): a forward takes one, the op that finishes its weight gradient frees it.
template <typename Op>
[[nodiscard]] int peak_held(const std::vector<Op>& ops) noexcept {
    int held = 0, peak = 0;
    for (const Op& op : ops) {
        if (op.kind == OpKind::forward) peak = std::max(peak, ++held);
        if (op.kind == OpKind::backward || op.kind == OpKind::backward_weight) --held;
    }
    return peak;
}

// Per device, the ops in the order the schedule runs them. The spec must be valid.
[[nodiscard]] std::vector<std::vector<ScheduledOp>> schedule_ops(const PipelineSpec& spec);

}  // namespace shardscope::pipeline_detail
