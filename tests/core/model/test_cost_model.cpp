#include "core/model/compute.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/hardware.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

namespace {

// The hand-countable tiny model (3400 params, tests/common/scenarios.hpp) on one GPU of round figures:
// 1e6 FLOP/s peak at 50% efficiency, 1e4 B/s of HBM.
Scenario tiny() {
    Scenario s = test::tiny_gelu();
    s.cluster.gpu = GpuSpec{"toy", 80, 1e-6, 1e-5, 0.5};
    return s;
}

const DimCost& dim(const Report& r, const std::string& name) {
    for (const DimCost& d : r.dims)
        if (d.name == name) return d;
    FAIL("no dim " << name);
    return r.dims.front();
}

}  // namespace

TEST_CASE("compute time on one GPU: every micro-batch's kernels, then the optimizer step") {
    const Scenario s = tiny();
    const Report r = build_report(s);
    // m = 4 / (1 * 1 * 1) = 4 micro-batches.
    CHECK(r.microbatches == 4);
    // One GPU holds all 4 blocks, the embedding and the output layer (kernel by kernel in
    // test_compute.cpp); the optimizer then streams Adam's state for all 3400 parameters once.
    const HardwareFigures hw = paced_hardware_figures(s.cluster.gpu, s.cluster.gpu_count());
    const StageCompute c = stage_compute(s, s.parallel, hw, StageBlocks{4, 0, true, true});
    const double optimizer = optimizer_step_seconds(hw, 3400, Precision::mixed_bf16);
    CHECK(optimizer == doctest::Approx(3400.0 * 30 / (1e4 * 0.89)));
    REQUIRE(r.time.compute.has_value());
    CHECK(*r.time.compute == doctest::Approx(4 * (c.forward_s + c.backward_s) + optimizer));
    // Nothing to communicate, no pipeline: the step is the compute.
    CHECK(*r.time.step == doctest::Approx(*r.time.compute));
    CHECK(*r.time.exposed_comm == doctest::Approx(0));
    CHECK(*r.time.bubble == doctest::Approx(0).epsilon(1e-9));
    // MFU = 350976 model FLOPs / (step * 1 GPU * 1e6 FLOP/s); 16 tokens a step.
    CHECK(*r.throughput.mfu == doctest::Approx(350976.0 / (*r.time.step * 1e6)));
    CHECK(*r.throughput.tokens_per_s == doctest::Approx(16.0 / *r.time.step));
}

TEST_CASE("DDP all-reduces the gradients across nodes over the inter-node link") {
    Scenario s = tiny();
    s.cluster.nodes = 2;
    s.parallel.dp_replicate = 2;
    s.cluster.inter_node = LinkSpec{50, 5};
    const Report r = build_report(s);
    const DimCost& dp = dim(r, "dp_replicate");
    CHECK(dp.link == "inter");
    CHECK(dp.groups == 1);
    CHECK(dp.collective == "all-reduce");
    // 3400 params * 2 B = 6800 B of gradients; ring all-reduce on 2 ranks sends 2(N-1)/N * S = 6800 B
    // and costs 2(N-1) alpha + 6800 / 50e9 = 10 us + 0.136 us.
    CHECK(dp.bytes_per_step == doctest::Approx(6800));
    CHECK(dp.time_s == doctest::Approx(10.136e-6));
    // It hides under the last micro-batch's backward (about 1.4 s here): nothing exposed.
    CHECK(dp.exposed_s == doctest::Approx(0));
}

