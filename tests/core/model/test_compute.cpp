// The compute model from the hardware up (core/model/hardware.hpp, core/model/compute.hpp): each term
// against a number worked by hand from its source.
#include "core/model/compute.hpp"
#include "core/model/op_recompute.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/hardware.hpp"
#include "core/model/memory.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <thread>

using namespace shardscope;
using shardscope::test::round_figures;
using shardscope::test::round_model;

namespace {

GpuSpec h100() { return GpuSpec{"H100 SXM", 80, 989, 3350, std::nullopt, 1979}; }
GpuSpec a100() { return GpuSpec{"A100 SXM 80GB", 80, 312, 2039}; }

// The round model with `layers` blocks, the first two dense and the rest of 8 experts (top 2, 512
// wide), sharded over 4 GPUs of one node.
Scenario round_moe_model(int64_t layers) {
    Scenario s = round_model();
    s.model.layers = layers;
    s.model.dense_layers = 2;
    s.model.experts = 8;
    s.model.top_k = 2;
    s.model.expert_ffn_hidden = 512;
    s.cluster.gpus_per_node = 4;
    s.parallel.dp_shard = 4;
    s.parallel.zero = 1;
    return s;
}


}  // namespace

TEST_CASE("tile and wave quantisation: the best of four tiles, losing padding and idle SMs") {
    HardwareFigures hw = hardware_figures(a100());
    REQUIRE(hw.sm_count == 108);
    // 2048 x 2048 on 108 SMs:
    //   256x128: 128 tiles, 2 waves of 108: 2048^2 / (216 * 32768) = 0.5926
    //   128x128: 256 tiles, 3 waves: 2048^2 / (324 * 16384) = 0.7901 x 0.92 = 0.7269
    //   128x64:  512 tiles, 5 waves: 2048^2 / (540 * 8192) = 0.9481 x 0.80 = 0.7585  <- best
    //   64x64:  1024 tiles, 10 waves: 2048^2 / (1080 * 4096) = 0.9481 x 0.62 = 0.5878
    CHECK(gemm_tile_efficiency(hw, GemmDims{2048, 2048, 2048}) == doctest::Approx(0.758519).epsilon(1e-5));
    hw = hardware_figures(h100());
    REQUIRE(hw.sm_count == 132);
    // 8192 x 8192 on 132 SMs with 256x128 tiles: 2048 tiles in 16 waves: 2048 / (16 * 132) = 0.9697.
    CHECK(gemm_tile_efficiency(hw, GemmDims{8192, 8192, 8192}) == doctest::Approx(2048.0 / 2112.0));
}

TEST_CASE("small GEMMs run slower per FLOP than large ones, for reasons the model names") {
    const HardwareFigures hw = hardware_figures(h100());
    const auto rate = [&](double n) {
        const GemmDims g{n, n, n};
        return g.flops() / gemm_seconds(hw, g, hw.peak_flops, hw.gemm_ceiling, 2.0);
    };
    CHECK(rate(512) < rate(1024));
    CHECK(rate(1024) < rate(2048));
    CHECK(rate(2048) < rate(8192));
    // A skinny GEMM (K = 64) is memory-bound: 2 B x (8192*64 + 64*8192 + 8192^2) through HBM at
    // 3350 GB/s x 0.88, plus the 3 us floor.
    const GemmDims skinny{8192, 8192, 64};
    const double bytes = 2.0 * (8192.0 * 64 * 2 + 8192.0 * 8192);
    CHECK(gemm_seconds(hw, skinny, hw.peak_flops, hw.gemm_ceiling, 2.0) ==
          doctest::Approx(bytes / (3350e9 * 0.88) + 3e-6));
}

TEST_CASE("large H100 GEMMs land within 15% of a public torch.matmul sweep") {
    // github.com/zzc0721/torch-performance-test-data/issues/79 (H100 80GB HBM3, PyTorch 2.7, CUDA 12.8), square
    // BF16: 2048: 676.6, 4096: 788.7, 8192: 797.5 TFLOP/s. The model runs at the sustained ceiling, so
    // it sits a little under these short runs, never over by more than the tolerance.
    const HardwareFigures hw = hardware_figures(h100());
    const std::pair<double, double> measured[] = {{2048, 676.6}, {4096, 788.7}, {8192, 797.5}};
    for (const auto& [n, tflops] : measured) {
        CAPTURE(n);
        const GemmDims g{n, n, n};
        const double model = g.flops() / gemm_seconds(hw, g, hw.peak_flops, hw.gemm_ceiling, 2.0) / 1e12;
        CHECK(std::fabs(model / tflops - 1.0) <= 0.15);
    }
}

