#pragma once
// Everything a frame of UI reads and writes: the current scenario (a core value type), its undo
// history, and UI state kept apart from it. Requests that need the window or the disk (open, save,
// screenshot, quit) are raised here and carried out by the app, so widgets never do that I/O.

#include "core/mesh/mesh.hpp"
#include "core/model/fit_advisor.hpp"
#include "core/model/report.hpp"
#include "core/scenario/scenario.hpp"
#include "core/scenario/scenario_history.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardscope::ui {

// What the file browser is choosing a file for.
enum class FileDialogMode { none, open, save, import_model, export_trace };

// A model file to bring into the scenario; no seq_len keeps a preset's own length.
struct ModelImportRequest {
    std::string path;
    std::optional<int64_t> seq_len;
};

// What waits for an answer to "discard the unsaved edits?": quitting, or opening another file.
enum class DiscardAction { quit, open, new_scenario };
struct DiscardQuestion {
    DiscardAction action = DiscardAction::quit;
    std::string path;  // the file to open
};

// Text the host hands to the person as a file (the browser page: a download).
struct TextDownload {
    std::string name;  // "shardscope-mesh-table.csv"
    std::string text;
};

struct Requests {
    std::optional<std::string> open_path;   // load this scenario file (a model file is imported)
    std::optional<std::string> save_path;   // save the current scenario here
    std::optional<std::string> import_path; // import this model file (a Hugging Face config asks first)
    std::optional<ModelImportRequest> import_model;  // import it now, at this length
    std::optional<std::string> trace_path;  // write the simulated step here as a Chrome trace
    std::optional<TextDownload> download;   // host_file_dialogs only: hand this text over as a file
    bool new_scenario = false;              // start over from the default scenario, untitled
    bool screenshot = false;
    bool quit = false;
};

// A Hugging Face config waiting for the length to train at: its max_position_embeddings is only the
// context window, so a modal asks, offering the scenario's own length.
struct PendingModelImport {
    std::string path;
    std::string model;           // what the file names, for the question
    int64_t context_window = 0;  // 0 when the config gives none
    int64_t seq_len = 0;         // the answer being typed
};

struct UiState {
    FileDialogMode file_dialog = FileDialogMode::none;
    std::string file_dialog_dir;            // folder the browser shows
    std::vector<std::string> recent_files;  // newest first
    // "" until opened or saved. AppState keeps it: set_current_file, and undo or redo across an open
    // brings back the file its scenario came from.
    std::string current_file;
    std::string error_title;                // a modal shows error_message while non-empty
    std::string error_message;
    std::string status;                     // one line at the bottom (e.g. where a screenshot went)
    std::optional<PendingModelImport> pending_import;
    // Asked while set: the edits since the last save would be lost by this action.
    std::optional<DiscardQuestion> discard_question;
    // The answer "discard" (or a save that succeeded) lets the action's next request through once.
    bool discard_confirmed = false;
    // "Save" in the question: the action goes ahead once the save has succeeded.
    std::optional<DiscardQuestion> after_save;
    // Whether the app writes what it remembers for this user (recent files); a screenshot run does not.
    bool remember_user_files = true;
    // Whether the app can quit (the browser page cannot: its tab closes it) and keeps files of its
    // own to reopen (Recent files); the page sets both false.
    bool can_quit = true;
    bool keeps_recent_files = true;
    // Whether the host answers file_dialog its own way (the page: the browser's picker and downloads),
    // so the in-app file browser stays shut.
    bool host_file_dialogs = false;
    // The frame (ImGui's count) in which a focused panel last used Left / Right for itself (the
    // Collective animator's steps); the lesson steps on them only when no panel did, this frame or the last.
    int arrows_taken_frame = -10;
    std::string last_copied;                // what the app last put on the clipboard
    std::string requested_lesson;           // --lesson ID: the lesson panel opens it
    int requested_step = 1;
    bool show_about = false;
    bool show_shortcuts = false;
    // A first run (no marker in the user's config folder) offers the lessons; the app writes the marker
    // once the newcomer has answered (welcome_answered).
    bool show_welcome = false;
    bool welcome_answered = false;
    std::vector<std::pair<std::string, std::string>> library_versions;  // filled by the app
};

class AppState {
public:
    explicit AppState(Scenario initial = default_scenario());

    [[nodiscard]] const Scenario& scenario() const noexcept { return scenario_; }
    // Bumped on every change of scenario(): panels cache what they derive from it by this number.
    [[nodiscard]] unsigned long version() const noexcept { return version_; }
    // Core's figures for the current scenario, computed once per change and shared by every panel.
    [[nodiscard]] const Report& report() const;
    [[nodiscard]] const DeviceMesh& mesh() const;
    // The fastest change that makes the scenario fit (core's fit advisor; none needed when it fits).
    [[nodiscard]] const FitAdvice& fit_advice() const;
    // Whether the current scenario is `other`, field for field. The current scenario's canonical JSON
    // is written once per version and `other`'s once per address, so a panel may ask every frame about
    // a scenario that lives unchanged where it is (a lesson step's, a cheat-sheet row's).
    [[nodiscard]] bool scenario_is(const Scenario& other) const;

