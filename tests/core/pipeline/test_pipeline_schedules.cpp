// Interleaved 1F1B, ZB-H1, ZB-H2 and DualPipe against the closed forms of their sources, with the
// dependency checker run on every timeline. Equal stage costs and no communication unless stated.
#include "core/pipeline/pipeline.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

using namespace shardscope;

namespace {

PipelineSpec make_spec(Schedule s, int p, int m, StageCost c, int v = 1) {
    PipelineSpec spec;
    spec.schedule = s;
    spec.stages = p;
    spec.microbatches = m;
    spec.virtual_stages = v;
    spec.costs = {c};
    return spec;
}

PipelineTimeline simulate_checked(const PipelineSpec& spec) {
    PipelineTimeline t = simulate_pipeline(spec);
    REQUIRE_MESSAGE(t.ok(), t.error);
    CHECK_MESSAGE(check_pipeline(spec, t).empty(), check_pipeline(spec, t));
    return t;
}

struct Shape {
    int p, m;
};

}  // namespace

TEST_CASE("interleaved 1F1B: bubble (p-1)/v of a micro-batch's work (Narayanan et al. 2021)") {
    // F = 1, B = 2 per stage, so a chunk costs 1/v and 2/v. Makespan m*3 + (p-1)*3/v.
    struct Case { int p, m, v; double makespan; };
    const Case cases[] = {
        {4, 8, 2, 24 + 4.5},     // 8*3 + 3*3/2
        {4, 16, 3, 48 + 3},      // 16*3 + 3*3/3
        {8, 16, 2, 48 + 10.5},   // 16*3 + 7*3/2
        {8, 16, 4, 48 + 5.25},   // 16*3 + 7*3/4
        {4, 4, 2, 12 + 4.5},     // m == p: Megatron runs every forward first; same bubble
        {4, 8, 1, 24 + 9},       // v = 1 is plain 1F1B: (8+3)*3
    };
    for (const Case& c : cases) {
        CAPTURE(c.p);
        CAPTURE(c.m);
        CAPTURE(c.v);
        const auto spec = make_spec(Schedule::interleaved_1f1b, c.p, c.m, {1, 2, 0}, c.v);
        const auto t = simulate_checked(spec);
        CHECK(t.makespan == doctest::Approx(c.makespan));
        CHECK(t.makespan - c.m * 3.0 ==
              doctest::Approx(closed_form_bubble_time(Schedule::interleaved_1f1b, c.p, c.v, {1, 2, 0})));
        CHECK(t.bubble_fraction ==
              doctest::Approx(closed_form_bubble_fraction(Schedule::interleaved_1f1b, c.p, c.m, c.v, {1, 2, 0})));
        // Every device runs v chunks of every micro-batch: m * v * 2 ops.
        CHECK(t.events[0].size() == static_cast<std::size_t>(c.m * c.v * 2));
    }
}

TEST_CASE("interleaved 1F1B holds more chunk activations: Megatron's warm-up 2(p-s-1) + (v-1)p, plus one") {
    const auto t = simulate_checked(make_spec(Schedule::interleaved_1f1b, 4, 8, {1, 2, 0}, 2));
    // Stage 0: 2*3 + 1*4 + 1 = 11 chunks of half a stage each = 5.5 micro-batches' worth, against
    // 1F1B's 4. Stage 3: 0 + 4 + 1 = 5 chunks = 2.5.
    const int chunks[] = {11, 9, 7, 5};
    for (int s = 0; s < 4; ++s) {
        CHECK(t.peak_inflight[static_cast<std::size_t>(s)] == chunks[s]);
        CHECK(closed_form_peak_inflight(Schedule::interleaved_1f1b, 4, 8, 2, s) == chunks[s]);
        CHECK(t.peak_activation_microbatches[static_cast<std::size_t>(s)] == doctest::Approx(chunks[s] / 2.0));
    }
    // With one chunk per device it is 1F1B, memory included: p - s.
    const auto plain = simulate_checked(make_spec(Schedule::interleaved_1f1b, 4, 8, {1, 2, 0}, 1));
    CHECK(plain.peak_inflight == std::vector<int>{4, 3, 2, 1});
    CHECK(closed_form_peak_inflight(Schedule::interleaved_1f1b, 4, 8, 1, 0) == 4);
    // Chunk c of device d is path position c*p + d: chunk 1 of stage 0 waits for chunk 0 of stage 3.
    for (const auto& e : t.events[0]) {
        if (e.kind == OpKind::forward && e.chunk == 1 && e.microbatch == 0) {
            CHECK(e.from_stage == 3);
            CHECK(e.start == doctest::Approx(2.0));  // four forwards of 0.5 along positions 0..3
        }
    }
}