TEST_CASE("a tile's fixed cost: shallow GEMMs keep less of the ceiling, as DeepGEMM measured") {
    // K0 = 534 at K = 2048 against the ceiling's 10240: (2048 / 2582) / (10240 / 10774).
    CHECK(gemm_depth_efficiency(2048, 534) == doctest::Approx((2048.0 / 2582) / (10240.0 / 10774)));
    CHECK(gemm_depth_efficiency(10240, 534) == doctest::Approx(1.0));
    CHECK(gemm_depth_efficiency(2048, 0) == 1.0);
    // The fixed time is the same everywhere, so K0 follows the tensor cores' rate per SM: Hopper FP8
    // 1979 / 132, BF16 half of it; A100 BF16 312 / 108.
    const HardwareFigures h = hardware_figures(h100());
    CHECK(h.fp8_gemm_fixed_k == doctest::Approx(534.0));
    CHECK(h.gemm_fixed_k == doctest::Approx(534.0 * 989 / 1979));
    CHECK(hardware_figures(a100()).gemm_fixed_k == doctest::Approx(534.0 * (312.0 / 108) / (1979.0 / 132)));
    // DeepGEMM's FP8 table (H800, commit 55ab91f), TFLOP/s at M = 4096: (N, K) = (7168, 16384) 1426,
    // (7168, 2048) 1168, (24576, 1536) 1125, (32768, 512) 751. The model keeps their ratios to the
    // deepest one: the first pair sets K0, the other two follow within 5%.
    const auto rate = [&](double n, double k) {
        const GemmDims g{4096, n, k};
        return g.flops() / gemm_seconds(h, g, h.peak_fp8_flops, h.fp8_gemm_ceiling, 1.0, h.fp8_gemm_fixed_k);
    };
    const double deepest = rate(7168, 16384);
    CHECK(rate(7168, 2048) / deepest == doctest::Approx(1168.0 / 1426).epsilon(0.03));
    CHECK(rate(24576, 1536) / deepest == doctest::Approx(1125.0 / 1426).epsilon(0.05));
    CHECK(rate(32768, 512) / deepest == doctest::Approx(751.0 / 1426).epsilon(0.05));
}

TEST_CASE("Transformer Engine's per-expert GEMMs, 4 at a time, within 15% of its own benchmark") {
    // TransformerEngine PR #2045 (H100, BF16, TE 2.7's multi-stream cuBLASLt): (groups, m, n, k) =
    // (16, 2048, 768, 2048) at 554 TFLOP/s and (8, 4096, 768, 2048) at 628. Priced as the fused stack
    // prices experts: rounds of 4 experts, each round a launch sharing the SMs.
    const HardwareFigures hw = hardware_figures(h100());
    const auto rate = [&](double groups, double m, double n, double k, double per_launch) {
        double seconds = 0;
        for (double left = groups; left > 0; left -= per_launch)
            seconds += gemm_seconds(hw, GemmDims{m, n, k, std::min(per_launch, left)}, hw.peak_flops, hw.gemm_ceiling, 2.0);
        return 2.0 * m * n * k * groups / seconds / 1e12;
    };
    CHECK(std::fabs(rate(16, 2048, 768, 2048, 4) / 554.0 - 1.0) <= 0.15);
    CHECK(std::fabs(rate(8, 4096, 768, 2048, 4) / 628.0 - 1.0) <= 0.15);
    // Many small experts launched 4 at a time keep less of the GPU than one grouped kernel would
    // (128 experts of 512 x 1536 x 2048: one wave of 24 tiles each, 96 of 132 SMs busy a round).
    CHECK(rate(128, 512, 1536, 2048, 4) < rate(128, 512, 1536, 2048, 128));
}

