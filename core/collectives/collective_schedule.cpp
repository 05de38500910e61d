#include "core/collectives/collective_schedule.hpp"

#include <algorithm>
#include <unordered_set>

namespace shardscope {

namespace {

[[nodiscard]] int mod(int a, int n) noexcept { return ((a % n) + n) % n; }

// NCCL's binary tree (src/graph/trees.cc, ncclGetBtree), rooted at 0, in which leaves and inner
// nodes alternate: a rank's lowest set bit says its level. Only the parent is needed here; the
// children follow by inverting it. Returns -1 for the root.
[[nodiscard]] int nccl_btree_parent(int rank, int ranks) noexcept {
    if (rank == 0) return -1;
    int bit = 1;
    while (!(bit & rank)) bit <<= 1;
    const int up = (rank ^ bit) | (bit << 1);
    return up < ranks ? up : (rank ^ bit);
}

// Depth of every rank in a tree given by its parent function.
template <class Parent>
[[nodiscard]] std::vector<int> depths(int ranks, Parent parent) {
    std::vector<int> depth(static_cast<size_t>(ranks), 0);
    for (int r = 0; r < ranks; ++r)
        for (int p = parent(r); p >= 0; p = parent(p)) ++depth[static_cast<size_t>(r)];
    return depth;
}

// Ranks ordered by depth, deepest first (children before parents, for reductions).
[[nodiscard]] std::vector<int> deepest_first(const std::vector<int>& depth) {
    std::vector<int> order(depth.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return depth[static_cast<size_t>(a)] > depth[static_cast<size_t>(b)]; });
    return order;
}

// Places transfers, given in program order, at the earliest step their data dependencies allow
// (as soon as possible, never before `earliest`), with at most one transfer per (src, dst) pair
// in a step. Within a step every transfer reads the state before the step, so a slot may be read
// and overwritten in the same step, and several reductions may add into one slot together.
class Placer {
public:
    Placer(int ranks, int slots) : ranks_(ranks), slots_(slots), times_(static_cast<size_t>(ranks) * slots) {}

    void place(const Transfer& t, int earliest) {
        int s = earliest;
        if (t.src_slot != kInputSlot)
            for (int i = 0; i < t.count; ++i) s = std::max(s, at(t.src, t.src_slot + i).ready);
        for (int i = 0; i < t.count; ++i) {
            const SlotTimes& d = at(t.dst, t.dst_slot + i);
            s = std::max(s, d.last_read);
            const bool same_step_ok = t.op == TransferOp::reduce && !d.last_write_copy;
            s = std::max(s, same_step_ok ? d.last_write : d.last_write + 1);
        }
        while (busy_.count(key(s, t.src, t.dst))) ++s;
        busy_.insert(key(s, t.src, t.dst));
        if (t.src_slot != kInputSlot)
            for (int i = 0; i < t.count; ++i) {
                SlotTimes& src = at(t.src, t.src_slot + i);
                src.last_read = std::max(src.last_read, s);
            }
        for (int i = 0; i < t.count; ++i) {
            SlotTimes& d = at(t.dst, t.dst_slot + i);
            d.ready = std::max(d.ready, s + 1);
            d.last_write = std::max(d.last_write, s);
            d.last_write_copy = t.op == TransferOp::copy;
        }
        if (static_cast<size_t>(s) >= steps_.size()) steps_.resize(static_cast<size_t>(s) + 1);
        steps_[static_cast<size_t>(s)].push_back(t);
    }

    // The schedule, without steps nothing landed in (a step exists only if something moves).
    [[nodiscard]] std::vector<std::vector<Transfer>> take() {
        steps_.erase(std::remove_if(steps_.begin(), steps_.end(), [](const auto& s) { return s.empty(); }),
                     steps_.end());
        return std::move(steps_);
    }

private:
    struct SlotTimes {
        int ready = 0;       // first step that may read what the last write left
        int last_read = -1;  // a later write must not land before this step
        int last_write = -1;
        bool last_write_copy = false;
    };

    [[nodiscard]] SlotTimes& at(int rank, int slot) {
        return times_[static_cast<size_t>(rank) * static_cast<size_t>(slots_) + static_cast<size_t>(slot)];
    }
    [[nodiscard]] uint64_t key(int step, int src, int dst) const noexcept {
        return (static_cast<uint64_t>(step) * static_cast<uint64_t>(ranks_) + static_cast<uint64_t>(src)) *
                   static_cast<uint64_t>(ranks_) +
               static_cast<uint64_t>(dst);
    }

