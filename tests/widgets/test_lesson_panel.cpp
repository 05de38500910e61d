// The lesson player, glossary and cheat sheet panels, headless. Every step of every shipped lesson is
// run through the real UI: its scenario applied, its panels opened and highlighted, its actions run.
#include "imgui_fixture.hpp"
#include "widgets/teaching/cheatsheet_panel.hpp"
#include "widgets/teaching/glossary_panel.hpp"
#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/shown_figures.hpp"
#include "widgets/pipeline/pipeline_panel.hpp"
#include "widgets/shell/keys.hpp"
#include "widgets/teaching/lesson_panel.hpp"
#include "widgets/teaching/teaching_content.hpp"
#include "widgets/ui_frame.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace shardscope;
using shardscope::test::ImGuiFixture;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

ui::TeachingTexts shipped_texts() {
    const fs::path root(SHARDSCOPE_SOURCE_DIR);
    ui::TeachingTexts t;
    for (const auto& e : fs::directory_iterator(root / "lessons"))
        if (e.path().extension() == ".json") t.lesson_files.emplace_back("lessons/" + e.path().filename().string(), read_file(e.path()));
    t.glossary_file = "assets/glossary.json";
    t.glossary_text = read_file(root / t.glossary_file);
    t.cheatsheet_file = "assets/cheatsheet.json";
    t.cheatsheet_text = read_file(root / t.cheatsheet_file);
    return t;
}

struct Harness {
    explicit Harness(float width = 1600, float height = 1000) : f(width, height) {}
    ImGuiFixture f;
    ui::AppState state;
    ui::AppUi app;
    std::vector<std::string> errors = ui::install_teaching_content(app.registry(), shipped_texts());
    std::function<void()> draw = [this] { app.draw_frame(state, f.seconds()); };

    ui::LessonPanel& lesson() { return dynamic_cast<ui::LessonPanel&>(*app.registry().find("lesson")); }
    ui::GlossaryPanel& glossary() { return dynamic_cast<ui::GlossaryPanel&>(*app.registry().find("glossary")); }
    ui::CheatSheetPanel& cheatsheet() { return dynamic_cast<ui::CheatSheetPanel&>(*app.registry().find("cheatsheet")); }
};

std::string panel_of(const std::string& action) { return action.substr(0, action.find('.')); }

}  // namespace

TEST_CASE("every step of every shipped lesson runs: scenario, panels, highlight and actions") {
    Harness h;
    for (const std::string& e : h.errors) FAIL_CHECK(e);
    ui::LessonPanel& panel = h.lesson();
    REQUIRE(panel.lessons().size() >= 9);
    for (const Lesson& lesson : panel.lessons()) {
        REQUIRE(panel.open_lesson(h.state, lesson.id, 1).empty());
        for (size_t k = 0; k < lesson.steps.size(); ++k) {
            CAPTURE(lesson.id);
            CAPTURE(k + 1);
            if (k > 0) panel.next(h.state);  // the way a learner goes: changes merged into the current scenario
            const LessonStep& step = lesson.steps[k];
            REQUIRE(panel.step_index() == int(k));
            CHECK(h.state.scenario() == step.scenario);
            CHECK(h.app.registry().highlighted() == step.highlight);
            for (const std::string& id : step.panels) {
                ui::Panel* p = h.app.registry().find(id);
                REQUIRE_MESSAGE(p != nullptr, "unknown panel " << id);
                CHECK(p->open);
            }
            for (const std::string& action : step.actions) {
                REQUIRE_MESSAGE(h.app.registry().find(panel_of(action)) != nullptr, action);
                for (const std::string& note : panel.action_notes())
                    CHECK_MESSAGE(note.rfind(action + ":", 0) != 0, note);
            }
            h.f.frames(2, h.draw);
            CHECK(ImGuiFixture::vertices_of(panel.window_name()) > 0);
            const ui::LessonView& v = panel.last_view();
            CHECK(v.step_label == "Step " + std::to_string(k + 1) + " of " + std::to_string(lesson.steps.size()));
            CHECK(v.quiz.has_value() == step.check.has_value());
            if (v.quiz) CHECK(v.quiz->error.empty());
        }
    }
}

