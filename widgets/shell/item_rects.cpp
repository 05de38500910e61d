#include "widgets/shell/item_rects.hpp"

#include <imgui.h>

#include <unordered_map>

namespace shardscope::ui {

namespace {
std::unordered_map<std::string, ItemRect>& rects() {
    static std::unordered_map<std::string, ItemRect> all;
    return all;
}
}  // namespace

void note_last_item(const std::string& key) {
    const ImVec2 min = ImGui::GetItemRectMin();
    const ImVec2 max = ImGui::GetItemRectMax();
    rects()[key] = ItemRect{min.x, min.y, max.x, max.y};
}

std::optional<ItemRect> find_item_rect(const std::string& key) {
    const auto it = rects().find(key);
    if (it == rects().end()) return std::nullopt;
    return it->second;
}

}  // namespace shardscope::ui
