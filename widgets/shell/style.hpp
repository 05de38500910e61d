#pragma once
// The app's look, one definition for the desktop window and the browser page.

namespace shardscope::ui {

// The text's height in pixels at drawing scale 1 (DejaVu Sans, the desktop's sans-serif on Debian).
inline constexpr float kBaseFontPixels = 15.0f;

// ImGui's dark theme made opaque and rounded, every size scaled by `scale` (the drawing scale: the
// desktop's content scale, the browser's devicePixelRatio).
void apply_style(float scale);

}  // namespace shardscope::ui