TEST_CASE("Next / Back buttons and the arrow keys move between steps") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    REQUIRE(panel.open_lesson(h.state, "pipeline-parallel", 1).empty());
    h.f.frames(3, h.draw);
    REQUIRE(h.f.click_item("lesson/next", h.draw));
    CHECK(panel.step_index() == 1);
    REQUIRE(h.f.click_item("lesson/back", h.draw));
    CHECK(panel.step_index() == 0);
    const auto next = ui::find_item_rect("lesson/next");
    REQUIRE(next);
    h.f.move_mouse(next->x0 - 40, next->y0 - 60);  // over the lesson window, away from any button
    h.f.press_key(ui::keys::kRight, false, false, h.draw);
    CHECK(panel.step_index() == 1);
    h.f.press_key(ui::keys::kLeft, false, false, h.draw);
    CHECK(panel.step_index() == 0);
    h.f.press_key(ui::keys::kLeft, false, false, h.draw);  // already at step 1
    CHECK(panel.step_index() == 0);
}

TEST_CASE("Finish on the last step returns to the list and keeps the progress") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    REQUIRE(panel.open_lesson(h.state, "context-parallel", 7).empty());  // its last step
    h.f.frames(2, h.draw);
    CHECK(h.app.registry().highlighted() == "strategy");
    REQUIRE(h.f.click_item("lesson/finish", h.draw));
    h.f.frame(h.draw);
    CHECK_FALSE(panel.last_view().has_lesson);
    CHECK(h.app.registry().highlighted().empty());
    for (const ui::LessonListRow& row : panel.last_view().list)
        if (row.id == "context-parallel") CHECK(row.reached == 7);
}

TEST_CASE("a lesson entered from outside says on the status line how the learner's scenario comes back") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    // The untouched default is nobody's work: no word about it.
    REQUIRE(panel.open_lesson(h.state, "why-split", 1).empty());
    CHECK(h.state.ui.status.empty());
    panel.close_lesson();
    h.state.undo();
    // An edit of the learner's own is.
    Scenario edited = h.state.scenario();
    edited.training.global_batch *= 2;
    REQUIRE(h.state.apply_step(edited).empty());
    const Scenario mine = h.state.scenario();
    REQUIRE(panel.open_lesson(h.state, "pipeline-parallel", 1).empty());
    REQUIRE_FALSE(h.state.scenario() == mine);
    const std::string said = h.state.ui.status;
    CHECK(said.rfind("Lesson \"", 0) == 0);
    CHECK(said.find("set its own scenario; yours comes back with \"Back to your scenario\" in the lesson list, or "
                    "Ctrl+Z") != std::string::npos);
    // Moving on inside the lessons is no news of that kind.
    h.state.ui.status.clear();
    REQUIRE(panel.open_lesson(h.state, "fsdp-zero", 1).empty());
    CHECK(h.state.ui.status.empty());
    // Undone, the learner's own scenario is back.
    h.f.frame(h.draw);
    h.state.undo();
    CHECK(h.state.scenario() == mine);
}

TEST_CASE("after the lessons, the learner's own scenario is one click away, and one undo") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    const auto drawn = [](const std::string& key) {
        for (const auto& [k, r] : ui::current_item_rects())
            if (k == key) return true;
        return false;
    };
    Scenario mine = h.state.scenario();
    mine.training.micro_batch = 2;  // an edit of the learner's own
    REQUIRE(h.state.try_apply(mine).empty());
    REQUIRE(panel.open_lesson(h.state, "context-parallel", 7).empty());
    REQUIRE(panel.open_lesson(h.state, "pipeline-parallel", 1).empty());  // a second lesson keeps the first 'before'
    CHECK_FALSE(h.state.scenario() == mine);
    h.f.frames(2, h.draw);
    CHECK_FALSE(drawn("lesson/restore"));  // not while a lesson is open
    CHECK(panel.restore_scenario_before_lessons(h.state) == "a lesson is open: close it first");
    panel.close_lesson();
    h.f.frames(2, h.draw);
    REQUIRE(h.f.click_item("lesson/restore", h.draw));
    CHECK(h.state.scenario() == mine);
    CHECK(h.state.ui.status == "Back to your scenario from before the lessons (Ctrl+Z undoes it)");
    h.f.frames(2, h.draw);
    CHECK_FALSE(drawn("lesson/restore"));  // offered once
    REQUIRE(h.state.can_undo());
    h.state.undo();
    CHECK_FALSE(h.state.scenario() == mine);  // the lesson's scenario again
}

