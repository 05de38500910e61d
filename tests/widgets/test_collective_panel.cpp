// Collective animator panel: the draw records and read-out it builds, its actions, and
// the transport buttons. Expected values are worked out by hand from the default scenario's links
// (intra 450 GB/s and 2 us, inter 50 GB/s and 5 us, 8 GPUs per node) and a 1 GiB message.

#include "imgui_fixture.hpp"
#include "panel_harness.hpp"
#include "widgets/collective/collective_panel.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace shardscope;
using shardscope::test::ImGuiFixture;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Draws the panel in its own window, the way the registry does.
using PanelHarness = shardscope::test::PanelHarness<ui::CollectivePanel>;

// Every cell of the scene agrees with core's snapshot: chunk and contributors, slot by slot.
void check_cells_match(const ui::CollectiveScene& scene, const CollectiveSnapshot& snap) {
    REQUIRE(scene.cards.size() == snap.buffers.size());
    for (size_t r = 0; r < scene.cards.size(); ++r) {
        const auto& cells = scene.cards[r].cells;
        REQUIRE(cells.size() == snap.buffers[r].size());
        for (size_t s = 0; s < cells.size(); ++s) {
            CAPTURE(r);
            CAPTURE(s);
            CHECK(cells[s].chunk == snap.buffers[r][s].chunk);
            CHECK(static_cast<int>(cells[s].contributors.size()) == snap.buffers[r][s].contributor_count());
        }
    }
}

StepConfig ring_all_reduce_8() {
    StepConfig c;
    c.ranks = 8;
    c.gpus_per_node = 8;
    c.message_bytes = kGiB;
    // The default cluster (assets/clusters/dgx-h100.json): NCCL's bus bandwidths over NVLink 4 and NDR.
    c.intra = Link{370e9, 2e-6};
    c.inter = Link{48e9, 5e-6};
    return c;
}

}  // namespace

TEST_CASE("ring all-reduce on 8 ranks at step 4: 8 arrows, cells as core's snapshot, read-out by hand") {
    PanelHarness h;
    h.act("algorithm", "ring-all-reduce");
    h.act("ranks", "8");
    h.act("size", "1GiB");
    h.act("step", "4");
    h.frames(2);

    const ui::CollectiveScene& scene = h.panel.scene();
    CHECK(scene.layout == ui::SceneLayout::ring);
    CHECK(scene.steps_done == 4);
    CHECK(scene.step_count == 14);       // 2(N-1)
    CHECK(scene.arrows_step == 3);       // at rest the arrows show the step that just landed (4th)
    CHECK(scene.flight == 1.0f);
    REQUIRE(scene.arrows.size() == 8);   // every rank sends one chunk to its right neighbour
    for (const ui::TransferArrow& a : scene.arrows) {
        CHECK(a.dst == (a.src + 1) % 8);
        CHECK(a.op == TransferOp::reduce);
        CHECK(a.link == LinkClass::intra);  // one node of 8
    }
    check_cells_match(scene, h.panel.collective()->snapshot());

    // Chunk 4 started at rank 5 and went 5 -> 6 -> 7 -> 0 -> 1: after step 4 rank 1's slot 4 sums
    // ranks 0, 1, 5, 6, 7; rank 1's own chunk 1 has not come round yet (it lands at step 7).
    const ui::ChunkCell& half = scene.cards[1].cells[4];
    CHECK(half.contributors == std::vector<int>{0, 1, 5, 6, 7});
    CHECK(half.receiving);
    CHECK_FALSE(half.complete);
    CHECK(scene.cards[1].cells[1].contributors == std::vector<int>{1});
    // The arrow 0 -> 1 carried chunk 4 as it stood at rank 0 after step 3: ranks 0, 5, 6, 7.
    const auto arrow01 = std::find_if(scene.arrows.begin(), scene.arrows.end(),
                                      [](const ui::TransferArrow& a) { return a.src == 0; });
    REQUIRE(arrow01 != scene.arrows.end());
    CHECK(arrow01->chunk == 4);
    CHECK(arrow01->payload == std::vector<int>{0, 5, 6, 7});

    const ui::CollectiveReadout& r = h.panel.readout();
    CHECK(r.step == 4);
    CHECK(r.step_count == 14);
    CHECK(r.phase == "reduce-scatter");
    CHECK(r.bytes_this_step == doctest::Approx(kGiB / 8));         // one chunk of S/N
    CHECK(r.bytes_so_far == doctest::Approx(4 * kGiB / 8));        // four chunks so far
    CHECK(r.bytes_total == doctest::Approx(14 * kGiB / 8));        // 2(N-1) chunks
    REQUIRE(r.formula_bytes.has_value());
    CHECK(*r.formula_bytes == doctest::Approx(2.0 * 7 / 8 * kGiB));  // 2(N-1)/N * S, equal to the above
    // Each step on the default cluster's NVLink (370 GB/s as NCCL measures it): 2 us + (2^30 / 8) B /
    // 370e9 B/s = 2e-6 + 362.75e-6 s = 364.75 us.
    const double step_s = 2e-6 + kGiB / 8 / 370e9;
    CHECK(r.step_time_s == doctest::Approx(step_s));
    CHECK(r.elapsed_s == doctest::Approx(4 * step_s));
    CHECK(r.total_s == doctest::Approx(14 * step_s));
    CHECK(r.algbw == doctest::Approx(kGiB / (14 * step_s)));
    CHECK(r.busbw == doctest::Approx(kGiB / (14 * step_s) * 2 * 7 / 8));
    CHECK(r.caption.find("Step 4 of 14") == 0);
}

