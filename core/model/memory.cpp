#include "core/model/memory.hpp"

#include "core/model/hardware.hpp"
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

ModelStateBytes model_state_bytes(double params, Precision precision, int zero, int64_t shard_ranks) noexcept {
    const StateBytesPerParam per = state_bytes_per_param(precision);
    const double n = static_cast<double>(std::max<int64_t>(1, shard_ranks));
    ModelStateBytes out;
    out.params = params * per.weights / (zero >= 3 ? n : 1.0);
    out.grads = params * per.grads / (zero >= 2 ? n : 1.0);
    out.optimizer = params * per.optimizer / (zero >= 1 ? n : 1.0);
    return out;
}

double activation_bytes_per_layer(const ActivationShape& sh) noexcept {
    if (sh.cp < 1 || sh.tp < 1) return 0;
    const double s = static_cast<double>(sh.seq_len) / static_cast<double>(sh.cp);
    const double b = static_cast<double>(sh.micro_batch);
    const double h = static_cast<double>(sh.hidden);
    const double a = static_cast<double>(sh.heads);
    const double t = static_cast<double>(sh.tp);
    const double sbh = s * b * h;
    if (h <= 0) return 0;
    // QK^T, softmax, its dropout mask: only eager attention keeps them.
    const double attention_scores = sh.eager_attention ? 5.0 * a * s / (h * t) : 0.0;
    // Without SP the layer norms and dropouts (10 of the 34) are replicated on every TP rank.
    const double linear_part = sh.sequence_parallel ? 34.0 / t : 10.0 + 24.0 / t;
    switch (sh.recompute) {
        case Recompute::none: return sbh * (linear_part + attention_scores);
        case Recompute::selective: return sbh * linear_part;
        case Recompute::full: return 2.0 * sbh / (sh.sequence_parallel ? t : 1.0);
    }
    return 0;
}

ActivationShape activation_shape(const Scenario& s) noexcept {
    ActivationShape sh;
    sh.seq_len = s.model.seq_len;
    sh.micro_batch = s.training.micro_batch;
    sh.hidden = s.model.hidden;
    sh.heads = s.model.heads;
    sh.tp = s.parallel.tp;
    sh.cp = s.parallel.cp;
    sh.sequence_parallel = s.parallel.sequence_parallel;
    sh.recompute = s.training.recompute;
    sh.eager_attention = s.training.attention == AttentionKernel::eager;
    return sh;
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

StageMemory stage_memory(const Scenario& s, const StageShape& shape, int64_t stage, double inflight) {
    const ParallelSpec& p = s.parallel;
    const StageParams& sp = shape.params;
    const double tp = static_cast<double>(p.tp);
    const double dense_local = (sp.embedding + sp.output + sp.blocks_non_expert) / tp;
    const double expert_local = sp.routed_experts / (static_cast<double>(p.ep) * tp);

    ModelStateBytes state = model_state_bytes(dense_local, s.training.precision, p.zero, zero_shard_ranks(p));
    state += model_state_bytes(expert_local, s.training.precision, p.zero, expert_shard_ranks(p));
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
    if (!s.model.has_architecture()) {
        out.bytes.reserved = runtime_reserve_bytes(s.cluster.gpu, out.bytes.tensors());
        return out;
    }  // no shapes: activations stay null, nothing in `other`

    const Precision prec = s.training.precision;
    out.bytes.activations = activation_bytes_per_layer(activation_shape(s)) * activation_scale(prec) *
                            static_cast<double>(sp.layers.count) * inflight;

    const StateBytesPerParam per = state_bytes_per_param(prec);
    const double block = shape.largest_block;
    const double tokens = static_cast<double>(s.training.micro_batch) * static_cast<double>(s.model.seq_len) /
                          static_cast<double>(p.cp);
    double other = 0;
    // FSDP gathers one block to run it while prefetching the next: two unsharded blocks at once.
    if (p.zero >= 3 && zero_shard_ranks(p) > 1) other += 2.0 * block * per.weights;
    // The loss needs the fp32 logits of the micro-batch (Korthikanti: 4sbv/t bytes) on the last stage.
    if (stage == p.pp - 1) other += 4.0 * tokens * static_cast<double>(s.model.vocab) / tp;
    // TP gathers the full activation of the micro-batch before its column-parallel matmuls.
    if (p.tp > 1) other += tokens * static_cast<double>(s.model.hidden) * activation_dtype_bytes(prec);
    // The data-parallel reduction works on buckets: Megatron-LM's DDP default is 40M elements
    // (--ddp-bucket-size), or the stage's whole gradient when it is smaller.
    constexpr double kBucketElements = 40e6;
    if (p.dp_shard * p.cp * p.dp_replicate > 1) other += std::min(kBucketElements, dense_local + expert_local) * per.grads;
    // Full recompute re-runs one block's forward inside the backward: its activations live again.
    if (s.training.recompute == Recompute::full && sp.layers.count > 0) {
        ActivationShape working = activation_shape(s);
        working.recompute = Recompute::none;
        other += activation_bytes_per_layer(working) * activation_scale(prec);
    }
    out.bytes.other = other;
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

double gpu_memory_bytes(const ClusterSpec& c) noexcept { return exposed_memory_bytes(c.gpu); }

}  // namespace shardscope