TEST_CASE("the quiz grades against core's answer, gives a second try, then says what the step gives") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    // why-split step 1: bytes of model state per parameter under mixed precision: 2 + 2 + 12 = 16.
    REQUIRE(panel.open_lesson(h.state, "why-split", 1).empty());
    CHECK(panel.act(h.state, "answer", "12") == "");
    ui::LessonView v = panel.build_view(h.state);
    REQUIRE(v.quiz);
    CHECK(v.quiz->answered);
    CHECK_FALSE(v.quiz->right);
    // The first miss does not give the answer away.
    CHECK_FALSE(v.quiz->revealed);
    CHECK(v.quiz->feedback.find("16") == std::string::npos);
    CHECK(v.quiz->feedback.rfind("Not quite. Look at the outlined panel again", 0) == 0);
    // The second does, in words for the student.
    CHECK(panel.act(h.state, "answer", "14") == "");
    v = panel.build_view(h.state);
    CHECK(v.quiz->revealed);
    CHECK(v.quiz->feedback.rfind("Not quite: this step's scenario gives 16 bytes.", 0) == 0);
    CHECK(panel.act(h.state, "answer", "16") == "");
    v = panel.build_view(h.state);
    CHECK(v.quiz->right);
    // why-split step 3: does 1 TiB of model state fit in 79.6 GiB? Option 2, "No".
    REQUIRE(panel.act(h.state, "step", "3") == "");
    CHECK(panel.act(h.state, "answer", "1") == "");
    v = panel.build_view(h.state);
    CHECK_FALSE(v.quiz->right);
    CHECK_FALSE(v.quiz->revealed);
    CHECK(panel.act(h.state, "answer", "1") == "");
    v = panel.build_view(h.state);
    CHECK(v.quiz->feedback.rfind("Not quite: the answer is \"No\" (this step's scenario gives no).", 0) == 0);
    // Glossary links in an explanation read as words, never as raw [[markup]].
    CHECK(v.quiz->feedback.find("[[") == std::string::npos);
    CHECK(panel.act(h.state, "answer", "3") == "lesson.answer: pick an option from 1 to 2");
    CHECK(panel.act(h.state, "step", "99") == "lesson.step: lesson \"why-split\" has steps 1 to 9, not 99");
    CHECK(panel.act(h.state, "open", "nope").rfind("lesson.open: \"nope\" is not a lesson (lessons: why-split, ", 0) == 0);
}

TEST_CASE("in a narrow lesson window the step counter and the footer's buttons do not overlap") {
    for (const float width : {1600.0f, 1024.0f, 800.0f}) {
        CAPTURE(width);
        Harness h(width, 700);
        ui::LessonPanel& panel = h.lesson();
        REQUIRE(panel.open_lesson(h.state, "pipeline-parallel", 6).empty());
        Scenario edited = h.state.scenario();
        edited.training.micro_batch = 2;  // a change of the learner's: Reset is offered
        REQUIRE(h.state.try_apply(edited).empty());
        h.f.frames(3, h.draw);
        const auto title = ui::find_item_rect("lesson/title");
        const auto label = ui::find_item_rect("lesson/step_label");
        const auto back = ui::find_item_rect("lesson/back");
        const auto reset = ui::find_item_rect("lesson/reset");
        const auto next = ui::find_item_rect("lesson/next");
        REQUIRE((title && label && back && reset && next));
        CHECK((label->x0 >= title->x1 || label->y0 >= title->y1));  // beside it, or under it
        CHECK(back->x1 <= reset->x0);
        CHECK(reset->x1 <= next->x0);
    }
}

