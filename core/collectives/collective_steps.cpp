#include "core/collectives/collective_steps.hpp"

#include "core/collectives/collective_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <unordered_set>

namespace shardscope {

namespace {

// Limits that keep a schedule's memory sane: buffers hold ranks * slots * ranks bits and a ring
// all-reduce has 2(N-1) * N transfers, so 512 ranks stays in the tens of MB.
constexpr int kMaxRanks = 512;
constexpr int kMaxPipelineChunks = 4096;

[[nodiscard]] int mod(int a, int n) noexcept { return ((a % n) + n) % n; }

[[nodiscard]] std::vector<bool> only(int rank, int ranks) {
    std::vector<bool> bits(static_cast<size_t>(ranks), false);
    bits[static_cast<size_t>(rank)] = true;
    return bits;
}

[[nodiscard]] bool all_set(const std::vector<bool>& bits) noexcept {
    return std::all_of(bits.begin(), bits.end(), [](bool b) { return b; });
}

[[nodiscard]] bool has_tree(Collective c) noexcept {
    return c == Collective::broadcast || c == Collective::reduce;
}

// Chunks the message is cut into, and slots each rank's buffer has (equal for every algorithm).
[[nodiscard]] int chunks_for(const StepConfig& c) noexcept {
    const int n = c.ranks;
    switch (c.algorithm) {
        case StepAlgorithm::ring:
            if (c.collective == Collective::broadcast || c.collective == Collective::reduce)
                return c.pipeline_chunks > 0 ? c.pipeline_chunks : n;
            return n;
        case StepAlgorithm::tree: return c.pipeline_chunks > 0 ? c.pipeline_chunks : n;
        case StepAlgorithm::double_binary_tree: return 2 * (c.pipeline_chunks > 0 ? c.pipeline_chunks : (n + 1) / 2);
        case StepAlgorithm::pairwise:
        case StepAlgorithm::hierarchical: return n;
    }
    return n;
}

[[nodiscard]] std::string format_bytes(double bytes) {
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        ++u;
    }
    char text[32];
    std::snprintf(text, sizeof text, bytes == std::floor(bytes) ? "%.0f %s" : "%.3g %s", bytes, units[u]);
    return text;
}

}  // namespace

std::string_view to_string(StepAlgorithm a) noexcept {
    switch (a) {
        case StepAlgorithm::ring: return "ring";
        case StepAlgorithm::tree: return "tree";
        case StepAlgorithm::pairwise: return "pairwise";
        case StepAlgorithm::double_binary_tree: return "double binary tree";
        case StepAlgorithm::hierarchical: return "hierarchical";
    }
    return "?";
}

std::string_view to_string(StepPhase p) noexcept {
    switch (p) {
        case StepPhase::reduce_scatter: return "reduce-scatter";
        case StepPhase::all_gather: return "all-gather";
        case StepPhase::broadcast: return "broadcast";
        case StepPhase::reduce: return "reduce";
        case StepPhase::exchange: return "exchange";
        case StepPhase::tree_reduce: return "tree reduce";
        case StepPhase::tree_broadcast: return "tree broadcast";
        case StepPhase::intra_reduce_scatter: return "intra-node reduce-scatter";
        case StepPhase::inter_reduce_scatter: return "inter-node reduce-scatter";
        case StepPhase::inter_all_gather: return "inter-node all-gather";
        case StepPhase::intra_all_gather: return "intra-node all-gather";
    }
    return "?";
}

std::vector<StepAlgorithm> step_algorithms_for(Collective c) {
    switch (c) {
        case Collective::all_reduce:
            return {StepAlgorithm::ring, StepAlgorithm::double_binary_tree, StepAlgorithm::hierarchical};
        case Collective::all_gather:
        case Collective::reduce_scatter: return {StepAlgorithm::ring};
        case Collective::broadcast:
        case Collective::reduce: return {StepAlgorithm::ring, StepAlgorithm::tree};
        case Collective::all_to_all: return {StepAlgorithm::pairwise};
        case Collective::p2p: return {};
    }
    return {};
}

