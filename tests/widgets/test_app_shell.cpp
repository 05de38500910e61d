#include "imgui_fixture.hpp"
#include "widgets/kit/wrap.hpp"
#include "widgets/shell/copy_out.hpp"
#include "widgets/shell/file_browser.hpp"
#include "widgets/shell/keys.hpp"
#include "widgets/ui_frame.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <unistd.h>

using namespace shardscope;
using shardscope::test::ImGuiFixture;

namespace {

// A whole app frame by frame, with one committed edit (tp 4, dp_shard 4) to undo.
struct EditedApp {
    ImGuiFixture f;
    ui::AppState state;
    ui::AppUi app;
    std::function<void()> draw = [this] { app.draw_frame(state, f.seconds()); };

    EditedApp() {
        f.frame(draw);
        Scenario edited = state.scenario();
        edited.parallel.tp = 4;
        edited.parallel.dp_shard = 4;
        REQUIRE(state.try_apply(edited).empty());
        f.frame(draw);  // no widget active: the edit is committed as one step
        REQUIRE(state.scenario().parallel.tp == 4);
    }
};

}  // namespace

TEST_CASE("a status message stays while the scenario does, and goes at the next edit after it") {
    EditedApp a;
    const Scenario before = a.state.scenario();
    Scenario applied = before;
    applied.parallel.tp = 8;
    applied.parallel.dp_shard = 2;
    REQUIRE(a.state.try_apply(applied).empty());
    a.state.ui.status = "Applied the planner's #1 layout (Ctrl+Z undoes it)";  // in the same frame, as the planner does
    a.f.frames(3, a.draw);
    CHECK(a.state.ui.status == "Applied the planner's #1 layout (Ctrl+Z undoes it)");

    Scenario by_hand = a.state.scenario();
    by_hand.training.global_batch *= 2;
    REQUIRE(a.state.try_apply(by_hand).empty());
    a.f.frame(a.draw);
    CHECK(a.state.ui.status.empty());

    // Undo twice: the second "Undone" is news of its own, not the first one's leftover.
    // Each says what it took back: the doubled batch, then the planner's layout.
    a.state.undo();
    a.f.frame(a.draw);
    CHECK(a.state.ui.status == "Undone: global_batch 512 -> 256 (Ctrl+Shift+Z or Ctrl+Y redoes it)");
    a.state.undo();
    a.f.frame(a.draw);
    CHECK(a.state.scenario() == before);
    CHECK(a.state.ui.status == "Undone: tp 8 -> 4, dp_shard 2 -> 4 (Ctrl+Shift+Z or Ctrl+Y redoes it)");
    a.state.redo();
    a.f.frame(a.draw);
    CHECK(a.state.ui.status == "Redone: tp 4 -> 8, dp_shard 4 -> 2");

    // A message that changes nothing (a copy, a screenshot) also stays until the scenario changes.
    a.f.frame([&] { ui::copy_csv(a.state, "a,b\n1,2\n", "mesh table"); a.draw(); });
    a.f.frames(2, a.draw);
    CHECK(a.state.ui.status == "Copied the mesh table as CSV (1 row) to the clipboard");
    Scenario again = a.state.scenario();
    again.training.micro_batch = 2;
    REQUIRE(a.state.try_apply(again).empty());
    a.f.frame(a.draw);
    CHECK(a.state.ui.status.empty());
}

TEST_CASE("every default panel is registered, and the open ones emit vertices") {
    ImGuiFixture f;
    ui::AppState state;
    ui::AppUi app;
    const auto draw = [&] { app.draw_frame(state, f.seconds()); };
    f.frames(3, draw);
    const char* expected[] = {"strategy", "mesh", "memory", "collective", "pipeline", "planner",
                              "cheatsheet", "glossary", "lesson", "measure"};
    for (const char* id : expected) {
        ui::Panel* p = app.registry().find(id);
        REQUIRE_MESSAGE(p != nullptr, id);
        const int vertices = ImGuiFixture::vertices_of(p->window_name());
        if (p->open) CHECK_MESSAGE(vertices > 0, id);
        else CHECK_MESSAGE(vertices == 0, id);
    }
}