TEST_CASE("step back restores the previous state, and step forward lands on the same one again") {
    PanelHarness h;
    h.act("ranks", "8");
    h.act("step", "4");
    h.frames(2);
    const CollectiveSnapshot at4 = h.panel.collective()->snapshot();

    REQUIRE(h.click("collective/step_back"));
    CHECK(h.panel.position() == 3.0f);
    CHECK(h.panel.scene().arrows_step == 2);
    SteppedCollective reference(ring_all_reduce_8());
    reference.seek(3);
    CHECK(h.panel.collective()->snapshot() == reference.snapshot());
    check_cells_match(h.panel.scene(), reference.snapshot());

    REQUIRE(h.click("collective/step"));
    h.frames(120);  // at 1.5 steps/s one step lands within 40 frames of 1/60 s
    CHECK(h.panel.position() == 4.0f);
    CHECK(h.panel.collective()->snapshot() == at4);
    check_cells_match(h.panel.scene(), at4);
}

TEST_CASE("while a step is in flight the arrows show it and the buffers are still those before it") {
    PanelHarness h;
    h.act("ranks", "8");
    h.act("step", "4");
    h.frames(1);
    REQUIRE(h.click("collective/step"));  // three frames: press, release, one more
    const ui::CollectiveScene& scene = h.panel.scene();
    REQUIRE(h.panel.position() > 4.0f);
    REQUIRE(h.panel.position() < 5.0f);
    CHECK(scene.steps_done == 4);
    CHECK(scene.arrows_step == 4);  // the fifth step, moving
    CHECK(scene.flight > 0.0f);
    CHECK(scene.flight < 1.0f);
    CHECK(h.panel.readout().step == 5);
    CHECK(h.panel.readout().in_flight);
    // Step 5 (1-based): rank 0 sends chunk 3, which after step 4 sums ranks 0, 4, 5, 6, 7.
    const auto a = std::find_if(scene.arrows.begin(), scene.arrows.end(), [](const auto& t) { return t.src == 0; });
    REQUIRE(a != scene.arrows.end());
    CHECK(a->chunk == 3);
    CHECK(a->payload == std::vector<int>{0, 4, 5, 6, 7});
    check_cells_match(scene, h.panel.collective()->snapshot());
}

