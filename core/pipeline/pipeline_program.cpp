#include "core/pipeline/pipeline_program.hpp"

#include "core/pipeline/pipeline_orders.hpp"

#include <algorithm>
#include <tuple>

namespace shardscope {

using pipeline_detail::device_at;
using pipeline_detail::effective_virtual_stages;
using pipeline_detail::path_length;
using pipeline_detail::peak_held;
using pipeline_detail::position_on;
using pipeline_detail::ScheduledOp;

bool operator<(const PipelineProgram::Shape& a, const PipelineProgram::Shape& b) noexcept {
    return std::tie(a.schedule, a.stages, a.microbatches, a.virtual_stages) <
           std::tie(b.schedule, b.stages, b.microbatches, b.virtual_stages);
}

PipelineProgram::Shape PipelineProgram::shape_of(const PipelineSpec& spec) noexcept {
    return Shape{spec.schedule, spec.stages, spec.microbatches, spec.virtual_stages};
}

namespace {

// Which op produced each (slot, micro-batch, path position), once it has been placed. A full backward
// fills the backward slot (its gradient is what upstream waits for) and the weight slot.
class ProducerTable {
public:
    enum Slot { kF = 0, kB = 1, kW = 2 };
    static constexpr int32_t kNone = -1;
    ProducerTable(int microbatches, int positions)
        : m_(microbatches), l_(positions), op_(static_cast<std::size_t>(3) * m_ * l_, kNone) {}
    [[nodiscard]] int32_t& at(Slot s, int mb, int k) { return op_[(static_cast<std::size_t>(s) * m_ + mb) * l_ + k]; }
    [[nodiscard]] static Slot slot_of(OpKind k) noexcept {
        return k == OpKind::forward ? kF : k == OpKind::backward_weight ? kW : kB;
    }

private:
    int m_, l_;
    std::vector<int32_t> op_;
};

}  // namespace

// Walks each stage's op list; a blocked stage waits until the neighbour that produces its input has
// advanced. Every op is placed once, so compiling is linear in the number of ops.
class ProgramBuilder {
public:
    explicit ProgramBuilder(const PipelineSpec& spec)
        : spec_(spec), last_(path_length(spec) - 1), table_(spec.microbatches, path_length(spec)) {}

    PipelineProgram build() {
        PipelineProgram& out = program_;
        out.shape_ = PipelineProgram::shape_of(spec_);
        out.chunks_ = spec_.schedule == Schedule::dualpipe ? 2 : effective_virtual_stages(spec_);
        const int p = spec_.stages;
        const std::vector<std::vector<ScheduledOp>> orders = pipeline_detail::schedule_ops(spec_);
        std::size_t total = 0;
        for (const auto& order : orders) {
            total += order.size();
            out.peak_inflight_.push_back(peak_held(order));
        }
        out.ops_.reserve(total);
        out.inputs_.reserve(total * 3 / 2);
        std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
        std::vector<int> worklist;
        for (int s = p - 1; s >= 0; --s) worklist.push_back(s);
        while (!worklist.empty()) {
            const int s = worklist.back();
            worklist.pop_back();
            const auto& order = orders[static_cast<std::size_t>(s)];
            auto& cursor = next[static_cast<std::size_t>(s)];
            while (cursor < order.size()) {
                const ScheduledOp& op = order[cursor];
                const std::size_t first_input = out.inputs_.size();
                int from_stage = -1, partner_from = -1;
                // An overlapped F&B pair starts when both halves have their inputs.
                const bool ready = add_inputs(op, s, from_stage) &&
                                   (!op.paired_with_next || cursor + 1 >= order.size() ||
                                    add_inputs(order[cursor + 1], s, partner_from));
                if (!ready) {
                    out.inputs_.resize(first_input);  // tried again when a neighbour wakes this stage
                    break;
                }
                place(op, s, from_stage, first_input);
                ++cursor;
                // Wake the stage that consumes what this op produced.
                const int k = position_on(spec_, s, op.chunk, op.microbatch);
                if (op.kind == OpKind::forward && k < last_) worklist.push_back(device_at(spec_, op.microbatch, k + 1));
                if ((op.kind == OpKind::backward || op.kind == OpKind::backward_input) && k > 0)
                    worklist.push_back(device_at(spec_, op.microbatch, k - 1));
            }
        }
        out.ok_ = out.ops_.size() == total;
        return std::move(out);
    }

private:
    // Appends the ops whose ends `op` (on `stage`) waits for; false when one has not been placed yet.
    bool add_inputs(const ScheduledOp& op, int stage, int& from_stage) {
        const int k = position_on(spec_, stage, op.chunk, op.microbatch);
        const auto local = [&](ProducerTable::Slot slot, int position) {
            const int32_t producer = table_.at(slot, op.microbatch, position);
            if (producer == ProducerTable::kNone) return false;
            program_.inputs_.push_back({static_cast<uint32_t>(producer), false});
            return true;
        };
        const auto from_neighbour = [&](ProducerTable::Slot slot, int position) {
            const int32_t producer = table_.at(slot, op.microbatch, position);
            if (producer == ProducerTable::kNone) return false;
            const int dev = device_at(spec_, op.microbatch, position);
            program_.inputs_.push_back({static_cast<uint32_t>(producer), dev != stage});
            from_stage = dev != stage ? dev : -1;
            return true;
        };
        switch (op.kind) {
            case OpKind::forward: return k == 0 || from_neighbour(ProducerTable::kF, k - 1);
            case OpKind::backward:
            case OpKind::backward_input:
                // The loss is computed in place: the last position's backward needs only its forward.
                if (!local(ProducerTable::kF, k)) return false;
                return k == last_ || from_neighbour(ProducerTable::kB, k + 1);
            case OpKind::backward_weight: return local(ProducerTable::kB, k);
        }
        return false;
    }

