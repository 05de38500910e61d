#pragma once
// Where a GPU's compute goes: every kernel the cost model prices belongs to one of these operations,
// and each operation's time over a step is kept split by what bounds it (the report's `breakdown`).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace shardscope {

enum class StepOp : std::uint8_t {
    attention_projections,  // QKV (MLA: its down- and up-projections) and the output projection
    attention_core,         // QK^T, softmax, PV: flash, or eager's batched GEMMs and streamed scores
    mlp,                    // a dense block's FFN GEMMs
    mlp_activation,         // its activation function (SwiGLU: gate x up)
    router,                 // an MoE block's gate GEMM
    routed_experts,         // the local experts' GEMMs at the tokens they receive
    expert_activation,      // the routed experts' activation function
    shared_experts,         // the shared experts' GEMMs
    shared_activation,      // and their activation function
    token_permutation,      // tokens sorted to their experts and back (and the dispatcher's extra sorts)
    norms,                  // the blocks' two norms and the final norm
    rotary,                 // rotary embedding of q and k
    residual_adds,
    layout_copies,          // eager attention output made contiguous
    fp8_casts,              // each FP8 GEMM's input quantized (and its transpose)
    embedding,              // the token lookup and its gradient
    output_layer,           // the LM head GEMM (and a multi-token prediction module's projection)
    loss,                   // cross entropy over the logits
    fsdp_copies,            // FSDP2 copying gathered weights out of the flat buffer, on the compute stream
    optimizer,              // the optimizer step over this GPU's shard
    count_
};
inline constexpr std::size_t kStepOpCount = static_cast<std::size_t>(StepOp::count_);

enum class StepOpKind : std::uint8_t { gemm, attention, elementwise, optimizer };
// What sets an operation's time: the tensor cores' FLOP rate, HBM bandwidth, the per-kernel floor
// (launch and prologue) that a small kernel cannot get under, or the host (an offloaded optimizer's
// copies over the host link and its step on the CPU).
enum class OpBound : std::uint8_t { flops, hbm, launch, host };

[[nodiscard]] std::string_view to_string(StepOp op) noexcept;
[[nodiscard]] std::string_view to_string(StepOpKind kind) noexcept;
[[nodiscard]] std::string_view to_string(OpBound bound) noexcept;
[[nodiscard]] StepOpKind kind_of(StepOp op) noexcept;
// The operations of an MoE block's mixture (what the report's MoE figures add up).
[[nodiscard]] bool is_moe_part(StepOp op) noexcept;

// One operation's time on one GPU (per micro-batch in StageCompute, per step in the report).
struct OpFigures {
    double forward_s = 0;
    double backward_s = 0;     // the gradients' kernels, without recomputation
    double rerun_s = 0;        // the forward a recompute re-runs inside the backward
    double flops = 0;          // executed, forward and backward
    double rerun_flops = 0;
    // forward_s + backward_s split by what bounds each kernel (the re-run forward repeats its forward's
    // split and is left out).
    double flops_bound_s = 0, hbm_bound_s = 0, launch_s = 0;
    double host_bound_s = 0;  // off the GPU: host-link copies and the CPU's optimizer step

    [[nodiscard]] double time_s() const noexcept { return forward_s + backward_s + rerun_s; }
    [[nodiscard]] OpBound bound() const noexcept;
    void add(const OpFigures& o, double times) noexcept;
};

using OpTimes = std::array<OpFigures, kStepOpCount>;

// The operations that take time, longest first (ties in StepOp order).
struct OpEntry {
    StepOp op = StepOp::attention_projections;
    OpFigures figures;
};
[[nodiscard]] std::vector<OpEntry> longest_first(const OpTimes& ops);

// Every operation's figures times `times`, added into `into`.
void add_ops(OpTimes& into, const OpTimes& ops, double times) noexcept;
[[nodiscard]] double total_time_s(const OpTimes& ops) noexcept;

}  // namespace shardscope
