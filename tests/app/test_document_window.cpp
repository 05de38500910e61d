// The scenario as a document, by mouse and keyboard in the real window: the title names the file and
// marks unsaved edits, Ctrl+S saves to the file, and quitting with unsaved edits asks first.

#include "live_app.hpp"

#include "core/scenario/scenario.hpp"

#include <doctest/doctest.h>

#include <fstream>

using namespace shardscope;
using namespace shardscope::test;
using Json = nlohmann::json;

namespace {

std::string title_of(const LiveApp& app) { return shell_output("xdotool getwindowname " + app.window_id()); }

// Waits until the title is `want` (the app sets it after the frame that changed it), at most ~5 s.
bool title_becomes(LiveApp& app, const std::string& want) {
    for (int i = 0; i < 25 && title_of(app) != want; ++i) app.wait_frames(2);
    return title_of(app) == want;
}

// Ctrl+O, the path typed into the file dialog's name box, Enter; true once the title names the file.
bool open_by_dialog(LiveApp& app, const std::filesystem::path& file) {
    app.key("ctrl+o");
    if (!app.wait_for_item("file/name") || !app.click("file/name")) return false;
    app.type(file.string());
    app.key("Return");
    return title_becomes(app, file.filename().string() + " \u2014 Shardscope");
}

int saved_seq_len(const std::filesystem::path& file) { return Json::parse(slurp(file))["model"]["seq_len"].get<int>(); }

// `source` copied to run.json in a scratch folder, opened in the window with the Scenario panel, and
// its seq_len typed as `seq_len`: a document with one unsaved edit.
struct EditedRunFile {
    std::filesystem::path file;
    LiveApp app;
    EditedRunFile(const std::string& name, const char* source, int seq_len)
        : file(copied(name, source)), app(name, "--show scenario '" + file.string() + "'") {
        REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
        CHECK(title_becomes(app, "run.json \u2014 Shardscope"));
        REQUIRE(app.wait_for_item("scenario/field/seq_len"));
        const Json probe = app.type_into("scenario/field/seq_len", std::to_string(seq_len));
        REQUIRE(probe["scenario"]["model"]["seq_len"] == seq_len);
    }
    static std::filesystem::path copied(const std::string& name, const char* source) {
        const auto to = scratch_dir(name + "-files") / "run.json";
        std::filesystem::copy_file(source, to);
        return to;
    }
};

}  // namespace

TEST_CASE("the title marks unsaved edits; Ctrl+S saves to the file; quitting with edits asks, and Cancel keeps the app") {
    EditedRunFile doc("doc-title", SHARDSCOPE_SOURCE_DIR "/examples/llama3-8b-64xh100.json", 4096);
    LiveApp& app = doc.app;
    const auto& file = doc.file;
    Json probe;
    CHECK(title_becomes(app, "*run.json \u2014 Shardscope"));
    CHECK(saved_seq_len(file) == 8192);

    // Ctrl+Q with the edit unsaved: the question, and Cancel leaves everything as it was.
    app.key("ctrl+q");
    REQUIRE(app.wait_for_item("discard/cancel"));
    CHECK_FALSE(app.exited_within(1));
    REQUIRE(app.click("discard/cancel"));
    probe = app.wait_frames(3);
    CHECK_FALSE(probe["items"].contains("discard/cancel"));
    CHECK_FALSE(app.exited_within(1));

    // Ctrl+S writes the file it came from, without asking where, and the mark goes.
    app.key("ctrl+s");
    app.wait_frames(3);
    CHECK(saved_seq_len(file) == 4096);
    CHECK(title_becomes(app, "run.json \u2014 Shardscope"));
    CHECK_FALSE(app.wait_frames(1)["items"].contains("file/name"));

    // Saved: Ctrl+Q quits at once.
    app.key("ctrl+q");
    CHECK(app.exited_within(30));
}

