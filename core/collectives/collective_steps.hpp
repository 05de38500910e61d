#pragma once
// A collective that can be stepped through chunk by chunk.
//
// For a collective, an algorithm, N ranks, GPUs per node and a message size S, SteppedCollective
// builds the whole schedule up front: a list of steps, each a list of transfers (who sends which
// chunk to whom, reducing or copying, over an intra- or inter-node link). It then walks that
// schedule, keeping every rank's buffer: which chunk each slot holds and, for reductions, which
// ranks' contributions that chunk already sums. The animator panel draws only from these value
// types (no callbacks): buffers(), transfers(k), caption(k), the costs and the byte counters.
//
// Cost model (the alpha-beta model of core/collectives/collectives.hpp, per step): a step lasts as long as
// its busiest sender or receiver. A rank moving u chunks of b bytes out of (or into) itself over
// link L in one step takes alpha_L + u*b/B_L, since B is per GPU and per direction (docs/design.md).
// When every rank moves one chunk per step (all ring algorithms, pairwise all-to-all) this is
// simply "the slowest transfer: alpha + chunk bytes / B"; a tree node feeding two children pays
// for both.
//
// Every step holds at most one transfer per (src, dst) pair. A transfer is one chunk, except in
// the hierarchical all-reduce's intra-node phases, where the unit the node's ring passes on is a
// shard of N/gpus_per_node consecutive chunks (Transfer::count), sent as one message.

#include "core/collectives/collectives.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

enum class StepAlgorithm {
    ring,                // ring all-reduce / reduce-scatter / all-gather, pipelined ring broadcast / reduce
    tree,                // pipelined binary tree broadcast / reduce (heap order from the root)
    pairwise,            // all-to-all: at step k rank r sends to r+k and receives from r-k
    double_binary_tree,  // NCCL's all-reduce on two complementary binary trees, half the data each
    hierarchical,        // two-level all-reduce: intra-node RS, inter-node ring AR, intra-node AG
};

[[nodiscard]] std::string_view to_string(StepAlgorithm a) noexcept;

// The algorithms this model can step for a collective (first one is the default). p2p has none.
[[nodiscard]] std::vector<StepAlgorithm> step_algorithms_for(Collective c);

enum class TransferOp { copy, reduce };    // reduce: the receiver adds the data to its own copy
// LinkClass (intra / inter, by node = rank / gpus_per_node) is declared in core/collectives/collectives.hpp.

// What a step is doing, for captions and colours.
enum class StepPhase {
    reduce_scatter,        // ring: pass partial sums around
    all_gather,            // ring: pass finished chunks around
    broadcast,             // ring (chain) or tree: copy the root's chunks outwards
    reduce,                // ring (chain) or tree: sum chunks towards the root
    exchange,              // all-to-all pairwise exchange
    tree_reduce,           // double binary tree: sum up towards each tree's root
    tree_broadcast,        // double binary tree: copy the sums back down
    intra_reduce_scatter,  // hierarchical phase 1
    inter_reduce_scatter,  // hierarchical phase 2a (ring among same-local-rank GPUs)
    inter_all_gather,      // hierarchical phase 2b
    intra_all_gather,      // hierarchical phase 3
};

[[nodiscard]] std::string_view to_string(StepPhase p) noexcept;

struct StepConfig {
    Collective collective = Collective::all_reduce;
    StepAlgorithm algorithm = StepAlgorithm::ring;
    int ranks = 8;
    int gpus_per_node = 8;          // decides each transfer's link class; hierarchical needs it to divide ranks
    double message_bytes = 1 << 20; // S as nccl-tests counts it (all-gather: the gathered output)
    int root = 0;                   // broadcast and reduce
    // Pipeline depth of broadcast, reduce and the trees (chunks per tree for the double binary
    // tree). 0 picks the default: N for broadcast / reduce, ceil(N/2) per tree for the double
    // binary tree, so a drawing of N ranks shows about N chunks. Ring and pairwise algorithms
    // always cut the message into N chunks, which is what makes them what they are.
    int pipeline_chunks = 0;
    Link intra{};
    Link inter{};
};

