#include "widgets/kit/tooltip.hpp"

#include <imgui.h>

namespace shardscope::ui {

void wrapped_tooltip(const std::string& text, float width_em) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * width_em);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void wrapped_tooltip_for_last_item(const std::string& text, float width_em) {
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) wrapped_tooltip(text, width_em);
}

}  // namespace shardscope::ui