TEST_CASE("reset brings back the step's scenario after the learner changed it") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    REQUIRE(panel.open_lesson(h.state, "fsdp-zero", 4).empty());  // ZeRO-3 on one node
    const Scenario step_scenario = panel.current_step()->scenario;
    Scenario edited = h.state.scenario();
    edited.parallel.zero = 1;
    REQUIRE(h.state.try_apply(edited).empty());
    h.f.frames(2, h.draw);
    CHECK(panel.last_view().scenario_changed_by_user);
    REQUIRE(h.f.click_item("lesson/reset", h.draw));
    CHECK(h.state.scenario() == step_scenario);
    CHECK_FALSE(panel.build_view(h.state).scenario_changed_by_user);
}

TEST_CASE("going forward keeps the learner's own edits that the next step does not touch") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    REQUIRE(panel.open_lesson(h.state, "fsdp-zero", 2).empty());
    Scenario edited = h.state.scenario();
    edited.training.micro_batch = 2;  // 64 / (2 * 8) = 4 micro-batches: still valid
    REQUIRE(h.state.try_apply(edited).empty());
    panel.next(h.state);  // step 3 only changes parallel.zero to 2
    CHECK(h.state.scenario().parallel.zero == 2);
    CHECK(h.state.scenario().training.micro_batch == 2);
    panel.back(h.state);  // back loads step 2's own scenario
    CHECK(h.state.scenario() == panel.current_step()->scenario);
}

TEST_CASE("three panels: two side by side on top, the third across the bottom") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    REQUIRE(panel.open_lesson(h.state, "decision-tree", 7).empty());  // mesh, memory, pipeline
    const auto& r = h.app.registry();
    // The lesson keeps 0.32 of the width; the rest (0.68) is split in halves of 0.34.
    CHECK(r.find("mesh")->placement().x == doctest::Approx(0.32f));
    CHECK(r.find("mesh")->placement().w == doctest::Approx(0.34f));
    CHECK(r.find("memory")->placement().x == doctest::Approx(0.66f));
    CHECK(r.find("pipeline")->placement().x == doctest::Approx(0.32f));
    CHECK(r.find("pipeline")->placement().y == doctest::Approx(0.5f));
    CHECK(r.find("pipeline")->placement().w == doctest::Approx(0.68f));
}

TEST_CASE("hovering a glossary link in a step's body shows the term's definition") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    REQUIRE(panel.open_lesson(h.state, "data-parallel", 5).empty());  // "... an [[all-gather]]. ..."
    h.f.frames(3, h.draw);
    const auto body = ui::find_item_rect("lesson/body");
    REQUIRE(body);
    const ui::FlowWord* link = nullptr;
    for (const ui::FlowWord& w : panel.body_layout().words)
        if (w.term == "all-gather") link = &w;
    REQUIRE(link != nullptr);
    const auto tooltip_open = [] {
        ImGuiWindow* w = ImGui::FindWindowByName("##Tooltip_00");
        return w && w->Active;
    };
    h.f.move_mouse(body->x0 + link->x + 3, body->y0 + link->y + 3);
    h.f.frames(2, h.draw);
    CHECK(tooltip_open());
    h.f.move_mouse(body->x0 + 2, body->y1 + 40);  // below the text: no tooltip
    h.f.frames(2, h.draw);
    CHECK_FALSE(tooltip_open());
}

TEST_CASE("a step opens its panels beside the lesson and outlines the highlighted one") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    REQUIRE(panel.open_lesson(h.state, "data-parallel", 7).empty());  // mesh + memory, mesh highlighted
    h.f.frames(2, h.draw);
    for (const auto& p : h.app.registry().panels()) {
        const bool expected = p->id() == "lesson" || p->id() == "mesh" || p->id() == "memory";
        CHECK_MESSAGE(p->open == expected, p->id());
    }
    CHECK(h.app.registry().highlighted() == "mesh");
    CHECK(panel.placement().w == doctest::Approx(0.32f));
    CHECK(h.app.registry().find("mesh")->placement().y == 0.0f);
    CHECK(h.app.registry().find("memory")->placement().y == doctest::Approx(0.5f));
}

