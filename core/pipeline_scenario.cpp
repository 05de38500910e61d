#include "core/pipeline_scenario.hpp"

#include "core/collectives.hpp"
#include "core/cost_model.hpp"
#include "core/memory.hpp"
#include "core/mesh.hpp"
#include "core/params.hpp"

#include <algorithm>

namespace shardscope {
namespace {

constexpr int kSimulatorMicrobatchCap = 1 << 16;  // pipeline.cpp's kMaxMicrobatches

double as_double(int64_t v) noexcept { return static_cast<double>(v); }

bool splits_backward(Schedule s) noexcept {
    return s == Schedule::zb_h1 || s == Schedule::zb_h2 || s == Schedule::dualpipe;
}

// Parameters one token passes through in block `layer` (MoE: top_k routed experts, not all of them).
double active_block_params(const ParamCounts& c, const ModelSpec& m, int64_t layer) noexcept {
    const double routed = layer_routed_expert_params(c, layer);
    if (routed <= 0) return layer_params(c, layer);
    return layer_params(c, layer) - routed + as_double(m.top_k) * c.expert_ffn;
}

struct OpSeconds {
    double forward = 0;
    double backward = 0;
};

// One micro-batch's compute on one GPU of `stage` (cost_model.hpp's accounting, compute only).
OpSeconds stage_compute(const Scenario& s, const ParamCounts& counts, int64_t stage) {
    const ModelSpec& m = s.model;
    const ParallelSpec& p = s.parallel;
    const StageLayers layers = stage_layers(m.layers, p.pp, stage);
    const double seq = as_double(m.seq_len);
    const double tokens = as_double(s.training.micro_batch) * seq;
    const double split = as_double(p.tp) * as_double(p.cp);  // TP splits the matmuls, CP the tokens

    double block_fwd = 0, attention_fwd = 0;
    for (int64_t i = layers.first; i < layers.first + layers.count; ++i) {
        block_fwd += 2.0 * active_block_params(counts, m, i) * tokens;
        attention_fwd += 4.0 * as_double(m.hidden) * seq * tokens;  // QK^T and AV, full s x s
    }
    const double output_fwd = stage == p.pp - 1 ? 2.0 * as_double(m.vocab) * as_double(m.hidden) * tokens : 0.0;
    const bool full = s.training.recompute == Recompute::full;
    const bool selective = s.training.recompute == Recompute::selective;
    const double forward_flops = (block_fwd + attention_fwd + output_fwd) / split;
    const double recompute_flops = full ? (block_fwd + attention_fwd) / split : selective ? attention_fwd / split : 0.0;
    const double backward_flops = 2.0 * forward_flops + recompute_flops;

    const GpuSpec& gpu = s.cluster.gpu;
    const double rate = gpu.peak_tflops * 1e12 * gpu.matmul_efficiency;
    // Element-wise work streams the stored activations through HBM; flash-style attention (what
    // selective recompute stands for) keeps the s x s scores on chip.
    ActivationShape shape = activation_shape(s);
    shape.recompute = selective ? Recompute::selective : Recompute::none;
    const double fp32_scale = s.training.precision == Precision::fp32 ? 2.0 : 1.0;
    const double streamed =
        activation_bytes_per_layer(shape) * fp32_scale * as_double(layers.count) / (gpu.hbm_gbps * 1e9);
    return OpSeconds{forward_flops / rate + streamed, backward_flops / rate + (full ? 3.0 : 2.0) * streamed};
}

// One activation (or its gradient) crossing a stage boundary: b * s/cp * h / tp elements.
double p2p_seconds(const Scenario& s, const DeviceMesh& mesh) {
    const ParallelSpec& p = mesh.effective();
    const double element = s.training.precision == Precision::fp32 ? 4.0 : 2.0;
    const double bytes = as_double(s.training.micro_batch) * as_double(s.model.seq_len) / as_double(p.cp) *
                         as_double(s.model.hidden) * element / as_double(p.tp);
    const DimLinks links = mesh.summary(MeshDim::pp).links;
    // A group that leaves its node is bounded by the inter-node link (DESIGN.md).
    const LinkSpec& spec =
        links == DimLinks::intra || links == DimLinks::none ? s.cluster.intra_node : s.cluster.inter_node;
    return collective_time(Collective::p2p, bytes, 2, Link::from(spec));
}

}  // namespace

PipelineSpec pipeline_spec_for(const Scenario& s) {
    const DeviceMesh mesh = DeviceMesh::build(s.cluster, s.parallel);
    PipelineSpec spec;
    spec.schedule = s.training.schedule;
    spec.stages = static_cast<int>(s.parallel.pp);
    const int64_t m = microbatches_per_step(s, mesh.effective().dp_replicate);
    spec.microbatches = static_cast<int>(std::clamp<int64_t>(m, 1, kSimulatorMicrobatchCap));
    spec.virtual_stages = static_cast<int>(std::max<int64_t>(1, s.training.virtual_stages));
    const bool split = splits_backward(spec.schedule);

    if (!s.model.has_architecture()) {
        spec.costs = {split ? StageCost{1, 1, 1} : StageCost{1, 2, 0}};
        return spec;
    }
    const ParamCounts counts = count_params(s.model);
    for (int64_t stage = 0; stage < s.parallel.pp; ++stage) {
        const OpSeconds op = stage_compute(s, counts, stage);
        spec.costs.push_back(split ? StageCost{op.forward, op.backward / 2, op.backward / 2}
                                   : StageCost{op.forward, op.backward, 0});
    }
    if (s.parallel.pp > 1) spec.p2p_time = p2p_seconds(s, mesh);
    return spec;
}

std::vector<double> activation_bytes_per_stage(const Scenario& s, const PipelineTimeline& timeline) {
    if (!timeline.ok() || !s.model.has_architecture() || timeline.stages < 1 || timeline.stages > s.model.layers)
        return {};
    // The same model cut into the timeline's stage count; only the activation term is read.
    Scenario cut = s;
    cut.parallel.pp = timeline.stages;
    const ParamCounts counts = count_params(s.model);
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(timeline.stages));
    for (int stage = 0; stage < timeline.stages; ++stage) {
        const double inflight = timeline.peak_activation_microbatches[static_cast<std::size_t>(stage)];
        out.push_back(stage_memory(cut, counts, stage, inflight).bytes.activations.value_or(0));
    }
    return out;
}

}  // namespace shardscope
