#include "core/model/cost_model.hpp"

#include "core/collectives/collectives.hpp"
#include "core/model/compute.hpp"
#include "core/model/hardware.hpp"
#include "core/model/memory.hpp"
#include "core/model/op_recompute.hpp"
#include "core/model/zero3.hpp"
#include "core/mesh/mesh.hpp"
#include "core/scenario/units.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace shardscope {
namespace {


double as_double(int64_t v) noexcept { return static_cast<double>(v); }

// Model chunks a stage holds: its virtual stages under interleaved 1F1B, else one.
int64_t chunks_per_stage(const TrainingSpec& t) noexcept {
    return t.schedule == Schedule::interleaved_1f1b ? t.virtual_stages : 1;
}

// Where a dim's groups sit: inside nodes or across them, and how many members each has per node.
struct Placement {
    DimLinks links = DimLinks::none;
    int64_t per_node = 1;
};

// The inter-node bandwidth each GPU's share of the node's NICs gives (nics_per_node 0: one per GPU).
double nic_share_per_gpu(const ClusterSpec& c) noexcept {
    const double nics = static_cast<double>(c.inter_node.nics_per_node > 0 ? c.inter_node.nics_per_node
                                                                           : c.gpus_per_node);
    return c.inter_node.bytes_per_s() * nics / static_cast<double>(c.gpus_per_node);
}

// Members per node of a group of `size` ranks `stride` apart (nodes hold contiguous ranks).
int64_t members_per_node(int64_t size, int64_t stride, int64_t gpus_per_node) noexcept {
    if (stride >= gpus_per_node) return 1;
    return std::clamp<int64_t>(gpus_per_node / std::max<int64_t>(1, stride), 1, size);
}

Placement placement_of(const DimSummary& d, int64_t gpus_per_node) noexcept {
    return Placement{d.links, members_per_node(d.size, d.stride, gpus_per_node)};
}

// A group inside a node runs on the intra-node link. One that leaves its node is bounded by the
// NICs it can use: NCCL spreads its rings over the rails, so a group with k members per node moves
// its inter-node share over k NICs at once (k x the per-NIC bandwidth, scaled by NICs per GPU, never
// more than the intra-node link feeding them). nics_per_node 0 means one per GPU (DGX/HGX).
Link link_for(const ClusterSpec& c, Placement at) noexcept {
    if (at.links == DimLinks::intra || at.links == DimLinks::none) return Link::from(c.intra_node);
    Link link = Link::from(c.inter_node);
    // k members share k GPUs' worth of NICs, and never less than one NIC.
    const double rails_bandwidth = std::max(link.bandwidth_bytes_per_s,
                                            static_cast<double>(at.per_node) * nic_share_per_gpu(c));
    link.bandwidth_bytes_per_s = std::min(c.intra_node.bytes_per_s(), rails_bandwidth);
    // A ring through k members a node crosses the network on one step in k; the other steps are
    // NVLink hops, at the node's own step latency (NCCL's tuning model, src/graph/tuning.cc, prices a
    // ring's intra-node and inter-node steps apart the same way).
    const double k = static_cast<double>(std::max<int64_t>(1, at.per_node));
    link.latency_s = ((k - 1.0) * c.intra_node.latency_us + c.inter_node.latency_us) * 1e-6 / k;
    return link;
}

// An all-to-all is no ring: every member sends its share straight to every other, so the part bound
// for other nodes leaves through the node's NICs, which all its GPUs share (per GPU: NICs per GPU x
// the per-NIC bandwidth), however many members the group has per node. Of a member's (N-1)/N x S,
// (N-k)/N crosses nodes (k members per node): the formula's (N-1)/N x S / B takes that time with
// B = per-GPU NIC bandwidth x (N-1)/(N-k), never above the intra-node link.
Link all_to_all_link(const ClusterSpec& c, Placement at, int64_t ranks) noexcept {
    if (at.links == DimLinks::intra || at.links == DimLinks::none) return Link::from(c.intra_node);
    Link link = Link::from(c.inter_node);
    const double n = static_cast<double>(ranks), k = static_cast<double>(std::min(at.per_node, ranks - 1));
    link.bandwidth_bytes_per_s =
        std::min(c.intra_node.bytes_per_s(), nic_share_per_gpu(c) * (n - 1.0) / (n - k));
    return link;
}

// One all-to-all (dispatch or combine) of an MoE layer with group-limited routing whose EP group spans
// nodes, as DeepSeek-V3 runs it (arXiv:2412.19437, section 3.2.2): a token crosses the network once
// per node its experts sit on, to the GPU of the same index there, which forwards it over NVLink to
// each of its experts on that node; the two legs overlap. A token reaches at most
// expert_groups_per_token groups, so at most that many nodes when a group is a node's experts (more
// when a group spans nodes); of those, (nodes - 1) / nodes are other nodes on average.
struct GroupLimitedAllToAll {
    double seconds = 0;
    double bytes_sent = 0;  // per GPU: over the network and over NVLink
};

GroupLimitedAllToAll group_limited_all_to_all(const ClusterSpec& c, const ModelSpec& m, Placement at, int64_t ep,
                                              double tokens, double token_bytes) noexcept {
    const double per_node = static_cast<double>(std::max<int64_t>(1, at.per_node));
    const double nodes = std::ceil(static_cast<double>(ep) / per_node);
    const double nodes_per_group = std::max(1.0, nodes / static_cast<double>(m.expert_groups));
    const double reached = std::min(nodes, static_cast<double>(m.expert_groups_per_token) * nodes_per_group);
    const double remote_copies = reached * (nodes - 1.0) / nodes;
    const double capacity = std::max(1.0, m.capacity_factor);
    const double network_bytes = tokens * remote_copies * token_bytes * capacity;
    // Each of the token's top_k copies reaches its expert's GPU over NVLink, but for the one already
    // on the GPU that received it.
    const double nvlink_bytes = tokens * static_cast<double>(m.top_k) * (per_node - 1.0) / per_node * token_bytes * capacity;
    const double network_s = c.inter_node.latency_us * 1e-6 + network_bytes / nic_share_per_gpu(c);
    const double nvlink_s = c.intra_node.latency_us * 1e-6 + nvlink_bytes / c.intra_node.bytes_per_s();
    return {std::max(network_s, nvlink_s), network_bytes + nvlink_bytes};
}

DimLinks worse(DimLinks a, DimLinks b) noexcept {
    const auto rank = [](DimLinks l) {
        switch (l) {
            case DimLinks::none: return 0;
            case DimLinks::intra: return 1;
            case DimLinks::mixed: return 2;
            case DimLinks::inter: return 3;
        }
        return 0;
    };
    return rank(a) >= rank(b) ? a : b;
}

// Parameters one token passes through in block `layer`: MoE blocks count top_k routed experts only.
double active_block_params(const ParamCounts& c, const ModelSpec& m, int64_t layer) noexcept {
    const double routed = layer_routed_expert_params(c, layer);
    if (routed <= 0) return layer_params(c, layer);
    return layer_params(c, layer) - routed + as_double(m.top_k) * c.expert_ffn;
}

bool splits_backward(Schedule s) noexcept {
    return s == Schedule::zb_h1 || s == Schedule::zb_h2 || s == Schedule::dualpipe;
}

// Everything the cost model derives once from the scenario.
struct Context {
    const Scenario& s;
    const ParamCounts& counts;
    const DeviceMesh& mesh;
    ParallelSpec par;        // effective factors (leftover replicas included)
    HardwareFigures hw{};    // what one GPU achieves (core/model/hardware.hpp)
    std::optional<HostFigures> host{};  // its host, with the optimizer offloaded there
    double act_bytes = 2;
    int64_t shard_ranks = 1;         // ZeRO group: dp_shard * cp
    int64_t expert_shard_ranks = 1;  // dp_shard * cp / ep
    Placement tp{}, cp{}, ep{}, pp{}, replicate{};
    Placement shard{};           // the dp_shard x cp group
    Placement expert_shard{};    // the dp_shard x cp / ep group that shards one local expert
    Placement all_data{};        // dp_shard x cp x dp_replicate (ZeRO 0's all-reduce)
};

struct StageComm {
    StageWork work;
    double fsdp_copy_out_s = 0;  // of work.forward_s and of work.backward_s: FSDP2's copy-out
    int64_t layers = 0;      // blocks, an MTP module's included
    int64_t moe_layers = 0;
    int64_t mtp = 0;         // multi-token prediction modules (the last stage)
    // Bytes one GPU sends per micro-batch, per dim, and the calls that send them.
    double tp_bytes = 0, cp_bytes = 0, ep_bytes = 0, fsdp_bytes = 0;
    std::vector<CollectiveCall> tp_calls, cp_calls, ep_calls, fsdp_calls;
};

// What a stage's work and communication depend on: its blocks, whether it holds the output layer, and
// its parameters. Two stages with equal loads cost the same (plan_pipeline prices each load once).
// What stage_compute prices for a stage of `layers` blocks, `moe` of them MoE, both counting its `mtp`
// multi-token prediction modules' blocks.
StageBlocks priced_blocks(const TrainingSpec& t, int64_t layers, int64_t moe, int64_t mtp, bool embedding,
                          bool output) {
    StageBlocks b = stage_blocks(t, layers - moe, moe, embedding, output);
    b.mtp = mtp;
    return b;
}

struct StageLoad {
    int64_t layers = 0;         // blocks, an MTP module's included: each sends what a block sends
    int64_t moe_layers = 0;
    int64_t mtp = 0;            // multi-token prediction modules (the last stage)
    double block_fwd = 0;       // forward matmul FLOPs of its blocks for one micro-batch, before TP/CP
    double attention_fwd = 0;   // of which the attention core (QK^T and AV)
    bool output = false;        // the last stage: LM head
    bool embedding = false;     // the first stage: token embedding
    StageParams params;         // (the block range in params.layers is not compared)

