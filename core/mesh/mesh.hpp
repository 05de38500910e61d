#pragma once
// The device mesh (docs/design.md, "The scenario" / `order`): which GPU holds which coordinate, which GPUs
// talk in each dim, and whether each group stays inside a node.
//
// Nothing here is per rank: a mesh is a handful of sizes and strides, a group's members are computed
// on demand, and the per-dim link summary is counted once at build in O(world / size) per dim. A
// 131,072-GPU mesh costs a few hundred bytes.
//
// Rank layout: `order` lists the five dims innermost first; the first has stride 1 and each next
// stride is the previous stride times the previous size. rank = sum(coord[d] * stride[d]). GPU rank r
// sits on node r / gpus_per_node.
//
// Group numbering: the groups of a dim are numbered by the mixed-radix number of the *other* dims'
// coordinates (in `order`), so group k of dim d holds the ranks whose other coordinates spell k; a
// group's members are listed by their coordinate in d (ascending rank).
//
// Expert parallelism borrows from cp x dp_shard: the ranks that share tp, pp and dp_replicate
// coordinates form one combined cp x dp_shard group of cp*dp_shard ranks. Listed by ascending rank,
// its first ep ranks form EP group 0, the next ep ranks EP group 1, and so on: an EP group is made of
// the *innermost* ep ranks of the combined group (so it lands inside a node whenever it can). Experts
// are split over EP first; each local expert is then sharded again over the ranks that hold the same
// expert slice (the other dp_shard*cp/ep ranks of the combined group).

#include "core/collectives/collectives.hpp"
#include "core/scenario/scenario.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace shardscope {

// LinkClass (intra / inter) is declared in core/collectives/collectives.hpp.
// How a dim's groups sit: all inside nodes, all spanning nodes, or some of each. A dim of size 1 has
// no communication: `none`.
enum class DimLinks { none, intra, inter, mixed };

[[nodiscard]] std::string_view to_string(DimLinks v) noexcept;

struct DimSummary {
    int64_t size = 1;          // ranks per group
    int64_t stride = 1;        // rank distance between consecutive members
    int64_t groups = 0;        // number of groups (world / size)
    int64_t intra_groups = 0;  // groups inside one node
    int64_t inter_groups = 0;  // groups spanning nodes
    DimLinks links = DimLinks::none;
};

using MeshCoords = std::array<int64_t, kMeshDims.size()>;

// Every group one rank belongs to: the group index per dim (indexed by dim_index) and its EP group.
struct RankGroups {
    MeshCoords group{};
    int64_t ep_group = 0;
};

class DeviceMesh {
public:
    // Expects a scenario that passed validate_scenario (factors divide the GPU count, ep divides
    // dp_shard*cp). The leftover GPUs (gpu_count / product) multiply dp_replicate.
    [[nodiscard]] static DeviceMesh build(const ClusterSpec& cluster, const ParallelSpec& parallel);
    // build's leftover factor, without building: what multiplies dp_replicate (1 when the factors'
    // product does not divide the GPU count).
    [[nodiscard]] static int64_t leftover_factor(const ClusterSpec& cluster, const ParallelSpec& parallel) noexcept;

    [[nodiscard]] int64_t world_size() const noexcept { return world_; }
    [[nodiscard]] int64_t gpus_per_node() const noexcept { return gpus_per_node_; }
    [[nodiscard]] int64_t node_count() const noexcept { return world_ / gpus_per_node_; }
    // The factors actually used: `parallel` with dp_replicate multiplied by the leftover factor.
    [[nodiscard]] const ParallelSpec& effective() const noexcept { return effective_; }
    // The same mesh under another ZeRO stage: zero places no ranks, so every group and link summary
    // stands and nothing is recounted (the planner tries each stage on one mesh).
    [[nodiscard]] DeviceMesh with_zero(int zero) const {
        DeviceMesh m = *this;
        m.effective_.zero = zero;
        return m;
    }
    // gpu_count / (tp*cp*pp*dp_shard*dp_replicate): 1 when the factors use every GPU.
    [[nodiscard]] int64_t leftover_factor() const noexcept { return leftover_factor_; }
    // Data-parallel replicas added by the leftover GPUs: effective dp_replicate - requested dp_replicate.
    [[nodiscard]] int64_t extra_replicas() const noexcept {
        return effective_.dp_replicate - requested_dp_replicate_;
    }

