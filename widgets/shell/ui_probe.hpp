#pragma once
// What a test driving the real window with a real mouse needs to know each frame: where every open
// panel's window is (and which is in front), where each named widget was drawn, which panel a lesson
// outlines, and the scenario the clicks produced. The app writes it with --ui-probe FILE.

#include "widgets/shell/panel.hpp"

#include <string>

namespace shardscope::ui {

// JSON: {"frame", "viewport": [w, h], "highlighted", "windows": [{"id", "x", "y", "w", "h", "z"}],
// "items": {key: [x0, y0, x1, y1]}, "scenario": {...}}. Call between NewFrame and Render, after the
// panels were drawn. z orders the windows back (0) to front.
[[nodiscard]] std::string ui_probe_json(const PanelRegistry& registry, const AppState& state);

}  // namespace shardscope::ui
