#pragma once
#include <string>

namespace shardscope::host {
// Reads the current GL framebuffer (before the swap), flips it to top-down rows and writes a PNG
// through a temp file and a rename. Returns "" on success, else the reason.
std::string save_framebuffer_png(const std::string& path, int width, int height);
// "shardscope-YYYYMMDD-HHMMSS.png" in the given folder.
std::string timestamped_screenshot_path(const std::string& folder);
}  // namespace shardscope::host
