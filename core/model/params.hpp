#pragma once
// Parameter count of a model from its architecture (docs/design.md, "The scenario": embeddings, attention
// with GQA, gelu or swiglu FFN, MoE experts, norms), and how pipeline stages split it.
//
// Conventions, chosen once here:
// - Weight matrices only: biases are left out (Llama, Mixtral and DeepSeek-V3 have none; GPT-3's add
//   about 0.1%). Norms count one gain vector of `hidden` each (RMSNorm; LayerNorm's bias is left out).
// - The output layer (LM head) is vocab*hidden of its own, unless model.tie_embeddings shares the
//   input embedding's matrix (counted once; a pipeline's last stage keeps a copy). No positional
//   table (rotary embeddings have no weights; GPT-3's learned 2048 x 12288 table is 0.01%).
// - head_dim = hidden / heads unless model.head_dim sets it. GQA: q and o are hidden x (heads * head_dim),
//   k and v hidden x (kv_heads * head_dim).
// - FFN: gelu has 2 matrices (up, down), swiglu 3 (gate, up, down), each hidden x ffn_hidden.
// - MoE layers (all layers after the first `dense_layers` when experts > 0) replace the dense FFN by
//   `experts` routed experts and `shared_experts` always-on experts, each an FFN of expert_ffn_hidden,
//   plus a router of hidden x experts.

#include "core/scenario/scenario.hpp"

#include <cstdint>

namespace shardscope {

// Counts are doubles: exact up to 2^53 (9e15), far above any model, and a bare `params` is a double.
struct ParamCounts {
    // False for a model given only as `params`: then total == params, active == params and every
    // breakdown field is zero (there is no architecture to break down).
    bool from_architecture = false;

    int64_t layers = 0;             // transformer blocks
    int64_t dense_layers = 0;       // blocks with a dense FFN (all of them for a dense model)
    int64_t moe_layers = 0;         // blocks with routed experts

    double embedding = 0;           // vocab * hidden
    double output = 0;              // LM head, vocab * hidden (0 when tied to the embedding)
    bool tied_output = false;       // model.tie_embeddings: the LM head is the embedding
    double final_norm = 0;          // hidden

    // Per transformer block.
    double attention_per_layer = 0;     // q, k, v, o
    double norms_per_layer = 0;         // two norms of hidden
    double dense_ffn_per_layer = 0;     // in a dense block
    double expert_ffn = 0;              // one expert's FFN (routed or shared)
    double routed_experts_per_layer = 0;  // experts * expert_ffn, in an MoE block
    double shared_experts_per_layer = 0;  // shared_experts * expert_ffn, in an MoE block
    double router_per_layer = 0;          // hidden * experts, in an MoE block

    // Multi-token prediction (model.mtp_layers): each module is a block of the last block's kind plus
    // mtp_extra, its two input norms, its 2h x h projection and its final norm (3h + 2h^2, as
    // Megatron-LM's num_floating_point_operations counts them); embedding and output layer are shared.
    int64_t mtp_layers = 0;
    double mtp_extra = 0;

    double total = 0;
    // Parameters one token passes through: MoE blocks count only top_k routed experts plus the shared
    // ones (and the router). Embedding and output are included, as DeepSeek and Mistral count them.
    double active_per_token = 0;

    [[nodiscard]] double dense_layer() const noexcept {
        return attention_per_layer + norms_per_layer + dense_ffn_per_layer;
    }
    [[nodiscard]] double moe_layer() const noexcept {
        return attention_per_layer + norms_per_layer + routed_experts_per_layer + shared_experts_per_layer +
               router_per_layer;
    }
    [[nodiscard]] bool is_moe_layer(int64_t layer) const noexcept {
        return moe_layers > 0 && layer >= dense_layers;
    }
    // An MTP module's block is of the last block's kind (Megatron-LM builds it from the last layer's spec).
    [[nodiscard]] bool mtp_is_moe() const noexcept { return is_moe_layer(layers - 1); }
    [[nodiscard]] double mtp_module() const noexcept { return (mtp_is_moe() ? moe_layer() : dense_layer()) + mtp_extra; }
};

[[nodiscard]] ParamCounts count_params(const ModelSpec& model) noexcept;

// Parameters of transformer block `layer` (0-based); 0 outside [0, layers).
[[nodiscard]] double layer_params(const ParamCounts& counts, int64_t layer) noexcept;
// The routed-expert part of block `layer` (what expert parallelism splits); 0 for a dense block.
[[nodiscard]] double layer_routed_expert_params(const ParamCounts& counts, int64_t layer) noexcept;

// Whole layers per pipeline stage, as evenly as possible. When layers % pp != 0 the stages that get
// one layer fewer are taken from the ends inward (stage 0, stage pp-1, stage 1, stage pp-2, ...),
// because the first stage also holds the embedding and the last the output layer and the loss. This
// is Llama 3's choice: 126 layers on 16 stages puts 7 layers on the first and last, 8 elsewhere.
struct StageLayers {
    int64_t first = 0;   // index of the stage's first block
    int64_t count = 0;   // blocks on the stage
};
// Requires 1 <= pp <= layers and 0 <= stage < pp (validate_scenario enforces pp <= layers).
[[nodiscard]] StageLayers stage_layers(int64_t layers, int64_t pp, int64_t stage) noexcept;
// The split the scenario asks for: uneven ends (parallel.first_stage_layers / last_stage_layers:
// those stages hold exactly that many, the rest split as above) or the embedding and the loss
// counted as a layer each (Megatron-LM's --account-for-embedding/loss-in-pipeline-split); else the
// even split above.
[[nodiscard]] StageLayers stage_layers(int64_t layers, const ParallelSpec& p, int64_t stage) noexcept;
[[nodiscard]] bool has_custom_split(const ParallelSpec& p) noexcept;

// How many of a stage's blocks are dense and how many MoE (dense blocks come first in the model).
struct BlockKinds {
    int64_t dense = 0;
    int64_t moe = 0;
};
[[nodiscard]] BlockKinds block_kinds(const ParamCounts& counts, StageLayers layers) noexcept;

// What one pipeline stage holds, before TP / EP / ZeRO divide it.
struct StageParams {
    StageLayers layers;
    // Multi-token prediction modules (last stage only); their blocks' weights are in blocks_non_expert
    // and routed_experts like any block's, their norms and projection in blocks_non_expert.
    int64_t mtp = 0;
    double embedding = 0;        // first stage only
    double output = 0;           // last stage only: LM head + final norm
    double blocks_non_expert = 0;  // attention, norms, dense FFN, shared experts, routers of its blocks
    double routed_experts = 0;     // routed experts of its blocks (split by EP)

    [[nodiscard]] double total() const noexcept {
        return embedding + output + blocks_non_expert + routed_experts;
    }
};
// For a model given only as `params`, the stage gets total / pp as blocks_non_expert (no architecture
// says otherwise).
[[nodiscard]] StageParams stage_params(const ParamCounts& counts, int64_t pp, int64_t stage) noexcept;
[[nodiscard]] StageParams stage_params(const ParamCounts& counts, const ParallelSpec& p, int64_t stage) noexcept;

}  // namespace shardscope