TEST_CASE("clicking a panel in the View menu toggles it") {
    ImGuiFixture f;
    ui::AppState state;
    ui::AppUi app;
    const auto draw = [&] { app.draw_frame(state, f.seconds()); };
    ui::Panel* mesh = app.registry().find("mesh");
    REQUIRE(mesh->open);
    f.frames(2, draw);
    REQUIRE(ImGuiFixture::vertices_of(mesh->window_name()) > 0);

    REQUIRE(f.click_item("menu/View", draw));
    REQUIRE(f.click_item("menu/View/mesh", draw));
    CHECK_FALSE(mesh->open);
    f.frames(2, draw);
    CHECK(ImGuiFixture::vertices_of(mesh->window_name()) == 0);

    REQUIRE(f.click_item("menu/View", draw));
    REQUIRE(f.click_item("menu/View/mesh", draw));
    CHECK(mesh->open);
}

TEST_CASE("Ctrl+Z undoes an applied edit; Ctrl+Shift+Z and Ctrl+Y redo it") {
    EditedApp a;
    a.f.press_key(ui::keys::kZ, true, false, a.draw);
    CHECK(a.state.scenario().parallel.tp == default_scenario().parallel.tp);
    a.f.press_key(ui::keys::kZ, true, true, a.draw);
    CHECK(a.state.scenario().parallel.tp == 4);
    a.f.press_key(ui::keys::kZ, true, false, a.draw);
    CHECK(a.state.scenario().parallel.tp == default_scenario().parallel.tp);
    a.f.press_key(ui::keys::kY, true, false, a.draw);
    CHECK(a.state.scenario().parallel.tp == 4);
}

TEST_CASE("undoing an open brings back the file before it, so a save never writes one file's scenario into another") {
    ui::AppState state;
    Scenario a = default_scenario();
    a.parallel.tp = 4;
    a.parallel.dp_shard = 4;
    Scenario b = default_scenario();
    b.model.layers = 16;
    state.open_document(a, "/data/a.json");
    state.open_document(b, "/data/b.json");
    CHECK(state.ui.current_file == "/data/b.json");
    CHECK_FALSE(state.edited());
    // Ctrl+Z: a.json's scenario, titled a.json, nothing unsaved (it is what a.json holds).
    state.undo();
    CHECK(state.scenario() == a);
    CHECK(state.ui.current_file == "/data/a.json");
    CHECK_FALSE(state.edited());
    CHECK(state.ui.status == "Undone (Ctrl+Shift+Z or Ctrl+Y redoes it): back to /data/a.json");
    // Back before the first open: the untitled default scenario.
    state.undo();
    CHECK(state.ui.current_file.empty());
    CHECK_FALSE(state.edited());
    state.redo();
    state.redo();
    CHECK(state.scenario() == b);
    CHECK(state.ui.current_file == "/data/b.json");
    CHECK(state.ui.status == "Redone: back to /data/b.json");
    // An edit stays in its document: undone, the title does not move and the edit mark goes.
    Scenario deeper = b;
    deeper.model.layers = 24;
    REQUIRE(state.apply_step(deeper).empty());
    CHECK(state.edited());
    state.undo();
    CHECK(state.ui.current_file == "/data/b.json");
    CHECK(state.ui.status == "Undone: layers 24 -> 16 (Ctrl+Shift+Z or Ctrl+Y redoes it)");
    CHECK_FALSE(state.edited());
    // Saved as another file, the document's earlier states go with it; undoing the open still finds
    // a.json, edited or not as it was saved.
    state.redo();
    state.set_current_file("/data/c.json");
    state.mark_saved();
    state.undo();
    CHECK(state.ui.current_file == "/data/c.json");
    CHECK(state.edited());  // c.json holds 24 layers
    state.undo();
    CHECK(state.ui.current_file == "/data/a.json");
    CHECK_FALSE(state.edited());
}