    [[nodiscard]] bool same_cost(const StageLoad& o) const noexcept {
        return layers == o.layers && moe_layers == o.moe_layers && mtp == o.mtp && block_fwd == o.block_fwd &&
               attention_fwd == o.attention_fwd && output == o.output && embedding == o.embedding &&
               params.embedding == o.params.embedding &&
               params.output == o.params.output && params.blocks_non_expert == o.params.blocks_non_expert &&
               params.routed_experts == o.params.routed_experts;
    }
};

StageLoad stage_load(const Context& cx, int64_t stage) {
    const ModelSpec& m = cx.s.model;
    const ParallelSpec& p = cx.par;
    StageLoad load;
    load.params = stage_params(cx.counts, p, stage);
    load.output = stage == p.pp - 1;
    load.embedding = stage == 0;
    if (!m.has_architecture()) return load;
    const StageLayers layers = load.params.layers;
    load.layers = layers.count;
    const double seq = as_double(m.seq_len);
    const double tokens = as_double(cx.s.training.micro_batch) * seq;  // one micro-batch
    // Every dense block is alike, and so is every MoE block: counted by kind, not summed block by block.
    const BlockKinds kinds = block_kinds(cx.counts, layers);
    const int64_t first_moe = layers.first + kinds.dense;
    const double dense_active = kinds.dense > 0 ? active_block_params(cx.counts, m, layers.first) : 0.0;
    const double moe_active = kinds.moe > 0 ? active_block_params(cx.counts, m, first_moe) : 0.0;
    load.block_fwd = 2.0 * (as_double(kinds.dense) * dense_active + as_double(kinds.moe) * moe_active) * tokens;
    load.attention_fwd = as_double(layers.count) * 4.0 * as_double(m.hidden) * seq * tokens;  // QK^T, AV: full s x s
    // An MTP module's block runs as the last block does, with its collectives.
    load.moe_layers = kinds.moe;
    load.mtp = load.params.mtp;
    load.layers += load.mtp;
    if (cx.counts.mtp_is_moe()) load.moe_layers += load.mtp;
    return load;
}

// True for a middle stage (neither the first, with the embedding, nor the last, with the output layer)
// whose previous stage is a middle stage with as many blocks, of which as many are MoE blocks. Dense
// blocks come before MoE ones, so the two hold the same sequence of blocks and every sum over them
// comes out the same, without summing.
bool same_blocks_as_previous(const Context& cx, int64_t stage, StageLayers here, StageLayers before) noexcept {
    if (stage < 2 || stage >= cx.par.pp - 1) return false;
    return here.count == before.count && block_kinds(cx.counts, here).moe == block_kinds(cx.counts, before).moe;
}

StageComm stage_comm(const Context& cx, const StageLoad& load) {
    const Scenario& s = cx.s;
    const ModelSpec& m = s.model;
    const ParallelSpec& p = cx.par;
    StageComm out;
    out.layers = load.layers;
    out.moe_layers = load.moe_layers;
    out.mtp = load.mtp;
    StageWork& w = out.work;

    const double b = as_double(s.training.micro_batch);
    const double seq = as_double(m.seq_len);
    const double h = as_double(m.hidden);
    const bool full = s.training.recompute == Recompute::full;

    // Compute from the hardware up, kernel by kernel (core/model/compute.hpp).
    const StageCompute& sc = stage_compute(
        s, p, cx.hw, priced_blocks(s.training, load.layers, load.moe_layers, load.mtp, load.embedding, load.output));
    w.forward_flops = sc.forward_flops;
    w.backward_flops = sc.backward_flops;
    w.forward_s = sc.forward_s;
    w.backward_s = sc.backward_s;
    w.attention_forward_s = sc.attention_forward_s;

    const ClusterSpec& c = s.cluster;
    const double L = as_double(load.layers);
    if (p.tp > 1) {
        // Two all-reduces per block in the forward (after attention, after the MLP), two in the
        // backward, two more when a full recompute re-runs the forward. With SP each is an all-gather
        // plus a reduce-scatter of the same activation: the same bytes, twice the latency terms.
        const double msg = b * seq / as_double(p.cp) * h * cx.act_bytes;
        const Link link = link_for(c, cx.tp);
        const bool sp = p.sequence_parallel;
        const double one = sp ? collective_time(Collective::all_gather, msg, p.tp, link) +
                                    collective_time(Collective::reduce_scatter, msg, p.tp, link)
                              : collective_time(Collective::all_reduce, msg, p.tp, link);
        const double one_bytes = sp ? 2.0 * bytes_sent_per_rank(Collective::all_gather, msg, p.tp)
                                    : bytes_sent_per_rank(Collective::all_reduce, msg, p.tp);
        // A block whose forward re-runs repeats its two: all of them under recompute full, the blocks
        // the block method names under it.
        const double rerun_share =
            full && L > 0 ? as_double(recomputed_blocks(s.training, load.layers, chunks_per_stage(s.training)).rerun) / L : 0.0;
        const double bwd_count = 2.0 + 2.0 * rerun_share;
        w.tp_forward_s = 2.0 * L * one;
        w.tp_backward_s = bwd_count * L * one;
        out.tp_bytes = (2.0 + bwd_count) * L * one_bytes;
        if (sp)
            out.tp_calls = {{Collective::all_gather, msg, (2.0 + bwd_count) * L},
                            {Collective::reduce_scatter, msg, (2.0 + bwd_count) * L}};
        else
            out.tp_calls = {{Collective::all_reduce, msg, (2.0 + bwd_count) * L}};
    }
    if (p.cp > 1) {
        // Ring attention: every rank sees every other rank's K and V (an all-gather's worth) in the
        // forward; the backward passes K, V around again and reduce-scatters their gradients. The
        // all-gather form (cp_comm) moves the same bytes: K and V gathered before the forward's
        // attention and again before the backward's (nothing full-length is kept between them).
        const double kv = b * seq * as_double(m.key_width() + m.value_width()) * cx.act_bytes / as_double(p.tp);
        const Link link = link_for(c, cx.cp);
        const double ag = collective_time(Collective::all_gather, kv, p.cp, link);
        const double rs = collective_time(Collective::reduce_scatter, kv, p.cp, link);
        w.cp_forward_s = L * ag;
        w.cp_backward_s = L * (ag + rs);
        out.cp_bytes = 3.0 * L * bytes_sent_per_rank(Collective::all_gather, kv, p.cp);
        out.cp_calls = {{Collective::all_gather, kv, 2.0 * L}, {Collective::reduce_scatter, kv, L}};
    }
    if (p.ep > 1 && out.moe_layers > 0) {
        // Dispatch and combine: each token's hidden state goes to its top_k experts and comes back,
        // padded to capacity when a capacity factor is set.
        const double local_tokens = b * seq / as_double(p.cp) / (p.sequence_parallel ? as_double(p.tp) : 1.0);
        const double msg = local_tokens * as_double(m.top_k) * std::max(1.0, m.capacity_factor) * h * cx.act_bytes;
        double a2a = 0, a2a_bytes = 0;
        if (m.expert_groups > 0 && cx.ep.links != DimLinks::intra && cx.ep.links != DimLinks::none) {
            const GroupLimitedAllToAll g = group_limited_all_to_all(c, m, cx.ep, p.ep, local_tokens, h * cx.act_bytes);
            a2a = g.seconds;
            a2a_bytes = g.bytes_sent;
        } else {
            a2a = collective_time(Collective::all_to_all, msg, p.ep, all_to_all_link(c, cx.ep, p.ep));
            a2a_bytes = bytes_sent_per_rank(Collective::all_to_all, msg, p.ep);
        }
        w.ep_forward_s = 2.0 * as_double(out.moe_layers) * a2a;
        w.ep_backward_s = 2.0 * as_double(out.moe_layers) * a2a;
        out.ep_bytes = 4.0 * as_double(out.moe_layers) * a2a_bytes;
        out.ep_calls = {{Collective::all_to_all, msg, 4.0 * as_double(out.moe_layers)}};
    }
    return out;
}

// The report's line on how the scenario's ZeRO-3 implementation issues its collectives.
std::string zero3_note(ZeroImpl impl) {
    const std::string name = "ZeRO-3 as " + std::string(to_string(impl)) + " runs it (parallel.zero_impl): ";
    switch (impl) {
        case ZeroImpl::fsdp2:
        case ZeroImpl::fsdp1:
        case ZeroImpl::megatron_fsdp:
            return name + "every block all-gathered before its forward and again before its backward, gradients "
                          "reduce-scattered after it, every micro-batch, one collective per block, the next block "
                          "prefetched under the compute";
        case ZeroImpl::deepspeed:
            return name + "each submodule's weights in one coalesced all-gather before it runs, the next prefetched "
                          "under the compute, vectors under 1e5 elements kept whole; after a recomputed forward a "
                          "weight whose next use is 1e9 elements away is gathered again; gradients reduce-scattered "
                          "in buckets of 5e8 elements";
        case ZeroImpl::deepspeed_0_3:
            return name + "one all-gather per weight, each behind a device-wide synchronize (exposed whole), through "
                          "PyTorch's list API (a view per rank built in Python first, a copy kernel per rank per "
                          "call, and a zero fill); one reduce-scatter per parameter, likewise copied, on its own "
                          "stream, yet waited for by the next weight's synchronize (exposed whole too)";
    }
    return name;
}

// FSDP / ZeRO-3 as PyTorch FSDP and DeepSpeed run it: each block's weights are all-gathered before
// its forward and again before its backward (reshard after forward), and its gradients
// reduce-scattered after its backward, every micro-batch: 3x the parameter bytes, in one collective
// per block (plus the embedding and the output layer), each paying its own latency. ZeRO-2 keeps only
// its gradient slice too, so it cannot wait for the last micro-batch either: it reduce-scatters after
// every backward ("gradient reduction is required after every backward because of gradient
// partitioning", a DeepSpeed maintainer, github.com/deepspeedai/DeepSpeed/issues/2252; FSDP's
// SHARD_GRAD_OP does the same), and all-gathers the updated weights once, at the step's end. Needs
// only the parameter count, so a count-only model gets it too (as one unit per stage).
void add_fsdp_comm(const Context& cx, const StageParams& sp, StageComm& out) {
    const ParallelSpec& p = cx.par;
    const ClusterSpec& c = cx.s.cluster;
    StageWork& w = out.work;
    if (p.zero < 2 || cx.shard_ranks <= 1) return;
    const bool gathers = p.zero >= 3;
    const bool fused = cx.s.training.fused_kernels;
    // zero_impl is read only with ZeRO-3; ZeRO-2 reduces as FSDP does.
    const ZeroImpl impl = gathers ? effective_zero_impl(p, fused) : effective_zero_impl(ParallelSpec{}, fused);
    const Zero3Calls calls = zero3_calls(impl, cx.s.model, cx.counts, sp,
                                         cx.s.training.recompute == Recompute::full);
    const StateBytesPerParam per = state_bytes_per_param(cx.s.training);
    const double dense = (sp.embedding + sp.output + sp.blocks_non_expert) / as_double(p.tp);
    const double expert = sp.routed_experts / (as_double(p.ep) * as_double(p.tp));
    const double gathered = gathered_mean_weight_bytes(cx.s.training, sp.embedding + sp.output, sp.blocks_non_expert);
    const double expert_gathered = gathered_block_weight_bytes(cx.s.training);
    const Link link = link_for(c, cx.shard);
    const Link expert_link = link_for(c, cx.expert_shard);
    // A part with no parameters (the experts of a dense model) sends nothing and pays no latency.
    const auto per_call = [&](Collective op, double params, double bytes_per, int64_t ranks, double n, const Link& l) {
        if (params <= 0 || n <= 0) return 0.0;
        double t = n * collective_time(op, params * bytes_per / n, ranks, l);
        if (calls.per_rank_copies)
            t += list_api_copies_s(n, params * bytes_per, ranks, cx.hw.hbm_bytes_per_s, cx.hw.kernel_floor_s,
                                   op == Collective::all_gather);
        if (calls.python_views && op == Collective::all_gather) t += python_views_s(n, ranks);
        return t;
    };
    // One forward's worth of all-gathers, scaled by share of calls and of bytes.
    const auto gather_pass = [&](double call_share, double byte_share) {
        if (!gathers || call_share <= 0) return 0.0;
        return per_call(Collective::all_gather, dense * byte_share, gathered, cx.shard_ranks,
                        calls.gathers_per_pass * call_share, link) +
               per_call(Collective::all_gather, expert * byte_share, expert_gathered, cx.expert_shard_ranks,
                        calls.expert_gathers_per_pass * call_share, expert_link);
    };
    const double ag = gather_pass(1.0, 1.0);
    const double ag_backward =
        ag * (1.0 + calls.recompute_passes) + gather_pass(calls.regather_calls, calls.regather_bytes);
    const double rs = per_call(Collective::reduce_scatter, dense, per.grads, cx.shard_ranks, calls.reductions, link) +
                      per_call(Collective::reduce_scatter, expert, per.grads, cx.expert_shard_ranks,
                               calls.expert_reductions, expert_link);
    w.fsdp_forward_s = ag;
    w.fsdp_backward_s = ag_backward + rs;
    if (calls.gathers_wait) {
        w.fsdp_forward_waits_s = ag;
        w.fsdp_backward_waits_s = ag_backward;
    }
    if (calls.reductions_wait) w.fsdp_backward_waits_s += rs;
    if (impl == ZeroImpl::fsdp2 && cx.s.model.has_architecture()) {
        const double units = calls.gathers_per_pass;
        const Fsdp2Copies copies = fsdp2_copies(cx.hw, dense + expert, units, gathers, gathered, per.grads);
        w.forward_s += copies.copy_out_s;
        w.backward_s += copies.copy_out_s;
        out.fsdp_copy_out_s = copies.copy_out_s;
        w.fsdp_backward_s += copies.copy_in_s;
    }
    // nccl-tests times one group size at a time: the dense blocks' calls (the experts' sharding group
    // differs and is left to the dense figure).
    if (dense > 0) {
        const double gather_calls = calls.gathers_per_pass * (2.0 + calls.recompute_passes + calls.regather_calls);
        if (gathers) out.fsdp_calls.push_back({Collective::all_gather, dense * gathered / calls.gathers_per_pass, gather_calls});
        out.fsdp_calls.push_back({Collective::reduce_scatter, dense * per.grads / calls.reductions, calls.reductions});
    }
    const double passes = gathers ? 2.0 + calls.recompute_passes + calls.regather_bytes : 0.0;
    out.fsdp_bytes = bytes_sent_per_rank(Collective::all_gather, dense * (passes * gathered + per.grads), cx.shard_ranks) +
                     bytes_sent_per_rank(Collective::all_gather, expert * (passes * expert_gathered + per.grads),
                                         cx.expert_shard_ranks);
}

// The per-micro-batch overlap rules of cost_model.hpp: what each op costs the critical path.
struct Exposed {
    OverlapCost tp_f, tp_b, cp_f, cp_b, ep_f, ep_b, fsdp_f, fsdp_b;
    [[nodiscard]] double forward() const noexcept { return tp_f.total() + cp_f.total() + ep_f.total() + fsdp_f.total(); }
    [[nodiscard]] double backward() const noexcept {
        return tp_b.total() + cp_b.total() + ep_b.total() + fsdp_b.total();
    }
};

Exposed apply_overlap_rules(const StageWork& w, const ParallelSpec& p, bool ep_overlap, double loss) noexcept {
    const bool tp_overlap = p.tp_comm_overlap;
    const bool cp_ring = p.cp_comm == CpComm::ring;
    const auto beside = [loss](double comm, double compute) { return overlap_cost(comm, compute, loss); };
    const auto serial = [](double comm) { return OverlapCost{comm, 0.0}; };
    Exposed e;
    e.tp_f = tp_overlap ? beside(w.tp_forward_s, w.forward_s) : serial(w.tp_forward_s);
    e.tp_b = tp_overlap ? beside(w.tp_backward_s, w.backward_s) : serial(w.tp_backward_s);
    e.cp_f = cp_ring ? beside(w.cp_forward_s, w.attention_forward_s) : serial(w.cp_forward_s);
    e.cp_b = cp_ring ? beside(w.cp_backward_s, 2.0 * w.attention_forward_s) : serial(w.cp_backward_s);
    // DualPipe (or parallel.ep_comm_overlap) runs one micro-batch's all-to-all beside another's compute.
    e.ep_f = ep_overlap ? beside(w.ep_forward_s, w.forward_s) : serial(w.ep_forward_s);
    e.ep_b = ep_overlap ? beside(w.ep_backward_s, w.backward_s) : serial(w.ep_backward_s);
    // What waits behind a device synchronize is exposed whole; the rest runs beside the compute.
    const auto waits_then_beside = [&](double comm, double waits, double compute) {
        OverlapCost o = beside(comm - waits, compute);
        o.past += waits;
        return o;
    };
    e.fsdp_f = waits_then_beside(w.fsdp_forward_s, w.fsdp_forward_waits_s, w.forward_s);
    e.fsdp_b = waits_then_beside(w.fsdp_backward_s, w.fsdp_backward_waits_s, w.backward_s);
    return e;
}

// The data-parallel work at the end of a step, for the GPUs of one stage.
struct StepEndComm {
    double reduce_s = 0;      // gradient reduction (DDP all-reduce, ZeRO-1/2 reduce-scatter, HSDP all-reduce)
    double gather_s = 0;      // ZeRO-1/2 all-gather of the updated weights
    double shard_s = 0, shard_bytes = 0;          // the dp_shard dim's part of the above
    double replicate_s = 0, replicate_bytes = 0;  // the dp_replicate dim's part
    std::vector<CollectiveCall> shard_calls, replicate_calls;
};

StepEndComm step_end_comm(const Context& cx, int64_t stage) {
    const ParallelSpec& p = cx.par;
    const ClusterSpec& c = cx.s.cluster;
    const StageParams sp = stage_params(cx.counts, p, stage);
    const StateBytesPerParam per = state_bytes_per_param(cx.s.training);
    const double dense = (sp.embedding + sp.output + sp.blocks_non_expert) / as_double(p.tp);
    const double expert = sp.routed_experts / (as_double(p.ep) * as_double(p.tp));
    const double dense_gathered = gathered_mean_weight_bytes(cx.s.training, sp.embedding + sp.output, sp.blocks_non_expert);
    const double expert_gathered = gathered_block_weight_bytes(cx.s.training);
    StepEndComm out;

    const auto add_replicate = [&](double bytes, int64_t ranks, Placement at) {
        // The expert part of a dense model has no bytes; a group of one rank (no data parallelism)
        // has no one to reduce with.
        if (bytes <= 0 || ranks <= 1) return;
        const Link link = link_for(c, at);
        out.replicate_s += collective_time(Collective::all_reduce, bytes, ranks, link);
        out.replicate_bytes += bytes_sent_per_rank(Collective::all_reduce, bytes, ranks);
        if (out.replicate_calls.empty()) out.replicate_calls.push_back({Collective::all_reduce, bytes, 1.0});
    };
    if (p.zero == 0 || cx.shard_ranks == 1) {
        // Nothing sharded: every replica all-reduces its full gradients (CP ranks join the reduction).
        add_replicate(dense * per.grads, cx.shard_ranks * p.dp_replicate, cx.all_data);
        add_replicate(expert * per.grads, cx.expert_shard_ranks * p.dp_replicate, cx.all_data);
        out.reduce_s = out.replicate_s;
        return out;
    }
    const Link shard_link = link_for(c, cx.shard);
    if (p.zero <= 2) {
        // ZeRO-1 reduce-scatters the gradients it accumulated over the step's micro-batches; ZeRO-2 did
        // so after every backward (add_fsdp_comm). Both all-gather the updated weights.
        const bool reduces_here = p.zero == 1;
        const auto rs = [&](double params, int64_t ranks, double gathered) {
            if (params <= 0) return;
            const double reduced = reduces_here ? params * per.grads : 0.0;
            if (reduces_here)
                out.reduce_s += collective_time(Collective::reduce_scatter, reduced, ranks, shard_link);
            out.gather_s += collective_time(Collective::all_gather, params * gathered, ranks, shard_link);
            out.shard_bytes += bytes_sent_per_rank(Collective::reduce_scatter, reduced + params * gathered, ranks);
            if (out.shard_calls.empty()) {
                if (reduces_here) out.shard_calls.push_back({Collective::reduce_scatter, reduced, 1.0});
                out.shard_calls.push_back({Collective::all_gather, params * gathered, 1.0});
            }
        };
        rs(dense, cx.shard_ranks, dense_gathered);
        rs(expert, cx.expert_shard_ranks, expert_gathered);
        out.shard_s = out.reduce_s + out.gather_s;
    }
    if (p.dp_replicate > 1) {
        // HSDP: the replicas all-reduce the gradient shard each rank owns.
        add_replicate(dense * per.grads / as_double(cx.shard_ranks), p.dp_replicate, cx.replicate);
        add_replicate(expert * per.grads / as_double(cx.expert_shard_ranks), p.dp_replicate, cx.replicate);
        out.reduce_s += out.replicate_s;
    }
    return out;
}

void move_dim_traffic(DimCost& from, DimCost& to);

// Gradients are reduced over every data-parallel rank, CP ranks included: step_end_comm books an
// unsharded reduction as dp_replicate's and ZeRO's as dp_shard's. Where that dim has one rank the group
// is another's (dp_shard's or cp's): the traffic is shown on the first of them with more than one
// rank, never on a dim of one rank.
void move_reduction_off_single_ranks(std::vector<DimCost>& dims) {
    const auto named = [&](const char* name) {
        const auto it = std::find_if(dims.begin(), dims.end(), [&](const DimCost& d) { return d.name == name; });
        return it == dims.end() ? nullptr : &*it;
    };
    for (const char* from_name : {"dp_replicate", "dp_shard"}) {
        DimCost* from = named(from_name);
        if (!from || from->size > 1 || from->bytes_per_step <= 0) continue;
        DimCost* to = nullptr;
        for (const char* name : {"dp_shard", "cp"})
            if (DimCost* d = named(name); d && d != from && d->size > 1 && !to) to = d;
        if (to) move_dim_traffic(*from, *to);
    }
}

void move_dim_traffic(DimCost& from, DimCost& to) {
    const std::string what = from.name == "dp_shard" ? "ZeRO over the cp ranks: " + from.collective : "gradient all-reduce";
    to.collective = to.bytes_per_step > 0 ? to.collective + " + " + what : what;
    to.bytes_per_step += from.bytes_per_step;
    to.time_s += from.time_s;
    to.exposed_s += from.exposed_s;
    to.contention_s += from.contention_s;
    to.calls.insert(to.calls.end(), from.calls.begin(), from.calls.end());
    from.bytes_per_step = from.time_s = from.exposed_s = from.contention_s = 0;
    from.calls.clear();
    from.collective = "none";
}

// The scenario's run block, priced at the step's rate: absent without a block, null-with-a-note
// without a rate (a model given only as a parameter count has no step time).
void add_run_figures(const Scenario& s, Report& r) {
    if (!s.run) return;
    if (!r.throughput.tokens_per_s || !(*r.throughput.tokens_per_s > 0)) {
        r.notes.push_back("run: no days, cost or goodput: the step has no time to price the tokens at");
        return;
    }
    r.run = run_figures(s, *s.run, *r.throughput.tokens_per_s, r.params_total, r.world_size);
    r.notes.insert(r.notes.end(), r.run->notes.begin(), r.run->notes.end());
}

Context make_context(const Scenario& s, const ParamCounts& counts, const DeviceMesh& mesh) {
    const ParallelSpec& p = mesh.effective();
    const GpuSpec& gpu = s.cluster.gpu;
    Context cx{s, counts, mesh, p};
    // Every collective of a step waits for its slowest member, and the step-end reduction joins them all.
    cx.hw = paced_hardware_figures(gpu, mesh.world_size());
    if (s.training.offload != Offload::none) cx.host = host_figures(s.cluster);
    cx.act_bytes = activation_dtype_bytes(s.training.precision);
    cx.shard_ranks = p.dp_shard * p.cp;
    cx.expert_shard_ranks = std::max<int64_t>(1, cx.shard_ranks / p.ep);
    const int64_t gpn = s.cluster.gpus_per_node;
    const auto at = [&](Dim d) { return placement_of(mesh.summary(d), gpn); };
    cx.tp = at(Dim::tp);
    cx.cp = at(Dim::cp);
    cx.pp = Placement{mesh.summary(Dim::pp).links, 1};  // one activation between two GPUs
    cx.replicate = at(Dim::dp_replicate);
    cx.ep = placement_of(mesh.ep_summary(), gpn);
    // A group of two dims holds the product of their members per node (capped by its size).
    const auto combined = [&](Placement a, Placement b, int64_t size) {
        return Placement{worse(a.links, b.links), std::min(size, a.per_node * b.per_node)};
    };
    cx.shard = combined(at(Dim::dp_shard), cx.cp, cx.shard_ranks);
    cx.expert_shard = Placement{cx.shard.links, std::max<int64_t>(1, cx.shard.per_node / p.ep)};
    cx.all_data = combined(cx.shard, cx.replicate, cx.shard_ranks * p.dp_replicate);
    return cx;
}

// Every stage's work, what its ops leave exposed, and the PipelineSpec those costs make.
// Stages with equal loads share one pricing.
struct PlannedPipeline {
    std::vector<StageComm> priced;        // one per distinct stage load
    std::vector<Exposed> priced_exposed;  // what each of those leaves exposed
    std::vector<uint32_t> price_of;       // per stage: its index in priced
    PipelineSpec spec;
    [[nodiscard]] const StageComm& stage(std::size_t st) const { return priced[price_of[st]]; }
    [[nodiscard]] const Exposed& exposed(std::size_t st) const { return priced_exposed[price_of[st]]; }
};

PlannedPipeline plan_pipeline(const Context& cx, int64_t microbatches) {
    const Scenario& s = cx.s;
    const ParallelSpec& p = cx.par;
    const bool arch = s.model.has_architecture();
    PlannedPipeline plan;
    PipelineSpec& spec = plan.spec;
    spec.schedule = s.training.schedule;
    spec.stages = static_cast<int>(p.pp);
    // validate_training keeps a scenario's micro-batches within the simulator's limit; past it (an
    // unvalidated scenario) the simulator refuses the spec rather than pricing a shorter pipeline.
    spec.microbatches = static_cast<int>(std::min<int64_t>(microbatches, std::numeric_limits<int>::max()));
    spec.virtual_stages = static_cast<int>(s.training.virtual_stages);
    const auto stages = static_cast<std::size_t>(p.pp);
    plan.price_of.reserve(stages);
    spec.costs.reserve(stages);
    StageLoad previous;
    StageLayers before;
    for (int64_t st = 0; st < p.pp; ++st) {
        const StageLayers here = stage_layers(cx.counts.layers, p, st);
        const bool repeats = same_blocks_as_previous(cx, st, here, before);
        before = here;
        // Most stages hold the same blocks as their neighbour: price them once.
        const auto same_as_previous = [&] {
            plan.price_of.push_back(plan.price_of.back());
            spec.costs.push_back(spec.costs.back());
        };
        if (repeats) {
            same_as_previous();
            continue;
        }
        const StageLoad load = stage_load(cx, st);
        if (st > 0 && load.same_cost(previous)) {
            same_as_previous();
            continue;
        }
        previous = load;
        plan.price_of.push_back(static_cast<uint32_t>(plan.priced.size()));
        plan.priced.push_back(arch ? stage_comm(cx, load) : StageComm{});
        add_fsdp_comm(cx, load.params, plan.priced.back());
        const StageWork& w = plan.priced.back().work;
        const bool ep_overlap = p.ep_comm_overlap || s.training.schedule == Schedule::dualpipe;
        plan.priced_exposed.push_back(apply_overlap_rules(w, p, ep_overlap, cx.hw.overlap_compute_loss));
        // A count-only model has no FLOPs: unit costs keep the schedule's shape (and its in-flight
        // counts for memory) without inventing times.
        const double f = arch ? w.forward_s + plan.priced_exposed.back().forward() : 1.0;
        const double b = arch ? w.backward_s + plan.priced_exposed.back().backward() : 2.0;
        spec.costs.push_back(splits_backward(spec.schedule) ? StageCost{f, b / 2, b / 2} : StageCost{f, b, 0});
    }
    if (p.pp > 1 && arch) {
        const double msg = as_double(s.training.micro_batch) * as_double(s.model.seq_len) / as_double(p.cp) *
                           as_double(s.model.hidden) * cx.act_bytes / as_double(p.tp);
        spec.p2p_time = collective_time(Collective::p2p, msg, 2, link_for(s.cluster, cx.pp));
    }
    return plan;
}

std::string dim_collective(Dim d, const ParallelSpec& p) {
    switch (d) {
        case Dim::tp: return p.sequence_parallel ? "all-gather + reduce-scatter" : "all-reduce";
        case Dim::cp:
            return p.cp_comm == CpComm::ring ? "ring exchange of K,V (all-gather + reduce-scatter)"
                                             : "all-gather of K,V + reduce-scatter of their gradients (exposed)";
        case Dim::dp_shard:
            if (p.zero >= 3) return "all-gather (fwd, bwd) + reduce-scatter per micro-batch";
            if (p.zero == 2) return "reduce-scatter per micro-batch + all-gather";
            return "reduce-scatter + all-gather";
        case Dim::dp_replicate: return "all-reduce";
        case Dim::pp: return "point-to-point";
        case Dim::ep: return "all-to-all (dispatch + combine)";
    }
    return "";
}

// What build_report reads from a simulation. A spec the simulator rejects (a schedule the layout does
// not allow) is simulated as 1F1B, and the notes say so. The memo's compiled programs time the spec.
PipelineMemo::Simulated simulate_slim(PipelineSpec spec, PipelineMemo& memo) {
    PipelineMemo::Simulated out;
    if (std::string e = pipeline_spec_error(spec); !e.empty()) {
        out.notes.push_back("pipeline: " + e + "; simulated as 1f1b instead");
        spec = simulated_pipeline_spec(std::move(spec));
    }
    if (std::string e = pipeline_spec_error(spec); !e.empty()) {  // not even 1F1B runs it: no times
        out.notes.back() = "pipeline: " + e + "; not simulated, so the step has no time";  // replaces the 1f1b note
        return out;
    }
    const PipelineProgram& program = memo.program(spec);
    if (!program.ok()) return out;  // only a wrong schedule order stalls
    PipelineProgram::Timing timing = program.time(spec);
    out.makespan = timing.makespan;
    out.bubble_fraction = timing.bubble_fraction;
    out.busy = std::move(timing.busy);
    out.peak_activation_microbatches = program.peak_activation_microbatches();
    return out;
}

PipelineMemo::Simulated simulated(const PipelineSpec& spec, PipelineMemo& memo) {
    return memo.get(spec, [&memo](const PipelineSpec& sp) { return simulate_slim(sp, memo); });
}

// Parameters the optimizer of one GPU of `stage` updates.
double optimizer_params(const Context& cx, int64_t stage) {
    const ParallelSpec& p = cx.par;
    const StageParams sp = stage_params(cx.counts, p, stage);
    const double dense = (sp.embedding + sp.output + sp.blocks_non_expert) / as_double(p.tp);
    const double expert = sp.routed_experts / (as_double(p.ep) * as_double(p.tp));
    if (p.zero < 1) return dense + expert;
    return dense / as_double(cx.shard_ranks) + expert / as_double(cx.expert_shard_ranks);
}

// What an offloaded optimizer holds on the host: the most loaded GPU's state, for each GPU of a node.
HostOffload host_offload_memory(const Scenario& s, const HostFigures& host, const std::vector<StageMemory>& stages) {
    HostOffload h;
    for (const StageMemory& st : stages) h.bytes_per_gpu = std::max(h.bytes_per_gpu, st.bytes.host);
    h.bytes_per_node = h.bytes_per_gpu * as_double(s.cluster.gpus_per_node);
    h.capacity_bytes = host.memory_bytes_per_node;
    h.fits = h.bytes_per_node <= h.capacity_bytes;
    h.link_bytes_per_s = host.link_bytes_per_s;
    h.adam_params_per_s = host.adam_params_per_s;
    return h;
}

// The busiest GPU's offloaded optimizer step, part by part, and the note that says so.
void price_host_step(const Context& cx, int64_t stage, HostOffload& h, std::vector<std::string>& notes) {
    h.params = optimizer_params(cx, stage);
    h.step = offloaded_optimizer_step(*cx.host, h.params, cx.s.training);
    notes.push_back("optimizer offloaded to the host: " + format_memory(h.bytes_per_gpu) + " per GPU (FP32 master, "
                    "moments and gradients), " + format_memory(h.bytes_per_node) + " of the node's " +
                    format_memory(h.capacity_bytes) + "; its step after the last gradient: gradients to the host " +
                    format_seconds(h.step.gradients_to_host_s) + ", CPU Adam over " + format_count(h.params) +
                    " parameters " + format_seconds(h.step.cpu_adam_s) + ", weights back " +
                    format_seconds(h.step.weights_to_gpu_s) + " (host link " +
                    format_fixed(h.link_bytes_per_s / 1e9, 2) + " GB/s, not overlapped)");
    for (const std::string& src : cx.host->sources) notes.push_back(src);
}

// One stage's micro-batch work and step end, as Report::stage_work holds it.
StageStepWork price_stage_step(const Context& cx, const StageWork& w, int64_t stage) {
    StageStepWork out;
    out.forward_s = w.forward_s;
    out.backward_s = w.backward_s;
    const auto stream = [&out](const char* name, double forward_s, double backward_s) {
        if (forward_s > 0 || backward_s > 0) out.streams.push_back({name, forward_s, backward_s});
    };
    stream("tp", w.tp_forward_s, w.tp_backward_s);
    stream("cp", w.cp_forward_s, w.cp_backward_s);
    stream("ep", w.ep_forward_s, w.ep_backward_s);
    stream("dp_shard", w.fsdp_forward_s, w.fsdp_backward_s);
    const StepEndComm end = step_end_comm(cx, stage);
    const OverlapCost reduce = overlap_cost(end.reduce_s, w.backward_s, cx.hw.overlap_compute_loss);
    out.reduce_s = end.reduce_s;
    out.reduce_past_s = reduce.past;
    out.contention_s = reduce.contention;
    out.gather_s = end.gather_s;
    const double params = optimizer_params(cx, stage);
    out.optimizer_s = cx.host ? offloaded_optimizer_step(*cx.host, params, cx.s.training).total()
                              : optimizer_step_seconds(cx.hw, params, cx.s.training);
    return out;
}

// Every stage's, priced once per distinct stage load (stages of one load hold the same parameters).
std::vector<StageStepWork> stage_step_work(const Context& cx, const PlannedPipeline& plan) {
    std::vector<std::optional<StageStepWork>> priced(plan.priced.size());
    std::vector<StageStepWork> out;
    out.reserve(plan.price_of.size());
    for (std::size_t st = 0; st < plan.price_of.size(); ++st) {
        std::optional<StageStepWork>& slot = priced[plan.price_of[st]];
        if (!slot) slot = price_stage_step(cx, plan.stage(st).work, static_cast<int64_t>(st));
        out.push_back(*slot);
    }
    return out;
}

// What Megatron-LM's --recompute-modules re-run, and what that leaves out of the kept tensors.
std::string megatron_selective_note(const RecomputeModules& mods, const ModelSpec& m) {
    std::vector<std::string> parts;
    if (mods.core_attn) parts.emplace_back("the attention core re-runs");
    if (mods.layernorm) parts.emplace_back("the two norms re-run (their outputs are not kept)");
    if (mods.mla_up_proj)
        parts.emplace_back(m.is_mla() ? "MLA's up-projections and rotary re-run (Q, K, V and the normed latents are not kept)"
                                      : "mla_up_proj: no MLA in this model, nothing to re-run");
    if (mods.moe_act)
        parts.emplace_back(m.is_moe() ? "the routed experts' activation re-runs (its output is not kept)"
                                      : "moe_act: no experts in this model, nothing to re-run");
    std::string text = "selective recompute (Megatron-LM's --recompute-modules): ";
    if (parts.empty()) return text + "no module named, nothing re-runs";
    for (std::size_t i = 0; i < parts.size(); ++i) text += (i > 0 ? "; " : "") + parts[i];
    return text;
}

// What a block keeps for its backward, in the terms memory.hpp counts it.
std::string activation_note(const Scenario& s) {
    const ModelSpec& m = s.model;
    std::string kept = m.is_mla() ? "MLA's latents, Q, K and V" : m.kv_heads < m.heads ? "Q and the grouped K and V" : "Q, K and V";
    kept += ", the attention output, ";
    kept += m.ffn == Ffn::swiglu ? "SwiGLU's gate and up outputs and their product"
            : m.ffn == Ffn::squared_relu ? "squared ReLU's input and output"
                                         : "GeLU's input and output";
    if (m.is_moe())
        kept += "; per routed copy (top " + std::to_string(m.top_k) + ") the expert's input, " +
                (s.training.fused_kernels ? "routing weight (applied in its activation)" : "output") + " and MLP";
    if (fp8_activation_input_on(s.training))
        kept += "; the activation's input in FP8";
    kept += m.uses_dropout() ? "; dropout masks" : "; no dropout masks";
    const std::string recompute =
        s.training.recompute == Recompute::full ? "full recompute: only each block's input is kept"
        : op_level_selective(s.training)
            ? "selective recompute (PyTorch's op-level policy, as torchtitan runs it): a block keeps its input, the "
              "attention output and its 1st, 3rd, 5th ... matmul's output; every second matmul and every "
              "element-wise kernel re-run in the backward"
        : s.training.recompute == Recompute::selective ? megatron_selective_note(s.training.recompute_modules, m)
                                                       : "no recompute";
    const int bytes = static_cast<int>(activation_dtype_bytes(s.training.precision));
    const std::string fp8 = s.training.precision == Precision::fp8
                                ? ", the GEMMs' inputs as their FP8 copies (1 byte, as Transformer Engine caches them)"
                                : "";
    return "activations: counted tensor by tensor as Korthikanti et al. 2022 count GPT's block, " +
           std::to_string(bytes) + " bytes an element" + fp8 + " (" + kept + "); " + recompute;
}

std::string pace_note(double spread, int64_t gpus) {
    if (gpus <= 1 || !(spread > 0))
        return std::string("pace: compute-bound kernels at the median card's speed (") +
               (gpus <= 1 ? "one GPU waits for no other)" : "gpu.speed_spread 0: every card alike)");
    return "pace: a step waits at each collective for its slowest GPU; of " + std::to_string(gpus) +
           " cards whose speeds spread by " + format_percent(spread) +
           " (a standard deviation; Sinha et al. 2022), the slowest keeps " +
           format_percent(slowest_gpu_pace(spread, gpus)) +
           " of the median card's speed in GEMMs and attention (memory-bound kernels keep theirs)";
}

// One line per convention a figure depends on, so a reader can see why it is what it is.
std::vector<std::string> convention_notes(const Scenario& s, const HardwareFigures& hw) {
    std::vector<std::string> notes;
    const bool flash = s.training.attention == AttentionKernel::flash;
    const FlashKernel& kernel = flash_kernel(hw, s.training.fused_kernels);
    notes.push_back("FLOPs: model_per_step (MFU's numerator) counts 6 x active params x tokens (not the input embedding: a lookup) plus the attention "
                    "scores in full (12 x layers x heads x head_dim x seq x tokens, not halved for causal masking: "
                    "Megatron-LM's convention); hardware_per_step counts what the kernels execute (" +
                    std::string(flash ? "causal flash attention runs half the scores" : "eager attention runs all of them") +
                    ", recomputation adds its forward)");
    notes.push_back(std::string("attention: ") +
                    (flash ? "flash (no s x s scores in HBM): " + std::string(kernel.name) + " at " +
                                 format_fixed(kernel.forward * 100, 0) + "% of peak forward and " +
                                 format_fixed(kernel.backward * 100, 0) +
                                 "% backward at long sequences, less for short ones" +
                                 (s.training.fused_kernels || std::string_view(hw.flash_fused.name) == hw.flash_sdpa.name
                                      ? ""
                                      : "; fused_kernels runs Transformer Engine's instead")
                           : "eager: the s x s scores are written, softmaxed and dropped out in HBM and stored for "
                             "the backward unless recomputed"));
    const bool fp8_gemms = s.training.precision == Precision::fp8;
    notes.push_back("compute: each GEMM by its shape at up to " +
                    format_fixed((fp8_gemms ? hw.fp8_gemm_ceiling : hw.gemm_ceiling) * 100, 1) +
                    (fp8_gemms ? "% of the FP8 peak (" : "% of peak (") +
                    std::to_string(hw.sm_count) +
                    " SMs, tile and wave quantisation; each tile's fixed cost worth " +
                    format_fixed(fp8_gemms ? hw.fp8_gemm_fixed_k : hw.gemm_fixed_k, 0) +
                    " of its K, from DeepGEMM's Hopper FP8 table at the tensor cores' rate per SM), "
                    "memory-bound kernels at " +
                    format_fixed(hw.hbm_bytes_per_s / 1e9, 0) + " GB/s, at least 3 us a kernel");
    notes.push_back("overlap: a collective hidden under compute still slows it; the compute beside it keeps " +
                    format_fixed((1.0 - hw.overlap_compute_loss) * 100, 0) +
                    "% of its speed (Lee et al. 2025: 18.9% slower on average on A100/H100/MI250/MI210; DeepSeek-V3 "
                    "gives its overlapped all-to-all 20 of 132 SMs), counted in the dim's exposed time");
    notes.push_back(pace_note(hw.speed_spread, s.cluster.gpu_count()));
    for (const std::string& src : hw.sources) notes.push_back("sources: " + src);
    const StateBytesPerParam per = state_bytes_per_param(s.training);
    notes.push_back("precision " + std::string(to_string(s.training.precision)) + ": " +
                    format_fixed(per.weights, 0) + " + " + format_fixed(per.grads, 0) + " + " +
                    format_fixed(per.optimizer, 0) + " = " + format_fixed(per.total(), 0) +
                    " bytes per parameter (weights + gradients + optimizer)" +
                    (s.training.bf16_adam_moments ? "; Adam's moments in bf16" : "") +
                    (grad_reduce_in_bf16_on(s.training)
                         ? "; gradients accumulated and reduced in bf16 (--grad-reduce-in-bf16)"
                         : "") +
                    (s.training.precision != Precision::fp8 ? ""
                     : fp8_param_gather_on(s.training)
                         ? "; FP8 parameters (--fp8-param-gather): the blocks' weights kept and all-gathered in FP8 "
                           "alone, 1 byte (the embedding and the BF16 output layer keep 2)"
                         : "; the FP8 weight copy only for the blocks' linears (the embedding and the BF16 output "
                           "layer keep 2), and weights are gathered in BF16"));
    if (s.model.has_architecture()) notes.push_back(activation_note(s));
    notes.push_back("memory: judged against " + format_memory(hw.capacity_bytes) +
                    " (what the card exposes); reserved = " + format_fixed(hw.reserve_bytes / (1024.0 * 1024 * 1024), 1) +
                    " GiB runtime (CUDA context, NCCL buffers) + 5% allocator slack");
    if (s.parallel.zero == 3) notes.push_back(zero3_note(effective_zero_impl(s.parallel, s.training.fused_kernels)));
    else if (s.parallel.zero == 2)
        notes.push_back("ZeRO-2 as DeepSpeed and FSDP's SHARD_GRAD_OP run it: each GPU keeps only its gradient slice, "
                        "so gradients are reduce-scattered after every micro-batch's backward, block by block; the "
                        "updated weights are all-gathered once per step");
    else if (s.parallel.zero == 1)
        notes.push_back("ZeRO-1: full gradients accumulate over the micro-batches and are reduce-scattered once per "
                        "step, after the last backward, and the updated weights all-gathered (Megatron-LM's "
                        "distributed optimizer)");
    if (s.parallel.zero >= 2 && s.parallel.dp_shard * s.parallel.cp > 1 &&
        effective_zero_impl(s.parallel.zero >= 3 ? s.parallel : ParallelSpec{}, s.training.fused_kernels) ==
            ZeroImpl::fsdp2)
        notes.push_back(std::string("PyTorch's FSDP (FSDP2) on flat buffers it copies through: ") +
                        (s.parallel.zero == 3 ? "each gathered block's weights copied out into their own tensors, "
                                                "forward and backward, at 650 GB/s (compute time), and " : "") +
                        "each block's gradients copied into the reduce-scatter's input at 250 GB/s (with the "
                        "reduce-scatter), as the PyTorch developers measured them; FSDP1, Megatron-FSDP and "
                        "DeepSpeed copy nothing");
    if (flash && s.training.recompute == Recompute::selective && !op_level_selective(s.training) &&
        s.training.recompute_modules.core_attn)
        notes.push_back("recompute selective with flash attention re-runs the attention core but saves no memory: "
                        "flash stores no scores to drop");
    return notes;
}

}  // namespace

