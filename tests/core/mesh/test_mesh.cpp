#include "core/mesh/mesh.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace shardscope;

namespace {

ClusterSpec cluster(int64_t nodes, int64_t gpus_per_node) {
    ClusterSpec c;
    c.nodes = nodes;
    c.gpus_per_node = gpus_per_node;
    return c;
}

ParallelSpec parallel(int64_t tp, int64_t cp, int64_t pp, int64_t dp_shard, int64_t dp_replicate,
                      std::vector<Dim> order) {
    ParallelSpec p;
    p.tp = tp;
    p.cp = cp;
    p.pp = pp;
    p.dp_shard = dp_shard;
    p.dp_replicate = dp_replicate;
    p.order = std::move(order);
    return p;
}

const std::vector<Dim> kSeedOrder = {Dim::tp, Dim::dp_shard, Dim::dp_replicate, Dim::cp,
                                         Dim::pp};
const std::vector<Dim> kDefaultOrder = {Dim::tp, Dim::cp, Dim::dp_shard,
                                            Dim::dp_replicate, Dim::pp};

// Every rank's coordinates map back to it, and it is the member of its own group at its coordinate.
void check_consistent(const DeviceMesh& m, int64_t rank) {
    const MeshCoords c = m.coords_of(rank);
    CHECK(m.rank_of(c) == rank);
    const RankGroups g = m.groups_of(rank);
    for (Dim d : kMeshDims) {
        CHECK(g.group[mesh_axis(d)] == m.group_of(d, rank));
        CHECK(m.member(d, m.group_of(d, rank), c[mesh_axis(d)]) == rank);
    }
}

}  // namespace

TEST_CASE("the seed texts' mesh: 2 nodes x 4 GPUs, TP 2, FSDP 2, DP 2 is HSDP") {
    // Strides under order tp, dp_shard, dp_replicate: tp 1, dp_shard 2, dp_replicate 4; nodes {0-3} {4-7}.
    const DeviceMesh m = DeviceMesh::build(cluster(2, 4), parallel(2, 1, 1, 2, 2, kSeedOrder));
    CHECK(m.world_size() == 8);
    CHECK(m.leftover_factor() == 1);
    CHECK(m.extra_replicas() == 0);
    CHECK(m.stride(Dim::tp) == 1);
    CHECK(m.stride(Dim::dp_shard) == 2);
    CHECK(m.stride(Dim::dp_replicate) == 4);

    const DimSummary& tp = m.summary(Dim::tp);
    CHECK(tp.groups == 4);                      // {0,1} {2,3} {4,5} {6,7}
    CHECK(tp.size == 2);
    CHECK(tp.intra_groups == 4);
    CHECK(tp.links == DimLinks::intra);
    const DimSummary& fsdp = m.summary(Dim::dp_shard);
    CHECK(fsdp.groups == 4);                    // {0,2} {1,3} {4,6} {5,7}
    CHECK(fsdp.intra_groups == 4);
    CHECK(fsdp.links == DimLinks::intra);
    const DimSummary& dp = m.summary(Dim::dp_replicate);
    CHECK(dp.groups == 4);                      // {0,4} {1,5} {2,6} {3,7}
    CHECK(dp.inter_groups == 4);
    CHECK(dp.links == DimLinks::inter);
    CHECK(m.summary(Dim::cp).links == DimLinks::none);
    CHECK(m.is_hsdp());

    // Rank 5 = tp 1, dp_shard 0, dp_replicate 1, on node 1.
    const MeshCoords c5 = m.coords_of(5);
    CHECK(c5[mesh_axis(Dim::tp)] == 1);
    CHECK(c5[mesh_axis(Dim::dp_shard)] == 0);
    CHECK(c5[mesh_axis(Dim::dp_replicate)] == 1);
    CHECK(m.node_of(5) == 1);
    // Its FSDP group is numbered by (dp_replicate, tp) = (1, 1) -> 1*2 + 1 = 3 and holds {5, 7}.
    CHECK(m.group_of(Dim::dp_shard, 5) == 3);
    CHECK(m.members(Dim::dp_shard, 3) == std::vector<int64_t>{5, 7});
    CHECK(m.members(Dim::tp, m.group_of(Dim::tp, 5)) == std::vector<int64_t>{4, 5});
    CHECK(m.members(Dim::dp_replicate, m.group_of(Dim::dp_replicate, 5)) ==
          std::vector<int64_t>{1, 5});
    CHECK(m.group_link(Dim::dp_replicate, 0) == LinkClass::inter);
    for (int64_t r = 0; r < 8; ++r) check_consistent(m, r);
}

TEST_CASE("the same factors in another order are not HSDP") {
    // order dp_replicate, dp_shard, tp: dp_replicate stride 1 (intra), dp_shard stride 2 (intra),
    // tp stride 4 (inter): the heavy TP traffic now crosses nodes.
    const DeviceMesh m = DeviceMesh::build(
        cluster(2, 4), parallel(2, 1, 1, 2, 2, {Dim::dp_replicate, Dim::dp_shard, Dim::tp,
                                                Dim::cp, Dim::pp}));
    CHECK(m.summary(Dim::tp).links == DimLinks::inter);
    CHECK(m.summary(Dim::dp_replicate).links == DimLinks::intra);
    CHECK_FALSE(m.is_hsdp());
}

