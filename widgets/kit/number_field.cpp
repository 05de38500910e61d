#include "widgets/kit/number_field.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // GetActiveID: whether keys typed this frame go to this field

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace shardscope::ui {
namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// `s` without its digit-group separators: '_' between digits, and ',' before exactly three digits
// ahead of any point ("16,384.5"). Nothing when a comma is no thousands separator ("1,5", ",5").
std::optional<std::string> without_separators(std::string_view s) {
    std::string plain;
    const std::size_t point = s.find('.');
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        const bool after_digit = i > 0 && is_digit(s[i - 1]);
        if (c == '_' && after_digit && i + 1 < s.size() && is_digit(s[i + 1])) continue;
        if (c == ',') {
            std::size_t run = 0;
            while (i + 1 + run < s.size() && is_digit(s[i + 1 + run])) ++run;
            const bool before_point = point == std::string_view::npos || i < point;
            if (after_digit && run == 3 && before_point) continue;
            return std::nullopt;
        }
        plain.push_back(c);
    }
    return plain;
}

// Digits with an optional sign, nothing else.
bool plain_integer(const std::string& s) {
    const std::size_t first = !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    return first < s.size() && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(first), s.end(), is_digit);
}

}  // namespace

WholeNumberRead read_whole_number(std::string_view text) {
    const std::string_view s = trimmed(text);
    const std::string quoted = "'" + std::string(text) + "'";
    if (s.empty()) return {std::nullopt, "nothing typed: a whole number is needed"};
    const std::optional<std::string> plain = without_separators(s);
    if (!plain) return {std::nullopt, quoted + " is not a whole number"};
    if (plain_integer(*plain)) {
        errno = 0;
        const long long v = std::strtoll(plain->c_str(), nullptr, 10);
        if (errno == ERANGE) return {std::nullopt, quoted + " is too large a number"};
        return {static_cast<int64_t>(v), {}};
    }
    // A decimal or scientific form, whole in value.
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(plain->c_str(), &end);
    if (end != plain->c_str() + plain->size() || plain->find_first_of("xXpPnNiI") != std::string::npos)
        return {std::nullopt, quoted + " is not a whole number"};
    if (errno == ERANGE || std::fabs(v) >= 9.2e18) return {std::nullopt, quoted + " is too large a number"};
    if (v != std::floor(v)) return {std::nullopt, quoted + " is not a whole number"};
    return {static_cast<int64_t>(v), {}};
}

NumberRead read_number(std::string_view text) {
    const std::string_view s = trimmed(text);
    const std::string quoted = "'" + std::string(text) + "'";
    if (s.empty()) return {std::nullopt, "nothing typed: a number is needed"};
    const std::optional<std::string> separated = without_separators(s);
    if (!separated) return {std::nullopt, quoted + " is not a number (decimals take a point: 1.5)"};
    const std::string& plain = *separated;
    if (plain.find_first_of("xXpPnNiI") != std::string::npos) return {std::nullopt, quoted + " is not a number"};
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(plain.c_str(), &end);
    if (end == plain.c_str() || end != plain.c_str() + plain.size()) return {std::nullopt, quoted + " is not a number"};
    if (!std::isfinite(v) || (errno == ERANGE && v != 0)) return {std::nullopt, quoted + " is too large a number"};
    return {v, {}};
}

namespace {

// The text field; true in the frame it is left after it was typed in, else `text` shows `current`
// unless typed in. ImGui calls a field edited only when a frame ends with other text than it began
// with, so "80" typed over "80" within one slow frame would not count: keys typed while the field is
// active are remembered (in ImGui's per-window storage, under the field's id) until it is left.
template <std::size_t N, typename T>
bool typed_field(const char* id, std::array<char, N>& text, const char* format, T current) {
    const ImGuiID field = ImGui::GetID(id);
    ImGuiStorage& typed_in = *ImGui::GetStateStorage();
    if (ImGui::GetActiveID() == field && !ImGui::GetIO().InputQueueCharacters.empty()) typed_in.SetBool(field, true);
    ImGui::InputText(id, text.data(), text.size());
    if (ImGui::IsItemDeactivated()) {
        const bool was_typed_in = typed_in.GetBool(field) || ImGui::IsItemDeactivatedAfterEdit();
        typed_in.SetBool(field, false);
        if (was_typed_in) return true;
    }
    if (!ImGui::IsItemActive()) std::snprintf(text.data(), text.size(), format, current);
    return false;
}

}  // namespace

std::optional<WholeNumberRead> whole_number_field(const char* id, WholeNumberText& text, int64_t current) {
    if (!typed_field(id, text, "%lld", static_cast<long long>(current))) return std::nullopt;
    return read_whole_number(text.data());
}

std::optional<NumberRead> number_field(const char* id, NumberText& text, double current) {
    if (!typed_field(id, text, "%.6g", current)) return std::nullopt;
    return read_number(text.data());
}

}  // namespace shardscope::ui
