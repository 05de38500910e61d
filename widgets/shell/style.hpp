#pragma once
// The app's look, one definition for the desktop window and the browser page.

namespace shardscope::ui {

// ImGui's dark theme made opaque and rounded, every size scaled by `scale` (the drawing scale: the
// desktop's content scale, the browser's devicePixelRatio).
void apply_style(float scale);

}  // namespace shardscope::ui
