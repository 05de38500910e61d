// Flows a person reaches by mouse, reached by mouse: xdotool clicks the real window at the rectangles
// the app reports (--ui-probe), and the checks read the windows' rectangles and the scenario back.
#include "live_app.hpp"

#include "core/export/framework_export.hpp"
#include "core/export/table_csv.hpp"
#include "core/model/cost_model.hpp"
#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>
#include <stb/stb_image.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace shardscope;
using namespace shardscope::test;
using Json = nlohmann::json;

namespace {

// No two open panels cover each other (tiles may share a border), each lies inside the window, and the
// panel a lesson outlines is among them.
void check_tiled(const Json& probe) {
    const Json& windows = probe["windows"];
    REQUIRE(windows.is_array());
    REQUIRE(windows.size() >= 1);
    const double vw = probe["viewport"][0].get<double>(), vh = probe["viewport"][1].get<double>();
    for (const Json& w : windows) {
        CAPTURE(w.dump());
        CHECK(w["x"].get<double>() >= -1);
        CHECK(w["y"].get<double>() >= -1);
        CHECK(w["x"].get<double>() + w["w"].get<double>() <= vw + 1);
        CHECK(w["y"].get<double>() + w["h"].get<double>() <= vh + 1);
    }
    for (size_t i = 0; i < windows.size(); ++i)
        for (size_t j = i + 1; j < windows.size(); ++j) {
            CAPTURE(windows[i]["id"].get<std::string>());
            CAPTURE(windows[j]["id"].get<std::string>());
            const double smaller = std::min(windows[i]["w"].get<double>() * windows[i]["h"].get<double>(),
                                            windows[j]["w"].get<double>() * windows[j]["h"].get<double>());
            CHECK(overlap_area(windows[i], windows[j]) <= 0.01 * smaller);
        }
    const std::string outlined = probe["highlighted"].get<std::string>();
    if (outlined.empty()) return;
    bool shown = false;
    for (const Json& w : windows) shown = shown || w["id"] == outlined;
    CHECK_MESSAGE(shown, "the outlined panel " << outlined << " is not open");
}

// Clicks a lesson's answer box and types `text` over what it held.
void type_answer(LiveApp& app, const std::string& text) {
    REQUIRE(app.click("lesson/answer-box"));
    app.key("ctrl+a");
    app.type(text);
}

double covered_share(const Json& probe) {
    double area = 0;
    for (const Json& w : probe["windows"]) area += w["w"].get<double>() * w["h"].get<double>();
    return area / (probe["viewport"][0].get<double>() * probe["viewport"][1].get<double>());
}

}  // namespace

TEST_CASE("View > Lesson by mouse: each step's panels tile the window, the outlined one open, Next to the end") {
    LiveApp app("mouse-lesson", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("View", "lesson"));
    REQUIRE(app.wait_for_item("lesson/list/why-split"));
    REQUIRE(app.click("lesson/list/why-split"));
    int steps = 0;
    for (; steps < 30; ++steps) {
        const Json probe = app.wait_frames(4);
        CAPTURE(steps);
        check_tiled(probe);
        // The lesson and what it shows fill the window: nothing left empty for lack of a re-tile.
        CHECK(covered_share(probe) > 0.9);
        if (!probe["items"].contains("lesson/next")) break;
        REQUIRE(app.click("lesson/next"));
    }
    CHECK(steps >= 3);
    CHECK(app.probe()["items"].contains("lesson/finish"));
}

TEST_CASE("a cheat sheet row clicked by mouse opens its panel beside the sheet, not over it") {
    LiveApp app("mouse-cheatsheet", "--show cheatsheet");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("cheatsheet/row/5"));
    REQUIRE(app.click("cheatsheet/row/5"));
    const Json probe = app.wait_frames(6);
    check_tiled(probe);
    bool pipeline = false;
    for (const Json& w : probe["windows"]) {
        if (w["id"] != "pipeline") continue;
        pipeline = true;
        // It draws the example the row loaded, not an example of its own (a new user saw p 4, m 8
        // beside a scenario of other stages and had to press From scenario).
        CHECK(w["state"].get<std::string>().rfind("scenario: ", 0) == 0);
    }
    CHECK(pipeline);
    CHECK(covered_share(probe) > 0.9);
}

TEST_CASE("the planner's Apply button, clicked by mouse, loads its row; Ctrl+Z takes it back") {
    // The small dense model on two nodes: the search takes a moment even in a sanitizer build.
    const auto dir = scratch_dir("mouse-planner-config");
    const auto config = dir / "small.json";
    std::ofstream(config) << scenario_to_json(test::small_dense());
    LiveApp app("mouse-planner", "--config '" + config.string() + "' --show planner");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("planner/apply/3"));
    const Json before = app.probe()["scenario"];
    REQUIRE(app.click("planner/apply/3"));
    const Json applied = app.wait_frames(4);
    const Json after = applied["scenario"];
    CHECK(after != before);
    // The status line says what the click did, not what came before it.
    // ... every knob it turned included, as Undo would list them.
    const std::string status = applied["status"].get<std::string>();
    CAPTURE(status);
    CHECK(status.rfind("Applied the planner's #3 layout: ", 0) == 0);
    CHECK(status.size() > std::string("Applied the planner's #3 layout:  (Ctrl+Z undoes it)").size());
    CHECK(status.find(" (Ctrl+Z undoes it)") == status.size() - std::string(" (Ctrl+Z undoes it)").size());
    CHECK(after["model"] == before["model"]);  // a layout changes, the model stays
    app.key("ctrl+z");
    CHECK(app.wait_frames(4)["scenario"] == before);
}

TEST_CASE("resizing the real window re-tiles the panels over the new size") {
    LiveApp app("mouse-resize", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    check_tiled(app.probe());
    for (const auto& [w, h] : {std::pair{1280, 720}, std::pair{2560, 1440}}) {
        CAPTURE(w);
        app.resize(w, h);
        const Json probe = app.wait_frames(4);
        CHECK(probe["viewport"][0].get<double>() == w);
        CHECK(probe["viewport"][1].get<double>() == h);
        check_tiled(probe);
        // The default tiles cover the work area below the menu bar.
        CHECK(covered_share(probe) > 0.9);
    }
}

TEST_CASE("a lesson answer typed and checked with Enter; the first miss leaves a second try") {
    LiveApp app("mouse-answer", "--lesson why-split --step 1");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("lesson/answer-box"));
    // 2 + 2 + 12 bytes per parameter under mixed precision: first a wrong answer...
    type_answer(app, "12");
    app.key("Return");
    Json probe = app.wait_frames(4);
    CHECK(probe["items"].contains("lesson/feedback/wrong"));
    // ...then the right one, again with Enter.
    type_answer(app, "16");
    app.key("Return");
    probe = app.wait_frames(4);
    CHECK(probe["items"].contains("lesson/feedback/right"));
}

TEST_CASE("a lesson answer typed and checked with the Check button, no Enter: the click checks what the box shows") {
    LiveApp app("mouse-answer-click", "--lesson why-split --step 1");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("lesson/answer-box"));
    // A first answer with Enter (wrong), then the right one typed over it and checked by the button.
    type_answer(app, "12");
    app.key("Return");
    REQUIRE(app.wait_frames(4)["items"].contains("lesson/feedback/wrong"));
    type_answer(app, "16");
    REQUIRE(app.click("lesson/check"));
    const Json probe = app.wait_frames(4);
    CHECK(probe["items"].contains("lesson/feedback/right"));
    CHECK_FALSE(probe["items"].contains("lesson/feedback/wrong"));
}

TEST_CASE("File > Open: an absolute path typed in another folder opens that file") {
    LiveApp app("mouse-open", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("File", "open"));
    REQUIRE(app.wait_for_item("file/name"));
    REQUIRE(app.click("file/name"));
    const std::string file = std::string(SHARDSCOPE_SOURCE_DIR) + "/docs/strategy.json";
    app.type(file);
    app.key("Return");
    const Json probe = app.wait_frames(6);
    const Json expected = Json::parse(scenario_to_json(*parse_scenario(slurp(file)).scenario));
    CHECK(probe["scenario"] == expected);
}

TEST_CASE("after a lesson, View > Reset layout by mouse puts every default panel back on its tile") {
    LiveApp app("mouse-reset", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    const Json before = app.wait_frames(2)["windows"];
    REQUIRE(app.choose("View", "lesson"));
    REQUIRE(app.wait_for_item("lesson/list/why-split"));
    REQUIRE(app.click("lesson/list/why-split"));
    REQUIRE(app.choose("View", "reset"));
    const Json probe = app.wait_frames(4);
    check_tiled(probe);
    CHECK(probe["highlighted"] == "");  // the lesson's outline went with its layout
    // The same panels as at start, each where it was.
    const Json& after = probe["windows"];
    REQUIRE(after.size() == before.size());
    for (const Json& w : before) {
        CAPTURE(w["id"].get<std::string>());
        bool same = false;
        for (const Json& a : after)
            same = same || (a["id"] == w["id"] && std::abs(a["x"].get<double>() - w["x"].get<double>()) < 1 &&
                            std::abs(a["y"].get<double>() - w["y"].get<double>()) < 1 &&
                            std::abs(a["w"].get<double>() - w["w"].get<double>()) < 1 &&
                            std::abs(a["h"].get<double>() - w["h"].get<double>()) < 1);
        CHECK(same);
    }
}

TEST_CASE("Memory and cost by mouse: the fix's Apply makes the layout fit; the conventions fold and unfold") {
    LiveApp app("mouse-memory",
                "--config '" + std::string(SHARDSCOPE_SOURCE_DIR) + "/docs/memory-oom.json' --show memory");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/apply_fix"));
    CHECK(app.probe()["scenario"]["parallel"]["zero"] == 0);
    REQUIRE(app.click("memory/apply_fix"));
    const Json fixed = app.wait_frames(4);
    // Llama 3 70B as DDP on 64 GPUs (PyTorch stack): the fastest fix shards with ZeRO-3, splits the
    // blocks over TP 2 and recomputes selectively (torchtitan's op-level policy).
    CHECK(fixed["scenario"]["parallel"]["zero"] == 3);
    CHECK(fixed["scenario"]["parallel"]["tp"] == 2);
    CHECK(fixed["scenario"]["training"]["recompute"] == "selective");
    CHECK_FALSE(fixed["items"].contains("memory/apply_fix"));  // it fits: nothing left to fix
    CHECK(fixed["status"].get<std::string>().rfind("Applied the fix: zero 0 -> 3, ", 0) == 0);
    // "How these figures are counted" starts open; a click folds it, another unfolds it.
    REQUIRE(app.wait_for_item("memory/conventions/shown"));
    REQUIRE(app.click("memory/conventions"));
    CHECK_FALSE(app.wait_frames(4)["items"].contains("memory/conventions/shown"));
    REQUIRE(app.click("memory/conventions"));
    CHECK(app.wait_frames(4)["items"].contains("memory/conventions/shown"));
}

TEST_CASE("Ctrl+V into a text field with nothing on the clipboard pastes nothing and prints no error") {
    LiveApp app("paste-empty-clipboard", "--lesson why-split --step 1");
    REQUIRE_MESSAGE(app.ok(), app.err());
    REQUIRE(app.click("lesson/answer-box"));
    app.key("ctrl+v");
    app.wait_frames(4);
    CHECK_MESSAGE(app.err().find("GLFW error") == std::string::npos, app.err());
}

TEST_CASE("Help > Lessons by mouse, to the last step, whose button starts the next lesson") {
    LiveApp app("mouse-help-lessons", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("Help", "lesson"));
    REQUIRE(app.wait_for_item("lesson/list/why-split"));
    REQUIRE(app.click("lesson/list/why-split"));
    for (int steps = 0; steps < 30; ++steps) {
        const Json probe = app.wait_frames(3);
        if (!probe["items"].contains("lesson/next")) break;
        REQUIRE(app.click("lesson/next"));
    }
    REQUIRE(app.wait_for_item("lesson/next_lesson/data-parallel"));
    REQUIRE(app.click("lesson/next_lesson/data-parallel"));
    const Json probe = app.wait_frames(4);
    // The second lesson at its first step: Next again, no way further back, its panels tiled.
    CHECK(probe["items"].contains("lesson/next"));
    CHECK_FALSE(probe["items"].contains("lesson/finish"));
    check_tiled(probe);
}

TEST_CASE("Help > Glossary by mouse: a term's lesson link opens that lesson at the step that explains it") {
    LiveApp app("mouse-glossary-lesson", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("Help", "glossary"));
    REQUIRE(app.wait_for_item("glossary/term/All-reduce"));
    REQUIRE(app.click("glossary/term/All-reduce"));
    REQUIRE(app.wait_for_item("glossary/lesson/data-parallel"));
    REQUIRE(app.click("glossary/lesson/data-parallel"));
    const Json probe = app.wait_frames(4);
    CHECK(probe["items"].contains("lesson/body"));
    CHECK(probe["items"].contains("lesson/outline/1"));
    CHECK_FALSE(probe["items"].contains("lesson/list/why-split"));  // a lesson, not the list
    check_tiled(probe);
}

TEST_CASE("Ctrl+Q typed while the file dialog's name field has the keyboard quits the app") {
    LiveApp app("mouse-quit-in-field", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    app.key("ctrl+o");
    REQUIRE(app.wait_for_item("file/name"));
    REQUIRE(app.click("file/name"));
    app.type("draft");
    CHECK_FALSE(app.exited_within(0));
    app.key("ctrl+q");
    CHECK(app.exited_within(30));
}

TEST_CASE("a glossary search typed by keyboard shows the term it names, not the first match") {
    LiveApp app("mouse-glossary-search", "--show glossary");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("glossary/search"));
    REQUIRE(app.click("glossary/search"));
    app.type("bubble");
    const Json probe = app.wait_frames(4);
    // "bubble" is in 1F1B's definition too, and 1F1B lists before Bubble; the entry shown is Bubble.
    CHECK(probe["items"].contains("glossary/term/1F1B"));
    CHECK(probe["items"].contains("glossary/entry/Bubble"));
    CHECK_FALSE(probe["items"].contains("glossary/entry/1F1B"));
}

TEST_CASE("hovering a dim in the mesh's data table shows what it exchanges and which link it crosses") {
    LiveApp app("mouse-mesh-dim-tip", "--show mesh --action mesh.data=on");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("mesh/data/dim/dp_shard"));
    CHECK_FALSE(app.probe()["items"].contains("mesh/data/tip/dp_shard"));
    REQUIRE(app.hover("mesh/data/dim/dp_shard"));
    CHECK(app.probe()["items"].contains("mesh/data/tip/dp_shard"));
    CHECK_FALSE(app.probe()["items"].contains("mesh/data/tip/tp"));
}