    int ranks_;
    int slots_;
    std::vector<SlotTimes> times_;
    std::vector<std::vector<Transfer>> steps_;
    std::unordered_set<uint64_t> busy_;
};

// Builds one algorithm's transfers in program order and hands them to the placer.
class ScheduleBuilder {
public:
    ScheduleBuilder(const StepConfig& config, int chunks)
        : c_(config), n_(config.ranks), chunks_(chunks), placer_(config.ranks, chunks) {}

    std::vector<std::vector<Transfer>> build() {
        if (n_ > 1) {
            switch (c_.algorithm) {
                case StepAlgorithm::ring: ring(); break;
                case StepAlgorithm::tree: tree(); break;
                case StepAlgorithm::pairwise: pairwise(); break;
                case StepAlgorithm::double_binary_tree: double_binary_tree(); break;
                case StepAlgorithm::hierarchical: hierarchical(); break;
            }
        }
        return placer_.take();
    }

private:
    [[nodiscard]] LinkClass link(int a, int b) const noexcept {
        return a / c_.gpus_per_node == b / c_.gpus_per_node ? LinkClass::intra : LinkClass::inter;
    }

    void add(int src, int dst, int chunk, TransferOp op, StepPhase phase, int earliest, int count = 1, int tree = -1) {
        Transfer t;
        t.src = src;
        t.dst = dst;
        t.chunk = chunk;
        t.count = count;
        t.src_slot = chunk;
        t.dst_slot = chunk;
        t.op = op;
        t.link = link(src, dst);
        t.phase = phase;
        t.tree = tree;
        placer_.place(t, earliest);
    }

    // Ring reduce-scatter: at step s rank r adds chunk r-s-1 into its right neighbour, so chunk c
    // starts at rank c+1 and, after N-1 hops, ends fully summed at rank c (rank r owns shard r).
    void ring_reduce_scatter(int first_step) {
        for (int s = 0; s < n_ - 1; ++s)
            for (int r = 0; r < n_; ++r)
                add(r, (r + 1) % n_, mod(r - s - 1, n_), TransferOp::reduce, StepPhase::reduce_scatter, first_step + s);
    }
    // Ring all-gather: at step s rank r forwards chunk r-s (its own shard first).
    void ring_all_gather(int first_step) {
        for (int s = 0; s < n_ - 1; ++s)
            for (int r = 0; r < n_; ++r)
                add(r, (r + 1) % n_, mod(r - s, n_), TransferOp::copy, StepPhase::all_gather, first_step + s);
    }

    void ring() {
        switch (c_.collective) {
            case Collective::all_reduce:
                ring_reduce_scatter(0);
                ring_all_gather(n_ - 1);
                break;
            case Collective::reduce_scatter: ring_reduce_scatter(0); break;
            case Collective::all_gather: ring_all_gather(0); break;
            case Collective::broadcast:
                // A chain from the root: position p hands chunk c on at step p + c (pipelined).
                for (int ch = 0; ch < chunks_; ++ch)
                    for (int p = 0; p < n_ - 1; ++p)
                        add((c_.root + p) % n_, (c_.root + p + 1) % n_, ch, TransferOp::copy, StepPhase::broadcast,
                            p + ch);
                break;
            case Collective::reduce:
                // A chain that ends at the root: it starts at root+1 and each rank adds its own.
                for (int ch = 0; ch < chunks_; ++ch)
                    for (int p = 0; p < n_ - 1; ++p)
                        add((c_.root + 1 + p) % n_, (c_.root + 2 + p) % n_, ch, TransferOp::reduce, StepPhase::reduce,
                            p + ch);
                break;
            default: break;
        }
    }

    // Binary tree in heap order counted from the root: position p's parent is (p-1)/2.
    void tree() {
        auto rank_at = [&](int p) { return (c_.root + p) % n_; };
        if (c_.collective == Collective::broadcast) {
            for (int ch = 0; ch < chunks_; ++ch)
                for (int p = 1; p < n_; ++p)
                    add(rank_at((p - 1) / 2), rank_at(p), ch, TransferOp::copy, StepPhase::broadcast, 0);
        } else {
            for (int ch = 0; ch < chunks_; ++ch)
                for (int p = n_ - 1; p >= 1; --p)
                    add(rank_at(p), rank_at((p - 1) / 2), ch, TransferOp::reduce, StepPhase::reduce, 0);
        }
    }

    // At step k-1 (k = 1..N-1) rank r sends its chunk for rank r+k straight to it; the receiver
    // files it in slot r. Every rank sends and receives exactly once per step.
    void pairwise() {
        for (int k = 1; k < n_; ++k)
            for (int r = 0; r < n_; ++r) {
                Transfer t;
                t.src = r;
                t.dst = (r + k) % n_;
                t.chunk = t.dst;
                t.src_slot = kInputSlot;
                t.dst_slot = r;
                t.op = TransferOp::copy;
                t.link = link(t.src, t.dst);
                t.phase = StepPhase::exchange;
                placer_.place(t, k - 1);
            }
    }

