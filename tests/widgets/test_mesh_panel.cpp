// Device mesh panel: the draw records it builds against groups worked out by hand, the draft that
// keeps the last valid mesh, actions, selection and level of detail.
#include "imgui_fixture.hpp"
#include "widgets/mesh/mesh_panel.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

using namespace shardscope;
using shardscope::test::ImGuiFixture;

namespace {

// 2 nodes x 4 GPUs, tp 2, dp_shard 2, dp_replicate 2, default order (tp, cp, dp_shard, dp_replicate,
// pp): strides tp 1, dp_shard 2, dp_replicate 4. Ranks 0-3 sit on node 0, 4-7 on node 1.
Scenario two_by_four() {
    Scenario s = default_scenario();
    s.cluster.nodes = 2;
    s.cluster.gpus_per_node = 4;
    s.parallel.tp = 2;
    s.parallel.pp = 1;
    s.parallel.dp_shard = 2;
    s.parallel.dp_replicate = 2;
    s.parallel.zero = 3;
    s.training.global_batch = 256;  // 256 / (1 * 2 * 2) = 64 micro-batches
    return s;
}

// The 131,072-GPU cluster of the benchmark: 16,384 nodes x 8, tp 8, pp 16, dp_shard 1024.
Scenario huge() {
    Scenario s = default_scenario();
    s.cluster.nodes = 16384;
    s.cluster.gpus_per_node = 8;
    s.parallel.tp = 8;
    s.parallel.pp = 16;
    s.parallel.dp_shard = 1024;
    s.parallel.dp_replicate = 1;
    s.training.global_batch = 2048;  // 2048 / 1024 = 2 sequences per pipeline
    return s;
}

struct Harness {
    // The app's OpenGL 3 backend lets a draw list pass 64k vertices (vertex offsets); so does this one.
    explicit Harness(Scenario s) : state(std::move(s)) {
        ImGui::GetIO().BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
    }
    ImGuiFixture f{1600, 1000};
    ui::AppState state;
    ui::MeshPanel panel{ui::Placement{}, true};
    std::function<void()> draw = [this] {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(1600, 1000));
        ImGui::Begin("Device mesh###mesh");
        panel.draw(state);
        ImGui::End();
        state.end_frame(ImGui::IsAnyItemActive());
    };
    void frames(int n = 2) { f.frames(n, draw); }
};

// The ranks of each colour class (group of the picked dim) among the drawn GPU cells.
std::set<std::set<int64_t>> colour_classes(const ui::MeshPanel& panel) {
    const auto& r = panel.records();
    std::map<int64_t, std::set<int64_t>> by_group;
    for (const auto& cell : r.gpus) by_group[cell.groups[dim_index(r.dim)]].insert(cell.rank);
    std::set<std::set<int64_t>> out;
    for (auto& [group, ranks] : by_group) out.insert(ranks);
    return out;
}

}  // namespace

TEST_CASE("the 2x4 scenario is valid") { CHECK(validate_scenario(two_by_four()).empty()); }

