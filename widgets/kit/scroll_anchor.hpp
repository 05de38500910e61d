#pragma once
// Keeps a row of controls under the mouse when an edit made from it changes what is drawn above it (a
// verdict that grows a fix button, a wrapped line that gains one): the window scrolls by as much as the
// row moved, as a browser anchors its scroll, so the next click lands on the control it was aimed at.

namespace shardscope::ui {

class ScrollAnchor {
public:
    // Where the anchored row begins, inside the scrolling window, every frame.
    void place();
    // After an edit made from below the anchor (in the frame it was placed): the next frames keep the
    // row where it is now.
    void hold() noexcept {
        if (!seen_) return;
        held_ = true;
        held_y_ = last_y_;
        frames_held_ = 0;
    }

private:
    float last_y_ = 0;     // the row's screen y in the last place()
    bool seen_ = false;    // placed at least once
    bool held_ = false;    // an edit asked to keep it there
    float held_y_ = 0;     // where it was when the edit was made
    int frames_held_ = 0;  // frames since, while the new layout settles
};

}  // namespace shardscope::ui