TEST_CASE("TP all-reduces two activations per block forward and two backward, exposed") {
    Scenario s = tiny();
    s.cluster.gpus_per_node = 2;
    s.parallel.tp = 2;
    s.cluster.intra_node = LinkSpec{450, 2};
    const Report r = build_report(s);
    const DimCost& tp = dim(r, "tp");
    CHECK(tp.link == "intra");
    // Activation b*s*h*2 B = 64 B; one all-reduce on 2 ranks: 2 alpha + 64 / 450e9 s, sends 64 B.
    // 4 blocks * (2 + 2) all-reduces * 4 micro-batches = 64 per step.
    const double one = 4e-6 + 64.0 / 450e9;
    CHECK(tp.bytes_per_step == doctest::Approx(64 * 64));
    CHECK(tp.time_s == doctest::Approx(64 * one));
    CHECK(tp.exposed_s == doctest::Approx(64 * one));
    // A full recompute re-runs the forward and its two all-reduces per block: 6 per block.
    s.training.recompute = Recompute::full;
    CHECK(dim(build_report(s), "tp").time_s == doctest::Approx(96 * one));
}

TEST_CASE("FSDP moves 3x the parameter bytes per micro-batch: all-gather twice, reduce-scatter once") {
    Scenario s = tiny();
    s.cluster.gpus_per_node = 4;
    s.parallel.dp_shard = 4;
    s.parallel.zero = 3;
    s.training.global_batch = 4;  // m = 4 / (1 * 4) = 1
    const Report r = build_report(s);
    const DimCost& d = dim(r, "dp_shard");
    // 3400 params * (2 + 2 + 2) B = 20400 B, of which each rank sends (N-1)/N = 3/4: 15300 B.
    CHECK(r.microbatches == 1);
    CHECK(d.bytes_per_step == doctest::Approx(15300));
}

TEST_CASE("a model given as a parameter count has memory but null FLOPs and times, with a note") {
    Scenario s = tiny();
    s.model = ModelSpec{};
    s.model.params = 1e9;
    const Report r = build_report(s);
    CHECK(r.memory.params == doctest::Approx(2e9));  // 2 B per parameter, mixed-bf16
    CHECK_FALSE(r.memory.activations.has_value());
    CHECK_FALSE(r.model_flops_per_step.has_value());
    CHECK_FALSE(r.time.step.has_value());
    CHECK_FALSE(r.throughput.mfu.has_value());
    bool noted = false;
    for (const auto& n : r.notes) noted = noted || n.find("parameter count") != std::string::npos;
    CHECK(noted);
}

TEST_CASE("pipeline: the report's bubble comes from the simulated schedule") {
    Scenario s = tiny();
    s.cluster.gpus_per_node = 4;
    s.parallel.pp = 4;
    s.training.global_batch = 8;
    const Report r = build_report(s);
    CHECK(r.microbatches == 8);
    REQUIRE(r.bubble_fraction.has_value());
    // 1F1B with unequal stages (the last also runs the output layer) idles at least the equal-cost
    // (p-1)/(m+p-1) = 3/11, and the step is compute + exposed communication + that idle time.
    CHECK(*r.bubble_fraction >= 3.0 / 11.0 - 1e-9);
    CHECK(*r.time.step == doctest::Approx(*r.time.compute + *r.time.exposed_comm + *r.time.bubble));
    CHECK(r.stages.size() == 4);
    // Stage 0 holds 4 micro-batches in flight, stage 3 one: stage 0 is the most loaded.
    CHECK(r.most_loaded_stage == 0);
}