    void place(const ScheduledOp& op, int stage, int from_stage, std::size_t first_input) {
        const auto index = static_cast<int32_t>(program_.ops_.size());
        PipelineProgram::Op placed;
        placed.stage = stage;
        placed.microbatch = op.microbatch;
        placed.chunk = op.chunk;
        placed.kind = op.kind;
        placed.from_stage = from_stage;
        placed.inputs_begin = static_cast<uint32_t>(first_input);
        placed.inputs_end = static_cast<uint32_t>(program_.inputs_.size());
        program_.ops_.push_back(placed);
        const int k = position_on(spec_, stage, op.chunk, op.microbatch);
        table_.at(ProducerTable::slot_of(op.kind), op.microbatch, k) = index;
        if (op.kind == OpKind::backward) table_.at(ProducerTable::kW, op.microbatch, k) = index;
    }

    const PipelineSpec& spec_;
    int last_;
    ProducerTable table_;
    PipelineProgram program_;
};

PipelineProgram PipelineProgram::compile(const PipelineSpec& spec) { return ProgramBuilder(spec).build(); }

std::vector<double> PipelineProgram::peak_activation_microbatches() const {
    const double v = shape_.schedule == Schedule::interleaved_1f1b ? shape_.virtual_stages : 1;
    std::vector<double> out;
    out.reserve(peak_inflight_.size());
    for (int peak : peak_inflight_) out.push_back(static_cast<double>(peak) / v);
    return out;
}

PipelineProgram::Timing PipelineProgram::time(const PipelineSpec& spec,
                                              std::vector<std::vector<PipelineEvent>>* events) const {
    const int p = shape_.stages;
    const auto stages = static_cast<std::size_t>(p);
    // Every (stage, chunk, kind)'s duration, computed the one way op_cost states.
    std::vector<double> durations(stages * static_cast<std::size_t>(chunks_) * 4);
    for (int s = 0; s < p; ++s)
        for (int c = 0; c < chunks_; ++c) {
            const StageCost cost = op_cost(spec, s, c);
            for (OpKind k : {OpKind::forward, OpKind::backward_input, OpKind::backward_weight, OpKind::backward})
                durations[(static_cast<std::size_t>(s) * chunks_ + c) * 4 + static_cast<std::size_t>(k)] = op_duration(cost, k);
        }
    std::vector<double> end(ops_.size());
    std::vector<double> free_at(stages, 0.0), first_start(stages, -1.0);
    Timing t;
    t.busy.assign(stages, 0.0);
    if (events) {
        events->assign(stages, {});
        std::vector<std::size_t> per_stage(stages, 0);
        for (const Op& op : ops_) ++per_stage[static_cast<std::size_t>(op.stage)];
        for (std::size_t s = 0; s < stages; ++s) (*events)[s].reserve(per_stage[s]);
    }
    for (std::size_t i = 0; i < ops_.size(); ++i) {
        const Op& op = ops_[i];
        const auto s = static_cast<std::size_t>(op.stage);
        double ready = 0;
        for (uint32_t j = op.inputs_begin; j < op.inputs_end; ++j) {
            const Input in = inputs_[j];
            ready = std::max(ready, end[in.op] + (in.hop ? spec.p2p_time : 0.0));
        }
        const double start = std::max(free_at[s], ready);
        const double finish = start + durations[(s * chunks_ + static_cast<std::size_t>(op.chunk)) * 4 +
                                                static_cast<std::size_t>(op.kind)];
        end[i] = finish;
        free_at[s] = finish;
        t.busy[s] += finish - start;
        if (first_start[s] < 0) first_start[s] = start;
        if (events) {
            PipelineEvent e;
            e.stage = op.stage;
            e.microbatch = op.microbatch;
            e.chunk = op.chunk;
            e.kind = op.kind;
            e.start = start;
            e.end = finish;
            e.from_stage = op.from_stage;
            e.input_ready = ready;
            (*events)[s].push_back(e);
        }
    }
    // Each stage's last op ends last on it: free_at is the stage's end.
    for (std::size_t s = 0; s < stages; ++s) {
        t.makespan = std::max(t.makespan, free_at[s]);
        if (first_start[s] >= 0) t.max_stage_bubble = std::max(t.max_stage_bubble, free_at[s] - first_start[s] - t.busy[s]);
    }
    double idle = 0;
    for (double b : t.busy) idle += t.makespan - b;
    t.bubble_fraction = t.makespan > 0 ? idle / (p * t.makespan) : 0;
    return t;
}

}  // namespace shardscope