TEST_CASE("the body's glossary links are laid out as linked words") {
    // Every character 10 px wide, lines 20 px apart, wrap at 100 px.
    const auto measure = [](const std::string& s) { return 10.0f * float(s.size()); };
    const auto layout = ui::layout_text_flow(split_glossary_links("Sum with an [[all-reduce]] now.\nNext"), 100, 20, measure);
    REQUIRE(layout.words.size() == 7);
    CHECK(layout.words[0].text == "Sum ");
    CHECK(layout.words[1].x == 40);            // after "Sum " (40 px)
    CHECK(layout.words[2].text == "an ");
    CHECK(layout.words[2].x == 0);             // "Sum with " = 90 px, + "an" = 110 > 100: wraps
    CHECK(layout.words[2].y == 20);
    CHECK(layout.words[3].text == "all-reduce");
    CHECK(layout.words[3].term == "all-reduce");
    CHECK(layout.words[3].x == 0);             // 30 + 100 > 100: wraps
    CHECK(layout.words[3].y == 40);
    CHECK(layout.words[4].text == " ");        // the space after the link hangs at the end of that line
    CHECK(layout.words[4].x == 100);
    CHECK(layout.words[5].text == "now.");
    CHECK(layout.words[5].x == 0);             // 110 + 40 > 100: wraps
    CHECK(layout.words[5].y == 60);
    CHECK(layout.words[6].text == "Next");
    CHECK(layout.words[6].y == 80);            // the newline starts a fresh line
    CHECK(layout.linked_terms() == std::vector<std::string>{"all-reduce"});
    CHECK(layout.height == 100);
}

TEST_CASE("a broken lesson file is listed as not loaded while the others still show") {
    ImGuiFixture f;
    ui::AppState state;
    ui::AppUi app;
    ui::TeachingTexts texts = shipped_texts();
    texts.lesson_files.emplace_back("lessons/zz_broken.json", R"({"schema": "shardscope.lesson/1", "id": "x"})");
    const auto errors = ui::install_teaching_content(app.registry(), texts);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0] == "lessons/zz_broken.json: title: is required");
    auto& panel = dynamic_cast<ui::LessonPanel&>(*app.registry().find("lesson"));
    panel.open = true;
    f.frames(2, [&] { app.draw_frame(state, f.seconds()); });
    CHECK(panel.last_view().load_errors == errors);
    CHECK(panel.last_view().list.size() >= 9);
    CHECK_FALSE(panel.last_view().has_lesson);
}

TEST_CASE("glossary panel: a lesson that explains the term is a link to the step that does") {
    Harness h;
    ui::GlossaryPanel& g = h.glossary();
    g.open = true;
    REQUIRE(g.act(h.state, "term", "All-reduce") == "");
    h.f.frames(2, h.draw);
    const auto& mentions = g.lesson_mentions().at("All-reduce");
    const auto dp = std::find(mentions.begin(), mentions.end(), "Data parallel: copy, split, all-reduce");
    REQUIRE(dp != mentions.end());
    REQUIRE(h.f.click_item("glossary/lesson/" + dp->lesson_id, h.draw));
    h.f.frame(h.draw);
    REQUIRE(h.lesson().current_lesson());
    CHECK(h.lesson().current_lesson()->id == dp->lesson_id);
    CHECK(h.lesson().step_index() + 1 == dp->step);
    // That step links the term, and no step before it does.
    const auto& steps = h.lesson().current_lesson()->steps;
    CHECK(steps[size_t(dp->step - 1)].body.find("[[all-reduce") != std::string::npos);
    for (int k = 0; k + 1 < dp->step; ++k) CHECK(steps[size_t(k)].body.find("[[all-reduce") == std::string::npos);
}

