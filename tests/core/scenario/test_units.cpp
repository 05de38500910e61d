#include "core/scenario/units.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

TEST_CASE("bytes read in binary units with three significant figures") {
    CHECK(format_bytes(80e9) == "74.5 GiB");          // 80e9 / 2^30 = 74.505
    CHECK(format_bytes(1.5 * 1024 * 1024 * 1024) == "1.50 GiB");
    CHECK(format_bytes(512.0 * 1024 * 1024) == "512 MiB");
    CHECK(format_bytes(12) == "12.0 B");
}

TEST_CASE("times pick s, ms or us") {
    CHECK(format_seconds(1.25) == "1.25 s");
    CHECK(format_seconds(0.0034) == "3.40 ms");
    CHECK(format_seconds(12e-6) == "12.0 us");
    CHECK(format_seconds(0) == "0 s");
    // Below a nanosecond is rounding residue, not a time.
    CHECK(format_seconds(3e-12) == "0 s");
    CHECK(format_seconds(-1e-15) == "0 s");
    CHECK(format_seconds(2e-9) == "2.00 ns");
    // Past 999 s, minutes, then hours, then days: 3,576,175 s is 41.4 days.
    CHECK(format_seconds(999) == "999 s");
    CHECK(format_seconds(1500) == "25.0 min");
    CHECK(format_seconds(7200) == "2.00 h");
    CHECK(format_seconds(3576175) == "41.4 days");
}

TEST_CASE("rates, counts and percentages") {
    CHECK(format_flops_rate(989e12) == "989 TFLOP/s");
    CHECK(format_bandwidth(450e9) == "450 GB/s");
    CHECK(format_count(405e9) == "405B");
    CHECK(format_count(16384) == "16.4k");
    CHECK(format_count(8) == "8");
    CHECK(format_percent(0.412) == "41.2%");
}

TEST_CASE("format_memory: always GiB, three significant figures, no exponent") {
    const double gib = 1024.0 * 1024 * 1024;
    CHECK(format_memory(0) == "0 GiB");
    CHECK(format_memory(12.34 * gib) == "12.3 GiB");
    CHECK(format_memory(517.0 * 1024 * 1024) == "0.505 GiB");  // 517 MiB / 1024
    CHECK(format_memory(1.5 * gib) == "1.50 GiB");
    CHECK(format_memory(79.6484375 * gib) == "79.6 GiB");     // an H100's 81,559 MiB
    CHECK(format_memory(230.4 * gib) == "230 GiB");
    CHECK(format_memory(1230.0 * gib) == "1,230 GiB");
    CHECK(format_memory(1000.0) == "< 0.001 GiB");
    CHECK(format_memory(-2.5 * gib) == "-2.50 GiB");
}

TEST_CASE("format_percent_or_na: a share the report does not give reads n/a, never 0.0%") {
    CHECK(format_percent_or_na(0.412, true) == "41.2%");
    CHECK(format_percent_or_na(0.0, false) == "n/a");
}
