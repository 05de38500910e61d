#include "core/model/compute.hpp"

#include "core/model/bounded_cache.hpp"
#include "core/model/memory.hpp"
#include "core/model/op_recompute.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <vector>

namespace shardscope {
namespace {

double as_double(int64_t v) noexcept { return static_cast<double>(v); }

// Bytes of one element of the GEMMs' inputs and of the activations streamed between kernels.
double gemm_elem_bytes(Precision p) noexcept {
    switch (p) {
        case Precision::fp32: return 4.0;
        case Precision::fp8: return 1.0;  // FP8 operands; outputs are bf16, a small share of the bytes
        default: return 2.0;
    }
}

// FlashAttention runs head dim 64 at 0.89x the rate of 128 (FA2 on H100, causal forward at 8k:
// 295 against 333 TFLOP/s; Shah et al. 2024, fig. 5); wider heads run at the 128 rate.
double head_dim_factor(double head_dim) noexcept {
    if (head_dim >= 128) return 1.0;
    if (head_dim <= 64) return 0.89;
    return 0.89 + 0.11 * (head_dim - 64.0) / 64.0;
}

// One pass of a block (or stage) as kernels: GEMM shapes, the attention core, memory-bound kernels.
struct Pass {
    std::vector<GemmDims> gemms;
    double attention_s = 0;
    double attention_flops = 0;
    std::vector<double> streamed;  // bytes of each memory-bound kernel
};

// Kernels of one pass, each with the operation it belongs to (step_ops.hpp).
struct TaggedGemms {
    std::vector<GemmDims> dims;
    std::vector<StepOp> ops;
    void add(StepOp op, const GemmDims& g) {
        dims.push_back(g);
        ops.push_back(op);
    }
};
struct TaggedStreams {
    std::vector<double> bytes;
    std::vector<StepOp> ops;
    void add(StepOp op, double b) {
        bytes.push_back(b);
        ops.push_back(op);
    }
};

enum class Phase : std::uint8_t { forward, backward, rerun };

// Books one kernel's time (and FLOPs) under its operation.
void book(OpTimes& ledger, Phase phase, StepOp op, const KernelTime& kt, double flops) {
    OpFigures& f = ledger[static_cast<std::size_t>(op)];
    const double t = kt.seconds();
    if (phase == Phase::rerun) {
        f.rerun_s += t;
        f.rerun_flops += flops;
        return;
    }
    (phase == Phase::forward ? f.forward_s : f.backward_s) += t;
    f.flops += flops;
    f.flops_bound_s += kt.flops_s;
    f.hbm_bound_s += kt.hbm_s;
    f.launch_s += kt.launch_s;
}

struct Prices {
    const HardwareFigures& hw;
    double peak = 0, ceiling = 0, elem = 2;
    double fixed_k = 0;  // a tile's fixed time in K elements (hardware.hpp [DEEPGEMM])

