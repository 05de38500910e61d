// Where the compute goes (core/model/step_ops.hpp): every kernel booked under its operation, worked
// by hand on a round model, and the report's breakdown and MoE figures built from them.
#include "core/model/compute.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/hardware.hpp"
#include "core/model/report.hpp"
#include "core/model/step_ops.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

using namespace shardscope;
using shardscope::test::round_figures;
using shardscope::test::round_model;

namespace {


// The round model (tests/common/scenarios.hpp): every GEMM at 1 TFLOP/s x 0.5 plus the 3 us floor,
// HBM at 10 GB/s x 0.89.
const OpFigures& op(const OpTimes& ops, StepOp o) { return ops[static_cast<std::size_t>(o)]; }

constexpr double kFloor = 3e-6, kRate = 1e12 * 0.5, kHbm = 10e9 * 0.89;

}  // namespace

TEST_CASE("a block's kernels booked by operation, by hand, and summing to its forward and backward") {
    const Scenario s = round_model();
    const HardwareFigures hw = round_figures(s.cluster.gpu);
    const StageCompute c = stage_compute(s, s.parallel, hw, StageBlocks{1, 0, false, false});
    // Attention projections, T = 256: QKV 2*256*768*256 + output 2*256*256*256 = 134,217,728 FLOPs in
    // 2 kernels forward; backward twice the FLOPs in 4 kernels. Bound by the FLOPs (0.27 ms against
    // 6 us of floors).
    const OpFigures& attn = op(c.ops, StepOp::attention_projections);
    CHECK(attn.forward_s == doctest::Approx(134217728.0 / kRate + 2 * kFloor));
    CHECK(attn.backward_s == doctest::Approx(2 * 134217728.0 / kRate + 4 * kFloor));
    CHECK(attn.flops == doctest::Approx(3 * 134217728.0));
    CHECK(attn.launch_s == doctest::Approx(6 * kFloor));
    CHECK(attn.bound() == OpBound::flops);
    // The FFN: up and down 2*256*1024*256 each, 268,435,456 FLOPs forward.
    const OpFigures& mlp = op(c.ops, StepOp::mlp);
    CHECK(mlp.forward_s == doctest::Approx(268435456.0 / kRate + 2 * kFloor));
    CHECK(mlp.flops == doctest::Approx(3 * 268435456.0));
    // Eager norms: two of 36 B an element over 256 x 256, each 2.36 MB through 8.9 GB/s (0.265 ms,
    // past the floor: HBM-bound); the backward streams twice the bytes.
    const double el = 256.0 * 256;
    const OpFigures& norms = op(c.ops, StepOp::norms);
    CHECK(norms.forward_s == doctest::Approx(2 * 36 * el / kHbm));
    CHECK(norms.backward_s == doctest::Approx(2 * 2 * 36 * el / kHbm));
    CHECK(norms.bound() == OpBound::hbm);
    CHECK(norms.flops == 0);
    // No MoE, no FP8, no embedding or output on this stage: nothing booked there.
    for (StepOp o : {StepOp::router, StepOp::routed_experts, StepOp::token_permutation, StepOp::fp8_casts,
                     StepOp::embedding, StepOp::output_layer, StepOp::loss, StepOp::optimizer})
        CHECK(op(c.ops, o).time_s() == 0);
    // Every kernel is in exactly one operation.
    double fwd = 0, bwd = 0;
    for (const OpFigures& f : c.ops) {
        fwd += f.forward_s;
        bwd += f.backward_s + f.rerun_s;
    }
    CHECK(fwd == doctest::Approx(c.forward_s).epsilon(1e-12));
    CHECK(bwd == doctest::Approx(c.backward_s).epsilon(1e-12));
}

TEST_CASE("recomputation is booked under the operations it re-runs, and the output layer never re-runs") {
    Scenario s = round_model();
    s.training.recompute = Recompute::full;
    const HardwareFigures hw = round_figures(s.cluster.gpu);
    const StageCompute c = stage_compute(s, s.parallel, hw, StageBlocks{2, 0, true, true});
    for (StepOp o : {StepOp::attention_projections, StepOp::attention_core, StepOp::mlp, StepOp::residual_adds,
                     StepOp::rotary})
        CHECK(op(c.ops, o).rerun_s == doctest::Approx(op(c.ops, o).forward_s));
    // The final norm (in `norms`) and the loss are outside the blocks; the head and embedding never re-run.
    CHECK(op(c.ops, StepOp::output_layer).rerun_s == 0);
    CHECK(op(c.ops, StepOp::loss).rerun_s == 0);
    CHECK(op(c.ops, StepOp::embedding).rerun_s == 0);
    // The block method re-runs one of the two blocks: half of each block operation's forward again.
    s.training.recompute_method = RecomputeMethod::block;
    s.training.recompute_num_layers = 1;
    const StageCompute half = stage_compute(s, s.parallel, hw, StageBlocks{2, 0, true, true, 1, 0});
    CHECK(op(half.ops, StepOp::mlp).rerun_s == doctest::Approx(op(c.ops, StepOp::mlp).forward_s / 2));
    // On the PyTorch stack, torchtitan's op-level selective policy re-runs wk, wo (attention
    // projections: 2*256*256*256 each) and w2 (MLP: 2*256*1024*256), each a kernel.
    Scenario sel = round_model();
    sel.training.recompute = Recompute::selective;
    const StageCompute cs = stage_compute(sel, sel.parallel, hw, StageBlocks{1, 0, false, false});
    CHECK(op(cs.ops, StepOp::attention_projections).rerun_s == doctest::Approx(2 * 33554432.0 / kRate + 2 * kFloor));
    CHECK(op(cs.ops, StepOp::mlp).rerun_s == doctest::Approx(134217728.0 / kRate + kFloor));
    CHECK(op(cs.ops, StepOp::attention_core).rerun_s == 0);
}