PipelineSpec simulated_pipeline_spec(PipelineSpec spec) {
    if (pipeline_spec_error(spec).empty()) return spec;
    spec.schedule = Schedule::one_f_one_b;
    spec.virtual_stages = 1;
    for (StageCost& c : spec.costs) c = StageCost{c.f, c.b + c.w, 0};
    return spec;
}

std::vector<double> PipelineMemo::key_of(const PipelineSpec& spec) {
    std::vector<double> key = {static_cast<double>(spec.schedule), static_cast<double>(spec.stages),
                               static_cast<double>(spec.microbatches), static_cast<double>(spec.virtual_stages),
                               spec.p2p_time};
    key.reserve(key.size() + 3 * spec.costs.size());
    for (const StageCost& c : spec.costs) {
        key.push_back(c.f);
        key.push_back(c.b);
        key.push_back(c.w);
    }
    return key;
}

const PipelineProgram& PipelineMemo::program(const PipelineSpec& spec) {
    const PipelineProgram::Shape shape = PipelineProgram::shape_of(spec);
    if (const auto it = programs_.find(shape); it != programs_.end()) return it->second;
    if (program_ops_ >= kMaxProgramOps) {  // bound the memory, keep it simple
        programs_.clear();
        program_ops_ = 0;
    }
    PipelineProgram compiled = PipelineProgram::compile(spec);
    program_ops_ += compiled.op_count();
    return programs_.emplace(shape, std::move(compiled)).first->second;
}

