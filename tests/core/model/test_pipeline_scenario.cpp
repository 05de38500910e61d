// pipeline_spec_for (the cost model's spec) and activation_bytes_per_stage against numbers worked out
// by hand for a scenario whose ops carry no per-micro-batch communication (tp = cp = ep = 1, zero 0),
// and against the Report built from the same scenario.
#include "core/model/compute.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/hardware.hpp"
#include "core/model/pipeline_scenario.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

namespace {

// Two gelu layers of h = 1024 on two GPUs of one node, one layer per stage, 4 micro-batches.
Scenario tiny_two_stage() {
    Scenario s;
    s.model.layers = 2;
    s.model.hidden = 1024;
    s.model.ffn_hidden = 4096;
    s.model.heads = 8;
    s.model.kv_heads = 8;
    s.model.vocab = 32000;
    s.model.seq_len = 1024;
    s.model.ffn = Ffn::gelu;
    s.cluster.nodes = 1;
    s.cluster.gpus_per_node = 2;
    s.cluster.gpu = GpuSpec{"test", 80, 100, 1000, 0.5};  // 5e13 FLOP/s of matmuls, 1e12 B/s of HBM
    s.cluster.intra_node = LinkSpec{100, 10};
    s.parallel.pp = 2;
    s.training.global_batch = 4;
    s.training.micro_batch = 1;
    s.training.schedule = Schedule::one_f_one_b;
    s.training.attention = AttentionKernel::eager;
    return s;
}

}  // namespace

TEST_CASE("pipeline_spec_for: hand-worked op costs of a two-stage gelu model") {
    const Scenario s = tiny_two_stage();
    REQUIRE(validate_scenario(s).empty());
    const PipelineSpec spec = pipeline_spec_for(s);
    CHECK(spec.schedule == Schedule::one_f_one_b);
    CHECK(spec.stages == 2);
    CHECK(spec.microbatches == 4);  // 4 sequences / (1 per micro-batch * 1 replica)
    CHECK(spec.virtual_stages == 1);
    REQUIRE(spec.costs.size() == 2);

    // Each op is its stage's kernels for one micro-batch (priced kernel by kernel in
    // test_compute.cpp): stage 0 one block and the embedding, stage 1 one block, the LM head and loss.
    const HardwareFigures hw = paced_hardware_figures(s.cluster.gpu, s.cluster.gpu_count());
    const StageCompute first = stage_compute(s, s.parallel, hw, StageBlocks{1, 0, true, false});
    const StageCompute last = stage_compute(s, s.parallel, hw, StageBlocks{1, 0, false, true});
    CHECK(spec.costs[0].f == doctest::Approx(first.forward_s).epsilon(1e-12));
    CHECK(spec.costs[0].b == doctest::Approx(first.backward_s).epsilon(1e-12));
    CHECK(spec.costs[0].w == 0);
    // The LM head, 2 * 32,000 * 1,024 * 1,024 = 67,108,864,000 FLOPs, makes the last stage the
    // longest: more than 67.1e9 / (100e12 * ceiling 0.5) = 1,342 us on top of a block.
    CHECK(spec.costs[1].f == doctest::Approx(last.forward_s).epsilon(1e-12));
    CHECK(spec.costs[1].b == doctest::Approx(last.backward_s).epsilon(1e-12));
    CHECK(spec.costs[1].f - spec.costs[0].f > 1342e-6);
    // One activation b s h = 1,048,576 bf16 values = 2,097,152 B over 100 GB/s + 10 us = 30.97152 us.
    CHECK(spec.p2p_time == doctest::Approx(30.97152e-6).epsilon(1e-9));
}

TEST_CASE("pipeline_spec_for agrees with the Report when no op carries communication") {
    const Scenario s = tiny_two_stage();
    const PipelineSpec spec = pipeline_spec_for(s);
    const PipelineTimeline t = simulate_pipeline(spec);
    REQUIRE(t.ok());
    CHECK(check_pipeline(spec, t).empty());
    const Report r = build_report(s);
    REQUIRE(r.bubble_fraction.has_value());
    CHECK(t.bubble_fraction == doctest::Approx(*r.bubble_fraction).epsilon(1e-12));
    // The busiest stage (the last) computes m (F1 + B1), then its optimizer step.
    REQUIRE(r.time.compute.has_value());
    CHECK(*r.time.compute > 4 * (spec.costs[1].f + spec.costs[1].b));
    CHECK(*r.time.compute < 4 * (spec.costs[1].f + spec.costs[1].b) * 1.05);
}

