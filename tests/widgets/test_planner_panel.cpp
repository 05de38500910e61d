// The Planner panel: its records (rows, scatter points, Pareto front) against core's ranking, the
// actions, the filters and re-planning, worked on a small dense model on two nodes of 8 H100s.
#include "imgui_fixture.hpp"
#include "widgets/planner/planner_panel.hpp"

#include "core/planner/planner.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace shardscope;
using shardscope::test::ImGuiFixture;
using shardscope::test::small_dense;

namespace {

struct PanelHarness {
    ImGuiFixture fixture;
    ui::AppState state{small_dense()};
    ui::PlannerPanel panel{ui::Placement{}, true};

    void frame() {
        fixture.frame([&] {
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(ImVec2(1600, 1000));
            ImGui::Begin("planner");
            panel.draw(state);
            ImGui::End();
        });
    }
    std::string act(const char* action, const char* value) { return panel.act(state, action, value); }
};

}  // namespace

TEST_CASE("planner panel: rows are core's ranking, best first, with core's figures") {
    PanelHarness h;
    REQUIRE(h.act("wait", "1").empty());
    const ui::PlannerView& v = h.panel.view();
    PlanOptions o = h.panel.options();
    CHECK(o.one_per_mesh);  // the panel's default: one row per mesh
    const PlanResult r = plan_layouts(small_dense(), o);
    REQUIRE(v.rows.size() == r.ranked.size());
    REQUIRE(v.rows.size() >= 10);
    for (std::size_t i = 0; i < v.rows.size(); ++i) {
        CHECK(v.rows[i].rank == static_cast<int>(i) + 1);
        CHECK(v.rows[i].step_s == r.ranked[i].step_s);
        CHECK(v.rows[i].memory_bytes == r.ranked[i].memory_bytes);
        CHECK(v.rows[i].tp == r.ranked[i].scenario.parallel.tp);
        CHECK(v.rows[i].pp == r.ranked[i].scenario.parallel.pp);
    }
    CHECK(v.rows[0].why_below_best.empty());
    CHECK(!v.rows[1].why_below_best.empty());
    CHECK(v.runner_up.rfind("#2 vs #1: ", 0) == 0);
    // 80 GB H100s: headroom = 80e9 - memory.
    CHECK(v.rows[0].headroom_bytes == doctest::Approx(81559.0 * 1024 * 1024 - v.rows[0].memory_bytes));
}

TEST_CASE("planner panel: the scatter holds every costed layout and the front is not dominated") {
    PanelHarness h;
    REQUIRE(h.act("wait", "1").empty());
    const ui::PlannerView& v = h.panel.view();
    REQUIRE(v.points.size() >= v.rows.size());
    REQUIRE(!v.front.empty());
    // The fastest point is on the front, and each later front point is slower but smaller.
    const double fastest = std::min_element(v.points.begin(), v.points.end(), [](const auto& a, const auto& b) {
                               return a.step_s < b.step_s;
                           })->step_s;
    CHECK(v.front.front().step_s == fastest);
    for (std::size_t i = 1; i < v.front.size(); ++i) {
        CHECK(v.front[i].step_s >= v.front[i - 1].step_s);
        CHECK(v.front[i].memory_bytes < v.front[i - 1].memory_bytes);
    }
    for (const ui::PlannerPoint& p : v.points)
        for (const ui::PlannerPoint& f : v.front)
            if (p.on_front) CHECK(!(f.step_s < p.step_s && f.memory_bytes < p.memory_bytes));
    // Rank 1 is among the points.
    CHECK(std::count_if(v.points.begin(), v.points.end(), [](const auto& p) { return p.rank == 1; }) == 1);
}

TEST_CASE("planner panel: apply loads the row into the scenario and does not re-plan") {
    PanelHarness h;
    REQUIRE(h.act("wait", "1").empty());
    const ui::PlannerRow second = h.panel.view().rows[1];
    const Scenario before = h.state.scenario();
    REQUIRE(h.act("apply", "2").empty());
    // The status line lists every knob the row turned, as Undo would (a split or ZeRO stage the
    // table's visible columns may not show among them).
    CHECK(h.state.ui.status == "Applied the planner's #2 layout: " + scenario_changes(before, h.state.scenario(), 8) +
                                   " (Ctrl+Z undoes it)");
    CHECK_FALSE(scenario_changes(before, h.state.scenario(), 8).empty());
    CHECK(h.state.scenario().parallel.tp == second.tp);
    CHECK(h.state.scenario().parallel.pp == second.pp);
    CHECK(h.state.scenario().parallel.dp_shard == second.dp_shard);
    CHECK(h.state.scenario().training.micro_batch == second.micro_batch);
    // The report every other panel reads now prices this layout.
    CHECK(h.state.report().time.step.value() == doctest::Approx(second.step_s));
    h.frame();
    CHECK_FALSE(h.panel.searching());
    CHECK(h.panel.view().rows[1].step_s == second.step_s);
    CHECK(h.panel.selected_rank() == 2);
    CHECK(h.act("apply", "999") == "planner.apply: \"999\" is not a whole number from 1 to 24");
}