std::string check_step_config(const StepConfig& c) {
    const auto algos = step_algorithms_for(c.collective);
    if (std::find(algos.begin(), algos.end(), c.algorithm) == algos.end())
        return "algorithm: " + std::string(to_string(c.algorithm)) + " is not an algorithm for " +
               std::string(to_string(c.collective));
    if (c.ranks < 1 || c.ranks > kMaxRanks)
        return "ranks: " + std::to_string(c.ranks) + " is not in 1.." + std::to_string(kMaxRanks);
    if (c.gpus_per_node < 1) return "gpus_per_node: " + std::to_string(c.gpus_per_node) + " must be at least 1";
    if (!(c.message_bytes >= 0) || !std::isfinite(c.message_bytes))
        return "message_bytes: must be a finite number of bytes, 0 or more";
    if (c.root < 0 || c.root >= c.ranks)
        return "root: " + std::to_string(c.root) + " is not a rank of 0.." + std::to_string(c.ranks - 1);
    if (c.pipeline_chunks < 0 || c.pipeline_chunks > kMaxPipelineChunks)
        return "pipeline_chunks: " + std::to_string(c.pipeline_chunks) + " is not in 0.." +
               std::to_string(kMaxPipelineChunks);
    if (c.algorithm == StepAlgorithm::hierarchical && c.ranks % c.gpus_per_node != 0)
        return "gpus_per_node: " + std::to_string(c.gpus_per_node) + " does not divide ranks (" +
               std::to_string(c.ranks) + ") for the hierarchical all-reduce";
    return "";
}

int ChunkState::contributor_count() const noexcept {
    return static_cast<int>(std::count(contributors.begin(), contributors.end(), true));
}

bool Transfer::operator==(const Transfer& o) const noexcept {
    return src == o.src && dst == o.dst && chunk == o.chunk && count == o.count && src_slot == o.src_slot &&
           dst_slot == o.dst_slot && op == o.op && link == o.link && phase == o.phase && tree == o.tree;
}

SteppedCollective::SteppedCollective(const StepConfig& config) : config_(config) {
    if (const std::string why = check_step_config(config); !why.empty()) throw std::invalid_argument(why);
    chunks_ = chunks_for(config_);
    slots_ = chunks_;
    build_schedule();
    reset();
}

void SteppedCollective::build_schedule() {
    steps_ = build_step_schedule(config_, chunks_);
    const size_t n = static_cast<size_t>(config_.ranks);
    loads_.clear();
    std::vector<int> out(2 * n);
    std::vector<int> in(2 * n);
    for (const auto& transfers : steps_) {
        std::fill(out.begin(), out.end(), 0);
        std::fill(in.begin(), in.end(), 0);
        for (const Transfer& t : transfers) {
            const size_t cls = t.link == LinkClass::intra ? 0 : 1;
            out[2 * static_cast<size_t>(t.src) + cls] += t.count;
            in[2 * static_cast<size_t>(t.dst) + cls] += t.count;
        }
        StepLoad load;
        for (size_t r = 0; r < n; ++r) {
            load.intra_units = std::max({load.intra_units, out[2 * r], in[2 * r]});
            load.inter_units = std::max({load.inter_units, out[2 * r + 1], in[2 * r + 1]});
        }
        loads_.push_back(load);
    }
    prefix_times_.assign(1, 0.0);
    for (const StepLoad& load : loads_) prefix_times_.push_back(prefix_times_.back() + load_time(load, chunk_bytes()));
}

double SteppedCollective::load_time(const StepLoad& load, double bytes) const noexcept {
    auto term = [bytes](int units, const Link& l) {
        if (units == 0) return 0.0;
        const double bandwidth = l.bandwidth_bytes_per_s > 0 ? units * bytes / l.bandwidth_bytes_per_s : 0.0;
        return l.latency_s + bandwidth;
    };
    return std::max(term(load.intra_units, config_.intra), term(load.inter_units, config_.inter));
}

double SteppedCollective::chunk_bytes() const noexcept {
    return chunks_ > 0 ? config_.message_bytes / chunks_ : 0.0;
}

void SteppedCollective::initialise_buffers() {
    const int n = config_.ranks;
    buffers_.assign(static_cast<size_t>(n), RankBuffer(static_cast<size_t>(slots_)));
    auto own = [&](int rank, int slot, int origin) {
        buffers_[static_cast<size_t>(rank)][static_cast<size_t>(slot)] = ChunkState{slot, only(origin, n)};
    };
    switch (config_.collective) {
        case Collective::all_reduce:
        case Collective::reduce_scatter:
        case Collective::reduce:
            for (int r = 0; r < n; ++r)
                for (int s = 0; s < slots_; ++s) own(r, s, r);
            break;
        case Collective::broadcast:
            for (int s = 0; s < slots_; ++s) own(config_.root, s, config_.root);
            break;
        case Collective::all_gather:
        case Collective::all_to_all:
            // All-to-all: slot r of rank r is the rank's own chunk r, which never travels.
            for (int r = 0; r < n; ++r) own(r, r, r);
            break;
        case Collective::p2p: break;
    }
}