TEST_CASE("glossary panel: a search that names a term shows that term, not the first match") {
    Harness h;
    ui::GlossaryPanel& g = h.glossary();
    g.open = true;
    REQUIRE(g.act(h.state, "term", "1F1B") == "");
    h.f.frames(2, h.draw);
    // "bubble" is in 1F1B's definition too, and 1F1B sorts first among the schedules.
    REQUIRE(g.act(h.state, "search", "bubble") == "");
    h.f.frames(2, h.draw);
    const Glossary& glossary = *ui::shared_glossary();
    REQUIRE(g.last_view().selected >= 0);
    CHECK(glossary.entries()[size_t(g.last_view().selected)].term == "Bubble");
    // Without an exact name, the first match as before.
    REQUIRE(g.act(h.state, "search", "bubb") == "");
    h.f.frames(2, h.draw);
    CHECK(g.last_view().selected == int(g.last_view().groups.front().entries.front()));
}

TEST_CASE("glossary panel: search, groups, and see-also links") {
    Harness h;
    ui::GlossaryPanel& g = h.glossary();
    g.open = true;
    h.f.frames(2, h.draw);
    CHECK(g.last_view().total > 80);
    CHECK(g.last_view().matches == g.last_view().total);
    CHECK(g.act(h.state, "search", "reduce-scatter") == "");
    h.f.frames(2, h.draw);
    REQUIRE_FALSE(g.last_view().groups.empty());
    const Glossary& glossary = *ui::shared_glossary();
    bool found = false;
    for (const auto& group : g.last_view().groups)
        for (size_t i : group.entries) found = found || glossary.entries()[i].term == "Reduce-scatter";
    CHECK(found);
    CHECK(g.last_view().matches < g.last_view().total);
    CHECK(g.act(h.state, "term", "DP") == "");  // an alias
    h.f.frames(2, h.draw);
    CHECK(glossary.entries()[size_t(g.last_view().selected)].term == "Data parallel");
    REQUIRE(h.f.click_item("glossary/see/All-reduce", h.draw));
    h.f.frame(h.draw);  // the click lands after this frame's view was built
    CHECK(glossary.entries()[size_t(g.last_view().selected)].term == "All-reduce");
    const auto& mentions = g.lesson_mentions().at("All-reduce");
    const auto dp = std::find(mentions.begin(), mentions.end(), "Data parallel: copy, split, all-reduce");
    CHECK(dp != mentions.end());
    REQUIRE(h.f.click_item("glossary/from/Ring algorithm", h.draw));  // Ring algorithm links back to All-reduce
    h.f.frame(h.draw);
    CHECK(glossary.entries()[size_t(g.last_view().selected)].term == "Ring algorithm");
    CHECK(g.act(h.state, "term", "warp drive") == "glossary.term: \"warp drive\" is not in the glossary");
    CHECK(g.act(h.state, "group", "Collectives") == "");
    h.f.frames(1, h.draw);
    REQUIRE(g.last_view().groups.size() == 1);
    CHECK(g.last_view().groups[0].group == "Collectives");
}

TEST_CASE("cheat sheet: clicking a row loads its scenario and outlines its panel") {
    Harness h;
    ui::CheatSheetPanel& c = h.cheatsheet();
    c.open = true;
    h.f.frames(2, h.draw);
    REQUIRE(c.last_rows().size() >= 6);
    CHECK(c.last_rows()[0].cells[0] == "Data parallel (DDP)");
    CHECK(c.last_rows()[0].height > 0);
    REQUIRE(h.f.click_item("cheatsheet/row/2", h.draw));
    const CheatSheetRow& row = c.sheet()->rows[1];
    CHECK(h.state.scenario() == row.scenario);
    CHECK(h.app.registry().highlighted() == row.panel);
    h.f.frames(1, h.draw);
    CHECK(c.last_rows()[1].loaded);
    CHECK(c.act(h.state, "row", "Pipeline parallel") == "");
    CHECK(h.state.scenario().parallel.pp == 4);
    CHECK(c.act(h.state, "row", "99") == "cheatsheet.row: \"99\" is neither a row number nor a strategy of the cheat sheet");
}