// Why a config cannot be stepped ("" when it can), naming the field: e.g.
// "gpus_per_node: 3 does not divide ranks (8) for the hierarchical all-reduce".
[[nodiscard]] std::string check_step_config(const StepConfig& config);

// One slot of a rank's buffer.
struct ChunkState {
    int chunk = -1;                  // which chunk of the message lies here; -1 = nothing yet
    // contributors[r]: rank r's data is in this chunk. For reductions, the ranks summed so far; for
    // copy collectives, the one rank the data came from (all-gather: the shard's owner; broadcast:
    // the root; all-to-all: the sender).
    std::vector<bool> contributors;

    [[nodiscard]] bool held() const noexcept { return chunk >= 0; }
    [[nodiscard]] int contributor_count() const noexcept;
    [[nodiscard]] bool operator==(const ChunkState& o) const noexcept {
        return chunk == o.chunk && contributors == o.contributors;
    }
    [[nodiscard]] bool operator!=(const ChunkState& o) const noexcept { return !(*this == o); }
};

// A rank's buffer: one slot per chunk (slot c holds chunk c), except all-to-all, where slot i of
// rank j receives rank i's chunk j (so after the last step rank j holds chunk j of every rank).
using RankBuffer = std::vector<ChunkState>;

inline constexpr int kInputSlot = -1;  // Transfer::src_slot: the sender's own input (all-to-all)

struct Transfer {
    int src = 0;
    int dst = 0;
    int chunk = 0;       // first chunk moved
    int count = 1;       // consecutive chunks moved as one message (hierarchical intra phases: a shard)
    int src_slot = 0;    // first slot read at src, or kInputSlot
    int dst_slot = 0;    // first slot written at dst
    TransferOp op = TransferOp::copy;
    LinkClass link = LinkClass::intra;
    StepPhase phase = StepPhase::reduce_scatter;
    int tree = -1;       // double binary tree: 0 or 1; -1 otherwise

    [[nodiscard]] bool operator==(const Transfer& o) const noexcept;
};

// Everything the panel needs to draw one moment. Plain values; equal snapshots mean equal states.
struct CollectiveSnapshot {
    int step = 0;                     // steps taken so far (0 = initial state)
    int step_count = 0;
    std::vector<RankBuffer> buffers;  // per rank
    std::vector<double> bytes_sent;   // per rank, so far
    double elapsed_s = 0;

    [[nodiscard]] bool operator==(const CollectiveSnapshot& o) const noexcept {
        return step == o.step && step_count == o.step_count && buffers == o.buffers &&
               bytes_sent == o.bytes_sent && elapsed_s == o.elapsed_s;
    }
};

class SteppedCollective {
public:
    // Throws std::invalid_argument with check_step_config's message when the config is rejected.
    explicit SteppedCollective(const StepConfig& config);

    [[nodiscard]] const StepConfig& config() const noexcept { return config_; }

    void reset();
    bool step();            // applies the next step; false (and no change) when finished
    bool step_back();       // undoes the last step; false (and no change) at the start
    void seek(int step);    // scrub: go to the state after `step` steps (clamped to 0..step_count)
    [[nodiscard]] bool finished() const noexcept { return current_ == step_count(); }

    [[nodiscard]] int current_step() const noexcept { return current_; }
    [[nodiscard]] int step_count() const noexcept { return static_cast<int>(steps_.size()); }
    [[nodiscard]] int ranks() const noexcept { return config_.ranks; }
    [[nodiscard]] int chunk_count() const noexcept { return chunks_; }
    [[nodiscard]] int slot_count() const noexcept { return slots_; }
    [[nodiscard]] double chunk_bytes() const noexcept;

