// Steppable collectives. The invariants are checked here independently of the class's own
// unmet_promises(): the expected final buffer of every collective is written out below.

#include "core/collectives/collective_steps.hpp"

#include <doctest/doctest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace shardscope;

namespace {

[[nodiscard]] bool sums_everyone(const ChunkState& s, int ranks) {
    return static_cast<int>(s.contributors.size()) == ranks && s.contributor_count() == ranks;
}

[[nodiscard]] bool came_only_from(const ChunkState& s, int origin) {
    return s.contributor_count() == 1 && origin < static_cast<int>(s.contributors.size()) &&
           s.contributors[static_cast<size_t>(origin)];
}

// What each collective promises after its last step, written out slot by slot.
void check_final_state(const SteppedCollective& sc) {
    const StepConfig& c = sc.config();
    const int n = c.ranks;
    const auto& buf = sc.buffers();
    REQUIRE(static_cast<int>(buf.size()) == n);
    for (int r = 0; r < n; ++r) {
        const RankBuffer& b = buf[static_cast<size_t>(r)];
        CAPTURE(r);
        switch (c.collective) {
            case Collective::all_reduce:
                for (int s = 0; s < sc.slot_count(); ++s) {
                    CAPTURE(s);
                    CHECK(b[static_cast<size_t>(s)].chunk == s);
                    CHECK(sums_everyone(b[static_cast<size_t>(s)], n));
                }
                break;
            case Collective::reduce_scatter:
                // Rank r's own shard is chunk r, summed over all N ranks.
                CHECK(b[static_cast<size_t>(r)].chunk == r);
                CHECK(sums_everyone(b[static_cast<size_t>(r)], n));
                break;
            case Collective::all_gather:
                for (int s = 0; s < n; ++s) {
                    CAPTURE(s);
                    CHECK(b[static_cast<size_t>(s)].chunk == s);
                    CHECK(came_only_from(b[static_cast<size_t>(s)], s));
                }
                break;
            case Collective::broadcast:
                for (int s = 0; s < sc.slot_count(); ++s) {
                    CAPTURE(s);
                    CHECK(b[static_cast<size_t>(s)].chunk == s);
                    CHECK(came_only_from(b[static_cast<size_t>(s)], c.root));
                }
                break;
            case Collective::reduce:
                if (r == c.root)
                    for (int s = 0; s < sc.slot_count(); ++s) {
                        CAPTURE(s);
                        CHECK(b[static_cast<size_t>(s)].chunk == s);
                        CHECK(sums_everyone(b[static_cast<size_t>(s)], n));
                    }
                break;
            case Collective::all_to_all:
                // Rank r holds chunk r of every rank i, filed in slot i.
                for (int i = 0; i < n; ++i) {
                    CAPTURE(i);
                    CHECK(b[static_cast<size_t>(i)].chunk == r);
                    CHECK(came_only_from(b[static_cast<size_t>(i)], i));
                }
                break;
            case Collective::p2p: break;
        }
    }
    CHECK(sc.unmet_promises().empty());
}

// Walks the whole schedule, checking per step: one transfer per (src, dst) pair, the link class by
// node, chunk indices in range, and that step_back restores exactly the state before the step.
void walk_and_check(SteppedCollective& sc) {
    const StepConfig& c = sc.config();
    sc.reset();
    if (c.ranks > 1) CHECK_FALSE(sc.unmet_promises().empty());  // nothing is delivered before step 1
    while (!sc.finished()) {
        const int k = sc.current_step();
        CAPTURE(k);
        CHECK_FALSE(sc.transfers(k).empty());  // no idle steps
        std::set<std::pair<int, int>> pairs;
        for (const Transfer& t : sc.transfers(k)) {
            CHECK(pairs.insert({t.src, t.dst}).second);
            CHECK(t.src != t.dst);
            const bool same_node = t.src / c.gpus_per_node == t.dst / c.gpus_per_node;
            CHECK(t.link == (same_node ? LinkClass::intra : LinkClass::inter));
            CHECK(t.dst_slot >= 0);
            CHECK(t.dst_slot + t.count <= sc.slot_count());
        }
        const CollectiveSnapshot before = sc.snapshot();
        REQUIRE(sc.step());
        const CollectiveSnapshot after = sc.snapshot();
        REQUIRE(sc.step_back());
        CHECK(sc.snapshot() == before);
        REQUIRE(sc.step());
        CHECK(sc.snapshot() == after);
    }
    CHECK_FALSE(sc.step());  // finished: no change
    check_final_state(sc);
}

[[nodiscard]] StepConfig config(Collective c, StepAlgorithm a, int n, int gpus_per_node = 4, double bytes = 1 << 20) {
    StepConfig cfg;
    cfg.collective = c;
    cfg.algorithm = a;
    cfg.ranks = n;
    cfg.gpus_per_node = gpus_per_node;
    cfg.message_bytes = bytes;
    cfg.intra = Link{100e9, 2e-6};
    cfg.inter = Link{25e9, 5e-6};
    return cfg;
}

}  // namespace

