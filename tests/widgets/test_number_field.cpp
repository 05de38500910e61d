// A whole number typed as text (widgets/kit/number_field.hpp): read whole, or refused by name. ImGui's
// own integer field turned "1e9" into 19 and "99999999999999999999" into 9223372036854775807.
#include "imgui_fixture.hpp"
#include "widgets/kit/number_field.hpp"
#include "widgets/kit/item_rects.hpp"

#include <doctest/doctest.h>

#include <optional>

using namespace shardscope::ui;

TEST_CASE("a typed whole number: digits, groups, or a whole decimal or scientific form") {
    CHECK(read_whole_number("8192").value == 8192);
    CHECK(read_whole_number("  4096 ").value == 4096);
    CHECK(read_whole_number("-5").value == -5);  // core's validation says why a negative is wrong
    CHECK(read_whole_number("+12").value == 12);
    CHECK(read_whole_number("16,384").value == 16384);
    CHECK(read_whole_number("1_000_000").value == 1000000);
    CHECK(read_whole_number("1e9").value == 1000000000);
    CHECK(read_whole_number("4096.0").value == 4096);
    CHECK(read_whole_number("2.5e3").value == 2500);
    CHECK(read_whole_number("9223372036854775807").value == INT64_MAX);
}

TEST_CASE("text that is no whole number is refused, quoting it") {
    CHECK_FALSE(read_whole_number("8k").value);
    CHECK(read_whole_number("8k").error == "'8k' is not a whole number");
    CHECK(read_whole_number("2.5").error == "'2.5' is not a whole number");
    CHECK(read_whole_number("1,,000").error == "'1,,000' is not a whole number");
    CHECK(read_whole_number(",5").error == "',5' is not a whole number");
    // A comma only sets off thousands, as in a decimal field: "1,5" is no 15.
    CHECK(read_whole_number("1,5").error == "'1,5' is not a whole number");
    CHECK(read_whole_number("1,2345").error == "'1,2345' is not a whole number");
    CHECK(read_whole_number("0x10").error == "'0x10' is not a whole number");
    CHECK(read_whole_number("inf").error == "'inf' is not a whole number");
    CHECK(read_whole_number("nan").error == "'nan' is not a whole number");
    CHECK(read_whole_number("-").error == "'-' is not a whole number");
    CHECK(read_whole_number("").error == "nothing typed: a whole number is needed");
    CHECK(read_whole_number("99999999999999999999").error == "'99999999999999999999' is too large a number");
    CHECK(read_whole_number("1e300").error == "'1e300' is too large a number");
}

TEST_CASE("a typed number: decimals with a point, thousands with commas, scientific forms") {
    CHECK(read_number("2.5").value == 2.5);
    CHECK(read_number(" 80 ").value == 80);
    CHECK(read_number("1e-3").value == doctest::Approx(1e-3));
    CHECK(read_number("16,384.5").value == 16384.5);
    CHECK(read_number("1,000,000").value == 1e6);
    CHECK(read_number("1_000").value == 1000);
    CHECK(read_number("-0.5").value == -0.5);  // core's validation says why a negative is wrong
}

TEST_CASE("text that is no number is refused, a decimal comma with the hint to use a point") {
    CHECK(read_number("22,3").error == "'22,3' is not a number (decimals take a point: 1.5)");
    CHECK(read_number("1,5").error == "'1,5' is not a number (decimals take a point: 1.5)");
    CHECK(read_number("1,2345").error == "'1,2345' is not a number (decimals take a point: 1.5)");
    CHECK(read_number("8k").error == "'8k' is not a number");
    CHECK(read_number("2.5.3").error == "'2.5.3' is not a number");
    CHECK(read_number("0x10").error == "'0x10' is not a number");
    CHECK(read_number("inf").error == "'inf' is not a number");
    CHECK(read_number("nan").error == "'nan' is not a number");
    CHECK(read_number("1e999").error == "'1e999' is too large a number");
    CHECK(read_number("").error == "nothing typed: a number is needed");
}

namespace {

// A whole-number field showing 80 in a window, noted as "field"; what it returned when left.
struct FieldShowing80 {
    shardscope::test::ImGuiFixture ui;
    WholeNumberText text{};
    std::optional<WholeNumberRead> read;
    void draw() { ui.frame(drawer()); }
    std::function<void()> drawer() {
        return [this] {
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(ImVec2(400, 200));
            ImGui::Begin("number field test");
            if (std::optional<WholeNumberRead> r = whole_number_field("##v", text, 80)) read = r;
            note_last_item("field");
            ImGui::End();
        };
    }
};

}  // namespace

TEST_CASE("a field typed over with what it showed, all within one slow frame, is read when left") {
    // A refusal shown for an earlier entry clears only when the field hands back what was typed; ImGui
    // calls the field edited only when a frame ends with other text, and "80" over "80" in one frame
    // does not.
    FieldShowing80 f;
    f.draw();
    f.draw();
    REQUIRE(f.ui.click_item("field", f.drawer()));
    f.ui.press_key(ImGuiKey_A, true, false, f.drawer());
    ImGuiIO& io = ImGui::GetIO();
    io.AddInputCharacter('8');
    io.AddInputCharacter('0');
    io.KeysDown[ImGuiKey_Enter] = true;
    f.ui.frame(f.drawer());
    io.KeysDown[ImGuiKey_Enter] = false;
    f.ui.frames(2, f.drawer());
    REQUIRE(f.read);
    CHECK(f.read->value == 80);
}

TEST_CASE("a field clicked into and left without a key typed hands back nothing") {
    FieldShowing80 f;
    f.draw();
    f.draw();
    REQUIRE(f.ui.click_item("field", f.drawer()));
    f.ui.click(350, 150, f.drawer());  // elsewhere in the window
    f.ui.frames(2, f.drawer());
    CHECK_FALSE(f.read);
}