    // `op_of(i)`: the operation of the i-th GEMM. Sums in order, so a ledger changes no total.
    template <typename OpOf>
    double gemms(const std::vector<GemmDims>& gs, OpOf op_of, OpTimes& ledger, Phase phase) const {
        double t = 0;
        for (std::size_t i = 0; i < gs.size(); ++i) {
            const KernelTime kt = gemm_time(hw, gs[i], peak, ceiling, elem, fixed_k);
            t += kt.seconds();
            book(ledger, phase, op_of(i), kt, gs[i].flops());
        }
        return t;
    }
    [[nodiscard]] double gemms(const TaggedGemms& gs, OpTimes& ledger, Phase phase) const {
        return gemms(gs.dims, [&](std::size_t i) { return gs.ops[i]; }, ledger, phase);
    }
    template <typename OpOf>
    double streams(const std::vector<double>& bytes, OpOf op_of, OpTimes& ledger, Phase phase) const {
        double t = 0;
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            const KernelTime kt = streaming_time(hw, bytes[i]);
            t += kt.seconds();
            book(ledger, phase, op_of(i), kt, 0.0);
        }
        return t;
    }
    double streams(const std::vector<double>& bytes, StepOp op, OpTimes& ledger, Phase phase) const {
        return streams(bytes, [op](std::size_t) { return op; }, ledger, phase);
    }
    double streams(const TaggedStreams& st, OpTimes& ledger, Phase phase) const {
        return streams(st.bytes, [&](std::size_t i) { return st.ops[i]; }, ledger, phase);
    }
    // The attention core's pass: the flash kernel is bound by its FLOP rate (its floor is a bound
    // only for tiny sequences, where it is still one kernel's launch).
    double attention(const Pass& p, OpTimes& ledger, Phase phase) const {
        const StepOp op = StepOp::attention_core;
        KernelTime flash;
        flash.flops_s = p.attention_s;
        book(ledger, phase, op, flash, p.attention_flops);
        return gemms(p.gemms, [op](std::size_t) { return op; }, ledger, phase) + p.attention_s +
               streams(p.streamed, op, ledger, phase);
    }
};

double gemm_flops(const std::vector<GemmDims>& gs) {
    double f = 0;
    for (const GemmDims& g : gs) f += g.flops();
    return f;
}

// The backward of Y = X W: dX = dY W^T (M x K, inner N) and dW = X^T dY (K x N, inner M).
std::vector<GemmDims> backward_gemms(const std::vector<GemmDims>& forward) {
    std::vector<GemmDims> out;
    out.reserve(2 * forward.size());
    for (const GemmDims& g : forward) {
        out.push_back(GemmDims{g.m, g.k, g.n, g.batch});
        out.push_back(GemmDims{g.k, g.n, g.m, g.batch});
    }
    return out;
}

struct Shape {
    double tokens = 0;   // T on this GPU
    double seq = 0;      // keys each query sees (the full sequence)
    double b = 1;
    double h = 0, q_width = 0, kv_width = 0, head_dim = 0, heads = 0;
    double qk_dim = 0, v_dim = 0;   // one head's query/key and value widths (equal but for MLA)
    double tp = 1;
    double rep = 1;      // 1/tp with sequence parallelism: norms and residuals split over TP ranks
    double e = 2;        // activation element bytes
    double ep = 1;
};

Shape shape_of(const Scenario& s, const ParallelSpec& p) {
    const ModelSpec& m = s.model;
    Shape sh;
    sh.b = as_double(s.training.micro_batch);
    sh.seq = as_double(m.seq_len);
    sh.tokens = sh.b * sh.seq / as_double(p.cp);
    sh.h = as_double(m.hidden);
    sh.head_dim = as_double(m.attention_head_dim());
    sh.heads = as_double(m.heads);
    sh.qk_dim = as_double(m.qk_head_dim());
    sh.v_dim = as_double(m.value_head_dim());
    sh.q_width = sh.heads * sh.qk_dim;
    // The keys rotary touches: GQA's kv heads, MLA's one shared rotary key.
    sh.kv_width = m.is_mla() ? as_double(m.qk_rope_head_dim) : as_double(m.kv_heads) * sh.head_dim;
    sh.tp = as_double(p.tp);
    sh.rep = p.sequence_parallel ? 1.0 / sh.tp : 1.0;
    sh.e = activation_dtype_bytes(s.training.precision);
    sh.ep = as_double(p.ep);
    return sh;
}

// The attention core, forward and backward, as one GPU runs it.
struct AttentionCore {
    Pass forward, backward;
};

AttentionCore attention_core(const Scenario& s, const Shape& sh, const HardwareFigures& hw) {
    AttentionCore a;
    const double heads_here = sh.heads / sh.tp;
    if (s.training.attention == AttentionKernel::flash) {
        const double fwd = attention_core_forward_flops(s, sh.tokens, sh.tp);
        const FlashKernel& kernel = flash_kernel(hw, s.training.fused_kernels);
        const double rate =
            hw.peak_flops * head_dim_factor(sh.qk_dim) * flash_length_factor(kernel, sh.tokens / sh.b);
        a.forward.attention_flops = fwd;
        a.forward.attention_s = std::max(fwd / (rate * kernel.forward), hw.kernel_floor_s);
        a.backward.attention_flops = 2.5 * fwd;  // FA2/FA3 section 4.1: the backward recomputes the scores
        a.backward.attention_s = std::max(2.5 * fwd / (rate * kernel.backward), hw.kernel_floor_s);
        return a;
    }
    // Eager: S = Q K^T and O = P V as batched GEMMs over (micro-batch x local heads); the scores are
    // written, softmaxed (read + write) and dropped out (read + write + a 1-byte mask) in HBM.
    const double batch = sh.b * heads_here;
    const double q_len = sh.tokens / sh.b;
    const std::vector<GemmDims> fwd = {GemmDims{q_len, sh.seq, sh.qk_dim, batch},
                                        GemmDims{q_len, sh.v_dim, sh.seq, batch}};
    const double scores = batch * q_len * sh.seq;
    a.forward.gemms = fwd;
    a.forward.streamed = {2.0 * sh.e * scores, (2.0 * sh.e + 1.0) * scores};
    a.backward.gemms = backward_gemms(fwd);
    a.backward.streamed = {2.0 * a.forward.streamed[0], 2.0 * a.forward.streamed[1]};
    return a;
}

// Balanced routing: the ep ranks' T x top_k token slots spread over E experts; this GPU holds E/ep of
// them. A capacity factor pads each expert's batch to its capacity.
ExpertLoad expert_batch(const ModelSpec& m, const ParallelSpec& p, const Shape& sh) {
    const double E = as_double(std::max<int64_t>(1, m.experts));
    return {sh.tokens * routed_copies(m) * as_double(p.ep) / E, as_double(m.experts) / as_double(p.ep)};
}

// How the local experts' GEMMs run, as batches that share the SMs: on PyTorch's stack one grouped
// kernel for all of them (torch._grouped_mm, as torchtitan runs its experts); on the fused stack
// Transformer Engine's GroupedLinear (Megatron-Core's --moe-grouped-gemm), which by default launches a
// cuBLASLt GEMM per expert, round-robin over 4 streams (TransformerEngine at d0067d0d:
// common/gemm/cublaslt_gemm.cu, general_grouped_gemm; common/util/multi_stream.cpp,
// num_compute_streams = 4): 4 experts' tiles at a time fill the SMs, each round pays its own launch.
// Its benchmark in TransformerEngine PR #2045 (H100, BF16): 16 experts of 2048 x 768 x 2048 at 554
// TFLOP/s, 8 of 4096 x 768 x 2048 at 628 TFLOP/s; priced so, 525 and 680.
constexpr int64_t kTeExpertStreams = 4;

std::vector<double> expert_gemm_launches(const Scenario& s, double local_experts) {
    if (!s.training.fused_kernels || local_experts <= static_cast<double>(kTeExpertStreams)) return {local_experts};
    std::vector<double> rounds;
    const double streams = static_cast<double>(kTeExpertStreams);
    double left = local_experts;
    for (; left > streams; left -= streams) rounds.push_back(streams);
    rounds.push_back(left);
    return rounds;
}

// The GEMMs of one block's forward (attention projections and the FFN or the experts).
TaggedGemms block_gemms(const Scenario& s, const ParallelSpec& p, const Shape& sh, bool moe) {
    const ModelSpec& m = s.model;
    const double T = sh.tokens, h = sh.h, tp = sh.tp;
    const double ffn_in = m.ffn == Ffn::swiglu ? 2.0 : 1.0;  // gate and up run as one GEMM
    TaggedGemms g;
    const StepOp attn = StepOp::attention_projections;
    if (m.is_mla()) {
        // The down-projections to the latents are small and every TP rank runs them whole.
        const double heads = sh.heads, q_rank = as_double(m.q_lora_rank), kv_rank = as_double(m.kv_lora_rank);
        if (q_rank > 0) {
            g.add(attn, GemmDims{T, q_rank, h});
            g.add(attn, GemmDims{T, heads * sh.qk_dim / tp, q_rank});
        } else {
            g.add(attn, GemmDims{T, heads * sh.qk_dim / tp, h});
        }
        g.add(attn, GemmDims{T, kv_rank + as_double(m.qk_rope_head_dim), h});
        g.add(attn, GemmDims{T, heads * (as_double(m.qk_nope_head_dim) + sh.v_dim) / tp, kv_rank});
        g.add(attn, GemmDims{T, h, heads * sh.v_dim / tp});
    } else {
        g.add(attn, GemmDims{T, (sh.q_width + 2.0 * sh.kv_width) / tp, h});
        g.add(attn, GemmDims{T, h, sh.q_width / tp});
    }
    if (!moe) {
        const double f = as_double(m.ffn_hidden);
        g.add(StepOp::mlp, GemmDims{T, ffn_in * f / tp, h});
        g.add(StepOp::mlp, GemmDims{T, h, f / tp});
        return g;
    }
    const double E = as_double(m.experts), ef = as_double(m.expert_ffn_hidden);
    g.add(StepOp::router, GemmDims{T, E, h});
    if (m.shared_experts > 0) {
        const double width = as_double(m.shared_experts) * ef;
        g.add(StepOp::shared_experts, GemmDims{T, ffn_in * width / tp, h});
        g.add(StepOp::shared_experts, GemmDims{T, h, width / tp});
    }
    const ExpertLoad experts = expert_batch(m, p, sh);
    for (const double batch : expert_gemm_launches(s, experts.local_experts)) {
        g.add(StepOp::routed_experts, GemmDims{experts.tokens_per_expert, ffn_in * ef / tp, h, batch});
        g.add(StepOp::routed_experts, GemmDims{experts.tokens_per_expert, h, ef / tp, batch});
    }
    return g;
}

// The memory-bound kernels of one block's forward, bytes each (the backward streams twice as much).
// Fused (Megatron-LM, Transformer Engine): one read and one write per norm, rotary and activation.
// Eager (PyTorch op by op, as torchtitan's and Hugging Face's Llama code runs them): RMSNorm upcasts
// to fp32, squares, averages, scales, casts back and multiplies by its gain (36 bytes an element);
// rotary upcasts q and k, multiplies as complex numbers and casts back (20 bytes an element); the
// attention output is made contiguous again (4); SiLU and the product with the up projection run
// as two kernels (10 bytes an element of the FFN width).
// One norm's bytes over a block's tokens.
double norm_stream_bytes(const Scenario& s, const Shape& sh) {
    return (s.training.fused_kernels ? 2.0 * sh.e : 18.0 * sh.e) * sh.h * sh.rep * sh.tokens;
}

double rotary_stream_bytes(const Scenario& s, const Shape& sh) {
    return (s.training.fused_kernels ? 2.0 * sh.e : 10.0 * sh.e) * (sh.q_width + sh.kv_width) / sh.tp * sh.tokens;
}

// The activation function over `width` (per token, before TP) for `tokens` tokens.
double activation_stream_bytes(const Scenario& s, const Shape& sh, double width, double tokens) {
    const double act_io = s.model.ffn == Ffn::swiglu ? (s.training.fused_kernels ? 3.0 : 5.0) : 2.0;  // SwiGLU reads gate and up
    return act_io * sh.e * width / sh.tp * tokens;
}

TaggedStreams block_streams(const Scenario& s, const Shape& sh, bool moe) {
    const ModelSpec& m = s.model;
    const bool fused = s.training.fused_kernels;
    const double T = sh.tokens, e = sh.e, h = sh.h;
    const double norm = norm_stream_bytes(s, sh);
    const double residual = 3.0 * e * h * sh.rep * T;   // read both inputs, write the sum
    TaggedStreams k;
    k.add(StepOp::norms, norm);
    k.add(StepOp::rotary, rotary_stream_bytes(s, sh));
    k.add(StepOp::residual_adds, residual);
    k.add(StepOp::norms, norm);
    if (!fused) k.add(StepOp::layout_copies, 2.0 * e * sh.q_width / sh.tp * T);  // the attention output made contiguous
    if (!moe) {
        k.add(StepOp::mlp_activation, activation_stream_bytes(s, sh, as_double(m.ffn_hidden), T));
    } else {
        const double slots = T * routed_copies(m);
        k.add(StepOp::expert_activation, activation_stream_bytes(s, sh, as_double(m.expert_ffn_hidden), slots));
        if (m.shared_experts > 0)
            k.add(StepOp::shared_activation,
                  activation_stream_bytes(s, sh, as_double(m.shared_experts * m.expert_ffn_hidden), T));
        k.add(StepOp::token_permutation, 2.0 * e * h * slots);  // permute the tokens to their experts
        k.add(StepOp::token_permutation, 2.0 * e * h * slots);  // and back, weighted by the router
        // Megatron-Core's all-to-all dispatcher sorts what it received by local expert once more
        // (sort_chunks_by_idxs after the dispatch, and back before the combine) whenever an EP rank
        // holds more than one expert (megatron/core/transformer/moe/token_dispatcher.py at d98e8a64dd).
        if (fused && sh.ep > 1 && as_double(m.experts) / sh.ep > 1) {
            k.add(StepOp::token_permutation, 2.0 * e * h * slots);
            k.add(StepOp::token_permutation, 2.0 * e * h * slots);
        }
    }
    k.add(StepOp::residual_adds, residual);
    return k;
}

// What Megatron-LM's --recompute-modules re-run in one block's backward, beyond the attention core:
// the two norms, MLA's up-projections and rotary, the routed experts' activation.
struct ModuleRecompute {
    TaggedGemms gemms;
    TaggedStreams streamed;
};

ModuleRecompute megatron_module_recompute(const Scenario& s, const Shape& sh, bool moe) {
    const ModelSpec& m = s.model;
    const RecomputeModules& mods = s.training.recompute_modules;
    ModuleRecompute out;
    if (mods.layernorm) {
        out.streamed.add(StepOp::norms, norm_stream_bytes(s, sh));
        out.streamed.add(StepOp::norms, norm_stream_bytes(s, sh));
    }
    if (mods.mla_up_proj && m.is_mla()) {
        const double q_rank = as_double(m.q_lora_rank), kv_rank = as_double(m.kv_lora_rank);
        const StepOp attn = StepOp::attention_projections;
        if (q_rank > 0) out.gemms.add(attn, GemmDims{sh.tokens, sh.heads * sh.qk_dim / sh.tp, q_rank});
        out.gemms.add(attn, GemmDims{sh.tokens, sh.heads * (as_double(m.qk_nope_head_dim) + sh.v_dim) / sh.tp, kv_rank});
        out.streamed.add(StepOp::rotary, rotary_stream_bytes(s, sh));
    }
    if (mods.moe_act && moe && m.is_moe())
        out.streamed.add(StepOp::expert_activation,
                         activation_stream_bytes(s, sh, as_double(m.expert_ffn_hidden), sh.tokens * routed_copies(m)));
    return out;
}

// The matmuls torchtitan's op-level selective recompute re-runs in one block's backward, shaped as
// block_gemms shapes them on this GPU (op_recompute.hpp says which).
TaggedGemms op_policy_recomputed_gemms(const Scenario& s, const ParallelSpec& p, const Shape& sh, bool moe) {
    const ModelSpec& m = s.model;
    const std::vector<BlockMatmul> order = block_matmuls_in_order(m, moe);
    const ExpertLoad experts = expert_batch(m, p, sh);
    TaggedGemms out;
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (!op_policy_recomputes(i)) continue;
        const BlockMatmul& mm = order[i];
        const double n = mm.split == MatmulSplit::column ? mm.out_width / sh.tp : mm.out_width;
        const double k = mm.split == MatmulSplit::row ? mm.in_width / sh.tp : mm.in_width;
        out.add(mm.op, mm.routed ? GemmDims{experts.tokens_per_expert, n, k, experts.local_experts}
                                 : GemmDims{sh.tokens, n, k});
    }
    return out;
}