TEST_CASE("flash attention's fall-off with short sequences follows each kernel's own causal curve") {
    // Shah et al. 2024, fig. 5 (H100, causal, head dim 128), TFLOP/s at 512 .. 16k tokens:
    // FlashAttention-2 191, 260, 298, 319, 333, 335; cuDNN 315, 410, 484, 518, 529, 539.
    const HardwareFigures hw = hardware_figures(h100());
    const FlashKernel& fa2 = flash_kernel(hw, false);
    const FlashKernel& cudnn = flash_kernel(hw, true);
    CHECK(flash_length_factor(fa2, 512) == doctest::Approx(191.0 / 335));
    CHECK(flash_length_factor(fa2, 2048) == doctest::Approx(298.0 / 335));
    CHECK(flash_length_factor(cudnn, 2048) == doctest::Approx(484.0 / 539));
    CHECK(flash_length_factor(cudnn, 16384) == doctest::Approx(1.0));
    CHECK(flash_length_factor(fa2, 131072) == doctest::Approx(1.0));
    // Halfway (in log2) between 1k and 2k: the mean of 410 and 484.
    CHECK(flash_length_factor(cudnn, std::pow(2.0, 10.5)) == doctest::Approx((410.0 + 484.0) / 2 / 539));
    // Below 512 it keeps falling in proportion: 256 tokens run at half the 512 figure.
    CHECK(flash_length_factor(fa2, 256) == doctest::Approx(191.0 / 335 * 0.5));
}

TEST_CASE("on Hopper PyTorch SDPA runs FlashAttention-2 and Transformer Engine cuDNN's kernel; on Ampere both FA2") {
    // At 16k, of the H100's 989 TFLOP/s: FA2 335 forward and 322 backward, cuDNN 539 and 516 [FA3].
    const HardwareFigures h = hardware_figures(h100());
    CHECK(flash_kernel(h, false).forward == doctest::Approx(335.0 / 989));
    CHECK(flash_kernel(h, false).backward == doctest::Approx(322.0 / 989));
    CHECK(flash_kernel(h, true).forward == doctest::Approx(539.0 / 989));
    CHECK(flash_kernel(h, true).backward == doctest::Approx(516.0 / 989));
    const HardwareFigures a = hardware_figures(a100());
    CHECK(flash_kernel(a, true).forward == doctest::Approx(0.70));
    CHECK(flash_kernel(a, false).forward == doctest::Approx(0.70));
    CHECK(flash_kernel(a, false).backward == doctest::Approx(0.60));

    // One Llama 3 8B block (the default scenario) on one H100: the attention core's forward takes
    // 529 / 333 times as long under SDPA as under Transformer Engine, the two kernels' 8k points.
    Scenario s = default_scenario();
    s.parallel = ParallelSpec{};
    const StageBlocks one{1, 0, false, false};
    const double sdpa = stage_compute(s, s.parallel, h, one).attention_forward_s;
    s.training.fused_kernels = true;
    const double te = stage_compute(s, s.parallel, h, one).attention_forward_s;
    CHECK(sdpa / te == doctest::Approx(529.0 / 333.0));
}

