// A whole number typed as text (widgets/kit/number_field.hpp): read whole, or refused by name. ImGui's
// own integer field turned "1e9" into 19 and "99999999999999999999" into 9223372036854775807.
#include "widgets/kit/number_field.hpp"

#include <doctest/doctest.h>

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
    CHECK(read_whole_number("0x10").error == "'0x10' is not a whole number");
    CHECK(read_whole_number("inf").error == "'inf' is not a whole number");
    CHECK(read_whole_number("nan").error == "'nan' is not a whole number");
    CHECK(read_whole_number("-").error == "'-' is not a whole number");
    CHECK(read_whole_number("").error == "nothing typed: a whole number is needed");
    CHECK(read_whole_number("99999999999999999999").error == "'99999999999999999999' is too large a number");
    CHECK(read_whole_number("1e300").error == "'1e300' is too large a number");
}