// One block's forward and backward and what a recompute re-runs, in all and by operation.
struct BlockPrice {
    double forward_s = 0, backward_s = 0, attention_forward_s = 0;
    double forward_flops = 0, backward_flops = 0;
    OpTimes ops{};
};

// FP8 GEMMs read FP8 operands that someone wrote: Transformer Engine casts each GEMM's input (the
// activation forward, the output gradient backward) from BF16 and keeps a transposed FP8 copy for the
// other backward GEMM (NVIDIA Transformer Engine documentation, "Using FP8 with Transformer Engine":
// Hopper's FP8 tensor cores take only the TN layout). Counted per element: read 2 bytes, write 1
// byte and its transpose 1 byte. Weights are cast once per step and left out.
constexpr double kFp8CastBytes = 4.0;

double fp8_cast_bytes(const std::vector<GemmDims>& gemms, bool backward) {
    double elements = 0;
    for (const GemmDims& g : gemms) elements += (backward ? g.m * g.n : g.m * g.k) * g.batch;
    return kFp8CastBytes * elements;
}

// `forward`'s kernels re-run inside the backward, booked into `into` as recomputation.
void add_rerun(OpTimes& into, const OpTimes& forward) noexcept {
    for (std::size_t i = 0; i < kStepOpCount; ++i) {
        into[i].rerun_s += forward[i].forward_s;
        into[i].rerun_flops += forward[i].flops;
    }
}