StepFlops step_flops(const Scenario& s, const ParamCounts& counts) noexcept {
    const ModelSpec& m = s.model;
    if (!m.has_architecture()) return {};
    const double tokens = as_double(s.training.global_batch) * as_double(m.seq_len);
    // The attention core's forward with the full s x s scores: QK^T and PV, 2 x seq x heads x (qk + v
    // head widths) a token (4 x seq x heads x head_dim when the widths are equal).
    const double widths = as_double(m.heads) * as_double(m.qk_head_dim() + m.value_head_dim());
    // An MTP module's block attends as the others do.
    const double scores_forward = 2.0 * as_double(m.layers + counts.mtp_layers) * widths * as_double(m.seq_len) * tokens;
    // The input embedding is a lookup (a gather), not a matmul: counted in neither figure, as
    // Megatron-LM's formula counts the output layer's vocab x hidden but not the input's. Counted in
    // the model FLOPs it let a 1-layer model with a large vocabulary pass 100% MFU. Tied, the one
    // matrix is also the output layer, a matmul.
    // Each MTP module sends every token through the output layer once more (Megatron-LM's
    // num_floating_point_operations: "MTP + final logit"); its block and projection are in the active
    // parameters.
    const double head = counts.tied_output ? counts.embedding : counts.output;
    const double matmul_params = counts.active_per_token - (counts.tied_output ? 0.0 : counts.embedding) +
                                 as_double(counts.mtp_layers) * head;
    StepFlops f;
    f.model = 6.0 * matmul_params * tokens + 3.0 * scores_forward;
    // What the kernels execute: causal flash attention runs half the scores forward and 2.5x that
    // backward (it recomputes them); eager runs all of them, backward 2x.
    const bool flash = s.training.attention == AttentionKernel::flash;
    const double executed_forward = flash ? scores_forward / 2.0 : scores_forward;
    f.hardware = 6.0 * matmul_params * tokens + executed_forward * (flash ? 3.5 : 3.0);
    if (s.training.recompute == Recompute::full) {
        double blocks = 0;
        for (int64_t i = 0; i < m.layers; ++i) blocks += active_block_params(counts, m, i);
        // The block method re-runs only some blocks of each stage: their share of the forward.
        double rerun = 0;
        for (int64_t stage = 0; stage < s.parallel.pp; ++stage) {
            const int64_t on_stage = stage_params(counts, s.parallel, stage).layers.count;
            rerun += static_cast<double>(recomputed_blocks(s.training, on_stage, chunks_per_stage(s.training)).rerun);
        }
        const double share = m.layers > 0 ? rerun / static_cast<double>(m.layers) : 1.0;
        f.hardware += share * (2.0 * blocks * tokens + executed_forward);
    } else if (op_level_selective(s.training)) {
        const int64_t moe_layers = m.is_moe() ? std::max<int64_t>(0, m.layers - m.dense_layers) : 0;
        f.hardware += tokens * (static_cast<double>(m.layers - moe_layers) * op_policy_recomputed_flops_per_token(m, false) +
                                static_cast<double>(moe_layers) * op_policy_recomputed_flops_per_token(m, true));
    } else if (s.training.recompute == Recompute::selective) {
        if (s.training.recompute_modules.core_attn) f.hardware += executed_forward;
        f.hardware += tokens * as_double(m.layers) * megatron_module_recomputed_flops_per_token(m, s.training.recompute_modules);
    }
    return f;
}

