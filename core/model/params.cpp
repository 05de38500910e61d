#include "core/model/params.hpp"

#include <algorithm>

namespace shardscope {
namespace {

// SwiGLU gates: gate, up and down; GeLU and squared ReLU run up and down alone.
double ffn_matrices(Ffn ffn) noexcept { return ffn == Ffn::swiglu ? 3.0 : 2.0; }

double attention_params(const ModelSpec& m) noexcept {
    const double h = static_cast<double>(m.hidden);
    if (m.is_mla()) {
        // DeepSeek-V2/V3's MLA: queries down to q_lora_rank and up to every head's nope + rope width
        // (or straight up when q_lora_rank is 0); keys and values down to kv_lora_rank plus one shared
        // rotary key, up to every head's nope key and value; the output from every head's value; the
        // two latents' norms. DeepSeek-V3: 187.1M weights a layer.
        const double heads = static_cast<double>(m.heads);
        const double qk = static_cast<double>(m.qk_head_dim()), v = static_cast<double>(m.v_head_dim);
        const double q_rank = static_cast<double>(m.q_lora_rank), kv_rank = static_cast<double>(m.kv_lora_rank);
        const double q = q_rank > 0 ? h * q_rank + q_rank * heads * qk + q_rank : h * heads * qk;
        const double kv = h * (kv_rank + static_cast<double>(m.qk_rope_head_dim)) +
                          kv_rank * heads * (static_cast<double>(m.qk_nope_head_dim) + v) + kv_rank;
        return q + kv + heads * v * h;
    }
    const double head_dim = static_cast<double>(m.attention_head_dim());
    const double q_width = static_cast<double>(m.heads) * head_dim;
    const double kv_width = static_cast<double>(m.kv_heads) * head_dim;
    return 2.0 * h * q_width + 2.0 * h * kv_width;  // q and o, then k and v
}

// Position of a stage in the order that loses a layer first: 0, pp-1, 1, pp-2, ...
int64_t trim_rank(int64_t pp, int64_t stage) noexcept {
    const int64_t from_end = pp - 1 - stage;
    return stage <= from_end ? 2 * stage : 2 * from_end + 1;
}

int64_t layers_on_stage(int64_t layers, int64_t pp, int64_t stage) noexcept {
    const int64_t base = layers / pp;
    const int64_t short_stages = pp - layers % pp;  // stages holding `base`; the rest hold base + 1
    return base + (trim_rank(pp, stage) < short_stages ? 0 : 1);
}

}  // namespace

ParamCounts count_params(const ModelSpec& m) noexcept {
    ParamCounts c;
    if (!m.has_architecture()) {
        c.total = m.params.value_or(0.0);
        c.active_per_token = c.total;
        return c;
    }
    c.from_architecture = true;
    const double h = static_cast<double>(m.hidden);
    c.layers = m.layers;
    c.moe_layers = m.is_moe() ? m.layers - m.dense_layers : 0;
    c.dense_layers = m.layers - c.moe_layers;

    c.embedding = static_cast<double>(m.vocab) * h;
    c.tied_output = m.tie_embeddings;
    c.output = m.tie_embeddings ? 0.0 : c.embedding;
    c.final_norm = h;
    c.attention_per_layer = attention_params(m);
    c.norms_per_layer = 2.0 * h;
    c.dense_ffn_per_layer = ffn_matrices(m.ffn) * h * static_cast<double>(m.ffn_hidden);
    if (m.is_moe()) {
        c.expert_ffn = ffn_matrices(m.ffn) * h * static_cast<double>(m.expert_ffn_hidden);
        c.routed_experts_per_layer = static_cast<double>(m.experts) * c.expert_ffn;
        c.shared_experts_per_layer = static_cast<double>(m.shared_experts) * c.expert_ffn;
        c.router_per_layer = h * static_cast<double>(m.experts);
    }

    c.mtp_layers = m.mtp_layers;
    c.mtp_extra = m.mtp_layers > 0 ? 3.0 * h + 2.0 * h * h : 0.0;

    const double outside_blocks = c.embedding + c.output + c.final_norm;
    const double dense_blocks = static_cast<double>(c.dense_layers) * c.dense_layer();
    const double moe_blocks = static_cast<double>(c.moe_layers) * c.moe_layer();
    const double mtp = static_cast<double>(c.mtp_layers);
    c.total = outside_blocks + dense_blocks + moe_blocks + mtp * c.mtp_module();

    const double moe_block_active = c.attention_per_layer + c.norms_per_layer + c.router_per_layer +
                                    c.shared_experts_per_layer +
                                    static_cast<double>(m.top_k) * c.expert_ffn;
    const double mtp_active = (c.mtp_is_moe() ? moe_block_active : c.dense_layer()) + c.mtp_extra;
    c.active_per_token = outside_blocks + dense_blocks + static_cast<double>(c.moe_layers) * moe_block_active +
                         mtp * mtp_active;
    return c;
}

double layer_params(const ParamCounts& c, int64_t layer) noexcept {
    if (layer < 0 || layer >= c.layers) return 0;
    return c.is_moe_layer(layer) ? c.moe_layer() : c.dense_layer();
}

double layer_routed_expert_params(const ParamCounts& c, int64_t layer) noexcept {
    if (layer < 0 || layer >= c.layers) return 0;
    return c.is_moe_layer(layer) ? c.routed_experts_per_layer : 0;
}

StageLayers stage_layers(int64_t layers, int64_t pp, int64_t stage) noexcept {
    if (pp < 1 || stage < 0 || stage >= pp) return {};
    StageLayers s;
    // The sum of layers_on_stage over the stages before `stage`, in closed form (the planner asks for
    // every stage of thousands of layouts): each holds `base`, plus one for each that trim_rank ranks at
    // or past short_stages. Front half (rank 2*before): before >= ceil(short/2). Back half (rank
    // 2*(pp-1-before)+1): before <= pp-1-floor(short/2). The test compares it with the plain sum.
    const int64_t base = layers / pp;
    const int64_t short_stages = pp - layers % pp;
    const int64_t front_last = (pp - 1) / 2;  // the last stage whose trim_rank is 2*stage
    int64_t longer = 0;
    const int64_t front_hi = std::min(stage - 1, front_last);
    const int64_t front_lo = (short_stages + 1) / 2;
    if (front_hi >= front_lo) longer += front_hi - front_lo + 1;
    const int64_t back_hi = std::min(stage - 1, pp - 1 - short_stages / 2);
    if (back_hi > front_last) longer += back_hi - front_last;
    s.first = stage * base + longer;
    s.count = layers_on_stage(layers, pp, stage);
    return s;
}

BlockKinds block_kinds(const ParamCounts& c, StageLayers layers) noexcept {
    const int64_t first = std::max<int64_t>(0, layers.first);
    const int64_t end = std::min(c.layers, layers.first + layers.count);
    if (end <= first) return {};
    const int64_t moe_from = c.moe_layers > 0 ? std::max(first, c.dense_layers) : end;
    BlockKinds k;
    k.moe = std::max<int64_t>(0, end - moe_from);
    k.dense = end - first - k.moe;
    return k;
}

bool has_custom_split(const ParallelSpec& p) noexcept {
    return p.first_stage_layers > 0 || p.last_stage_layers > 0 || p.embedding_in_pipeline_split ||
           p.loss_in_pipeline_split;
}

namespace {

int64_t custom_stage_count(int64_t layers, const ParallelSpec& p, int64_t stage) noexcept {
    const int64_t last = p.pp - 1;
    if (p.first_stage_layers > 0 || p.last_stage_layers > 0) {
        if (stage == 0 && p.first_stage_layers > 0) return p.first_stage_layers;
        if (stage == last && p.last_stage_layers > 0) return p.last_stage_layers;
        const int64_t lo = p.first_stage_layers > 0 ? 1 : 0;
        const int64_t rest_stages = p.pp - lo - (p.last_stage_layers > 0 ? 1 : 0);
        const int64_t rest = layers - p.first_stage_layers - p.last_stage_layers;
        return layers_on_stage(rest, rest_stages, stage - lo);
    }
    // The embedding and the loss take a layer's place on their stages.
    const int64_t extra_first = p.embedding_in_pipeline_split ? 1 : 0;
    const int64_t extra_last = p.loss_in_pipeline_split ? 1 : 0;
    int64_t count = layers_on_stage(layers + extra_first + extra_last, p.pp, stage);
    if (stage == 0) count -= extra_first;
    if (stage == last) count -= extra_last;
    return std::max<int64_t>(0, count);
}

// The sum of custom_stage_count over the stages before `stage`, in closed form from stage_layers'
// own (the planner asks for every stage of thousands of layouts; a loop made it quadratic in pp).
int64_t custom_layers_before(int64_t layers, const ParallelSpec& p, int64_t stage) noexcept {
    if (stage <= 0) return 0;
    if (p.first_stage_layers > 0 || p.last_stage_layers > 0) {
        const int64_t lo = p.first_stage_layers > 0 ? 1 : 0;
        const int64_t rest_stages = p.pp - lo - (p.last_stage_layers > 0 ? 1 : 0);
        const int64_t rest = layers - p.first_stage_layers - p.last_stage_layers;
        // The middle stages before `stage`: all of them once `stage` is the last.
        const int64_t middle = std::min(stage - lo, rest_stages);
        const int64_t in_middle = middle >= rest_stages ? (rest_stages > 0 ? rest : 0)
                                                        : stage_layers(rest, rest_stages, middle).first;
        return (lo ? p.first_stage_layers : 0) + in_middle;
    }
    const int64_t extra_first = p.embedding_in_pipeline_split ? 1 : 0;
    const int64_t units = layers + extra_first + (p.loss_in_pipeline_split ? 1 : 0);
    // Stage 0 gives up a unit to the embedding, never below none; the last stage is never before another.
    const int64_t first_stage_units = layers_on_stage(units, p.pp, 0);
    return stage_layers(units, p.pp, stage).first - first_stage_units +
           std::max<int64_t>(0, first_stage_units - extra_first);
}

}  // namespace

StageLayers stage_layers(int64_t layers, const ParallelSpec& p, int64_t stage) noexcept {
    if (!has_custom_split(p)) return stage_layers(layers, p.pp, stage);
    if (p.pp < 1 || stage < 0 || stage >= p.pp) return {};
    StageLayers s;
    s.first = custom_layers_before(layers, p, stage);
    s.count = std::min(custom_stage_count(layers, p, stage), std::max<int64_t>(0, layers - s.first));
    return s;
}

StageParams stage_params(const ParamCounts& c, int64_t pp, int64_t stage) noexcept {
    ParallelSpec p;
    p.pp = pp;
    return stage_params(c, p, stage);
}

StageParams stage_params(const ParamCounts& c, const ParallelSpec& p, int64_t stage) noexcept {
    StageParams s;
    const int64_t pp = p.pp;
    if (pp < 1 || stage < 0 || stage >= pp) return s;
    if (!c.from_architecture) {
        s.blocks_non_expert = c.total / static_cast<double>(pp);
        return s;
    }
    s.layers = stage_layers(c.layers, p, stage);
    // Every dense block is alike, and so is every MoE block: counted by kind, not summed block by block.
    const BlockKinds kinds = block_kinds(c, s.layers);
    const auto dense = static_cast<double>(kinds.dense);
    const auto moe = static_cast<double>(kinds.moe);
    s.routed_experts = moe * c.routed_experts_per_layer;
    s.blocks_non_expert = dense * c.dense_layer() + moe * (c.moe_layer() - c.routed_experts_per_layer);
    if (stage == 0) s.embedding = c.embedding;
    // A tied LM head is the embedding itself on one stage; with pp > 1 the last stage keeps a copy
    // (Megatron-LM all-reduces the two copies' gradients).
    const double head = c.tied_output ? (pp > 1 ? c.embedding : 0.0) : c.output;
    if (stage == pp - 1) {
        s.output = head + c.final_norm;
        // Megatron-LM places every MTP module on the last stage (mtp_on_this_rank without a custom
        // layout, megatron/core/transformer/multi_token_prediction.py).
        s.mtp = c.mtp_layers;
        const double mtp = static_cast<double>(c.mtp_layers);
        const double routed = c.mtp_is_moe() ? c.routed_experts_per_layer : 0.0;
        s.routed_experts += mtp * routed;
        s.blocks_non_expert += mtp * (c.mtp_module() - routed);
    }
    return s;
}

}  // namespace shardscope
