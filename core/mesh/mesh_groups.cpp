#include "core/mesh/mesh_groups.hpp"

#include <algorithm>

namespace shardscope {

namespace {

// Of cp and dp_shard, the one listed first in `order` is the inner one (core/mesh/mesh.hpp's EP rule).
Dim ep_inner_dim(const DeviceMesh& mesh) noexcept {
    for (Dim d : mesh.effective().order)
        if (d == Dim::cp || d == Dim::dp_shard) return d;
    return Dim::cp;
}

// Position of a rank in its combined cp x dp_shard group, by ascending rank.
int64_t combined_position(const DeviceMesh& mesh, int64_t rank) noexcept {
    const Dim in = ep_inner_dim(mesh);
    const Dim out = in == Dim::cp ? Dim::dp_shard : Dim::cp;
    const MeshCoords c = mesh.coords_of(rank);
    return c[mesh_axis(in)] + mesh.size(in) * c[mesh_axis(out)];
}

}  // namespace

int64_t group_size(const DeviceMesh& mesh, Dim d) noexcept {
    return is_mesh_dim(d) ? mesh.size(d) : mesh.ep_size();
}

int64_t group_count(const DeviceMesh& mesh, Dim d) noexcept {
    return is_mesh_dim(d) ? mesh.group_count(d) : mesh.ep_group_count();
}

int64_t group_of(const DeviceMesh& mesh, Dim d, int64_t rank) noexcept {
    return is_mesh_dim(d) ? mesh.group_of(d, rank) : mesh.ep_group_of(rank);
}

int64_t index_in_group(const DeviceMesh& mesh, Dim d, int64_t rank) noexcept {
    if (is_mesh_dim(d)) return mesh.coords_of(rank)[mesh_axis(d)];
    return combined_position(mesh, rank) % mesh.ep_size();
}

int64_t group_member(const DeviceMesh& mesh, Dim d, int64_t group, int64_t index) noexcept {
    return is_mesh_dim(d) ? mesh.member(d, group, index) : mesh.ep_member(group, index);
}

std::optional<int64_t> next_member(const DeviceMesh& mesh, Dim d, int64_t rank) noexcept {
    const int64_t index = index_in_group(mesh, d, rank);
    if (index + 1 >= group_size(mesh, d)) return std::nullopt;
    // A mesh dim's next member is one stride on; an EP group's is found through core's member rule.
    if (is_mesh_dim(d)) return rank + mesh.stride(d);
    return mesh.ep_member(mesh.ep_group_of(rank), index + 1);
}

LinkClass group_link(const DeviceMesh& mesh, Dim d, int64_t group) noexcept {
    return is_mesh_dim(d) ? mesh.group_link(d, group) : mesh.ep_group_link(group);
}

bool rank_group_is_intra(const DeviceMesh& mesh, Dim d, int64_t rank) noexcept {
    const int64_t size = group_size(mesh, d);
    if (size <= 1) return true;
    if (is_mesh_dim(d)) {
        // Members ascend by one stride each: the group spans [first, first + (size-1)*stride].
        const int64_t first = rank - mesh.coords_of(rank)[mesh_axis(d)] * mesh.stride(d);
        const int64_t last = first + (size - 1) * mesh.stride(d);
        return mesh.node_of(first) == mesh.node_of(last);
    }
    return mesh.ep_group_link(mesh.ep_group_of(rank)) == LinkClass::intra;
}

const DimSummary& dim_summary(const DeviceMesh& mesh, Dim d) noexcept {
    return is_mesh_dim(d) ? mesh.summary(d) : mesh.ep_summary();
}

bool group_has_member_in(const DeviceMesh& mesh, Dim d, int64_t group, int64_t first_rank,
                         int64_t end_rank) noexcept {
    if (first_rank >= end_rank) return false;
    if (is_mesh_dim(d)) {
        // A mesh dim's members are first + i * stride: the first one at or past first_rank, directly.
        const int64_t first = mesh.member(d, group, 0), stride = mesh.stride(d);
        const int64_t i = first >= first_rank ? 0 : (first_rank - first + stride - 1) / stride;
        return i < mesh.size(d) && first + i * stride < end_rank;
    }
    // EP members ascend too, but not by one stride: the lowest index whose rank is >= first_rank.
    int64_t lo = 0, hi = group_size(mesh, d);
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (group_member(mesh, d, group, mid) < first_rank) lo = mid + 1;
        else hi = mid;
    }
    return lo < group_size(mesh, d) && group_member(mesh, d, group, lo) < end_rank;
}

GroupIds groups_of_rank(const DeviceMesh& mesh, int64_t rank) noexcept {
    const RankGroups g = mesh.groups_of(rank);
    GroupIds out{};
    for (Dim d : kAllDims) {
        out[dim_index(d)] = is_mesh_dim(d) ? g.group[mesh_axis(d)] : g.ep_group;
    }
    return out;
}

bool is_leftover_replica(const DeviceMesh& mesh, int64_t rank) noexcept {
    if (mesh.leftover_factor() <= 1) return false;
    const int64_t requested = mesh.effective().dp_replicate - mesh.extra_replicas();
    return mesh.coords_of(rank)[mesh_axis(Dim::dp_replicate)] >= requested;
}

int64_t leftover_gpu_count(const DeviceMesh& mesh) noexcept {
    return mesh.world_size() - mesh.world_size() / std::max<int64_t>(1, mesh.leftover_factor());
}

NodeIntraShare NodeIntraShare::build(const DeviceMesh& mesh, Dim d) {
    NodeIntraShare s;
    s.gpus_per_node_ = mesh.gpus_per_node();
    const int64_t nodes = mesh.node_count();
    s.prefix_.assign(static_cast<size_t>(nodes) + 1, 0);
    for (int64_t node = 0; node < nodes; ++node) {
        int64_t intra = 0;
        for (int64_t g = 0; g < s.gpus_per_node_; ++g)
            intra += rank_group_is_intra(mesh, d, node * s.gpus_per_node_ + g) ? 1 : 0;
        s.prefix_[static_cast<size_t>(node) + 1] = s.prefix_[static_cast<size_t>(node)] + intra;
    }
    return s;
}

int64_t NodeIntraShare::intra_gpus(int64_t first_node, int64_t count) const noexcept {
    const int64_t lo = std::clamp<int64_t>(first_node, 0, node_count());
    const int64_t hi = std::clamp<int64_t>(first_node + count, lo, node_count());
    return prefix_[static_cast<size_t>(hi)] - prefix_[static_cast<size_t>(lo)];
}

double NodeIntraShare::share(int64_t first_node, int64_t count) const noexcept {
    const int64_t lo = std::clamp<int64_t>(first_node, 0, node_count());
    const int64_t hi = std::clamp<int64_t>(first_node + count, lo, node_count());
    if (hi == lo) return 1.0;
    return static_cast<double>(intra_gpus(lo, hi - lo)) / static_cast<double>((hi - lo) * gpus_per_node_);
}

}  // namespace shardscope