TEST_CASE("a first start offers the lessons: its button, clicked by mouse, opens the first lesson, once") {
    LiveApp app("mouse-welcome", "", 1600, 1000, "", /*first_run=*/true);
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    CHECK_FALSE(std::filesystem::exists(app.config_dir() / "welcomed"));
    REQUIRE(app.wait_for_item("welcome/start"));
    REQUIRE(app.click("welcome/start"));
    const Json probe = app.wait_frames(4);
    CHECK_FALSE(probe["items"].contains("welcome/start"));
    // The first lesson at its first step: its scenario (a 70B model on one GPU) and its panels tiled.
    CHECK(probe["items"].contains("lesson/body"));
    CHECK(probe["scenario"]["model"]["name"] == "Llama 3 70B");
    CHECK(probe["scenario"]["cluster"]["gpus_per_node"] == 1);
    check_tiled(probe);
    // Answered: the next start does not ask again.
    CHECK(std::filesystem::exists(app.config_dir() / "welcomed"));
}

TEST_CASE("the first start's 'Not now', clicked by mouse, closes the welcome and changes nothing else") {
    LiveApp app("mouse-welcome-not-now", "", 1600, 1000, "", /*first_run=*/true);
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("welcome/dismiss"));
    const Json before = app.probe();
    REQUIRE(app.click("welcome/dismiss"));
    const Json after = app.wait_frames(4);
    CHECK_FALSE(after["items"].contains("welcome/dismiss"));
    CHECK_FALSE(after["items"].contains("lesson/body"));
    CHECK(after["scenario"] == before["scenario"]);
    CHECK(std::filesystem::exists(app.config_dir() / "welcomed"));
}

TEST_CASE("a returning user's start shows no welcome") {
    LiveApp app("mouse-welcome-returning", "");  // the marker of an answered welcome is there
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    const Json probe = app.wait_frames(5);
    CHECK(probe["items"].contains("menu/Help"));
    CHECK_FALSE(probe["items"].contains("welcome/start"));
}

TEST_CASE("after a lesson's Finish, a click brings back the scenario from before it; Ctrl+Z takes that back") {
    LiveApp app("mouse-lesson-restore", "--lesson context-parallel --step 7");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("lesson/finish"));
    const Json in_lesson = app.probe()["scenario"];
    const Json before = Json::parse(scenario_to_json(default_scenario()));
    REQUIRE(in_lesson != before);  // the lesson set its own (a long sequence split by CP)
    REQUIRE(app.click("lesson/finish"));
    REQUIRE(app.wait_for_item("lesson/restore"));
    REQUIRE(app.click("lesson/restore"));
    const Json restored = app.wait_frames(4);
    CHECK(restored["scenario"] == before);
    CHECK(restored["status"] == "Back to your scenario from before the lessons (Ctrl+Z undoes it)");
    app.key("ctrl+z");
    CHECK(app.wait_frames(4)["scenario"] == in_lesson);
}

TEST_CASE("Help > Lessons and View > a panel, by mouse: the panel opened takes a tile, covering none") {
    LiveApp app("mouse-help-lessons", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("Help", "lesson"));
    REQUIRE(app.wait_for_item("lesson/list/why-split"));
    Json probe = app.wait_frames(4);
    check_tiled(probe);
    CHECK(covered_share(probe) > 0.9);
    REQUIRE(app.choose("View", "glossary"));
    probe = app.wait_frames(4);
    bool glossary = false;
    for (const Json& w : probe["windows"]) glossary = glossary || w["id"] == "glossary";
    CHECK(glossary);
    check_tiled(probe);
}

TEST_CASE("lesson progress is kept between runs: the list reopens a lesson where the learner left it") {
    Json at_step_4;
    std::string kept;
    {
        LiveApp app("lesson-progress-1", "--lesson why-split --step 4");
        REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
        REQUIRE(app.wait_for_item("lesson/next"));
        at_step_4 = app.wait_frames(4)["scenario"];
        const auto file = app.config_dir() / "lesson-progress.json";
        for (int i = 0; i < 100 && !std::filesystem::exists(file); ++i) app.wait_frames(1);
        kept = slurp(file);
    }
    CHECK(Json::parse(kept) == Json::parse(R"({"why-split": 4})"));
    // A new run finds the file: the list's row opens at step 4, not 1.
    LiveApp app("lesson-progress-2", "", 1600, 1000, "", false, {{"lesson-progress.json", kept}});
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("Help", "lesson"));
    REQUIRE(app.wait_for_item("lesson/list/why-split"));
    REQUIRE(app.click("lesson/list/why-split"));
    CHECK(app.wait_frames(4)["scenario"] == at_step_4);
}

TEST_CASE("a kept layout whose panels cover each other is tiled at start; closing a panel closes its hole") {
    // As a layout saved during a lesson comes back under the default panels: two of them in one place.
    const std::string ini =
        "[Window][Memory and cost###memory]\nPos=0,19\nSize=800,600\nCollapsed=0\n\n"
        "[Window][Collective animator###collective]\nPos=0,19\nSize=800,600\nCollapsed=0\n\n";
    LiveApp app("mouse-kept-layout", "", 1600, 1000, ini);
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    Json probe = app.wait_frames(4);
    check_tiled(probe);
    CHECK(covered_share(probe) > 0.9);
    // View > Pipeline timeline, ticked, closes it: the others take its place.
    REQUIRE(app.choose("View", "pipeline"));
    probe = app.wait_frames(4);
    for (const Json& w : probe["windows"]) CHECK(w["id"] != "pipeline");
    check_tiled(probe);
    CHECK(covered_share(probe) > 0.9);
}

TEST_CASE("a kept layout that leaves part of the window empty is tiled at start") {
    // As one saved while the glossary had the right half comes back without it: the default panels
    // squeezed into the left half, none covering another.
    const std::string ini =
        "[Window][Strategy explorer###strategy]\nPos=0,19\nSize=400,490\nCollapsed=0\n\n"
        "[Window][Device mesh###mesh]\nPos=400,19\nSize=400,490\nCollapsed=0\n\n"
        "[Window][Memory and cost###memory]\nPos=0,509\nSize=400,490\nCollapsed=0\n\n"
        "[Window][Collective animator###collective]\nPos=400,509\nSize=200,490\nCollapsed=0\n\n"
        "[Window][Pipeline timeline###pipeline]\nPos=600,509\nSize=200,490\nCollapsed=0\n\n";
    LiveApp app("mouse-kept-sparse", "", 1600, 1000, ini);
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    const Json probe = app.wait_frames(4);
    check_tiled(probe);
    CHECK(covered_share(probe) > 0.9);
}

namespace {

// The probe's window of the open panel `id` (its rectangle and state); null when it is not open.
Json window_of(const Json& probe, const std::string& id) {
    for (const Json& w : probe["windows"])
        if (w["id"] == id) return w;
    return nullptr;
}

// The centre of a window the probe lists, in window pixels.
std::pair<int, int> centre_of(const Json& w) {
    return {static_cast<int>(w["x"].get<double>() + w["w"].get<double>() / 2),
            static_cast<int>(w["y"].get<double>() + w["h"].get<double>() / 2)};
}

// What the open panel `id` says of itself in the probe (the step shown, playing or not); empty when it
// is not open.
std::string panel_state(const Json& probe, const std::string& id) {
    const Json w = window_of(probe, id);
    return w.is_object() ? w.value("state", "") : std::string();
}

// Presses `keys` in the app and answers what the lesson panel then says of itself.
std::string lesson_after_key(LiveApp& app, const std::string& keys) {
    app.key(keys);
    return panel_state(app.wait_frames(4), "lesson");
}

}  // namespace

TEST_CASE("a panel closed by its own close button, clicked by mouse, leaves no hole") {
    LiveApp app("mouse-close-button", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("View", "planner"));
    Json probe = app.wait_frames(4);
    const Json planner = window_of(probe, "planner");
    REQUIRE(planner.is_object());
    // The title bar's close button sits at its right end, half a title bar down.
    const double font = probe["font_px"].get<double>();
    REQUIRE(app.click_at(static_cast<int>(planner["x"].get<double>() + planner["w"].get<double>() - font * 0.9),
                         static_cast<int>(planner["y"].get<double>() + font * 0.7)));
    probe = app.wait_frames(4);
    for (const Json& w : probe["windows"]) CHECK(w["id"] != "planner");
    check_tiled(probe);
    CHECK(covered_share(probe) > 0.9);
}