void SteppedCollective::reset() {
    current_ = 0;
    elapsed_ = 0;
    initialise_buffers();
    chunks_sent_.assign(static_cast<size_t>(config_.ranks), 0);
    undo_.clear();
    undo_begin_.clear();
}

bool SteppedCollective::step() {
    if (finished()) return false;
    const auto& transfers = steps_[static_cast<size_t>(current_)];
    // Every transfer of a step reads the state before the step.
    std::vector<ChunkState> payloads;
    for (const Transfer& t : transfers)
        for (int i = 0; i < t.count; ++i)
            payloads.push_back(t.src_slot == kInputSlot
                                   ? ChunkState{t.chunk + i, only(t.src, config_.ranks)}
                                   : buffers_[static_cast<size_t>(t.src)][static_cast<size_t>(t.src_slot + i)]);
    undo_begin_.push_back(undo_.size());
    size_t next = 0;
    for (const Transfer& t : transfers) {
        for (int i = 0; i < t.count; ++i) {
            ChunkState& slot = buffers_[static_cast<size_t>(t.dst)][static_cast<size_t>(t.dst_slot + i)];
            const ChunkState& payload = payloads[next++];
            undo_.push_back(slot);
            if (t.op == TransferOp::reduce && slot.held()) {
                for (size_t r = 0; r < slot.contributors.size(); ++r)
                    if (payload.contributors[r]) slot.contributors[r] = true;
            } else {
                slot = payload;
            }
        }
        chunks_sent_[static_cast<size_t>(t.src)] += t.count;
    }
    ++current_;
    elapsed_ = prefix_times_[static_cast<size_t>(current_)];
    return true;
}

bool SteppedCollective::step_back() {
    if (current_ == 0) return false;
    --current_;
    const auto& transfers = steps_[static_cast<size_t>(current_)];
    for (auto t = transfers.rbegin(); t != transfers.rend(); ++t) {
        for (int i = t->count - 1; i >= 0; --i) {
            buffers_[static_cast<size_t>(t->dst)][static_cast<size_t>(t->dst_slot + i)] = std::move(undo_.back());
            undo_.pop_back();
        }
        chunks_sent_[static_cast<size_t>(t->src)] -= t->count;
    }
    undo_.resize(undo_begin_.back());
    undo_begin_.pop_back();
    elapsed_ = prefix_times_[static_cast<size_t>(current_)];
    return true;
}

void SteppedCollective::seek(int target) {
    target = std::clamp(target, 0, step_count());
    while (current_ < target) step();
    while (current_ > target) step_back();
}

std::vector<int> SteppedCollective::tree_parents(int tree) const {
    const int n = config_.ranks;
    std::vector<int> parents;
    if (config_.algorithm == StepAlgorithm::tree && tree == 0) {
        for (int r = 0; r < n; ++r) {
            const int p = mod(r - config_.root, n);
            parents.push_back(p == 0 ? -1 : (config_.root + (p - 1) / 2) % n);
        }
    } else if (config_.algorithm == StepAlgorithm::double_binary_tree && (tree == 0 || tree == 1)) {
        for (int r = 0; r < n; ++r) parents.push_back(nccl_dtree_parent(tree, r, n));
    }
    return parents;
}

std::vector<double> SteppedCollective::bytes_in_step(int k) const {
    std::vector<double> bytes(static_cast<size_t>(config_.ranks), 0.0);
    for (const Transfer& t : transfers(k)) bytes[static_cast<size_t>(t.src)] += t.count * chunk_bytes();
    return bytes;
}

const std::vector<Transfer>& SteppedCollective::transfers(int k) const {
    return steps_.at(static_cast<size_t>(k));
}

StepPhase SteppedCollective::phase(int k) const { return transfers(k).front().phase; }

LinkClass SteppedCollective::link_between(int a, int b) const noexcept {
    return node_of(a) == node_of(b) ? LinkClass::intra : LinkClass::inter;
}

double SteppedCollective::step_time(int k) const {
    return prefix_times_.at(static_cast<size_t>(k) + 1) - prefix_times_.at(static_cast<size_t>(k));
}

