#pragma once
// Named screen rectangles of widgets drawn this frame ("menu/View", "menu/View/mesh"). Lessons use
// them to point at a widget, and the headless tests to click one without guessing pixel positions.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardscope::ui {

struct ItemRect {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    [[nodiscard]] float centre_x() const noexcept { return (x0 + x1) * 0.5f; }
    [[nodiscard]] float centre_y() const noexcept { return (y0 + y1) * 0.5f; }
};

// Records the rectangle of the last ImGui item under key.
void note_last_item(const std::string& key);
// Records a rectangle drawn straight onto a draw list (a chart's label), which is no ImGui item.
void note_rect(const std::string& key, const ItemRect& rect);
[[nodiscard]] std::optional<ItemRect> find_item_rect(const std::string& key);
// Every rectangle noted during the latest frame (ImGui's frame count), keyed by name.
[[nodiscard]] std::vector<std::pair<std::string, ItemRect>> current_item_rects();
// Drops every rectangle noted so far (for a new ImGui context, whose frame count starts again).
void forget_item_rects();

}  // namespace shardscope::ui