TEST_CASE("scenario_pipeline_spec: the op costs build_report simulates") {
    Scenario s = tiny();
    s.cluster.gpus_per_node = 2;
    s.cluster.intra_node = LinkSpec{450, 2};
    s.parallel.pp = 2;
    const PipelineSpec spec = scenario_pipeline_spec(s);
    CHECK(spec.stages == 2);
    CHECK(spec.microbatches == 4);
    REQUIRE(spec.costs.size() == 2);
    // Stage 0 holds 2 blocks and the embedding, stage 1 2 blocks and the output layer: each op is
    // that stage's kernels for one micro-batch (nothing exposed to add on one node with no TP).
    const HardwareFigures hw = paced_hardware_figures(s.cluster.gpu, s.cluster.gpu_count());
    const StageCompute first = stage_compute(s, s.parallel, hw, StageBlocks{2, 0, true, false});
    const StageCompute last = stage_compute(s, s.parallel, hw, StageBlocks{2, 0, false, true});
    CHECK(spec.costs[0].f == doctest::Approx(first.forward_s));
    CHECK(spec.costs[0].b == doctest::Approx(first.backward_s));
    CHECK(spec.costs[0].w == 0);
    CHECK(spec.costs[1].f == doctest::Approx(last.forward_s));
    CHECK(spec.costs[1].f > spec.costs[0].f);  // the LM head and the loss
    // One activation, b*s*h*2 B = 64 B, point-to-point inside the node: 2 us + 64 B / 450 GB/s.
    CHECK(spec.p2p_time == doctest::Approx(2e-6 + 64.0 / 450e9));
    // The report's bubble is this spec's simulated bubble.
    const PipelineTimeline t = simulate_pipeline(spec);
    const Report r = build_report(s);
    CHECK(t.bubble_fraction == doctest::Approx(*r.bubble_fraction));
}

TEST_CASE("CP passes K and V around the ring: an all-gather forward, all-gather + reduce-scatter backward") {
    Scenario s = tiny();
    s.cluster.gpus_per_node = 2;
    s.cluster.intra_node = LinkSpec{450, 2};
    s.parallel.cp = 2;
    const Report r = build_report(s);
    const DimCost& cp = dim(r, "cp");
    CHECK(cp.link == "intra");
    // K and V of the whole sequence: 2 * b*s * kv_heads*head_dim * 2 B = 2 * 4 * 8 * 2 = 128 B; each op
    // on 2 ranks sends half (64 B) for alpha + 64 B / 450 GB/s. 3 ops per block, 4 blocks, m = 4.
    // The CP ranks also all-reduce their gradients once a step (3400 params x 2 B = 6800 B; over 2
    // ranks each sends 2 x 1/2 x 6800 B, in 2 x alpha + 6800 B / 450 GB/s): dp_replicate has one rank,
    // so the reduction shows on cp.
    CHECK(r.microbatches == 4);
    CHECK(cp.bytes_per_step == doctest::Approx(48 * 64 + 6800));
    CHECK(cp.time_s == doctest::Approx(48 * (2e-6 + 64.0 / 450e9) + 2 * 2e-6 + 6800.0 / 450e9).scale(0));
    CHECK(dim(r, "dp_replicate").bytes_per_step == 0);
    // The ring hides under the attention it feeds: far less than its time is exposed here.
    CHECK(cp.exposed_s < cp.time_s);

    // All-gather CP (Llama 3) moves the same bytes, all of it on the critical path, and none of it
    // slows compute beside it. Nothing else changes, so the step grows by exactly what the ring hid
    // (one stage: no pipeline to magnify it).
    Scenario gathered = s;
    gathered.parallel.cp_comm = CpComm::all_gather;
    const Report g = build_report(gathered);
    const DimCost& gcp = dim(g, "cp");
    CHECK(gcp.bytes_per_step == doctest::Approx(cp.bytes_per_step));
    CHECK(gcp.time_s == doctest::Approx(cp.time_s));
    CHECK(gcp.exposed_s == doctest::Approx(gcp.time_s));
    // Only the gradient reduction slows compute beside it now, not the K and V.
    CHECK(gcp.contention_s < cp.contention_s);
    CHECK(gcp.collective.find("all-gather of K,V") == 0);
    CHECK(*g.time.step - *r.time.step == doctest::Approx(gcp.exposed_s - cp.exposed_s));
}