TEST_CASE("a lesson ends with its window's close button, and with Ctrl+N; Help > Lessons then lists it") {
    LiveApp app("mouse-lesson-ends", "--lesson data-parallel --step 7");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    Json probe = app.wait_frames(4);
    REQUIRE(probe["highlighted"] == "mesh");
    // The lesson window's close button, clicked: the lesson and the mesh's outline end together.
    const Json lesson = window_of(probe, "lesson");
    REQUIRE(lesson.is_object());
    const double font = probe["font_px"].get<double>();
    REQUIRE(app.click_at(static_cast<int>(lesson["x"].get<double>() + lesson["w"].get<double>() - font * 0.9),
                         static_cast<int>(lesson["y"].get<double>() + font * 0.7)));
    probe = app.wait_frames(4);
    CHECK(probe["highlighted"] == "");
    CHECK_FALSE(window_of(probe, "lesson").is_object());
    CHECK(probe["status"].get<std::string>().find("closed with its window") != std::string::npos);
    // Help > Lessons: the list with the lesson's progress, not its old step over another scenario.
    REQUIRE(app.choose("Help", "lesson"));
    probe = app.wait_frames(4);
    CHECK(panel_state(probe, "lesson").rfind("lesson list | data-parallel 7 of ", 0) == 0);
    // Back into it from the list, then Ctrl+N: the default scenario replaces the step's, so the
    // lesson ends and says so.
    REQUIRE(app.wait_for_item("lesson/list/data-parallel"));
    REQUIRE(app.click("lesson/list/data-parallel"));
    probe = app.wait_frames(4);
    REQUIRE(panel_state(probe, "lesson").rfind("lesson data-parallel step ", 0) == 0);
    app.key("ctrl+n");
    probe = app.wait_frames(4);
    CHECK(probe["highlighted"] == "");
    CHECK(panel_state(probe, "lesson").rfind("lesson list", 0) == 0);
    CHECK(probe["status"].get<std::string>().find("its scenario was replaced") != std::string::npos);
}

TEST_CASE("at 1280x720 the Pipeline timeline's tile shows m for the bubble target, stacked, inside the window") {
    LiveApp app("mouse-pipeline-720", "", 1280, 720);
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("pipeline/readout/m/0"));
    const Json probe = app.wait_frames(2);
    const Json pipeline = window_of(probe, "pipeline");
    REQUIRE(pipeline.is_object());
    const Json m = probe["items"]["pipeline/readout/m/0"];
    CAPTURE(m.dump());
    CHECK(m[0].get<double>() >= pipeline["x"].get<double>());
    CHECK(m[2].get<double>() <= pipeline["x"].get<double>() + pipeline["w"].get<double>());
    CHECK(m[3].get<double>() <= pipeline["y"].get<double>() + pipeline["h"].get<double>());
    // Stacked: the last heading sits rows below the first, not beside it past the tile's edge.
    CHECK(probe["items"]["pipeline/heading/6"][1].get<double>() > probe["items"]["pipeline/heading/0"][1].get<double>());
}

TEST_CASE("File > Import model over a layout the model cannot run carries the layout to the nearest that runs") {
    // Llama 3 405B as Meta split it: 16 stages x 8 chunks over 126 layers + embedding + loss. An 8B
    // of 32 layers allows 2 chunks a stage; the import says so and takes the model.
    std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR) + "/examples/llama3-405b-16k-h100.json");
    Json scenario = Json::parse(in);
    scenario["parallel"]["embedding_in_pipeline_split"] = true;
    scenario["parallel"]["loss_in_pipeline_split"] = true;
    scenario["training"]["schedule"] = "interleaved-1f1b";
    scenario["training"]["virtual_stages"] = 8;
    const auto file = scratch_dir("mouse-import-carry-input") / "interleaved-405b.json";
    std::ofstream(file) << scenario.dump(2);
    LiveApp app("mouse-import-carry", "--config '" + file.string() + "' --show scenario");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_frames(2)["scenario"]["training"]["virtual_stages"] == 8);
    REQUIRE(app.choose("File", "import"));
    REQUIRE(app.wait_for_item("file/name"));
    REQUIRE(app.click("file/name"));
    app.type(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/models/llama3-8b.json");
    app.key("Return");
    const Json probe = app.wait_frames(6);
    CHECK(probe["scenario"]["model"]["name"] == "Llama 3 8B");
    CHECK(probe["scenario"]["training"]["virtual_stages"] == 2);
    CHECK(probe["scenario"]["parallel"]["pp"] == 16);
    CHECK(probe["status"].get<std::string>().find("the layout moved to run it: virtual_stages 8 -> 2") != std::string::npos);
}

TEST_CASE("the pipeline lesson's GPipe step: the fix clicked is 1F1B, which fits; Copy as TorchTitan 0.2.2 by mouse") {
    LiveApp app("mouse-gpipe-fix", "--lesson pipeline-parallel --step 5");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/apply_fix"));
    REQUIRE(app.wait_frames(2)["scenario"]["training"]["schedule"] == "gpipe");
    REQUIRE(app.click("memory/apply_fix"));
    Json probe = app.wait_frames(4);
    CHECK(probe["scenario"]["training"]["schedule"] == "1f1b");
    CHECK(probe["scenario"]["training"]["recompute"] == "selective");  // not full recompute
    CHECK_FALSE(probe["items"].contains("memory/apply_fix"));        // it fits
    CHECK(probe["status"].get<std::string>().rfind("Applied the fix: schedule gpipe -> 1f1b", 0) == 0);
    // The Scenario panel's Copy as row, its TOML button: the job file of TorchTitan's releases.
    REQUIRE(app.choose("View", "scenario"));
    REQUIRE(app.wait_for_item("scenario/copy/torchtitan-toml"));
    REQUIRE(app.click("scenario/copy/torchtitan-toml"));
    probe = app.wait_frames(4);
    const std::string toml = probe["copied"].get<std::string>();
    CHECK(toml.find("# For TorchTitan releases up to 0.2.2") != std::string::npos);
    CHECK(toml.find("pipeline_parallel_schedule = \"1F1B\"") != std::string::npos);
    CHECK(probe["status"].get<std::string>().rfind("Copied the scenario as TorchTitan 0.2.2 job TOML", 0) == 0);
}

#ifdef SHARDSCOPE_TEST_CPU_MPI
TEST_CASE("Measure by mouse on CPU ranks: pick the ring, tick check, type a size, Run sweep; every row checks") {
    LiveApp app("mouse-measure-cpu", "--show measure");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("measure/algorithm"));  // the CPU backend was chosen: it has something to run on
    REQUIRE(app.click("measure/algorithm"));
    REQUIRE(app.wait_for_item("measure/algorithm/ring"));
    REQUIRE(app.click("measure/algorithm/ring"));
    REQUIRE(app.click("measure/check"));
    REQUIRE(app.click("measure/max"));
    app.key("ctrl+a");
    app.type("64K");
    app.key("Return");
    REQUIRE(app.click("measure/run"));
    // 8 B to 64 KiB by 2: 14 sizes, each run by 4 mpirun ranks and checked against the closed form.
    bool last_row = false;
    for (int tries = 0; tries < 4 && !last_row; ++tries) last_row = app.wait_for_item("measure/row/13/checked");
    REQUIRE_MESSAGE(last_row, "the sweep did not finish: " << app.err());
    const Json done = app.wait_frames(4);
    for (int i = 0; i < 14; ++i) CHECK(done["items"].contains("measure/row/" + std::to_string(i) + "/checked"));
    CHECK_FALSE(done["items"].contains("measure/row/14"));
    CHECK_FALSE(done["items"].contains("measure/progress"));  // finished, no bar left
    // Its figures taken into the scenario by mouse: the status line says so (it stayed empty).
    REQUIRE(app.click("measure/apply"));
    CHECK(app.wait_frames(3)["status"].get<std::string>().rfind("The scenario uses the measured links", 0) == 0);

    // A long sweep, cancelled by mouse after its first rows: the bar goes, the rows so far stay, and
    // no rank is left running.
    REQUIRE(app.click("measure/max"));
    app.key("ctrl+a");
    app.type("256M");
    app.key("Return");
    REQUIRE(app.click("measure/run"));
    REQUIRE(app.wait_for_item("measure/row/1"));
    REQUIRE(app.click("measure/cancel"));
    bool ended = false;
    for (int i = 0; i < 100 && !ended; ++i) ended = !app.wait_frames(2)["items"].contains("measure/progress");
    CHECK(ended);
    const Json cancelled = app.wait_frames(4);
    CHECK(cancelled["items"].contains("measure/row/0"));
    CHECK_FALSE(cancelled["items"].contains("measure/row/25"));  // 8 B .. 256 MiB by 2 is 26 sizes
    // "[/]path" matches this build's ranks but not the shell running pgrep, whose text holds the brackets.
    const std::string exe = SHARDSCOPE_EXE;
    const std::string ranks = "pgrep -f '[" + exe.substr(0, 1) + "]" + exe.substr(1) + " measure --backend cpu' || true";
    std::string left = shell_output(ranks);
    for (int i = 0; i < 50 && !left.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        left = shell_output(ranks);
    }
    CHECK_MESSAGE(left.empty(), "ranks still running: " << left);
}
#endif

TEST_CASE("the model and batch edited by mouse in the Scenario panel; the planner's best row applied; Megatron-LM flags copied") {
    LiveApp app("mouse-scenario", "--show scenario,mesh,planner");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("scenario/model"));
    // Mixtral from its preset, through the combo.
    REQUIRE(app.click("scenario/model"));
    REQUIRE(app.wait_for_item("scenario/preset/Mixtral 8x7B"));
    REQUIRE(app.click("scenario/preset/Mixtral 8x7B"));
    Json probe = app.wait_frames(4);
    CHECK(probe["scenario"]["model"]["name"] == "Mixtral 8x7B");
    CHECK(probe["scenario"]["model"]["experts"] == 8);
    // The preset's own training length came with it, and the status line says so.
    CHECK(probe["scenario"]["model"]["seq_len"] == 32768);
    CHECK(probe["status"] == "Model Mixtral 8x7B: seq_len 8192 -> 32768, the preset's training length (Ctrl+Z undoes "
                             "it; its source is under the model)");
    // The sequence length and the global batch, typed and left with Enter.
    const auto type_into = [&](const std::string& key, const std::string& text) {
        REQUIRE(app.wait_for_item(key));
        return app.type_into(key, text);
    };
    probe = type_into("scenario/field/seq_len", "4096");
    CHECK(probe["scenario"]["model"]["seq_len"] == 4096);
    probe = type_into("scenario/field/global_batch", "1024");
    CHECK(probe["scenario"]["training"]["global_batch"] == 1024);
    CHECK(probe["scenario"]["model"]["name"] == "Mixtral 8x7B");  // a length and a batch leave the model as it is
    // A shape changed by hand is no longer the preset: named so, and named back once undone by hand.
    probe = type_into("scenario/field/layers", "40");
    CHECK(probe["scenario"]["model"]["layers"] == 40);
    CHECK(probe["scenario"]["model"]["name"] == "Mixtral 8x7B (edited)");
    probe = type_into("scenario/field/layers", "32");
    CHECK(probe["scenario"]["model"]["name"] == "Mixtral 8x7B");
    // A rule broken by the edit is shown and changes nothing: 3 heads do not take 8 kv heads.
    probe = type_into("scenario/field/heads", "3");
    CHECK(probe["scenario"]["model"]["heads"] == 32);
    CHECK(probe["items"].contains("scenario/error"));
    // The mesh scaled to 2,048 GPUs: 256 nodes of 8, in the Device mesh panel's folded controls.
    REQUIRE(app.click("mesh/controls"));
    REQUIRE(app.wait_for_item("mesh/field/nodes"));
    probe = type_into("mesh/field/nodes", "256");
    CHECK(probe["scenario"]["cluster"]["nodes"] == 256);
    // The planner ranks the layouts of this model on this cluster; its best row applied by mouse.
    REQUIRE(app.wait_for_item("planner/apply/1"));
    const Json before = app.probe()["scenario"];
    REQUIRE(app.click("planner/apply/1"));
    probe = app.wait_frames(4);
    CHECK(probe["scenario"]["model"] == before["model"]);
    CHECK(probe["scenario"]["training"]["global_batch"] == 1024);
    // Copy as Megatron-LM: the status line says what the clipboard got.
    REQUIRE(app.click("scenario/copy/megatron"));
    probe = app.wait_frames(4);
    CHECK(probe["status"].get<std::string>().rfind("Copied the scenario as Megatron-LM flags to the clipboard", 0) == 0);
    // Every note the export makes is on the status line, a line each.
    const ScenarioLoad shown = parse_scenario(probe["scenario"].dump());
    REQUIRE(shown.ok());
    for (const std::string& note : export_scenario(*shown.scenario, ExportTarget::megatron).warnings) {
        CAPTURE(note);
        CHECK(probe["status"].get<std::string>().find("\n  - " + note) != std::string::npos);
    }
    const std::string flags = probe["copied"].get<std::string>();
    const int tp = probe["scenario"]["parallel"]["tp"].get<int>();
    CHECK(flags.find("--tensor-model-parallel-size " + std::to_string(tp)) != std::string::npos);
    CHECK(flags.find("--global-batch-size 1024") != std::string::npos);
}

