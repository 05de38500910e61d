#include "widgets/kit/number_field.hpp"

#include <imgui.h>

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

// Digits with an optional sign, and ',' or '_' only between digits: the text without the separators.
std::optional<std::string> plain_integer(std::string_view s) {
    std::string out;
    std::size_t i = 0;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) out.push_back(s[i++]);
    if (i == s.size()) return std::nullopt;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (is_digit(c)) out.push_back(c);
        else if ((c == ',' || c == '_') && i > 0 && is_digit(s[i - 1]) && i + 1 < s.size() && is_digit(s[i + 1])) continue;
        else return std::nullopt;
    }
    return out;
}

}  // namespace

WholeNumberRead read_whole_number(std::string_view text) {
    const std::string_view s = trimmed(text);
    const std::string quoted = "'" + std::string(text) + "'";
    if (s.empty()) return {std::nullopt, "nothing typed: a whole number is needed"};
    if (const std::optional<std::string> digits = plain_integer(s)) {
        errno = 0;
        const long long v = std::strtoll(digits->c_str(), nullptr, 10);
        if (errno == ERANGE) return {std::nullopt, quoted + " is too large a number"};
        return {static_cast<int64_t>(v), {}};
    }
    // A decimal or scientific form, whole in value.
    const std::string copy(s);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || copy.find_first_of("xXpPnNiI") != std::string::npos)
        return {std::nullopt, quoted + " is not a whole number"};
    if (errno == ERANGE || std::fabs(v) >= 9.2e18) return {std::nullopt, quoted + " is too large a number"};
    if (v != std::floor(v)) return {std::nullopt, quoted + " is not a whole number"};
    return {static_cast<int64_t>(v), {}};
}

NumberRead read_number(std::string_view text) {
    const std::string_view s = trimmed(text);
    const std::string quoted = "'" + std::string(text) + "'";
    if (s.empty()) return {std::nullopt, "nothing typed: a number is needed"};
    // Group separators out: '_' between digits; ',' only as thousands, three digits after each.
    std::string plain;
    const std::size_t point = s.find('.');
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        const bool between_digits = i > 0 && is_digit(s[i - 1]) && i + 1 < s.size() && is_digit(s[i + 1]);
        if (c == '_' && between_digits) continue;
        if (c == ',') {
            std::size_t run = 0;
            while (i + 1 + run < s.size() && is_digit(s[i + 1 + run])) ++run;
            const bool before_point = point == std::string_view::npos || i < point;
            if (i > 0 && is_digit(s[i - 1]) && run == 3 && before_point) continue;  // thousands
            return {std::nullopt, quoted + " is not a number (decimals take a point: 1.5)"};
        }
        plain.push_back(c);
    }
    if (plain.find_first_of("xXpPnNiI") != std::string::npos) return {std::nullopt, quoted + " is not a number"};
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(plain.c_str(), &end);
    if (end == plain.c_str() || end != plain.c_str() + plain.size()) return {std::nullopt, quoted + " is not a number"};
    if (!std::isfinite(v) || (errno == ERANGE && v != 0)) return {std::nullopt, quoted + " is too large a number"};
    return {v, {}};
}

namespace {

// The text field; true in the frame it is left after an edit, else `text` shows `current` unless typed in.
template <std::size_t N, typename T>
bool typed_field(const char* id, std::array<char, N>& text, const char* format, T current) {
    ImGui::InputText(id, text.data(), text.size());
    if (ImGui::IsItemDeactivatedAfterEdit()) return true;
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