TEST_CASE("an invalid edit is refused with the rule and leaves the scenario as it was") {
    ui::AppState state;
    Scenario bad = state.scenario();
    bad.parallel.dp_shard = 3;  // 2*2*3*2 = 24 does not divide 64 GPUs
    const std::string rule = state.try_apply(bad);
    CHECK(rule.find("parallel") == 0);
    CHECK(state.scenario() == default_scenario());
    CHECK(state.version() == 1);
}

TEST_CASE("two fields left one after the other by Tab are two undo steps, though a widget stays active between them") {
    ui::AppState state;
    Scenario first = state.scenario();
    first.cluster.intra_node.bandwidth_gbps = 900;
    CHECK(state.apply_step(first).empty());
    state.end_frame(true);  // Tab made the next field active: no frame without an active widget
    Scenario second = state.scenario();
    second.cluster.inter_node.latency_us = 10;
    CHECK(state.apply_step(second).empty());
    state.end_frame(true);
    state.undo();
    CHECK(state.scenario().cluster.inter_node.latency_us == default_scenario().cluster.inter_node.latency_us);
    CHECK(state.scenario().cluster.intra_node.bandwidth_gbps == 900);
    state.undo();
    CHECK(state.scenario() == default_scenario());
    // A refused step changes nothing and records nothing.
    Scenario bad = state.scenario();
    bad.cluster.intra_node.bandwidth_gbps = 0;
    CHECK(state.apply_step(bad).find("cluster.intra_node.bandwidth_gbps") == 0);
    CHECK(state.scenario() == default_scenario());
    CHECK_FALSE(state.can_undo());
}

TEST_CASE("F12 and Ctrl+O raise requests for the app to carry out; Escape closes the file dialog as Cancel does") {
    ImGuiFixture f;
    ui::AppState state;
    ui::AppUi app;
    const auto draw = [&] { app.draw_frame(state, f.seconds()); };
    f.frame(draw);
    f.press_key(ui::keys::kF12, false, false, draw);
    CHECK(state.requests.screenshot);
    f.press_key(ui::keys::kO, true, false, draw);
    CHECK(state.ui.file_dialog == ui::FileDialogMode::open);
    const auto any_popup_open = [] { return ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel); };
    CHECK(any_popup_open());
    f.press_key(ImGuiKey_Escape, false, false, draw);
    CHECK(state.ui.file_dialog == ui::FileDialogMode::none);
    CHECK_FALSE(any_popup_open());
    CHECK_FALSE(state.requests.open_path.has_value());
    f.press_key(ui::keys::kO, true, false, draw);  // and it opens again
    CHECK(state.ui.file_dialog == ui::FileDialogMode::open);
}

TEST_CASE("Ctrl+Q quits while a text field has the keyboard; Ctrl+Z there stays the field's") {
    EditedApp a;
    // Click into the file dialog's name field: it has the keyboard.
    a.f.press_key(ui::keys::kO, true, false, a.draw);
    REQUIRE(a.f.click_item("file/name", a.draw));
    REQUIRE(ImGui::GetIO().WantTextInput);
    a.f.press_key(ui::keys::kZ, true, false, a.draw);
    CHECK(a.state.scenario().parallel.tp == 4);  // not undone: the field had the key
    a.f.press_key(ui::keys::kQ, true, false, a.draw);
    CHECK(a.state.requests.quit);
}

TEST_CASE("the shared report and mesh follow the scenario") {
    ui::AppState state;
    const int64_t world = state.scenario().cluster.gpu_count();
    CHECK(state.report().world_size == world);
    CHECK(state.mesh().size(Dim::tp) == state.scenario().parallel.tp);
    Scenario edited = state.scenario();
    edited.parallel.tp = 4;
    edited.parallel.dp_shard = 4;
    REQUIRE(state.try_apply(edited).empty());
    CHECK(state.mesh().size(Dim::tp) == 4);
    CHECK(state.mesh().size(Dim::dp_shard) == 4);
}

