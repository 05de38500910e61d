// The compiled pipeline program: one compile, many timings, each equal to simulating that spec; and the
// cost model's memo, which times through programs, equal to reports built without it.
#include "core/model/cost_model.hpp"
#include "core/pipeline/pipeline.hpp"
#include "core/pipeline/pipeline_program.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

namespace {

PipelineSpec spec_of(Schedule s, int p, int m, int v, std::vector<StageCost> costs, double p2p) {
    PipelineSpec spec;
    spec.schedule = s;
    spec.stages = p;
    spec.microbatches = m;
    spec.virtual_stages = v;
    spec.costs = std::move(costs);
    spec.p2p_time = p2p;
    return spec;
}

// Three cost sets for one shape: uniform, a heavier last stage, and a lighter first one with p2p.
std::vector<std::vector<StageCost>> cost_sets(int p, bool split) {
    const double w = split ? 0.5 : 0.0;
    std::vector<StageCost> uniform(static_cast<std::size_t>(p), StageCost{1, 2, w});
    std::vector<StageCost> heavy_last = uniform;
    heavy_last.back() = StageCost{1.5, 3.25, w};
    std::vector<StageCost> light_first = uniform;
    light_first.front() = StageCost{0.75, 1.25, w / 2};
    return {uniform, heavy_last, light_first};
}

// Llama 3 70B's shape with tp 8 and pp stages filling `nodes` nodes of 8 GPUs, ZeRO 0.
Scenario llama_tp8(int64_t nodes, int64_t pp, int64_t global_batch) {
    Scenario s = test::llama70b_ddp(nodes);
    s.parallel.tp = 8;
    s.parallel.pp = pp;
    s.parallel.dp_replicate = nodes / pp;
    s.parallel.zero = 0;
    s.training.global_batch = global_batch;
    return s;
}

}  // namespace

TEST_CASE("program: 1F1B on 2 stages, 2 micro-batches, F 1, B 2, p2p 0.5, timed by hand") {
    // Stage 0 runs F0 F1 B0 B1, stage 1 F0 B0 F1 B1 (its backward follows each forward at once).
    // S0 F0 [0,1]; S1 F0 waits 1 + 0.5: [1.5,2.5]; S1 B0 (the loss is local) [2.5,4.5]; S0 F1 [1,2];
    // S1 F1 waits for its B0: [4.5,5.5]; S0 B0 waits 4.5 + 0.5: [5,7]; S1 B1 [5.5,7.5];
    // S0 B1 waits 7.5 + 0.5: [8,10]. Makespan 10, each stage busy 6: bubble (4 + 4) / (2 x 10) = 0.4.
    const PipelineSpec spec = spec_of(Schedule::one_f_one_b, 2, 2, 1, {{1, 2, 0}}, 0.5);
    const PipelineProgram program = PipelineProgram::compile(spec);
    REQUIRE(program.ok());
    CHECK(program.op_count() == 8);
    std::vector<std::vector<PipelineEvent>> events;
    const PipelineProgram::Timing t = program.time(spec, &events);
    CHECK(t.makespan == 10.0);
    CHECK(t.busy == std::vector<double>{6.0, 6.0});
    CHECK(t.bubble_fraction == 0.4);
    CHECK(program.peak_inflight() == std::vector<int>{2, 1});
    REQUIRE(events.size() == 2);
    CHECK(events[0].back().start == 8.0);
    CHECK(events[0].back().from_stage == 1);
    CHECK(events[0].back().input_ready == 8.0);
    CHECK(events[1][2].start == 4.5);  // stage 1's F1 waits for its own B0, not for the input at 2.5
    CHECK(events[1][2].input_ready == 2.5);
}

TEST_CASE("program: one compile timed with other costs equals simulating each spec afresh") {
    struct Shape { Schedule s; int p, m, v; };
    const Shape shapes[] = {{Schedule::gpipe, 4, 8, 1},      {Schedule::one_f_one_b, 4, 8, 1},
                            {Schedule::interleaved_1f1b, 4, 8, 3}, {Schedule::zb_h1, 4, 8, 1},
                            {Schedule::zb_h2, 6, 12, 1},     {Schedule::dualpipe, 4, 8, 1}};
    for (const Shape& sh : shapes) {
        const bool split = sh.s == Schedule::zb_h1 || sh.s == Schedule::zb_h2 || sh.s == Schedule::dualpipe;
        const PipelineProgram program =
            PipelineProgram::compile(spec_of(sh.s, sh.p, sh.m, sh.v, {}, 0));  // compiled with unit costs
        REQUIRE(program.ok());
        double p2p = 0;
        for (const std::vector<StageCost>& costs : cost_sets(sh.p, split)) {
            const PipelineSpec spec = spec_of(sh.s, sh.p, sh.m, sh.v, costs, p2p);
            p2p += 0.125;
            CAPTURE(to_string(sh.s));
            CAPTURE(p2p);
            const PipelineTimeline fresh = simulate_pipeline(spec);
            REQUIRE(fresh.ok());
            CHECK(check_pipeline(spec, fresh).empty());
            std::vector<std::vector<PipelineEvent>> events;
            const PipelineProgram::Timing t = program.time(spec, &events);
            CHECK(t.makespan == fresh.makespan);
            CHECK(t.busy == fresh.busy);
            CHECK(t.bubble_fraction == fresh.bubble_fraction);
            CHECK(t.max_stage_bubble == fresh.max_stage_bubble);
            CHECK(program.peak_inflight() == fresh.peak_inflight);
            REQUIRE(events.size() == fresh.events.size());
            for (std::size_t s = 0; s < events.size(); ++s) {
                REQUIRE(events[s].size() == fresh.events[s].size());
                for (std::size_t i = 0; i < events[s].size(); ++i) {
                    CHECK(events[s][i].start == fresh.events[s][i].start);
                    CHECK(events[s][i].end == fresh.events[s][i].end);
                }
            }
        }
    }
}

