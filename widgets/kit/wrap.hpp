#pragma once
// Prose wrapped at spaces only. Dear ImGui 1.86 also breaks a line after '.' and ',', which splits a
// number or a file name where the line runs out ("2.|81 ms", "config.|json"); these helpers break
// where a reader expects and hand ImGui lines it draws as they are.

#include <imgui.h>

#include <functional>
#include <string>
#include <string_view>

namespace shardscope::ui {

// `text` with a newline put before each word that would run past `width`, as `measure` sizes a run of
// text. Existing newlines stay; a word wider than `width` gets a line of its own and runs over.
[[nodiscard]] std::string wrap_at_spaces(std::string_view text, float width,
                                         const std::function<float(std::string_view)>& measure);

// ImGui::TextWrapped without the breaks inside numbers: wraps at the current wrap position
// (PushTextWrapPos) or else the window's right edge.
void text_wrapped(std::string_view text);
// In a colour of its own, or greyed as ImGui::TextDisabled.
void text_wrapped_coloured(const ImVec4& colour, std::string_view text);
void text_wrapped_disabled(std::string_view text);
// printf-style, as ImGui::TextWrapped takes it.
void text_wrapped_f(const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

}  // namespace shardscope::ui
