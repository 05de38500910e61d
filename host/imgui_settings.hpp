#pragma once
// The user's imgui.ini, checked before Dear ImGui reads it. ImGui 1.86 trusts the file: a table
// section with a negative column count (`[Table][0x00000000,-5]`) makes it write outside what it
// allocated, and the app would crash at every start until the file was deleted by hand.

#include <cstddef>
#include <string>
#include <string_view>

namespace shardscope::host {

// The largest settings file taken: ImGui's own for every panel and table is a few kilobytes.
inline constexpr std::size_t kMaxImGuiSettingsBytes = 1 << 20;

// "" when ImGui 1.86 can read `text` safely, else "line N: the line: the rule it breaks". Only what
// ImGui would act on is checked: table sections and their column lines (window sections are read
// with bounds ImGui checks itself, and sections of unknown types are skipped by ImGui).
[[nodiscard]] std::string imgui_settings_problem(std::string_view text);

struct ImGuiSettingsCheck {
    std::string message;      // what to tell the user; "" when the file is fine or absent
    bool readable = true;     // false: a broken file is still at its path, so ImGui must not read it
};

// The layout file for a content scale: imgui.ini at 1x, imgui-2x.ini at 2x, imgui-1.5x.ini at 1.5x
// (to the nearest quarter). ImGui keeps windows in pixels, so a layout saved at one scale would be
// half off screen, or a quarter of the window, at another: each scale keeps a layout of its own.
[[nodiscard]] std::string imgui_settings_file_name(float content_scale);

// When the settings file at `path` is too large or breaks a rule, moves it to PATH.bad, so the app
// starts with the default layout, and says so.
[[nodiscard]] ImGuiSettingsCheck set_aside_broken_imgui_settings(const std::string& path);

}  // namespace shardscope::host