TEST_CASE("picking tp colours the pairs {0,1} {2,3} {4,5} {6,7}, all inside a node") {
    Harness h(two_by_four());
    REQUIRE(h.panel.act(h.state, "dim", "tp").empty());
    h.frames();
    const auto& r = h.panel.records();
    CHECK(r.level == ui::mesh::Level::gpus);
    CHECK(r.gpus.size() == 8);
    CHECK(r.nodes.size() == 2);
    CHECK(colour_classes(h.panel) == std::set<std::set<int64_t>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
    for (const auto& cell : r.gpus) CHECK(cell.intra);
    CHECK(r.links.empty());
}

TEST_CASE("dp_shard groups {0,2} {1,3} {4,6} {5,7} stay in a node and the mesh is named HSDP") {
    Harness h(two_by_four());
    REQUIRE(h.panel.act(h.state, "dim", "dp_shard").empty());
    h.frames();
    CHECK(colour_classes(h.panel) == std::set<std::set<int64_t>>{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
    for (const auto& cell : h.panel.records().gpus) CHECK(cell.intra);
    CHECK(std::count(h.panel.badges().begin(), h.panel.badges().end(), "HSDP") == 1);
}

TEST_CASE("dp_replicate groups span the two nodes: drawn slow, with one arc per group across the boundary") {
    Harness h(two_by_four());
    REQUIRE(h.panel.act(h.state, "dim", "dp_replicate").empty());
    h.frames();
    const auto& r = h.panel.records();
    CHECK(colour_classes(h.panel) == std::set<std::set<int64_t>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
    for (const auto& cell : r.gpus) CHECK_FALSE(cell.intra);
    // Member 0 (rank r on node 0) links to member 1 (rank r + 4 on node 1): four arcs.
    REQUIRE(r.links.size() == 4);
    std::set<int64_t> link_groups;
    for (const auto& l : r.links) link_groups.insert(l.group);
    CHECK(link_groups == std::set<int64_t>{0, 1, 2, 3});
    // Each arc starts at a node-0 cell and ends at a node-1 cell.
    for (const auto& l : r.links) {
        CHECK(l.from.x < l.to.x + 1e-3f);
        const auto on = [&](ImVec2 p) {
            for (const auto& c : r.gpus)
                if (p.x > c.min.x && p.x < c.max.x && p.y > c.min.y && p.y < c.max.y) return c.node;
            return int64_t{-1};
        };
        CHECK(on(l.from) == 0);
        CHECK(on(l.to) == 1);
    }
}

TEST_CASE("an invalid factor shows core's message and keeps the last valid mesh drawn") {
    Harness h(two_by_four());
    h.panel.act(h.state, "dim", "tp");
    h.frames();
    const unsigned long version = h.state.version();
    // tp 3: 3 * 2 * 2 = 12 does not divide 8 GPUs (and 3 does not divide 32 heads). The action says
    // so (`--action mesh.tp=3` exits 2) and the draft stays on screen with the same message.
    const std::string said = h.panel.act(h.state, "tp", "3");
    h.frames();
    CHECK_FALSE(h.panel.draft_error().empty());
    CHECK(h.panel.draft_error().find("parallel") == 0);
    CHECK(said == "mesh.tp: " + h.panel.draft_error());
    CHECK(h.panel.draft().parallel.tp == 3);
    CHECK(h.state.scenario().parallel.tp == 2);
    CHECK(h.state.version() == version);
    CHECK(colour_classes(h.panel) == std::set<std::set<int64_t>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
    REQUIRE(ui::find_item_rect("mesh/error").has_value());

    // Back to a valid factor: applied, message gone. tp 4 * dp_shard 2 = 8 GPUs: dp_replicate 2 no
    // longer fits, so also take it to 1.
    CHECK_FALSE(h.panel.set_factor(h.state, Dim::tp, 4).empty());
    CHECK(h.panel.set_factor(h.state, Dim::dp_replicate, 1).empty());
    h.frames();
    CHECK(h.panel.draft_error().empty());
    CHECK(h.state.scenario().parallel.tp == 4);
    CHECK(colour_classes(h.panel) == std::set<std::set<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}});
}

TEST_CASE("moving a dim in the order re-strides the mesh") {
    Harness h(two_by_four());
    h.panel.act(h.state, "dim", "tp");
    // Order dp_replicate, tp, cp, dp_shard, pp: dp_replicate stride 1, tp stride 2, dp_shard 4.
    CHECK(h.panel.move_in_order(h.state, 3, 0).empty());
    h.frames();
    CHECK(h.state.scenario().parallel.order.front() == Dim::dp_replicate);
    CHECK(h.state.mesh().stride(Dim::tp) == 2);
    CHECK(colour_classes(h.panel) == std::set<std::set<int64_t>>{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
    CHECK(h.panel.act(h.state, "order", "tp,cp,dp_shard,dp_replicate,pp").empty());
    CHECK(h.state.mesh().stride(Dim::tp) == 1);
}

TEST_CASE("select by action and by clicking a GPU cell") {
    Harness h(two_by_four());
    h.frames();
    CHECK(h.panel.act(h.state, "select", "5").empty());
    CHECK(h.panel.selected() == 5);
    CHECK_FALSE(h.panel.act(h.state, "select", "8").empty());  // only ranks 0-7
    CHECK_FALSE(h.panel.act(h.state, "dim", "dp").empty());
    h.frames();
    const ImVec2 centre = h.panel.grid().screen_centre_of(6);
    h.f.click(centre.x, centre.y, h.draw);
    CHECK(h.panel.selected() == 6);
    CHECK(h.panel.grid().hovered_rank() == 6);
}

TEST_CASE("leftover GPUs are drawn as replicas and named") {
    // 8 x 8 = 64 GPUs, tp 2 x dp_shard 4 x pp 2 = 16: dp_replicate grows from 1 to 4. Strides: tp 1,
    // dp_shard 2, dp_replicate 8, pp 32; the leftover ranks have dp_replicate coordinate (r / 8) % 4
    // of 1-3: all but ranks 0-7 and 32-39, 48 GPUs.
    Scenario s = default_scenario();
    s.parallel.dp_shard = 4;
    s.parallel.dp_replicate = 1;
    REQUIRE(validate_scenario(s).empty());
    Harness h(s);
    h.panel.act(h.state, "dim", "dp_replicate");
    h.frames();
    const auto& r = h.panel.records();
    REQUIRE(r.gpus.size() == 64);
    for (const auto& cell : r.gpus) CHECK(cell.leftover == ((cell.rank / 8) % 4 != 0));
    int leftover = 0;
    for (const auto& cell : r.gpus) leftover += cell.leftover ? 1 : 0;
    CHECK(leftover == 48);
    CHECK(std::count(h.panel.badges().begin(), h.panel.badges().end(), "leftover") == 1);
}

TEST_CASE("131,072 GPUs: blocks of nodes, each coloured by its intra-node share, covering every node") {
    REQUIRE(validate_scenario(huge()).empty());
    Harness h(huge());
    h.panel.act(h.state, "dim", "tp");
    h.frames();
    const auto& r = h.panel.records();
    CHECK(r.level == ui::mesh::Level::blocks);
    CHECK(r.gpus.empty());
    CHECK(r.cells.size() < 4000);
    int64_t nodes = 0;
    for (const auto& c : r.cells) {
        nodes += c.nodes;
        CHECK(c.intra_share == doctest::Approx(1.0));  // tp 8 fills each node exactly
    }
    CHECK(nodes == 16384);

    h.panel.act(h.state, "dim", "dp_shard");  // stride 8: every group spans nodes
    h.frames();
    for (const auto& c : h.panel.records().cells) CHECK(c.intra_share == doctest::Approx(0.0));

    // Zooming in far enough shows GPU cells again, only the visible ones.
    for (int i = 0; i < 12 && h.panel.records().level != ui::mesh::Level::gpus; ++i) {
        h.panel.grid().zoom_by(2.0f);
        h.frames(1);
    }
    CHECK(h.panel.records().level == ui::mesh::Level::gpus);
    CHECK(h.panel.records().gpus.size() > 0);
    CHECK(h.panel.records().gpus.size() < 20000);
}

TEST_CASE("a cluster preset the app handed over replaces the cluster, or shows why not") {
    Harness h(two_by_four());
    ClusterPreset wide;
    wide.cluster = two_by_four().cluster;
    wide.cluster.name = "Four of four";
    wide.cluster.nodes = 4;  // 16 GPUs: tp 2 x dp_shard 2 x dp_replicate 2 = 8 leaves x2 replicas
    wide.source = "a test";
    ClusterPreset odd = wide;
    odd.cluster.name = "Three of four";
    odd.cluster.nodes = 3;   // 12 GPUs: 8 does not divide 12
    h.panel.set_cluster_presets({wide, odd});
    h.frames();
    CHECK(h.panel.act(h.state, "cluster", "Four of four").empty());
    CHECK(h.state.scenario().cluster.nodes == 4);
    CHECK(h.state.mesh().leftover_factor() == 2);
    CHECK(h.panel.act(h.state, "cluster", "Three of four").rfind("mesh.cluster: ", 0) == 0);
    CHECK_FALSE(h.panel.draft_error().empty());
    CHECK(h.state.scenario().cluster.nodes == 4);
    CHECK_FALSE(h.panel.act(h.state, "cluster", "No such cluster").empty());
}

TEST_CASE("the wheel zooms around the mouse, a drag pans, a double click fits again") {
    Harness h(default_scenario());  // 8 nodes x 8: fitted cells far below the zoom limit
    h.frames();
    const auto canvas = ui::find_item_rect("mesh/canvas");
    REQUIRE(canvas.has_value());
    const ui::mesh::View fitted = h.panel.grid().view();
    // The point under the mouse stays put while the zoom grows.
    const ImVec2 before = h.panel.grid().screen_centre_of(5);
    h.f.move_mouse(before.x, before.y);
    h.f.frame(h.draw);
    ImGui::GetIO().MouseWheel = 2.0f;
    h.f.frame(h.draw);
    ImGui::GetIO().MouseWheel = 0.0f;
    h.f.frame(h.draw);
    CHECK(h.panel.grid().view().zoom > fitted.zoom * 1.3f);
    const ImVec2 after = h.panel.grid().screen_centre_of(5);
    CHECK(after.x == doctest::Approx(before.x).epsilon(0.01));
    CHECK(after.y == doctest::Approx(before.y).epsilon(0.01));

    // Drag 40 px right: everything moves 40 px; a drag selects nothing.
    const int64_t selected = h.panel.selected();
    ImGuiIO& io = ImGui::GetIO();
    io.MouseDown[0] = true;
    h.f.frame(h.draw);
    for (int i = 1; i <= 4; ++i) {
        h.f.move_mouse(before.x + 10.0f * i, before.y);
        h.f.frame(h.draw);
    }
    io.MouseDown[0] = false;
    h.f.frame(h.draw);
    CHECK(h.panel.grid().screen_centre_of(5).x == doctest::Approx(after.x + 40.0f).epsilon(0.01));
    CHECK(h.panel.selected() == selected);

    // Double click: the whole mesh again.
    for (int i = 0; i < 2; ++i) {
        io.MouseDown[0] = true;
        h.f.frame(h.draw);
        io.MouseDown[0] = false;
        h.f.frame(h.draw);
    }
    h.f.frame(h.draw);
    CHECK(h.panel.grid().view().zoom == doctest::Approx(fitted.zoom));
}

TEST_CASE("the order's arrow buttons move a dim") {
    Harness h(two_by_four());
    h.frames();
    REQUIRE(h.f.click_item("mesh/order/dp_replicate/up", h.draw));
    const std::vector<Dim> expected = {Dim::tp, Dim::cp, Dim::dp_replicate, Dim::dp_shard, Dim::pp};
    CHECK(h.state.scenario().parallel.order == expected);
    // dp_replicate now has stride 2 (inside a node), dp_shard stride 4 (across): no longer HSDP.
    h.frames();
    CHECK(h.state.mesh().stride(Dim::dp_replicate) == 2);
    CHECK(std::count(h.panel.badges().begin(), h.panel.badges().end(), "HSDP") == 0);
}

TEST_CASE("dragging a dim onto another row of the order moves it there") {
    Harness h(two_by_four());
    h.frames();
    const auto from = ui::find_item_rect("mesh/order/pp");
    const auto to = ui::find_item_rect("mesh/order/tp");
    REQUIRE(from.has_value());
    REQUIRE(to.has_value());
    ImGuiIO& io = ImGui::GetIO();
    h.f.move_mouse(from->centre_x(), from->centre_y());
    h.f.frame(h.draw);
    io.MouseDown[0] = true;
    h.f.frame(h.draw);
    for (int i = 1; i <= 8; ++i) {
        const float t = static_cast<float>(i) / 8;
        h.f.move_mouse(from->centre_x(), from->centre_y() + (to->centre_y() - from->centre_y()) * t);
        h.f.frame(h.draw);
    }
    io.MouseDown[0] = false;
    h.f.frame(h.draw);
    h.f.frame(h.draw);
    // pp, dropped on tp (row 1), becomes the innermost dim: stride 1.
    CHECK(h.state.scenario().parallel.order.front() == Dim::pp);
    CHECK(h.state.mesh().stride(Dim::pp) == 1);
}

TEST_CASE("zoomed out, frames reuse the cached draw records until the view or the scenario changes") {
    Harness h(huge());
    h.panel.act(h.state, "dim", "dp_shard");
    h.frames();
    const size_t builds = h.panel.grid().record_builds();
    h.frames(3);
    CHECK(h.panel.grid().record_builds() == builds);  // still frames: no walk over nodes or GPUs
    h.panel.grid().zoom_by(1.5f);
    h.frames(1);
    CHECK(h.panel.grid().record_builds() == builds + 1);  // a new view builds new records, once
    h.panel.act(h.state, "dp_shard", "512");
    h.panel.act(h.state, "dp_replicate", "2");
    h.frames(2);
    CHECK(h.panel.draft_error().empty());
    CHECK(h.panel.grid().record_builds() == builds + 2);  // and so does a new scenario
}