TEST_CASE("every algorithm delivers its promise for N = 2..17, step_back undoes step, one chunk per pair") {
    const std::pair<Collective, StepAlgorithm> cases[] = {
        {Collective::all_reduce, StepAlgorithm::ring},         {Collective::reduce_scatter, StepAlgorithm::ring},
        {Collective::all_gather, StepAlgorithm::ring},         {Collective::broadcast, StepAlgorithm::ring},
        {Collective::broadcast, StepAlgorithm::tree},          {Collective::reduce, StepAlgorithm::ring},
        {Collective::reduce, StepAlgorithm::tree},             {Collective::all_to_all, StepAlgorithm::pairwise},
        {Collective::all_reduce, StepAlgorithm::double_binary_tree},
    };
    for (const auto& [collective, algorithm] : cases) {
        for (int n = 2; n <= 17; ++n) {
            CAPTURE(to_string(collective));
            CAPTURE(to_string(algorithm));
            CAPTURE(n);
            // A root other than 0 (the last rank) checks that trees and chains are laid out from it.
            StepConfig cfg = config(collective, algorithm, n, 3);
            cfg.root = n - 1;
            SteppedCollective sc(cfg);
            walk_and_check(sc);
        }
    }
}

TEST_CASE("hierarchical all-reduce delivers the full sum for every GPUs-per-node that divides N") {
    for (int n = 2; n <= 17; ++n)
        for (int g = 1; g <= n; ++g) {
            if (n % g != 0) continue;
            CAPTURE(n);
            CAPTURE(g);
            SteppedCollective sc(config(Collective::all_reduce, StepAlgorithm::hierarchical, n, g));
            walk_and_check(sc);
            // Closed form: intra RS g-1 steps, inter ring all-reduce 2(M-1), intra AG g-1 (M = N/g).
            const int m = n / g;
            CHECK(sc.step_count() == 2 * (g - 1) + 2 * (m - 1));
            // Bytes per rank: shards of S/g twice over g-1 hops, plus 2(M-1) pieces of S/N.
            const double s = sc.config().message_bytes;
            const double expected = 2.0 * (g - 1) / g * s + 2.0 * (m - 1) / n * s;
            for (double b : sc.bytes_sent()) CHECK(b == doctest::Approx(expected));
        }
}