TEST_CASE("the report's breakdown: the busiest GPU's step by operation, summing to its compute") {
    const Scenario s = round_model();
    const Report r = build_report(s);
    REQUIRE(r.breakdown.has_value());
    REQUIRE(r.time.compute.has_value());
    CHECK(total_time_s(*r.breakdown) == doctest::Approx(*r.time.compute).epsilon(1e-12));
    // One micro-batch; one GPU holds both blocks, the embedding and the head: the head's GEMM
    // 2*256*256*256 forward at the BF16 rate, twice that backward.
    const OpFigures& head = op(*r.breakdown, StepOp::output_layer);
    CHECK(head.flops == doctest::Approx(3 * 33554432.0));
    CHECK(op(*r.breakdown, StepOp::mlp).flops == doctest::Approx(2 * 3 * 268435456.0));
    // The optimizer step is Adam's state through HBM, as optimizer_step_seconds prices it.
    const OpFigures& adam = op(*r.breakdown, StepOp::optimizer);
    CHECK(adam.time_s() == doctest::Approx(r.stage_work.front().optimizer_s));
    CHECK(adam.bound() == OpBound::hbm);
    CHECK_FALSE(r.moe.has_value());
    // JSON: longest first, each with its kind and bound, and the same sum.
    const nlohmann::json j = nlohmann::json::parse(report_to_json(r));
    REQUIRE(j["breakdown"].is_array());
    double sum = 0, last = 1e300;
    for (const auto& e : j["breakdown"]) {
        CHECK(e["time_s"].get<double>() <= last);
        last = e["time_s"].get<double>();
        sum += last;
    }
    CHECK(sum == doctest::Approx(*r.time.compute).epsilon(1e-12));
    // At 8.9 GB/s of HBM, Adam's one pass over every parameter outlasts every kernel.
    CHECK(j["breakdown"][0]["name"] == "optimizer step");
    const auto mlp_entry = std::find_if(j["breakdown"].begin(), j["breakdown"].end(),
                                        [](const nlohmann::json& e) { return e["name"] == "MLP"; });
    REQUIRE(mlp_entry != j["breakdown"].end());
    CHECK((*mlp_entry)["kind"] == "gemm");
    CHECK((*mlp_entry)["bound"] == "flops");
    const std::string text = report_to_text(r);
    CHECK(text.find("Compute by operation (the busiest GPU, per step; sums to compute)") != std::string::npos);
    CHECK(text.find("MoE blocks") == std::string::npos);
}

TEST_CASE("an MoE block's parts: tokens per expert, the experts' GEMMs, router and permutation, by hand") {
    Scenario s = round_model();
    s.model.experts = 4;
    s.model.top_k = 2;
    s.model.expert_ffn_hidden = 512;
    s.cluster.gpus_per_node = 2;
    s.parallel.dp_shard = 2;
    s.parallel.ep = 2;
    s.parallel.zero = 1;
    s.training.global_batch = 2;
    const Report r = build_report(s);
    REQUIRE(r.moe.has_value());
    REQUIRE(r.breakdown.has_value());
    // 256 tokens a GPU, 2 copies each, over 2 EP ranks' 4 experts: each of the 2 local experts gets
    // 256 * 2 * 2 / 4 = 256 token slots.
    CHECK(r.moe->tokens_per_expert == doctest::Approx(256));
    CHECK(r.moe->local_experts == doctest::Approx(2));
    CHECK(r.moe->blocks == 2);
    // The router: 2*256*4*256 FLOPs a block forward (524,288), x3 with its backward, 2 blocks.
    CHECK(op(*r.breakdown, StepOp::router).flops == doctest::Approx(2 * 3 * 524288.0));
    // The routed experts: 2 local experts x (up 2*256*512*256 + down the same) = 268,435,456 a block
    // forward, x3 with the backward, 2 blocks.
    const OpFigures& experts = op(*r.breakdown, StepOp::routed_experts);
    CHECK(experts.flops == doctest::Approx(2 * 3 * 268435456.0));
    CHECK(r.moe->expert_gemm_flops_per_s == doctest::Approx(experts.flops / experts.time_s()));
    // Token permutation: out and back, 2 B x 256 wide x 512 slots each way (no dispatcher sorts on the
    // PyTorch stack), twice the bytes backward.
    const double permute = 2.0 * 256 * 512 * 2;
    CHECK(op(*r.breakdown, StepOp::token_permutation).forward_s ==
          doctest::Approx(2 * 2 * std::max(permute / kHbm, kFloor)));
    // The all-to-all is the ep dim's.
    double ep_time = -1;
    for (const DimCost& d : r.dims)
        if (d.name == "ep") ep_time = d.time_s;
    CHECK(r.moe->all_to_all_s == doctest::Approx(ep_time));
    CHECK(total_time_s(*r.breakdown) == doctest::Approx(*r.time.compute).epsilon(1e-12));
    const std::string text = report_to_text(r);
    CHECK(text.find("MoE blocks (2 on the busiest GPU, per step)") != std::string::npos);
    CHECK(text.find("256 routed tokens per expert a micro-batch, 2 experts per GPU") != std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(report_to_json(r));
    CHECK(j["moe"]["tokens_per_expert"].get<double>() == doctest::Approx(256));
    CHECK(j["moe"]["parts_s"]["router"].get<double>() == doctest::Approx(op(*r.breakdown, StepOp::router).time_s()));
}
