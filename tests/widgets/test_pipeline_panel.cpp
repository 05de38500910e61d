// The pipeline timeline panel: draw records (not pixels) against timelines worked out by hand.
// Default controls: F = B = W = 1 ms, so 1F1B runs F (1 ms) and B+W as one 2 ms op.
#include "imgui_fixture.hpp"
#include "widgets/pipeline/pipeline_panel.hpp"

#include "core/model/cost_model.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace shardscope;
using shardscope::test::ImGuiFixture;

namespace {

struct PanelHarness {
    ImGuiFixture fixture;
    ui::AppState state;
    ui::PipelinePanel panel{ui::Placement{}, true};

    std::function<void()> draw_fn() {
        return [this] {
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(ImVec2(1600, 1000));
            ImGui::Begin("pipeline");
            panel.draw(state);
            ImGui::End();
        };
    }
    void frame() { fixture.frame(draw_fn()); }
    std::string act(const char* action, const char* value) { return panel.act(state, action, value); }
};

int count_kind(const ui::TimelineRecords& r, int lane, OpKind kind) {
    return static_cast<int>(std::count_if(r.blocks.begin(), r.blocks.end(), [&](const ui::TimelineBlock& b) {
        return b.lane == lane && b.kind == kind;
    }));
}

}  // namespace

TEST_CASE("4 stages x 8 micro-batches of 1F1B: 4*8*2 labelled blocks, bubble (p-1)/(m+p-1)") {
    PanelHarness h;
    h.frame();
    const ui::TimelineRecords& r = h.panel.records();
    REQUIRE(h.panel.lane_count() == 1);
    CHECK(r.rows.size() == 4);
    CHECK(r.blocks.size() == 4 * 8 * 2);
    CHECK(count_kind(r, 0, OpKind::forward) == 32);
    CHECK(count_kind(r, 0, OpKind::backward) == 32);  // 1F1B does not split B and W
    for (const ui::TimelineBlock& b : r.blocks) {
        CHECK(b.merged == 1);
        CHECK_FALSE(b.label.empty());  // 33 ms over ~1,100 px: every block is wide enough for "F7"
    }
    // (p-1)/(m+p-1) = 3/11; the makespan is (m+p-1)(F+B+W) = 11 * 3 ms.
    const PipelineTimeline& t = h.panel.timeline(0);
    CHECK(t.bubble_fraction == doctest::Approx(3.0 / 11.0));
    CHECK(t.makespan == doctest::Approx(33e-3));
    // Stage 0's first block is micro-batch 0's forward, labelled F0.
    const auto first = std::find_if(r.blocks.begin(), r.blocks.end(),
                                    [](const ui::TimelineBlock& b) { return b.stage == 0 && b.event == 0; });
    REQUIRE(first != r.blocks.end());
    CHECK(first->label == "F0");
}

TEST_CASE("zooming limits the records to the visible window") {
    PanelHarness h;
    h.frame();
    // 0 .. 2.5 ms: stage 0 starts F0, F1, F2 (at 0, 1, 2 ms), stage 1 F0, F1 (at 1, 2 ms), stage 2 F0
    // (at 2 ms); stage 3's first op starts at 3 ms. Six ops.
    h.panel.set_time_window(ui::TimeWindow{0, 2.5e-3});
    h.frame();
    const ui::TimelineRecords& r = h.panel.records();
    CHECK(r.events_visited == 6);
    CHECK(r.blocks.size() == 6);
    for (const ui::TimelineBlock& b : r.blocks) CHECK(b.kind == OpKind::forward);

    // 20 .. 22 ms: every stage is in its steady state; only ops overlapping the window are drawn.
    h.panel.set_time_window(ui::TimeWindow{20e-3, 22e-3});
    h.frame();
    const PipelineTimeline& t = h.panel.timeline(0);
    std::size_t overlapping = 0;
    for (const auto& row : t.events)
        for (const PipelineEvent& e : row)
            if (e.end >= 20e-3 && e.start <= 22e-3) ++overlapping;
    CHECK(h.panel.records().blocks.size() == overlapping);
    CHECK(overlapping < 4 * 8 * 2);
}

TEST_CASE("the mouse wheel zooms about the mouse and a double-click fits again") {
    PanelHarness h;
    h.frame();
    const auto rect = ui::find_item_rect("pipeline/timeline");
    REQUIRE(rect.has_value());
    const double full = h.panel.time_window().span();
    h.fixture.move_mouse(rect->centre_x(), rect->centre_y());
    h.frame();
    ImGui::GetIO().MouseWheel = 2.0f;
    h.frame();
    ImGui::GetIO().MouseWheel = 0.0f;
    CHECK(h.panel.time_window().span() == doctest::Approx(full * 0.64));
    CHECK(h.panel.records().blocks.size() < 4 * 8 * 2);
}

