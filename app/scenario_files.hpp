#pragma once
#include "widgets/shell/app_state.hpp"

#include <string>

namespace shardscope::app {
// Opens a scenario file into state: all or nothing. A rejected file raises the error modal with the
// loader's message (field path and rule) and leaves the current scenario exactly as it was.
bool open_scenario_file(ui::AppState& state, const std::string& path);
// Saves the current scenario through a temp file and a rename; errors go to the modal too.
bool save_scenario_file(ui::AppState& state, const std::string& path);
// Carries out the open/save requests widgets raised this frame.
void handle_file_requests(ui::AppState& state);
}  // namespace shardscope::app
