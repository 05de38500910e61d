#include "core/model/memory.hpp"
#include "core/model/zero3.hpp"

#include "core/model/hardware.hpp"
#include "core/model/op_recompute.hpp"
#include "core/scenario/units.hpp"
#include "core/pipeline/pipeline.hpp"

#include <algorithm>

namespace shardscope {
namespace {

// Activations are 16-bit in both mixed precisions; fp32 training stores them in 4 bytes, which
// doubles every term of Korthikanti's formulas (they count 2-byte tensors and 1-byte masks).
double activation_scale(Precision p) noexcept { return p == Precision::fp32 ? 2.0 : 1.0; }


int64_t zero_shard_ranks(const ParallelSpec& p) noexcept { return p.dp_shard * p.cp; }

int64_t expert_shard_ranks(const ParallelSpec& p) noexcept {
    return std::max<int64_t>(1, p.dp_shard * p.cp / std::max<int64_t>(1, p.ep));
}

// The largest block of the stage as one GPU holds it once gathered (TP and EP still split it).
double largest_local_block(const ParamCounts& counts, const StageLayers& layers, const ParallelSpec& p) {
    double largest = 0;
    for (int64_t i = layers.first; i < layers.first + layers.count; ++i) {
        const double routed = layer_routed_expert_params(counts, i);
        const double local = (layer_params(counts, i) - routed) / static_cast<double>(p.tp) +
                             routed / static_cast<double>(p.ep * p.tp);
        largest = std::max(largest, local);
    }
    return largest;
}

struct BlockCounts {
    int64_t dense = 0;
    int64_t moe = 0;
};

// A stage's blocks: an MoE model's first dense_layers keep a dense MLP.
BlockCounts block_counts(const ModelSpec& m, const StageLayers& layers) {
    BlockCounts out;
    const int64_t end = layers.first + layers.count;
    out.moe = m.is_moe() ? std::max<int64_t>(0, end - std::max(layers.first, m.dense_layers)) : 0;
    out.dense = layers.count - out.moe;
    return out;
}

}  // namespace

double activation_dtype_bytes(Precision p) noexcept { return p == Precision::fp32 ? 4.0 : 2.0; }

StateBytesPerParam state_bytes_per_param(Precision p) noexcept {
    switch (p) {
        case Precision::mixed_bf16: return {2, 2, 12};
        case Precision::fp32: return {4, 4, 8};
        case Precision::megatron_bf16: return {2, 4, 12};
        case Precision::megatron_fp16: return {2, 2, 16};
        case Precision::fp8: return {3, 4, 12};
    }
    return {2, 2, 12};
}

StateBytesPerParam state_bytes_per_param(const TrainingSpec& t) noexcept {
    StateBytesPerParam per = state_bytes_per_param(t.precision);
    if (t.bf16_adam_moments) per.optimizer -= 4.0;  // m and v, 2 bytes each instead of 4
    if (fp8_param_gather_on(t)) per.weights = 1.0;  // the FP8 weight alone
    if (grad_reduce_in_bf16_on(t)) per.grads = 2.0;
    return per;
}

StateBytesPerParam end_layer_state_bytes(const TrainingSpec& t) noexcept {
    // The blocks' state, but for the weights: FP8 copies (and FP8 parameters) are the blocks' alone.
    StateBytesPerParam per = state_bytes_per_param(t);
    per.weights = end_layer_state_bytes(t.precision).weights;
    return per;
}

StateBytesPerParam end_layer_state_bytes(Precision p) noexcept {
    StateBytesPerParam per = state_bytes_per_param(p);
    if (p == Precision::fp8) per.weights -= 1.0;  // the FP8 copy's byte
    return per;
}

double gathered_weight_bytes(Precision p) noexcept { return end_layer_state_bytes(p).weights; }

double gathered_block_weight_bytes(const TrainingSpec& t) noexcept {
    return fp8_param_gather_on(t) ? 1.0 : gathered_weight_bytes(t.precision);
}

double gathered_mean_weight_bytes(const TrainingSpec& t, double end_params, double block_params) noexcept {
    const double all = end_params + block_params;
    if (all <= 0) return gathered_weight_bytes(t.precision);
    return (end_params * gathered_weight_bytes(t.precision) + block_params * gathered_block_weight_bytes(t)) / all;
}

double offloaded_optimizer_host_bytes(double optimizer_bytes, const TrainingSpec& t) noexcept {
    const double per_param = state_bytes_per_param(t).optimizer;
    if (per_param <= 0 || optimizer_bytes <= 0) return 0.0;
    const double gradient_copy = t.precision == Precision::megatron_fp16 ? 0.0 : 4.0;
    return optimizer_bytes * (per_param + gradient_copy) / per_param;
}

ModelStateBytes model_state_bytes(double params, Precision precision, int zero, int64_t shard_ranks) noexcept {
    return model_state_bytes(params, state_bytes_per_param(precision), zero, shard_ranks);
}

ModelStateBytes model_state_bytes(double params, const StateBytesPerParam& per, int zero, int64_t shard_ranks) noexcept {
    const double n = static_cast<double>(std::max<int64_t>(1, shard_ranks));
    ModelStateBytes out;
    out.params = params * per.weights / (zero >= 3 ? n : 1.0);
    out.grads = params * per.grads / (zero >= 2 ? n : 1.0);
    out.optimizer = params * per.optimizer / (zero >= 1 ? n : 1.0);
    return out;
}

double activation_bytes_per_layer(const ActivationShape& sh) noexcept {
    if (sh.cp < 1 || sh.tp < 1 || sh.hidden <= 0) return 0;
    const double tokens = static_cast<double>(sh.seq_len) / static_cast<double>(sh.cp) *
                          static_cast<double>(sh.micro_batch);
    const double h = static_cast<double>(sh.hidden);
    const double t = static_cast<double>(sh.tp);
    const double split = 1.0 / t;                               // head- and f-wide tensors
    const double token_split = sh.sequence_parallel ? split : 1.0;  // h-wide tensors
    if (sh.recompute == Recompute::full) return tokens * 2.0 * h * token_split;
    if (sh.recompute == Recompute::selective && sh.op_policy_elements > 0) return tokens * 2.0 * sh.op_policy_elements;

    const auto width = [&](int64_t w, double fallback) { return w > 0 ? static_cast<double>(w) : fallback; };
    const double q = width(sh.q_width, h), k = width(sh.key_width, h), v = width(sh.value_width, h);
    const double o = width(sh.out_width, h);
    const double mask = sh.dropout ? 1.0 : 0.0;
    double per_token = 0;
    // A GEMM's input kept for its weight gradient: bf16, or its FP8 copy.
    const double gemm_in = sh.fp8_linear_inputs ? 1.0 : 2.0;
    // The attention output: bf16 for flash attention's backward, plus the output projection's FP8 copy.
    const double attn_out = sh.fp8_linear_inputs ? 3.0 : 2.0;
    // A norm's output, kept as the next matmul's input unless the norm runs again.
    const double norm_out = sh.recompute_norms ? 0.0 : gemm_in;
    const double latent_norm_out = sh.recompute_mla_up_proj ? 0.0 : gemm_in;
    const double qkv = sh.recompute_mla_up_proj && (sh.q_latent + sh.kv_latent) > 0 ? 0.0 : 2.0 * (q + k + v);
    // Attention.
    per_token += (2.0 * h + norm_out * h + mask * h) * token_split;
    per_token += (2.0 + latent_norm_out) * static_cast<double>(sh.q_latent + sh.kv_latent) * token_split;
    per_token += (qkv + attn_out * o) * split;
    if (sh.eager_attention && sh.recompute == Recompute::none) {
        const double s = static_cast<double>(sh.seq_len) / static_cast<double>(sh.cp);
        per_token += (sh.dropout ? 5.0 : 2.0) * static_cast<double>(sh.heads) * s * split;
    }
    // MLP: the activation's input (GeLU's, or SwiGLU's gate and up) in bf16 (or FP8), its output as
    // the second matmul's input.
    const double act_in = (sh.swiglu ? 4.0 : 2.0) * (sh.fp8_activation_input ? 0.5 : 1.0);
    const double mlp_kept = act_in + gemm_in;  // per unit of the MLP's width
    per_token += (2.0 * h + norm_out * h + mask * h) * token_split;
    if (sh.moe) {
        const double fe = static_cast<double>(sh.expert_ffn_hidden);
        const double expert_kept = sh.recompute_expert_act ? act_in : mlp_kept;
        // The combine keeps each copy's output for the routing weight's gradient, or (weighted in
        // the activation) only the weight.
        const double combine_kept = sh.weighted_expert_activation ? 4.0 : 2.0 * h;
        per_token += 4.0 * static_cast<double>(sh.experts) * token_split;
        per_token += sh.routed_copies * (gemm_in * h + combine_kept + expert_kept * fe * split);
        per_token += static_cast<double>(sh.shared_experts) * mlp_kept * fe * split;
    } else {
        per_token += mlp_kept * width(sh.ffn_hidden, 4.0 * h) * split;
    }
    return tokens * per_token;
}

ActivationShape activation_shape(const Scenario& s, bool moe) noexcept {
    const ModelSpec& m = s.model;
    ActivationShape sh;
    sh.seq_len = m.seq_len;
    sh.micro_batch = s.training.micro_batch;
    sh.hidden = m.hidden;
    sh.heads = m.heads;
    sh.tp = s.parallel.tp;
    sh.cp = s.parallel.cp;
    sh.sequence_parallel = s.parallel.sequence_parallel;
    sh.recompute = s.training.recompute;
    sh.eager_attention = s.training.attention == AttentionKernel::eager;
    sh.fp8_linear_inputs = s.training.precision == Precision::fp8;
    sh.dropout = m.uses_dropout();
    sh.swiglu = m.ffn == Ffn::swiglu;
    sh.ffn_hidden = m.ffn_hidden;
    sh.q_width = m.heads * m.qk_head_dim();
    sh.key_width = m.key_width();
    sh.value_width = m.value_width();
    sh.out_width = m.heads * m.value_head_dim();
    if (m.is_mla()) {
        sh.q_latent = m.q_lora_rank;
        sh.kv_latent = m.kv_lora_rank;
    }
    sh.moe = moe && m.is_moe();
    const TrainingSpec& t = s.training;
    sh.weighted_expert_activation = sh.moe && t.fused_kernels;
    const bool megatron_selective = t.recompute == Recompute::selective && t.fused_kernels;
    sh.recompute_norms = megatron_selective && t.recompute_modules.layernorm;
    sh.recompute_mla_up_proj = megatron_selective && t.recompute_modules.mla_up_proj && m.is_mla();
    sh.recompute_expert_act = megatron_selective && t.recompute_modules.moe_act && sh.moe;
    sh.fp8_activation_input = fp8_activation_input_on(t);
    if (op_level_selective(s.training))
        sh.op_policy_elements = op_policy_saved_elements_per_token(m, sh.moe, s.parallel.tp, s.parallel.sequence_parallel);
    if (sh.moe) {
        sh.experts = m.experts;
        sh.routed_copies = static_cast<double>(m.top_k) * (m.capacity_factor > 0 ? m.capacity_factor : 1.0);
        sh.expert_ffn_hidden = m.expert_ffn_hidden;
        sh.shared_experts = m.shared_experts;
    }
    return sh;
}

double loss_peak_bytes_per_logit(const TrainingSpec& t) noexcept {
    // Megatron-LM's vocab-parallel cross entropy keeps the fp32 softmax of the logits and turns it
    // into their gradient in place (Korthikanti et al. 2022: 4sbv/t bytes).
    if (t.fused_kernels) return 4.0;
    // PyTorch's F.cross_entropy(pred.float(), labels), as torchtitan calls it
    // (torchtitan/components/loss.py, cross_entropy_loss, at b5bcd76), is log_softmax then nll_loss:
    // log_softmax keeps its fp32 output for the backward, and at the start of the backward its
    // gradient in (from nll_loss) and out (log_softmax_backward) are new fp32 tensors beside it,
    // 4 + 4 + 4 bytes a logit. (The forward's peak is lower: the bf16 logits, their fp32 copy and the
    // log-softmax, 2 + 4 + 4; torchtitan's trainer drops the bf16 logits before the backward.)
    return 12.0;
}

StageShape stage_shape(const ParamCounts& counts, const ParallelSpec& p, int64_t stage) {
    StageShape out;
    out.params = stage_params(counts, p, stage);
    out.largest_block = largest_local_block(counts, out.params.layers, p);
    return out;
}

StageMemory stage_memory(const Scenario& s, const ParamCounts& counts, int64_t stage, double inflight) {
    return stage_memory(s, stage_shape(counts, s.parallel, stage), stage, inflight);
}

BlockActivations block_activations(const Scenario& s) noexcept {
    BlockActivations out;
    if (!s.model.has_architecture()) return out;
    out.dense = activation_bytes_per_layer(activation_shape(s, false));
    out.moe = activation_bytes_per_layer(activation_shape(s, true));
    const auto kept_whole = [&](bool moe) {
        ActivationShape shape = activation_shape(s, moe);
        shape.recompute = Recompute::none;
        shape.op_policy_elements = 0;
        return activation_bytes_per_layer(shape);
    };
    // Read only where a block re-runs its forward (stage_memory's recompute working set and a partial
    // full recompute).
    if (s.training.recompute == Recompute::full || op_level_selective(s.training)) {
        out.dense_whole = kept_whole(false);
        out.moe_whole = kept_whole(true);
    }
    return out;
}

StageMemory stage_memory(const Scenario& s, const StageShape& shape, int64_t stage, double inflight) {
    return stage_memory(s, shape, stage, inflight, block_activations(s));
}

StageMemory stage_memory(const Scenario& s, const StageShape& shape, int64_t stage, double inflight,
                         const BlockActivations& per_block) {
    const ParallelSpec& p = s.parallel;
    const StageParams& sp = shape.params;
    const double tp = static_cast<double>(p.tp);
    const double dense_local = (sp.embedding + sp.output + sp.blocks_non_expert) / tp;
    const double expert_local = sp.routed_experts / (static_cast<double>(p.ep) * tp);

    ModelStateBytes state =
        model_state_bytes(sp.blocks_non_expert / tp, state_bytes_per_param(s.training), p.zero, zero_shard_ranks(p));
    state += model_state_bytes((sp.embedding + sp.output) / tp, end_layer_state_bytes(s.training), p.zero,
                               zero_shard_ranks(p));
    state += model_state_bytes(expert_local, state_bytes_per_param(s.training), p.zero, expert_shard_ranks(p));
    // DualPipe runs two directions, each with its own copy of the weights and their gradients.
    const double copies = static_cast<double>(parameter_copies(s.training.schedule));
    state.params *= copies;
    state.grads *= copies;

    StageMemory out;
    out.stage = stage;
    out.layers = sp.layers.count;
    out.inflight_microbatches = inflight;
    out.bytes.params = state.params;
    out.bytes.grads = state.grads;
    out.bytes.optimizer = state.optimizer;
    if (s.training.offload == Offload::optimizer) {
        out.bytes.host = offloaded_optimizer_host_bytes(state.optimizer, s.training);
        out.bytes.optimizer = 0;
    }
    if (!s.model.has_architecture()) {
        out.bytes.reserved = runtime_reserve_bytes(s.cluster.gpu, out.bytes.tensors());
        return out;
    }  // no shapes: activations stay null, nothing in `other`

    const Precision prec = s.training.precision;
    BlockCounts blocks = block_counts(s.model, sp.layers);
    // An MTP module's block keeps what the last block keeps.
    (s.model.is_moe() ? blocks.moe : blocks.dense) += sp.mtp;
    const double dense_block = per_block.dense;
    const double moe_block = per_block.moe;
    out.bytes.activations = (dense_block * static_cast<double>(blocks.dense) +
                             moe_block * static_cast<double>(blocks.moe)) *
                            activation_scale(prec) * inflight;
    // Megatron-LM's --recompute-method / --recompute-num-layers: a group's input or a re-run block's
    // input is kept, and the blocks the block method leaves alone keep all they store.
    const int64_t chunks = s.training.schedule == Schedule::interleaved_1f1b ? s.training.virtual_stages : 1;
    const RecomputedBlocks rerun = recomputed_blocks(s.training, sp.layers.count, chunks);
    const bool partial = s.training.recompute == Recompute::full &&
                         (s.training.recompute_method != RecomputeMethod::uniform || s.training.recompute_num_layers != 1);
    const auto kept_whole = [&](bool moe) { return moe ? per_block.moe_whole : per_block.dense_whole; };
    if (partial && sp.layers.count > 0) {
        const double layers = static_cast<double>(sp.layers.count);
        const double kept = layers - static_cast<double>(rerun.rerun);
        const double moe_share = static_cast<double>(blocks.moe) / layers;
        out.bytes.activations = (static_cast<double>(rerun.checkpoints) * dense_block +
                                 kept * ((1.0 - moe_share) * kept_whole(false) + moe_share * kept_whole(true))) *
                                activation_scale(prec) * inflight;
    }

    const StateBytesPerParam per = state_bytes_per_param(s.training);
    const double block = shape.largest_block;
    const double tokens = static_cast<double>(s.training.micro_batch) * static_cast<double>(s.model.seq_len) /
                          static_cast<double>(p.cp);
    OtherMemory& other = out.other;
    // FSDP gathers one block to run it while prefetching the next: two unsharded blocks at once.
    // DeepSpeed gathers a submodule at a time and prefetches up to stage3_prefetch_bucket_size (5e7
    // elements, runtime/zero/constants.py): the largest weight matrix and that bucket.
    if (p.zero >= 3 && zero_shard_ranks(p) > 1) {
        const ZeroImpl impl = effective_zero_impl(p, s.training.fused_kernels);
        if (impl == ZeroImpl::deepspeed || impl == ZeroImpl::deepspeed_0_3) {
            constexpr double kPrefetchBucket = 5e7;
            const BlockTensors t = block_tensors(s.model, blocks.moe > 0);
            const double largest = t.matrices.empty() ? 0.0 : *std::max_element(t.matrices.begin(), t.matrices.end());
            other.gathered_blocks = std::min(block, largest / static_cast<double>(p.tp) + kPrefetchBucket) * per.weights;
        } else {
            other.gathered_blocks = 2.0 * block * per.weights;
        }
    }
    // Each MTP module's loss keeps its own logits for the backward, beside the main loss's.
    if (stage == p.pp - 1)
        other.logits = loss_peak_bytes_per_logit(s.training) * tokens * static_cast<double>(s.model.vocab) / tp *
                       static_cast<double>(1 + sp.mtp);
    // TP gathers the full activation of the micro-batch before its column-parallel matmuls.
    if (p.tp > 1) other.tp_gather = tokens * static_cast<double>(s.model.hidden) * activation_dtype_bytes(prec);
    // The data-parallel reduction works on buckets: Megatron-LM's DDP default is 40M elements
    // (--ddp-bucket-size), or the stage's whole gradient when it is smaller.
    constexpr double kBucketElements = 40e6;
    if (p.dp_shard * p.cp * p.dp_replicate > 1)
        other.grad_bucket = std::min(kBucketElements, dense_local + expert_local) * per.grads;
    // Full recompute re-runs one block's forward inside the backward: its activations live again; so
    // does the op-level selective recompute of the PyTorch stack.
    const bool reruns_block = s.training.recompute == Recompute::full || op_level_selective(s.training);
    if (reruns_block && sp.layers.count > 0) {
        // A uniform group of n blocks re-runs together: all n live again at once.
        const double working = partial ? static_cast<double>(rerun.working) : 1.0;
        other.recompute_working = working * kept_whole(blocks.moe > 0) * activation_scale(prec);
    }
    out.bytes.other = other.total();
    out.bytes.reserved = runtime_reserve_bytes(s.cluster.gpu, out.bytes.tensors());
    return out;
}

std::vector<StageMemory> memory_per_stage(const Scenario& s, const ParamCounts& counts,
                                          const std::vector<double>& inflight_per_stage) {
    std::vector<StageMemory> out;
    out.reserve(static_cast<std::size_t>(s.parallel.pp));
    for (int64_t stage = 0; stage < s.parallel.pp; ++stage) {
        const auto i = static_cast<std::size_t>(stage);
        const double inflight = i < inflight_per_stage.size() ? inflight_per_stage[i] : 1.0;
        out.push_back(stage_memory(s, counts, stage, inflight));
    }
    return out;
}

const StageMemory& most_loaded(const std::vector<StageMemory>& stages) {
    return *std::max_element(stages.begin(), stages.end(), [](const StageMemory& a, const StageMemory& b) {
        return a.bytes.total() < b.bytes.total();
    });
}

std::vector<std::string> describe_other_memory(const OtherMemory& o) {
    std::vector<std::string> lines;
    const auto add = [&](double bytes, const char* what) {
        if (bytes > 0) lines.push_back(std::string(what) + ": " + format_memory(bytes));
    };
    add(o.gathered_blocks, "ZeRO-3: the weights gathered at once (FSDP: the block running and the next; DeepSpeed: "
                           "the submodule running and its prefetch bucket)");
    add(o.logits, "the loss's fp32 logits of a micro-batch (and, on the PyTorch stack, their gradients)");
    add(o.tp_gather, "TP: a micro-batch's activation gathered for a matmul");
    add(o.grad_bucket, "the gradient reduction's bucket (40M elements at most)");
    add(o.recompute_working, "the block being recomputed, its activations live again");
    return lines;
}

double gpu_memory_bytes(const ClusterSpec& c) noexcept { return exposed_memory_bytes(c.gpu); }

}  // namespace shardscope
