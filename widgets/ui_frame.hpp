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

private:
    void handle_shortcuts(AppState& state);

    PanelRegistry registry_;
    FileBrowser file_browser_;
};

}  // namespace shardscope::ui
