#pragma once
// Memory per GPU (docs/design.md, "The report"): model state (weights, gradients, optimizer) under TP, PP,
// EP and ZeRO 0-3 with the three precisions, activations after Korthikanti et al. 2022 ("Reducing
// Activation Recomputation in Large Transformer Models", Table 2), and the rest as `other`.
//
// Choices made here, once:
// - ZeRO shards over the dp_shard x cp ranks: CP ranks hold identical weights, so they shard them too
//   (torchtitan's "dp_shard_cp" mesh). With cp = 1 this is exactly docs/design.md's dp_shard group.
// - Routed experts are split over ep and then over tp (expert tensor parallel = tp); each local expert
//   is ZeRO-sharded again over the remaining dp_shard*cp/ep ranks.
// - Norm gains and biases are divided by tp with the rest (they are < 0.1% of any preset).
// - Activation bytes follow Korthikanti's per-layer formulas for a standard transformer block
//   (16-bit activations, 1-byte dropout masks); CP divides the sequence. GQA, SwiGLU and MoE blocks
//   store somewhat different tensors: the formula is the published one, not a per-architecture count.
// - Flash attention (training.attention, the default) never stores the s x s scores, whatever the
//   recompute: Korthikanti's 5as/h term counts only with eager attention and no recompute.
// - `other` = FSDP's gathered layer (the current and the prefetched block, unsharded), the logits of
//   the loss on the last stage at their peak (loss_peak_bytes_per_logit: Korthikanti's 4sbv/t on
//   Megatron-LM's fused loss, 12sbv/t for PyTorch's cross_entropy), communication buffers (TP's gathered
//   activation and a gradient bucket: Megatron-LM's default of 40M elements, or the stage's
//   gradients when fewer), and under full recompute the working set of the one block being
//   recomputed (its activations as if stored).
// - `reserved` = the runtime's fixed reserve plus the allocator's slack on the tensors above.

#include "core/model/params.hpp"
#include "core/scenario/scenario.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

// Bytes each parameter costs in weights, gradients and optimizer state (Adam).
struct StateBytesPerParam {
    double weights = 0;
    double grads = 0;
    double optimizer = 0;
    [[nodiscard]] double total() const noexcept { return weights + grads + optimizer; }
};

// Bytes of one activation element: 4 in fp32 training, 2 in every 16-bit (and FP8) precision, whose
// activations between kernels stay 16-bit.
[[nodiscard]] double activation_dtype_bytes(Precision p) noexcept;

// mixed-bf16 2 + 2 + 12 (fp32 master, m, v); fp32 4 + 4 + 8; megatron-bf16 2 + 4 (fp32 grads) + 12;
// megatron-fp16 2 + 2 + 16 (fp32 master, m, v and the fp32 gradient copy the optimizer steps on: 20);
// fp8 (Transformer Engine under Megatron-LM): 2 (bf16 weights) + 1 (their FP8 copy, cast once per
// step and kept for the GEMMs) as weights, 4 (fp32 main grads) and 12 (fp32 master, m, v): 19.
[[nodiscard]] StateBytesPerParam state_bytes_per_param(Precision p) noexcept;
// The same for a training setup: bf16 Adam moments take 2 bytes each instead of 4; FP8 parameters
// (fp8_param_gather) keep 1 byte of weight, the FP8 copy alone.
[[nodiscard]] StateBytesPerParam state_bytes_per_param(const TrainingSpec& t) noexcept;

// The FP8 copy is kept only for the blocks' linear layers: the embedding is a lookup and the output
// layer runs in BF16 (Megatron-Core's output layer sits outside Transformer Engine's FP8 region), so
// their weights are state_bytes_per_param's less the copy; the rest is the same.
[[nodiscard]] StateBytesPerParam end_layer_state_bytes(Precision p) noexcept;
[[nodiscard]] StateBytesPerParam end_layer_state_bytes(const TrainingSpec& t) noexcept;