TEST_CASE("comparing 1F1B with ZB-H1 stacks a second lane on the same time axis") {
    PanelHarness h;
    REQUIRE(h.act("compare", "zb-h1").empty());
    h.frame();
    REQUIRE(h.panel.lane_count() == 2);
    const ui::TimelineRecords& r = h.panel.records();
    CHECK(r.lanes.size() == 2);
    CHECK(r.rows.size() == 8);
    // ZB-H1 splits the backward: 4 stages x 8 micro-batches x (F, B, W).
    CHECK(count_kind(r, 1, OpKind::forward) == 32);
    CHECK(count_kind(r, 1, OpKind::backward_input) == 32);
    CHECK(count_kind(r, 1, OpKind::backward_weight) == 32);
    // ZB-H1's step bubble (p-1) max(F, F+B-W) = 3 * 1 ms: makespan 8 * 3 + 3 = 27 ms against 1F1B's 33.
    CHECK(h.panel.timeline(1).makespan == doctest::Approx(27e-3));
    // One axis: the second lane's rows sit below the first's.
    CHECK(r.lanes[1].y0 > r.lanes[0].y1);
    REQUIRE(h.act("compare", "none").empty());
    h.frame();
    CHECK(h.panel.lane_count() == 1);
}

TEST_CASE("interleaved 1F1B: one row per stage and chunk") {
    PanelHarness h;
    REQUIRE(h.act("stages", "4").empty());
    REQUIRE(h.act("microbatches", "8").empty());
    REQUIRE(h.act("virtual", "2").empty());
    CHECK(h.panel.controls().schedule == Schedule::interleaved_1f1b);
    h.frame();
    const ui::TimelineRecords& r = h.panel.records();
    CHECK(r.rows.size() == 4 * 2);
    CHECK(r.rows[1].label == "S0 c1");
    CHECK(r.blocks.size() == 4 * 8 * 2 * 2);
    // Chunk 1 of stage 0 sits on the row under chunk 0.
    for (const ui::TimelineBlock& b : r.blocks)
        if (b.stage == 0) CHECK(b.row == b.chunk);
    // (p-1)(F+B+W)/v = 3 * 3 ms / 2 = 4.5 ms of bubble over m (F+B+W) = 24 ms.
    CHECK(h.panel.timeline(0).bubble_fraction == doctest::Approx(4.5 / 28.5));
}

TEST_CASE("actions: schedule names, limits and errors") {
    PanelHarness h;
    CHECK(h.act("schedule", "zb-h1").empty());
    CHECK(h.panel.controls().schedule == Schedule::zb_h1);
    CHECK(h.act("schedule", "zero") == "pipeline.schedule: \"zero\" is not one of gpipe, 1f1b, interleaved-1f1b, zb-h1, zb-h2, dualpipe");
    CHECK(h.act("stages", "0") == "pipeline.stages: \"0\" is not a whole number from 1 to 512");
    CHECK(h.act("microbatches", "eight") == "pipeline.microbatches: \"eight\" is not a whole number from 1 to 65536");
    CHECK(h.act("warp", "9").find("no action") != std::string::npos);
    // DualPipe needs m >= 2p: the lane carries the simulator's reason instead of blocks.
    CHECK(h.act("schedule", "dualpipe").empty());
    CHECK(h.act("microbatches", "6").empty());
    h.frame();
    CHECK_FALSE(h.panel.timeline(0).ok());
    CHECK(h.panel.records().blocks.empty());
}

TEST_CASE("hover text names the stage, micro-batch, kind, times and what the op waited for") {
    PanelHarness h;
    h.frame();
    const PipelineTimeline& t = h.panel.timeline(0);
    // Stage 1's first op: micro-batch 0's forward, 1..2 ms, waiting for stage 0's activation.
    const PipelineEvent& e = t.events[1][0];
    const std::string text = ui::describe_event(h.panel.spec(0), e);
    CHECK(text.find("Stage 1") != std::string::npos);
    CHECK(text.find("Micro-batch 0, forward (F)") != std::string::npos);
    CHECK(text.find("Start 1.00 ms, end 2.00 ms") != std::string::npos);
    CHECK(text.find("activation from stage 0, arrived 1.00 ms") != std::string::npos);
}

