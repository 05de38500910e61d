#include "core/mesh/mesh_groups.hpp"

#include <algorithm>

namespace shardscope {

namespace {

// Of cp and dp_shard, the one listed first in `order` is the inner one (core/mesh/mesh.hpp's EP rule).
MeshDim ep_inner_dim(const DeviceMesh& mesh) noexcept {
    for (MeshDim d : mesh.effective().order)
        if (d == MeshDim::cp || d == MeshDim::dp_shard) return d;
    return MeshDim::cp;
}

// Position of a rank in its combined cp x dp_shard group, by ascending rank.
int64_t combined_position(const DeviceMesh& mesh, int64_t rank) noexcept {
    const MeshDim in = ep_inner_dim(mesh);
    const MeshDim out = in == MeshDim::cp ? MeshDim::dp_shard : MeshDim::cp;
    const MeshCoords c = mesh.coords_of(rank);
    return c[dim_index(in)] + mesh.size(in) * c[dim_index(out)];
}

}  // namespace

std::string_view to_string(GroupDim d) noexcept {
    switch (d) {
        case GroupDim::tp: return "tp";
        case GroupDim::cp: return "cp";
        case GroupDim::ep: return "ep";
        case GroupDim::dp_shard: return "dp_shard";
        case GroupDim::dp_replicate: return "dp_replicate";
        case GroupDim::pp: return "pp";
    }
    return "tp";
}

std::optional<GroupDim> group_dim_from_string(std::string_view s) noexcept {
    for (GroupDim d : kAllGroupDims)
        if (to_string(d) == s) return d;
    return std::nullopt;
}

std::optional<MeshDim> mesh_dim_of(GroupDim d) noexcept {
    switch (d) {
        case GroupDim::tp: return MeshDim::tp;
        case GroupDim::cp: return MeshDim::cp;
        case GroupDim::ep: return std::nullopt;
        case GroupDim::dp_shard: return MeshDim::dp_shard;
        case GroupDim::dp_replicate: return MeshDim::dp_replicate;
        case GroupDim::pp: return MeshDim::pp;
    }
    return std::nullopt;
}

int64_t group_size(const DeviceMesh& mesh, GroupDim d) noexcept {
    const auto m = mesh_dim_of(d);
    return m ? mesh.size(*m) : mesh.ep_size();
}

int64_t group_count(const DeviceMesh& mesh, GroupDim d) noexcept {
    const auto m = mesh_dim_of(d);
    return m ? mesh.group_count(*m) : mesh.ep_group_count();
}

int64_t group_of(const DeviceMesh& mesh, GroupDim d, int64_t rank) noexcept {
    const auto m = mesh_dim_of(d);
    return m ? mesh.group_of(*m, rank) : mesh.ep_group_of(rank);
}

int64_t index_in_group(const DeviceMesh& mesh, GroupDim d, int64_t rank) noexcept {
    const auto m = mesh_dim_of(d);
    if (m) return mesh.coords_of(rank)[dim_index(*m)];
    return combined_position(mesh, rank) % mesh.ep_size();
}

int64_t group_member(const DeviceMesh& mesh, GroupDim d, int64_t group, int64_t index) noexcept {
    const auto m = mesh_dim_of(d);
    return m ? mesh.member(*m, group, index) : mesh.ep_member(group, index);
}

std::optional<int64_t> next_member(const DeviceMesh& mesh, GroupDim d, int64_t rank) noexcept {
    const int64_t index = index_in_group(mesh, d, rank);
    if (index + 1 >= group_size(mesh, d)) return std::nullopt;
    const auto m = mesh_dim_of(d);
    // A mesh dim's next member is one stride on; an EP group's is found through core's member rule.
    if (m) return rank + mesh.stride(*m);
    return mesh.ep_member(mesh.ep_group_of(rank), index + 1);
}

LinkClass group_link(const DeviceMesh& mesh, GroupDim d, int64_t group) noexcept {
    const auto m = mesh_dim_of(d);
    return m ? mesh.group_link(*m, group) : mesh.ep_group_link(group);
}

bool rank_group_is_intra(const DeviceMesh& mesh, GroupDim d, int64_t rank) noexcept {
    const int64_t size = group_size(mesh, d);
    if (size <= 1) return true;
    const auto m = mesh_dim_of(d);
    if (m) {
        // Members ascend by one stride each: the group spans [first, first + (size-1)*stride].
        const int64_t first = rank - mesh.coords_of(rank)[dim_index(*m)] * mesh.stride(*m);
        const int64_t last = first + (size - 1) * mesh.stride(*m);
        return mesh.node_of(first) == mesh.node_of(last);
    }
    return mesh.ep_group_link(mesh.ep_group_of(rank)) == LinkClass::intra;
}

const DimSummary& dim_summary(const DeviceMesh& mesh, GroupDim d) noexcept {
    const auto m = mesh_dim_of(d);
    return m ? mesh.summary(*m) : mesh.ep_summary();
}

bool group_has_member_in(const DeviceMesh& mesh, GroupDim d, int64_t group, int64_t first_rank,
                         int64_t end_rank) noexcept {
    if (first_rank >= end_rank) return false;
    if (const auto m = mesh_dim_of(d)) {
        // A mesh dim's members are first + i * stride: the first one at or past first_rank, directly.
        const int64_t first = mesh.member(*m, group, 0), stride = mesh.stride(*m);
        const int64_t i = first >= first_rank ? 0 : (first_rank - first + stride - 1) / stride;
        return i < mesh.size(*m) && first + i * stride < end_rank;
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
    for (GroupDim d : kAllGroupDims) {
        const auto m = mesh_dim_of(d);
        out[group_dim_index(d)] = m ? g.group[dim_index(*m)] : g.ep_group;
    }
    return out;
}

bool is_leftover_replica(const DeviceMesh& mesh, int64_t rank) noexcept {
    if (mesh.leftover_factor() <= 1) return false;
    const int64_t requested = mesh.effective().dp_replicate - mesh.extra_replicas();
    return mesh.coords_of(rank)[dim_index(MeshDim::dp_replicate)] >= requested;
}

int64_t leftover_gpu_count(const DeviceMesh& mesh) noexcept {
    return mesh.world_size() - mesh.world_size() / std::max<int64_t>(1, mesh.leftover_factor());
}

NodeIntraShare NodeIntraShare::build(const DeviceMesh& mesh, GroupDim d) {
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
