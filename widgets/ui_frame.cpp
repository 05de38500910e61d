#include "widgets/ui_frame.hpp"

#include "widgets/panel_catalog.hpp"
#include "widgets/shell/dialogs.hpp"
#include "widgets/shell/keys.hpp"
#include "widgets/shell/main_menu.hpp"

#include <imgui.h>

namespace shardscope::ui {

AppUi::AppUi() { register_default_panels(registry_); }

void AppUi::handle_shortcuts(AppState& state) {
    const ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsKeyPressed(keys::kF12, false)) state.requests.screenshot = true;
    if (!io.KeyCtrl) return;
    // A text field keeps the keys it edits with (Ctrl+Z undoes typing there); the app's other
    // shortcuts are no field's, so they work while one has the keyboard too.
    if (!io.WantTextInput && ImGui::IsKeyPressed(keys::kZ, false)) io.KeyShift ? state.redo() : state.undo();
    // Ctrl+Y is Redo where Windows taught it, beside the Ctrl+Shift+Z of other desktops.
    if (!io.WantTextInput && ImGui::IsKeyPressed(keys::kY, false)) state.redo();
    if (ImGui::IsKeyPressed(keys::kN, false)) state.requests.new_scenario = true;
    if (ImGui::IsKeyPressed(keys::kO, false)) state.ui.file_dialog = FileDialogMode::open;
    if (ImGui::IsKeyPressed(keys::kS, false)) save_or_save_as(state, io.KeyShift);
    if (state.ui.can_quit && ImGui::IsKeyPressed(keys::kQ, false)) state.requests.quit = true;
}

double AppUi::frame_wait_seconds() const {
    if (registry_.animating() || ImGui::GetIO().WantTextInput) return 0.0;
    // Nothing moves: the window draws again on input (or a posted event), not on a timer.
    return registry_.pulsing() ? 1.0 / 15.0 : kIdleWaitSeconds;
}

void AppUi::draw_frame(AppState& state, float seconds_since_start) {
    handle_shortcuts(state);
    draw_main_menu(state, registry_);
    registry_.draw_all(state, seconds_since_start);
    file_browser_.draw(state);
    draw_error_modal(state);
    draw_model_import_modal(state);
    draw_discard_question(state);
    draw_welcome_window(state, registry_);
    draw_about_window(state);
    draw_shortcuts_window(state);
    draw_status_line(state);
    state.end_frame(ImGui::IsAnyItemActive());
    state.retire_stale_status();
}

}  // namespace shardscope::ui