TEST_CASE("a typed path: absolute stays absolute, ~ is home, relative joins the folder, quotes and spaces go") {
    using ui::resolve_typed_path;
    CHECK(resolve_typed_path("/work/examples", "/home/me/a.json", "/home/me") == "/home/me/a.json");
    CHECK(resolve_typed_path("/work/examples", "  '/home/me/my runs/a.json' ", "/home/me") == "/home/me/my runs/a.json");
    CHECK(resolve_typed_path("/work/examples", "~/a.json", "/home/me") == "/home/me/a.json");
    CHECK(resolve_typed_path("/work/examples", "b.json", "/home/me") == "/work/examples/b.json");
    CHECK(resolve_typed_path("/work/examples", "../docs/./c.json", "") == "/work/docs/c.json");
}

TEST_CASE("recent files are canonical, listed once however reached, and never standard input") {
    ui::AppState state;
    const std::string here = std::filesystem::weakly_canonical(std::filesystem::current_path()).string();
    state.remember_recent("a.json");
    state.remember_recent(here + "/a.json");
    state.remember_recent("./b.json");
    REQUIRE(state.ui.recent_files.size() == 2);
    CHECK(state.ui.recent_files[0] == here + "/b.json");
    CHECK(state.ui.recent_files[1] == here + "/a.json");

    // A link to a file is the file: reached through the link it moves to the top, not in twice.
    const auto dir = std::filesystem::weakly_canonical(std::filesystem::temp_directory_path()) /
                     ("shardscope-recent-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "real");
    std::ofstream(dir / "real" / "run.json") << "{}";
    std::filesystem::create_directory_symlink(dir / "real", dir / "link");
    state.remember_recent((dir / "real" / "run.json").string());
    state.remember_recent((dir / "link" / ".." / "link" / "run.json").string());
    REQUIRE(state.ui.recent_files.size() == 3);
    CHECK(state.ui.recent_files[0] == (dir / "real" / "run.json").string());
    state.remember_recent("-");
    CHECK(state.ui.recent_files.size() == 3);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a CSV table is a download where the host answers file dialogs (the browser page), a clipboard copy elsewhere") {
    CHECK(ui::csv_file_name("planner's ranking") == "shardscope-planners-ranking.csv");
    CHECK(ui::csv_file_name("memory table (every stage)") == "shardscope-memory-table-every-stage.csv");
    ImGuiFixture f;
    ui::AppState state;
    f.frame([&] { ui::copy_csv(state, "a,b\n1,2\n3,4\n", "mesh table"); });
    CHECK(state.ui.status == "Copied the mesh table as CSV (2 rows) to the clipboard");
    CHECK_FALSE(state.requests.download);
    state.ui.host_file_dialogs = true;
    f.frame([&] { ui::copy_csv(state, "a,b\n1,2\n", "mesh table"); });
    REQUIRE(state.requests.download);
    CHECK(state.requests.download->name == "shardscope-mesh-table.csv");
    CHECK(state.requests.download->text == "a,b\n1,2\n");
    CHECK(state.ui.status == "Downloaded the mesh table as CSV (1 row) as shardscope-mesh-table.csv, also on the clipboard");
    CHECK(state.ui.last_copied == "a,b\n1,2\n");
}

TEST_CASE("prose wraps at spaces only: a number or a file name is never split at its dot") {
    // One unit per character: 25 units a line.
    const auto chars = [](std::string_view run) { return static_cast<float>(run.size()); };
    // ImGui 1.86 would break "2.|81" here, after the dot, where the line runs out.
    CHECK(ui::wrap_at_spaces("22.4 ms of transfers, 2.81 ms of it exposed", 25, chars) ==
          "22.4 ms of transfers,\n2.81 ms of it exposed");
    CHECK(ui::wrap_at_spaces("Import the model from config.json now", 30, chars) ==
          "Import the model from\nconfig.json now");
    // Newlines stay; a word wider than the line gets a line of its own.
    CHECK(ui::wrap_at_spaces("one\ntwo three", 5, chars) == "one\ntwo\nthree");
    CHECK(ui::wrap_at_spaces("a verylongwordindeed b", 6, chars) == "a\nverylongwordindeed\nb");
    CHECK(ui::wrap_at_spaces("fits", 10, chars) == "fits");
    CHECK(ui::wrap_at_spaces("", 10, chars).empty());

    // Drawn: as tall as the lines it broke into.
    ImGuiFixture f;
    float height = 0, line = 0;
    f.frame([&] {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(400, 300));
        ImGui::Begin("wrap");
        line = ImGui::GetTextLineHeight();
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::CalcTextSize("22.4 ms of transfers, 2.8").x);
        ui::text_wrapped("22.4 ms of transfers, 2.81 ms of it exposed");
        ImGui::PopTextWrapPos();
        height = ImGui::GetItemRectSize().y;
        ImGui::End();
    });
    CHECK(height == doctest::Approx(2 * line).epsilon(0.2));
}

