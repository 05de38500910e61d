#pragma once
#include "widgets/shell/app_state.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace shardscope::host {
// Opens a scenario file into state: all or nothing (a model file is imported, as import_model_file). A rejected file raises the error modal with the
// loader's message (field path and rule) and leaves the current scenario exactly as it was.
bool open_scenario_file(ui::AppState& state, const std::string& path);
// Brings a model file (a model preset or a Hugging Face config.json) into the current scenario: the
// model replaced, everything else kept, as one undo step. `seq_len` unset keeps the scenario's own
// sequence length (a config's max_position_embeddings is a context window, not a training length);
// the status line says which was used. A rejected file or a model the layout cannot take raises the
// error modal and leaves the scenario as it was.
bool import_model_file(ui::AppState& state, const std::string& path, std::optional<int64_t> seq_len = std::nullopt);
// Starts bringing a model file in: a preset is imported at once; a Hugging Face config first asks for
// the length to train at (state.ui.pending_import, the modal), offering the scenario's own.
bool begin_model_import(ui::AppState& state, const std::string& path);
// Writes the current scenario's simulated step as a Chrome trace (core/export/step_trace.hpp), through
// a temp file and a rename; a step without times or a failed write raises the error modal.
bool export_trace_file(ui::AppState& state, const std::string& path);
// Saves the current scenario through a temp file and a rename; errors go to the modal too.
bool save_scenario_file(ui::AppState& state, const std::string& path);
// Carries out the open / save / import / trace requests widgets raised this frame.
void handle_file_requests(ui::AppState& state);
}  // namespace shardscope::host