TEST_CASE("a step sets what it shows: a comparison left on by an earlier step goes off") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    // pipeline-parallel step 7 compares interleaved 1F1B with 1F1B...
    REQUIRE(panel.open_lesson(h.state, "pipeline-parallel", 7).empty());
    auto& pipeline = dynamic_cast<ui::PipelinePanel&>(*h.app.registry().find("pipeline"));
    CHECK(pipeline.lane_count() == 2);
    // ...step 2 shows the timeline without one: going there turns the comparison off.
    REQUIRE(panel.act(h.state, "step", "2") == "");
    CHECK(pipeline.lane_count() == 1);
}

TEST_CASE("lesson progress: what the app keeps, read back clamped and only for known lessons") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    CHECK(panel.progress().empty());
    const unsigned long before = panel.progress_version();
    REQUIRE(panel.open_lesson(h.state, "why-split", 3).empty());
    CHECK(panel.progress_version() != before);
    CHECK(panel.progress() == std::map<std::string, int>{{"why-split", 3}});
    const unsigned long at_3 = panel.progress_version();
    panel.back(h.state);  // going back is not progress
    CHECK(panel.progress_version() == at_3);
    // From an earlier run: more steps than the lesson has are clamped, unknown ids ignored, and what
    // this run reached is kept.
    panel.restore_progress({{"why-split", 2}, {"pipeline-parallel", 999}, {"no-such-lesson", 4}});
    const std::map<std::string, int> p = panel.progress();
    CHECK(p.at("why-split") == 3);
    int pipeline_steps = 0;
    for (const Lesson& l : panel.lessons())
        if (l.id == "pipeline-parallel") pipeline_steps = int(l.steps.size());
    CHECK(p.at("pipeline-parallel") == pipeline_steps);
    CHECK(p.count("no-such-lesson") == 0);
}

TEST_CASE("glossary panel: a link followed has a Back to the term and the search it was followed from") {
    Harness h;
    // Drawn in the last frame (find_item_rect also keeps what earlier frames drew).
    const auto drawn = [](const std::string& key) {
        for (const auto& [k, r] : ui::current_item_rects())
            if (k == key) return true;
        return false;
    };
    ui::GlossaryPanel& g = h.glossary();
    g.open = true;
    REQUIRE(g.act(h.state, "search", "all-reduce") == "");
    REQUIRE(g.act(h.state, "term", "All-reduce") == "");
    h.f.frames(2, h.draw);
    CHECK_FALSE(drawn("glossary/back"));  // nothing followed yet
    // All-reduce's See also: Reduce-scatter, which the search hides, so following it clears the search.
    REQUIRE(h.f.click_item("glossary/see/Reduce-scatter", h.draw));
    h.f.frames(2, h.draw);
    CHECK(drawn("glossary/entry/Reduce-scatter"));
    CHECK(g.probe_state() == "search \"\"");
    // Back: All-reduce again, under the search that was typed.
    REQUIRE(h.f.click_item("glossary/back", h.draw));
    h.f.frames(2, h.draw);
    CHECK(drawn("glossary/entry/All-reduce"));
    CHECK(g.probe_state() == "search \"all-reduce\"");
    CHECK_FALSE(drawn("glossary/back"));
}

TEST_CASE("closing the lesson's window ends the lesson, its outline with it; the list offers it again") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    REQUIRE(panel.open_lesson(h.state, "data-parallel", 7).empty());
    h.f.frames(2, h.draw);
    REQUIRE(h.app.registry().highlighted() == "mesh");
    panel.open = false;  // what the window's close button does
    h.f.frames(2, h.draw);
    CHECK(panel.current_lesson() == nullptr);
    CHECK(h.app.registry().highlighted().empty());
    CHECK(h.state.ui.status.find("closed with its window") != std::string::npos);
    // Help > Lessons: the list, with the lesson's progress, not the old step.
    panel.open = true;
    h.f.frames(2, h.draw);
    CHECK(panel.probe_state().rfind("lesson list | data-parallel 7 of ", 0) == 0);
}

