#include "core/measure/schedule_runner.hpp"

#include "core/measure/measure.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace shardscope {

namespace {

[[nodiscard]] bool chunks_are_rank_pieces(Collective op) noexcept {
    return op == Collective::all_gather || op == Collective::reduce_scatter || op == Collective::all_to_all;
}

[[nodiscard]] bool overlaps(int64_t a_offset, int64_t a_elements, int64_t b_offset, int64_t b_elements) noexcept {
    return a_offset < b_offset + b_elements && b_offset < a_offset + a_elements;
}

void copy_floats(float* to, const float* from, int64_t elements) {
    if (elements > 0) std::memcpy(to, from, static_cast<std::size_t>(elements) * sizeof(float));
}

}  // namespace

ScheduleRunner::ScheduleRunner(const SteppedCollective& schedule, int rank, int64_t count)
    : op_(schedule.config().collective),
      rank_(rank),
      ranks_(schedule.ranks()),
      root_(schedule.config().root),
      chunks_(schedule.chunk_count()),
      count_(count) {
    if (rank < 0 || rank >= ranks_) throw std::invalid_argument("rank " + std::to_string(rank) + " is not in the schedule");
    if (count < 0) throw std::invalid_argument("count must not be negative");
    if (chunks_are_rank_pieces(op_) && chunks_ != ranks_)
        throw std::invalid_argument("a schedule for " + std::string(to_string(op_)) + " must cut one chunk per rank");
    chunked_elements_ = chunks_are_rank_pieces(op_) ? count * ranks_ : count;
    const NcclBuffers buffers = nccl_buffer_elements(op_, count, ranks_);
    send_elements_ = buffers.send;
    receive_elements_ = buffers.recv;
    build_plan(schedule);
}

ScheduleRunner::Span ScheduleRunner::chunk_span(int first_chunk, int chunks, bool input) const noexcept {
    // Chunk c is [c E / C, (c+1) E / C): whole elements, sizes differing by at most one.
    const int64_t begin = static_cast<int64_t>(first_chunk) * chunked_elements_ / chunks_;
    const int64_t end = static_cast<int64_t>(first_chunk + chunks) * chunked_elements_ / chunks_;
    return Span{input, begin, end - begin};
}

void ScheduleRunner::build_plan(const SteppedCollective& schedule) {
    int64_t stage_size = 0;
    for (int k = 0; k < schedule.step_count(); ++k) {
        StepPlan step;
        for (const Transfer& t : schedule.transfers(k)) {
            if (t.src == rank_) {
                const bool input = t.src_slot == kInputSlot;
                step.sends.push_back({t.dst, chunk_span(input ? t.chunk : t.src_slot, t.count, input)});
            }
            if (t.dst == rank_)
                step.receives.push_back({t.src, chunk_span(t.dst_slot, t.count, false), t.op == TransferOp::reduce});
        }
        int64_t staged = 0;
        for (std::size_t i = 0; i < step.receives.size(); ++i) {
            Receive& r = step.receives[i];
            bool clash = r.add;
            for (const Send& s : step.sends)
                clash = clash || (!s.from.input && overlaps(r.into.offset, r.into.elements, s.from.offset, s.from.elements));
            for (std::size_t j = 0; j < step.receives.size(); ++j)
                clash = clash || (j != i && overlaps(r.into.offset, r.into.elements, step.receives[j].into.offset,
                                                     step.receives[j].into.elements));
            if (clash) {
                r.staged = true;
                r.stage_offset = staged;
                staged += r.into.elements;
            }
            largest_message_ = std::max(largest_message_, r.into.elements);
        }
        for (const Send& s : step.sends) largest_message_ = std::max(largest_message_, s.from.elements);
        stage_size = std::max(stage_size, staged);
        plan_.push_back(std::move(step));
    }
    stage_.assign(static_cast<std::size_t>(stage_size), 0.0f);
}

float* ScheduleRunner::address(const Span& s) const noexcept {
    // The input is only ever read: all-to-all sends its own chunks straight from it.
    return (s.input ? const_cast<float*>(send_) : work_) + s.offset;
}

void ScheduleRunner::start(const float* send, float* receive) {
    send_ = send;
    receive_ = receive;
    work_ = receive;
    switch (op_) {
        case Collective::all_reduce: copy_floats(receive, send, count_); break;
        case Collective::all_gather: copy_floats(receive + rank_ * count_, send, count_); break;
        case Collective::reduce_scatter:
            scratch_.resize(static_cast<std::size_t>(send_elements_));
            work_ = scratch_.data();
            copy_floats(work_, send, send_elements_);
            break;
        case Collective::broadcast:
            if (rank_ == root_) copy_floats(receive, send, count_);
            break;
        case Collective::all_to_all: copy_floats(receive + rank_ * count_, send + rank_ * count_, count_); break;
        default: break;
    }
}