TEST_CASE("from scenario takes p, m, the schedule and per-stage costs from core") {
    PanelHarness h;
    REQUIRE(h.act("from_scenario", "1").empty());
    const Scenario& s = h.state.scenario();
    const Report& report = h.state.report();
    const ui::PipelineControls& c = h.panel.controls();
    CHECK(c.stages == s.parallel.pp);
    CHECK(c.microbatches == report.microbatches);
    CHECK(c.schedule == s.training.schedule);
    REQUIRE(c.scenario_costs.size() == static_cast<std::size_t>(s.parallel.pp));
    h.frame();
    const PipelineSpec& spec = h.panel.spec(0);
    CHECK(spec.costs.size() == static_cast<std::size_t>(s.parallel.pp));
    CHECK(spec.costs.back().f > spec.costs.front().f);  // the last stage carries the output layer
    CHECK(spec.p2p_time > 0);
    // Editing a cost goes back to the uniform costs of the number fields.
    REQUIRE(h.act("f", "2").empty());
    CHECK(h.panel.controls().scenario_costs.empty());
}

TEST_CASE("64 stages x 1,024 micro-batches: narrow ops merge, each drawn exactly once") {
    PanelHarness h;
    REQUIRE(h.act("stages", "64").empty());
    REQUIRE(h.act("microbatches", "1024").empty());
    h.frame();
    const ui::TimelineRecords& r = h.panel.records();
    const std::size_t events = 64 * 1024 * 2;
    CHECK(r.events_visited == events);
    std::size_t drawn = 0;
    for (const ui::TimelineBlock& b : r.blocks) drawn += static_cast<std::size_t>(b.merged);
    CHECK(drawn == events);
    CHECK(r.blocks.size() < events / 10);
}

TEST_CASE("send/recv arrows: one per op whose input crossed a stage boundary") {
    PanelHarness h;
    REQUIRE(h.act("arrows", "on").empty());
    h.frame();
    // 1F1B, 4 x 8: forwards on stages 1..3 receive an activation (3 * 8) and backwards on stages 0..2
    // a gradient (3 * 8).
    const ui::TimelineRecords& r = h.panel.records();
    CHECK_FALSE(r.arrows_capped);
    CHECK(r.arrows.size() == 48);
    // With no p2p time an arrow is vertical: it leaves as the producer ends and lands at once.
    for (const ui::TimelineArrow& a : r.arrows) CHECK(a.from.x == doctest::Approx(a.to.x));
}

TEST_CASE("interleaved rows hatch the device's own idle time, not the other chunk's work") {
    PanelHarness h;
    REQUIRE(h.act("virtual", "2").empty());
    h.frame();
    const ui::TimelineRecords& r = h.panel.records();
    const PipelineTimeline& t = h.panel.timeline(0);
    REQUIRE(r.lanes.size() == 1);
    CHECK(r.lanes[0].idle_from_records);
    // Summed idle rectangles of each stage, back in seconds, equal makespan - busy (no gap is under a
    // pixel here: every op lasts 0.5 or 1 ms, about 20 px).
    const double seconds_per_px = r.window.span() / static_cast<double>(h.panel.plot_width());
    for (int stage = 0; stage < 4; ++stage) {
        double idle_px = 0;
        for (const ui::TimelineIdle& i : r.idle)
            if (i.stage == stage) idle_px += i.x1 - i.x0;
        const double idle = t.makespan - t.busy[static_cast<std::size_t>(stage)];
        CHECK(idle_px * seconds_per_px == doctest::Approx(idle).epsilon(0.01));
    }
}

TEST_CASE("dragging the timeline pans it in time") {
    PanelHarness h;
    h.frame();
    const double makespan = h.panel.timeline(0).makespan;
    h.panel.set_time_window(ui::TimeWindow{0, makespan / 2});
    h.frame();
    const auto rect = ui::find_item_rect("pipeline/timeline");
    REQUIRE(rect.has_value());
    ImGuiIO& io = ImGui::GetIO();
    h.fixture.move_mouse(rect->centre_x(), rect->centre_y());
    h.frame();
    io.MouseDown[0] = true;
    h.frame();
    for (int i = 1; i <= 4; ++i) {
        h.fixture.move_mouse(rect->centre_x() - 25.0f * static_cast<float>(i), rect->centre_y());
        h.frame();
    }
    io.MouseDown[0] = false;
    h.frame();
    // 100 px to the left shows later times: t0 moves right by 100 px worth of the window.
    const ui::TimeWindow w = h.panel.time_window();
    CHECK(w.span() == doctest::Approx(makespan / 2));
    CHECK(w.t0 == doctest::Approx(100.0 / h.panel.plot_width() * makespan / 2).epsilon(0.02));
}

