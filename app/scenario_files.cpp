#include "app/scenario_files.hpp"

#include "app/file_io.hpp"
#include "core/export/step_trace.hpp"
#include "core/scenario/model_import.hpp"

#include <filesystem>

namespace shardscope::app {

namespace {
// The file's text, or nothing with the reason in the error modal.
std::optional<std::string> read_or_report(ui::AppState& state, const std::string& path) {
    std::string error;
    auto text = read_text_file(path, error);
    if (!text) state.show_error("Could not open " + path, error);
    return text;
}
}  // namespace

bool open_scenario_file(ui::AppState& state, const std::string& path) {
    const auto text = read_or_report(state, path);
    if (!text) return false;
    const ScenarioLoad loaded = parse_scenario(*text);
    if (!loaded.ok() && is_model_file(*text)) return begin_model_import(state, path);
    if (!loaded.ok()) {
        state.show_error("Rejected " + path, loaded.error);
        return false;
    }
    state.replace(*loaded.scenario);
    state.ui.current_file = path;
    state.ui.file_dialog_dir = std::filesystem::path(path).parent_path().string();
    state.ui.status = "Opened " + path;
    state.remember_recent(path);
    save_recent_files(state.ui.recent_files);
    return true;
}

bool begin_model_import(ui::AppState& state, const std::string& path) {
    const auto text = read_or_report(state, path);
    if (!text) return false;
    const ModelFileInfo info = model_file_info(*text);
    if (!info.hugging_face) return import_model_file(state, path);
    state.ui.pending_import =
        ui::PendingModelImport{path, "Hugging Face config of " + model_name_from_path(path), info.context_window,
                               state.scenario().model.seq_len};
    return true;
}

bool import_model_file(ui::AppState& state, const std::string& path, std::optional<int64_t> seq_len) {
    const auto text = read_or_report(state, path);
    if (!text) return false;
    const int64_t current = state.scenario().model.seq_len;
    const bool from_preset = !model_file_info(*text).hugging_face;
    // A preset carries its own training length; a Hugging Face config does not, so the scenario's is kept.
    const std::optional<int64_t> length = seq_len ? seq_len : (from_preset ? std::nullopt : std::optional<int64_t>(current));
    ModelImport im = import_model(*text, length, model_name_from_path(path));
    if (!im.ok()) {
        state.show_error("Rejected " + path, im.error);
        return false;
    }
    Scenario candidate = state.scenario();
    candidate.model = *im.model;
    if (const std::string rule = validate_scenario(candidate); !rule.empty()) {
        state.show_error("Model not taken: " + im.model->name, "The current layout cannot run it: " + rule);
        return false;
    }
    state.replace(candidate);
    state.ui.file_dialog_dir = std::filesystem::path(path).parent_path().string();
    std::string status = "Imported model " + im.model->name + " from " + path;
    if (!seq_len && !from_preset)
        status += " (seq_len " + std::to_string(current) + " kept from the scenario: the config's max_position_embeddings is a context window)";
    else if (!from_preset)
        status += " at seq_len " + std::to_string(*seq_len);
    else if (!im.notes.empty())
        status += " (" + im.notes.front() + ")";
    state.ui.status = status;
    return true;
}

bool save_scenario_file(ui::AppState& state, const std::string& path) {
    if (std::string error = write_file_atomically(path, scenario_to_json(state.scenario())); !error.empty()) {
        state.show_error("Could not save", error);
        return false;
    }
    state.ui.current_file = path;
    state.ui.status = "Saved " + path;
    state.remember_recent(path);
    save_recent_files(state.ui.recent_files);
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
    state.ui.status = "Trace of the simulated step written to " + path + " (open it in ui.perfetto.dev or chrome://tracing)";
    return true;
}

void handle_file_requests(ui::AppState& state) {
    if (state.requests.import_path) {
        const std::string path = *state.requests.import_path;
        state.requests.import_path.reset();
        begin_model_import(state, path);
    }
    if (state.requests.import_model) {
        const ui::ModelImportRequest request = *state.requests.import_model;
        state.requests.import_model.reset();
        import_model_file(state, request.path, request.seq_len);
    }
    if (state.requests.trace_path) {
        const std::string path = *state.requests.trace_path;
        state.requests.trace_path.reset();
        export_trace_file(state, path);
    }
    if (state.requests.open_path) {
        const std::string path = *state.requests.open_path;
        state.requests.open_path.reset();
        open_scenario_file(state, path);
    }
    if (state.requests.save_path) {
        const std::string path = *state.requests.save_path;
        state.requests.save_path.reset();
        save_scenario_file(state, path);
    }
}

}  // namespace shardscope::app