    // Validates candidate and, when valid, makes it current; returns the rule it breaks otherwise
    // (then nothing changes). The edit joins the undo history once no widget is being dragged.
    std::string try_apply(const Scenario& candidate);
    // As try_apply, for an edit that is finished when made (a typed field left with Enter, Tab or a
    // click): one undo step at once, even when Tab has already made the next field active.
    std::string apply_step(const Scenario& candidate);
    // A model imported into the scenario: one undoable step (the text was validated by core).
    void replace(const Scenario& loaded);
    // A scenario opened from `file` ("" for a link or standard input): one undoable step that starts a
    // document of its own, nothing unsaved. Undoing it brings back the document before, its file and
    // what was saved of it, so Ctrl+S never writes one file's scenario into another.
    void open_document(const Scenario& loaded, const std::string& file);
    // Which document is current: a number that changes with every open (a file, New, a link) and with
    // undo or redo across one, and with nothing else.
    [[nodiscard]] size_t document() const noexcept { return history_.tag(); }
    // The current document is now `path` (saved as, or untitled with ""); its earlier states go with it.
    void set_current_file(const std::string& path);
    // Called once per frame after all widgets: commits a finished gesture to the history.
    void end_frame(bool any_widget_active);
    // Called once per frame after all widgets: a status message tells of what just happened, so the
    // next change of the scenario after it was shown clears it (it would otherwise describe an edit
    // that is no longer the last one).
    void retire_stale_status();
    void undo();
    void redo();
    [[nodiscard]] bool can_undo() const noexcept { return history_.can_undo(); }
    [[nodiscard]] bool can_redo() const noexcept { return history_.can_redo(); }
    [[nodiscard]] const ScenarioHistory& history() const noexcept { return history_; }

    UiState ui;
    Requests requests;

    // Whether the scenario differs from the one last opened or saved (the default one at start): the
    // title's mark. Undoing back to the saved scenario clears it.
    [[nodiscard]] bool edited() const;
    // The scenario as it is now is what the current file holds.
    void mark_saved();
    // Whether `action` may go ahead now: yes when nothing is unsaved or the person already answered
    // "discard"; otherwise the question is asked and the action waits for its answer.
    bool may_discard_edits(const DiscardQuestion& action);
    // The answer that nothing is lost ("Discard changes", or a save that succeeded): `action` is
    // asked for again and let through.
    void go_ahead(const DiscardQuestion& action);

    void remember_recent(const std::string& path);
    // The error dialog, and its first line on the status line, which outlasts the dialog.
    void show_error(std::string title, std::string message);

private:
    void set(const Scenario& s);
    // After undo or redo: the file and saved state of the document the scenario now belongs to; says
    // so on the status line when that is another document than before.
    void follow_document(size_t before, const char* what);

    Scenario scenario_;
    ScenarioHistory history_;
    // A file's scenario and what of it was last saved; the history tags each state with its document.
    struct Document {
        std::string file;
        std::string saved_json;  // canonical JSON
    };
    std::vector<Document> documents_;
    bool pending_commit_ = false;
    unsigned long version_ = 1;
    std::string status_shown_;            // ui.status as the last frame ended
    unsigned long status_version_ = 0;    // the scenario it was shown beside
    bool status_renewed_ = false;         // set again (the same words) by undo or redo
    mutable std::shared_ptr<const Report> report_;
    mutable unsigned long report_version_ = 0;
    mutable std::shared_ptr<const DeviceMesh> mesh_;
    mutable unsigned long mesh_version_ = 0;
    mutable std::shared_ptr<const FitAdvice> fit_advice_;
    mutable unsigned long fit_advice_version_ = 0;
    [[nodiscard]] const std::string& scenario_json() const;

    mutable std::string scenario_json_;
    mutable unsigned long scenario_json_version_ = 0;
    // The last scenario compared by scenario_is and its JSON: a lesson step or a cheat-sheet row is
    // written once, not per frame.
    mutable const Scenario* compared_ = nullptr;
    mutable std::string compared_json_;
};

// Ctrl+S: to the current file when there is one, else the browser asks where; `as` (Ctrl+Shift+S)
// always asks.
void save_or_save_as(AppState& state, bool as);

// "file.json — Shardscope", with a leading * when edited; "Shardscope" for the unedited default.
[[nodiscard]] std::string window_title(const AppState& state);

}  // namespace shardscope::ui