TEST_CASE("a scenario copied in a framework's terms says every note on the status line, a line each") {
    ImGuiFixture f;
    ui::AppState state;
    const FrameworkExport e = export_scenario(state.scenario(), ExportTarget::deepspeed);
    REQUIRE(e.warnings.size() >= 2);  // tp and pp are set in the model code, and more
    f.frame([&] { ui::copy_scenario_as(state, state.scenario(), ExportTarget::deepspeed, "the scenario"); });
    CHECK(state.ui.last_copied == e.text);
    std::string expected = "Copied the scenario as DeepSpeed ds_config.json to the clipboard, with " +
                           std::to_string(e.warnings.size()) + " notes:";
    for (const std::string& note : e.warnings) expected += "\n  - " + note;
    CHECK(state.ui.status == expected);
}

TEST_CASE("a status message of several lines is drawn in front of every panel, even one just clicked") {
    // An export's notes rose over the Pipeline timeline's rows, which showed through them; once the
    // timeline had been clicked, it covered them.
    EditedApp a;
    a.state.ui.status = "Copied the scenario as DeepSpeed ds_config.json to the clipboard, with 2 notes:\n  - one\n  - two";
    a.f.frames(2, a.draw);
    ImGuiWindow* status = ImGui::FindWindowByName("##status");
    REQUIRE(status);
    // A panel brought to the front, as a click on it does.
    ImGuiWindow* panel = nullptr;
    for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
        if (w != status && w->WasActive && !(w->Flags & ImGuiWindowFlags_ChildWindow) && w->Name[0] != '#') panel = w;
    REQUIRE(panel);
    ImGui::FocusWindow(panel);
    a.f.frames(2, a.draw);
    const ImVector<ImGuiWindow*>& order = ImGui::GetCurrentContext()->Windows;
    int status_at = -1, panel_at = -1;
    for (int i = 0; i < order.Size; ++i) {
        if (order[i] == status) status_at = i;
        if (order[i] == panel) panel_at = i;
    }
    CHECK(status_at > panel_at);
    CHECK(status->DrawList->VtxBuffer.Size > 0);
}

TEST_CASE("an idle window waits for input: a lesson's outline pulses three times, then the window sleeps") {
    ImGuiFixture fixture;
    ui::AppState state;
    ui::AppUi app;
    // The default view, nothing moving: no frame until input (or a posted event).
    fixture.frame([&] { app.draw_frame(state, 0.0f); });
    CHECK(app.frame_wait_seconds() == ui::AppUi::kIdleWaitSeconds);
    // A lesson step outlines a panel: slow frames while it pulses (3 pulses of sin(4t), 4.71 s)...
    ui::Panel* memory = app.registry().find("memory");
    REQUIRE(memory);
    memory->open = true;
    app.registry().set_highlight("memory");
    fixture.frame([&] { app.draw_frame(state, 10.0f); });
    CHECK(app.frame_wait_seconds() == doctest::Approx(1.0 / 15.0));
    fixture.frame([&] { app.draw_frame(state, 14.0f); });
    CHECK(app.frame_wait_seconds() == doctest::Approx(1.0 / 15.0));
    // ... then it stays still, outlined, and the window sleeps again.
    fixture.frame([&] { app.draw_frame(state, 14.8f); });
    CHECK(app.frame_wait_seconds() == ui::AppUi::kIdleWaitSeconds);
    CHECK(app.registry().highlighted() == "memory");
}
