#pragma once
// The mesh panel's questions to core's DeviceMesh, asked the same way for all six communication dims:
// the five dims of `parallel.order` plus ep, which borrows from cp x dp_shard (see core/mesh/mesh.hpp).
//
// Everything here is O(1) per rank except NodeIntraShare::build, which visits every rank once; the
// panel calls it once per scenario version and dim, never per frame.

#include "core/mesh/mesh.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace shardscope {


// Ranks per group, number of groups, and the group of a rank (in [0, group_count)).
[[nodiscard]] int64_t group_size(const DeviceMesh& mesh, Dim d) noexcept;
[[nodiscard]] int64_t group_count(const DeviceMesh& mesh, Dim d) noexcept;
[[nodiscard]] int64_t group_of(const DeviceMesh& mesh, Dim d, int64_t rank) noexcept;
// The rank's place inside its group (0 .. size-1): its coordinate in d (for ep: its index in the EP group).
[[nodiscard]] int64_t index_in_group(const DeviceMesh& mesh, Dim d, int64_t rank) noexcept;
// Member `index` of group `group`.
[[nodiscard]] int64_t group_member(const DeviceMesh& mesh, Dim d, int64_t group, int64_t index) noexcept;
// The member after `rank` in its group (members ascend in rank); none for the last one.
[[nodiscard]] std::optional<int64_t> next_member(const DeviceMesh& mesh, Dim d, int64_t rank) noexcept;
[[nodiscard]] LinkClass group_link(const DeviceMesh& mesh, Dim d, int64_t group) noexcept;
// Whether the group holding `rank` stays inside the rank's node (a dim of size 1 always does).
[[nodiscard]] bool rank_group_is_intra(const DeviceMesh& mesh, Dim d, int64_t rank) noexcept;
[[nodiscard]] const DimSummary& dim_summary(const DeviceMesh& mesh, Dim d) noexcept;
// Whether group `group` of d has a member among ranks [first_rank, end_rank). Members ascend in rank,
// so this is a binary search: O(log size), whatever the range's length (the mesh panel asks it of
// every block of nodes on screen).
[[nodiscard]] bool group_has_member_in(const DeviceMesh& mesh, Dim d, int64_t group, int64_t first_rank,
                                       int64_t end_rank) noexcept;

// Every group of one rank, indexed by group_dim_index.
using GroupIds = std::array<int64_t, kAllDims.size()>;
[[nodiscard]] GroupIds groups_of_rank(const DeviceMesh& mesh, int64_t rank) noexcept;

// Leftover GPUs (docs/design.md: they become extra dp_replicate) are the ranks whose dp_replicate coordinate
// lies past the requested dp_replicate: with 64 GPUs and tp*dp_shard = 2*4 = 8, dp_replicate grows from
// 1 to 8 and ranks 8..63 (coordinates 1..7) are the leftover replicas.
[[nodiscard]] bool is_leftover_replica(const DeviceMesh& mesh, int64_t rank) noexcept;
// How many GPUs are leftover replicas: world - world / leftover_factor.
[[nodiscard]] int64_t leftover_gpu_count(const DeviceMesh& mesh) noexcept;

// Per node, how many of its GPUs sit in a group (of one dim) that stays inside the node; prefix sums
// answer "what share of a run of nodes' group memberships is intra-node" in O(1). This is what the
// mesh panel colours a node or a block of nodes by when it is too small to show its GPUs.
class NodeIntraShare {
public:
    [[nodiscard]] static NodeIntraShare build(const DeviceMesh& mesh, Dim d);
    [[nodiscard]] int64_t node_count() const noexcept { return static_cast<int64_t>(prefix_.size()) - 1; }
    // GPUs of nodes [first, first + count) whose group is intra-node (the range is clipped to the mesh).
    [[nodiscard]] int64_t intra_gpus(int64_t first_node, int64_t count) const noexcept;
    // intra_gpus / GPUs in the range; 1 for an empty range.
    [[nodiscard]] double share(int64_t first_node, int64_t count) const noexcept;

private:
    std::vector<int64_t> prefix_{0};  // prefix_[n] = intra GPUs of nodes 0 .. n-1
    int64_t gpus_per_node_ = 1;
};

}  // namespace shardscope
