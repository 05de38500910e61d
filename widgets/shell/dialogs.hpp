#pragma once
#include "widgets/shell/app_state.hpp"
#include "widgets/shell/panel.hpp"

namespace shardscope::ui {
// The error modal (a rejected file's field path and rule), About, Keyboard shortcuts, the status line.
void draw_error_modal(AppState& state);
// Asks for the length to train an imported Hugging Face config at (state.ui.pending_import).
void draw_model_import_modal(AppState& state);
// "Discard the unsaved changes?" before quitting or opening a file (state.ui.discard_question):
// Save (then go on), Discard changes, or Cancel.
void draw_discard_question(AppState& state);
void draw_about_window(AppState& state);
// First run: what the app is, and a button into the first lesson (or "not now").
void draw_welcome_window(AppState& state, PanelRegistry& registry);
void draw_shortcuts_window(AppState& state);
void draw_status_line(const AppState& state);
}  // namespace shardscope::ui