TEST_CASE("two nodes of four: the arrows crossing nodes are inter-node, the rest intra") {
    PanelHarness h;
    h.act("ranks", "8");
    h.act("gpus_per_node", "4");
    h.act("step", "1");
    h.frames(2);
    int inter = 0;
    for (const auto& a : h.panel.scene().arrows) {
        const bool crosses = a.src / 4 != a.dst / 4;
        CHECK((a.link == LinkClass::inter) == crosses);
        inter += crosses;
    }
    CHECK(inter == 2);  // 3 -> 4 and 7 -> 0
    // Two nodes: two arcs inside the ring, node 0 round GPUs 0..3 (from the top, clockwise).
    const auto& arcs = h.panel.scene().node_arcs;
    REQUIRE(arcs.size() == 2);
    CHECK(arcs[0].node == 0);
    CHECK(arcs[0].angle_begin < -1.5707964f);           // starts just before GPU 0 at -pi/2
    CHECK(arcs[0].angle_end > -1.5707964f + 3 * 0.7853982f);  // ends just after GPU 3 (3 * 2pi/8 on)
    // The scenario's cluster keeps 8 per node; the panel's own choice stays at 4 on a scenario edit.
    Scenario edited = h.state.scenario();
    edited.cluster.inter_node.bandwidth_gbps = 100;
    REQUIRE(h.state.try_apply(edited) == "");
    h.frames(2);
    CHECK(h.panel.config().gpus_per_node == 4);
    CHECK(h.panel.config().inter.bandwidth_bytes_per_s == doctest::Approx(100e9));
}

TEST_CASE("hierarchical all-reduce draws node boxes holding their GPUs; tree broadcast draws levels") {
    PanelHarness h;
    h.act("ranks", "16");
    h.act("gpus_per_node", "4");
    h.act("algorithm", "hierarchical-all-reduce");
    h.frames(2);
    const ui::CollectiveScene& nodes = h.panel.scene();
    CHECK(nodes.layout == ui::SceneLayout::nodes);
    REQUIRE(nodes.nodes.size() == 4);
    for (const ui::RankCard& card : nodes.cards) {
        const ui::Rect& box = nodes.nodes[static_cast<size_t>(card.rank / 4)].rect;
        CHECK(card.node == card.rank / 4);
        CHECK(card.rect.min.x >= box.min.x);
        CHECK(card.rect.max.x <= box.max.x);
        CHECK(card.rect.min.y >= box.min.y);
        CHECK(card.rect.max.y <= box.max.y);
    }

    h.act("algorithm", "tree-broadcast");
    h.frames(2);
    const ui::CollectiveScene& tree = h.panel.scene();
    CHECK(tree.layout == ui::SceneLayout::tree);
    const std::vector<int> parents = h.panel.collective()->tree_parents(0);
    for (int r = 0; r < 16; ++r) {
        const int p = parents[static_cast<size_t>(r)];
        if (p >= 0) CHECK(tree.cards[static_cast<size_t>(r)].rect.min.y > tree.cards[static_cast<size_t>(p)].rect.max.y);
    }
}

TEST_CASE("no two cards overlap, for every layout and N from 2 to 64") {
    auto overlap = [](const ui::Rect& a, const ui::Rect& b) {
        return a.min.x < b.max.x && b.min.x < a.max.x && a.min.y < b.max.y && b.min.y < a.max.y;
    };
    for (const char* setup : {"ring-all-reduce", "tree-broadcast", "hierarchical-all-reduce"}) {
        for (int n : {2, 3, 8, 13, 16, 32, 64}) {
            StepConfig c = ring_all_reduce_8();
            c.ranks = n;
            c.gpus_per_node = n % 4 == 0 ? 4 : n;
            c.algorithm = std::string(setup) == "tree-broadcast" ? StepAlgorithm::tree
                          : std::string(setup) == "hierarchical-all-reduce" ? StepAlgorithm::hierarchical
                                                                             : StepAlgorithm::ring;
            c.collective = c.algorithm == StepAlgorithm::tree ? Collective::broadcast : Collective::all_reduce;
            const SteppedCollective sc(c);
            ui::SceneInput in;
            in.collective = &sc;
            in.size = ImVec2(1000, 760);
            const ui::CollectiveScene scene = ui::build_scene(in);
            if (c.algorithm == StepAlgorithm::ring)
                CHECK(scene.layout == (n > 24 ? ui::SceneLayout::snake : ui::SceneLayout::ring));
            CAPTURE(setup);
            CAPTURE(n);
            for (size_t i = 0; i < scene.cards.size(); ++i) {
                const ui::Rect& a = scene.cards[i].rect;
                CHECK(a.min.x >= 0);
                CHECK(a.min.y >= 0);
                CHECK(a.max.x <= 1000);
                CHECK(a.max.y <= 760);
                for (size_t j = i + 1; j < scene.cards.size(); ++j) CHECK_FALSE(overlap(a, scene.cards[j].rect));
            }
        }
    }
}