TEST_CASE("File > Import model asks a Hugging Face config's sequence length; Copy as from File and a Planner row; "
          "the trace and the ranking out") {
    LiveApp app("mouse-import", "--show scenario,planner");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    // File > Import model..., a config.json typed in the browser: the app asks the length to train at.
    REQUIRE(app.choose("File", "import"));
    REQUIRE(app.wait_for_item("file/name"));
    REQUIRE(app.click("file/name"));
    app.type(std::string(SHARDSCOPE_SOURCE_DIR) + "/examples/hf/Mixtral-8x7B-v0.1/config.json");
    app.key("Return");
    REQUIRE(app.wait_for_item("import/seq_len"));
    Json probe = app.wait_frames(2);
    CHECK(probe["scenario"]["model"]["name"] != "Mixtral-8x7B-v0.1");  // nothing taken before the answer
    REQUIRE(app.click("import/seq_len"));
    app.key("ctrl+a");
    app.type("4096");
    REQUIRE(app.click("import/ok"));
    probe = app.wait_frames(6);
    CHECK(probe["scenario"]["model"]["name"] == "Mixtral-8x7B-v0.1");
    CHECK(probe["scenario"]["model"]["experts"] == 8);
    CHECK(probe["scenario"]["model"]["seq_len"] == 4096);
    CHECK(probe["status"].get<std::string>().find("at seq_len 4096") != std::string::npos);
    CHECK_FALSE(probe["items"].contains("import/seq_len"));

    // The GPU and the links, under their header: the inter-node bandwidth typed and left with Enter.
    REQUIRE(app.click("scenario/cluster"));
    REQUIRE(app.wait_for_item("scenario/field/inter_node_bandwidth_gbps"));
    probe = app.type_into("scenario/field/inter_node_bandwidth_gbps", "25");
    CHECK(probe["scenario"]["cluster"]["inter_node"]["bandwidth_gbps"] == 25.0);
    // A link of no bandwidth is refused with core's rule and changes nothing.
    probe = app.type_into("scenario/field/intra_node_bandwidth_gbps", "0");
    CHECK(probe["scenario"]["cluster"]["intra_node"]["bandwidth_gbps"].get<double>() > 0);
    CHECK(probe["items"].contains("scenario/error"));

    // File > Copy scenario as > TorchTitan: the current scenario's degrees and length in its Python config.
    REQUIRE(app.choose("File", "copy"));
    REQUIRE(app.wait_for_item("menu/File/copy/torchtitan"));
    REQUIRE(app.click("menu/File/copy/torchtitan"));
    probe = app.wait_frames(4);
    const std::string titan = probe["copied"].get<std::string>();
    CHECK(titan.find("    config.parallelism = ParallelismConfig(") != std::string::npos);
    CHECK(titan.find("    config.training.max_context_length = 4096") != std::string::npos);
    CHECK(titan.find("        tensor_parallel_degree=" + std::to_string(probe["scenario"]["parallel"]["tp"].get<int>()) + ",") !=
          std::string::npos);

    // Planner row 2, Copy as... > DeepSpeed: that row's layout, not the current one.
    REQUIRE(app.wait_for_item("planner/copy/2"));
    REQUIRE(app.click("planner/copy/2"));
    REQUIRE(app.wait_for_item("planner/copy/2/deepspeed"));
    REQUIRE(app.click("planner/copy/2/deepspeed"));
    probe = app.wait_frames(4);
    CHECK(probe["status"].get<std::string>().rfind("Copied planner row 2 as DeepSpeed ds_config.json", 0) == 0);
    const Json ds = Json::parse(probe["copied"].get<std::string>());
    CHECK(ds["train_batch_size"] == probe["scenario"]["training"]["global_batch"]);

    // Copy as CSV: the ranking with a header and the rows the table shows.
    REQUIRE(app.click("planner/csv"));
    probe = app.wait_frames(4);
    const std::string csv = probe["copied"].get<std::string>();
    CHECK(csv.rfind("rank,layout,tp,cp,pp,", 0) == 0);
    CHECK(csv.find("\n2,") != std::string::npos);

    // File > Export trace of the step...: a Chrome trace whose last event ends at the report's step.
    const std::filesystem::path trace = std::filesystem::temp_directory_path() / "shardscope-mouse-trace.json";
    std::filesystem::remove(trace);
    REQUIRE(app.choose("File", "trace"));
    REQUIRE(app.wait_for_item("file/name"));
    app.type_into("file/name", trace.string());
    probe = app.wait_frames(2);
    REQUIRE(std::filesystem::exists(trace));
    const Json events = Json::parse(slurp(trace));
    double last_us = 0;
    for (const Json& e : events["traceEvents"])
        if (e["ph"] == "X") last_us = std::max(last_us, e["ts"].get<double>() + e["dur"].get<double>());
    const Report report = build_report(*parse_scenario(probe["scenario"].dump()).scenario);
    CHECK(last_us / 1e6 == doctest::Approx(*report.time.step).epsilon(1e-6));
    CHECK(probe["status"].get<std::string>().find("Trace of the simulated step written to") == 0);

    // Again to the same file: the browser asks before replacing it, and a second Enter does. A folder
    // typed in the name box opens in the browser instead of being refused.
    std::filesystem::remove(trace.string() + ".old");
    std::filesystem::rename(trace, trace.string() + ".old");
    std::ofstream(trace) << "keep me";
    REQUIRE(app.choose("File", "trace"));
    REQUIRE(app.wait_for_item("file/name"));
    probe = app.type_into("file/name", std::string(SHARDSCOPE_SOURCE_DIR) + "/examples");
    CHECK(probe["items"].contains("file/name"));  // still browsing, now in examples/
    CHECK(probe["error"].get<std::string>().empty());
    probe = app.type_into("file/name", trace.string());
    CHECK(probe["items"].contains("file/replace_question"));
    CHECK(slurp(trace) == "keep me");
    app.key("Return");
    probe = app.wait_frames(6);
    CHECK_FALSE(probe["items"].contains("file/name"));
    CHECK(slurp(trace).rfind("{", 0) == 0);
    std::filesystem::remove(trace);
    std::filesystem::remove(trace.string() + ".old");
}

TEST_CASE("the arrow keys keep stepping a lesson after a step opens a new panel, the mouse over another") {
    LiveApp app("mouse-lesson-keys", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("View", "lesson"));
    REQUIRE(app.wait_for_item("lesson/list/why-split"));
    REQUIRE(app.click("lesson/list/why-split"));
    // Next by mouse to step 6; the next step opens the Device mesh beside the Memory panel.
    for (int i = 0; i < 5; ++i) REQUIRE(app.click("lesson/next"));
    REQUIRE(panel_state(app.wait_frames(2), "lesson") == "lesson why-split step 6 of 9");
    Json probe = app.probe();
    const Json memory = window_of(probe, "memory");
    REQUIRE(memory.is_object());
    const auto [mx, my] = centre_of(memory);
    app.move_to(mx, my);
    app.key("Right");
    probe = app.wait_frames(4);
    CHECK(panel_state(probe, "lesson") == "lesson why-split step 7 of 9");
    CHECK(window_of(probe, "mesh").is_object());
    CHECK(lesson_after_key(app, "Right") == "lesson why-split step 8 of 9");
    CHECK(lesson_after_key(app, "Left") == "lesson why-split step 7 of 9");
    // A click in another panel takes the focus there; the arrows still step the lesson.
    const Json mesh = window_of(app.probe(), "mesh");
    REQUIRE(mesh.is_object());
    app.click_at(static_cast<int>(mesh["x"].get<double>() + mesh["w"].get<double>() / 2),
                 static_cast<int>(mesh["y"].get<double>() + mesh["h"].get<double>() - 20));
    CHECK(lesson_after_key(app, "Right") == "lesson why-split step 8 of 9");
    // Not while a menu is open: Escape closes it, and the arrows step again.
    REQUIRE(app.click("menu/View"));
    REQUIRE(app.wait_for_item("menu/View/mesh"));
    CHECK(lesson_after_key(app, "Left") == "lesson why-split step 8 of 9");
    app.key("Escape");
    CHECK(lesson_after_key(app, "Left") == "lesson why-split step 7 of 9");
}

TEST_CASE("the Collective animator's Step, clicked while it plays, pauses one step on and stays there") {
    LiveApp app("mouse-collective-step", "--show collective");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("collective/play"));
    REQUIRE(panel_state(app.probe(), "collective").find("step 0 of") == 0);
    REQUIRE(app.click("collective/play"));
    CHECK(panel_state(app.wait_frames(10), "collective").find(", playing") != std::string::npos);
    REQUIRE(app.click("collective/step"));
    // The packets in flight land (a step takes 1 / 1.5 s), then nothing moves: the same step 2 s later.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    const std::string paused = panel_state(app.wait_frames(2), "collective");
    CAPTURE(paused);
    CHECK(paused.find(", paused") != std::string::npos);
    std::this_thread::sleep_for(std::chrono::seconds(2));
    CHECK(panel_state(app.wait_frames(4), "collective") == paused);
    // It stopped before the end (14 steps on 8 GPUs at 1.5 steps a second take over 9 s).
    CHECK(paused.find("step 14 of 14") == std::string::npos);
}

TEST_CASE("the micro-batch's - and +, clicked by mouse, step through the sizes that split the global batch") {
    // The default scenario: 256 sequences over 16 data-parallel ranks, so 1, 2, 4, 8 or 16.
    LiveApp app("mouse-micro-batch", "--show memory");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/micro_batch/larger"));
    const auto micro_batch = [&] { return app.wait_frames(2)["scenario"]["training"]["micro_batch"].get<int>(); };
    REQUIRE(micro_batch() == 1);
    for (int expected : {2, 4, 8, 16}) {
        REQUIRE(app.click("memory/micro_batch/larger"));
        CHECK(micro_batch() == expected);
        CHECK(app.probe()["error"] == "");
    }
    // Nothing larger splits it: the button is greyed and a click changes nothing.
    REQUIRE(app.click("memory/micro_batch/larger"));
    CHECK(micro_batch() == 16);
    REQUIRE(app.click("memory/micro_batch/smaller"));
    CHECK(micro_batch() == 8);
}

