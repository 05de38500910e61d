#include "widgets/placeholder_panel.hpp"

#include <imgui.h>

namespace shardscope::ui {

void PlaceholderPanel::draw(AppState&) {
    ImGui::TextDisabled("Not built yet.");
    ImGui::TextWrapped("%s", purpose_.c_str());
}

}  // namespace shardscope::ui