int64_t microbatches_per_step(const Scenario& s, int64_t effective_dp_replicate) noexcept {
    const int64_t per = s.training.micro_batch * s.parallel.dp_shard * effective_dp_replicate;
    if (per <= 0 || s.training.global_batch % per != 0) return 0;
    return s.training.global_batch / per;
}

PipelineSpec scenario_pipeline_spec(const Scenario& s) {
    return scenario_pipeline_spec(s, count_params(s.model), DeviceMesh::build(s.cluster, s.parallel));
}

PipelineSpec scenario_pipeline_spec(const Scenario& s, const ParamCounts& counts, const DeviceMesh& mesh) {
    const int64_t m = microbatches_per_step(s, mesh.effective().dp_replicate);
    return plan_pipeline(make_context(s, counts, mesh), std::max<int64_t>(1, m)).spec;
}

namespace {

bool same_blocks(const StageBlocks& a, const StageBlocks& b) noexcept {
    return a.dense == b.dense && a.moe == b.moe && a.embedding == b.embedding && a.output == b.output &&
           a.rerun_dense == b.rerun_dense && a.rerun_moe == b.rerun_moe;
}

}  // namespace

namespace {

// A pipeline spec of each stage's compute, priced by `price(blocks)` (StageSeconds), stage by stage.
template <typename Price>
PipelineSpec stage_compute_spec(const Scenario& s, const ParamCounts& counts, Price&& price) {
    const ParallelSpec& p = s.parallel;
    const int64_t leftover = DeviceMesh::leftover_factor(s.cluster, p);
    PipelineSpec spec;
    spec.schedule = s.training.schedule;
    spec.stages = static_cast<int>(p.pp);
    const int64_t m = std::max<int64_t>(1, microbatches_per_step(s, p.dp_replicate * leftover));
    spec.microbatches = static_cast<int>(std::min<int64_t>(m, std::numeric_limits<int>::max()));
    spec.virtual_stages = static_cast<int>(s.training.virtual_stages);
    spec.costs.reserve(static_cast<std::size_t>(p.pp));
    StageBlocks previous{-1, -1, false, false};
    for (int64_t st = 0; st < p.pp; ++st) {
        const StageParams params = stage_params(counts, p, st);
        const int64_t mtp_moe = counts.mtp_is_moe() ? params.mtp : 0;
        const int64_t moe = block_kinds(counts, params.layers).moe + mtp_moe;
        const StageBlocks blocks = priced_blocks(s.training, params.layers.count + params.mtp, moe, params.mtp, st == 0,
                                                 st == p.pp - 1);
        if (st > 0 && same_blocks(blocks, previous)) {
            spec.costs.push_back(spec.costs.back());
            continue;
        }
        previous = blocks;
        const StageSeconds sc = price(blocks);
        const double b = sc.backward_s;
        spec.costs.push_back(splits_backward(spec.schedule) ? StageCost{sc.forward_s, b / 2, b / 2}
                                                            : StageCost{sc.forward_s, b, 0});
    }
    return spec;
}

// The same figures make_context takes: the world a mesh of this layout would have.
const HardwareFigures& layout_hardware_figures(const Scenario& s) {
    const int64_t leftover = DeviceMesh::leftover_factor(s.cluster, s.parallel);
    return paced_hardware_figures(s.cluster.gpu, std::max<int64_t>(1, s.parallel.product()) * leftover);
}

}  // namespace