TEST_CASE("one block priced kernel by kernel, by hand") {
    const Scenario s = round_model();
    const HardwareFigures hw = round_figures(s.cluster.gpu);
    REQUIRE(hw.family == "A100");
    const double floor = 3e-6, rate = 1e12 * 0.5, hbm = 10e9 * 0.89;
    // Forward GEMMs of a block, T = 256 tokens: QKV 2*256*768*256, output 2*256*256*256, FFN up and
    // down 2*256*1024*256 each: 402,653,184 FLOPs in 4 kernels.
    const double gemm_f = 402653184.0 / rate + 4 * floor;
    // Flash forward: 4 * 256 * 256 * 256 / 2 (causal) = 33,554,432 FLOPs at peak x 0.70 (A100's
    // FlashAttention-2) x FA2's length factor at 256 tokens, 191/335 * 0.5.
    const double attention_flops = 33554432.0;
    const double attn_rate = 1e12 * 0.70 * (191.0 / 335 * 0.5);
    const double attn_f = attention_flops / attn_rate;
    // Eager element-wise kernels (2-byte activations, 256 tokens of width 256): two RMS norms at
    // 36 B an element, rotary on q and k at 20 B, two residual adds at 6 B, the contiguous attention
    // output at 4 B, GeLU at 4 B an element of the 1024-wide FFN.
    const double el = 256.0 * 256;
    const double kernels[] = {36 * el, 20 * 2 * el, 6 * el, 36 * el, 4 * el, 4 * 4 * el, 6 * el};
    double streams_f = 0;
    for (double b : kernels) streams_f += std::max(b / hbm, floor);
    double streams_b = 0;
    for (double b : kernels) streams_b += std::max(2 * b / hbm, floor);
    const StageCompute c = stage_compute(s, s.parallel, hw, StageBlocks{1, 0, false, false});
    CHECK(c.attention_forward_s == doctest::Approx(attn_f));
    CHECK(c.forward_s == doctest::Approx(gemm_f + attn_f + streams_f));
    // Backward: each GEMM's two gradients (8 kernels, twice the FLOPs), flash backward at 2.5x the
    // forward's FLOPs at 0.60 of peak, every element-wise kernel streaming twice the bytes.
    const double gemm_b = 2 * 402653184.0 / rate + 8 * floor;
    const double attn_b = 2.5 * attention_flops / (1e12 * 0.60 * (191.0 / 335 * 0.5));
    CHECK(c.backward_s == doctest::Approx(gemm_b + attn_b + streams_b));
    CHECK(c.forward_flops == doctest::Approx(402653184.0 + attention_flops));
    CHECK(c.backward_flops == doctest::Approx(2 * 402653184.0 + 2.5 * attention_flops));

    // Recompute is charged as time exactly as it is counted: full re-runs the block's forward.
    Scenario full = s;
    full.training.recompute = Recompute::full;
    const StageCompute cf = stage_compute(full, full.parallel, hw, StageBlocks{1, 0, false, false});
    CHECK(cf.backward_s == doctest::Approx(c.backward_s + c.forward_s));
    CHECK(cf.backward_flops == doctest::Approx(c.backward_flops + c.forward_flops));
    // Selective on the fused stack (Megatron-LM) re-runs the attention core.
    Scenario fused_plain = s;
    fused_plain.training.fused_kernels = true;
    Scenario sel = fused_plain;
    sel.training.recompute = Recompute::selective;
    const StageCompute cfp = stage_compute(fused_plain, fused_plain.parallel, hw, StageBlocks{1, 0, false, false});
    const StageCompute cs = stage_compute(sel, sel.parallel, hw, StageBlocks{1, 0, false, false});
    CHECK(cs.backward_s == doctest::Approx(cfp.backward_s + attn_f));
    CHECK(cs.backward_flops == doctest::Approx(cfp.backward_flops + attention_flops));
    // On the PyTorch stack, torchtitan's op-level policy: of wq, wk, wv, wo, w1, w2 every second runs
    // again (wk and wo 2*256*256*256 each, w2 2*256*1024*256: 201,326,592 FLOPs in 3 kernels), and
    // every element-wise kernel; the attention kernel's output is kept.
    Scenario op = s;
    op.training.recompute = Recompute::selective;
    const StageCompute co = stage_compute(op, op.parallel, hw, StageBlocks{1, 0, false, false});
    CHECK(co.backward_s == doctest::Approx(c.backward_s + 201326592.0 / rate + 3 * floor + streams_f));
    CHECK(co.backward_flops == doctest::Approx(c.backward_flops + 201326592.0));
    // The step's hardware FLOPs count the same re-run: 786,432 a token and block.
    CHECK(op_policy_recomputed_flops_per_token(op.model, false) == doctest::Approx(786432.0));
    const ParamCounts counts = count_params(op.model);
    const double tokens = static_cast<double>(op.training.global_batch * op.model.seq_len);
    CHECK(step_flops(op, counts).hardware - step_flops(s, counts).hardware ==
          doctest::Approx(786432.0 * static_cast<double>(op.model.layers) * tokens));

    // Fused kernels (Megatron-LM / Transformer Engine) stream less: 4 B an element per norm and
    // rotary, 6 B per GeLU element, no contiguous copy.
    Scenario fused = s;
    fused.training.fused_kernels = true;
    const StageCompute cu = stage_compute(fused, fused.parallel, hw, StageBlocks{1, 0, false, false});
    const double fused_kernels[] = {4 * el, 4 * 2 * el, 6 * el, 4 * el, 4 * 4 * el, 6 * el};
    double fused_f = 0;
    for (double b : fused_kernels) fused_f += std::max(b / hbm, floor);
    CHECK(cu.forward_s == doctest::Approx(gemm_f + attn_f + fused_f));
}