BlockPrice price_block(const Scenario& s, const ParallelSpec& p, const Shape& sh, const HardwareFigures& hw,
                       const Prices& price, bool moe) {
    const TaggedGemms fwd = block_gemms(s, p, sh, moe);
    TaggedStreams streams = block_streams(s, sh, moe);
    TaggedStreams streams_back;
    for (std::size_t i = 0; i < streams.bytes.size(); ++i) streams_back.add(streams.ops[i], 2.0 * streams.bytes[i]);
    if (s.training.precision == Precision::fp8) {
        // Each GEMM quantizes its own input, a kernel each (for the experts, one a launch of
        // expert_gemm_launches: Transformer Engine's split_quantize runs one per expert on the same
        // streams as their GEMMs).
        for (const GemmDims& g : fwd.dims) {
            streams.add(StepOp::fp8_casts, fp8_cast_bytes({g}, false));
            streams_back.add(StepOp::fp8_casts, fp8_cast_bytes({g}, true));
        }
    }
    const AttentionCore core = attention_core(s, sh, hw);
    BlockPrice b;
    // The forward's kernels booked apart by part, for what a recompute re-runs of each.
    OpTimes fwd_gemm_ops{}, fwd_stream_ops{}, attention_ops{};
    b.attention_forward_s = price.attention(core.forward, attention_ops, Phase::forward);
    const double gemm_fwd_s = price.gemms(fwd, fwd_gemm_ops, Phase::forward);
    const double stream_fwd_s = price.streams(streams, fwd_stream_ops, Phase::forward);
    b.forward_s = gemm_fwd_s + b.attention_forward_s + stream_fwd_s;
    const std::vector<GemmDims> bwd = backward_gemms(fwd.dims);
    b.backward_s = price.gemms(bwd, [&](std::size_t i) { return fwd.ops[i / 2]; }, b.ops, Phase::backward) +
                   price.attention(core.backward, b.ops, Phase::backward) +
                   price.streams(streams_back, b.ops, Phase::backward);
    for (const OpTimes* part : {&fwd_gemm_ops, &attention_ops, &fwd_stream_ops}) add_ops(b.ops, *part, 1.0);
    const double core_fwd_flops = core.forward.attention_flops + gemm_flops(core.forward.gemms);
    b.forward_flops = gemm_flops(fwd.dims) + core_fwd_flops;
    b.backward_flops = 2.0 * gemm_flops(fwd.dims) + core.backward.attention_flops + gemm_flops(core.backward.gemms);
    switch (s.training.recompute) {
        case Recompute::full:
            b.backward_s += b.forward_s;
            b.backward_flops += b.forward_flops;
            for (const OpTimes* part : {&fwd_gemm_ops, &attention_ops, &fwd_stream_ops}) add_rerun(b.ops, *part);
            break;
        case Recompute::selective:
            if (op_level_selective(s.training)) {  // every second matmul and every memory-bound kernel
                const TaggedGemms again = op_policy_recomputed_gemms(s, p, sh, moe);
                b.backward_s += price.gemms(again, b.ops, Phase::rerun) + stream_fwd_s;
                b.backward_flops += gemm_flops(again.dims);
                add_rerun(b.ops, fwd_stream_ops);
            } else {  // Megatron-LM: the modules --recompute-modules names
                if (s.training.recompute_modules.core_attn) {
                    b.backward_s += b.attention_forward_s;
                    b.backward_flops += core_fwd_flops;
                    add_rerun(b.ops, attention_ops);
                }
                const ModuleRecompute again = megatron_module_recompute(s, sh, moe);
                b.backward_s += price.gemms(again.gemms, b.ops, Phase::rerun) +
                                price.streams(again.streamed, b.ops, Phase::rerun);
                b.backward_flops += gemm_flops(again.gemms.dims);
            }
            break;
        case Recompute::none: break;
    }
    return b;
}

}  // namespace