PipelineSpec compute_pipeline_spec(const Scenario& s, const ParamCounts& counts) {
    const HardwareFigures& hw = layout_hardware_figures(s);
    return stage_compute_spec(s, counts, [&](const StageBlocks& blocks) { return stage_seconds(s, s.parallel, hw, blocks); });
}

LayoutBlockFloors layout_block_floors(const Scenario& s) {
    const HardwareFigures& hw = layout_hardware_figures(s);
    return {block_floor(s, s.parallel, hw, false), block_floor(s, s.parallel, hw, true)};
}

PipelineSpec compute_pipeline_floor_spec(const Scenario& s, const ParamCounts& counts, const LayoutBlockFloors& floors) {
    const double b = static_cast<double>(s.training.micro_batch);
    const double dense_f = floors.dense.forward.at(b), dense_b = floors.dense.backward.at(b);
    const double moe_f = floors.moe.forward.at(b), moe_b = floors.moe.backward.at(b);
    return stage_compute_spec(s, counts, [&](const StageBlocks& blocks) {
        const auto dense = static_cast<double>(blocks.dense), moe = static_cast<double>(blocks.moe);
        return StageSeconds{dense * dense_f + moe * moe_f, dense * dense_b + moe * moe_b};
    });
}

OverlapCost overlap_cost(double comm_s, double compute_s, double loss) noexcept {
    const double past = std::max(0.0, comm_s - compute_s);
    return OverlapCost{past, std::max(past, loss * comm_s) - past};
}