    // Tree t carries chunks [t*C, (t+1)*C). Each chunk is summed up its tree to the root and then
    // copied back down; the placer pipelines chunks and lets the two trees run side by side.
    void double_binary_tree() {
        const int per_tree = chunks_ / 2;
        std::vector<int> parent[2];
        std::vector<int> up_order[2];
        std::vector<int> down_order[2];
        for (int t = 0; t < 2; ++t) {
            auto par = [&, t](int r) { return nccl_dtree_parent(t, r, n_); };
            for (int r = 0; r < n_; ++r) parent[t].push_back(par(r));
            up_order[t] = deepest_first(depths(n_, par));
            down_order[t].assign(up_order[t].rbegin(), up_order[t].rend());
        }
        for (int ch = 0; ch < per_tree; ++ch)
            for (int t = 0; t < 2; ++t)
                for (int r : up_order[t])
                    if (parent[t][static_cast<size_t>(r)] >= 0)
                        add(r, parent[t][static_cast<size_t>(r)], t * per_tree + ch, TransferOp::reduce,
                            StepPhase::tree_reduce, 0, 1, t);
        for (int ch = 0; ch < per_tree; ++ch)
            for (int t = 0; t < 2; ++t)
                for (int r : down_order[t])
                    if (parent[t][static_cast<size_t>(r)] >= 0)
                        add(parent[t][static_cast<size_t>(r)], r, t * per_tree + ch, TransferOp::copy,
                            StepPhase::tree_broadcast, 0, 1, t);
    }

    // g GPUs per node, M = N/g nodes. Chunk l*M + m is piece m of shard l. Phase 1 ring
    // reduce-scatters shards inside each node (local rank l ends with shard l summed over its
    // node); phase 2 ring all-reduces shard l's M pieces among the M GPUs of local rank l (one
    // per node); phase 3 ring all-gathers the shards inside each node.
    void hierarchical() {
        const int g = c_.gpus_per_node;
        const int m = n_ / g;
        auto gpu = [&](int node, int local) { return node * g + local; };
        int first = 0;
        for (int s = 0; s < g - 1; ++s)
            for (int node = 0; node < m; ++node)
                for (int l = 0; l < g; ++l)
                    add(gpu(node, l), gpu(node, (l + 1) % g), mod(l - s - 1, g) * m, TransferOp::reduce,
                        StepPhase::intra_reduce_scatter, first + s, m);
        first += g - 1;
        for (int s = 0; s < m - 1; ++s)
            for (int l = 0; l < g; ++l)
                for (int node = 0; node < m; ++node)
                    add(gpu(node, l), gpu((node + 1) % m, l), l * m + mod(node - s - 1, m), TransferOp::reduce,
                        StepPhase::inter_reduce_scatter, first + s);
        first += m - 1;
        for (int s = 0; s < m - 1; ++s)
            for (int l = 0; l < g; ++l)
                for (int node = 0; node < m; ++node)
                    add(gpu(node, l), gpu((node + 1) % m, l), l * m + mod(node - s, m), TransferOp::copy,
                        StepPhase::inter_all_gather, first + s);
        first += m - 1;
        for (int s = 0; s < g - 1; ++s)
            for (int node = 0; node < m; ++node)
                for (int l = 0; l < g; ++l)
                    add(gpu(node, l), gpu(node, (l + 1) % g), mod(l - s, g) * m, TransferOp::copy,
                        StepPhase::intra_all_gather, first + s, m);
    }

    const StepConfig& c_;
    int n_;
    int chunks_;
    Placer placer_;
};

}  // namespace

// NCCL's second tree (ncclGetDtree): the first tree mirrored (rank -> N-1-rank) when N is even,
// shifted by one rank when N is odd, so that most leaves of one tree are inner nodes of the other.
int nccl_dtree_parent(int tree, int rank, int ranks) noexcept {
    if (tree == 0) return nccl_btree_parent(rank, ranks);
    if (ranks % 2 == 1) {
        const int up = nccl_btree_parent(mod(rank - 1, ranks), ranks);
        return up < 0 ? -1 : (up + 1) % ranks;
    }
    const int up = nccl_btree_parent(ranks - 1 - rank, ranks);
    return up < 0 ? -1 : ranks - 1 - up;
}

std::vector<std::vector<Transfer>> build_step_schedule(const StepConfig& config, int chunks) {
    return ScheduleBuilder(config, chunks).build();
}

}  // namespace shardscope
