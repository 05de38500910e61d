// The mesh panel's group questions, checked against meshes small enough to list by hand.
#include "core/mesh/mesh_groups.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

namespace {

ClusterSpec nodes_of(int64_t nodes, int64_t gpus_per_node) {
    ClusterSpec c;
    c.nodes = nodes;
    c.gpus_per_node = gpus_per_node;
    return c;
}

// 2 nodes x 4 GPUs, tp 2, dp_shard 2, dp_replicate 2, order tp, cp, dp_shard, dp_replicate, pp:
// strides tp 1, dp_shard 2, dp_replicate 4. Ranks 0-3 on node 0, 4-7 on node 1.
DeviceMesh hsdp_mesh() {
    ParallelSpec p;
    p.tp = 2;
    p.dp_shard = 2;
    p.dp_replicate = 2;
    p.zero = 3;
    return DeviceMesh::build(nodes_of(2, 4), p);
}

}  // namespace

TEST_CASE("group dims name themselves and map onto the mesh dims, ep borrowing") {
    for (Dim d : kAllDims) CHECK(dim_from_string(to_string(d)) == d);
    CHECK_FALSE(dim_from_string("dp").has_value());
    CHECK(is_mesh_dim(Dim::dp_shard));
    CHECK_FALSE(is_mesh_dim(Dim::ep));
    CHECK(mesh_dim_from_string("pp") == Dim::pp);
    CHECK_FALSE(mesh_dim_from_string("ep").has_value());
}