TEST_CASE("hovering a block picks that op") {
    PanelHarness h;
    h.frame();
    // Stage 1's first block: micro-batch 0's forward.
    const auto& blocks = h.panel.records().blocks;
    const auto target = std::find_if(blocks.begin(), blocks.end(),
                                     [](const ui::TimelineBlock& b) { return b.stage == 1 && b.event == 0; });
    REQUIRE(target != blocks.end());
    h.fixture.move_mouse((target->x0 + target->x1) * 0.5f, (target->y0 + target->y1) * 0.5f);
    h.frame();
    h.frame();
    REQUIRE(h.panel.hovered_block().has_value());
    CHECK(h.panel.hovered_block()->stage == 1);
    CHECK(h.panel.hovered_block()->microbatch == 0);
    CHECK(h.panel.hovered_block()->kind == OpKind::forward);
    // Off the timeline nothing is hovered.
    h.fixture.move_mouse(5, 5);
    h.frame();
    CHECK_FALSE(h.panel.hovered_block().has_value());
}

TEST_CASE("after from scenario the timeline follows scenario edits until a cost is edited") {
    PanelHarness h;
    REQUIRE(h.act("from_scenario", "1").empty());
    h.frame();
    Scenario edited = h.state.scenario();
    edited.training.schedule = Schedule::zb_h1;
    REQUIRE(h.state.try_apply(edited).empty());
    h.frame();
    CHECK(h.panel.spec(0).schedule == Schedule::zb_h1);
    REQUIRE(h.act("w", "3").empty());  // manual costs: the panel no longer follows
    edited.training.schedule = Schedule::gpipe;
    REQUIRE(h.state.try_apply(edited).empty());
    h.frame();
    CHECK(h.panel.spec(0).schedule == Schedule::zb_h1);
}

TEST_CASE("m for the bubble target is the simulated schedule's, and a heavier last stage raises it") {
    PanelHarness h;
    REQUIRE(h.act("schedule", "1f1b").empty());
    REQUIRE(h.act("stages", "8").empty());
    REQUIRE(h.act("target", "5").empty());
    h.frame();
    // Equal stages, no p2p: 7 / (m + 7) < 5% needs m = 134, as the closed form says.
    CHECK(h.panel.microbatches_for_target(0) == 134);
    // The last stage 2% heavier: the other seven wait for it every micro-batch, so more are needed.
    REQUIRE(h.act("last_extra", "2").empty());
    h.frame();
    CHECK(h.panel.microbatches_for_target(0) > 134);
    // 10% heavier: the other seven idle 7 x (0.1 / 1.1) / 8 = 8% of the step at any m, so none reaches 5%.
    REQUIRE(h.act("last_extra", "10").empty());
    h.frame();
    CHECK(h.panel.microbatches_for_target(0) == 0);
}

TEST_CASE("the panel says whether it draws an example or the scenario's own pipeline") {
    PanelHarness h;  // the default scenario: pp 2, 16 micro-batches per pipeline; the panel's example is 4 x 8
    h.frame();
    CHECK_FALSE(h.panel.following_scenario());
    CHECK(h.panel.source_line(h.state) ==
          "An example, not the scenario (which runs 2 stages and 16 micro-batches): From scenario draws its own.");
    REQUIRE(h.act("from_scenario", "1").empty());
    h.frame();
    CHECK(h.panel.following_scenario());
    CHECK(h.panel.source_line(h.state) ==
          "The scenario's pipeline: 2 stages, 16 micro-batches, stage times from the cost model.");
    REQUIRE(h.act("stages", "4").empty());  // the user's own p: an example again
    h.frame();
    CHECK_FALSE(h.panel.following_scenario());
}

TEST_CASE("two schedules compared in a short tile keep rows a label tall; the window scrolls to the rest") {
    ImGuiFixture f;
    ui::AppState state;
    ui::PipelinePanel panel{ui::Placement{}, true};
    REQUIRE(panel.act(state, "compare", "zb-h1").empty());
    const auto frame = [&] {
        f.frame([&] {
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(ImVec2(880, 440));  // a tile a new user met: rows were 5 px
            ImGui::Begin("pipeline");
            panel.draw(state);
            ImGui::End();
        });
    };
    frame();
    frame();
    const ui::TimelineRecords& r = panel.records();
    REQUIRE(r.rows.size() == 8);  // 4 stages in each of the two lanes
    const float text_h = ImGui::GetTextLineHeight();
    for (const ui::TimelineRow& row : r.rows) {
        CAPTURE(row.label);
        CHECK(row.y1 - row.y0 >= text_h);
    }
}