TEST_CASE("Megatron-LM's recompute modules re-run what they dropped, priced as the forward prices it") {
    Scenario s = round_model();
    s.training.fused_kernels = true;
    s.training.recompute = Recompute::selective;
    s.training.recompute_modules = RecomputeModules{false, false, false, false};
    const HardwareFigures hw = round_figures(s.cluster.gpu);
    const StageBlocks one_block{1, 0, false, false};
    const StageCompute nothing = stage_compute(s, s.parallel, hw, one_block);
    SUBCASE("layernorm: the two fused norms again, 4 B an element of 256 tokens x 256") {
        Scenario norms = s;
        norms.training.recompute_modules.layernorm = true;
        const double norm_s = streaming_seconds(hw, 4.0 * 256 * 256);
        CHECK(stage_compute(norms, norms.parallel, hw, one_block).backward_s ==
              doctest::Approx(nothing.backward_s + 2 * norm_s));
    }
    SUBCASE("mla_up_proj: the query and key-value up-projections and rotary again") {
        Scenario mla = s;
        mla.model.attention_type = AttentionType::mla;
        mla.model.q_lora_rank = 128;
        mla.model.kv_lora_rank = 64;
        mla.model.qk_nope_head_dim = 128;
        mla.model.qk_rope_head_dim = 64;
        mla.model.v_head_dim = 128;
        const StageCompute base = stage_compute(mla, mla.parallel, hw, one_block);
        mla.training.recompute_modules.mla_up_proj = true;
        const StageCompute again = stage_compute(mla, mla.parallel, hw, one_block);
        // 256 tokens; 2 heads of 128 + 64 query widths from the 128 latent, 2 heads of 128 key + 128
        // value widths from the 64 latent: 2 x 256 x 384 x 128 + 2 x 256 x 512 x 64 = 41,943,040 FLOPs.
        CHECK(again.backward_flops - base.backward_flops == doctest::Approx(41943040.0));
        CHECK(megatron_module_recomputed_flops_per_token(mla.model, mla.training.recompute_modules) * 256 ==
              doctest::Approx(41943040.0));
        const double peak = 1e12, ceiling = 0.5;
        const double up_s = gemm_seconds(hw, GemmDims{256, 384, 128}, peak, ceiling, 2.0) +
                            gemm_seconds(hw, GemmDims{256, 512, 64}, peak, ceiling, 2.0);
        // Rotary: 4 B an element of the 2 x 192 query and the one 64-wide rotary key.
        const double rotary_s = streaming_seconds(hw, 4.0 * (384 + 64) * 256);
        CHECK(again.backward_s == doctest::Approx(base.backward_s + up_s + rotary_s));
    }
    SUBCASE("moe_act: the routed experts' activation again, and nothing without experts") {
        Scenario act = s;
        act.training.recompute_modules.moe_act = true;
        CHECK(stage_compute(act, act.parallel, hw, one_block).backward_s == doctest::Approx(nothing.backward_s));
    }
}

TEST_CASE("eager attention runs both score GEMMs in full and streams the softmax and dropout") {
    Scenario s = round_model();
    s.training.attention = AttentionKernel::eager;
    const HardwareFigures hw = round_figures(s.cluster.gpu);
    const StageCompute eager = stage_compute(s, s.parallel, hw, StageBlocks{1, 0, false, false});
    // QK^T and PV over 2 heads: 2 x 2*256*256*128 = 33,554,432 FLOPs each, the masked half included:
    // twice flash's causal work.
    CHECK(attention_core_forward_flops(s, 256, 1) == doctest::Approx(2 * 33554432.0));
    // Scores: 2 heads x 256 x 256 = 131,072 elements; written (2 B) + read (2 B), then dropped out
    // (2 + 2 + 1 B): 9 B an element through HBM at 8.9 GB/s, in two kernels.
    const double scores = 131072.0;
    const double batched = 2 * (2.0 * 256 * 256 * 128 * 2) / (1e12 * 0.5 * gemm_tile_efficiency(hw, GemmDims{256, 256, 128, 2}));
    CHECK(eager.attention_forward_s ==
          doctest::Approx(4 * scores / 8.9e9 + 5 * scores / 8.9e9 + batched + 2 * 3e-6).epsilon(1e-6));
}

