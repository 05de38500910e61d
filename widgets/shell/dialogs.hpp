#pragma once
#include "widgets/shell/app_state.hpp"

namespace shardscope::ui {
// The error modal (a rejected file's field path and rule), About, Keyboard shortcuts, the status line.
void draw_error_modal(AppState& state);
void draw_about_window(AppState& state);
void draw_shortcuts_window(AppState& state);
void draw_status_line(const AppState& state);
}  // namespace shardscope::ui