ExpertLoad expert_load(const Scenario& s, const ParallelSpec& p) { return expert_batch(s.model, p, shape_of(s, p)); }

double attention_core_forward_flops(const Scenario& s, double tokens, double tp) {
    const ModelSpec& m = s.model;
    // QK^T and PV: 2 x tokens x keys x heads x (qk + v head widths); causal flash skips the masked half.
    const double widths = static_cast<double>(m.heads) * static_cast<double>(m.qk_head_dim() + m.value_head_dim());
    const double full = 2.0 * tokens * static_cast<double>(m.seq_len) * widths / tp;
    return s.training.attention == AttentionKernel::flash ? full / 2.0 : full;
}

namespace {

// Everything stage_compute reads, as numbers: two calls with equal keys price identically.
using ComputeKey = std::array<double, 47>;

// The modules as bits, one a module.
double recompute_modules_key(const RecomputeModules& m) noexcept {
    double key = 0;
    for (std::size_t i = 0; i < kRecomputeModuleFields.size(); ++i)
        if (m.*kRecomputeModuleFields[i]) key += static_cast<double>(1u << i);
    return key;
}

ComputeKey compute_key(const Scenario& s, const ParallelSpec& p, const HardwareFigures& hw, const StageBlocks& blocks) {
    const ModelSpec& m = s.model;
    const TrainingSpec& t = s.training;
    return {as_double(m.hidden), as_double(m.ffn_hidden), as_double(m.heads), as_double(m.kv_heads),
            as_double(m.head_dim), as_double(m.vocab), as_double(m.seq_len), as_double(static_cast<int>(m.ffn)),
            as_double(m.experts), as_double(m.top_k), as_double(m.expert_ffn_hidden), as_double(m.shared_experts),
            m.capacity_factor, as_double(static_cast<int>(m.attention_type)), as_double(m.q_lora_rank),
            as_double(m.kv_lora_rank), as_double(m.qk_rope_head_dim), as_double(m.qk_nope_head_dim),
            as_double(m.v_head_dim), as_double(t.micro_batch), as_double(static_cast<int>(t.recompute)),
            as_double(static_cast<int>(t.attention)), as_double(static_cast<int>(t.precision)),
            t.fused_kernels ? 1.0 : 0.0, as_double(p.tp), as_double(p.cp), as_double(p.ep),
            p.sequence_parallel ? 1.0 : 0.0, as_double(hw.sm_count), hw.peak_flops, hw.peak_fp8_flops,
            hw.gemm_ceiling, hw.fp8_gemm_ceiling, flash_kernel(hw, t.fused_kernels).forward,
            flash_kernel(hw, t.fused_kernels).backward, hw.hbm_bytes_per_s,
            hw.kernel_floor_s, hw.gemm_fixed_k, hw.fp8_gemm_fixed_k, as_double(blocks.dense), as_double(blocks.moe), blocks.embedding ? 1.0 : 0.0,
            blocks.output ? 1.0 : 0.0, recompute_modules_key(t.recompute_modules), as_double(blocks.rerun_dense),
            as_double(blocks.rerun_moe), as_double(blocks.mtp)};
}

StageCompute price_stage(const Scenario& s, const ParallelSpec& p, const HardwareFigures& hw,
                         const StageBlocks& blocks);

// A block's price reads everything stage_compute's key holds but the stage's block counts: stages that
// differ only in how many blocks they hold (every pipeline depth the planner tries) share it. A dense
// block has no experts to spread, so every ep shares its price too.
template <typename Price>
const BlockPrice& block_price(const Scenario& s, const ParallelSpec& p, const HardwareFigures& gpu, bool moe,
                              Price&& price) {
    thread_local BoundedCache<ComputeKey, BlockPrice> priced(4096);
    ParallelSpec keyed = p;
    if (!moe) keyed.ep = 1;
    return priced.get(compute_key(s, keyed, gpu, StageBlocks{moe ? 0 : 1, moe ? 1 : 0, false, false}), price);
}

}  // namespace

