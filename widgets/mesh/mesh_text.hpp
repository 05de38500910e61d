#pragma once
// What the Device mesh panel's editor (mesh_panel.cpp) and viewer (mesh_viewer.cpp) both write: dim
// names in their palette colour and exact counts.

#include "core/scenario/dim.hpp"
#include "core/scenario/units.hpp"
#include "widgets/kit/palette.hpp"

#include <imgui.h>

#include <cstdint>
#include <string>

namespace shardscope::ui::mesh_text {

inline const ImVec4 kMutedColour{0.62f, 0.65f, 0.72f, 1.0f};

inline std::string name_of(Dim d) { return std::string(to_string(d)); }

// Exact counts with thousands separators: "16,384" (sizes and strides must not round to "16.4k").
inline std::string number(int64_t v) { return format_grouped(v); }

inline ImVec4 colour_of(Dim d) { return ImGui::ColorConvertU32ToFloat4(palette::dim_colour(d)); }

}  // namespace shardscope::ui::mesh_text
