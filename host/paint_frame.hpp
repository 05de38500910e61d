#pragma once
// The last part of every frame, the same for the desktop window and the browser page: the app's
// background, then what ImGui drew.

namespace shardscope::host {

// After ImGui::Render(): clears the whole framebuffer (fb_w x fb_h pixels) and paints ImGui's draw data.
void paint_frame(int fb_w, int fb_h);

}  // namespace shardscope::host
