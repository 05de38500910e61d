#include "widgets/kit/scroll_anchor.hpp"

#include <imgui.h>

namespace shardscope::ui {

namespace {
// The edit's frame ends with the old layout above the row; the next draws the new one, and a view
// rebuilt from the new scenario may take one frame more.
constexpr int kSettleFrames = 3;
}  // namespace

void ScrollAnchor::place() {
    const float y = ImGui::GetCursorScreenPos().y;
    if (held_) {
        // The window scrolls by what the row moved; ImGui applies it from the next frame, clamped to
        // what can be scrolled.
        if (const float moved = y - held_y_; moved != 0.0f)
            ImGui::SetScrollY(ImGui::GetScrollY() + moved);
        if (++frames_held_ > kSettleFrames) {
            held_ = false;
            frames_held_ = 0;
        }
    }
    last_y_ = y;
    seen_ = true;
}

}  // namespace shardscope::ui