StepEndTimes step_end_times(const Scenario& s, const ParamCounts& counts, const DeviceMesh& mesh, int64_t stage) {
    const Context cx = make_context(s, counts, mesh);
    const StepEndComm end = step_end_comm(cx, stage);
    return StepEndTimes{end.reduce_s, end.gather_s, cx.hw.overlap_compute_loss};
}

namespace {

// One micro-batch's compute on stage `stage` by operation: its kernels (stage_compute, priced when the
// stage was) and FSDP2's copy-out on the compute stream.
OpTimes stage_ops(const Context& cx, const StageComm& sc, std::size_t stage) {
    const auto index = static_cast<int64_t>(stage);
    OpTimes ops = stage_compute(cx.s, cx.par, cx.hw,
                                priced_blocks(cx.s.training, sc.layers, sc.moe_layers, sc.mtp, index == 0,
                                              index == cx.par.pp - 1))
                      .ops;
    OpFigures& copies = ops[static_cast<std::size_t>(StepOp::fsdp_copies)];
    copies.forward_s = copies.backward_s = sc.fsdp_copy_out_s;
    copies.hbm_bound_s = 2.0 * sc.fsdp_copy_out_s;  // a copy streams through memory
    return ops;
}

// The busiest GPU's compute over a step by operation: `mb` micro-batches, half of them its mirror
// stage's under DualPipe (the mirror is the stage itself otherwise), and the optimizer step.
OpTimes step_breakdown(const OpTimes& stage, const OpTimes& mirror, double mb, double optimizer_s, bool on_host) {
    OpTimes out{};
    add_ops(out, stage, mb / 2);
    add_ops(out, mirror, mb / 2);
    OpFigures& opt = out[static_cast<std::size_t>(StepOp::optimizer)];
    opt.forward_s = optimizer_s;
    // Adam streams its state through HBM (optimizer_step_seconds), or the host steps it.
    (on_host ? opt.host_bound_s : opt.hbm_bound_s) = optimizer_s;
    return out;
}

MoeFigures moe_figures(const Context& cx, const OpTimes& step, double compute, int64_t moe_blocks,
                       const std::vector<DimCost>& dims) {
    MoeFigures f;
    f.blocks = moe_blocks;
    const ExpertLoad load = expert_load(cx.s, cx.par);
    f.tokens_per_expert = load.tokens_per_expert;
    f.local_experts = load.local_experts;
    const OpFigures& experts = step[static_cast<std::size_t>(StepOp::routed_experts)];
    if (experts.time_s() > 0) {
        f.expert_gemm_flops_per_s = (experts.flops + experts.rerun_flops) / experts.time_s();
        f.expert_gemm_share_of_peak = f.expert_gemm_flops_per_s / (training_peak_tflops(cx.s) * 1e12);
    }
    for (const DimCost& d : dims)
        if (d.name == "ep") {
            f.all_to_all_s = d.time_s;
            f.all_to_all_exposed_s = d.exposed_s;
        }
    for (std::size_t i = 0; i < kStepOpCount; ++i)
        if (is_moe_part(static_cast<StepOp>(i))) f.mixture_s += step[i].time_s();
    f.mixture_share_of_compute = compute > 0 ? f.mixture_s / compute : 0.0;
    return f;
}

}  // namespace

Report build_report(const Scenario& s) {
    return build_report(s, count_params(s.model), DeviceMesh::build(s.cluster, s.parallel));
}

Report build_report(const Scenario& s, const ParamCounts& counts, const DeviceMesh& mesh) {
    return build_report(s, counts, mesh, nullptr);
}

Report build_report(const Scenario& s, const ParamCounts& counts, const DeviceMesh& mesh, PipelineMemo* shared,
                    ReportDetail detail) {
    // Without a caller's memo, one of its own: the two simulations below (with and without p2p time)
    // share one compiled schedule.
    PipelineMemo own;
    PipelineMemo& memo = shared ? *shared : own;
    Report r;
    const ParallelSpec& p = mesh.effective();
    const bool arch = s.model.has_architecture();

    const Context cx = make_context(s, counts, mesh);

    r.world_size = mesh.world_size();
    r.leftover_dp_replicate = mesh.leftover_factor();
    r.params_total = counts.total;
    r.params_active = counts.active_per_token;
    r.gpu_memory_bytes = cx.hw.capacity_bytes;
    if (mesh.leftover_factor() > 1) {
        std::ostringstream os;
        os << "tp*cp*pp*dp_shard*dp_replicate = " << s.parallel.product() << " leaves GPUs over: dp_replicate grows from "
           << s.parallel.dp_replicate << " to " << p.dp_replicate;
        r.notes.push_back(os.str());
    }
    if (mesh.is_hsdp()) r.notes.push_back("HSDP: dp_shard groups inside nodes, dp_replicate across nodes");
    if (p.tp > 1 && mesh.summary(Dim::tp).links != DimLinks::intra)
        r.notes.push_back("tp groups span nodes: every block's collectives cross the inter-node link");

    int64_t m = microbatches_per_step(s, p.dp_replicate);
    if (m == 0) {
        r.notes.push_back("training.global_batch does not split into whole micro-batches: using 1");
        m = 1;
    }
    r.microbatches = m;

    // Per-stage work, the exposed part of each op, and the schedule.
    const PlannedPipeline plan = plan_pipeline(cx, m);
    const PipelineSpec& spec = plan.spec;
    r.pipeline = spec;
    const PipelineMemo::Simulated timeline = simulated(spec, memo);
    r.notes.insert(r.notes.end(), timeline.notes.begin(), timeline.notes.end());
    std::vector<double> inflight = timeline.peak_activation_microbatches;

    // Memory: every stage, the most loaded one reported.
    r.stages = memory_per_stage(s, counts, inflight);
    const StageMemory& heaviest = most_loaded(r.stages);
    r.most_loaded_stage = heaviest.stage;
    r.memory = heaviest.bytes;
    r.fits = r.memory.total() <= r.gpu_memory_bytes;
    if (!r.fits) r.notes.push_back("does not fit: the most loaded GPU needs " + format_memory(r.memory.total()) +
                                   " of " + format_memory(r.gpu_memory_bytes));
    if (cx.host) {
        r.host = host_offload_memory(s, *cx.host, r.stages);
        if (!r.host->fits)
            r.notes.push_back("does not fit on the host: its GPUs' offloaded optimizers need " +
                              format_memory(r.host->bytes_per_node) + " of the node's " +
                              format_memory(r.host->capacity_bytes));
        r.fits = r.fits && r.host->fits;
    }

    // The busiest stage governs time.
    std::size_t busiest = 0;
    for (std::size_t i = 1; i < timeline.busy.size(); ++i)
        if (timeline.busy[i] > timeline.busy[busiest]) busiest = i;
    const StepEndComm end = step_end_comm(cx, static_cast<int64_t>(busiest));
    const StageComm& sc = plan.stage(busiest);
    const Exposed& ex = plan.exposed(busiest);
    const double mb = as_double(m);

    // Step-end data-parallel rule: hidden under the last micro-batch's backward.
    const double loss = cx.hw.overlap_compute_loss;
    const OverlapCost reduce = overlap_cost(end.reduce_s, sc.work.backward_s, loss);
    const double reduce_exposed = reduce.past;
    const double step_end_exposed = StepEndTimes{end.reduce_s, end.gather_s, loss}.exposed(sc.work.backward_s);
    // The contention of the reduction, shared by the dims in proportion to their part of it.
    const auto reduce_contention = [&](double part_s) {
        return end.reduce_s > 0 ? reduce.contention * part_s / end.reduce_s : 0.0;
    };

    // The dims table (per GPU of the busiest stage, per step).
    const auto per_step = [mb](std::vector<CollectiveCall> calls) {
        for (CollectiveCall& c : calls) c.calls_per_step *= mb;
        return calls;
    };
    const auto dim_entry = [&](Dim d, double bytes, double time, double exposed_s, double contention_s) {
        DimCost dc;
        dc.name = std::string(to_string(d));
        dc.size = mesh.size(d);
        dc.groups = mesh.group_count(d);
        dc.link = std::string(to_string(mesh.summary(d).links));
        dc.collective = dim_collective(d, p);
        dc.bytes_per_step = bytes;
        dc.time_s = time;
        dc.exposed_s = exposed_s;
        dc.contention_s = contention_s;
        return dc;
    };
    double pp_exposed = 0;
    if (p.pp > 1 && arch) {
        PipelineSpec no_p2p = spec;
        no_p2p.p2p_time = 0;
        pp_exposed = std::max(0.0, timeline.makespan - simulated(no_p2p, memo).makespan);
    }
    const double pp_msg_bytes = spec.p2p_time > 0 ? as_double(s.training.micro_batch) * as_double(s.model.seq_len) /
                                                        as_double(p.cp) * as_double(s.model.hidden) * cx.act_bytes /
                                                        as_double(p.tp)
                                                  : 0.0;
    const auto both = [mb](const OverlapCost& f, const OverlapCost& b) {
        return OverlapCost{mb * (f.past + b.past), mb * (f.contention + b.contention)};
    };
    for (Dim d : p.order) {
        switch (d) {
            case Dim::tp: {
                const OverlapCost c = both(ex.tp_f, ex.tp_b);
                r.dims.push_back(dim_entry(d, mb * sc.tp_bytes, mb * (sc.work.tp_forward_s + sc.work.tp_backward_s),
                                           c.total(), c.contention));
                r.dims.back().calls = per_step(sc.tp_calls);
                break;
            }
            case Dim::cp: {
                const OverlapCost c = both(ex.cp_f, ex.cp_b);
                r.dims.push_back(dim_entry(d, mb * sc.cp_bytes, mb * (sc.work.cp_forward_s + sc.work.cp_backward_s),
                                           c.total(), c.contention));
                r.dims.back().calls = per_step(sc.cp_calls);
                break;
            }
            case Dim::dp_shard: {
                const OverlapCost c = both(ex.fsdp_f, ex.fsdp_b);
                const double fsdp_time = mb * (sc.work.fsdp_forward_s + sc.work.fsdp_backward_s);
                const double shard_contention = end.shard_s > 0 ? reduce_contention(end.reduce_s - end.replicate_s) : 0;
                const double end_exposed =
                    end.shard_s > 0 ? end.gather_s + std::max(0.0, reduce_exposed - end.replicate_s) + shard_contention : 0;
                r.dims.push_back(dim_entry(d, mb * sc.fsdp_bytes + end.shard_bytes, fsdp_time + end.shard_s,
                                           c.total() + end_exposed, c.contention + shard_contention));
                r.dims.back().calls = per_step(sc.fsdp_calls);
                r.dims.back().calls.insert(r.dims.back().calls.end(), end.shard_calls.begin(), end.shard_calls.end());
                break;
            }
            case Dim::dp_replicate: {
                const double contention = reduce_contention(end.replicate_s);
                r.dims.push_back(dim_entry(d, end.replicate_bytes, end.replicate_s,
                                           std::min(end.replicate_s, reduce_exposed) + contention, contention));
                r.dims.back().calls = end.replicate_calls;
                break;
            }
            case Dim::pp: {
                // A middle stage sends each micro-batch's activation forward and its gradient back, once
                // per model chunk it holds: interleaving v chunks multiplies the point-to-point traffic
                // by v (Narayanan et al. 2021, section 2.2).
                const double sends = 2.0 * mb * as_double(chunks_per_stage(s.training));
                r.dims.push_back(dim_entry(d, sends * pp_msg_bytes, sends * spec.p2p_time, pp_exposed, 0.0));
                if (pp_msg_bytes > 0) r.dims.back().calls = {{Collective::p2p, pp_msg_bytes, sends}};
                break;
            }
            case Dim::ep: break;  // not in parallel.order: its entry follows
        }
    }
    move_reduction_off_single_ranks(r.dims);
    if (p.ep > 1) {
        const OverlapCost c = both(ex.ep_f, ex.ep_b);
        DimCost dc;
        dc.name = "ep";
        dc.size = p.ep;
        dc.groups = mesh.ep_group_count();
        dc.link = std::string(to_string(mesh.ep_summary().links));
        dc.collective = dim_collective(Dim::ep, p);
        dc.bytes_per_step = mb * sc.ep_bytes;
        dc.time_s = mb * (sc.work.ep_forward_s + sc.work.ep_backward_s);
        dc.exposed_s = c.total();
        dc.contention_s = c.contention;
        dc.calls = per_step(sc.ep_calls);
        r.dims.push_back(dc);
    }

    if (!arch) {
        r.notes.push_back("model given as a parameter count only: activations, FLOPs and times need the "
                          "architecture and are null");
        add_run_figures(s, r);
        return r;
    }

    const StepFlops flops = step_flops(s, counts);
    r.model_flops_per_step = flops.model;
    r.hardware_flops_per_step = flops.hardware;
    r.conventions = convention_notes(s, cx.hw);
    r.notes.insert(r.notes.end(), r.conventions.begin(), r.conventions.end());

    // The optimizer steps after the last gradient is reduced, on the parameters this GPU's optimizer
    // holds (sharded by ZeRO 1-3).
    r.stage_work = stage_step_work(cx, plan);
    const double optimizer_s = r.stage_work[busiest].optimizer_s;
    if (r.host) price_host_step(cx, static_cast<int64_t>(busiest), *r.host, r.notes);
    // The step ends when the last stage has reduced its gradients and stepped its optimizer.
    double longest_end = 0;
    for (const StageStepWork& w : r.stage_work) longest_end = std::max(longest_end, w.end_s());
    // DualPipe sends half the micro-batches each way: a device runs its own stage's layers for one
    // half and the mirror stage's (pp - 1 - its index) for the other.
    const std::size_t mirror = spec.schedule == Schedule::dualpipe ? plan.price_of.size() - 1 - busiest : busiest;
    const StageComm& msc = plan.stage(mirror);
    const Exposed& mex = plan.exposed(mirror);
    // Grouped so that a device whose mirror is itself gets its own figure back exactly.
    const double work_per_mb = ((sc.work.forward_s + sc.work.backward_s) + (msc.work.forward_s + msc.work.backward_s)) / 2;
    const double compute = mb * work_per_mb + optimizer_s;
    const double per_mb_exposed = mb * ((ex.forward() + ex.backward()) + (mex.forward() + mex.backward())) / 2;
    const double step = timeline.makespan + longest_end;
    const double exposed_comm = per_mb_exposed + pp_exposed + step_end_exposed;
    r.time.compute = compute;
    if (detail == ReportDetail::full) {
        r.breakdown = step_breakdown(stage_ops(cx, sc, busiest), stage_ops(cx, msc, mirror), mb, optimizer_s,
                                     cx.host.has_value());
        if (sc.moe_layers > 0 || msc.moe_layers > 0) r.moe = moe_figures(cx, *r.breakdown, compute, sc.moe_layers, r.dims);
    }
    r.time.exposed_comm = exposed_comm;
    r.time.bubble = std::max(0.0, step - compute - exposed_comm);
    r.time.step = step;
    r.bubble_fraction = timeline.bubble_fraction;

    const double world = as_double(r.world_size);
    const double tokens = as_double(s.training.global_batch) * as_double(s.model.seq_len);
    r.throughput.tokens_per_s = tokens / step;
    r.throughput.model_tflops_per_gpu = flops.model / (step * world) / 1e12;
    r.throughput.hardware_tflops_per_gpu = flops.hardware / (step * world) / 1e12;
    // Against the peak of the dtype the GEMMs run in: FP8 GEMMs at the BF16 peak would pass 100%.
    const double peak_tflops = training_peak_tflops(s);
    r.throughput.mfu = flops.model / (step * world * peak_tflops * 1e12);
    if (*r.throughput.mfu > 1) {
        // Megatron's convention counts the half of the scores causal masking skips; when attention
        // dominates and its kernel is fast, that is more FLOPs than the peak allows in the step.
        r.notes.push_back("MFU: not reported; the convention counts " + format_fixed(*r.throughput.mfu * 100, 1) +
                          "% of the peak here, because it counts the masked half of the attention scores that the "
                          "kernels skip and attention dominates this step");
        r.throughput.mfu.reset();
        r.throughput.model_tflops_per_gpu.reset();
    } else if (*r.throughput.mfu > 0.9) {
        // A figure this close to the peak is read as a mistake unless it says how it was counted.
        r.notes.push_back("MFU " + format_fixed(*r.throughput.mfu * 100, 1) + "%: model FLOPs (6 x active params x "
                          "tokens plus the attention scores in full, not halved for causal masking) over the " +
                          std::string(s.training.precision == Precision::fp8 ? "FP8" : "dense") + " peak of " +
                          format_fixed(peak_tflops, 0) + " TFLOP/s; the kernels skip the masked half of the scores");
    }
    add_run_figures(s, r);
    return r;
}