TEST_CASE("the Pipeline timeline's own m typed by keyboard makes it an example; a scenario undo leaves it be") {
    LiveApp app("mouse-pipeline-example", "--show pipeline");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("pipeline/from_scenario"));
    REQUIRE(app.click("pipeline/from_scenario"));
    // The default scenario: 2 stages of 1F1B, 16 micro-batches.
    CHECK(panel_state(app.wait_frames(2), "pipeline") == "scenario: 1f1b, p 2, m 16");
    // The field's text is at its left; its - and + buttons take the right end.
    const Json m = app.probe()["items"]["pipeline/m"];
    REQUIRE(m.is_array());
    REQUIRE(app.click_at(static_cast<int>(m[0].get<double>() + 10), static_cast<int>((m[1].get<double>() + m[3].get<double>()) / 2)));
    app.key("ctrl+a");
    app.type("17");
    app.key("Return");
    CHECK(panel_state(app.wait_frames(2), "pipeline") == "example: 1f1b, p 2, m 17");
    // A scenario edit and its undo: the example keeps the person's own m.
    REQUIRE(app.choose("View", "memory"));
    REQUIRE(app.click("memory/micro_batch/larger"));
    app.key("ctrl+z");
    CHECK(panel_state(app.wait_frames(2), "pipeline") == "example: 1f1b, p 2, m 17");
}

TEST_CASE("Help > Glossary by mouse, then typing at once: the text goes into its search") {
    LiveApp app("mouse-glossary-type", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("Help", "glossary"));
    REQUIRE(app.wait_for_item("glossary/search"));
    app.type("zero");
    CHECK(panel_state(app.wait_frames(2), "glossary") == "search \"zero\"");
}

TEST_CASE("the Collective animator in its default tile: the wheel scrolls down to its figures") {
    LiveApp app("mouse-collective-scroll", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("collective/readout"));
    const Json start = app.probe();
    const Json collective = window_of(start, "collective");
    REQUIRE(collective.is_object());
    const double bottom = collective["y"].get<double>() + collective["h"].get<double>();
    // Narrow, the canvas fills the tile and the figures start below it.
    REQUIRE(start["items"]["collective/readout"][1].get<double>() > bottom - 40);
    const auto [cx, cy] = centre_of(collective);
    app.move_to(cx, cy);
    shell_output("xdotool click --repeat 30 --delay 30 5");
    const Json probe = app.wait_frames(6);
    const Json readout = probe["items"]["collective/readout"];
    CAPTURE(readout.dump());
    CHECK(readout[1].get<double>() < bottom - 40);
    CHECK(readout[3].get<double>() > collective["y"].get<double>());
}

TEST_CASE("TP turned off by mouse: the Device mesh leaves the tp colouring it had, which has no groups left") {
    LiveApp app("mouse-mesh-dim", "--config '" SHARDSCOPE_SOURCE_DIR "/examples/llama3-405b-16k-h100.json' --show strategy,mesh");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("strategy/toggle/tp"));
    CHECK(panel_state(app.probe(), "mesh") == "colours tp (size 8)");
    REQUIRE(app.click("strategy/toggle/tp"));
    const Json off = app.wait_frames(4);
    REQUIRE(off["scenario"]["parallel"]["tp"] == 1);
    // The first dim (innermost first) that still splits something: dp_shard of the layout's 128.
    CHECK(panel_state(off, "mesh") == "colours dp_shard (size 128)");
    // A size-1 dim picked by hand stays picked until the scenario changes.
    REQUIRE(app.click("mesh/dim/cp"));
    CHECK(panel_state(app.wait_frames(3), "mesh") == "colours cp (size 1)");
}

TEST_CASE("Escape closes a menu opened by mouse, and a combo's list, as in any desktop program") {
    LiveApp app("mouse-escape", "--show pipeline");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.click("menu/View"));
    REQUIRE(app.wait_for_item("menu/View/mesh"));
    app.key("Escape");
    CHECK_FALSE(app.wait_frames(3)["items"].contains("menu/View/mesh"));
    // The menu bar is not left half-active: a click on another menu opens that one.
    REQUIRE(app.click("menu/Help"));
    CHECK(app.wait_for_item("menu/Help/lesson"));
    app.key("Escape");

    REQUIRE(app.click("pipeline/schedule"));
    REQUIRE(app.wait_for_item("pipeline##schedule/gpipe"));
    app.key("Escape");
    const Json closed = app.wait_frames(3);
    CHECK_FALSE(closed["items"].contains("pipeline##schedule/gpipe"));
    CHECK(closed["items"].contains("pipeline/schedule"));  // the panel itself stays
}

TEST_CASE("Left / Right step a lesson through the steps that open the Collective animator, and the animator once clicked") {
    LiveApp app("mouse-lesson-collective-keys", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("View", "lesson"));
    REQUIRE(app.wait_for_item("lesson/list/data-parallel"));
    REQUIRE(app.click("lesson/list/data-parallel"));
    // Steps 3 to 5 open the animator, which takes the focus as it appears: the arrows stay the lesson's.
    for (int step = 2; step <= 5; ++step) {
        app.key("Right");
        CHECK(panel_state(app.wait_frames(4), "lesson") == "lesson data-parallel step " + std::to_string(step) + " of 9");
    }
    // The animator's step, from its state "step K of N, paused".
    const auto animator_step = [](const Json& p) {
        const std::string st = panel_state(p, "collective");
        return st.rfind("step ", 0) == 0 ? std::stoi(st.substr(5)) : -1;
    };
    const int before = animator_step(app.probe());
    REQUIRE(before >= 0);
    // A click in the animator (on its read-out, no control) makes the arrows its own.
    REQUIRE(app.click("collective/readout"));
    app.key("Left");
    Json probe = app.wait_frames(4);
    CHECK(panel_state(probe, "lesson") == "lesson data-parallel step 5 of 9");
    CHECK(animator_step(probe) == before - 1);
    // A click on the lesson gives them back.
    const Json lesson = window_of(probe, "lesson");
    REQUIRE(lesson.is_object());
    const auto [lx, ly] = centre_of(lesson);
    app.click_at(lx, ly);
    CHECK(lesson_after_key(app, "Right") == "lesson data-parallel step 6 of 9");
    // One click in the animator, now that the lesson has the focus, makes the arrows the animator's
    // again (ImGui moves the focus only at the end of the click's frame).
    const int at_six = animator_step(app.probe());
    REQUIRE(at_six >= 0);
    REQUIRE(app.click("collective/readout"));
    CHECK(lesson_after_key(app, "Right") == "lesson data-parallel step 6 of 9");
    // The step lands once its packets have moved (a step takes 1 / 1.5 s).
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    CHECK(animator_step(app.wait_frames(4)) == at_six + 1);
    // End and Home jump to the last step and back to the start, as >| and |< do.
    app.key("End");
    const std::string at_end = panel_state(app.wait_frames(4), "collective");
    CAPTURE(at_end);
    const std::size_t of = at_end.find(" of ");
    REQUIRE(of != std::string::npos);
    CHECK(animator_step(app.probe()) == std::stoi(at_end.substr(of + 4)));
    app.key("Home");
    CHECK(animator_step(app.wait_frames(4)) == 0);
    CHECK(panel_state(app.probe(), "lesson") == "lesson data-parallel step 6 of 9");
}

TEST_CASE("ZeRO 0 chosen by mouse says on the status line which data-parallel dims it moved, until the next edit") {
    LiveApp app("mouse-zero-status",
                "--config '" SHARDSCOPE_SOURCE_DIR "/examples/llama3-405b-16k-h100.json' --show memory");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/zero"));
    REQUIRE(app.click("memory/zero"));
    REQUIRE(app.wait_for_item("memory/zero/0"));
    REQUIRE(app.click("memory/zero/0"));
    const Json after = app.wait_frames(4);
    // ZeRO 0 keeps whole replicas: the 128 shards become 128 replicas, and the status line says so.
    CHECK(after["scenario"]["parallel"]["zero"] == 0);
    CHECK(after["scenario"]["parallel"]["dp_replicate"] == 128);
    // ZeRO 0 also turns the verdict, which the status line says (the verdict may be out of sight).
    CHECK(after["status"].get<std::string>().rfind(
              "Changed: zero 3 -> 0, dp_shard 128 -> 1, dp_replicate 1 -> 128 (Ctrl+Z undoes it). Now does not fit: ", 0) == 0);
    // Edit > Undo, by mouse, takes it back whole.
    REQUIRE(app.choose("Edit", "undo"));
    const Json undone = app.wait_frames(4);
    CHECK(undone["scenario"]["parallel"]["zero"] == 3);
    CHECK(undone["scenario"]["parallel"]["dp_shard"] == 128);
    CHECK(undone["status"] == "Undone: dp_shard 1 -> 128, dp_replicate 128 -> 1, zero 0 -> 3 (Ctrl+Shift+Z or Ctrl+Y redoes it)");
    // The next edit by hand says what it changed in its turn.
    REQUIRE(app.click("memory/micro_batch/larger"));
    const Json edited = app.wait_frames(4);
    CHECK(edited["scenario"]["training"]["micro_batch"] != undone["scenario"]["training"]["micro_batch"]);
    CHECK(edited["status"].get<std::string>().rfind("Changed: mb 1 -> ", 0) == 0);
}

TEST_CASE("hovering a stage's 'other' in Memory and cost shows what it holds; moving away hides it") {
    LiveApp app("mouse-other-tooltip", "--show memory");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/table/other/1"));
    // The status bar's far corner: nothing there has a tooltip (the pointer starts wherever the last
    // test left it, maybe over a control that has one).
    const Json start = app.probe();
    const auto corner = [&] {
        app.move_to(static_cast<int>(start["viewport"][0].get<double>()) - 4,
                    static_cast<int>(start["viewport"][1].get<double>()) - 4);
    };
    corner();
    CHECK_FALSE(app.wait_frames(4)["items"].contains("tooltip"));
    REQUIRE(app.hover("memory/table/other/1"));
    const Json shown = app.wait_frames(20);  // ImGui shows a tooltip once the mouse has rested
    REQUIRE(shown["items"].contains("tooltip"));
    // Beside the hovered cell, not somewhere else on the screen.
    const auto& cell = shown["items"]["memory/table/other/1"];
    const auto& tip = shown["items"]["tooltip"];
    CHECK(std::abs(tip[1].get<double>() - cell[3].get<double>()) < 200);
    corner();
    CHECK_FALSE(app.wait_frames(4)["items"].contains("tooltip"));
}