StageBlocks stage_blocks(const TrainingSpec& t, int64_t dense, int64_t moe, bool embedding, bool output) {
    StageBlocks b{dense, moe, embedding, output};
    const int64_t layers = dense + moe;
    if (t.recompute != Recompute::full || layers <= 0) return b;
    const int64_t chunks = t.schedule == Schedule::interleaved_1f1b ? t.virtual_stages : 1;
    const int64_t rerun = recomputed_blocks(t, layers, chunks).rerun;
    if (rerun >= layers) return b;
    b.rerun_dense = std::llround(static_cast<double>(rerun) * static_cast<double>(dense) / static_cast<double>(layers));
    b.rerun_moe = rerun - b.rerun_dense;
    return b;
}

const StageCompute& stage_compute(const Scenario& s, const ParallelSpec& p, const HardwareFigures& hw,
                                  const StageBlocks& blocks) {
    static const StageCompute kNothing{};
    if (!s.model.has_architecture()) return kNothing;
    // The planner prices thousands of layouts whose stages share a shape: each shape is priced once
    // per thread (kernel by kernel is the slow part of costing a layout).
    thread_local BoundedCache<ComputeKey, StageCompute> priced(4096);
    return priced.get(compute_key(s, p, hw, blocks), [&] { return price_stage(s, p, hw, blocks); });
}

