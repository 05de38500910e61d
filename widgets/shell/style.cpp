#include "widgets/shell/style.hpp"

#include <imgui.h>

namespace shardscope::ui {

void apply_style(float scale) {
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    // Opaque: the dark theme's 94% lets the text behind a tooltip, picker or dialog show through.
    style.Colors[ImGuiCol_WindowBg].w = 1.0f;
    style.Colors[ImGuiCol_PopupBg].w = 1.0f;
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.GrabRounding = 3.0f;
    // A refused control must look refused: the default 0.6 is hard to tell from an enabled one.
    style.DisabledAlpha = 0.35f;
    style.ScaleAllSizes(scale);
}

}  // namespace shardscope::ui