TEST_CASE("step FLOPs: MFU's numerator counts the scores in full, hardware FLOPs what the kernels run") {
    Scenario s = test::tiny_gelu();
    const ParamCounts counts = count_params(s.model);
    // tokens 16; the input embedding (128 params) is a lookup, left out of both figures:
    // 6 * (3400 - 128) * 16 = 314112; scores 12 * 4 layers * 8 * 4 * 16 = 24576 -> model 338688.
    StepFlops f = step_flops(s, counts);
    CHECK(f.model == doctest::Approx(338688));
    // Hardware: the same 314112 for the matmuls; causal flash runs
    // half the scores' forward (8192 / 2 = 4096) and 2.5x that backward: 3.5 * 4096 = 14336.
    CHECK(f.hardware == doctest::Approx(314112 + 14336));
    // Full recompute: + 2 * (4 * 784) * 16 = 100352 for the blocks + 4096 for the scores.
    s.training.recompute = Recompute::full;
    CHECK(step_flops(s, counts).hardware == doctest::Approx(314112 + 14336 + 100352 + 4096));
    CHECK(step_flops(s, counts).model == doctest::Approx(338688));
    // Eager attention runs every score: forward 8192, backward 2x: 24576.
    s.training.recompute = Recompute::none;
    s.training.attention = AttentionKernel::eager;
    CHECK(step_flops(s, counts).hardware == doctest::Approx(314112 + 24576));
}

TEST_CASE("the optimizer step streams Adam's state once per step") {
    const HardwareFigures hw = hardware_figures(h100());
    // mixed-bf16: read the 2 B gradient twice (clipping, update), read and write 12 B of state, write
    // the 2 B weight: 2*2 + 2*12 + 2 = 30 B a parameter. 1e9 parameters at 3350 GB/s x 0.88.
    CHECK(optimizer_step_seconds(hw, 1e9, Precision::mixed_bf16) == doctest::Approx(30e9 / (3350e9 * 0.88)));
}

TEST_CASE("every preset scenario keeps hardware FLOP/s under the peak and MFU under one") {
    for (Scenario s : {default_scenario(), test::llama70b_ddp(8), test::small_dense()}) {
        for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
            for (AttentionKernel k : {AttentionKernel::flash, AttentionKernel::eager}) {
                s.training.recompute = rc;
                s.training.attention = k;
                CAPTURE(s.model.name);
                const Report r = build_report(s);
                REQUIRE(r.time.step.has_value());
                CHECK(*r.time.step > 0);
                CHECK(*r.throughput.hardware_tflops_per_gpu <= s.cluster.gpu.peak_tflops);
                CHECK(*r.throughput.mfu > 0);
                CHECK(*r.throughput.mfu <= 1.0);
                CHECK(*r.time.step >= *r.time.compute - 1e-12);
                CHECK(r.memory.total() == doctest::Approx(r.memory.params + r.memory.grads + r.memory.optimizer +
                                                          r.memory.activations.value_or(0) + r.memory.other +
                                                          r.memory.reserved));
            }
        }
    }
}