TEST_CASE("planner panel: the Apply button of a row applies it") {
    PanelHarness h;
    REQUIRE(h.act("wait", "1").empty());
    h.frame();
    const ui::PlannerRow third = h.panel.view().rows[2];
    REQUIRE(h.fixture.click_item("planner/apply/3", [&] {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(1600, 1000));
        ImGui::Begin("planner");
        h.panel.draw(h.state);
        ImGui::End();
    }));
    CHECK(h.state.scenario().parallel.dp_shard == third.dp_shard);
    CHECK(h.state.scenario().training.micro_batch == third.micro_batch);
    CHECK(h.panel.apply_error().empty());
}

TEST_CASE("planner panel: objective memory ranks by memory; filters re-plan and hold in every row") {
    PanelHarness h;
    REQUIRE(h.act("objective", "memory").empty());
    const ui::PlannerView& v = h.panel.view();
    CHECK(v.objective == PlanObjective::memory);
    for (std::size_t i = 1; i < v.rows.size(); ++i) CHECK(v.rows[i].memory_bytes >= v.rows[i - 1].memory_bytes);

    REQUIRE(h.act("objective", "step").empty());
    REQUIRE(h.act("no_pp", "1").empty());
    REQUIRE(h.act("zero_max_1", "1").empty());
    REQUIRE(h.act("tp_in_node", "1").empty());
    REQUIRE(!h.panel.view().rows.empty());
    for (const ui::PlannerRow& r : h.panel.view().rows) {
        CHECK(r.pp == 1);
        CHECK(r.zero <= 1);
        CHECK(r.tp_within_node);
    }
    CHECK(h.act("objective", "fastest") == "planner.objective: \"fastest\" is not one of step, mfu, memory");
    CHECK(h.act("no_pp", "maybe") == "planner.no_pp: \"maybe\" is not on or off (1/0, true/false, yes/no)");
}

TEST_CASE("planner panel: a new cluster re-plans; sorting a column reorders rows, not ranks") {
    PanelHarness h;
    REQUIRE(h.act("wait", "1").empty());
    const double best_before = h.panel.view().rows[0].step_s;
    Scenario bigger = h.state.scenario();
    bigger.cluster.gpu.peak_tflops *= 2;  // a faster GPU: every layout's compute halves
    REQUIRE(h.state.try_apply(bigger).empty());
    h.panel.update(h.state, true);
    CHECK(h.panel.view().rows[0].step_s != best_before);

    h.panel.sort_by(3 /* memory */, true);
    const auto& order = h.panel.row_order();
    const auto& rows = h.panel.view().rows;
    for (std::size_t i = 1; i < order.size(); ++i)
        CHECK(rows[static_cast<std::size_t>(order[i])].memory_bytes >= rows[static_cast<std::size_t>(order[i - 1])].memory_bytes);
    h.panel.sort_by(0, true);
    CHECK(order.front() == 0);
}

TEST_CASE("planner panel: per_mesh off lists every candidate, so one mesh may fill several rows") {
    PanelHarness h;
    REQUIRE(h.act("per_mesh", "0").empty());
    CHECK_FALSE(h.panel.options().one_per_mesh);
    const auto& rows = h.panel.view().rows;
    int repeats = 0;
    for (std::size_t i = 0; i < rows.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (rows[i].mesh == rows[j].mesh) ++repeats;
    CHECK(repeats > 0);
}

TEST_CASE("planner panel: draws a table and a chart") {
    PanelHarness h;
    h.frame();
    h.frame();
    CHECK(ImGuiFixture::vertices_of("planner") > 1000);
    CHECK(ui::find_item_rect("planner/row/1").has_value());
    CHECK(ui::find_item_rect("planner/apply/1").has_value());
}

TEST_CASE("planner panel: its GPU memory line is the capacity Memory and cost shows, not the nominal size") {
    PanelHarness h;
    REQUIRE(h.act("wait", "1").empty());
    // An H100 SXM is sold as 80 GB but exposes 81,559 MiB (nvidia-smi): the report's capacity.
    CHECK(h.panel.view().gpu_memory_bytes == h.state.report().gpu_memory_bytes);
    CHECK(h.panel.view().gpu_memory_bytes == doctest::Approx(81559.0 * 1024 * 1024));
}

TEST_CASE("planner panel: a ranked layout's point says its rank, and a click on it selects its row") {
    // A new user hovered the front and read "Pareto front, memory per GPU 38.4 GiB" (the line's
    // vertex spoke over the point on it), and a click on a point did nothing.
    PanelHarness h;
    REQUIRE(h.act("wait", "1").empty());
    h.frame();
    const ui::PlannerView& v = h.panel.view();
    REQUIRE(v.rows.size() >= 3);
    int labelled = 0;
    for (const ui::PlannerPoint& p : v.points) {
        if (p.rank <= 0) continue;
        CAPTURE(p.label);
        CHECK(p.label.rfind("#" + std::to_string(p.rank) + "  ", 0) == 0);
        ++labelled;
    }
    CHECK(labelled >= 3);
    const auto draw = [&] {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(1600, 1000));
        ImGui::Begin("planner");
        h.panel.draw(h.state);
        ImGui::End();
    };
    // The point nearest the mouse answers: click each ranked point until one other than #1 selects.
    int selected = 0;
    for (int rank = 2; rank <= static_cast<int>(v.rows.size()) && selected == 0; ++rank) {
        h.frame();
        if (!h.fixture.click_item("planner/point/" + std::to_string(rank), draw)) continue;
        if (h.panel.selected_rank() == rank) selected = rank;
    }
    CHECK(selected >= 2);
}
