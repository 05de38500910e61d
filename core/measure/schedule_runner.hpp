#pragma once
// One rank's side of a stepped collective on real buffers: the schedule the Collective animator plays
// (core/collectives/collective_steps.hpp), turned into messages between processes. A measure backend
// that times "the ring all-reduce you just watched" runs this, step for step, over point-to-point
// sends and receives; the transport (MPI in mpi/, memory in the tests) only moves the bytes.
//
// Buffers follow nccl-tests (and NCCL's API), out of place, `count` elements as NCCL is called with:
//   all-reduce and broadcast: send and receive `count`; the receive buffer is where the chunks live;
//   all-gather: send `count`, receive ranks x count, chunk c is rank c's piece;
//   reduce-scatter: send ranks x count, receive `count`; the chunks live in a scratch copy of the
//     input, and the rank's own finished chunk is copied out at the end;
//   all-to-all: send and receive ranks x count; slot i receives rank i's chunk for this rank.
// The local copies a collective makes (the input into the receive buffer) happen in start() and
// finish(), inside the timed span, as a library's out-of-place collective makes them too.
//
// A step's messages read the state before the step (the animator's rule): a receive that adds, or
// that lands where this rank also sends from in the same step, goes to a staging buffer and is applied
// in complete(); any other receive lands in place.

#include "core/collectives/collective_steps.hpp"

#include <cstdint>
#include <vector>

namespace shardscope {

// A message of one step: `elements` floats to or from `peer`, at `data` in this rank's buffers.
struct RankMessage {
    int peer = 0;
    float* data = nullptr;
    int64_t elements = 0;
};

struct StepMessages {
    std::vector<RankMessage> sends;
    std::vector<RankMessage> receives;
};

class ScheduleRunner {
public:
    // `schedule` must outlive the runner; count as NCCL is called with (see above).
    ScheduleRunner(const SteppedCollective& schedule, int rank, int64_t count);

    [[nodiscard]] int steps() const noexcept { return static_cast<int>(plan_.size()); }
    [[nodiscard]] int64_t send_elements() const noexcept { return send_elements_; }
    [[nodiscard]] int64_t receive_elements() const noexcept { return receive_elements_; }
    // Largest single message of this rank, in elements (a transport that counts in int checks it).
    [[nodiscard]] int64_t largest_message() const noexcept { return largest_message_; }

    // Binds the buffers (send_elements() and receive_elements() floats) and makes the local copies.
    void start(const float* send, float* receive);
    // Step k's messages; post them all, wait for all, then call complete(k).
    [[nodiscard]] StepMessages messages(int k);
    void complete(int k);
    // Copies the result out where the chunks lived elsewhere (reduce-scatter).
    void finish();

private:
    // Where a range of chunks lies: in the input (all-to-all's own chunks) or the working buffer.
    struct Span {
        bool input = false;
        int64_t offset = 0;
        int64_t elements = 0;
    };
    struct Receive {
        int peer = 0;
        Span into;
        bool add = false;
        bool staged = false;
        int64_t stage_offset = 0;  // in stage_, when staged
    };
    struct Send {
        int peer = 0;
        Span from;
    };
    struct StepPlan {
        std::vector<Send> sends;
        std::vector<Receive> receives;
    };

    [[nodiscard]] Span chunk_span(int first_chunk, int chunks, bool input) const noexcept;
    [[nodiscard]] float* address(const Span& s) const noexcept;
    void build_plan(const SteppedCollective& schedule);

    Collective op_;
    int rank_ = 0;
    int ranks_ = 0;
    int root_ = 0;
    int chunks_ = 0;
    int64_t count_ = 0;
    int64_t chunked_elements_ = 0;  // what the chunks cut: count, or ranks x count
    int64_t send_elements_ = 0;
    int64_t receive_elements_ = 0;
    int64_t largest_message_ = 0;
    std::vector<StepPlan> plan_;
    std::vector<float> stage_;
    std::vector<float> scratch_;    // reduce-scatter's working copy of the input
    const float* send_ = nullptr;
    float* receive_ = nullptr;
    float* work_ = nullptr;
};

// --check's data and closed forms, the same as the CUDA backend's kernels: rank r sends
// (r + 1) * 8 + j % 7 at element j, small whole numbers whose sums over thousands of ranks stay exact
// in float, so a result can be compared with ==. Broadcast's root is rank 0.
[[nodiscard]] float check_sent_value(int rank, int64_t index) noexcept;
[[nodiscard]] float check_expected_value(Collective op, int rank, int ranks, int64_t count, int64_t index) noexcept;
void fill_check_send_buffer(float* send, int64_t elements, int rank) noexcept;
[[nodiscard]] int64_t count_wrong_elements(const float* received, int64_t elements, Collective op, int rank, int ranks,
                                           int64_t count) noexcept;

// Every rank's runner in one process, messages copied in memory: what a transport must reproduce.
// Returns each rank's receive buffer after one collective on --check's data.
[[nodiscard]] std::vector<std::vector<float>> run_schedule_in_memory(const SteppedCollective& schedule, int64_t count);

}  // namespace shardscope