TEST_CASE("File > Quit with unsaved edits: Save in the question writes the file and then quits; Discard quits without") {
    const auto dir = scratch_dir("doc-quit");
    const auto file = dir / "run.json";
    std::filesystem::copy_file(SHARDSCOPE_SOURCE_DIR "/examples/llama3-8b-64xh100.json", file);
    // Each answer in its own run of the app: the edit, File > Quit, then the question's button.
    const auto edit_quit_and_answer = [&](const std::string& run, const char* seq_len, const std::string& answer) {
        LiveApp app(run, "--show scenario '" + file.string() + "'");
        REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
        REQUIRE(app.wait_for_item("scenario/field/seq_len"));
        REQUIRE(app.type_into("scenario/field/seq_len", seq_len)["scenario"]["model"]["seq_len"] == std::stoi(seq_len));
        REQUIRE(app.choose("File", "quit"));
        REQUIRE(app.wait_for_item(answer));
        REQUIRE(app.click(answer));
        CHECK(app.exited_within(30));
    };
    edit_quit_and_answer("doc-save-quit", "2048", "discard/save");
    CHECK(saved_seq_len(file) == 2048);
    edit_quit_and_answer("doc-discard-quit", "1024", "discard/discard");
    CHECK(saved_seq_len(file) == 2048);
}

TEST_CASE("a lesson's scenario is not unsaved work: started with nothing unsaved, Ctrl+Q quits at once") {
    LiveApp app("doc-lesson", "--lesson why-split --step 2");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    CHECK(title_becomes(app, "Shardscope"));
    app.key("ctrl+q");
    CHECK(app.exited_within(30));
}

TEST_CASE("File > Save scenario as: a name typed without an extension is saved as NAME.json") {
    const auto dir = scratch_dir("doc-save-as");
    LiveApp app("doc-save-as-app", "--show scenario");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.choose("File", "save_as"));
    REQUIRE(app.wait_for_item("file/name"));
    REQUIRE(app.click("file/name"));
    app.key("ctrl+a");
    app.type((dir / "my-run").string());
    app.key("Return");
    app.wait_frames(4);
    CHECK(std::filesystem::exists(dir / "my-run.json"));
    CHECK_FALSE(std::filesystem::exists(dir / "my-run"));
    CHECK(title_becomes(app, "my-run.json \u2014 Shardscope"));
    // File > Open offers the file just written, by its real name: a click on it and Enter open it.
    REQUIRE(app.choose("File", "open"));
    REQUIRE(app.wait_for_item("file/name"));
    REQUIRE(app.click("file/name"));
    app.key("Return");
    const Json probe = app.wait_frames(4);
    CHECK(probe["error"] == "");
    CHECK(probe["status"] == "Opened " + (dir / "my-run.json").string());
}

TEST_CASE("File > Open of a file that is no scenario, with unsaved edits: refused at once, no question, edits kept") {
    const auto dir = scratch_dir("doc-open-bad");
    const auto bad = dir / "bad.json";
    std::ofstream(bad) << "{\"schema\": 1}\n";
    LiveApp app("doc-open-bad-app", "--show scenario");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    REQUIRE(app.wait_for_item("scenario/field/seq_len"));
    Json probe = app.type_into("scenario/field/seq_len", "4096");
    REQUIRE(probe["scenario"]["model"]["seq_len"] == 4096);

    REQUIRE(app.choose("File", "open"));
    REQUIRE(app.wait_for_item("file/name"));
    REQUIRE(app.click("file/name"));
    app.type(bad.string());
    app.key("Return");
    probe = app.wait_frames(6);
    // No "Opening ... loses them" question for a file that will not open: the rejection says why.
    CHECK_FALSE(probe["items"].contains("discard/cancel"));
    CHECK(probe["error"].get<std::string>().find("schema") != std::string::npos);
    CHECK(probe["scenario"]["model"]["seq_len"] == 4096);
    // The status line keeps the refusal once the dialog is closed (it went on naming the last save).
    CHECK(probe["status"].get<std::string>().rfind("Rejected " + bad.string() + ": schema", 0) == 0);
}