TEST_CASE("cp_comm loads, saves only when not the ring, and names its values when wrong") {
    Scenario s = tiny();
    s.parallel.cp_comm = CpComm::all_gather;
    const std::string text = scenario_to_json(s);
    CHECK(text.find("\"cp_comm\": \"all-gather\"") != std::string::npos);
    const ScenarioLoad back = parse_scenario(text);
    REQUIRE(back.ok());
    CHECK(back.scenario->parallel.cp_comm == CpComm::all_gather);
    CHECK(scenario_to_json(tiny()).find("cp_comm") == std::string::npos);
    std::string bad = text;
    bad.replace(bad.find("\"all-gather\""), 12, "\"allgather\"");
    const ScenarioLoad rejected = parse_scenario(bad);
    CHECK_FALSE(rejected.ok());
    CHECK(rejected.error.find("parallel.cp_comm") != std::string::npos);
    CHECK(rejected.error.find("ring, all-gather") != std::string::npos);
}

TEST_CASE("EP: all-to-all dispatch and combine per MoE block, forward and backward, exposed") {
    Scenario s = tiny();
    s.model.experts = 2;
    s.model.top_k = 1;
    s.model.expert_ffn_hidden = 32;
    s.cluster.gpus_per_node = 2;
    s.cluster.intra_node = LinkSpec{450, 2};
    s.parallel.dp_shard = 2;
    s.parallel.ep = 2;
    s.parallel.zero = 1;
    const Report r = build_report(s);
    // m = 4 / (1 * 2 * 1) = 2 micro-batches.
    CHECK(r.microbatches == 2);
    const DimCost* ep = nullptr;
    for (const DimCost& d : r.dims)
        if (d.name == "ep") ep = &d;
    REQUIRE(ep != nullptr);
    CHECK(ep->size == 2);
    // Each of the 4 tokens goes to top_k = 1 expert: 4 * 1 * 8 * 2 B = 64 B; an all-to-all on 2 ranks
    // sends (N-1)/N of it, 32 B, for alpha + 32 B / 450 GB/s. 4 per MoE block (dispatch + combine,
    // forward and backward), 4 MoE blocks, 2 micro-batches: 32 all-to-alls.
    CHECK(ep->bytes_per_step == doctest::Approx(32 * 32));
    CHECK(ep->time_s == doctest::Approx(32 * (2e-6 + 32.0 / 450e9)));
    CHECK(ep->exposed_s == doctest::Approx(ep->time_s));
}

TEST_CASE("a collective beside compute: past the compute it is exposed, under it the compute slows") {
    // Together they take max(comm, compute + loss x comm); loss 0.159 (hardware.hpp).
    const double loss = 0.159;
    // Well hidden: 1 s of collective under 10 s of compute costs 0.159 s of slowed compute.
    OverlapCost c = overlap_cost(1.0, 10.0, loss);
    CHECK(c.past == 0);
    CHECK(c.contention == doctest::Approx(0.159));
    // Just past: 1.1 s beside 1 s: together max(1.1, 1 + 0.1749) = 1.1749 s, 0.1 s past the compute
    // and 0.0749 s of slowing.
    c = overlap_cost(1.1, 1.0, loss);
    CHECK(c.past == doctest::Approx(0.1));
    CHECK(c.contention == doctest::Approx(0.0749));
    CHECK(c.total() == doctest::Approx(0.1749));
    // Far past: the compute finishes while the collective still runs; only the collective counts.
    c = overlap_cost(10.0, 1.0, loss);
    CHECK(c.past == doctest::Approx(9.0));
    CHECK(c.contention == 0);
    // Nothing to hide, or nothing to hide under.
    CHECK(overlap_cost(0.0, 1.0, loss).total() == 0);
    CHECK(overlap_cost(1.0, 0.0, loss).total() == doctest::Approx(1.0));
}