TEST_CASE("an interleaved example becomes the scenario's with its chunks; one the scenario cannot take is refused with core's rule") {
    PanelHarness h;
    Scenario shallow = h.state.scenario();
    shallow.model.layers = 8;  // 2 stages of 4 layers
    REQUIRE(h.state.try_apply(shallow).empty());
    REQUIRE(h.state.scenario().parallel.pp == 2);
    REQUIRE(h.act("from_scenario", "1").empty());
    const Scenario before = h.state.scenario();
    // Two chunks a stage: the scenario trains interleaved at v 2, its stages and micro-batches its own.
    REQUIRE(h.act("virtual", "2").empty());
    CHECK(h.panel.drawn_schedule_name() == "Interleaved 1F1B (v 2)");
    REQUIRE(h.act("use_schedule", "1").empty());
    CHECK(h.state.scenario().training.schedule == Schedule::interleaved_1f1b);
    CHECK(h.state.scenario().training.virtual_stages == 2);
    CHECK(h.state.scenario().parallel.pp == before.parallel.pp);
    CHECK(h.state.ui.status == "The scenario now trains with Interleaved 1F1B (v 2) (Ctrl+Z undoes it)");
    CHECK(h.panel.following_scenario());
    // 8 chunks a stage on 2 stages are 16 chunks for 8 layers: refused, the scenario as it was.
    const Scenario interleaved = h.state.scenario();
    REQUIRE(h.act("virtual", "8").empty());
    const std::string rule = h.act("use_schedule", "1");
    CAPTURE(rule);
    CHECK(rule == "pipeline.use_schedule: " + h.panel.use_schedule_error());
    CHECK(h.panel.use_schedule_error() ==
          "training.virtual_stages: pp (2) x virtual_stages (8) = 16 model chunks exceeds layers (8); every chunk needs a "
          "whole layer");
    CHECK(h.state.scenario() == interleaved);
}

TEST_CASE("ticking Compare with over the schedule it shows compares it with another one, never itself") {
    // A new user with ZB-H1 chosen ticked it and read "ZB-H1 and ZB-H1 take the same time".
    PanelHarness h;
    h.panel.controls().schedule = Schedule::zb_h1;
    h.frame();
    REQUIRE(h.panel.controls().compare_schedule == Schedule::zb_h1);
    REQUIRE(h.fixture.click_item("pipeline/compare", h.draw_fn()));
    CHECK(h.panel.controls().compare);
    CHECK(h.panel.controls().compare_schedule == Schedule::one_f_one_b);
}

TEST_CASE("the read-out in a third of the window stacks its figures; every one, m for the bubble too, in reach") {
    ImGuiFixture f;
    ui::AppState state;
    ui::PipelinePanel panel{ui::Placement{}, true};
    REQUIRE(panel.act(state, "compare", "zb-h1").empty());
    float width = 1600;
    const auto frame = [&] {
        f.frame([&] {
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(ImVec2(width, 700));
            ImGui::Begin("pipeline");
            panel.draw(state);
            ImGui::End();
        });
    };
    frame();
    frame();
    // Wide: one row of headings, a row per schedule.
    auto first = ui::find_item_rect("pipeline/heading/0"), last = ui::find_item_rect("pipeline/heading/6");
    REQUIRE(first);
    REQUIRE(last);
    CHECK(last->y0 == doctest::Approx(first->y0));
    // A third of a 1,280 px window, as the default layout tiles it: a row per figure, the schedules
    // as columns, and the micro-batches for the target inside the window for both.
    width = 1280.0f / 3.0f;
    frame();
    frame();
    first = ui::find_item_rect("pipeline/heading/0");
    last = ui::find_item_rect("pipeline/heading/6");
    REQUIRE(first);
    REQUIRE(last);
    CHECK(last->y0 > first->y0 + 5 * ImGui::GetTextLineHeight());
    for (const char* key : {"pipeline/readout/m/0", "pipeline/readout/m/1"}) {
        CAPTURE(key);
        const auto m = ui::find_item_rect(key);
        REQUIRE(m);
        CHECK(m->x1 <= width);
    }
}
