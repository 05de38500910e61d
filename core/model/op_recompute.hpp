#pragma once
// Selective recompute on the PyTorch stack (training.fused_kernels false), as torchtitan runs it:
// PyTorch's selective activation checkpointing with torchtitan's op-level policy (its activation
// checkpointing code, `_custom_policy`: "Saves output of all compute ops, except every second mm"; the
// count restarts in every block). Each block saves the outputs of its 1st, 3rd, 5th ... matmul and of the
// attention kernel; everything else (the 2nd, 4th ... matmul, the norms, rotary, the activation
// function, the residual adds) runs again in the backward. On the fused stack (Megatron-LM,
// Transformer Engine) selective recompute re-runs the attention core instead (compute.hpp).

#include "core/model/step_ops.hpp"
#include "core/scenario/scenario.hpp"

#include <string>
#include <vector>

namespace shardscope {

// How a matmul's weight is split over the TP ranks: by output columns (QKV, MLP up), by input rows
// (the attention output projection, MLP down), or not at all (MLA's down-projections, the router).
enum class MatmulSplit { column, row, whole };

// One matmul of a block, per token before any split: out x in weights. `routed`: it runs once per
// routed copy of the token (top_k x capacity factor), an expert's.
struct BlockMatmul {
    double out_width = 0;
    double in_width = 0;
    MatmulSplit split = MatmulSplit::column;
    bool routed = false;
    StepOp op = StepOp::attention_projections;  // the operation it belongs to
};

// A block's matmuls in the order its forward runs them, as torchtitan's model code calls them: wq,
// wk, wv (MLA: its down- and up-projections), wo; then w1, w3, w2 (GeLU: w1, w2), or for an MoE block
// the router, the routed experts' w1, w3, w2 and the shared experts'.
[[nodiscard]] std::vector<BlockMatmul> block_matmuls_in_order(const ModelSpec& m, bool moe_block);

// Whether a scenario's selective recompute is this op-level policy (the PyTorch stack) rather than
// Megatron-LM's attention-core recompute (fused_kernels).
[[nodiscard]] constexpr bool op_level_selective(const TrainingSpec& t) noexcept {
    return t.recompute == Recompute::selective && !t.fused_kernels;
}

// Whether the op-level policy re-runs the matmul at `index` (0-based) of that order: every second one.
[[nodiscard]] constexpr bool op_policy_recomputes(std::size_t index) noexcept { return index % 2 == 1; }

// The copies of a token an expert matmul runs on (top_k, padded by the capacity factor).
[[nodiscard]] double routed_copies(const ModelSpec& m) noexcept;

// Elements one GPU keeps per token of one block under the op-level policy: the block's input (the
// checkpoint's), the attention kernel's output and the outputs of the matmuls it saves (the 1st,
// 3rd ...). Column-split outputs divide over the TP ranks; the others (h wide, or run whole) only
// with sequence parallelism; an expert's, once per routed copy.
[[nodiscard]] double op_policy_saved_elements_per_token(const ModelSpec& m, bool moe_block, int64_t tp,
                                                        bool sequence_parallel);

// Matmul FLOPs the op-level policy re-runs per token of one block (all TP ranks together).
[[nodiscard]] double op_policy_recomputed_flops_per_token(const ModelSpec& m, bool moe_block);

// Matmul FLOPs Megatron-LM's --recompute-modules re-run per token of one block (all TP ranks
// together): mla_up_proj's query and key-value up-projections; the norms and the activation are
// memory-bound and count none.
[[nodiscard]] double megatron_module_recomputed_flops_per_token(const ModelSpec& m, const RecomputeModules& mods);

// A scenario's recompute as the planner and status lines name it: "selective (layernorm, moe_act)"
// where Megatron-LM's modules are other than the attention core alone, "full (block 4)" for a partial
// full recompute, else the plain name.
[[nodiscard]] std::string recompute_text(const TrainingSpec& t);

// What a recompute choice re-runs on this stack, for a control's label: "none", with fused kernels
// "selective (attention core)" or how many modules ("selective (2 modules)"), without them
// "selective (op-level)" (PyTorch's op-level policy), "full (whole block)".
[[nodiscard]] std::string recompute_display_name(Recompute r, const TrainingSpec& t);

}  // namespace shardscope
