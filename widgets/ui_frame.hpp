#pragma once
// One frame of the whole UI, shared by the real window and the headless widget tests.

#include "widgets/shell/file_browser.hpp"
#include "widgets/shell/panel.hpp"

namespace shardscope::ui {

class AppUi {
public:
    AppUi();
    // Between ImGui::NewFrame() and ImGui::Render().
    void draw_frame(AppState& state, float seconds_since_start);
    [[nodiscard]] PanelRegistry& registry() noexcept { return registry_; }
    // How long the window may wait for input before it draws the next frame anyway: 0 while something
    // animates or a text field has the keyboard (its cursor blinks), a fifteenth of a second while a
    // lesson's outline pulses, half a second otherwise (a time-based change it would miss).
    // How long the window may wait for input before its next frame: 0 while something moves (a
    // playing animation, a running job, a text field's caret), a fifteenth of a second while a lesson's
    // outline pulses or a CPU job polls, else kIdleWaitSeconds.
    [[nodiscard]] double frame_wait_seconds() const;
    static constexpr double kIdleWaitSeconds = 3600.0;

private:
    void handle_shortcuts(AppState& state);

    PanelRegistry registry_;
    FileBrowser file_browser_;
};

}  // namespace shardscope::ui