namespace {

// HBM bytes the loss moves per logit. Megatron-LM's fused vocab-parallel cross entropy: softmax
// statistics forward and the gradient backward, two fp32 passes each. PyTorch's
// F.cross_entropy(pred.float(), labels) (torchtitan's loss): forward, the cast to fp32 (read 2, write
// 4) and log_softmax (two reading passes, one writing: 12); backward, nll_loss's gradient (write 4),
// log_softmax's (read 4 + 4, write 4) and the cast back to bf16 (read 4, write 2).
struct LossBytes {
    double forward = 0, backward = 0;
};

LossBytes loss_stream_bytes(const TrainingSpec& t) noexcept {
    if (t.fused_kernels) return {8.0, 8.0};
    return {18.0, 22.0};
}

// The blocks of a stage, by kind and by whether they re-run their forward: add(price, count, rerun).
// A full recompute adds each block's forward to its backward; under the block method only the blocks
// it re-runs pay it, and the rest are added with rerun false. price_stage and stage_seconds both
// sum through here, in this order, so their seconds agree to the last bit.
template <typename PriceBlock, typename Add>
void each_block_share(const Scenario& s, const ParallelSpec& p, const HardwareFigures& gpu, const StageBlocks& blocks,
                      PriceBlock&& price_block_of, Add&& add) {
    const bool full = s.training.recompute == Recompute::full;
    const auto add_kind = [&](bool moe, int64_t count, int64_t rerun) {
        if (count <= 0) return;
        const BlockPrice& b = block_price(s, p, gpu, moe, [&] { return price_block_of(moe); });
        const int64_t again = full && rerun >= 0 ? std::min(rerun, count) : count;
        add(b, again, true);
        if (again < count) add(b, count - again, false);
    };
    add_kind(false, blocks.dense, blocks.rerun_dense);
    add_kind(true, blocks.moe, blocks.rerun_moe);
}

// fp32 runs every kernel (GEMMs and attention alike) at the CUDA cores' FP32 rate.
HardwareFigures precision_figures(const HardwareFigures& gpu, Precision precision) noexcept {
    HardwareFigures hw = gpu;
    if (precision == Precision::fp32) hw.peak_flops = gpu.peak_fp32_flops;
    return hw;
}

Prices prices_for(const HardwareFigures& hw, Precision precision) noexcept {
    const bool fp8 = precision == Precision::fp8;
    // FP32 runs on the CUDA cores, not in tensor-core tiles.
    const double fixed_k = precision == Precision::fp32 ? 0.0 : fp8 ? hw.fp8_gemm_fixed_k : hw.gemm_fixed_k;
    return Prices{hw, fp8 ? hw.peak_fp8_flops : hw.peak_flops, fp8 ? hw.fp8_gemm_ceiling : hw.gemm_ceiling,
                  gemm_elem_bytes(precision), fixed_k};
}

BlockPrice price_block_alone(const Scenario& s, const ParallelSpec& p, const HardwareFigures& gpu, bool moe) {
    const HardwareFigures hw = precision_figures(gpu, s.training.precision);
    return price_block(s, p, shape_of(s, p), hw, prices_for(hw, s.training.precision), moe);
}

StageCompute price_stage(const Scenario& s, const ParallelSpec& p, const HardwareFigures& gpu,
                         const StageBlocks& blocks) {
    StageCompute out;
    const HardwareFigures hw = precision_figures(gpu, s.training.precision);
    const bool fp8 = s.training.precision == Precision::fp8;
    const Prices price = prices_for(hw, s.training.precision);
    const Shape sh = shape_of(s, p);
    const auto add = [&](const BlockPrice& b, int64_t count) {
        const double n = as_double(count);
        out.forward_s += n * b.forward_s;
        out.backward_s += n * b.backward_s;
        out.attention_forward_s += n * b.attention_forward_s;
        out.forward_flops += n * b.forward_flops;
        out.backward_flops += n * b.backward_flops;
        add_ops(out.ops, b.ops, n);
    };
    each_block_share(s, p, gpu, blocks, [&](bool moe) { return price_block_alone(s, p, gpu, moe); },
                     [&](const BlockPrice& b, int64_t count, bool rerun) {
                         if (rerun) return add(b, count);
                         BlockPrice kept = b;
                         kept.backward_s -= b.forward_s;
                         kept.backward_flops -= b.forward_flops;
                         for (OpFigures& f : kept.ops) f.rerun_s = f.rerun_flops = 0;
                         add(kept, count);
                     });

    const double V = static_cast<double>(s.model.vocab);
    if (blocks.embedding) {
        // Gather the rows forward; the backward accumulates their fp32 gradient (read + write).
        out.forward_s += price.streams({2.0 * sh.e * sh.h * sh.tokens}, StepOp::embedding, out.ops, Phase::forward);
        out.backward_s += price.streams({3.0 * 4.0 * sh.h * sh.tokens}, StepOp::embedding, out.ops, Phase::backward);
    }
    if (blocks.output) {
        // The output layer stays in BF16 under FP8 training: Megatron-Core's output layer is a plain
        // ColumnParallelLinear outside Transformer Engine's FP8 region, and DeepSeek-V3 keeps its
        // output head in BF16 (arXiv:2412.19437, section 3.3.1).
        const Prices head_price{hw, hw.peak_flops, hw.gemm_ceiling, fp8 ? 2.0 : price.elem,
                                fp8 ? hw.gemm_fixed_k : price.fixed_k};
        const std::vector<GemmDims> head = {GemmDims{sh.tokens, V / sh.tp, sh.h}};
        const auto head_op = [](std::size_t) { return StepOp::output_layer; };
        // The final norm, and the loss over the logits at HBM bandwidth (loss_stream_bytes).
        const LossBytes loss = loss_stream_bytes(s.training);
        const double logits = sh.tokens * V / sh.tp;
        const double norm_bytes = 2.0 * sh.e * sh.h * sh.rep * sh.tokens;
        // Summed apart and added once, so a stage of this end alone holds exactly its seconds
        // (stage_seconds reads them so).
        double end_f = head_price.gemms(head, head_op, out.ops, Phase::forward) +
                       price.streams({norm_bytes}, StepOp::norms, out.ops, Phase::forward) +
                       price.streams({loss.forward * logits}, StepOp::loss, out.ops, Phase::forward);
        double end_b = head_price.gemms(backward_gemms(head), head_op, out.ops, Phase::backward) +
                       price.streams({loss.backward * logits}, StepOp::loss, out.ops, Phase::backward) +
                       price.streams({2.0 * norm_bytes}, StepOp::norms, out.ops, Phase::backward);
        // Each multi-token prediction module (its block is priced with the stage's blocks) looks up the
        // next tokens' embeddings, norms them and the hidden state, projects the two (2h -> h, a
        // column-parallel linear in the training precision), norms the result and runs it through the
        // shared head and the loss once more (Megatron-LM's MultiTokenPredictionLayer; the FLOPs are
        // those num_floating_point_operations counts: the projection and one more logit pass).
        const std::vector<GemmDims> projection = {GemmDims{sh.tokens, sh.h / sh.tp, 2.0 * sh.h}};
        const double lookup = 2.0 * sh.e * sh.h * sh.tokens;
        for (int64_t k = 0; k < blocks.mtp; ++k) {
            end_f += price.streams({lookup}, StepOp::embedding, out.ops, Phase::forward) +
                     price.streams({norm_bytes, norm_bytes}, StepOp::norms, out.ops, Phase::forward) +
                     price.gemms(projection, head_op, out.ops, Phase::forward) +
                     price.streams({norm_bytes}, StepOp::norms, out.ops, Phase::forward) +
                     head_price.gemms(head, head_op, out.ops, Phase::forward) +
                     price.streams({loss.forward * logits}, StepOp::loss, out.ops, Phase::forward);
            end_b += head_price.gemms(backward_gemms(head), head_op, out.ops, Phase::backward) +
                     price.streams({loss.backward * logits}, StepOp::loss, out.ops, Phase::backward) +
                     price.streams({2.0 * norm_bytes}, StepOp::norms, out.ops, Phase::backward) +
                     price.gemms(backward_gemms(projection), head_op, out.ops, Phase::backward) +
                     price.streams({2.0 * norm_bytes, 2.0 * norm_bytes}, StepOp::norms, out.ops, Phase::backward) +
                     price.streams({3.0 * 4.0 * sh.h * sh.tokens}, StepOp::embedding, out.ops, Phase::backward);
        }
        out.forward_s += end_f;
        out.backward_s += end_b;
        const double mtp = as_double(blocks.mtp);
        out.forward_flops += (1.0 + mtp) * gemm_flops(head) + mtp * gemm_flops(projection);
        out.backward_flops += 2.0 * ((1.0 + mtp) * gemm_flops(head) + mtp * gemm_flops(projection));
    }
    return out;
}

}  // namespace

