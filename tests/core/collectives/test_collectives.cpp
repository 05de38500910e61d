#include "core/collectives/collectives.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

TEST_CASE("ring all-reduce: 2(N-1) latency terms and 2(N-1)/N of the message per rank") {
    // 8 ranks, 1 GB, 100 GB/s, 10 us: 14 * 10us + 1.75 GB / 100 GB/s = 140 us + 17.5 ms.
    const Link link{100e9, 10e-6};
    CHECK(bytes_sent_per_rank(Collective::all_reduce, 1e9, 8) == doctest::Approx(1.75e9));
    CHECK(collective_time(Collective::all_reduce, 1e9, 8, link) == doctest::Approx(0.01764));
}

TEST_CASE("all-gather and reduce-scatter cost half an all-reduce in bandwidth") {
    const Link link{100e9, 0};
    CHECK(collective_time(Collective::all_gather, 1e9, 4, link) == doctest::Approx(0.0075));
    CHECK(collective_time(Collective::reduce_scatter, 1e9, 4, link) == doctest::Approx(0.0075));
    CHECK(collective_time(Collective::all_reduce, 1e9, 4, link) == doctest::Approx(0.015));
}

TEST_CASE("point-to-point is one latency plus S/B; a one-rank group is free") {
    const Link link{50e9, 5e-6};
    CHECK(collective_time(Collective::p2p, 50e6, 2, link) == doctest::Approx(0.001005));
    CHECK(collective_time(Collective::all_reduce, 1e9, 1, link) == 0.0);
}

TEST_CASE("nccl-tests bus bandwidth factors") {
    CHECK(busbw_factor(Collective::all_reduce, 8) == doctest::Approx(1.75));
    CHECK(busbw_factor(Collective::all_gather, 8) == doctest::Approx(0.875));
    CHECK(busbw_factor(Collective::reduce_scatter, 4) == doctest::Approx(0.75));
    CHECK(busbw_factor(Collective::all_to_all, 2) == doctest::Approx(0.5));
    CHECK(busbw_factor(Collective::broadcast, 8) == 1.0);
    // 1 GB all-reduced in 10 ms on 8 ranks: algbw 100 GB/s, busbw 175 GB/s.
    CHECK(busbw(Collective::all_reduce, 1e9, 0.01, 8) == doctest::Approx(175e9));
}