TEST_CASE("actions refuse what cannot be stepped and leave the setup as it was") {
    PanelHarness h;
    h.frames(1);
    CHECK(h.panel.act(h.state, "ranks", "65").find("collective.ranks") == 0);
    CHECK(h.panel.act(h.state, "ranks", "two").find("collective.ranks") == 0);
    CHECK(h.panel.act(h.state, "algorithm", "bogus").find("ring-all-reduce") != std::string::npos);
    CHECK(h.panel.act(h.state, "size", "lots").find("collective.size") == 0);
    CHECK(h.panel.act(h.state, "step", "15").find("0..14") != std::string::npos);
    CHECK(h.panel.act(h.state, "nonsense", "1").find("no action") != std::string::npos);
    h.act("gpus_per_node", "3");
    // 3 does not divide 8: core's rule, prefixed with the panel id.
    CHECK(h.panel.act(h.state, "algorithm", "hierarchical-all-reduce") ==
          "collective.gpus_per_node: 3 does not divide ranks (8) for the hierarchical all-reduce");
    CHECK(h.panel.config().algorithm == StepAlgorithm::ring);
    CHECK(h.panel.config().ranks == 8);
    h.act("size", "64 KiB");
    CHECK(h.panel.config().message_bytes == 65536.0);
    h.act("collective", "broadcast");  // ring is one of broadcast's algorithms: kept
    CHECK(h.panel.config().algorithm == StepAlgorithm::ring);
    h.act("collective", "all-to-all");  // ring is not: the first of all-to-all's, pairwise
    CHECK(h.panel.config().algorithm == StepAlgorithm::pairwise);
}

TEST_CASE("play runs to the end frame by frame and stops there") {
    PanelHarness h;
    h.act("ranks", "4");  // 6 steps
    h.act("speed", "8");
    h.act("play", "1");
    CHECK(h.panel.playing());
    h.frames(10);
    CHECK(h.panel.position() > 0.0f);
    h.frames(120);  // 6 steps at 8 steps/s need 45 frames of 1/60 s
    CHECK_FALSE(h.panel.playing());
    CHECK(h.panel.position() == 6.0f);
    CHECK(h.panel.collective()->finished());
    CHECK(h.panel.collective()->unmet_promises().empty());
    // At the end every cell is the full sum.
    for (const auto& card : h.panel.scene().cards)
        for (const auto& cell : card.cells) CHECK(cell.complete);
}

TEST_CASE("the message size slider takes no typed number: it was read as the power of two") {
    // A new user Ctrl+clicked it and typed 4096: the size became 2^4096 bytes, no number at all, and
    // every button greyed out; "4 KiB" became 16 B.
    PanelHarness h;
    h.frames(2);
    const auto rect = ui::find_item_rect("collective/size");
    REQUIRE(rect);
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = true;
    h.click("collective/size");
    io.KeyCtrl = false;
    for (char c : std::string("4096")) io.AddInputCharacter(c);
    io.KeysDown[ImGuiKey_Enter] = true;
    h.frames(1);
    io.KeysDown[ImGuiKey_Enter] = false;
    h.frames(2);
    const double bytes = h.panel.config().message_bytes;
    CHECK(std::isfinite(bytes));
    CHECK(bytes >= 64.0);
    CHECK(bytes <= 4.0 * kGiB);
    CHECK(std::exp2(std::round(std::log2(bytes))) == bytes);
}
