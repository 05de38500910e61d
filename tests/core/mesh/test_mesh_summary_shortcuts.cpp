// DeviceMesh's per-dim link summary takes two shortcuts (groups inside node-aligned blocks, or spans
// of a whole node or more) instead of visiting every group. Here every mesh of up to 32 GPUs, in every
// order (and with every ep that divides dp_shard x cp), is summarised both ways: the counts of intra-
// and inter-node groups must agree exactly.
#include "core/mesh/mesh.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace shardscope;

TEST_CASE("mesh summary: the shortcuts count exactly what visiting every group counts") {
    long checked = 0, checked_ep = 0;
    for (int64_t gpn : {1, 2, 3, 4, 8}) {
        for (int64_t nodes : {1, 2, 4}) {
            const int64_t world = gpn * nodes;
            ClusterSpec c;
            c.nodes = nodes;
            c.gpus_per_node = gpn;
            for (int64_t tp = 1; tp <= world; ++tp) {
                if (world % tp != 0) continue;
                for (int64_t cp = 1; cp <= world / tp; ++cp) {
                    if ((world / tp) % cp != 0) continue;
                    for (int64_t pp = 1; pp <= world / tp / cp; ++pp) {
                        if ((world / tp / cp) % pp != 0) continue;
                        const int64_t dp = world / tp / cp / pp;
                        for (int64_t ds = 1; ds <= dp; ++ds) {
                            if (dp % ds != 0) continue;
                            ParallelSpec p;
                            p.tp = tp, p.cp = cp, p.pp = pp, p.dp_shard = ds, p.dp_replicate = dp / ds;
                            p.zero = ds > 1 ? 1 : 0;
                            std::vector<Dim> order(kMeshDims.begin(), kMeshDims.end());
                            do {
                                p.order = order;
                                const DeviceMesh m = DeviceMesh::build(c, p);
                                for (Dim d : kMeshDims) {
                                    int64_t intra = 0, inter = 0;
                                    if (m.size(d) > 1) {
                                        for (int64_t g = 0; g < m.group_count(d); ++g)
                                            ++(m.group_link(d, g) == LinkClass::intra ? intra : inter);
                                    } else {
                                        intra = m.group_count(d);
                                    }
                                    ++checked;
                                    if (intra != m.summary(d).intra_groups || inter != m.summary(d).inter_groups) {
                                        FAIL_CHECK("gpn " << gpn << " nodes " << nodes << " dim " << to_string(d));
                                    }
                                }
                                // EP groups, for every ep that divides dp_shard x cp.
                                for (int64_t ep = 2; ep <= ds * cp; ++ep) {
                                    if ((ds * cp) % ep != 0) continue;
                                    ParallelSpec with_ep = p;
                                    with_ep.ep = ep;
                                    const DeviceMesh e = DeviceMesh::build(c, with_ep);
                                    int64_t intra = 0, inter = 0;
                                    for (int64_t g = 0; g < e.ep_group_count(); ++g)
                                        ++(e.ep_group_link(g) == LinkClass::intra ? intra : inter);
                                    ++checked_ep;
                                    if (intra != e.ep_summary().intra_groups || inter != e.ep_summary().inter_groups) {
                                        FAIL_CHECK("gpn " << gpn << " nodes " << nodes << " ep " << ep);
                                    }
                                }
                            } while (std::next_permutation(order.begin(), order.end()));
                        }
                    }
                }
            }
        }
    }
    CHECK(checked > 10000);
    CHECK(checked_ep > 1000);
}
