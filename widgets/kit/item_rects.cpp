#include "widgets/kit/item_rects.hpp"

#include <imgui.h>

#include <algorithm>
#include <unordered_map>

namespace shardscope::ui {

namespace {
struct Noted {
    ItemRect rect;
    int frame = 0;
};
std::unordered_map<std::string, Noted>& rects() {
    static std::unordered_map<std::string, Noted> all;
    return all;
}
}  // namespace

void note_rect(const std::string& key, const ItemRect& rect) {
    rects()[key] = Noted{rect, ImGui::GetFrameCount()};
}

void note_last_item(const std::string& key) {
    const ImVec2 min = ImGui::GetItemRectMin();
    const ImVec2 max = ImGui::GetItemRectMax();
    note_rect(key, ItemRect{min.x, min.y, max.x, max.y});
}

std::optional<ItemRect> find_item_rect(const std::string& key) {
    const auto it = rects().find(key);
    if (it == rects().end()) return std::nullopt;
    return it->second.rect;
}

void forget_item_rects() { rects().clear(); }

std::vector<std::pair<std::string, ItemRect>> current_item_rects() {
    // This context's frame: a later context (a test's) starts counting again below an earlier one's.
    const int latest = ImGui::GetCurrentContext() ? ImGui::GetFrameCount() : 0;
    std::vector<std::pair<std::string, ItemRect>> out;
    for (const auto& [key, noted] : rects())
        if (noted.frame == latest) out.emplace_back(key, noted.rect);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
}

}  // namespace shardscope::ui
