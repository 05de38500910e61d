#pragma once
// A pipeline schedule compiled once and timed many times. The op order of a schedule, and which op
// waits for which, depend only on (schedule, stages, micro-batches, virtual stages); the costs and the
// p2p time only move the times. compile() walks the schedule once and keeps every op with the ops its
// input comes from; time() then times the whole pipeline in one pass over a flat array. This is the
// simulator's engine (simulate_pipeline compiles and times every spec it is given), so a program timed
// with a spec gives that spec's simulation bit for bit: the planner, which times thousands of pipelines
// of a few shapes, keeps one program per shape (PipelineMemo).

#include "core/pipeline/pipeline.hpp"

#include <cstdint>
#include <vector>

namespace shardscope {

class PipelineProgram {
public:
    // The shape a program is compiled for.
    struct Shape {
        Schedule schedule = Schedule::one_f_one_b;
        int stages = 1;
        int microbatches = 1;
        int virtual_stages = 1;
        friend bool operator==(const Shape& a, const Shape& b) noexcept {
            return a.schedule == b.schedule && a.stages == b.stages && a.microbatches == b.microbatches &&
                   a.virtual_stages == b.virtual_stages;
        }
        friend bool operator<(const Shape& a, const Shape& b) noexcept;
    };
    [[nodiscard]] static Shape shape_of(const PipelineSpec& spec) noexcept;

    // `spec` must pass pipeline_spec_error; only its shape is read. ok() is false when the schedule's
    // order stalls (no op can run), which only a wrong order can do.
    [[nodiscard]] static PipelineProgram compile(const PipelineSpec& spec);
    [[nodiscard]] bool ok() const noexcept { return ok_; }
    [[nodiscard]] const Shape& shape() const noexcept { return shape_; }
    [[nodiscard]] std::size_t op_count() const noexcept { return ops_.size(); }

    struct Timing {
        double makespan = 0;
        double bubble_fraction = 0;   // as PipelineTimeline::bubble_fraction
        double max_stage_bubble = 0;  // as PipelineTimeline::max_stage_bubble
        std::vector<double> busy;     // per stage
    };
    // Times the program with `spec`'s costs and p2p time (`spec` must have this program's shape). With
    // `events`, also writes every op as simulate_pipeline's events (per stage, in start order).
    [[nodiscard]] Timing time(const PipelineSpec& spec,
                              std::vector<std::vector<PipelineEvent>>* events = nullptr) const;

    // Per stage, the most (micro-batch, chunk) activations held at once: a forward takes one, the op
    // that finishes its weight gradient frees it. Fixed by the order alone.
    [[nodiscard]] const std::vector<int>& peak_inflight() const noexcept { return peak_inflight_; }
    // The same in micro-batches through the stage's whole share of layers (peak / v for interleaved).
    [[nodiscard]] std::vector<double> peak_activation_microbatches() const;

private:
    struct Op {
        int32_t stage = 0;
        int32_t microbatch = 0;
        int32_t chunk = 0;
        OpKind kind = OpKind::forward;
        int32_t from_stage = -1;   // the stage the input came from (-1: local or none)
        uint32_t inputs_begin = 0; // into inputs_
        uint32_t inputs_end = 0;
    };
    // The op must wait for op `op` to end, plus the p2p time when it ran on another stage.
    struct Input {
        uint32_t op = 0;
        bool hop = false;
    };

    Shape shape_;
    bool ok_ = false;
    int chunks_ = 1;  // chunks per device in the duration table: v, 2 for DualPipe, else 1
    std::vector<Op> ops_;           // every op after the ops it waits for; per stage in schedule order
    std::vector<Input> inputs_;
    std::vector<int> peak_inflight_;

    friend class ProgramBuilder;
};

}  // namespace shardscope
