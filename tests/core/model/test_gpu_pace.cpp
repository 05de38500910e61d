// A synchronous step waits for its slowest GPU (core/model/hardware.hpp, [SPREAD]): the expected
// slowest of n cards, and what it does to a report. Blom's quantiles below are Python's
// statistics.NormalDist().inv_cdf((n - 0.375) / (n + 0.25)), an implementation independent of ours.
#include "core/model/cost_model.hpp"
#include "core/model/hardware.hpp"
#include "core/scenario/presets.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

using namespace shardscope;

TEST_CASE("the expected largest of n standard normal draws, by Blom's approximation") {
    CHECK(expected_largest_normal(1) == 0);
    CHECK(expected_largest_normal(2) == doctest::Approx(0.5894558).epsilon(1e-6));
    CHECK(expected_largest_normal(8) == doctest::Approx(1.4342002).epsilon(1e-6));
    CHECK(expected_largest_normal(1024) == doctest::Approx(3.2340677).epsilon(1e-6));
    CHECK(expected_largest_normal(16384) == doctest::Approx(3.9557567).epsilon(1e-6));
    // Against the exact expectations: 1 / sqrt(pi) = 0.5642 for two draws, 1.4236 for eight (tables
    // of normal order statistics): within 5% and 1%.
    CHECK(expected_largest_normal(2) == doctest::Approx(1.0 / std::sqrt(M_PI)).epsilon(0.05));
    CHECK(expected_largest_normal(8) == doctest::Approx(1.4236).epsilon(0.01));
}

TEST_CASE("the slowest of a job's GPUs sets its compute pace") {
    // 1,024 cards at a 1.5% spread: 1 - 0.015 x 3.2340677 = 0.9514890 of the median card's speed.
    CHECK(slowest_gpu_pace(0.015, 1024) == doctest::Approx(0.9514890).epsilon(1e-6));
    CHECK(slowest_gpu_pace(0.015, 1) == 1.0);  // one GPU waits for no other
    CHECK(slowest_gpu_pace(0.0, 1024) == 1.0);  // every card alike
    CHECK(slowest_gpu_pace(0.015, 8) == doctest::Approx(1 - 0.015 * 1.4342002).epsilon(1e-6));

    // The compute peaks follow the pace; HBM does not. The family's spread is the default, a
    // scenario's gpu.speed_spread replaces it.
    GpuSpec h100{"H100 SXM", 80, 989, 3350, std::nullopt, 1979};
    const HardwareFigures median = hardware_figures(h100);
    CHECK(median.speed_spread == kFleetSpeedSpread);
    const HardwareFigures paced = paced_hardware_figures(h100, 1024);
    CHECK(paced.peak_flops == doctest::Approx(989e12 * 0.9514890).epsilon(1e-6));
    CHECK(paced.peak_fp8_flops == doctest::Approx(1979e12 * 0.9514890).epsilon(1e-6));
    CHECK(paced.peak_fp32_flops == doctest::Approx(median.peak_fp32_flops * 0.9514890).epsilon(1e-6));
    CHECK(paced.hbm_bytes_per_s == median.hbm_bytes_per_s);
    h100.speed_spread = 0.03;
    CHECK(paced_hardware_figures(h100, 1024).peak_flops == doctest::Approx(989e12 * (1 - 0.03 * 3.2340677)).epsilon(1e-6));
}

TEST_CASE("a report's compute at the slowest card's pace, and its note says so") {
    // The default scenario (Llama 3 8B, tp 2, pp 2) on 128 nodes of 8 = 1,024 GPUs: its GEMMs and
    // attention run at 0.9514890 of the median card's speed, its memory-bound kernels at full speed, so
    // its compute time grows by less than 1 / 0.9514890 = 1.0510 but by most of it.
    Scenario s = default_scenario();
    s.cluster.nodes = 128;
    s.parallel.dp_replicate = 32;
    s.training.global_batch = 4096;
    REQUIRE(validate_scenario(s).empty());
    Scenario alike = s;
    alike.cluster.gpu.speed_spread = 0.0;
    const Report paced = build_report(s);
    const Report even = build_report(alike);
    REQUIRE(paced.time.compute.has_value());
    REQUIRE(even.time.compute.has_value());
    const double ratio = *paced.time.compute / *even.time.compute;
    CHECK(ratio > 1.03);
    CHECK(ratio < 1.0 / 0.9514890);
    const auto has_note = [](const Report& r, const std::string& text) {
        return std::any_of(r.conventions.begin(), r.conventions.end(),
                           [&](const std::string& n) { return n.find(text) != std::string::npos; });
    };
    CHECK(has_note(paced, "of 1024 cards whose speeds spread by 1.5%"));
    CHECK(has_note(paced, "the slowest keeps 95.1% of the median card's speed"));
    CHECK(has_note(even, "gpu.speed_spread 0: every card alike"));
}