double SteppedCollective::total_time() const noexcept { return prefix_times_.back(); }

double SteppedCollective::total_time_for(double message_bytes) const noexcept {
    const double bytes = chunks_ > 0 ? message_bytes / chunks_ : 0.0;
    double total = 0;
    for (const StepLoad& load : loads_) total += load_time(load, bytes);
    return total;
}

std::vector<double> SteppedCollective::bytes_sent() const {
    std::vector<double> bytes;
    for (int64_t units : chunks_sent_) bytes.push_back(static_cast<double>(units) * chunk_bytes());
    return bytes;
}

std::vector<double> SteppedCollective::total_bytes_sent() const {
    std::vector<double> bytes(static_cast<size_t>(config_.ranks), 0.0);
    for (const auto& transfers : steps_)
        for (const Transfer& t : transfers) bytes[static_cast<size_t>(t.src)] += t.count * chunk_bytes();
    return bytes;
}

double SteppedCollective::algbw() const noexcept { return shardscope::algbw(config_.message_bytes, total_time()); }

double SteppedCollective::busbw() const noexcept {
    return algbw() * busbw_factor(config_.collective, config_.ranks);
}

CollectiveSnapshot SteppedCollective::snapshot() const {
    return CollectiveSnapshot{current_, step_count(), buffers_, bytes_sent(), elapsed_};
}

std::vector<std::string> SteppedCollective::unmet_promises() const {
    std::vector<std::string> unmet;
    const int n = config_.ranks;
    auto expect = [&](int rank, int slot, int chunk, bool full_sum, int origin) {
        const ChunkState& s = buffers_[static_cast<size_t>(rank)][static_cast<size_t>(slot)];
        const bool ok = s.chunk == chunk && (full_sum ? all_set(s.contributors)
                                                      : s.contributors == only(origin, n));
        if (!ok && unmet.size() < 8)
            unmet.push_back("rank " + std::to_string(rank) + " slot " + std::to_string(slot) + " does not hold " +
                            (full_sum ? "the full sum of chunk " : "chunk ") + std::to_string(chunk) +
                            (full_sum ? "" : " of rank " + std::to_string(origin)));
    };
    for (int r = 0; r < n; ++r) {
        switch (config_.collective) {
            case Collective::all_reduce:
                for (int s = 0; s < slots_; ++s) expect(r, s, s, true, -1);
                break;
            case Collective::reduce_scatter: expect(r, r, r, true, -1); break;
            case Collective::all_gather:
                for (int s = 0; s < slots_; ++s) expect(r, s, s, false, s);
                break;
            case Collective::broadcast:
                for (int s = 0; s < slots_; ++s) expect(r, s, s, false, config_.root);
                break;
            case Collective::reduce:
                if (r == config_.root)
                    for (int s = 0; s < slots_; ++s) expect(r, s, s, true, -1);
                break;
            case Collective::all_to_all:
                for (int s = 0; s < slots_; ++s) expect(r, s, r, false, s);
                break;
            case Collective::p2p: break;
        }
    }
    return unmet;
}