TEST_CASE("program: the memo's reports equal reports built without it, over every schedule") {
    // Llama 3 70B on 64 GPUs with tp 8, pp 4 (20 blocks a stage; the first holds the embedding, the
    // last the output layer): each schedule twice through one memo, so the second is a memo hit.
    Scenario s = llama_tp8(8, 4, 32);
    const ParamCounts counts = count_params(s.model);
    PipelineMemo memo;
    const std::pair<Schedule, int64_t> schedules[] = {{Schedule::gpipe, 1}, {Schedule::one_f_one_b, 1},
                                                      {Schedule::interleaved_1f1b, 5}, {Schedule::zb_h1, 1},
                                                      {Schedule::zb_h2, 1}, {Schedule::dualpipe, 1}};
    for (int round = 0; round < 2; ++round)
        for (const auto& [schedule, v] : schedules) {
            s.training.schedule = schedule;
            s.training.virtual_stages = v;
            CAPTURE(to_string(schedule));
            const Report plain = build_report(s);
            const Report memoised = build_report(s, counts, DeviceMesh::build(s.cluster, s.parallel), &memo);
            REQUIRE(plain.time.step.has_value());
            CHECK(*memoised.time.step == *plain.time.step);
            CHECK(*memoised.time.bubble == *plain.time.bubble);
            CHECK(*memoised.bubble_fraction == *plain.bubble_fraction);
            CHECK(memoised.memory.total() == plain.memory.total());
            CHECK(memoised.notes == plain.notes);
        }
    CHECK(memo.hits() == 12);  // the second round found all 12 simulations (each with and without p2p)
}

TEST_CASE("program: stages priced once per load still get their own costs (405B on 16 stages)") {
    // 126 blocks on 16 stages: 7 on the first and the last, 8 on the rest (params.hpp). The first also
    // holds the embedding (no matmul FLOPs), the last the output layer (2 x vocab x hidden per token).
    Scenario s = llama_tp8(16, 16, 16);
    s.model.layers = 126;
    s.model.hidden = 16384;
    s.model.ffn_hidden = 53248;
    s.model.heads = 128;
    const PipelineSpec spec = scenario_pipeline_spec(s);
    REQUIRE(spec.costs.size() == 16);
    for (std::size_t i = 2; i < 15; ++i) CHECK(spec.costs[i].f == spec.costs[1].f);
    // 7 blocks against 8: the first stage's forward is 7/8 of a middle one's plus its embedding
    // lookup (a gather of 8192 x 16384 bf16 values, a fraction of a block).
    CHECK(spec.costs[0].f > spec.costs[1].f * 7.0 / 8.0);
    CHECK(spec.costs[0].f == doctest::Approx(spec.costs[1].f * 7.0 / 8.0).epsilon(0.01));
    CHECK(spec.costs[15].f > spec.costs[0].f);  // same 7 blocks plus the output layer
}

TEST_CASE("program: every schedule's peak in-flight count equals its closed form (p 1-16, m 1-48, v 1-4)") {
    // The planner floors memory with the closed forms (pipeline.hpp) instead of compiling each order,
    // which is only safe while the two agree exactly; and it reads only the first stage of a run of
    // identical stages, which is only safe while no stage holds more than the one before it.
    const Schedule schedules[] = {Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved_1f1b,
                                  Schedule::zb_h1, Schedule::zb_h2, Schedule::dualpipe};
    int compared = 0;
    for (Schedule sc : schedules)
        for (int p = 1; p <= 16; ++p)
            for (int m = 1; m <= 48; ++m)
                for (int v = 1; v <= (sc == Schedule::interleaved_1f1b ? 4 : 1); ++v) {
                    const PipelineSpec spec = spec_of(sc, p, m, v, {}, 0);
                    if (!pipeline_spec_error(spec).empty()) continue;
                    const PipelineProgram program = PipelineProgram::compile(spec);
                    REQUIRE(program.ok());
                    for (int s = 1; s < p; ++s)
                        CHECK(program.peak_inflight()[static_cast<std::size_t>(s)] <=
                              program.peak_inflight()[static_cast<std::size_t>(s - 1)]);
                    for (int s = 0; s < p; ++s) {
                        if (closed_form_peak_inflight(sc, p, m, v, s) == program.peak_inflight()[static_cast<std::size_t>(s)]) {
                            ++compared;
                            continue;
                        }
                        FAIL_CHECK(to_string(sc) << " p " << p << " m " << m << " v " << v << " stage " << s);
                    }
                }
    CHECK(compared == 30000);  // every stage of every valid spec in the sweep: a shrunken sweep shows here
}