double training_peak_tflops(const Scenario& s) noexcept {
    switch (s.training.precision) {
        case Precision::fp8: return s.cluster.gpu.peak_fp8_tflops;
        case Precision::fp32: return hardware_figures(s.cluster.gpu).peak_fp32_flops / 1e12;
        default: return s.cluster.gpu.peak_tflops;
    }
}

namespace {

bool finite_and_at_least_zero(double v) noexcept { return std::isfinite(v) && v >= 0; }

std::string memory_invariant_violation(const Report& r) {
    const MemoryBreakdown& m = r.memory;
    for (const double part : {m.params, m.grads, m.optimizer, m.activations.value_or(0), m.other, m.reserved})
        if (!finite_and_at_least_zero(part)) return "memory: a part is negative or not finite";
    const double parts = m.params + m.grads + m.optimizer + m.activations.value_or(0) + m.other + m.reserved;
    if (std::fabs(parts - m.total()) > 1e-9 * m.total()) return "memory: the parts do not sum to the total";
    for (const StageMemory& st : r.stages)
        if (st.bytes.total() > m.total()) return "memory: stage " + std::to_string(st.stage) + " holds more than the most loaded";
    return {};
}

}  // namespace

std::string report_invariant_violation(const Scenario& s, const Report& r) {
    if (auto e = memory_invariant_violation(r); !e.empty()) return e;
    if (!s.model.has_architecture()) return {};  // no FLOPs, so no times to check
    const double step = r.time.step.value_or(0), compute = r.time.compute.value_or(0);
    if (!(std::isfinite(step) && step > 0)) return "time.step: " + format_fixed(step, 6) + " s is not positive and finite";
    // Rounding of sums taken in another order: a relative hair.
    if (compute > step * (1 + 1e-9))
        return "time.step: " + format_fixed(step, 6) + " s is shorter than the busiest stage's compute (" +
               format_fixed(compute, 6) + " s)";
    const double by_op = r.breakdown ? total_time_s(*r.breakdown) : compute;
    if (std::fabs(by_op - compute) > 1e-9 * compute)
        return "breakdown: its operations sum to " + format_fixed(by_op, 6) + " s, not time.compute (" +
               format_fixed(compute, 6) + " s)";
    // MFU may be left out, with a note saying why (build_report), but never shown above 100%.
    if (r.throughput.mfu && !(*r.throughput.mfu > 0 && *r.throughput.mfu <= 1))
        return "throughput.mfu: " + format_fixed(*r.throughput.mfu, 4) + " is not in (0, 1]";
    const double peak = training_peak_tflops(s);
    const double hardware = r.throughput.hardware_tflops_per_gpu.value_or(0);
    if (!(hardware > 0 && hardware <= peak))
        return "throughput.hardware_tflops_per_gpu: " + format_fixed(hardware, 1) + " is not in (0, peak " +
               format_fixed(peak, 1) + "]";
    return {};
}

ReportResult report_from_json(std::string_view scenario_json) {
    ReportResult out;
    ScenarioLoad load = parse_scenario(scenario_json);
    if (!load.ok()) {
        out.error = load.error;
        return out;
    }
    out.report = build_report(*load.scenario);
    return out;
}

Fsdp2Copies fsdp2_copies(const HardwareFigures& hw, double params, double units, bool gathers, double gathered_bytes,
                         double grad_bytes) noexcept {
    // Rates as the PyTorch developers measured them: copy-out 650-700 GB/s
    // (github.com/pytorch/pytorch/pull/115515), copy-in about 250 GB/s (pull/117975); one kernel per
    // unit, each at least the kernel floor.
    constexpr double kCopyOutBytesPerS = 650e9;
    constexpr double kCopyInBytesPerS = 250e9;
    Fsdp2Copies out;
    if (params <= 0 || units <= 0) return out;
    const auto per_unit = [&](double bytes, double rate) { return units * std::max(bytes / units / rate, hw.kernel_floor_s); };
    if (gathers) out.copy_out_s = per_unit(params * gathered_bytes, kCopyOutBytesPerS);
    out.copy_in_s = per_unit(params * grad_bytes, kCopyInBytesPerS);
    return out;
}

}  // namespace shardscope
