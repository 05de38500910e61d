#include "widgets/kit/flow.hpp"

#include <imgui.h>

namespace shardscope::ui {

void flow(float next_width, float spacing) {
    // The cursor sits at the start of the next line here, so this is the region's right edge (a table
    // cell's, inside a table).
    const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
    if (ImGui::GetItemRectMax().x + spacing + next_width <= right) ImGui::SameLine(0, spacing);
}

bool begin_table_at_least(const char* id, int columns, int flags, float min_width_ems, int rows, float height) {
    const float min_width = min_width_ems * ImGui::GetFontSize();
    if (ImGui::GetContentRegionAvail().x >= min_width && height <= 0.0f) return ImGui::BeginTable(id, columns, flags);
    const ImGuiStyle& style = ImGui::GetStyle();
    const bool given_height = height > 0.0f;
    if (height <= 0.0f)
        height = static_cast<float>(rows + 1) * (ImGui::GetTextLineHeight() + 2.0f * style.CellPadding.y) +
                 style.ScrollbarSize + 4.0f;
    const bool narrow = ImGui::GetContentRegionAvail().x < min_width;
    // A height given for the rows alone grows by the sideways scrollbar, which would hide the last row.
    const float rows_and_bar = narrow && given_height ? height + style.ScrollbarSize : height;
    return ImGui::BeginTable(id, columns, flags | (narrow ? ImGuiTableFlags_ScrollX : 0), ImVec2(0.0f, rows_and_bar),
                             narrow ? min_width : 0.0f);
}

}  // namespace shardscope::ui