// Bytes a parameter crosses the network with when weights are all-gathered (ZeRO's gather of the
// updated weights, FSDP's gather of a block): the training copy, BF16 under FP8 too (each GPU casts
// its own FP8 copy).
[[nodiscard]] double gathered_weight_bytes(Precision p) noexcept;
// The same for a block's weights: 1 byte with FP8 parameters (Megatron-LM's --fp8-param-gather
// gathers the FP8 weight itself; "reducing the all-gather overhead by half", NeMo's performance
// guide); the embedding and the output layer keep gathered_weight_bytes.
[[nodiscard]] double gathered_block_weight_bytes(const TrainingSpec& t) noexcept;
// The mean over `end_params` embedding and output weights and `block_params` block weights.
[[nodiscard]] double gathered_mean_weight_bytes(const TrainingSpec& t, double end_params, double block_params) noexcept;

// Host bytes for an optimizer offloaded to the CPU, from the GPU-resident optimizer bytes it replaces:
// the state itself (FP32 master weights and Adam's moments) and an FP32 copy of the gradients the CPU
// steps on (DeepSpeed's ZeRO-Offload keeps them in pinned host buffers, Ren et al. 2021 section 4;
// Megatron-LM's HybridDeviceOptimizer copies each main grad into a pinned CPU tensor), 4 bytes a
// parameter, except under megatron-fp16, whose optimizer bytes already hold that FP32 copy.
[[nodiscard]] double offloaded_optimizer_host_bytes(double optimizer_bytes, const TrainingSpec& t) noexcept;

struct ModelStateBytes {
    double params = 0;
    double grads = 0;
    double optimizer = 0;
    [[nodiscard]] double total() const noexcept { return params + grads + optimizer; }
    ModelStateBytes& operator+=(const ModelStateBytes& o) noexcept {
        params += o.params;
        grads += o.grads;
        optimizer += o.optimizer;
        return *this;
    }
};

// Model state of `params` parameters (already divided by TP/PP/EP) on one GPU of a ZeRO group of
// `shard_ranks`: stage 1 shards the optimizer state, 2 also the gradients, 3 also the weights.
[[nodiscard]] ModelStateBytes model_state_bytes(double params, const StateBytesPerParam& per, int zero,
                                                int64_t shard_ranks) noexcept;
// The same at the precision's bytes per parameter (state_bytes_per_param).
[[nodiscard]] ModelStateBytes model_state_bytes(double params, Precision precision, int zero,
                                                int64_t shard_ranks) noexcept;

// One transformer block's activations: the shape of every tensor its backward reads.
struct ActivationShape {
    int64_t seq_len = 0;     // s, the full sequence (CP divides it here)
    int64_t micro_batch = 1; // b
    int64_t hidden = 0;      // h
    int64_t heads = 0;       // a
    int64_t tp = 1;          // t
    int64_t cp = 1;
    bool sequence_parallel = false;
    Recompute recompute = Recompute::none;
    bool eager_attention = false;  // training.attention eager: the s x s scores are stored
    // FP8 GEMMs keep their inputs for the weight gradient as FP8, 1 byte an element.
    bool fp8_linear_inputs = false;
    // The block itself. Left at their defaults they describe Korthikanti's GPT block: dropout, a GeLU
    // MLP 4h wide, queries, keys, values and the attention output h wide each.
    bool dropout = true;
    bool swiglu = false;           // the MLP keeps both the gate's and the up projection's output
    int64_t ffn_hidden = 0;        // 0: 4h
    int64_t q_width = 0;           // per token, every head; 0: h
    int64_t key_width = 0;         // 0: h (GQA: kv_heads x head_dim)
    int64_t value_width = 0;       // 0: h (GQA: kv_heads x head_dim)
    int64_t out_width = 0;         // the attention output, every head; 0: h
    int64_t q_latent = 0;          // MLA: the query latent's width (0: none)
    int64_t kv_latent = 0;         // MLA: the key-value latent's width (0: none)
    // An MoE block: each token's top_k routed copies run an expert MLP, beside the shared experts.
    bool moe = false;
    int64_t experts = 0;
    double routed_copies = 0;      // top_k, times the capacity factor where experts are padded
    int64_t expert_ffn_hidden = 0;
    int64_t shared_experts = 0;
    // Selective recompute on the PyTorch stack (op_recompute.hpp): the elements a token keeps, in place
    // of the tensors above; 0 otherwise.
    double op_policy_elements = 0;
    // The fused stack (Megatron-LM, Transformer Engine): an expert weighs its tokens by the router's
    // probability inside its activation function, so the combine keeps no expert output, only the
    // probability (4 bytes a copy).
    bool weighted_expert_activation = false;
    // Megatron-LM's output-discarding recompute (--recompute-modules) and FP8 activation inputs.
    bool recompute_norms = false;        // layernorm: the two norms' outputs are not kept
    bool recompute_mla_up_proj = false;  // mla_up_proj: Q, K, V and the normed latents are not kept
    bool recompute_expert_act = false;   // moe_act: the experts' activation output is not kept
    bool fp8_activation_input = false;   // the activation function's input in FP8, 1 byte an element
};