TEST_CASE("ring closed forms: step counts and bytes per rank") {
    for (int n = 2; n <= 17; ++n) {
        CAPTURE(n);
        const double s = 3.0 * 1024 * 1024;
        {
            SteppedCollective ar(config(Collective::all_reduce, StepAlgorithm::ring, n, 8, s));
            CHECK(ar.step_count() == 2 * (n - 1));
            ar.seek(ar.step_count());
            for (double b : ar.bytes_sent()) CHECK(b == doctest::Approx(2.0 * (n - 1) / n * s));
        }
        for (Collective c : {Collective::all_gather, Collective::reduce_scatter}) {
            SteppedCollective sc(config(c, StepAlgorithm::ring, n, 8, s));
            CHECK(sc.step_count() == n - 1);
            for (double b : sc.total_bytes_sent()) CHECK(b == doctest::Approx((n - 1.0) / n * s));
        }
        {
            // Pairwise all-to-all: N-1 steps, each rank sends (N-1)/N of its buffer.
            SteppedCollective a2a(config(Collective::all_to_all, StepAlgorithm::pairwise, n, 8, s));
            CHECK(a2a.step_count() == n - 1);
            for (double b : a2a.total_bytes_sent()) CHECK(b == doctest::Approx((n - 1.0) / n * s));
        }
        {
            // Pipelined chain of C chunks: chunk C-1 leaves the root at step C-1 and needs N-1 hops,
            // so N-1 + C-1 steps; every rank but the last on the chain sends the whole message.
            StepConfig cfg = config(Collective::broadcast, StepAlgorithm::ring, n, 8, s);
            cfg.pipeline_chunks = 5;
            cfg.root = 1;
            SteppedCollective bc(cfg);
            CHECK(bc.step_count() == n - 1 + 5 - 1);
            const auto bytes = bc.total_bytes_sent();
            const int last = (1 + n - 1) % n;  // the chain runs root, root+1, ..., root+N-1
            for (int r = 0; r < n; ++r) CHECK(bytes[static_cast<size_t>(r)] == doctest::Approx(r == last ? 0 : s));
        }
    }
}

TEST_CASE("ring all-reduce on 4 ranks: hand-worked buffers, cost and bandwidths") {
    // S = 4 MB over 4 ranks: chunks of 1 MB. One node (gpus_per_node 4), 100 GB/s, 10 us.
    StepConfig cfg = config(Collective::all_reduce, StepAlgorithm::ring, 4, 4, 4e6);
    cfg.intra = Link{100e9, 10e-6};
    SteppedCollective sc(cfg);
    REQUIRE(sc.chunk_count() == 4);
    CHECK(sc.chunk_bytes() == doctest::Approx(1e6));

    // Step 1: rank r adds chunk r-1 into rank r+1, so rank 1's chunk 3 sums ranks 0 and 1.
    REQUIRE(sc.step());
    const ChunkState& r1c3 = sc.buffers()[1][3];
    CHECK(r1c3.contributor_count() == 2);
    CHECK(r1c3.contributors[0]);
    CHECK(r1c3.contributors[1]);
    CHECK(sc.buffers()[1][0].contributor_count() == 1);  // rank 1 sent chunk 0, received nothing into it
    // Each step: 10 us + 1 MB / 100 GB/s = 20 us.
    CHECK(sc.step_time(0) == doctest::Approx(20e-6));
    CHECK(sc.elapsed_time() == doctest::Approx(20e-6));
    CHECK(sc.bytes_sent()[2] == doctest::Approx(1e6));

    // After the reduce-scatter phase (3 steps) chunk 0 went 1 -> 2 -> 3 -> 0, so rank 0 holds its full
    // sum; chunk 1 went 2 -> 3 -> 0 and on to rank 1, so rank 0's copy of it sums ranks 2, 3 and 0.
    sc.seek(3);
    CHECK(sc.buffers()[0][0].contributor_count() == 4);
    CHECK(sc.buffers()[0][1].contributor_count() == 3);
    CHECK(sc.phase(2) == StepPhase::reduce_scatter);
    CHECK(sc.phase(3) == StepPhase::all_gather);

    // Whole collective: 6 steps * 20 us = 120 us, the same as collective_time's closed form
    // 2*3*10 us + 1.5 * 4 MB / 100 GB/s = 60 + 60 us.
    CHECK(sc.total_time() == doctest::Approx(120e-6));
    CHECK(sc.total_time() == doctest::Approx(collective_time(Collective::all_reduce, 4e6, 4, cfg.intra)));
    // algbw = 4 MB / 120 us = 33.3 GB/s; busbw = algbw * 2*3/4 = 50 GB/s.
    CHECK(sc.algbw() == doctest::Approx(4e6 / 120e-6));
    CHECK(sc.busbw() == doctest::Approx(50e9));
}