TEST_CASE("Ctrl+Z after File > Open of a second file brings back the first, by name: Ctrl+S writes the first, not the second") {
    const auto dir = scratch_dir("doc-undo-files");
    const auto a = dir / "a.json";
    const auto b = dir / "b.json";
    std::filesystem::copy_file(SHARDSCOPE_SOURCE_DIR "/examples/llama3-8b-64xh100.json", a);
    std::filesystem::copy_file(SHARDSCOPE_SOURCE_DIR "/docs/strategy.json", b);
    const std::string b_text = slurp(b);
    LiveApp app("doc-undo-open", "'" + a.string() + "'");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    CHECK(title_becomes(app, "a.json \u2014 Shardscope"));
    CHECK(open_by_dialog(app, b));

    // Undo the open: a.json's scenario under a.json's name, nothing unsaved, and the status says so.
    app.key("ctrl+z");
    CHECK(title_becomes(app, "a.json \u2014 Shardscope"));
    const Json probe = app.wait_frames(2);
    CHECK(probe["scenario"] == Json::parse(scenario_to_json(*parse_scenario(slurp(a)).scenario)));
    CHECK(probe["status"] == "Undone (Ctrl+Shift+Z or Ctrl+Y redoes it): back to " + a.string());
    // Ctrl+S: b.json keeps what it held (before the fix it took a.json's scenario).
    app.key("ctrl+s");
    app.wait_frames(3);
    CHECK(slurp(b) == b_text);
    CHECK(title_becomes(app, "a.json \u2014 Shardscope"));
}

TEST_CASE("File > New scenario by mouse, with unsaved edits: asked first; Discard starts untitled from the default, Ctrl+Z brings the file back") {
    EditedRunFile doc("doc-new", SHARDSCOPE_SOURCE_DIR "/docs/strategy.json", 1024);
    LiveApp& app = doc.app;
    Json probe;

    REQUIRE(app.choose("File", "new"));
    REQUIRE(app.wait_for_item("discard/discard"));
    REQUIRE(app.click("discard/discard"));
    probe = app.wait_frames(4);
    CHECK(probe["scenario"] == Json::parse(scenario_to_json(default_scenario())));
    CHECK(title_becomes(app, "Shardscope"));
    CHECK(probe["status"].get<std::string>().rfind("New scenario: the default, Llama 3 8B on 64 H100 SXM", 0) == 0);
    // Undone: the file's scenario with its unsaved edit, under its name, marked.
    app.key("ctrl+z");
    CHECK(title_becomes(app, "*run.json \u2014 Shardscope"));
    CHECK(app.wait_frames(2)["scenario"]["model"]["seq_len"] == 1024);
}

TEST_CASE("Save as on an untitled scenario offers scenario.json, not the name of a file opened before") {
    const auto dir = scratch_dir("doc-save-untitled-files");
    const auto file = dir / "run.json";
    std::filesystem::copy_file(SHARDSCOPE_SOURCE_DIR "/docs/strategy.json", file);
    const std::string before = slurp(file);
    LiveApp app("doc-save-untitled", "");
    REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
    CHECK(open_by_dialog(app, file));
    app.key("ctrl+n");
    CHECK(title_becomes(app, "Shardscope"));
    // Save as, Enter at once: the untitled scenario goes to scenario.json beside run.json.
    app.key("ctrl+shift+s");
    REQUIRE(app.wait_for_item("file/name"));
    REQUIRE(app.click("file/name"));
    app.key("Return");
    app.wait_frames(4);
    CHECK(std::filesystem::exists(dir / "scenario.json"));
    CHECK(slurp(file) == before);
    CHECK(title_becomes(app, "scenario.json \u2014 Shardscope"));
}