// Bytes one block keeps for its backward, per micro-batch, s = seq/cp, counted tensor by tensor in
// bf16 (2 bytes; a dropout mask 1) as Korthikanti et al. 2022 count them for GPT. Per token:
//   attention: the norm's input 2h, the QKV input 2h, Q, K and V 2(q + k + v), the attention output
//              (the output projection's input) 2o, a dropout mask h; MLA adds its latents before and
//              after their norms, 4(q_latent + kv_latent); eager attention also keeps the a x s
//              probabilities, with their dropout mask and output 5as (2as without dropout)
//   MLP:       the norm's input 2h, the first matmul's input 2h, GeLU's input and output 4f (SwiGLU's
//              gate and up outputs and their product 6f), a dropout mask h
//   MoE MLP:   the norm's input and the router's input 4h, the router's scores and probabilities 4E;
//              per routed copy the expert's input and output 4h (the output for the routing weight's
//              gradient; on the fused stack the weight, 4 bytes, as the activation applies it) and
//              its MLP 6f_e (4f_e GeLU); per shared expert 6f_e; a dropout mask h
// In FP8 (Transformer Engine) a GEMM keeps the FP8 copy of its input for the weight gradient, 1 byte
// an element (TE maintainers, NVIDIA/TransformerEngine#1764: "we cache the FP8 data ... or the FP8
// transpose data (on Hopper)"): the QKV and first-MLP inputs, the second MLP matmul's input and each
// expert's input take 1 byte instead of 2; the attention output is kept twice, in bf16 for flash
// attention's backward and in FP8 for the output projection's (3 bytes).
// TP splits the head- and f-wide tensors over t; the h-wide ones only with SP, and an expert's input
// and output never (expert TP gathers its tokens). For GPT (dropout, GeLU 4h, every width h) this is
// Korthikanti's Table 2 (q = k = v = o = h):
//   none, TP only:         sbh (10 + 24/t + 5as/(ht))   (5as/(ht) with eager attention only)
//   none, TP + SP:         sbh (34/t + 5as/(ht))
//   selective, TP only:    sbh (10 + 24/t)
//   selective, TP + SP:    sbh (34/t)
// and for any block, full recompute keeps its input: 2sbh (2sbh/t when SP keeps it sharded).
// Megatron-LM's selective modules take away what they rebuild: layernorm the norms' outputs (the QKV
// and first MLP matmul's inputs), mla_up_proj Q, K, V and the normed latents, moe_act each routed
// copy's activation output; --activation-func-fp8-input-store halves the activation's input.
[[nodiscard]] double activation_bytes_per_layer(const ActivationShape& shape) noexcept;

// The scenario's dense block (moe false) or routed block (moe true).
[[nodiscard]] ActivationShape activation_shape(const Scenario& s, bool moe = false) noexcept;

struct MemoryBreakdown {
    double params = 0;
    double grads = 0;
    double optimizer = 0;
    std::optional<double> activations;  // null for a parameter-count-only model
    double other = 0;
    // The runtime's own share: CUDA context, NCCL buffers and workspaces, and the allocator's slack
    // (core/model/hardware.hpp). Shown, never folded into headroom.
    double reserved = 0;
    // Held in host memory for this GPU, not on it: the offloaded optimizer's state and the FP32
    // gradients its CPU step reads (training.offload optimizer; 0 otherwise).
    double host = 0;
    // Weights, gradients and optimizer state: the part ZeRO and FSDP shard.
    [[nodiscard]] double model_state() const noexcept { return params + grads + optimizer; }
    [[nodiscard]] double tensors() const noexcept {
        return model_state() + activations.value_or(0) + other;
    }
    [[nodiscard]] double total() const noexcept { return tensors() + reserved; }
};