TEST_CASE("fp8: GEMMs at the FP8 rate, each GEMM input cast from BF16, the output layer left in BF16") {
    Scenario bf16 = round_model();
    bf16.cluster.gpu.peak_fp8_tflops = 2;
    Scenario fp8 = bf16;
    fp8.training.precision = Precision::fp8;
    const HardwareFigures hw = round_figures(fp8.cluster.gpu);
    // No FP8 figure for this family: Hopper's sustained FP8 ceiling, 0.642 (hardware.cpp).
    REQUIRE(hw.fp8_gemm_ceiling == doctest::Approx(0.642));
    const double floor = 3e-6, hbm = 10e9 * 0.89;
    const StageCompute b = stage_compute(bf16, bf16.parallel, hw, StageBlocks{1, 0, false, false});
    const StageCompute f = stage_compute(fp8, fp8.parallel, hw, StageBlocks{1, 0, false, false});
    // The block's 402,653,184 forward GEMM FLOPs move from 1 TFLOP/s x 0.5 to 2 TFLOP/s x 0.642.
    const double gemm_bf16 = 402653184.0 / 0.5e12 + 4 * floor;
    const double gemm_fp8 = 402653184.0 / (2e12 * 0.642) + 4 * floor;
    // Casts, 4 B an element (read 2, write 1 and its transpose 1). Forward: each GEMM's input, T x K:
    // 256 x (256 + 256 + 256 + 1024). Backward: each output gradient, T x N: 256 x (768 + 256 + 1024 + 256).
    const double cast_f = 4.0 * 256 * 1792 / hbm;
    const double cast_b = 4.0 * 256 * 2304 / hbm;
    CHECK(f.forward_s == doctest::Approx(b.forward_s - gemm_bf16 + gemm_fp8 + cast_f));
    const double back_bf16 = 2 * 402653184.0 / 0.5e12 + 8 * floor;
    const double back_fp8 = 2 * 402653184.0 / (2e12 * 0.642) + 8 * floor;
    CHECK(f.backward_s == doctest::Approx(b.backward_s - back_bf16 + back_fp8 + cast_b));
    // The output layer runs the same BF16 GEMM either way.
    const StageCompute bh = stage_compute(bf16, bf16.parallel, hw, StageBlocks{0, 0, false, true});
    const StageCompute fh = stage_compute(fp8, fp8.parallel, hw, StageBlocks{0, 0, false, true});
    CHECK(fh.forward_s == doctest::Approx(bh.forward_s));
    CHECK(fh.backward_s == doctest::Approx(bh.backward_s));
}

TEST_CASE("fp32 runs on the CUDA cores: every kernel at the FP32 peak, and MFU against it") {
    // H100 SXM: 67 TFLOP/s FP32 against 989 dense BF16 (datasheet); PyTorch does not use TF32 for
    // fp32 matmuls by default.
    const HardwareFigures hw = hardware_figures(h100());
    CHECK(hw.peak_fp32_flops == doctest::Approx(67e12));
    CHECK(hardware_figures(a100()).peak_fp32_flops == doctest::Approx(19.5e12));
    Scenario s = default_scenario();
    s.training.precision = Precision::fp32;
    CHECK(training_peak_tflops(s) == doctest::Approx(67.0));
    const Report r = build_report(s);
    // No tensor cores: the hardware rate stays under the FP32 peak, and MFU is taken against it.
    CHECK(*r.throughput.hardware_tflops_per_gpu < 67.0);
    CHECK(*r.throughput.mfu == doctest::Approx(*r.throughput.model_tflops_per_gpu / 67.0));
    // The one-SM round model ("A100 test", 1 TFLOP/s BF16, so 1/16 of it in FP32): its flash attention
    // forward takes exactly 16 times as long, and its 402,653,184 GEMM FLOPs add at least 15 x their
    // BF16 time (more: fp32 activations also stream twice the bytes).
    Scenario round = round_model();
    const HardwareFigures slow = hardware_figures(round.cluster.gpu);
    const StageCompute b16 = stage_compute(round, round.parallel, slow, StageBlocks{1, 0, false, false});
    round.training.precision = Precision::fp32;
    const StageCompute f32 = stage_compute(round, round.parallel, slow, StageBlocks{1, 0, false, false});
    CHECK(f32.attention_forward_s == doctest::Approx(16.0 * b16.attention_forward_s));
    CHECK(f32.forward_s - b16.forward_s >= 15.0 * 402653184.0 / 0.5e12 + 15.0 * b16.attention_forward_s);
}