    // The schedule; k is 0-based (step k turns the state after k steps into the state after k+1).
    [[nodiscard]] const std::vector<Transfer>& transfers(int k) const;
    [[nodiscard]] StepPhase phase(int k) const;  // the phase of the step's first transfer
    // "Step 3 of 14 (reduce-scatter phase): ..." for step k (0-based; printed 1-based).
    [[nodiscard]] std::string caption(int k) const;

    // For drawing trees: each rank's parent (-1 at the root) in tree 0 of the tree algorithm, or in
    // tree 0 / 1 of the double binary tree; empty for the other algorithms.
    [[nodiscard]] std::vector<int> tree_parents(int tree = 0) const;

    [[nodiscard]] LinkClass link_between(int a, int b) const noexcept;
    [[nodiscard]] int node_of(int rank) const noexcept { return rank / config_.gpus_per_node; }

    // Alpha-beta times (seconds) under the model in the header comment.
    [[nodiscard]] double step_time(int k) const;
    [[nodiscard]] double elapsed_time() const noexcept { return elapsed_; }
    [[nodiscard]] double total_time() const noexcept;
    // Same schedule, another message size: the chart evaluates many sizes on one schedule.
    [[nodiscard]] double total_time_for(double message_bytes) const noexcept;

    [[nodiscard]] const std::vector<RankBuffer>& buffers() const noexcept { return buffers_; }
    [[nodiscard]] std::vector<double> bytes_sent() const;        // per rank, so far
    [[nodiscard]] std::vector<double> total_bytes_sent() const;  // per rank, whole collective
    [[nodiscard]] std::vector<double> bytes_in_step(int k) const; // per rank, sent in step k

    // nccl-tests' sense over the whole collective: algbw = S / total time, busbw = algbw * factor.
    [[nodiscard]] double algbw() const noexcept;
    [[nodiscard]] double busbw() const noexcept;

    [[nodiscard]] CollectiveSnapshot snapshot() const;

    // What the current state still lacks of what the collective promises (empty once it is
    // delivered): e.g. "rank 3 slot 5 does not hold the full sum of chunk 5". At most 8 lines.
    [[nodiscard]] std::vector<std::string> unmet_promises() const;

private:
    // Largest number of chunks any rank moves in one direction over each link class in a step.
    struct StepLoad {
        int intra_units = 0;
        int inter_units = 0;
    };

    void build_schedule();
    void initialise_buffers();
    [[nodiscard]] double load_time(const StepLoad& load, double chunk_bytes) const noexcept;

    StepConfig config_;
    int chunks_ = 0;
    int slots_ = 0;
    std::vector<std::vector<Transfer>> steps_;
    std::vector<StepLoad> loads_;
    std::vector<double> prefix_times_;  // [k]: time of the first k steps (exact undo of elapsed time)

    int current_ = 0;
    double elapsed_ = 0;
    std::vector<RankBuffer> buffers_;
    std::vector<int64_t> chunks_sent_;  // per rank, so far
    // Undo log: the slots each step overwrote, in write order, and where each step's records begin.
    std::vector<ChunkState> undo_;
    std::vector<size_t> undo_begin_;
};

// Time of a collective against message size for the chart (64 B to 4 GiB by default, powers of 2).
// ring_s: the ring algorithm (pairwise for all-to-all). tree_s: the double binary tree for
// all-reduce, the binary tree for broadcast and reduce, none for the others. hierarchical_s: the
// two-level all-reduce when gpus_per_node divides ranks and leaves more than one node, else none.
// Trees are evaluated at their best pipeline depth (1, 2, 4, ... 64 chunks), as a tuner would.
struct SizeTimePoint {
    double bytes = 0;
    double ring_s = 0;
    std::optional<double> tree_s;
    std::optional<double> hierarchical_s;
};

[[nodiscard]] std::vector<SizeTimePoint> time_vs_message_size(Collective c, int ranks, int gpus_per_node,
                                                              const Link& intra, const Link& inter,
                                                              double min_bytes = 64,
                                                              double max_bytes = 4294967296.0);

}  // namespace shardscope