// One pipeline stage's GPUs (every GPU of a stage holds the same amount).
// What MemoryBreakdown::other holds, bytes each (they sum to it).
struct OtherMemory {
    double gathered_blocks = 0;   // FSDP: the block running and the next one prefetched, unsharded
    double logits = 0;            // the last stage: the loss's fp32 logits of the micro-batch at their peak
    double tp_gather = 0;         // TP: the micro-batch's full activation gathered for a matmul
    double grad_bucket = 0;       // the data-parallel reduction's bucket
    double recompute_working = 0; // the block a recompute is re-running, its activations live again
    [[nodiscard]] double total() const noexcept {
        return gathered_blocks + logits + tp_gather + grad_bucket + recompute_working;
    }
};

// Bytes a logit costs at the loss's peak (fp32 softmax, and on the PyTorch stack its gradients).
[[nodiscard]] double loss_peak_bytes_per_logit(const TrainingSpec& t) noexcept;

// The parts of `other` that are not zero, one line each ("fp32 logits for the loss: 2.00 GiB").
[[nodiscard]] std::vector<std::string> describe_other_memory(const OtherMemory& o);

struct StageMemory {
    int64_t stage = 0;
    int64_t layers = 0;
    double inflight_microbatches = 0;  // micro-batches of the whole stage's activations held at the peak
    MemoryBreakdown bytes;
    OtherMemory other;  // bytes.other, part by part
};

// Memory of one GPU of pipeline stage `stage`. `inflight_microbatches` is the peak number of
// micro-batches whose activations the stage holds (read off the pipeline simulator).
[[nodiscard]] StageMemory stage_memory(const Scenario& s, const ParamCounts& counts, int64_t stage,
                                       double inflight_microbatches);

// What stage_memory reads from the model's counts: the stage's parameters and its largest block as one
// GPU holds it. Depends only on pp, tp and ep, so a caller that prices many scenarios of one layout
// (the planner: every ZeRO stage, micro-batch and recompute) computes it once per stage.
struct StageShape {
    StageParams params;
    double largest_block = 0;
};
[[nodiscard]] StageShape stage_shape(const ParamCounts& counts, const ParallelSpec& p, int64_t stage);
// stage_memory with the shape already computed (stage_shape(counts, s.parallel, stage)): the same numbers.
[[nodiscard]] StageMemory stage_memory(const Scenario& s, const StageShape& shape, int64_t stage,
                                       double inflight_microbatches);

// One block's activation bytes per micro-batch under the scenario's recompute, dense and MoE, and as
// they are with nothing recomputed (what recompute_method block keeps of the blocks it leaves alone).
// The same on every stage: a caller that prices many stages of one scenario takes it once.
struct BlockActivations {
    double dense = 0, moe = 0;
    double dense_whole = 0, moe_whole = 0;
};
[[nodiscard]] BlockActivations block_activations(const Scenario& s) noexcept;
// stage_memory with the block activations already computed (block_activations(s)): the same numbers.
[[nodiscard]] StageMemory stage_memory(const Scenario& s, const StageShape& shape, int64_t stage,
                                       double inflight_microbatches, const BlockActivations& blocks);

// Every stage, with the in-flight counts of the schedule (one entry per stage).
[[nodiscard]] std::vector<StageMemory> memory_per_stage(const Scenario& s, const ParamCounts& counts,
                                                        const std::vector<double>& inflight_per_stage);

// The stage whose GPUs need the most memory (the most loaded GPU of docs/design.md's report).
[[nodiscard]] const StageMemory& most_loaded(const std::vector<StageMemory>& stages);

// The capacity judged against: what the card exposes (nvidia-smi's total, core/model/hardware.hpp),
// not memory_gb x 1e9.
[[nodiscard]] double gpu_memory_bytes(const ClusterSpec& c) noexcept;


}  // namespace shardscope