    [[nodiscard]] int64_t size(Dim d) const noexcept { return size_[mesh_axis(d)]; }
    [[nodiscard]] int64_t stride(Dim d) const noexcept { return stride_[mesh_axis(d)]; }
    [[nodiscard]] int64_t group_count(Dim d) const noexcept { return world_ / size(d); }

    [[nodiscard]] int64_t node_of(int64_t rank) const noexcept { return rank / gpus_per_node_; }
    [[nodiscard]] MeshCoords coords_of(int64_t rank) const noexcept;
    [[nodiscard]] int64_t rank_of(const MeshCoords& coords) const noexcept;

    // The group of `rank` in dim d, in [0, group_count(d)).
    [[nodiscard]] int64_t group_of(Dim d, int64_t rank) const noexcept;
    // Member `index` (0 <= index < size(d)) of group `group` of dim d.
    [[nodiscard]] int64_t member(Dim d, int64_t group, int64_t index) const noexcept;
    [[nodiscard]] std::vector<int64_t> members(Dim d, int64_t group) const;
    [[nodiscard]] LinkClass group_link(Dim d, int64_t group) const noexcept;
    [[nodiscard]] const DimSummary& summary(Dim d) const noexcept { return summary_[mesh_axis(d)]; }

    [[nodiscard]] RankGroups groups_of(int64_t rank) const noexcept;

    // HSDP (hybrid sharded data parallel): shards inside a node, replicas across nodes, both > 1.
    [[nodiscard]] bool is_hsdp() const noexcept;

    // Expert parallel groups (see the header comment): world / ep groups of ep ranks.
    [[nodiscard]] int64_t ep_size() const noexcept { return effective_.ep; }
    [[nodiscard]] int64_t ep_group_count() const noexcept { return world_ / effective_.ep; }
    [[nodiscard]] int64_t ep_group_of(int64_t rank) const noexcept;
    [[nodiscard]] int64_t ep_member(int64_t group, int64_t index) const noexcept;
    [[nodiscard]] std::vector<int64_t> ep_members(int64_t group) const;
    [[nodiscard]] LinkClass ep_group_link(int64_t group) const noexcept;
    [[nodiscard]] const DimSummary& ep_summary() const noexcept { return ep_summary_; }

private:
    // Ranks of a span whose endpoints share a node are all on that node (nodes are contiguous).
    [[nodiscard]] LinkClass span_link(int64_t first_rank, int64_t last_rank) const noexcept {
        return node_of(first_rank) == node_of(last_rank) ? LinkClass::intra : LinkClass::inter;
    }
    // Number formed by the coordinates of every dim except those in `skip` (mixed radix, in order).
    [[nodiscard]] int64_t rest_index(const MeshCoords& c, Dim skip_a, Dim skip_b) const noexcept;
    // Inverse of rest_index: coordinates of the other dims; the skipped ones are left at 0.
    [[nodiscard]] MeshCoords rest_coords(int64_t rest, Dim skip_a, Dim skip_b) const noexcept;
    // The combined cp x dp_shard group: the inner and outer of the two by stride.
    [[nodiscard]] Dim ep_inner() const noexcept;
    [[nodiscard]] Dim ep_outer() const noexcept;
    [[nodiscard]] int64_t ep_group_member_rank(int64_t group, int64_t index) const noexcept;
    void summarise();

    int64_t world_ = 1;
    int64_t gpus_per_node_ = 1;
    int64_t leftover_factor_ = 1;
    int64_t requested_dp_replicate_ = 1;
    ParallelSpec effective_;
    MeshCoords size_{1, 1, 1, 1, 1};
    MeshCoords stride_{1, 1, 1, 1, 1};
    std::array<DimSummary, kMeshDims.size()> summary_{};
    DimSummary ep_summary_{};
};

}  // namespace shardscope