TEST_CASE("a ring that crosses nodes is paced by the inter-node link") {
    // 4 ranks, 2 per node: the hops 1->2 and 3->0 cross nodes in every step, so each step costs
    // 20 us + 1 MB / 10 GB/s = 120 us; 6 steps = 720 us.
    StepConfig cfg = config(Collective::all_reduce, StepAlgorithm::ring, 4, 2, 4e6);
    cfg.intra = Link{100e9, 10e-6};
    cfg.inter = Link{10e9, 20e-6};
    SteppedCollective sc(cfg);
    int inter = 0;
    for (const Transfer& t : sc.transfers(0)) inter += t.link == LinkClass::inter;
    CHECK(inter == 2);
    CHECK(sc.step_time(0) == doctest::Approx(120e-6));
    CHECK(sc.total_time() == doctest::Approx(720e-6));
}

TEST_CASE("hierarchical all-reduce keeps most bytes inside the node") {
    // 8 ranks, 4 per node (M = 2 nodes), S = 8 MB: chunks of 1 MB, shards of 2 MB. No latency.
    // Phase 1: 3 steps of 2 MB at 100 GB/s = 20 us each; phase 2: 2 steps of 1 MB at 10 GB/s =
    // 100 us each; phase 3 like phase 1: 60 + 200 + 60 = 320 us.
    StepConfig cfg = config(Collective::all_reduce, StepAlgorithm::hierarchical, 8, 4, 8e6);
    cfg.intra = Link{100e9, 0};
    cfg.inter = Link{10e9, 0};
    SteppedCollective h(cfg);
    CHECK(h.step_count() == 8);
    CHECK(h.total_time() == doctest::Approx(320e-6));
    // The flat ring on the same cluster crosses nodes in all 14 steps: 14 * 1 MB / 10 GB/s = 1.4 ms.
    cfg.algorithm = StepAlgorithm::ring;
    CHECK(SteppedCollective(cfg).total_time() == doctest::Approx(1.4e-3));
}

TEST_CASE("double binary tree follows NCCL's trees") {
    // NCCL src/graph/trees.cc draws the first tree for 14 ranks: 0-8, 8-{4,12}, 4-{2,6}, 12-{10,13},
    // 2-{1,3}, 6-{5,7}, 10-{9,11}. With 14 ranks (even) the second tree is its mirror r -> 13-r.
    StepConfig cfg = config(Collective::all_reduce, StepAlgorithm::double_binary_tree, 14, 14);
    SteppedCollective sc(cfg);
    std::set<std::pair<int, int>> up[2];  // child -> parent edges of each tree's reduce phase
    for (int k = 0; k < sc.step_count(); ++k)
        for (const Transfer& t : sc.transfers(k))
            if (t.phase == StepPhase::tree_reduce) up[t.tree].insert({t.src, t.dst});
    const std::set<std::pair<int, int>> tree0 = {{8, 0},  {4, 8},  {12, 8}, {2, 4},  {6, 4},  {10, 12}, {13, 12},
                                                 {1, 2},  {3, 2},  {5, 6},  {7, 6},  {9, 10}, {11, 10}};
    CHECK(up[0] == tree0);
    std::set<std::pair<int, int>> tree1;
    for (const auto& [child, parent] : tree0) tree1.insert({13 - child, 13 - parent});
    CHECK(up[1] == tree1);
    // The drawing helper reports the same trees: 8 is 0's child in tree 0, 5 (= 13-8) is 13's in tree 1.
    CHECK(sc.tree_parents(0)[8] == 0);
    CHECK(sc.tree_parents(0)[0] == -1);
    CHECK(sc.tree_parents(1)[5] == 13);
    CHECK(sc.tree_parents(1)[13] == -1);
    // Each tree carries half the message: chunks [0, 7) in tree 0 and [7, 14) in tree 1 (7 per tree).
    REQUIRE(sc.chunk_count() == 14);
    for (int k = 0; k < sc.step_count(); ++k)
        for (const Transfer& t : sc.transfers(k)) CHECK((t.chunk < 7) == (t.tree == 0));
}

