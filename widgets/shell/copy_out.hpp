#pragma once
// Text a person copies out of the app to paste elsewhere: a layout in a framework's own terms
// (core/export/framework_export.hpp) or a table as CSV (core/export/table_csv.hpp). The clipboard gets
// the text, the status line says what went, and state.ui.last_copied keeps it for the tests.

#include "core/export/framework_export.hpp"
#include "widgets/shell/app_state.hpp"

#include <string>

namespace shardscope::ui {

// "Megatron-LM", "TorchTitan", "DeepSpeed", "nccl-tests".
[[nodiscard]] std::string framework_label(ExportTarget t);
// Copies scenario `s` as `target` writes it; `whose` names it in the status line ("the scenario",
// "planner row 2"), which also gives the first of the export's notes.
void copy_scenario_as(AppState& state, const Scenario& s, ExportTarget target, const std::string& whose);
// Copies a table written as CSV; the status line names the table and counts its rows. Where the host
// answers file dialogs (the browser page) the table is also handed over as a file, csv_file_name(table).
void copy_csv(AppState& state, const std::string& csv, const std::string& table);
// "planner's ranking" -> "shardscope-planners-ranking.csv": words of letters and digits, dashed.
[[nodiscard]] std::string csv_file_name(const std::string& table);

}  // namespace shardscope::ui
