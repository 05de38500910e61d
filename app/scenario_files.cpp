#include "app/scenario_files.hpp"

#include "app/file_io.hpp"

#include <filesystem>

namespace shardscope::app {

bool open_scenario_file(ui::AppState& state, const std::string& path) {
    std::string error;
    const auto text = read_text_file(path, error);
    if (!text) {
        state.show_error("Could not open " + path, error);
        return false;
    }
    const ScenarioLoad loaded = parse_scenario(*text);
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

void handle_file_requests(ui::AppState& state) {
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