TEST_CASE("a lesson step shows a panel scrolled down beforehand from its top; the learner's own scroll during the lesson stays") {
    LiveApp app("mouse-lesson-scroll", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/chart"));
    const auto scroll_down = [&](const Json& window) {
        const auto [x, y] = centre_of(window);
        app.move_to(x, y);
        shell_output("xdotool click --repeat 30 --delay 30 5");
        return app.wait_frames(6);
    };
    const Json memory = window_of(app.probe(), "memory");
    REQUIRE(memory.is_object());
    // Scrolled down: the bar chart has gone up out of the tile.
    REQUIRE(scroll_down(memory)["items"]["memory/chart"][1].get<double>() < memory["y"].get<double>());

    REQUIRE(app.choose("Help", "lesson"));
    REQUIRE(app.wait_for_item("lesson/list/fsdp-zero"));
    REQUIRE(app.click("lesson/list/fsdp-zero"));
    const Json step1 = app.wait_frames(4);
    REQUIRE(panel_state(step1, "lesson").rfind("lesson fsdp-zero step 1 of", 0) == 0);
    const Json in_lesson = window_of(step1, "memory");
    REQUIRE(in_lesson.is_object());
    CAPTURE(step1["items"]["memory/chart"].dump());
    // From its top: the chart sits inside the tile, below its title bar.
    CHECK(step1["items"]["memory/chart"][1].get<double>() > in_lesson["y"].get<double>());

    // The learner scrolls down to the table; the next step shows the same panels and leaves it there.
    REQUIRE(scroll_down(in_lesson)["items"]["memory/chart"][1].get<double>() < in_lesson["y"].get<double>());
    REQUIRE(app.click("lesson/next"));
    const Json step2 = app.wait_frames(4);
    REQUIRE(panel_state(step2, "lesson").rfind("lesson fsdp-zero step 2 of", 0) == 0);
    CHECK(step2["items"]["memory/chart"][1].get<double>() < in_lesson["y"].get<double>());
}

TEST_CASE("a schedule picked in the Pipeline timeline by mouse becomes the scenario's with its Use button; Ctrl+Z takes it back") {
    LiveApp app("mouse-pipeline-use",
                "--config '" SHARDSCOPE_SOURCE_DIR "/examples/llama3-8b-64xh100.json' --show pipeline,memory");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("pipeline/from_scenario"));
    REQUIRE(app.click("pipeline/from_scenario"));
    const Json start = app.wait_frames(3);
    CAPTURE(panel_state(start, "pipeline"));
    REQUIRE(panel_state(start, "pipeline").rfind("scenario: 1f1b, p 2", 0) == 0);
    // Following the scenario, there is nothing to take over.
    CHECK_FALSE(start["items"].contains("pipeline/use_schedule"));
    REQUIRE(app.click("pipeline/schedule"));
    REQUIRE(app.wait_for_item("pipeline##schedule/zb-h1"));
    REQUIRE(app.click("pipeline##schedule/zb-h1"));
    const Json example = app.wait_frames(4);
    CHECK(panel_state(example, "pipeline").rfind("example: zb-h1", 0) == 0);
    CHECK(example["scenario"]["training"]["schedule"] == "1f1b");  // drawn, not yet trained with
    REQUIRE(app.wait_for_item("pipeline/use_schedule"));
    REQUIRE(app.click("pipeline/use_schedule"));
    const Json used = app.wait_frames(4);
    CHECK(used["scenario"]["training"]["schedule"] == "zb-h1");
    CHECK(used["scenario"]["parallel"]["pp"] == 2);  // the scenario's own stages stay
    CHECK(used["status"] == "The scenario now trains with ZB-H1 (Ctrl+Z undoes it)");
    CHECK(panel_state(used, "pipeline").rfind("scenario: zb-h1", 0) == 0);
    CHECK_FALSE(used["items"].contains("pipeline/use_schedule"));
    app.key("ctrl+z");
    CHECK(app.wait_frames(4)["scenario"]["training"]["schedule"] == "1f1b");
}

TEST_CASE("a factor the mesh refuses, typed by mouse and keyboard in the default layout, shows its rule in view") {
    LiveApp app("mouse-mesh-error", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    // The default tile is narrow: the controls fold under a header, unfolded by a click.
    REQUIRE(app.wait_for_item("mesh/controls"));
    REQUIRE(app.click("mesh/controls"));
    REQUIRE(app.wait_for_item("mesh/field/tp"));
    const Json probe = app.type_into("mesh/field/tp", "3");
    REQUIRE(probe["items"].contains("mesh/error"));
    const Json mesh = window_of(probe, "mesh");
    REQUIRE(mesh.is_object());
    const Json error = probe["items"]["mesh/error"];
    CAPTURE(error.dump());
    CAPTURE(mesh.dump());
    // Inside the tile as it stands, without scrolling.
    CHECK(error[1].get<double>() >= mesh["y"].get<double>());
    CHECK(error[3].get<double>() <= mesh["y"].get<double>() + mesh["h"].get<double>());
    CHECK(probe["scenario"]["parallel"]["tp"] != 3);  // refused: the scenario keeps its layout
}

TEST_CASE("the planner's table scrolled sideways by the wheel in a narrow tile keeps each row's rank and Apply in view") {
    LiveApp app("mouse-planner-scroll-x", "--show planner,memory,strategy --size 1200x800");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("planner/apply/1"));
    const Json start = app.probe();
    const Json planner = window_of(start, "planner");
    REQUIRE(planner.is_object());
    const double apply_x = start["items"]["planner/apply/1"][0].get<double>();
    const auto [x, y] = std::pair<double, double>{apply_x + 40, start["items"]["planner/apply/1"][1].get<double>() + 4};
    app.move_to(static_cast<int>(x), static_cast<int>(y));
    shell_output("xdotool click --repeat 20 --delay 30 7");  // the wheel's sideways button: scroll right
    const Json scrolled = app.wait_frames(6);
    // It did scroll: the best row's mesh column went left.
    REQUIRE(start["items"].contains("planner/row/1"));
    const auto first_in_mesh_column = [](const Json& probe) {
        for (const auto& [key, rect] : probe["items"].items())
            if (key.rfind("planner/alike/", 0) == 0) return std::make_pair(key, rect[0].get<double>());
        return std::make_pair(std::string(), 0.0);
    };
    const auto [alike, alike_x] = first_in_mesh_column(start);
    REQUIRE_FALSE(alike.empty());
    CHECK(scrolled["items"][alike][0].get<double>() < alike_x - 100);
    REQUIRE(scrolled["items"].contains("planner/apply/1"));
    CAPTURE(scrolled["items"]["planner/apply/1"].dump());
    CHECK(std::abs(scrolled["items"]["planner/apply/1"][0].get<double>() - apply_x) < 2);
}

namespace {

// The screenshots F12 and File > Export screenshot wrote into the app's folder, oldest first.
std::vector<std::filesystem::path> screenshots_in(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> shots;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("shardscope-", 0) == 0 && entry.path().extension() == ".png") shots.push_back(entry.path());
    }
    std::sort(shots.begin(), shots.end());
    return shots;
}

bool wait_for_screenshots(const std::filesystem::path& dir, std::size_t count) {
    for (int i = 0; i < 200; ++i) {
        if (screenshots_in(dir).size() >= count) {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));  // written whole
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

// Mean difference per channel (0-255) of two PNGs of one size inside a rectangle [x0, y0, x1, y1].
double mean_difference(const std::filesystem::path& a, const std::filesystem::path& b, const Json& rect) {
    int wa = 0, ha = 0, wb = 0, hb = 0, n = 0;
    unsigned char* pa = stbi_load(a.string().c_str(), &wa, &ha, &n, 3);
    unsigned char* pb = stbi_load(b.string().c_str(), &wb, &hb, &n, 3);
    REQUIRE(pa != nullptr);
    REQUIRE(pb != nullptr);
    REQUIRE(wa == wb);
    REQUIRE(ha == hb);
    double sum = 0;
    long count = 0;
    for (int y = std::max(0, rect[1].get<int>()); y < std::min(ha, rect[3].get<int>()); ++y)
        for (int x = std::max(0, rect[0].get<int>()); x < std::min(wa, rect[2].get<int>()); ++x)
            for (int c = 0; c < 3; ++c, ++count) {
                const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(wa) + static_cast<std::size_t>(x)) * 3 + static_cast<std::size_t>(c);
                sum += std::abs(int(pa[i]) - int(pb[i]));
            }
    stbi_image_free(pa);
    stbi_image_free(pb);
    return count > 0 ? sum / static_cast<double>(count) : 0.0;
}

}  // namespace

TEST_CASE("File > Export screenshot by mouse saves the window without the menu that asked for it") {
    LiveApp app("mouse-export-screenshot", "--show memory");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("menu/File"));
    REQUIRE(app.click("menu/File"));
    REQUIRE(app.wait_for_item("menu/File/screenshot"));
    const Json item = app.probe()["items"]["menu/File/screenshot"];
    REQUIRE(app.click("menu/File/screenshot"));
    REQUIRE(wait_for_screenshots(app.dir(), 1));
    CHECK(app.wait_frames(3)["status"].get<std::string>().rfind("Screenshot saved to ", 0) == 0);
    // The same window by F12, no menu open: where the menu's item was, the two pictures agree.
    app.key("F12");
    REQUIRE(wait_for_screenshots(app.dir(), 2));
    const std::vector<std::filesystem::path> shots = screenshots_in(app.dir());
    CAPTURE(item.dump());
    CHECK(mean_difference(shots[0], shots[1], item) < 2.0);
}

TEST_CASE("Help > Keyboard shortcuts by mouse opens its window, and Escape closes it again") {
    LiveApp app("mouse-shortcuts-escape", "--show memory");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("Help", "shortcuts"));
    REQUIRE(app.wait_for_item("shortcuts/table"));
    app.key("Escape");
    CHECK_FALSE(app.wait_frames(4)["items"].contains("shortcuts/table"));
}

TEST_CASE("Compare ticked by mouse in a short Pipeline tile: both schedules' rows stay a label tall") {
    LiveApp app("mouse-pipeline-compare-short", "--show pipeline --size 900x480");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("pipeline/compare"));
    REQUIRE(app.click("pipeline/compare"));
    const Json compared = app.wait_frames(4);
    REQUIRE(panel_state(compared, "pipeline").rfind("example: 1f1b, p 4", 0) == 0);
    const Json timeline = compared["items"]["pipeline/timeline"];
    CAPTURE(timeline.dump());
    // 2 lanes of 4 stages: 8 rows at least a 13 px label tall each, plus the lanes' titles and the axis.
    CHECK(timeline[3].get<double>() - timeline[1].get<double>() > 8 * 13 + 2 * 15 + 15);
}

TEST_CASE("a lesson opened by mouse over a scenario file says how that scenario comes back") {
    LiveApp app("mouse-lesson-borrows",
                "--config '" SHARDSCOPE_SOURCE_DIR "/examples/llama3-8b-64xh100.json' --show memory");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    const Json mine = app.probe()["scenario"];
    REQUIRE(app.choose("Help", "lesson"));
    REQUIRE(app.wait_for_item("lesson/list/pipeline-parallel"));
    REQUIRE(app.click("lesson/list/pipeline-parallel"));
    const Json in_lesson = app.wait_frames(4);
    REQUIRE(in_lesson["scenario"] != mine);
    CHECK(in_lesson["status"].get<std::string>().find(
              "set its own scenario; yours comes back with \"Back to your scenario\" in the lesson list, or Ctrl+Z") !=
          std::string::npos);
    app.key("ctrl+z");
    CHECK(app.wait_frames(4)["scenario"] == mine);
}

