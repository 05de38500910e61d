#include "core/pipeline/pipeline_orders.hpp"

#include <deque>

namespace shardscope::pipeline_detail {

int effective_virtual_stages(const PipelineSpec& spec) noexcept {
    return spec.schedule == Schedule::interleaved_1f1b ? spec.virtual_stages : 1;
}

int path_length(const PipelineSpec& spec) noexcept {
    return spec.stages * effective_virtual_stages(spec);
}

int direction_of(const PipelineSpec& spec, int microbatch) noexcept {
    if (spec.schedule != Schedule::dualpipe) return 0;
    return microbatch < spec.microbatches / 2 ? 0 : 1;
}

int device_at(const PipelineSpec& spec, int microbatch, int position) noexcept {
    if (spec.schedule == Schedule::interleaved_1f1b) return position % spec.stages;
    if (direction_of(spec, microbatch) == 1) return spec.stages - 1 - position;
    return position;
}

int chunk_at(const PipelineSpec& spec, int microbatch, int position) noexcept {
    if (spec.schedule == Schedule::interleaved_1f1b) return position / spec.stages;
    return direction_of(spec, microbatch);
}

int position_on(const PipelineSpec& spec, int stage, int chunk, int microbatch) noexcept {
    if (spec.schedule == Schedule::interleaved_1f1b) return chunk * spec.stages + stage;
    if (direction_of(spec, microbatch) == 1) return spec.stages - 1 - stage;
    return stage;
}

namespace {

using Ops = std::vector<ScheduledOp>;

// GPipe (Huang et al. 2019): every forward, then every backward.
Ops gpipe_ops(int m) {
    Ops ops;
    ops.reserve(2 * static_cast<std::size_t>(m));  // sized once: the planner builds thousands of orders
    for (int x = 0; x < m; ++x) ops.push_back({OpKind::forward, x, 0});
    for (int x = 0; x < m; ++x) ops.push_back({OpKind::backward, x, 0});
    return ops;
}

// 1F1B and the two zero-bubble schedules share one shape: at step x a stage runs F of micro-batch x,
// B of micro-batch x - b_lag and W of x - w_lag, skipping those outside [0, m). Warm-up and cool-down
// fall out of the skipping. 1F1B (PipeDream-Flush, Narayanan et al. 2021): b_lag = p-1-s, B and W
// fused. ZB-H1 (Qi et al. 2023, Figure 3): b_lag = p-1-s, w_lag = p-1, so every stage holds at most p
// micro-batches like 1F1B's first stage. ZB-H2: both lags doubled, trading memory (2p-1) for the bubble.
Ops lagged_ops(int m, int b_lag, int w_lag, bool split_backward) {
    Ops ops;
    ops.reserve((split_backward ? 3 : 2) * static_cast<std::size_t>(m));  // every micro-batch's F, B (and W)
    const int last_step = m - 1 + (split_backward ? w_lag : b_lag);
    for (int x = 0; x <= last_step; ++x) {
        if (x < m) ops.push_back({OpKind::forward, x, 0});
        const int b = x - b_lag;
        if (b >= 0 && b < m) ops.push_back({split_backward ? OpKind::backward_input : OpKind::backward, b, 0});
        const int w = x - w_lag;
        if (split_backward && w >= 0 && w < m) ops.push_back({OpKind::backward_weight, w, 0});
    }
    return ops;
}

// Interleaved 1F1B as Megatron-LM runs it (Narayanan et al. 2021, section 2.2): micro-batches go in
// groups of p through chunk 0, then chunk 1, ...; backward walks the chunks in reverse. Device s warms
// up with 2(p-s-1) + (v-1)p forwards (all of them when m == p), then alternates one forward with one
// backward, then drains the backwards.
Ops interleaved_ops(int p, int m, int v, int stage) {
    const int total = m * v;
    auto nth = [&](int k, bool forward) {
        const int group = k / (p * v);
        const int within = k % (p * v);
        const int chunk = within / p;
        return ScheduledOp{forward ? OpKind::forward : OpKind::backward, group * p + within % p,
                           forward ? chunk : v - 1 - chunk};
    };
    int warmup = m == p ? total : 2 * (p - stage - 1) + (v - 1) * p;
    if (warmup > total) warmup = total;
    Ops ops;
    ops.reserve(2 * static_cast<std::size_t>(total));  // one F and one B per (micro-batch, chunk)
    for (int k = 0; k < warmup; ++k) ops.push_back(nth(k, true));
    for (int j = 0; j < total - warmup; ++j) {
        ops.push_back(nth(warmup + j, true));
        ops.push_back(nth(j, false));
    }
    for (int j = total - warmup; j < total; ++j) ops.push_back(nth(j, false));
    return ops;
}

// DualPipe (DeepSeek-V3 technical report 2024, Figure 5), in the eight steps of DeepSeek's reference
// implementation. Each device is "phase 0" for the direction in which it sits in the first half of
// the path and "phase 1" for the other; h = min(s, p-1-s) makes the two halves mirror images. A
// forward-backward pair that DeepSeek overlaps (F&B) runs here as F then B: no overlap gain is modelled.
class DualPipeOrder {
public:
    DualPipeOrder(int p, int m, int stage)
        : half_ranks_(p / 2), half_m_(m / 2), h_(stage < p - 1 - stage ? stage : p - 1 - stage) {
        phase_direction_[0] = stage < p / 2 ? 0 : 1;
        phase_direction_[1] = 1 - phase_direction_[0];
    }