TEST_CASE("a New or an Open replaces the lesson's scenario: the lesson ends and says so; an edit does not") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    REQUIRE(panel.open_lesson(h.state, "data-parallel", 7).empty());
    h.f.frames(2, h.draw);
    // The learner's own edit on the step: still the step's scenario, changed.
    Scenario edited = h.state.scenario();
    edited.training.global_batch *= 2;
    REQUIRE(h.state.try_apply(edited).empty());
    h.f.frames(2, h.draw);
    CHECK(panel.current_lesson() != nullptr);
    CHECK(h.app.registry().highlighted() == "mesh");
    // Ctrl+N: the default scenario as a document of its own.
    h.state.open_document(default_scenario(), "");
    h.state.ui.status = "New scenario";
    h.f.frames(2, h.draw);
    CHECK(panel.current_lesson() == nullptr);
    CHECK(h.app.registry().highlighted().empty());
    CHECK(h.state.ui.status.find("New scenario; lesson \"") == 0);
    CHECK(h.state.ui.status.find("closed: its scenario was replaced") != std::string::npos);
    // Undo brings the lesson's scenario back, not the lesson: reopening shows the list.
    h.state.undo();
    h.f.frames(2, h.draw);
    CHECK(panel.current_lesson() == nullptr);
    CHECK(panel.probe_state().rfind("lesson list", 0) == 0);
}

namespace {

// The quantities a check asks about: its own, or each option's for a comparison.
std::vector<std::string> asked_quantities(const LessonCheck& c) {
    if (!c.quantity.empty()) return {c.quantity};
    std::vector<std::string> out;
    for (const ChoiceOption& o : c.options) out.push_back(o.quantity);
    return out;
}

}  // namespace

TEST_CASE("every question is answered by a figure a panel of its step shows, in the unit the question asks") {
    Harness h;
    ui::LessonPanel& panel = h.lesson();
    std::vector<std::string> unanswered;
    for (const Lesson& lesson : panel.lessons()) {
        REQUIRE(panel.open_lesson(h.state, lesson.id, 1).empty());
        for (size_t k = 0; k < lesson.steps.size(); ++k) {
            if (k > 0) panel.next(h.state);
            const LessonStep& step = lesson.steps[k];
            h.f.frames(3, h.draw);
            if (!step.check) continue;
            const std::vector<ui::ShownFigure> shown = ui::current_shown_figures();
            for (const std::string& q : asked_quantities(*step.check)) {
                if (hand_calculation_inputs(q, step.scenario)) continue;  // the quiz shows its inputs
                const QuantityInfo* info = find_quantity(q);
                REQUIRE(info != nullptr);
                // The outlined panel is where the step sends the learner to look.
                const auto on_step_panel = std::find_if(shown.begin(), shown.end(), [&](const ui::ShownFigure& f) {
                    return f.quantity == q && f.panel == step.highlight;
                });
                const std::string where = lesson.id + " step " + std::to_string(k + 1) + " (" + q + ")";
                if (on_step_panel == shown.end()) {
                    unanswered.push_back(where + ": not on the outlined panel (" + step.highlight + ")");
                    continue;
                }
                // What the panel shows is core's figure: typing it is right by the check's own tolerance.
                const CheckAnswer answer = answer_check(*step.check, step.scenario);
                REQUIRE(answer.ok());
                const auto shown_value = number_in_shown_text(q, on_step_panel->text);
                if (step.check->kind == CheckKind::number && shown_value &&
                    !number_answer_is_right(*step.check, answer.value, *shown_value))
                    unanswered.push_back(where + ": shown as \"" + on_step_panel->text + "\", core gives " +
                                         format_quantity(q, answer.value));
                // A unit the question names is the unit shown ("GiB", "s" read as the ms/s/min shown).
                if (info->unit == "GiB" && on_step_panel->text.find("GiB") == std::string::npos)
                    unanswered.push_back(where + ": shown as \"" + on_step_panel->text + "\", asked in GiB");
            }
        }
    }
    for (const std::string& u : unanswered) FAIL_CHECK(u);
}
