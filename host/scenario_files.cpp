#include "host/scenario_files.hpp"

#include "host/file_io.hpp"
#include "core/export/step_trace.hpp"
#include "core/model/fit_advisor.hpp"
#include "core/scenario/model_import.hpp"

#include <filesystem>
#include <utility>

namespace shardscope::host {

namespace {
// The file's text, or nothing with the reason in the error modal.
std::optional<std::string> read_or_report(ui::AppState& state, const std::string& path) {
    std::string error;
    auto text = read_text_file(path, error);
    if (!text) state.show_error("Could not open " + path, error);
    return text;
}

// A model file's text brought into the scenario; `seq_len` unset keeps a preset's own length, or the
// scenario's for a Hugging Face config.
bool import_model_text(ui::AppState& state, const std::string& path, const std::string& text,
                       std::optional<int64_t> seq_len) {
    const int64_t current = state.scenario().model.seq_len;
    const bool from_preset = !model_file_info(text).hugging_face;
    // A preset carries its own training length; a Hugging Face config does not, so the scenario's is kept.
    const std::optional<int64_t> length = seq_len ? seq_len : (from_preset ? std::nullopt : std::optional<int64_t>(current));
    ModelImport im = import_model(text, length, model_name_from_path(path));
    if (!im.ok()) {
        state.show_error("Rejected " + path, im.error);
        return false;
    }
    Scenario candidate = state.scenario();
    candidate.model = *im.model;
    // A layout made for the last model may not run this one: it moves to the nearest that does, and
    // the status line names what moved.
    const CarriedLayout carried = carry_layout_to_model(candidate);
    if (!carried.rule.empty()) {
        state.show_error("Model not taken: " + im.model->name, "The current layout cannot run it: " + carried.rule);
        return false;
    }
    state.replace(carried.scenario);
    state.ui.file_dialog_dir = std::filesystem::path(path).parent_path().string();
    std::string status = "Imported model " + im.model->name + " from " + path;
    if (!seq_len && !from_preset)
        status += " (seq_len " + std::to_string(current) + " kept from the scenario: the config's max_position_embeddings is a context window)";
    else if (!from_preset)
        status += " at seq_len " + std::to_string(*seq_len);
    else if (!im.notes.empty())
        status += " (" + im.notes.front() + ")";
    if (!carried.changes.empty()) status += "; the layout moved to run it: " + changes_text(carried.changes);
    state.ui.status = status;
    return true;
}

// A preset's text is imported at once; a Hugging Face config's waits for the modal's length.
bool begin_model_text(ui::AppState& state, const std::string& path, const std::string& text,
                      const ModelFileInfo& info) {
    if (!info.hugging_face) return import_model_text(state, path, text, std::nullopt);
    state.ui.pending_import =
        ui::PendingModelImport{path, "Hugging Face config of " + model_name_from_path(path), info.context_window,
                               state.scenario().model.seq_len};
    return true;
}

// The request raised this frame, if any, taken out of the requests.
template <typename T>
std::optional<T> take(std::optional<T>& request) {
    std::optional<T> out = std::move(request);
    request.reset();
    return out;
}
// A file opened or saved joins the recent files, which are written for the user unless this run
// keeps its hands off them (a screenshot run).
void remember_file(ui::AppState& state, const std::string& path) {
    state.remember_recent(path);
    if (state.ui.remember_user_files) save_recent_files(state.ui.recent_files);
}


// What a file's text opens as: a scenario, else a model to import, else nothing (the loader's reason).
struct OpenedText {
    ScenarioLoad scenario;
    ModelFileInfo model;
    [[nodiscard]] bool refused() const noexcept { return !scenario.ok() && !model.model; }
};

OpenedText classify_text(const std::string& text) {
    OpenedText o{parse_scenario(text), {}};
    if (!o.scenario.ok()) o.model = model_file_info(text);
    return o;
}

bool open_classified(ui::AppState& state, const std::string& path, const std::string& text, const OpenedText& o) {
    if (!o.scenario.ok()) {
        if (o.model.model) return begin_model_text(state, path, text, o.model);
        state.show_error("Rejected " + path, o.scenario.error);
        return false;
    }
    // Standard input is no file to save back to, come back to or browse beside: the scenario read
    // from it is untitled.
    const bool untitled = path == kStandardStream;
    state.open_document(*o.scenario.scenario, untitled ? "" : path);
    state.ui.status = "Opened " + path;
    if (untitled) return true;
    state.ui.file_dialog_dir = std::filesystem::path(path).parent_path().string();
    remember_file(state, path);
    return true;
}

}  // namespace

bool open_scenario_file(ui::AppState& state, const std::string& path) {
    const auto text = read_or_report(state, path);
    return text && open_classified(state, path, *text, classify_text(*text));
}

bool begin_model_import(ui::AppState& state, const std::string& path) {
    const auto text = read_or_report(state, path);
    return text && begin_model_text(state, path, *text, model_file_info(*text));
}

bool import_model_file(ui::AppState& state, const std::string& path, std::optional<int64_t> seq_len) {
    const auto text = read_or_report(state, path);
    return text && import_model_text(state, path, *text, seq_len);
}

bool save_scenario_file(ui::AppState& state, const std::string& path) {
    if (std::string error = write_file_atomically(path, scenario_to_json(state.scenario())); !error.empty()) {
        state.show_error("Could not save", error);
        return false;
    }
    state.set_current_file(path);
    state.mark_saved();
    state.ui.status = "Saved " + path;
    remember_file(state, path);
    // The question's "Save": what it waited for goes ahead now that nothing is lost.
    if (const auto waiting = take(state.ui.after_save)) state.go_ahead(*waiting);
    return true;
}

bool export_trace_file(ui::AppState& state, const std::string& path) {
    const StepTrace trace = step_trace(state.report());
    if (!trace.ok()) {
        state.show_error("No trace to export", trace.error);
        return false;
    }
    if (std::string error = write_file_atomically(path, trace.json); !error.empty()) {
        state.show_error("Could not export the trace", error);
        return false;
    }
    state.ui.status = "Trace of the simulated step written to " + path + " (open it in ui.perfetto.dev or chrome://tracing)" +
                      (trace.note.empty() ? "" : "; " + trace.note);
    return true;
}

void handle_file_requests(ui::AppState& state) {
    if (const auto path = take(state.requests.import_path)) begin_model_import(state, *path);
    if (const auto request = take(state.requests.import_model)) import_model_file(state, request->path, request->seq_len);
    if (const auto path = take(state.requests.trace_path)) export_trace_file(state, *path);
    // Saved first: the discard question's "Save" then lets an open go ahead in the same frame.
    if (const auto path = take(state.requests.save_path)) {
        if (!save_scenario_file(state, *path)) state.ui.after_save.reset();
    }
    if (std::exchange(state.requests.new_scenario, false) &&
        state.may_discard_edits({ui::DiscardAction::new_scenario, {}})) {
        state.open_document(default_scenario(), "");
        state.ui.status = "New scenario: the default, " + state.scenario().model.name + " on " +
                          std::to_string(state.scenario().cluster.gpu_count()) + " " + state.scenario().cluster.gpu.name +
                          " (Ctrl+Z brings back the one before)";
    }
    if (const auto path = take(state.requests.open_path)) {
        // Read and judged before anyone is asked to give up their edits for it: a file that would be
        // refused (unreadable, or neither a scenario nor a model) says why, and nothing else happens.
        const auto text = read_or_report(state, *path);
        if (!text) return;
        const OpenedText opened = classify_text(*text);
        if (opened.refused()) (void)open_classified(state, *path, *text, opened);
        else if (state.may_discard_edits({ui::DiscardAction::open, *path})) open_classified(state, *path, *text, opened);
    }
}

}  // namespace shardscope::host