    Ops build() {
        const int p = 2 * half_ranks_;
        repeat(2 * (half_ranks_ - h_ - 1), [&] { forward(0); });
        repeat(h_ + 1, [&] { forward(0); forward(1); });
        repeat(half_ranks_ - h_ - 1, [&] { backward(1, true); weight(); forward(1); });
        repeat(half_m_ - p + h_ + 1, [&] {
            overlapped(0, 1);
            overlapped(1, 0);
        });
        repeat(half_ranks_ - h_ - 1, [&] {
            backward(1, false);
            overlapped(1, 0);
        });
        // The second half of these backwards is split so their W can fill the drain.
        const int step6 = h_ + 1;
        bool split = false;
        for (int i = 0; i < step6; ++i) {
            if (i == step6 / 2 && h_ % 2 == 1) split = true;
            backward(1, split);
            if (i == step6 / 2 && h_ % 2 == 0) split = true;
            backward(0, split);
        }
        repeat(half_ranks_ - h_ - 1, [&] { weight(); backward(0, true); });
        repeat(h_ + 1, [&] { weight(); });
        return std::move(ops_);
    }

private:
    template <class F>
    static void repeat(int n, F&& body) {
        for (int i = 0; i < n; ++i) body();
    }
    int microbatch(int phase, int index) const { return phase_direction_[phase] * half_m_ + index; }
    void forward(int phase) {
        ops_.push_back({OpKind::forward, microbatch(phase, next_f_[phase]++), phase_direction_[phase]});
    }
    void backward(int phase, bool split) {
        const ScheduledOp op{split ? OpKind::backward_input : OpKind::backward,
                             microbatch(phase, next_b_[phase]++), phase_direction_[phase]};
        ops_.push_back(op);
        if (split) pending_weights_.push_back({OpKind::backward_weight, op.microbatch, op.chunk});
    }
    // F of one phase overlapped with the full backward of the other (DeepSeek's F&B).
    void overlapped(int forward_phase, int backward_phase) {
        forward(forward_phase);
        ops_.back().paired_with_next = true;
        backward(backward_phase, false);
    }
    void weight() {
        if (pending_weights_.empty()) return;  // cannot happen for a valid spec; the checker would notice
        ops_.push_back(pending_weights_.front());
        pending_weights_.pop_front();
    }

    int half_ranks_, half_m_, h_;
    int phase_direction_[2] = {0, 1};
    int next_f_[2] = {0, 0}, next_b_[2] = {0, 0};
    std::deque<ScheduledOp> pending_weights_;
    Ops ops_;
};

}  // namespace

std::vector<std::vector<ScheduledOp>> schedule_ops(const PipelineSpec& spec) {
    const int p = spec.stages, m = spec.microbatches;
    std::vector<Ops> out(static_cast<std::size_t>(p));
    for (int s = 0; s < p; ++s) {
        Ops& ops = out[static_cast<std::size_t>(s)];
        switch (spec.schedule) {
            case Schedule::gpipe: ops = gpipe_ops(m); break;
            case Schedule::one_f_one_b: ops = lagged_ops(m, p - 1 - s, 0, false); break;
            case Schedule::zb_h1: ops = lagged_ops(m, p - 1 - s, p - 1, true); break;
            case Schedule::zb_h2: ops = lagged_ops(m, 2 * (p - 1 - s), 2 * (p - 1), true); break;
            case Schedule::interleaved_1f1b:
                // One chunk per device is plain 1F1B; Megatron's doubled warm-up would only cost memory.
                ops = spec.virtual_stages == 1 ? lagged_ops(m, p - 1 - s, 0, false)
                                               : interleaved_ops(p, m, spec.virtual_stages, s);
                break;
            case Schedule::dualpipe: ops = DualPipeOrder(p, m, s).build(); break;
        }
    }
    return out;
}

}  // namespace shardscope::pipeline_detail
