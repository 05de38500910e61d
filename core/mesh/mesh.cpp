#include "core/mesh/mesh.hpp"

#include <algorithm>

namespace shardscope {


std::string_view to_string(DimLinks v) noexcept {
    switch (v) {
        case DimLinks::none: return "none";
        case DimLinks::intra: return "intra";
        case DimLinks::inter: return "inter";
        case DimLinks::mixed: return "mixed";
    }
    return "none";
}

namespace {

DimLinks classify(int64_t size, int64_t intra, int64_t inter) noexcept {
    if (size <= 1) return DimLinks::none;
    if (inter == 0) return DimLinks::intra;
    if (intra == 0) return DimLinks::inter;
    return DimLinks::mixed;
}

}  // namespace

int64_t DeviceMesh::leftover_factor(const ClusterSpec& cluster, const ParallelSpec& parallel) noexcept {
    // A scenario that passed validation has product | gpu_count; the guard keeps an unvalidated one
    // from dividing by zero (it then gets no leftover replicas).
    const int64_t product = std::max<int64_t>(1, parallel.product());
    const int64_t gpus = cluster.gpu_count();
    return (gpus >= product && gpus % product == 0) ? gpus / product : 1;
}

DeviceMesh DeviceMesh::build(const ClusterSpec& cluster, const ParallelSpec& parallel) {
    DeviceMesh m;
    m.gpus_per_node_ = std::max<int64_t>(1, cluster.gpus_per_node);
    m.effective_ = parallel;
    m.requested_dp_replicate_ = parallel.dp_replicate;
    m.leftover_factor_ = leftover_factor(cluster, parallel);
    m.effective_.dp_replicate *= m.leftover_factor_;
    m.world_ = std::max<int64_t>(1, parallel.product()) * m.leftover_factor_;

    int64_t stride = 1;
    for (Dim d : m.effective_.order) {
        m.size_[mesh_axis(d)] = m.effective_.factor(d);
        m.stride_[mesh_axis(d)] = stride;
        stride *= m.effective_.factor(d);
    }
    m.summarise();
    return m;
}

MeshCoords DeviceMesh::coords_of(int64_t rank) const noexcept {
    MeshCoords c{};
    for (Dim d : effective_.order) {
        const size_t i = mesh_axis(d);
        c[i] = (rank / stride_[i]) % size_[i];
    }
    return c;
}

int64_t DeviceMesh::rank_of(const MeshCoords& c) const noexcept {
    int64_t rank = 0;
    for (size_t i = 0; i < c.size(); ++i) rank += c[i] * stride_[i];
    return rank;
}

int64_t DeviceMesh::rest_index(const MeshCoords& c, Dim skip_a, Dim skip_b) const noexcept {
    int64_t rest = 0;
    for (auto it = effective_.order.rbegin(); it != effective_.order.rend(); ++it) {
        if (*it == skip_a || *it == skip_b) continue;
        rest = rest * size_[mesh_axis(*it)] + c[mesh_axis(*it)];
    }
    return rest;
}

MeshCoords DeviceMesh::rest_coords(int64_t rest, Dim skip_a, Dim skip_b) const noexcept {
    MeshCoords c{};
    for (Dim d : effective_.order) {
        if (d == skip_a || d == skip_b) continue;
        c[mesh_axis(d)] = rest % size_[mesh_axis(d)];
        rest /= size_[mesh_axis(d)];
    }
    return c;
}

int64_t DeviceMesh::group_of(Dim d, int64_t rank) const noexcept {
    return rest_index(coords_of(rank), d, d);
}

int64_t DeviceMesh::member(Dim d, int64_t group, int64_t index) const noexcept {
    MeshCoords c = rest_coords(group, d, d);
    c[mesh_axis(d)] = index;
    return rank_of(c);
}

std::vector<int64_t> DeviceMesh::members(Dim d, int64_t group) const {
    std::vector<int64_t> out(static_cast<size_t>(size(d)));
    for (int64_t i = 0; i < size(d); ++i) out[static_cast<size_t>(i)] = member(d, group, i);
    return out;
}

LinkClass DeviceMesh::group_link(Dim d, int64_t group) const noexcept {
    // Members ascend in rank with their coordinate, so the first and last bound the node span.
    return span_link(member(d, group, 0), member(d, group, size(d) - 1));
}

RankGroups DeviceMesh::groups_of(int64_t rank) const noexcept {
    RankGroups g;
    const MeshCoords c = coords_of(rank);
    for (Dim d : kMeshDims) g.group[mesh_axis(d)] = rest_index(c, d, d);
    g.ep_group = ep_group_of(rank);
    return g;
}

bool DeviceMesh::is_hsdp() const noexcept {
    return size(Dim::dp_shard) > 1 && size(Dim::dp_replicate) > 1 &&
           summary(Dim::dp_shard).links == DimLinks::intra &&
           summary(Dim::dp_replicate).links == DimLinks::inter;
}

// Of cp and dp_shard, the one listed first in `order` is the inner (smaller stride) one.
Dim DeviceMesh::ep_inner() const noexcept {
    for (Dim d : effective_.order)
        if (d == Dim::cp || d == Dim::dp_shard) return d;
    return Dim::cp;
}

Dim DeviceMesh::ep_outer() const noexcept {
    return ep_inner() == Dim::cp ? Dim::dp_shard : Dim::cp;
}

int64_t DeviceMesh::ep_group_of(int64_t rank) const noexcept {
    const MeshCoords c = coords_of(rank);
    const Dim in = ep_inner(), out = ep_outer();
    // Position of the rank in its combined cp x dp_shard group, by ascending rank.
    const int64_t position = c[mesh_axis(in)] + size(in) * c[mesh_axis(out)];
    const int64_t per_combined = size(in) * size(out) / ep_size();
    return rest_index(c, in, out) * per_combined + position / ep_size();
}

int64_t DeviceMesh::ep_member(int64_t group, int64_t index) const noexcept {
    const Dim in = ep_inner(), out = ep_outer();
    const int64_t per_combined = size(in) * size(out) / ep_size();
    const int64_t position = (group % per_combined) * ep_size() + index;
    MeshCoords c = rest_coords(group / per_combined, in, out);
    c[mesh_axis(in)] = position % size(in);
    c[mesh_axis(out)] = position / size(in);
    return rank_of(c);
}

std::vector<int64_t> DeviceMesh::ep_members(int64_t group) const {
    std::vector<int64_t> out(static_cast<size_t>(ep_size()));
    for (int64_t i = 0; i < ep_size(); ++i) out[static_cast<size_t>(i)] = ep_member(group, i);
    return out;
}

LinkClass DeviceMesh::ep_group_link(int64_t group) const noexcept {
    // The outer dim's stride is at least the inner's size times its stride, so members ascend in rank.
    return span_link(ep_member(group, 0), ep_member(group, ep_size() - 1));
}

void DeviceMesh::summarise() {
    for (Dim d : kMeshDims) {
        DimSummary& s = summary_[mesh_axis(d)];
        s.size = size(d);
        s.stride = stride(d);
        s.groups = group_count(d);
        // Two exact shortcuts before the loop, which is linear in the GPU count (the planner builds a
        // mesh per layout). A group runs from its first member over stride*(size-1) ranks, inside a
        // block of stride*size ranks that starts at a multiple of stride*size: when that block divides
        // the node size every group sits in one node; when the span reaches a node's size none does.
        const int64_t span = s.stride * (s.size - 1);
        if (s.size > 1 && gpus_per_node_ % (s.stride * s.size) == 0) {
            s.intra_groups = s.groups;
        } else if (s.size > 1 && span >= gpus_per_node_) {
            s.inter_groups = s.groups;
        } else if (s.size > 1) {
            for (int64_t g = 0; g < s.groups; ++g)
                (group_link(d, g) == LinkClass::intra ? s.intra_groups : s.inter_groups) += 1;
        } else {
            s.intra_groups = s.groups;  // a lone rank never leaves its node
        }
        s.links = classify(s.size, s.intra_groups, s.inter_groups);
    }
    DimSummary& e = ep_summary_;
    e.size = ep_size();
    e.stride = stride(ep_inner());
    e.groups = ep_group_count();
    // An EP group is ep consecutive positions of the combined (inner, outer) index. When they stay
    // inside the inner dim (ep divides its size), or the outer dim sits right outside the inner one and
    // the inner size divides ep, the group is ep ranks evenly spaced by the inner stride in an aligned
    // block, like a mesh dim's group: the same two shortcuts hold.
    const int64_t in_size = size(ep_inner());
    const bool evenly_spaced = in_size % e.size == 0 ||
                               (stride(ep_outer()) == e.stride * in_size && e.size % in_size == 0);
    const int64_t span = e.stride * (e.size - 1);
    if (e.size > 1 && evenly_spaced && gpus_per_node_ % (e.stride * e.size) == 0) {
        e.intra_groups = e.groups;
    } else if (e.size > 1 && evenly_spaced && span >= gpus_per_node_) {
        e.inter_groups = e.groups;
    } else if (e.size > 1) {
        for (int64_t g = 0; g < e.groups; ++g)
            (ep_group_link(g) == LinkClass::intra ? e.intra_groups : e.inter_groups) += 1;
    } else {
        e.intra_groups = e.groups;
    }
    e.links = classify(e.size, e.intra_groups, e.inter_groups);
}

}  // namespace shardscope