StepMessages ScheduleRunner::messages(int k) {
    const StepPlan& step = plan_.at(static_cast<std::size_t>(k));
    StepMessages out;
    for (const Send& s : step.sends) out.sends.push_back({s.peer, address(s.from), s.from.elements});
    for (const Receive& r : step.receives)
        out.receives.push_back({r.peer, r.staged ? stage_.data() + r.stage_offset : address(r.into), r.into.elements});
    return out;
}

void ScheduleRunner::complete(int k) {
    for (const Receive& r : plan_.at(static_cast<std::size_t>(k)).receives) {
        if (!r.staged) continue;
        float* to = address(r.into);
        const float* from = stage_.data() + r.stage_offset;
        if (r.add) {
            for (int64_t i = 0; i < r.into.elements; ++i) to[i] += from[i];
        } else {
            copy_floats(to, from, r.into.elements);
        }
    }
}

void ScheduleRunner::finish() {
    if (op_ == Collective::reduce_scatter) copy_floats(receive_, work_ + rank_ * count_, count_);
}

// --- --check ---------------------------------------------------------------------------------------

float check_sent_value(int rank, int64_t index) noexcept {
    return static_cast<float>((rank + 1) * 8 + static_cast<int>(index % 7));
}

namespace {

// The sum over ranks q = 0..n-1 of check_sent_value(q, index): 8 n(n+1)/2 + n (index % 7).
[[nodiscard]] float summed_value(int ranks, int64_t index) noexcept {
    return static_cast<float>(4 * ranks * (ranks + 1) + ranks * static_cast<int>(index % 7));
}

}  // namespace

float check_expected_value(Collective op, int rank, int ranks, int64_t count, int64_t j) noexcept {
    switch (op) {
        case Collective::all_reduce: return summed_value(ranks, j);
        case Collective::all_gather: return check_sent_value(static_cast<int>(j / count), j % count);
        case Collective::reduce_scatter: return summed_value(ranks, rank * count + j);
        case Collective::broadcast: return check_sent_value(0, j);
        case Collective::all_to_all: return check_sent_value(static_cast<int>(j / count), rank * count + j % count);
        default: return std::numeric_limits<float>::quiet_NaN();
    }
}

void fill_check_send_buffer(float* send, int64_t elements, int rank) noexcept {
    for (int64_t j = 0; j < elements; ++j) send[j] = check_sent_value(rank, j);
}

int64_t count_wrong_elements(const float* received, int64_t elements, Collective op, int rank, int ranks,
                             int64_t count) noexcept {
    int64_t wrong = 0;
    for (int64_t j = 0; j < elements; ++j)
        if (!(received[j] == check_expected_value(op, rank, ranks, count, j))) ++wrong;
    return wrong;
}

// --- In memory -----------------------------------------------------------------------------------

std::vector<std::vector<float>> run_schedule_in_memory(const SteppedCollective& schedule, int64_t count) {
    const int n = schedule.ranks();
    std::vector<ScheduleRunner> runners;
    std::vector<std::vector<float>> sends, receives;
    for (int r = 0; r < n; ++r) {
        runners.emplace_back(schedule, r, count);
        sends.emplace_back(static_cast<std::size_t>(runners.back().send_elements()));
        fill_check_send_buffer(sends.back().data(), runners.back().send_elements(), r);
        // NaN: an element no step wrote cannot pass the check by accident.
        receives.emplace_back(static_cast<std::size_t>(runners.back().receive_elements()),
                              std::numeric_limits<float>::quiet_NaN());
    }
    for (int r = 0; r < n; ++r) runners[static_cast<std::size_t>(r)].start(sends[static_cast<std::size_t>(r)].data(),
                                                                            receives[static_cast<std::size_t>(r)].data());
    for (int k = 0; k < schedule.step_count(); ++k) {
        std::vector<StepMessages> posted;
        for (ScheduleRunner& runner : runners) posted.push_back(runner.messages(k));
        for (int dst = 0; dst < n; ++dst) {
            for (const RankMessage& in : posted[static_cast<std::size_t>(dst)].receives) {
                const auto& outs = posted[static_cast<std::size_t>(in.peer)].sends;
                const auto match = std::find_if(outs.begin(), outs.end(), [&](const RankMessage& m) { return m.peer == dst; });
                if (match == outs.end() || match->elements != in.elements)
                    throw std::logic_error("step " + std::to_string(k) + ": rank " + std::to_string(dst) +
                                           " receives from rank " + std::to_string(in.peer) + " what it does not send");
                copy_floats(in.data, match->data, in.elements);
            }
        }
        for (ScheduleRunner& runner : runners) runner.complete(k);
    }
    for (ScheduleRunner& runner : runners) runner.finish();
    return receives;
}

}  // namespace shardscope
