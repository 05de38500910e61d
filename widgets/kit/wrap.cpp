#include "widgets/kit/wrap.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace shardscope::ui {
namespace {

// One paragraph (no newline in it), greedily filled line by line.
void wrap_paragraph(std::string_view paragraph, float width, const std::function<float(std::string_view)>& measure,
                    std::string& out) {
    std::size_t line_start = 0;  // in `paragraph`
    std::size_t pos = 0;
    while (pos <= paragraph.size()) {
        std::size_t space = paragraph.find(' ', pos);
        if (space == std::string_view::npos) space = paragraph.size();
        // The line as it would be with this word on it.
        const std::string_view candidate = paragraph.substr(line_start, space - line_start);
        if (pos > line_start && measure(candidate) > width) {
            // Break before this word: drop the space that separated it.
            out.append(paragraph.substr(line_start, pos - 1 - line_start));
            out.push_back('\n');
            line_start = pos;
        }
        pos = space + 1;
    }
    out.append(paragraph.substr(line_start));
}

}  // namespace

std::string wrap_at_spaces(std::string_view text, float width, const std::function<float(std::string_view)>& measure) {
    std::string out;
    out.reserve(text.size() + 8);
    std::size_t start = 0;
    while (true) {
        const std::size_t newline = text.find('\n', start);
        wrap_paragraph(text.substr(start, newline == std::string_view::npos ? std::string_view::npos : newline - start),
                       width, measure, out);
        if (newline == std::string_view::npos) break;
        out.push_back('\n');
        start = newline + 1;
    }
    return out;
}

void text_wrapped(std::string_view text) {
    ImGuiWindow* window = ImGui::GetCurrentWindow();
    if (window->SkipItems) return;
    // As ImGui::TextWrapped: the wrap position pushed, or the window's right edge when none is.
    const float wrap_pos_x = window->DC.TextWrapPos < 0.0f ? 0.0f : window->DC.TextWrapPos;
    const float width = ImGui::CalcWrapWidthForPos(window->DC.CursorPos, wrap_pos_x);
    const std::string lines = wrap_at_spaces(text, width, [](std::string_view run) {
        return ImGui::CalcTextSize(run.data(), run.data() + run.size()).x;
    });
    ImGui::PushTextWrapPos(-1.0f);  // drawn as broken here, not broken again inside a number
    ImGui::TextUnformatted(lines.data(), lines.data() + lines.size());
    ImGui::PopTextWrapPos();
}

void text_wrapped_coloured(const ImVec4& colour, std::string_view text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    text_wrapped(text);
    ImGui::PopStyleColor();
}

void text_wrapped_disabled(std::string_view text) {
    text_wrapped_coloured(ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled), text);
}

void text_wrapped_f(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    va_list again;
    va_copy(again, args);
    const int size = std::vsnprintf(nullptr, 0, fmt, args);
    va_end(args);
    std::vector<char> buffer(static_cast<std::size_t>(size > 0 ? size : 0) + 1);
    std::vsnprintf(buffer.data(), buffer.size(), fmt, again);
    va_end(again);
    text_wrapped(std::string_view(buffer.data(), buffer.size() - 1));
}

}  // namespace shardscope::ui