TEST_CASE("tp, dp_shard and dp_replicate groups of the 2x4 HSDP mesh") {
    const DeviceMesh m = hsdp_mesh();
    // tp groups {0,1} {2,3} {4,5} {6,7}: numbered by dp_shard + 2*dp_replicate.
    const int64_t tp_group[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    // dp_shard groups {0,2} {1,3} {4,6} {5,7}: numbered by tp + 2*dp_replicate.
    const int64_t shard_group[8] = {0, 1, 0, 1, 2, 3, 2, 3};
    // dp_replicate groups {0,4} {1,5} {2,6} {3,7}: numbered by tp + 2*dp_shard.
    const int64_t replicate_group[8] = {0, 1, 2, 3, 0, 1, 2, 3};
    for (int64_t r = 0; r < 8; ++r) {
        CHECK(group_of(m, Dim::tp, r) == tp_group[r]);
        CHECK(group_of(m, Dim::dp_shard, r) == shard_group[r]);
        CHECK(group_of(m, Dim::dp_replicate, r) == replicate_group[r]);
        CHECK(rank_group_is_intra(m, Dim::tp, r));
        CHECK(rank_group_is_intra(m, Dim::dp_shard, r));
        CHECK_FALSE(rank_group_is_intra(m, Dim::dp_replicate, r));
        CHECK(rank_group_is_intra(m, Dim::cp, r));  // size 1: never leaves its node
        const GroupIds ids = groups_of_rank(m, r);
        CHECK(ids[dim_index(Dim::dp_shard)] == shard_group[r]);
    }
    CHECK(group_count(m, Dim::tp) == 4);
    CHECK(group_size(m, Dim::dp_replicate) == 2);
    CHECK(group_member(m, Dim::dp_shard, 3, 1) == 7);
    CHECK(index_in_group(m, Dim::dp_replicate, 6) == 1);
    CHECK(next_member(m, Dim::dp_replicate, 2) == 6);
    CHECK_FALSE(next_member(m, Dim::dp_replicate, 6).has_value());
    CHECK(group_link(m, Dim::dp_replicate, 0) == LinkClass::inter);
    CHECK(dim_summary(m, Dim::dp_shard).links == DimLinks::intra);
    CHECK(m.is_hsdp());
}

TEST_CASE("a group has a member in a rank range: binary search over ascending members") {
    const DeviceMesh m = hsdp_mesh();
    // dp_replicate group 2 is {2, 6}.
    CHECK(group_has_member_in(m, Dim::dp_replicate, 2, 0, 4));
    CHECK_FALSE(group_has_member_in(m, Dim::dp_replicate, 2, 3, 6));  // 6 is past the end
    CHECK(group_has_member_in(m, Dim::dp_replicate, 2, 3, 7));
    CHECK_FALSE(group_has_member_in(m, Dim::dp_replicate, 2, 7, 8));
    CHECK_FALSE(group_has_member_in(m, Dim::dp_replicate, 2, 4, 4));  // empty range
    // tp group 3 is {6, 7}: the second node only.
    CHECK_FALSE(group_has_member_in(m, Dim::tp, 3, 0, 4));
    CHECK(group_has_member_in(m, Dim::tp, 3, 4, 8));
}

TEST_CASE("node intra share: whole nodes, none, and a group straddling the boundary") {
    const DeviceMesh m = hsdp_mesh();
    const NodeIntraShare tp = NodeIntraShare::build(m, Dim::tp);
    CHECK(tp.node_count() == 2);
    CHECK(tp.intra_gpus(0, 2) == 8);
    CHECK(tp.share(0, 2) == doctest::Approx(1.0));
    const NodeIntraShare rep = NodeIntraShare::build(m, Dim::dp_replicate);
    CHECK(rep.share(0, 2) == doctest::Approx(0.0));
    CHECK(rep.share(5, 3) == doctest::Approx(1.0));  // clipped to nothing: an empty range

    // 2 nodes x 6 GPUs, tp 4: groups {0-3} (node 0), {4-7} (ranks 4,5 on node 0, 6,7 on node 1),
    // {8-11} (node 1). Each node: 4 of its 6 GPUs in an intra group; both: 8 of 12.
    ParallelSpec p;
    p.tp = 4;
    p.dp_replicate = 3;
    const DeviceMesh straddle = DeviceMesh::build(nodes_of(2, 6), p);
    const NodeIntraShare s = NodeIntraShare::build(straddle, Dim::tp);
    CHECK(s.intra_gpus(0, 1) == 4);
    CHECK(s.intra_gpus(1, 1) == 4);
    CHECK(s.share(0, 2) == doctest::Approx(8.0 / 12.0));
    CHECK(dim_summary(straddle, Dim::tp).links == DimLinks::mixed);
}

TEST_CASE("leftover GPUs are the ranks past the requested dp_replicate") {
    // 8 nodes x 8 = 64 GPUs, tp 2 x dp_shard 4 = 8: dp_replicate grows from 1 to 8 (stride 8), so
    // ranks 0-7 are the requested replica and ranks 8-63 the 56 leftover ones.
    ParallelSpec p;
    p.tp = 2;
    p.dp_shard = 4;
    p.zero = 3;
    const DeviceMesh m = DeviceMesh::build(nodes_of(8, 8), p);
    CHECK(m.leftover_factor() == 8);
    CHECK(leftover_gpu_count(m) == 56);
    CHECK_FALSE(is_leftover_replica(m, 7));
    CHECK(is_leftover_replica(m, 8));
    CHECK(is_leftover_replica(m, 63));
    CHECK(leftover_gpu_count(hsdp_mesh()) == 0);
    CHECK_FALSE(is_leftover_replica(hsdp_mesh(), 7));
}

TEST_CASE("ep groups: the innermost ep ranks of the combined cp x dp_shard group") {
    // 1 node x 8, order tp, dp_shard, dp_replicate, cp, pp with dp_shard 2, dp_replicate 2, cp 2:
    // strides dp_shard 1, dp_replicate 2, cp 4. The combined group of dp_replicate 0 is ranks
    // {0,1,4,5}; with ep 4 it is one EP group, and dp_replicate 1's is {2,3,6,7}.
    ParallelSpec p;
    p.dp_shard = 2;
    p.dp_replicate = 2;
    p.cp = 2;
    p.ep = 4;
    p.zero = 1;
    p.order = {Dim::tp, Dim::dp_shard, Dim::dp_replicate, Dim::cp, Dim::pp};
    const DeviceMesh m = DeviceMesh::build(nodes_of(1, 8), p);
    CHECK(group_size(m, Dim::ep) == 4);
    CHECK(group_count(m, Dim::ep) == 2);
    CHECK(group_of(m, Dim::ep, 5) == 0);
    CHECK(group_of(m, Dim::ep, 2) == 1);
    CHECK(index_in_group(m, Dim::ep, 4) == 2);
    CHECK(next_member(m, Dim::ep, 1) == 4);
    CHECK(next_member(m, Dim::ep, 6) == 7);
    CHECK_FALSE(next_member(m, Dim::ep, 7).has_value());
    CHECK(group_member(m, Dim::ep, 1, 3) == 7);
    CHECK(rank_group_is_intra(m, Dim::ep, 3));
}
