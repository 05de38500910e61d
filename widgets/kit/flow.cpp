#include "widgets/kit/flow.hpp"

#include <imgui.h>

namespace shardscope::ui {

void flow(float next_width, float spacing) {
    // The cursor sits at the start of the next line here, so this is the region's right edge (a table
    // cell's, inside a table).
    const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
    if (ImGui::GetItemRectMax().x + spacing + next_width <= right) ImGui::SameLine(0, spacing);
}

}  // namespace shardscope::ui
