// Figures beside the collective animator: typed message sizes and the latency/bandwidth crossover.

#include "core/collectives/collective_figures.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

TEST_CASE("parse_byte_size reads binary and SI units") {
    CHECK(*parse_byte_size("1GiB") == doctest::Approx(1073741824.0));  // 2^30
    CHECK(*parse_byte_size("64 KiB") == doctest::Approx(65536.0));     // 64 * 1024
    CHECK(*parse_byte_size("512") == doctest::Approx(512.0));
    CHECK(*parse_byte_size("512B") == doctest::Approx(512.0));
    CHECK(*parse_byte_size("4 MB") == doctest::Approx(4e6));           // SI with a B: powers of 1000
    CHECK(*parse_byte_size("1.5G") == doctest::Approx(1610612736.0));  // 1.5 * 2^30
    CHECK(*parse_byte_size("2mi") == doctest::Approx(2097152.0));      // case-insensitive, 2 * 2^20
    CHECK_FALSE(parse_byte_size("").has_value());
    CHECK_FALSE(parse_byte_size("abc").has_value());
    CHECK_FALSE(parse_byte_size("-1 KiB").has_value());
    CHECK_FALSE(parse_byte_size("3 parsecs").has_value());
}

TEST_CASE("crossover of a ring all-reduce inside one node") {
    // N = 8, one node, 450 GB/s and 2 us. 14 steps of S/8 bytes each:
    // t(S) = 14 * 2 us + 14 * (S/8) / 450e9 = 28 us + 1.75 S / 450e9.
    // Bandwidth part = latency part when 1.75 S / 450e9 = 28e-6, i.e. S = 28e-6 * 450e9 / 1.75 = 7.2e6 B.
    StepConfig c;
    c.ranks = 8;
    c.gpus_per_node = 8;
    c.intra = Link{450e9, 2e-6};
    c.inter = Link{50e9, 5e-6};
    const SteppedCollective ring(c);
    CHECK(latency_bandwidth_crossover(ring) == doctest::Approx(7.2e6).epsilon(1e-6));
}

TEST_CASE("crossover of a ring all-reduce spanning two nodes is set by the inter-node link") {
    // N = 16 on two nodes of 8: every one of the 30 steps has a transfer crossing nodes, and the
    // inter-node term (5 us + c / 50 GB/s) beats the intra one (2 us + c / 450 GB/s) for every c.
    // t(S) = 30 * 5 us + 30 * (S/16) / 50e9 = 150 us + 1.875 S / 50e9; equal parts at
    // S = 150e-6 * 50e9 / 1.875 = 4e6 B.
    StepConfig c;
    c.ranks = 16;
    c.gpus_per_node = 8;
    c.intra = Link{450e9, 2e-6};
    c.inter = Link{50e9, 5e-6};
    const SteppedCollective ring(c);
    CHECK(latency_bandwidth_crossover(ring) == doctest::Approx(4e6).epsilon(1e-6));
}

TEST_CASE("no crossover without latency or without bandwidth cost") {
    StepConfig c;
    c.ranks = 4;
    c.gpus_per_node = 4;
    c.intra = Link{450e9, 0};  // no latency: bandwidth-bound from the first byte
    CHECK(latency_bandwidth_crossover(SteppedCollective(c)) == 0);
    c.ranks = 1;  // one rank: nothing moves
    c.gpus_per_node = 1;
    CHECK(latency_bandwidth_crossover(SteppedCollective(c)) == 0);
}

TEST_CASE("closed-form bytes per GPU agree with the stepped schedules") {
    StepConfig c;
    c.message_bytes = 256.0 * 1024 * 1024;  // S = 256 MiB
    c.intra = Link{450e9, 2e-6};
    c.inter = Link{50e9, 5e-6};
    c.ranks = 16;
    c.gpus_per_node = 4;

    // Hierarchical, m = 4 nodes of g = 4: 2(3/4) S + 2(3/4) S/4 = 384 MiB + 96 MiB = 480 MiB.
    c.algorithm = StepAlgorithm::hierarchical;
    REQUIRE(closed_form_bytes_per_rank(c).has_value());
    CHECK(*closed_form_bytes_per_rank(c) == doctest::Approx(480.0 * 1024 * 1024));
    for (double sent : SteppedCollective(c).total_bytes_sent()) CHECK(sent == doctest::Approx(480.0 * 1024 * 1024));

    // Ring all-reduce on 16: 2(15/16) S = 480 MiB as well (the same bytes, more of them inter-node).
    c.algorithm = StepAlgorithm::ring;
    CHECK(*closed_form_bytes_per_rank(c) == doctest::Approx(480.0 * 1024 * 1024));
    for (double sent : SteppedCollective(c).total_bytes_sent()) CHECK(sent == doctest::Approx(480.0 * 1024 * 1024));

    // Pairwise all-to-all: (15/16) S = 240 MiB.
    c.collective = Collective::all_to_all;
    c.algorithm = StepAlgorithm::pairwise;
    CHECK(*closed_form_bytes_per_rank(c) == doctest::Approx(240.0 * 1024 * 1024));

    // Trees: none.
    c.collective = Collective::broadcast;
    c.algorithm = StepAlgorithm::tree;
    CHECK_FALSE(closed_form_bytes_per_rank(c).has_value());
}
