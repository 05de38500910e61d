#pragma once
#include "widgets/shell/panel.hpp"

namespace shardscope::ui {
// File / View / Help. Actions that need the window or the disk become AppState::requests.
void draw_main_menu(AppState& state, PanelRegistry& registry);
}  // namespace shardscope::ui