std::string SteppedCollective::caption(int k) const {
    const auto& ts = transfers(k);
    const Transfer& first = ts.front();
    std::vector<StepPhase> phases;
    for (const Transfer& t : ts)
        if (std::find(phases.begin(), phases.end(), t.phase) == phases.end()) phases.push_back(t.phase);

    std::string text = "Step " + std::to_string(k + 1) + " of " + std::to_string(step_count()) + " (";
    for (size_t i = 0; i < phases.size(); ++i) text += (i ? " + " : "") + std::string(to_string(phases[i]));
    text += phases.size() > 1 ? " phases): " : " phase): ";

    const std::string example = "rank " + std::to_string(first.src) + " sends chunk " + std::to_string(first.chunk) +
                                " to rank " + std::to_string(first.dst);
    const std::string root = std::to_string(config_.root);
    const bool ring = config_.algorithm == StepAlgorithm::ring;
    const std::string shard_size = std::to_string(first.count);
    for (size_t i = 0; i < phases.size(); ++i) {
        if (i) text += "; ";
        switch (phases[i]) {
            case StepPhase::reduce_scatter:
                text += "each rank sends one chunk to its right neighbour, which adds it to its own (" + example + ")";
                break;
            case StepPhase::all_gather:
                text += "each rank passes a finished chunk to its right neighbour, which keeps a copy (" + example +
                        ")";
                break;
            case StepPhase::broadcast:
                text += ring ? "chunks move one hop further along the chain that starts at root " + root
                             : "every rank that already has a chunk copies it to its children in the tree rooted at " +
                                   root;
                break;
            case StepPhase::reduce:
                text += ring ? "partial sums move one hop along the chain that ends at root " + root +
                                   ", each receiver adding its own"
                             : "ranks pass partial sums up to their parent, which adds them, towards root " + root;
                break;
            case StepPhase::exchange:
                text += "every rank sends the chunk meant for the rank " +
                        std::to_string(mod(first.dst - first.src, config_.ranks)) +
                        " places to its right straight to it (" + example + ")";
                break;
            case StepPhase::tree_reduce:
                text += "in each of the two trees, ranks send partial sums of that tree's half up to their parent, "
                        "which adds them";
                break;
            case StepPhase::tree_broadcast:
                text += "finished sums travel back down each tree, parents copying them to their children";
                break;
            case StepPhase::intra_reduce_scatter:
                text += "inside every node each GPU sends one shard (" + shard_size +
                        " chunks) to its neighbour, which adds it to its own";
                break;
            case StepPhase::inter_reduce_scatter:
                text += "GPUs with the same local rank in neighbouring nodes pass one chunk's partial sum across "
                        "the inter-node link, and the receiver adds it";
                break;
            case StepPhase::inter_all_gather:
                text += "GPUs with the same local rank pass finished chunks to the next node";
                break;
            case StepPhase::intra_all_gather:
                text += "inside every node each GPU passes a finished shard (" + shard_size +
                        " chunks) to its neighbour";
                break;
        }
    }
    int intra = 0;
    int inter = 0;
    for (const Transfer& t : ts) (t.link == LinkClass::intra ? intra : inter) += 1;
    text += ". " + std::to_string(ts.size()) + (ts.size() == 1 ? " transfer of " : " transfers of ") +
            format_bytes(first.count * chunk_bytes()) + (ts.size() == 1 ? "" : " each") + ": " +
            std::to_string(intra) + " intra-node, " + std::to_string(inter) + " inter-node.";
    return text;
}

std::vector<SizeTimePoint> time_vs_message_size(Collective c, int ranks, int gpus_per_node, const Link& intra,
                                                const Link& inter, double min_bytes, double max_bytes) {
    StepConfig base;
    base.collective = c;
    base.ranks = ranks;
    base.gpus_per_node = gpus_per_node;
    base.intra = intra;
    base.inter = inter;

    std::vector<SizeTimePoint> points;
    for (double bytes = std::max(min_bytes, 1.0); bytes <= max_bytes; bytes *= 2) points.push_back({bytes, 0, {}, {}});

    if (c == Collective::p2p) {
        // One message between two neighbouring ranks, over the link that joins them.
        const Link& link = ranks >= 2 && gpus_per_node >= 2 ? intra : inter;
        for (auto& p : points) p.ring_s = collective_time(Collective::p2p, p.bytes, 2, link);
        return points;
    }
    auto with = [&](StepAlgorithm a, int pipeline) {
        StepConfig config = base;
        config.algorithm = a;
        config.pipeline_chunks = pipeline;
        return config;
    };
    const StepAlgorithm ring = c == Collective::all_to_all ? StepAlgorithm::pairwise : StepAlgorithm::ring;
    const SteppedCollective ring_model(with(ring, 0));
    for (auto& p : points) p.ring_s = ring_model.total_time_for(p.bytes);

    if (c == Collective::all_reduce || has_tree(c)) {
        const StepAlgorithm tree = c == Collective::all_reduce ? StepAlgorithm::double_binary_tree : StepAlgorithm::tree;
        for (int pipeline = 1; pipeline <= 64; pipeline *= 2) {
            const SteppedCollective model(with(tree, pipeline));
            for (auto& p : points) {
                const double t = model.total_time_for(p.bytes);
                if (!p.tree_s || t < *p.tree_s) p.tree_s = t;
            }
        }
    }
    if (c == Collective::all_reduce && gpus_per_node >= 1 && ranks % gpus_per_node == 0 && ranks > gpus_per_node) {
        const SteppedCollective model(with(StepAlgorithm::hierarchical, 0));
        for (auto& p : points) p.hierarchical_s = model.total_time_for(p.bytes);
    }
    return points;
}

}  // namespace shardscope