TEST_CASE("pipeline_spec_for splits the backward in half for the zero-bubble schedules") {
    Scenario s = tiny_two_stage();
    s.training.schedule = Schedule::zb_h1;
    const PipelineSpec spec = pipeline_spec_for(s);
    REQUIRE(spec.costs.size() == 2);
    const HardwareFigures hw = paced_hardware_figures(s.cluster.gpu, s.cluster.gpu_count());
    const double b0 = stage_compute(s, s.parallel, hw, StageBlocks{1, 0, true, false}).backward_s;
    CHECK(spec.costs[0].b == doctest::Approx(b0 / 2).epsilon(1e-12));
    CHECK(spec.costs[0].w == doctest::Approx(b0 / 2).epsilon(1e-12));
}

TEST_CASE("pipeline_spec_for: a count-only model runs on unit costs") {
    Scenario s = tiny_two_stage();
    s.model = ModelSpec{};
    s.model.params = 1e9;
    const PipelineSpec spec = pipeline_spec_for(s);
    REQUIRE_FALSE(spec.costs.empty());
    for (const StageCost& c : spec.costs) {
        CHECK(c.f == 1);
        CHECK(c.b == 2);
        CHECK(c.w == 0);
    }
    CHECK(spec.p2p_time == 0);
    CHECK(activation_bytes_per_stage(s, simulate_pipeline(spec)).empty());
}

TEST_CASE("activation_bytes_per_stage: the 1F1B peak times one layer's stored activations") {
    const Scenario s = tiny_two_stage();
    const PipelineTimeline t = simulate_pipeline(pipeline_spec_for(s));
    const std::vector<double> bytes = activation_bytes_per_stage(s, t);
    REQUIRE(bytes.size() == 2);
    // 1F1B with p = 2, m = 4: stage 0 holds min(p - 0, m) = 2 micro-batches, stage 1 holds 1; each is
    // one layer of sbh(34 + 5as/h) = 1,048,576 * 74 = 77,594,624 B (eager attention: scores stored).
    CHECK(bytes[0] == doctest::Approx(2 * 77594624.0));
    CHECK(bytes[1] == doctest::Approx(77594624.0));
}

TEST_CASE("editable_stage_costs: one cost per stage, backward halved into B and W, ends as extras of a middle stage") {
    PipelineSpec spec;
    spec.stages = 4;
    // First stage carries the embedding (+1 ms forward), last the head and loss (+2 ms F, +4 ms B).
    spec.costs = {StageCost{0.011, 0.020, 0}, StageCost{0.010, 0.020, 0}, StageCost{0.010, 0.020, 0},
                  StageCost{0.012, 0.024, 0}};
    const EditableStageCosts c = editable_stage_costs(spec);
    REQUIRE(c.per_stage.size() == 4);
    CHECK(c.per_stage[0].b == doctest::Approx(0.010));
    CHECK(c.per_stage[0].w == doctest::Approx(0.010));
    CHECK(c.typical.f == doctest::Approx(0.010));
    CHECK(c.typical.b == doctest::Approx(0.010));
    // Totals (F + B): 31 ms, 30 ms (typical), 30 ms, 36 ms.
    CHECK(c.first_extra == doctest::Approx(31.0 / 30.0 - 1.0));
    CHECK(c.last_extra == doctest::Approx(36.0 / 30.0 - 1.0));

    // A zero-bubble spec already has its W: kept as it is. One shared cost is repeated per stage.
    PipelineSpec zb;
    zb.stages = 3;
    zb.costs = {StageCost{0.01, 0.012, 0.008}};
    const EditableStageCosts z = editable_stage_costs(zb);
    REQUIRE(z.per_stage.size() == 3);
    CHECK(z.per_stage[2].b == doctest::Approx(0.012));
    CHECK(z.per_stage[2].w == doctest::Approx(0.008));
    CHECK(z.first_extra == doctest::Approx(0.0));
}

TEST_CASE("the report carries the pipeline it simulated: the same spec pipeline_spec_for gives") {
    Scenario s = default_scenario();
    s.parallel.pp = 4;
    s.parallel.dp_shard = 2;
    s.parallel.dp_replicate = 4;
    s.training.schedule = Schedule::interleaved_1f1b;
    s.training.virtual_stages = 2;
    REQUIRE(validate_scenario(s).empty());
    const Report r = build_report(s);
    const PipelineSpec spec = pipeline_spec_for(s);
    CHECK(r.pipeline.schedule == spec.schedule);
    CHECK(r.pipeline.stages == 4);
    CHECK(r.pipeline.microbatches == r.microbatches);
    CHECK(r.pipeline.virtual_stages == 2);
    CHECK(r.pipeline.p2p_time == spec.p2p_time);
    REQUIRE(r.pipeline.costs.size() == spec.costs.size());
    for (std::size_t i = 0; i < spec.costs.size(); ++i) {
        CHECK(r.pipeline.costs[i].f == spec.costs[i].f);
        CHECK(r.pipeline.costs[i].b == spec.costs[i].b);
        CHECK(r.pipeline.costs[i].w == spec.costs[i].w);
    }
}