TEST_CASE("a Scenario field typed by keyboard: what is no whole number is refused, not cut down to its digits") {
    LiveApp app("mouse-typed-number", "--show scenario");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("scenario/field/seq_len"));
    // ImGui's integer field kept the digits of "8k" (8) and of "1e9" (19) and applied them.
    Json probe = app.type_into("scenario/field/seq_len", "8k");
    CHECK(probe["scenario"]["model"]["seq_len"] == 8192);
    CHECK(probe["items"].contains("scenario/error"));
    // 1e9 is a whole number, and core refuses it as too long a sequence: still 8192.
    probe = app.type_into("scenario/field/seq_len", "1e9");
    CHECK(probe["scenario"]["model"]["seq_len"] == 8192);
    CHECK(probe["items"].contains("scenario/error"));
    // Digit groups as people write them.
    probe = app.type_into("scenario/field/seq_len", "16,384");
    CHECK(probe["scenario"]["model"]["seq_len"] == 16384);
    CHECK_FALSE(probe["items"].contains("scenario/error"));
    // The GPU's figures likewise: "8k" was read as 8 GB, "1,5" as 15; "40.5" is 40.5.
    REQUIRE(app.click("scenario/cluster"));
    REQUIRE(app.wait_for_item("scenario/field/gpu_memory_gb"));
    probe = app.type_into("scenario/field/gpu_memory_gb", "8k");
    CHECK(probe["scenario"]["cluster"]["gpu"]["memory_gb"] == 80);
    CHECK(probe["items"].contains("scenario/error"));
    // Typed back to what the scenario holds: nothing refused is left showing (it stayed before).
    probe = app.type_into("scenario/field/gpu_memory_gb", "80");
    CAPTURE(probe["status"]);
    CAPTURE(probe.value("typing", std::string("(no field typed in)")));
    CHECK_FALSE(probe["items"].contains("scenario/error"));
    probe = app.type_into("scenario/field/gpu_memory_gb", "40.5");
    CHECK(probe["scenario"]["cluster"]["gpu"]["memory_gb"] == 40.5);
}

TEST_CASE("in a 1024 x 700 window, panels opened from View one after another leave every tile wide enough to use") {
    LiveApp app("mouse-small-window", "", 1024, 700);
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    for (const char* id : {"scenario", "planner", "glossary"}) {
        CAPTURE(id);
        REQUIRE(app.choose("View", id));
        app.wait_frames(4);
    }
    const Json probe = app.wait_frames(4);
    check_tiled(probe);
    REQUIRE(probe["windows"].size() >= 7);
    // Eight panels: the one opened last a column as wide as the others' (a quarter: 256 px), the
    // seven others in a 3-column grid over the rest; before, it took 45% and left the others 187 px.
    for (const Json& w : probe["windows"]) {
        CAPTURE(w["id"]);
        CHECK(w["w"].get<double>() >= 250);
    }
}

TEST_CASE("Help > Glossary by mouse: a See also link followed, then Back to the term it was followed from") {
    LiveApp app("mouse-glossary-back", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("Help", "glossary"));
    REQUIRE(app.wait_for_item("glossary/term/All-reduce"));
    REQUIRE(app.click("glossary/term/All-reduce"));
    REQUIRE(app.wait_for_item("glossary/see/Reduce-scatter"));
    CHECK_FALSE(app.probe()["items"].contains("glossary/back"));
    REQUIRE(app.click("glossary/see/Reduce-scatter"));
    REQUIRE(app.wait_for_item("glossary/entry/Reduce-scatter"));
    REQUIRE(app.wait_for_item("glossary/back"));
    REQUIRE(app.click("glossary/back"));
    REQUIRE(app.wait_for_item("glossary/entry/All-reduce"));
    CHECK_FALSE(app.wait_frames(2)["items"].contains("glossary/back"));
}

TEST_CASE("number boxes by keyboard read the whole text when left: a mesh factor is one step, the pipeline's p and the micro-batch refuse what they cannot take") {
    LiveApp app("mouse-typed-boxes", "--show mesh,pipeline,memory");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    // A third of the window is narrow for the mesh: its controls fold under a header.
    REQUIRE(app.wait_for_item("mesh/controls"));
    REQUIRE(app.click("mesh/controls"));
    REQUIRE(app.wait_for_item("mesh/field/dp_shard"));
    // dp_shard 16 does not divide the 64 GPUs with tp 2, pp 2, dp_replicate 2: refused whole. Before,
    // the keystroke "1" was applied on its own (dp_shard 1) and stayed when "16" was refused.
    Json probe = app.type_into("mesh/field/dp_shard", "16");
    CHECK(probe["scenario"]["parallel"]["dp_shard"] == 8);
    CHECK(probe["items"].contains("mesh/error"));
    // 4 is one step: a single Ctrl+Z takes it back to 8.
    probe = app.type_into("mesh/field/dp_shard", "4");
    REQUIRE(probe["scenario"]["parallel"]["dp_shard"] == 4);
    app.key("ctrl+z");
    CHECK(app.wait_frames(3)["scenario"]["parallel"]["dp_shard"] == 8);
    // The Pipeline timeline's p: 16384 is past what it draws (it was cut to 512 unseen), 1e3 is 1000.
    REQUIRE(app.wait_for_item("pipeline/p"));
    probe = app.type_into("pipeline/p", "16384");
    CHECK(panel_state(probe, "pipeline").find(", p 4,") != std::string::npos);
    CHECK(probe["items"].contains("pipeline/refusal"));
    probe = app.type_into("pipeline/p", "8");
    CHECK(panel_state(probe, "pipeline").find(", p 8,") != std::string::npos);
    CHECK_FALSE(probe["items"].contains("pipeline/refusal"));
    // Memory and cost's micro-batch: 2.5 is refused, not taken as 2.
    REQUIRE(app.wait_for_item("memory/micro_batch"));
    probe = app.type_into("memory/micro_batch", "2.5");
    CHECK(probe["scenario"]["training"]["micro_batch"] == 1);
}

TEST_CASE("Measure by keyboard: a size typed that is no size stops Run sweep and says why, rather than sweeping the last one") {
    LiveApp app("mouse-measure-size", "--show measure");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("measure/min"));
    CHECK_FALSE(app.probe()["items"].contains("measure/invalid"));
    // (The trial typed -3; xdotool's type reads a leading '-' as its own option, so "x3" here.)
    const Json probe = app.type_into("measure/min", "x3");
    CHECK(probe["items"].contains("measure/invalid"));
    CHECK_FALSE(app.type_into("measure/min", "64KiB")["items"].contains("measure/invalid"));
}

TEST_CASE("a lesson answer typed with a decimal comma is refused with the hint, not marked wrong") {
    LiveApp app("mouse-decimal-comma", "--lesson why-split --step 1");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("lesson/answer-box"));
    // ImGui's decimal box made "16,0" a 160 and marked it wrong.
    type_answer(app, "16,0");
    REQUIRE(app.click("lesson/check"));
    Json probe = app.wait_frames(4);
    CHECK(probe["items"].contains("lesson/answer-refusal"));
    CHECK_FALSE(probe["items"].contains("lesson/feedback/wrong"));
    type_answer(app, "16.0");
    REQUIRE(app.click("lesson/check"));
    probe = app.wait_frames(4);
    CHECK(probe["items"].contains("lesson/feedback/right"));
    CHECK_FALSE(probe["items"].contains("lesson/answer-refusal"));
}

TEST_CASE("Memory and cost scrolled to its controls: + that makes the scenario stop fitting leaves them under the mouse") {
    // A new user clicked + in a narrow tile; the verdict above grew a fix button, the controls moved
    // down 60 px and the next click landed on the ZeRO combo.
    LiveApp app("mouse-memory-anchor", "--show memory,scenario,pipeline --action memory.micro_batch=4");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/micro_batch/larger"));
    const Json memory = window_of(app.probe(), "memory");
    REQUIRE(memory.is_object());
    const auto [x, y] = centre_of(memory);
    app.move_to(x, y);
    // The wheel, a notch at a time, until the controls are in the tile's lower half.
    const double top = memory["y"].get<double>(), bottom = top + memory["h"].get<double>();
    Json scrolled = app.probe();
    for (int notch = 0; notch < 40 && scrolled["items"]["memory/micro_batch/larger"][3].get<double>() > bottom - 40; ++notch) {
        shell_output("xdotool click 5");
        scrolled = app.wait_frames(3);
    }
    REQUIRE(scrolled["scenario"]["training"]["micro_batch"] == 4);
    const Json plus = scrolled["items"]["memory/micro_batch/larger"];
    CAPTURE(plus.dump());
    REQUIRE(plus[1].get<double>() > memory["y"].get<double>());
    REQUIRE(plus[3].get<double>() < memory["y"].get<double>() + memory["h"].get<double>());
    REQUIRE(app.click("memory/micro_batch/larger"));
    const Json after = app.wait_frames(8);
    REQUIRE(after["scenario"]["training"]["micro_batch"] == 8);
    CAPTURE(after["status"].get<std::string>());
    CHECK(after["status"].get<std::string>().find("mb 4 -> 8") != std::string::npos);
    CAPTURE(after["items"]["memory/micro_batch/larger"].dump());
    CHECK(std::abs(after["items"]["memory/micro_batch/larger"][1].get<double>() - plus[1].get<double>()) <= 2.0);
}

TEST_CASE("Compare with ticked by mouse over ZB-H1 compares it with 1F1B, not with itself") {
    LiveApp app("mouse-pipeline-compare", "--show pipeline");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("pipeline/schedule"));
    REQUIRE(app.click("pipeline/schedule"));
    REQUIRE(app.wait_for_item("pipeline##schedule/zb-h1"));
    REQUIRE(app.click("pipeline##schedule/zb-h1"));
    REQUIRE(panel_state(app.wait_frames(2), "pipeline").rfind("example: zb-h1, ", 0) == 0);
    REQUIRE(app.click("pipeline/compare"));
    const std::string state = panel_state(app.wait_frames(2), "pipeline");
    CAPTURE(state);
    CHECK(state.find(", compared with 1f1b") != std::string::npos);
}

TEST_CASE("the Collective animator's message size, Ctrl+clicked and typed over, stays a size it can step") {
    // Typed 4096 was read as the slider's power of two: "4 of 0 steps done", every button greyed.
    LiveApp app("mouse-collective-size", "--show collective");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("collective/size"));
    // Ring all-reduce on 8 GPUs: 2 x 7 steps.
    REQUIRE(panel_state(app.probe(), "collective").find(" of 14") != std::string::npos);
    const Json size = app.probe()["items"]["collective/size"];
    app.move_to(static_cast<int>((size[0].get<double>() + size[2].get<double>()) / 2),
                static_cast<int>((size[1].get<double>() + size[3].get<double>()) / 2));
    shell_output("xdotool keydown ctrl");
    app.wait_frames(2);
    shell_output("xdotool click 1");
    app.wait_frames(2);
    shell_output("xdotool keyup ctrl");
    app.wait_frames(4);
    app.type("4096");
    app.key("Return");
    const std::string state = panel_state(app.wait_frames(4), "collective");
    CAPTURE(state);
    CHECK(state.find(" of 14") != std::string::npos);
}

TEST_CASE("a mesh factor typed as 0 is refused by name, not taken as 1") {
    // Wide, the panel shows its factors beside the mesh.
    LiveApp app("mouse-mesh-zero", "--show mesh");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("mesh/field/tp"));
    const Json before = app.probe()["scenario"];
    REQUIRE(before["parallel"]["tp"] == 2);
    const Json probe = app.type_into("mesh/field/tp", "0");
    CHECK(probe["scenario"] == before);
    CHECK(probe["items"].contains("mesh/error"));
}

TEST_CASE("the cluster's GPUs per node changed by mouse: its name no longer claims the preset's node") {
    LiveApp app("mouse-cluster-name", "--show mesh");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("mesh/field/nodes"));
    const std::string name = app.probe()["scenario"]["cluster"]["name"];
    // More nodes of the same kind keep the name.
    Json probe = app.type_into("mesh/field/nodes", "16");
    REQUIRE(probe["scenario"]["cluster"]["nodes"] == 16);
    CHECK(probe["scenario"]["cluster"]["name"] == name);
    // 4 GPUs a node (64 GPUs, as the layout needs) is another node: marked edited.
    probe = app.type_into("mesh/field/gpus_per_node", "4");
    REQUIRE(probe["scenario"]["cluster"]["gpus_per_node"] == 4);
    CHECK(probe["scenario"]["cluster"]["name"] == name + " (edited)");
}