TEST_CASE("binary tree broadcast: a parent feeding two children pays for both") {
    // 7 ranks, one chunk: heap tree 0 -> {1,2}, 1 -> {3,4}, 2 -> {5,6}: 2 steps. In each step a
    // parent sends the whole 1 MB twice: 1 us + 2 MB / 100 GB/s = 21 us per step, 42 us in all.
    StepConfig cfg = config(Collective::broadcast, StepAlgorithm::tree, 7, 8, 1e6);
    cfg.pipeline_chunks = 1;
    cfg.intra = Link{100e9, 1e-6};
    SteppedCollective sc(cfg);
    CHECK(sc.step_count() == 2);
    CHECK(sc.transfers(0).size() == 2);
    CHECK(sc.transfers(1).size() == 4);
    CHECK(sc.step_time(0) == doctest::Approx(21e-6));
    CHECK(sc.total_time() == doctest::Approx(42e-6));
    const auto bytes = sc.total_bytes_sent();
    CHECK(bytes[0] == doctest::Approx(2e6));
    CHECK(bytes[6] == doctest::Approx(0.0));
    CHECK(sc.bytes_in_step(1)[1] == doctest::Approx(2e6));  // rank 1 feeds ranks 3 and 4 in step 2
    CHECK(sc.bytes_in_step(1)[0] == doctest::Approx(0.0));
    CHECK(sc.tree_parents() == std::vector<int>{-1, 0, 0, 1, 1, 2, 2});
}

TEST_CASE("captions say what the step does") {
    SteppedCollective sc(config(Collective::all_reduce, StepAlgorithm::ring, 8, 8, 8 * 1024 * 1024));
    // Step 3 (k = 2): rank 0 sends chunk (0 - 2 - 1) mod 8 = 5 to rank 1. Chunks are 1 MiB.
    CHECK(sc.caption(2) ==
          "Step 3 of 14 (reduce-scatter phase): each rank sends one chunk to its right neighbour, which adds it "
          "to its own (rank 0 sends chunk 5 to rank 1). 8 transfers of 1 MiB each: 8 intra-node, 0 inter-node.");
    // Step 8 (k = 7) opens the all-gather phase: rank 0 forwards its finished chunk 0.
    CHECK(sc.caption(7).rfind("Step 8 of 14 (all-gather phase): each rank passes a finished chunk", 0) == 0);
    CHECK(sc.caption(7).find("(rank 0 sends chunk 0 to rank 1)") != std::string::npos);
}

TEST_CASE("configs that cannot be stepped are rejected with the field named") {
    StepConfig cfg = config(Collective::all_reduce, StepAlgorithm::hierarchical, 8, 3);
    CHECK(check_step_config(cfg) == "gpus_per_node: 3 does not divide ranks (8) for the hierarchical all-reduce");
    CHECK_THROWS_AS(SteppedCollective{cfg}, std::invalid_argument);
    cfg = config(Collective::all_gather, StepAlgorithm::tree, 8);
    CHECK(check_step_config(cfg).rfind("algorithm:", 0) == 0);
    cfg = config(Collective::broadcast, StepAlgorithm::ring, 8);
    cfg.root = 8;
    CHECK(check_step_config(cfg).rfind("root:", 0) == 0);
}

TEST_CASE("64 ranks: a ring all-reduce steps forward and back to where it started") {
    SteppedCollective sc(config(Collective::all_reduce, StepAlgorithm::ring, 64, 8));
    const CollectiveSnapshot start = sc.snapshot();
    sc.seek(sc.step_count());
    CHECK(sc.step_count() == 126);
    CHECK(sc.unmet_promises().empty());
    sc.seek(0);
    CHECK(sc.snapshot() == start);
}

TEST_CASE("time against message size: latency-bound trees, exact ring numbers") {
    const Link intra{450e9, 2e-6};
    const Link inter{50e9, 5e-6};
    const auto points = time_vs_message_size(Collective::all_reduce, 64, 8, intra, inter);
    // 64 B .. 4 GiB in powers of two: 2^6 .. 2^32, 27 sizes.
    REQUIRE(points.size() == 27);
    CHECK(points.front().bytes == 64);
    CHECK(points.back().bytes == doctest::Approx(4294967296.0));
    // Ring on 64 ranks, 8 per node: all 126 steps include a node-crossing hop, each 5 us + (64/64 B) / 50 GB/s.
    CHECK(points.front().ring_s == doctest::Approx(126 * (5e-6 + 1.0 / 50e9)));
    // At 64 B the tree's O(log N) latency terms beat the ring's 126.
    REQUIRE(points.front().tree_s.has_value());
    CHECK(*points.front().tree_s < points.front().ring_s / 4);
    REQUIRE(points.front().hierarchical_s.has_value());
    // All-gather has no tree in this model; hierarchical is all-reduce only.
    const auto ag = time_vs_message_size(Collective::all_gather, 8, 8, intra, inter);
    CHECK_FALSE(ag.front().tree_s.has_value());
    CHECK_FALSE(ag.front().hierarchical_s.has_value());
    // One node: ring all-gather of 4 GiB = 7 * 2 us + 7/8 * 4 GiB / 450 GB/s.
    CHECK(ag.back().ring_s == doctest::Approx(7 * 2e-6 + 7.0 / 8 * 4294967296.0 / 450e9));
}