TEST_CASE("FSDP2's copies on the PyTorch stack: copy-out forward and backward, copy-in before each reduce-scatter") {
    // 1e9 bf16 parameters gathered in 10 units: 2 GB out of the flat buffer at 650 GB/s = 3.0769 ms
    // (twice a micro-batch), 2 GB of gradients into the reduce-scatter's input at 250 GB/s = 8 ms.
    const HardwareFigures hw = hardware_figures(GpuSpec{"H100 SXM", 80, 989, 3350});
    const Fsdp2Copies big = fsdp2_copies(hw, 1e9, 10, true, 2, 2);
    CHECK(big.copy_out_s == doctest::Approx(2e9 / 650e9));
    CHECK(big.copy_in_s == doctest::Approx(2e9 / 250e9));
    // ZeRO-2 gathers nothing per micro-batch: no copy-out. A tiny unit still costs a kernel's floor.
    CHECK(fsdp2_copies(hw, 1e9, 10, false, 2, 2).copy_out_s == 0);
    CHECK(fsdp2_copies(hw, 100, 4, true, 2, 2).copy_out_s == doctest::Approx(4 * hw.kernel_floor_s));

    // In a step: the tiny model as ZeRO-3 over 4 GPUs of one node, one micro-batch. Its compute is
    // the kernels, the copy-out forward and backward (6 units: 4 blocks, embedding, output layer; 3400
    // parameters, each unit at the kernel floor), then Adam over a quarter of the parameters.
    Scenario s = tiny();
    s.cluster.gpus_per_node = 4;
    s.parallel.dp_shard = 4;
    s.parallel.zero = 3;
    s.training.global_batch = 4;
    // Four GPUs: the compute runs at the slowest card's pace, as build_report prices it.
    const HardwareFigures toy = paced_hardware_figures(s.cluster.gpu, 4);
    const StageCompute c = stage_compute(s, s.parallel, toy, StageBlocks{4, 0, true, true});
    const Fsdp2Copies copies = fsdp2_copies(toy, 3400, 6, true, 2, 2);
    CHECK(copies.copy_out_s == doctest::Approx(6 * toy.kernel_floor_s));
    const Report r = build_report(s);
    REQUIRE(r.time.compute.has_value());
    CHECK(*r.time.compute == doctest::Approx(c.forward_s + c.backward_s + 2 * copies.copy_out_s +
                                             optimizer_step_seconds(toy, 3400.0 / 4, Precision::mixed_bf16)));
    // Megatron-LM's and DeepSpeed's flat buffers copy nothing.
    s.training.fused_kernels = true;
    const StageCompute fused = stage_compute(s, s.parallel, toy, StageBlocks{4, 0, true, true});
    CHECK(*build_report(s).time.compute == doctest::Approx(fused.forward_s + fused.backward_s +
                                                           optimizer_step_seconds(toy, 3400.0 / 4, Precision::mixed_bf16)));
}

TEST_CASE("grad_reduce_in_bf16: Megatron-LM's main gradients in 2 bytes, and half the reduction's bytes") {
    Scenario s = default_scenario();
    s.training.precision = Precision::megatron_bf16;  // FP32 main gradients: 2 + 4 + 12 bytes
    const Report fp32 = build_report(s);
    s.training.grad_reduce_in_bf16 = true;
    const Report bf16 = build_report(s);
    REQUIRE(fp32.memory.grads > 0);
    CHECK(bf16.memory.grads == doctest::Approx(fp32.memory.grads / 2));
    CHECK(bf16.memory.params == doctest::Approx(fp32.memory.params));
    CHECK(bf16.memory.optimizer == doctest::Approx(fp32.memory.optimizer));
    // The data-parallel reduce-scatter sends half the bytes; the weights' all-gather the same.
    const auto calls = [](const Report& r, Collective op) {
        const DimCost* d = find_dim_cost(r, "dp_shard");
        REQUIRE(d != nullptr);
        for (const CollectiveCall& c : d->calls)
            if (c.op == op) return c;
        FAIL("no such call");
        return CollectiveCall{};
    };
    CHECK(calls(bf16, Collective::reduce_scatter).message_bytes ==
          doctest::Approx(calls(fp32, Collective::reduce_scatter).message_bytes / 2));
    CHECK(calls(bf16, Collective::all_gather).message_bytes ==
          doctest::Approx(calls(fp32, Collective::all_gather).message_bytes));
}
