#pragma once
// A whole number typed as text. ImGui 1.86's integer fields drop the characters they do not take as
// the person types ("1e9" becomes 19, "8k" 8) and clamp what overflows to 9223372036854775807, then
// apply what is left without a word; this field keeps the text as typed and reads all of it when the
// field is left, so what cannot be a whole number is refused by name.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shardscope::ui {

// The whole text read as a whole number: digits with an optional sign, digit groups set off by ','
// or '_' ("16,384"), or a decimal or scientific form whose value is whole ("1e9", "4096.0"). Spaces
// around it are ignored. Otherwise `error` says why, quoting the text.
struct WholeNumberRead {
    std::optional<int64_t> value;
    std::string error;
};
[[nodiscard]] WholeNumberRead read_whole_number(std::string_view text);

// The whole text read as a number: a decimal or scientific form ("2.5", "1e-3"), digit groups set off
// by ',' in threes or by '_' ("16,384.5"). A comma that is no group separator is refused with the hint
// that decimals take a point ("22,3"); so are hexadecimal, inf and nan. Spaces around are ignored.
struct NumberRead {
    std::optional<double> value;
    std::string error;
};
[[nodiscard]] NumberRead read_number(std::string_view text);

// What a number field holds while the person types.
using NumberText = std::array<char, 48>;

// What a whole-number field holds while the person types.
using WholeNumberText = std::array<char, 32>;

// A text field holding `text`: `current` while the person is not typing in it, what they type while
// they are. In the frame it is left after keys were typed in it (Enter, Tab or a click elsewhere; also
// when what was typed is what it showed) the text is read whole and returned; nothing otherwise. The field is the last item drawn, for the caller to note.
[[nodiscard]] std::optional<WholeNumberRead> whole_number_field(const char* id, WholeNumberText& text, int64_t current);
// The same for any number, shown as "%.6g".
[[nodiscard]] std::optional<NumberRead> number_field(const char* id, NumberText& text, double current);

}  // namespace shardscope::ui