TEST_CASE("ring reduce: a pipelined chain that ends at the root") {
    // 4 ranks, root 2, 2 chunks: the chain is 3 -> 0 -> 1 -> 2, so N-1 + C-1 = 4 steps.
    StepConfig cfg = config(Collective::reduce, StepAlgorithm::ring, 4, 4, 2e6);
    cfg.root = 2;
    cfg.pipeline_chunks = 2;
    SteppedCollective sc(cfg);
    CHECK(sc.step_count() == 4);
    sc.step();  // 3 adds chunk 0 into rank 0
    CHECK(sc.buffers()[0][0].contributor_count() == 2);
    CHECK(sc.buffers()[0][0].contributors[3]);
    sc.step();  // 0 adds chunk 0 (ranks 3, 0) into rank 1 while 3 adds chunk 1 into rank 0
    CHECK(sc.buffers()[1][0].contributor_count() == 3);
    CHECK(sc.buffers()[0][1].contributor_count() == 2);
    CHECK(sc.buffers()[2][0].contributor_count() == 1);  // the root has only its own so far
    sc.seek(4);
    CHECK(sc.buffers()[2][0].contributor_count() == 4);
    CHECK(sc.buffers()[2][1].contributor_count() == 4);
    // Everyone but the root sends both 1 MB chunks once.
    CHECK(sc.total_bytes_sent() == std::vector<double>{2e6, 2e6, 0, 2e6});
}

TEST_CASE("pairwise all-to-all on 4 ranks after one step") {
    // Step 1 (k = 1): rank r sends its chunk r+1 to rank r+1, which files it in slot r.
    SteppedCollective sc(config(Collective::all_to_all, StepAlgorithm::pairwise, 4, 4));
    CHECK(sc.buffers()[1][0].chunk == -1);  // nothing from rank 0 yet
    sc.step();
    CHECK(sc.buffers()[1][0].chunk == 1);
    CHECK(sc.buffers()[1][0].contributors[0]);
    CHECK(sc.buffers()[0][3].chunk == 0);  // rank 3 sent its chunk 0 round to rank 0
    CHECK(sc.buffers()[0][3].contributors[3]);
    CHECK(sc.buffers()[0][1].chunk == -1);  // rank 1's chunk 0 comes at step 3 (k = 3)
    CHECK(sc.buffers()[0][0].chunk == 0);   // a rank's own chunk never travels
}

TEST_CASE("time against message size for broadcast: chain vs tree at 64 B") {
    const Link intra{100e9, 1e-6};
    const auto points = time_vs_message_size(Collective::broadcast, 8, 8, intra, intra, 64, 64);
    REQUIRE(points.size() == 1);
    // Chain of 8 ranks cut in 8 chunks of 8 B: 7 + 7 = 14 steps of 1 us + 8 B / 100 GB/s.
    CHECK(points[0].ring_s == doctest::Approx(14 * (1e-6 + 8 / 100e9)));
    // Best tree: one chunk; heap tree 0 -> {1,2} -> {3..6} -> 7 is 3 steps, parents feeding two
    // children pay 2 * 64 B: 3 * (1 us + 128 B / 100 GB/s). Two chunks would already cost 4 steps.
    REQUIRE(points[0].tree_s.has_value());
    CHECK(*points[0].tree_s == doctest::Approx(3 * (1e-6 + 128 / 100e9)));
    CHECK_FALSE(points[0].hierarchical_s.has_value());
}
