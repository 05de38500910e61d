#include "core/model/cost_breakdown.hpp"
#include "core/model/cost_model.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace shardscope;

TEST_CASE("memory bars: one bar when pp = 1") {
    Scenario s = default_scenario();
    s.parallel.pp = 1;
    s.parallel.dp_shard = 16;  // tp 2 x dp_shard 16 x dp_replicate 2 = 64 GPUs
    const Report r = build_report(s);
    const auto bars = memory_bars(r);
    REQUIRE(bars.size() == 1);
    CHECK(bars[0].role == "every GPU");
    CHECK(bars[0].most_loaded);
    CHECK(bars[0].total_bytes == doctest::Approx(r.memory.total()));
}

TEST_CASE("memory bars: first and last stage of the default scenario (pp 2), as core reports them") {
    const Report r = build_report(default_scenario());
    const auto bars = memory_bars(r);
    REQUIRE(bars.size() == 2);
    CHECK(bars[0].role == "first");
    CHECK(bars[1].role == "last");
    CHECK(bars[0].most_loaded);  // 1F1B: stage 0 keeps 2 micro-batches in flight, stage 1 one
    CHECK_FALSE(bars[1].most_loaded);
    // Stage 0's weights by hand: 16 blocks of 218,112,000 + the embedding 128256 * 4096 = 525,336,576
    // is 4,015,128,576 params; / tp 2 = 2,007,564,288; bf16 (2 B) sharded over ZeRO-3's 8 = 501,891,072 B.
    CHECK(bars[0].bytes.params == doctest::Approx(501'891'072.0));
    CHECK(bars[0].total_bytes == doctest::Approx(r.stages[0].bytes.total()));
    CHECK(bars[1].total_bytes == doctest::Approx(r.stages[1].bytes.total()));
    // 80 GB = 80e9 B of GPU memory.
    CHECK(bars[0].fraction_of_gpu == doctest::Approx(r.stages[0].bytes.total() / r.gpu_memory_bytes));
    CHECK(bars[0].fits == (r.stages[0].bytes.total() <= 80e9));
}

TEST_CASE("memory bars: each of four stages (1F1B holds 4, 3, 2, 1 micro-batches); first, pp/2 and last of eight") {
    Scenario s = default_scenario();
    s.parallel.pp = 4;
    s.parallel.dp_shard = 4;
    const Report r = build_report(s);
    const auto bars = memory_bars(r);
    REQUIRE(bars.size() == 4);
    for (int i = 0; i < 4; ++i) CHECK(bars[static_cast<size_t>(i)].stage == i);
    CHECK(bars[0].role == "first");
    CHECK(bars[1].role == "middle");
    CHECK(bars[2].role == "middle");
    CHECK(bars[3].role == "last");
    // Stage 1 holds one micro-batch's activations more than stage 2: a kind of its own.
    CHECK(bars[1].bytes.activations > bars[2].bytes.activations);

    s.parallel.pp = 8;
    s.parallel.dp_shard = 2;
    const auto eight = memory_bars(build_report(s));
    REQUIRE(eight.size() == 3);
    CHECK(eight[0].stage == 0);
    CHECK(eight[1].stage == 4);
    CHECK(eight[1].role == "middle");
    CHECK(eight[2].stage == 7);
}

TEST_CASE("step parts: compute, each dim's exposed communication and the bubble add up to the step") {
    const Report r = build_report(default_scenario());
    const auto parts = step_parts(r);
    REQUIRE(parts.size() >= 2);
    CHECK(parts.front().name == "compute");
    CHECK(parts.front().seconds == doctest::Approx(*r.time.compute));
    double sum = 0, fractions = 0;
    for (const StepPart& p : parts) {
        sum += p.seconds;
        fractions += p.fraction;
        CHECK(p.seconds > 0);
    }
    CHECK(sum == doctest::Approx(*r.time.step));
    CHECK(fractions == doctest::Approx(1.0));
    // Default: TP is not overlapped, so it is exposed; pp sends activations between the two stages.
    bool has_tp = false;
    for (const StepPart& p : parts) has_tp = has_tp || (p.dim == "tp" && p.kind == StepPartKind::communication);
    CHECK(has_tp);
    CHECK(parts.back().name == "bubble (busiest stage idle)");
}

TEST_CASE("step parts: a hidden collective's part is the compute it slowed, and says so") {
    // FSDP over one node of 8: the gathers hide under the compute, so all that dp_shard adds to the
    // step is the slowing of the compute beside them (15.9% of their time, hardware.hpp).
    Scenario s = default_scenario();
    s.cluster.nodes = 1;
    s.parallel = ParallelSpec{};
    s.parallel.dp_shard = 8;
    s.parallel.zero = 3;
    s.training.global_batch = 8;
    REQUIRE(validate_scenario(s) == "");
    const Report r = build_report(s);
    const auto dim = std::find_if(r.dims.begin(), r.dims.end(), [](const DimCost& d) { return d.name == "dp_shard"; });
    REQUIRE(dim != r.dims.end());
    REQUIRE(dim->time_s < *r.time.compute);
    const auto parts = step_parts(r);
    const auto part = std::find_if(parts.begin(), parts.end(), [](const StepPart& p) { return p.dim == "dp_shard"; });
    REQUIRE(part != parts.end());
    CHECK(part->seconds == doctest::Approx(0.159 * dim->time_s));
    CHECK(part->contention_s == doctest::Approx(part->seconds));
}

TEST_CASE("step parts: none for a count-only model") {
    Scenario s;
    s.model = ModelSpec{};
    s.model.params = 7.5e9;
    s.parallel = ParallelSpec{};
    s.parallel.dp_replicate = 8;
    s.training.global_batch = 8;
    CHECK(step_parts(build_report(s)).empty());
    CHECK(memory_bars(build_report(s)).size() == 1);
}