TEST_CASE("ZB-H1: bubble (p-1)(F+B-W) with 1F1B's peak of p (Qi et al. 2023)") {
    const Shape shapes[] = {{4, 8}, {4, 16}, {8, 16}, {8, 32}, {2, 4}};
    const StageCost costs[] = {{1, 1, 1}, {1, 1, 0.5}, {2, 2, 1}, {1, 1.5, 1}};
    for (const Shape& sh : shapes) {
        for (const StageCost& c : costs) {
            CAPTURE(sh.p);
            CAPTURE(sh.m);
            CAPTURE(c.w);
            const auto t = simulate_checked(make_spec(Schedule::zb_h1, sh.p, sh.m, c));
            const double paper = (sh.p - 1) * (c.f + c.b - c.w);
            CHECK(closed_form_bubble_time(Schedule::zb_h1, sh.p, 1, c) == doctest::Approx(paper));
            // With W <= B and F <= F+B-W the paper's bubble is the whole step's.
            CHECK(t.makespan == doctest::Approx(sh.m * c.total() + paper));
            CHECK(t.max_stage_bubble == doctest::Approx(paper));
            for (int s = 0; s < sh.p; ++s) CHECK(t.peak_inflight[static_cast<std::size_t>(s)] == sh.p);
        }
    }
    // Hand check, p = 4, m = 8, F = B = W = 1: 8*3 + 3*(1+1-1) = 27, against 1F1B's 8*3 + 3*3 = 33.
    const auto zb = simulate_checked(make_spec(Schedule::zb_h1, 4, 8, {1, 1, 1}));
    const auto base = simulate_checked(make_spec(Schedule::one_f_one_b, 4, 8, {1, 1, 1}));
    CHECK(zb.makespan == doctest::Approx(27));
    CHECK(base.makespan == doctest::Approx(33));
    CHECK(base.peak_inflight[0] == zb.peak_inflight[0]);  // same memory on the first stage: 4
}

TEST_CASE("ZB-H2: (p-1)(F+B-2W) per stage, 2p-1 micro-batches held; the step still waits the ramp") {
    const Shape shapes[] = {{4, 8}, {4, 16}, {8, 16}, {8, 32}, {2, 4}};
    const StageCost costs[] = {{1, 1, 1}, {1, 1, 0.5}, {2, 1.5, 1}, {1, 3, 0.5}};
    for (const Shape& sh : shapes) {
        for (const StageCost& c : costs) {
            CAPTURE(sh.p);
            CAPTURE(sh.m);
            CAPTURE(c.f);
            CAPTURE(c.b);
            const auto t = simulate_checked(make_spec(Schedule::zb_h2, sh.p, sh.m, c));
            const double paper = (sh.p - 1) * (c.f + c.b - 2 * c.w);
            CHECK(t.max_stage_bubble == doctest::Approx(paper));
            // The last stage cannot start before (p-1)F, so a synchronous step pays at least that.
            const double step = (sh.p - 1) * std::max(c.f, c.f + c.b - 2 * c.w);
            CHECK(t.makespan == doctest::Approx(sh.m * c.total() + step));
            CHECK(closed_form_step_bubble_time(Schedule::zb_h2, sh.p, 1, c) == doctest::Approx(step));
            for (int s = 0; s < sh.p; ++s) {
                CHECK(t.peak_inflight[static_cast<std::size_t>(s)] == std::min(2 * sh.p - 1, sh.m));
                CHECK(closed_form_peak_inflight(Schedule::zb_h2, sh.p, sh.m, 1, s) == std::min(2 * sh.p - 1, sh.m));
            }
        }
    }
    // Hand check, p = 4, m = 8, F = B = W = 1: no stage idles between its first and last op (the
    // paper's zero bubble), but the step is 8*3 + 3*1 = 27 because stage 3 starts at t = 3.
    const auto t = simulate_checked(make_spec(Schedule::zb_h2, 4, 8, {1, 1, 1}));
    CHECK(t.max_stage_bubble == doctest::Approx(0));
    CHECK(t.makespan == doctest::Approx(27));
}