double PhaseFloor::at(double micro_batch) const noexcept {
    double t = micro_batch * per_sample + launches;
    for (const auto& [seconds, least] : at_least) t += std::max(micro_batch * seconds, least);
    return t;
}

BlockFloor block_floor(const Scenario& s, const ParallelSpec& p, const HardwareFigures& gpu, bool moe) {
    Scenario one = s;
    one.training.micro_batch = 1;
    one.training.recompute = Recompute::none;
    const HardwareFigures hw = precision_figures(gpu, s.training.precision);
    const Prices price = prices_for(hw, s.training.precision);
    const Shape sh = shape_of(one, p);
    // gemm_time's rate can only be lower: its tiles and depth keep at most these shares.
    const double best_rate =
        price.peak * price.ceiling * gemm_tile_efficiency_ceiling() * gemm_depth_efficiency_ceiling(price.fixed_k);
    const auto add_gemms = [&](PhaseFloor& f, const std::vector<GemmDims>& gemms) {
        for (const GemmDims& g : gemms) {
            if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) continue;  // gemm_time prices it at 0
            f.per_sample += g.flops() / best_rate;
            f.launches += hw.kernel_floor_s;
        }
    };
    // streaming_time: the bytes at HBM bandwidth, or the kernel's floor when that is longer.
    const auto add_streams = [&](PhaseFloor& f, const std::vector<double>& bytes) {
        for (const double b : bytes)
            if (b > 0) f.at_least.emplace_back(b / hw.hbm_bytes_per_s, hw.kernel_floor_s);
    };
    // attention_core's flash time is its FLOPs at the kernel's rate, or its floor when that is longer:
    // at micro-batch 1 above the floor it is the rate's share alone.
    const auto add_attention = [&](PhaseFloor& f, const Pass& pass) {
        if (pass.attention_s > 0)
            f.at_least.emplace_back(pass.attention_s > hw.kernel_floor_s ? pass.attention_s : 0.0, pass.attention_s);
        add_gemms(f, pass.gemms);
        add_streams(f, pass.streamed);
    };
    const TaggedGemms fwd = block_gemms(one, p, sh, moe);
    const TaggedStreams streams = block_streams(one, sh, moe);
    BlockFloor out;
    add_gemms(out.forward, fwd.dims);
    add_gemms(out.backward, backward_gemms(fwd.dims));
    add_streams(out.forward, streams.bytes);
    for (const double b : streams.bytes) add_streams(out.backward, {2.0 * b});
    if (s.training.precision == Precision::fp8)
        for (const GemmDims& g : fwd.dims) {
            add_streams(out.forward, {fp8_cast_bytes({g}, false)});
            add_streams(out.backward, {fp8_cast_bytes({g}, true)});
        }
    const AttentionCore core = attention_core(one, sh, hw);
    add_attention(out.forward, core.forward);
    add_attention(out.backward, core.backward);
    return out;
}


StageSeconds stage_seconds(const Scenario& s, const ParallelSpec& p, const HardwareFigures& hw,
                           const StageBlocks& blocks) {
    if (!s.model.has_architecture()) return {};
    StageSeconds out;
    each_block_share(s, p, hw, blocks, [&](bool moe) { return price_block_alone(s, p, hw, moe); },
                     [&](const BlockPrice& b, int64_t count, bool rerun) {
                         const double n = as_double(count);
                         out.forward_s += n * b.forward_s;
                         out.backward_s += n * (rerun ? b.backward_s : b.backward_s - b.forward_s);
                     });
    // price_stage adds the embedding's seconds, then the output layer's, each as one sum: a stage of
    // that end alone holds exactly it (0 + x is x).
    const auto add_end = [&](bool embedding) {
        ParallelSpec keyed = p;
        keyed.ep = 1;  // neither end has experts
        const StageBlocks ends{0, 0, embedding, !embedding, -1, -1, embedding ? 0 : blocks.mtp};
        const StageCompute& end = stage_compute(s, keyed, hw, ends);
        out.forward_s += end.forward_s;
        out.backward_s += end.backward_s;
    };
    if (blocks.embedding) add_end(true);
    if (blocks.output) add_end(false);
    return out;
}

OffloadedStep offloaded_optimizer_step(const HostFigures& host, double params, const TrainingSpec& training) {
    OffloadedStep out;
    if (params <= 0 || host.link_bytes_per_s <= 0 || host.adam_params_per_s <= 0) return out;
    const StateBytesPerParam per = state_bytes_per_param(training);
    out.gradients_to_host_s = params * per.grads / host.link_bytes_per_s;
    out.cpu_adam_s = params / host.adam_params_per_s;
    out.weights_to_gpu_s = params * gathered_weight_bytes(training.precision) / host.link_bytes_per_s;
    return out;
}

double optimizer_step_seconds(const HardwareFigures& hw, double params, const TrainingSpec& training) {
    if (params <= 0) return 0.0;
    const StateBytesPerParam per = state_bytes_per_param(training);
    // Adam: read the gradient (twice: clipping's norm, then the update), read and write the optimizer
    // state (master weights and moments), write the training copy of the weights.
    const double bytes = params * (2.0 * per.grads + 2.0 * per.optimizer + per.weights);
    return streaming_seconds(hw, bytes);
}

}  // namespace shardscope
