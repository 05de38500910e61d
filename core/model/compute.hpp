#pragma once
// Compute time of one micro-batch on one GPU of a pipeline stage, kernel by kernel, from the hardware
// up (core/model/hardware.hpp):
// - every GEMM of a block by its shape: QKV, attention output, MLP in (gate and up fused for SwiGLU)
//   and out, the router, each local expert's GEMMs at the tokens it receives (top_k routing, padded
//   to capacity_factor when set), shared experts, the LM head; backward runs each GEMM's two
//   gradients (input and weight) with their own shapes;
// - the attention core by its kernel: flash runs the work causal masking leaves (half the s x s
//   scores) at FlashAttention's achieved fraction, forward and backward (2.5x the forward's FLOPs)
//   separately, falling off for short sequences; eager materialises the scores: two batched GEMMs
//   each way and the softmax and dropout streamed through HBM;
// - memory-bound kernels at achievable HBM bandwidth: two norms, two residual adds, rotary on q and
//   k, the activation function, MoE token permutation, the embedding and the loss (fp32 logits);
// - every kernel takes at least the per-kernel floor.
// Recomputation is charged as time exactly as its FLOPs are counted: full recompute re-runs the
// blocks' forward inside the backward, selective re-runs the attention core.
//
// Tensor sizes per GPU: T = micro_batch x seq_len / cp tokens; TP splits the GEMMs' width (all T
// tokens pass every TP rank), sequence parallelism splits the norm and residual work by tp too.

#include "core/model/hardware.hpp"
#include "core/model/step_ops.hpp"
#include "core/scenario/scenario.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace shardscope {

struct StageBlocks {
    int64_t dense = 0;      // dense blocks on the stage
    int64_t moe = 0;        // MoE blocks on the stage
    bool embedding = false; // the first stage: token embedding
    bool output = false;    // the last stage: LM head and loss
    // Under recompute full, how many of them re-run their forward (training.recompute_method block
    // re-runs only some); -1: all of them.
    int64_t rerun_dense = -1;
    int64_t rerun_moe = -1;
    // The last stage's multi-token prediction modules (their blocks are counted in dense or moe): the
    // work around each block, priced with the output layer.
    int64_t mtp = 0;
};
// The blocks of a stage, with those a full recompute re-runs split between dense and MoE blocks in
// proportion (training.recompute_method, recomputed_blocks in core/scenario/scenario.hpp).
[[nodiscard]] StageBlocks stage_blocks(const TrainingSpec& t, int64_t dense, int64_t moe, bool embedding, bool output);

struct StageCompute {
    double forward_s = 0;
    double backward_s = 0;             // recomputation included
    double attention_forward_s = 0;    // the attention core's forward (CP's exchange hides under it)
    double forward_flops = 0;          // executed: causal flash counts the half it runs
    double backward_flops = 0;         // executed, recomputation included
    OpTimes ops{};                     // forward_s + backward_s by operation (step_ops.hpp)
};

// Balanced routing: per micro-batch, the routed token slots one local expert receives (the ep ranks'
// tokens x top_k spread over the experts, padded to capacity_factor when set), and experts per rank.
struct ExpertLoad {
    double tokens_per_expert = 0;
    double local_experts = 0;
};
[[nodiscard]] ExpertLoad expert_load(const Scenario& s, const ParallelSpec& p);

// `p` is the effective parallel spec (leftover replicas folded in). The planner prices thousands of
// layouts whose stages share a shape, so each shape is priced once per thread and kept: the reference
// stays valid until this thread's next call.
[[nodiscard]] const StageCompute& stage_compute(const Scenario& s, const ParallelSpec& p, const HardwareFigures& hw,
                                         const StageBlocks& blocks);

// stage_compute's forward_s and backward_s alone, equal to the last bit, without its book of
// operations: what the planner's floors read, for hundreds of thousands of stage shapes.
struct StageSeconds {
    double forward_s = 0, backward_s = 0;
};
[[nodiscard]] StageSeconds stage_seconds(const Scenario& s, const ParallelSpec& p, const HardwareFigures& hw,
                                         const StageBlocks& blocks);

// A floor under one block's forward or backward seconds without recompute at any micro-batch, so the
// planner can bound a layout before it prices each micro-batch size: every kernel's work grows in
// proportion to the micro-batch's tokens. Each GEMM runs its FLOPs at micro-batch 1 at the best rate
// any shape reaches (every tile full at the best tile's rate, the K loop of an endless depth), leaves
// out the bytes it moves (its weights do not grow with the tokens) and adds its launch; a memory-bound
// kernel and flash attention take at least their floor, which is what they take when small.
struct PhaseFloor {
    double per_sample = 0;  // the GEMMs' seconds per sample of the micro-batch
    double launches = 0;    // the GEMMs' launches, whatever the micro-batch
    std::vector<std::pair<double, double>> at_least;  // (seconds per sample, floor) of the other kernels
    [[nodiscard]] double at(double micro_batch) const noexcept;
};
struct BlockFloor {
    PhaseFloor forward, backward;
};
// `gpu` as stage_seconds takes it (the paced figures); the micro-batch and recompute of `s` are not read.
[[nodiscard]] BlockFloor block_floor(const Scenario& s, const ParallelSpec& p, const HardwareFigures& gpu, bool moe);

// The optimizer step of `params` parameters held by one GPU's optimizer (after ZeRO): Adam reads the
// gradient, reads and writes the fp32 master weights and both moments, and writes the training copy
// (plus one read of the gradients for clipping), all at HBM bandwidth.
[[nodiscard]] double optimizer_step_seconds(const HardwareFigures& hw, double params, const TrainingSpec& training);

// The same step with the optimizer offloaded to the host (training.offload optimizer), in three parts
// run one after another once the last gradient is reduced: the gradients cross to host memory over
// the GPU's host link, the CPU steps Adam at its cores' rate ([CPUADAM] in hardware.hpp), and the
// updated training copy of the weights crosses back. Both frameworks can hide part of it
// (DeepSpeed copies gradients out during the backward; Megatron-LM's
// --overlap-cpu-optimizer-d2h-h2d pipelines copies and steps per group); priced without that overlap,
// the CPU's step, which both wait on, is most of the time.
struct OffloadedStep {
    double gradients_to_host_s = 0;
    double cpu_adam_s = 0;
    double weights_to_gpu_s = 0;
    [[nodiscard]] double total() const noexcept { return gradients_to_host_s + cpu_adam_s + weights_to_gpu_s; }
};
[[nodiscard]] OffloadedStep offloaded_optimizer_step(const HostFigures& host, double params, const TrainingSpec& training);
[[nodiscard]] inline double optimizer_step_seconds(const HardwareFigures& hw, double params, Precision precision) {
    TrainingSpec t;
    t.precision = precision;
    return optimizer_step_seconds(hw, params, t);
}

// Executed FLOPs of the attention core of one block, forward, for `tokens` queries of `seq` keys on
// one GPU (causal flash does half; eager computes the masked half too).
[[nodiscard]] double attention_core_forward_flops(const Scenario& s, double tokens, double tp);

}  // namespace shardscope