TEST_CASE("DualPipe: (p/2-1)(F&B + B - 3W) in DeepSeek-V3's notation, p+1 held, two parameter copies") {
    // DeepSeek's B is the full backward (our B+W) and F&B = F + B + W (no overlap gain modelled).
    const Shape shapes[] = {{4, 8}, {4, 16}, {8, 16}, {8, 32}, {2, 4}, {6, 12}};
    const StageCost costs[] = {{1, 1, 1}, {1, 2, 0}, {1, 1, 0.5}, {1, 3, 0.5}, {2, 2, 1}};
    for (const Shape& sh : shapes) {
        for (const StageCost& c : costs) {
            CAPTURE(sh.p);
            CAPTURE(sh.m);
            CAPTURE(c.b);
            CAPTURE(c.w);
            const auto t = simulate_checked(make_spec(Schedule::dualpipe, sh.p, sh.m, c));
            const double full_b = c.b + c.w;
            const double paper = (sh.p / 2.0 - 1) * ((c.f + full_b) + full_b - 3 * c.w);
            CHECK(closed_form_bubble_time(Schedule::dualpipe, sh.p, 1, c) == doctest::Approx(paper));
            // Each device runs m/2 micro-batches in each direction, one stage's work each: m(F+B+W).
            CHECK(t.makespan == doctest::Approx(sh.m * c.total() + paper));
            for (int s = 0; s < sh.p; ++s) {
                CHECK(t.peak_inflight[static_cast<std::size_t>(s)] == sh.p + 1);
                CHECK(closed_form_peak_inflight(Schedule::dualpipe, sh.p, sh.m, 1, s) == sh.p + 1);
            }
        }
    }
    CHECK(parameter_copies(Schedule::dualpipe) == 2);
    CHECK(parameter_copies(Schedule::one_f_one_b) == 1);
    // Hand check, p = 8, m = 16, F = B = W = 1: (4-1)(3 + 2 - 3) = 6 against ZB-H1's 7*1 = 7 and
    // 1F1B's 7*3 = 21; the step is 16*3 + 6 = 54.
    const auto t = simulate_checked(make_spec(Schedule::dualpipe, 8, 16, {1, 1, 1}));
    CHECK(t.makespan == doctest::Approx(54));
}

TEST_CASE("DualPipe feeds both ends: stage 0's second chunk holds the last stage's layers") {
    PipelineSpec spec = make_spec(Schedule::dualpipe, 4, 8, {1, 1, 1});
    spec.costs = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {2, 2, 2}};
    const auto t = simulate_checked(spec);
    CHECK(op_cost(spec, 0, 1).f == doctest::Approx(2));  // direction 1 runs stage 3's layers on device 0
    CHECK(op_cost(spec, 3, 0).f == doctest::Approx(2));
    CHECK(op_cost(spec, 3, 1).f == doctest::Approx(1));
    // Micro-batches 4..7 go the other way: their first forward runs on stage 3 with no input to wait for.
    for (const auto& e : t.events[3]) {
        if (e.kind == OpKind::forward && e.microbatch == 4) {
            CHECK(e.chunk == 1);
            CHECK(e.from_stage == -1);
        }
    }
}

TEST_CASE("micro-batches for a bubble under 5% on 8 stages, per schedule") {
    auto need = [](Schedule s, StageCost c, int v = 1) {
        return min_microbatches_for_bubble(make_spec(s, 8, 1, c, v), 0.05);
    };
    // ZB-H1, F = B = W = 1: 7/(7 + 3m) < 0.05 needs 3m > 133, m = 45.
    CHECK(need(Schedule::zb_h1, {1, 1, 1}) == 45);
    // Interleaved v = 2: 3.5/(3.5 + m) < 0.05 needs m > 66.5, and m must be a multiple of 8: 72.
    CHECK(need(Schedule::interleaved_1f1b, {1, 2, 0}, 2) == 72);
    // DualPipe, F = B = W = 1: 6/(6 + 3m) < 0.05 needs m > 38; even and >= 16: 40.
    CHECK(need(Schedule::dualpipe, {1, 1, 1}) == 40);
    // ZB-H2 pays the (p-1)F ramp in a synchronous step: 7/(7 + 3m) < 0.05, m = 45 as ZB-H1 here.
    CHECK(need(Schedule::zb_h2, {1, 1, 1}) == 45);
}

TEST_CASE("64 stages x 1,024 micro-batches: every schedule simulates and passes the checker") {
    for (Schedule s : {Schedule::gpipe, Schedule::interleaved_1f1b, Schedule::zb_h1, Schedule::zb_h2,
                       Schedule::dualpipe}) {
        CAPTURE(to_string(s));
        const auto t = simulate_checked(make_spec(s, 64, 1024, {1, 1, 1}, 2));
        // Equal costs: every device does the same work, m * v chunks of (F+B+W)/v = 1,024 * 3.
        CHECK(t.busy[0] == doctest::Approx(1024 * 3.0));
    }
}