TEST_CASE("70B on 256 GPUs with TP 2 and PP 4 leaves 32 data-parallel replicas") {
    // 256 / (2 * 4) = 32: the leftover GPUs become dp_replicate.
    const DeviceMesh m = DeviceMesh::build(cluster(32, 8), parallel(2, 1, 4, 1, 1, kDefaultOrder));
    CHECK(m.world_size() == 256);
    CHECK(m.leftover_factor() == 32);
    CHECK(m.effective().dp_replicate == 32);
    CHECK(m.extra_replicas() == 31);
    CHECK(m.summary(Dim::tp).groups == 128);     // 256 / 2, strides 1: inside a node
    CHECK(m.summary(Dim::tp).links == DimLinks::intra);
    CHECK(m.summary(Dim::dp_replicate).groups == 8);  // 256 / 32
    CHECK(m.summary(Dim::dp_replicate).stride == 2);  // 2 * 1 * 1
    CHECK(m.summary(Dim::dp_replicate).links == DimLinks::inter);  // spans ranks 0..62
    CHECK(m.summary(Dim::pp).stride == 64);
    CHECK(m.summary(Dim::pp).links == DimLinks::inter);
}

TEST_CASE("a dim whose groups straddle node boundaries is mixed") {
    // 2 nodes of 6, TP 4, 3 groups: {0-3} node 0, {4-7} nodes 0 and 1, {8-11} node 1.
    const DeviceMesh m = DeviceMesh::build(cluster(2, 6), parallel(4, 1, 1, 1, 3, kDefaultOrder));
    const DimSummary& tp = m.summary(Dim::tp);
    CHECK(tp.intra_groups == 2);
    CHECK(tp.inter_groups == 1);
    CHECK(tp.links == DimLinks::mixed);
    CHECK(m.group_link(Dim::tp, 1) == LinkClass::inter);
}

TEST_CASE("EP groups are the innermost ep ranks of the combined cp x dp_shard group") {
    // 2 nodes x 8, tp 2, cp 2, dp_shard 4, ep 4; strides tp 1, cp 2, dp_shard 4.
    // Combined group of tp 0: ranks 0,2,4,...,14 -> EP {0,2,4,6} (node 0) and {8,10,12,14} (node 1).
    ParallelSpec p = parallel(2, 2, 1, 4, 1, kDefaultOrder);
    p.ep = 4;
    const DeviceMesh m = DeviceMesh::build(cluster(2, 8), p);
    CHECK(m.ep_group_count() == 4);  // 16 / 4
    CHECK(m.ep_members(0) == std::vector<int64_t>{0, 2, 4, 6});
    CHECK(m.ep_members(1) == std::vector<int64_t>{8, 10, 12, 14});
    CHECK(m.ep_members(2) == std::vector<int64_t>{1, 3, 5, 7});
    CHECK(m.ep_members(3) == std::vector<int64_t>{9, 11, 13, 15});
    CHECK(m.ep_group_of(9) == 3);
    CHECK(m.groups_of(12).ep_group == 1);
    CHECK(m.ep_summary().links == DimLinks::intra);
    CHECK(m.ep_summary().intra_groups == 4);
    for (int64_t g = 0; g < m.ep_group_count(); ++g)
        for (int64_t rank : m.ep_members(g)) CHECK(m.ep_group_of(rank) == g);

    // dp_shard listed before cp: dp_shard stride 2, cp stride 4; with 2 GPUs per node the EP pairs
    // {0,2} and {4,6} of the tp-0 combined group cross nodes.
    ParallelSpec q = parallel(2, 2, 1, 2, 1, {Dim::tp, Dim::dp_shard, Dim::cp,
                                              Dim::dp_replicate, Dim::pp});
    q.ep = 2;
    const DeviceMesh n = DeviceMesh::build(cluster(4, 2), q);
    CHECK(n.ep_members(0) == std::vector<int64_t>{0, 2});
    CHECK(n.ep_members(1) == std::vector<int64_t>{4, 6});
    CHECK(n.ep_summary().links == DimLinks::inter);
    CHECK(n.ep_summary().groups == 4);
}

TEST_CASE("a 131,072-GPU mesh builds and answers queries") {
    // 16384 nodes x 8; tp 8, pp 16, dp_shard 128, dp_replicate 8: 8*16*128*8 = 131072.
    const DeviceMesh m = DeviceMesh::build(cluster(16384, 8), parallel(8, 1, 16, 128, 8, kDefaultOrder));
    CHECK(m.world_size() == 131072);
    CHECK(m.node_count() == 16384);
    CHECK(m.summary(Dim::tp).groups == 16384);
    CHECK(m.summary(Dim::tp).links == DimLinks::intra);
    CHECK(m.summary(Dim::dp_shard).groups == 1024);   // 131072 / 128
    CHECK(m.summary(Dim::dp_shard).stride == 8);
    CHECK(m.summary(Dim::dp_shard).links == DimLinks::inter);
    CHECK(m.summary(Dim::pp).stride == 8192);         // 8 * 1 * 128 * 8
    CHECK_FALSE(m.is_hsdp());                             // dp_shard crosses nodes here
    CHECK(m.ep_summary().links == DimLinks::none);
    // The last rank: every coordinate at its maximum.
    const MeshCoords last = m.coords_of(131071);
    CHECK(last[mesh_axis(Dim::tp)] == 7);
    CHECK(last[mesh_axis(Dim::dp_shard)] == 127);
    CHECK(last[mesh_axis(Dim::dp_replicate)] == 7);
    CHECK(last[mesh_axis(Dim::pp)] == 15);
    CHECK(m.node_of(131071) == 16383);
    for (int64_t r : {int64_t{0}, int64_t{1}, int64_t{777}, int64_t{65536}, int64_t{131071}})
        check_consistent(m, r);
    CHECK(m.members(Dim::pp, m.group_of(Dim::pp, 131071)).back() == 131071);
}