TEST_CASE("a dense block of an MoE model prices the same under any expert parallelism") {
    // stage_compute shares one dense block's price across every ep (its experts are the MoE blocks').
    // Each figure is priced on a thread of its own, whose caches start empty: ep 4's dense block is
    // then priced from scratch, not found under ep 1's.
    Scenario s = round_moe_model(4);
    const HardwareFigures hw = hardware_figures(s.cluster.gpu);
    const auto priced = [&](int64_t ep, StageBlocks blocks) {
        ParallelSpec p = s.parallel;
        p.ep = ep;
        StageCompute out;
        std::thread([&] { out = stage_compute(s, p, hw, blocks); }).join();
        return out;
    };
    const StageBlocks dense{2, 0, false, false}, moe{0, 2, false, false};
    const StageCompute one = priced(1, dense), four = priced(4, dense);
    CHECK(four.forward_s == one.forward_s);
    CHECK(four.backward_s == one.backward_s);
    CHECK(four.forward_flops == one.forward_flops);
    for (std::size_t i = 0; i < one.ops.size(); ++i) CHECK(four.ops[i].time_s() == one.ops[i].time_s());
    // The MoE blocks do depend on it: four ranks hold two experts each, with four times the tokens.
    const StageCompute moe_one = priced(1, moe), moe_four = priced(4, moe);
    CHECK(moe_four.forward_s != moe_one.forward_s);
    CHECK(moe_four.forward_flops == doctest::Approx(moe_one.forward_flops));
}

TEST_CASE("stage_seconds is stage_compute's forward and backward, to the last bit") {
    // The planner floors on stage_seconds and costs on stage_compute: a floor a bit above the figure
    // would prune a layout that ranks. Every kind of stage, recompute and precision the sum reads.
    Scenario s = round_moe_model(6);
    s.parallel.ep = 4;
    s.cluster.gpu = h100();  // FP8 needs a GPU that has it
    const HardwareFigures hw = hardware_figures(s.cluster.gpu);
    int compared = 0;
    for (Precision precision : {Precision::mixed_bf16, Precision::fp32, Precision::fp8})
        for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full})
            for (const StageBlocks& blocks :
                 {StageBlocks{2, 0, true, false}, StageBlocks{0, 3, false, false}, StageBlocks{1, 2, false, true},
                  StageBlocks{2, 4, true, true}, StageBlocks{0, 4, false, true, -1, 1}, StageBlocks{2, 3, true, false, 1, 1}}) {
                s.training.precision = precision;
                s.training.recompute = rc;
                CAPTURE(static_cast<int>(precision));
                CAPTURE(static_cast<int>(rc));
                CAPTURE(blocks.dense);
                CAPTURE(blocks.moe);
                const StageSeconds light = stage_seconds(s, s.parallel, hw, blocks);
                const StageCompute& full = stage_compute(s, s.parallel, hw, blocks);
                CHECK(light.forward_s == full.forward_s);
                CHECK(light.backward_s == full.backward_s);
                CHECK(full.forward_s > 0);
                ++compared;
            }
    CHECK(compared == 54);
}

TEST_CASE("a multi-token prediction module adds its projection and one more head pass to the last stage") {
    // The round model: 256 tokens of width 256, vocab 256. Beside its block (priced with the stage's
    // blocks), an MTP module runs its 2h -> h projection (2 x 256 x 256 x 512 = 67,108,864 FLOPs) and the
    // shared head again (2 x 256 x 256 x 256 = 33,554,432); the backward twice each.
    Scenario s = round_model();
    s.model.mtp_layers = 1;
    const HardwareFigures hw = hardware_figures(s.cluster.gpu);
    const StageCompute plain = stage_compute(s, s.parallel, hw, StageBlocks{2, 0, false, true});
    const StageCompute with_mtp = stage_compute(s, s.parallel, hw, StageBlocks{2, 0, false, true, -1, -1, 1});
    CHECK(with_mtp.forward_flops - plain.forward_flops == 100663296.0);
    CHECK(with_mtp.backward_flops - plain.backward_flops == 2.0 * 100663296.0);
    CHECK(with_mtp.forward_s > plain.forward_s);
    CHECK(with_mtp.backward_s > plain.backward_s);
    // stage_seconds sums it alike.
    const StageSeconds light = stage_seconds(s, s.parallel, hw, StageBlocks{2, 0, false, true, -1, -1, 1});
    CHECK(light.forward_s == with_mtp.forward_s);
    CHECK(light.backward_s == with_mtp.backward_s);
}