TEST_CASE("Device mesh shown as data in a short tile: the wheel scrolls the tile down to the table's end") {
    // At 1100 x 750 the table and its Copy as CSV were cut off below a view that could not scroll.
    LiveApp app("mouse-mesh-data-scroll", "--action mesh.data=on", 1100, 750);
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("mesh/csv"));
    const Json mesh = window_of(app.probe(), "mesh");
    REQUIRE(mesh.is_object());
    const double bottom = mesh["y"].get<double>() + mesh["h"].get<double>();
    REQUIRE(app.probe()["items"]["mesh/csv"][3].get<double>() > bottom);
    // The wheel near the tile's bottom edge, below the drawing (over it, the wheel zooms the mesh).
    app.move_to(static_cast<int>(mesh["x"].get<double>() + mesh["w"].get<double>() / 2), static_cast<int>(bottom - 15));
    shell_output("xdotool click --repeat 20 --delay 30 5");
    const Json csv = app.wait_frames(6)["items"]["mesh/csv"];
    CAPTURE(csv.dump());
    CHECK(csv[3].get<double>() <= bottom);
    CHECK(csv[1].get<double>() >= mesh["y"].get<double>());
}

TEST_CASE("a glossary term's other names in a narrow tile take a line of their own, not a sliver beside its group") {
    // Squeezed beside "Parallelism" in a 220 px tile, ImGui broke "parallelism" mid-word.
    LiveApp app("mouse-glossary-also", "--show strategy,mesh,memory,collective,glossary "
                                       "--action 'glossary.term=3D parallelism'", 1100, 750);
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("glossary/also"));
    const Json items = app.wait_frames(2)["items"];
    CAPTURE(items["glossary/group"].dump());
    CAPTURE(items["glossary/also"].dump());
    CHECK(items["glossary/also"][1].get<double>() >= items["glossary/group"][3].get<double>());
}

TEST_CASE("a ranked layout's point on the planner's chart, clicked by mouse, selects its row") {
    LiveApp app("mouse-planner-point", "--show planner");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("planner/point/1"));
    REQUIRE(panel_state(app.probe(), "planner").find("\nselected #1") != std::string::npos);
    // The nearest point answers a click: the first ranked point other than #1 that one selects.
    std::string selected;
    for (int rank = 2; rank <= 24 && selected.empty(); ++rank) {
        const std::string key = "planner/point/" + std::to_string(rank);
        if (!app.probe()["items"].contains(key)) continue;
        REQUIRE(app.click(key));
        const std::string state = panel_state(app.wait_frames(2), "planner");
        if (state.find("\nselected #" + std::to_string(rank)) != std::string::npos) selected = key;
    }
    CHECK_FALSE(selected.empty());
}

TEST_CASE("Memory and cost by mouse: fused kernels, Megatron-LM's recompute modules, FP8 with its activation input, bf16 moments") {
    // The precision combo offered three of the five precisions (fp8 and megatron-fp16 only by --action),
    // and an fp8 scenario read as mixed-bf16 in it.
    LiveApp app("mouse-memory-stack", "--show memory");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/kernels"));
    const auto pick = [&](const char* combo, const char* item) {
        REQUIRE(app.click(combo));
        REQUIRE(app.wait_for_item(item));
        REQUIRE(app.click(item));
        return app.wait_frames(4);
    };
    Json probe = pick("memory/kernels", "memory/kernels/fused");
    CHECK(probe["scenario"]["training"]["fused_kernels"] == true);
    probe = pick("memory/recompute", "memory/recompute/selective");
    REQUIRE(probe["scenario"]["training"]["recompute"] == "selective");
    REQUIRE(app.wait_for_item("memory/recompute_module/layernorm"));
    REQUIRE(app.click("memory/recompute_module/layernorm"));
    probe = app.wait_frames(4);
    CHECK(probe["scenario"]["training"]["recompute_modules"] == Json({"core_attn", "layernorm"}));
    CAPTURE(probe["status"].get<std::string>());
    CHECK(probe["status"].get<std::string>().find("selective (core_attn, layernorm)") != std::string::npos);
    probe = pick("memory/precision", "memory/precision/fp8");
    REQUIRE(probe["scenario"]["training"]["precision"] == "fp8");
    REQUIRE(app.click("memory/fp8_activation_input"));
    probe = app.wait_frames(4);
    CHECK(probe["scenario"]["training"]["activation_func_fp8_input_store"] == true);
    REQUIRE(app.click("memory/bf16_adam_moments"));
    probe = app.wait_frames(4);
    CHECK(probe["scenario"]["training"]["bf16_adam_moments"] == true);
    CHECK(probe["status"].get<std::string>().find("Adam moments fp32 -> bf16") != std::string::npos);
}

TEST_CASE("Memory and cost by mouse: the optimizer moved to the host and back, the host's share shown") {
    LiveApp app("mouse-memory-offload", "--show memory");  // the default scenario: ZeRO-3 over 8
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/offload"));
    CHECK_FALSE(app.probe()["items"].contains("memory/host"));
    REQUIRE(app.click("memory/offload"));
    Json probe = app.wait_frames(4);
    CHECK(probe["scenario"]["training"]["offload"] == "optimizer");
    CAPTURE(probe["status"].get<std::string>());
    CHECK(probe["status"].get<std::string>().find("offload none -> optimizer") != std::string::npos);
    REQUIRE(app.wait_for_item("memory/host"));
    REQUIRE(app.click("memory/offload"));
    probe = app.wait_frames(4);
    CHECK_FALSE(probe["scenario"]["training"].contains("offload"));  // none is not written
    CHECK_FALSE(probe["items"].contains("memory/host"));
}

TEST_CASE("Memory and cost by mouse: BF16 grads, greyed until the precision keeps FP32 main gradients") {
    LiveApp app("mouse-memory-bf16-grads", "--show memory");  // the default precision: mixed-bf16
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/grad_reduce_in_bf16"));
    // Greyed under mixed-bf16 (2-byte gradients already): a click changes nothing.
    REQUIRE(app.click("memory/grad_reduce_in_bf16"));
    CHECK_FALSE(app.wait_frames(4)["scenario"]["training"].contains("grad_reduce_in_bf16"));
    REQUIRE(app.click("memory/precision"));
    REQUIRE(app.wait_for_item("memory/precision/megatron-bf16"));
    REQUIRE(app.click("memory/precision/megatron-bf16"));
    REQUIRE(app.wait_frames(4)["scenario"]["training"]["precision"] == "megatron-bf16");
    REQUIRE(app.click("memory/grad_reduce_in_bf16"));
    const Json on = app.wait_frames(4);
    CHECK(on["scenario"]["training"]["grad_reduce_in_bf16"] == true);
    CAPTURE(on["status"].get<std::string>());
    CHECK(on["status"].get<std::string>().rfind("Changed: BF16 grads off -> on", 0) == 0);
    // F12: the window as it stands, kept in the test's folder to be looked at.
    app.key("F12");
    app.wait_frames(4);
    MESSAGE("screenshot in " << app.dir().string());
}

TEST_CASE("a scenario's run: Memory and cost shows its Run section, and hovering Goodput explains it") {
    LiveApp app("mouse-run-goodput", "--show memory --config '" SHARDSCOPE_SOURCE_DIR "/docs/run-405b.json'");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/figure/Goodput"));
    const Json start = app.probe();
    app.move_to(static_cast<int>(start["viewport"][0].get<double>()) - 4,
                static_cast<int>(start["viewport"][1].get<double>()) - 4);
    CHECK_FALSE(app.wait_frames(4)["items"].contains("tooltip"));
    REQUIRE(app.hover("memory/figure/Goodput"));
    const Json shown = app.wait_frames(20);
    REQUIRE(shown["items"].contains("tooltip"));
    const auto& label = shown["items"]["memory/figure/Goodput"];
    const auto& tip = shown["items"]["tooltip"];
    CHECK(std::abs(tip[1].get<double>() - label[3].get<double>()) < 200);
    // The run's other figures are drawn beside it.
    CHECK(shown["items"].contains("memory/figure/Checkpoint"));
    CHECK(shown["items"].contains("memory/figure/Goodput as the job grows"));
}

TEST_CASE("who runs ZeRO-3 and the recompute method, chosen by mouse in Memory and cost") {
    LiveApp app("mouse-zero-impl", "--show memory");  // the default: ZeRO 3, selective recompute
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/zero_impl"));
    REQUIRE(app.click("memory/zero_impl"));
    REQUIRE(app.wait_for_item("memory/zero_impl/deepspeed-0.3"));
    REQUIRE(app.click("memory/zero_impl/deepspeed-0.3"));
    const Json ds = app.wait_frames(4);
    CHECK(ds["scenario"]["parallel"]["zero_impl"] == "deepspeed-0.3");
    CHECK(ds["status"].get<std::string>().rfind("Changed: ZeRO-3 by the stack's own -> deepspeed-0.3", 0) == 0);
    // The method shows only under a full recompute.
    CHECK_FALSE(ds["items"].contains("memory/recompute_method"));
    REQUIRE(app.click("memory/recompute"));
    REQUIRE(app.wait_for_item("memory/recompute/full"));
    REQUIRE(app.click("memory/recompute/full"));
    REQUIRE(app.wait_for_item("memory/recompute_method"));
    REQUIRE(app.click("memory/recompute_method"));
    REQUIRE(app.wait_for_item("memory/recompute_method/block"));
    REQUIRE(app.click("memory/recompute_method/block"));
    const Json block = app.wait_frames(4);
    CHECK(block["scenario"]["training"]["recompute"] == "full");
    CHECK(block["scenario"]["training"]["recompute_method"] == "block");
    CHECK(block["status"].get<std::string>().rfind("Changed: recompute full -> full (block 1)", 0) == 0);
    // F12: the window as it stands, kept in the test's folder to be looked at.
    app.key("F12");
    app.wait_frames(4);
    MESSAGE("screenshot in " << app.dir().string());
}

TEST_CASE("where the compute goes, opened by mouse in Memory and cost") {
    LiveApp app("mouse-compute-ops",
                "--config '" SHARDSCOPE_SOURCE_DIR "/examples/llama3-8b-64xh100.json' --show memory");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("memory/compute_ops"));
    const Json closed = app.wait_frames(2);
    CHECK_FALSE(closed["items"].contains("memory/compute_ops/shown"));  // collapsed until asked
    REQUIRE(app.click("memory/compute_ops"));
    REQUIRE(app.wait_for_item("memory/compute_ops/shown"));
    const Json open = app.wait_frames(4);
    // The header opens the table: the scenario is untouched, and the dense model has no MoE line.
    CHECK(open["items"].contains("memory/compute_ops/shown"));
    CHECK_FALSE(open["items"].contains("memory/moe_line"));
    CHECK(open["scenario"]["parallel"]["tp"] == 2);
    // Its Copy as CSV puts the table on the clipboard: core's breakdown_csv of this very report.
    REQUIRE(app.click("memory/compute_ops/csv"));
    const Json copied = app.wait_frames(3);
    const ScenarioLoad shown = parse_scenario(open["scenario"].dump());
    REQUIRE(shown.ok());
    CHECK(copied["copied"].get<std::string>() == breakdown_csv(build_report(*shown.scenario)));
    app.key("F12");
    app.wait_frames(4);
    MESSAGE("screenshot in " << app.dir().string());
}
