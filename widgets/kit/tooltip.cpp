#include "widgets/kit/tooltip.hpp"

#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>

namespace shardscope::ui {

void wrapped_tooltip(const std::string& text, float width_em) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * width_em);
    text_wrapped(text);
    note_last_item("tooltip");  // tests driving the real window see that a hover showed one
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void wrapped_tooltip_for_last_item(const std::string& text, float width_em) {
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) wrapped_tooltip(text, width_em);
}

}  // namespace shardscope::ui
