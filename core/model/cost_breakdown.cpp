#include "core/model/cost_breakdown.hpp"

#include "core/scenario/units.hpp"

#include <algorithm>

namespace shardscope {

namespace {

bool same_bytes(const MemoryBreakdown& a, const MemoryBreakdown& b) {
    return a.params == b.params && a.grads == b.grads && a.optimizer == b.optimizer &&
           a.activations == b.activations && a.other == b.other;
}

MemoryBar bar_for(const Report& r, const StageMemory& st, std::string role) {
    MemoryBar bar = memory_bar(st.bytes, r.gpu_memory_bytes, std::move(role));
    bar.stage = st.stage;
    bar.most_loaded = st.stage == r.most_loaded_stage;
    bar.other_parts = describe_other_memory(st.other);
    return bar;
}

}  // namespace

MemoryBar memory_bar(const MemoryBreakdown& bytes, double capacity_bytes, std::string role) {
    MemoryBar bar;
    bar.role = std::move(role);
    bar.bytes = bytes;
    bar.total_bytes = bytes.total();
    bar.fraction_of_gpu = capacity_bytes > 0 ? bar.total_bytes / capacity_bytes : 0.0;
    bar.fits = bar.total_bytes <= capacity_bytes;
    return bar;
}

namespace {
constexpr int64_t kAllStagesUpTo = 4;
}  // namespace

std::vector<MemoryBar> memory_bars(const Report& r) {
    std::vector<MemoryBar> bars;
    if (r.stages.empty()) {
        StageMemory only;
        only.bytes = r.memory;
        bars.push_back(bar_for(r, only, "every GPU"));
        bars.back().most_loaded = true;
        return bars;
    }
    const auto n = static_cast<int64_t>(r.stages.size());
    if (n == 1) return {bar_for(r, r.stages[0], "every GPU")};

    std::vector<std::pair<int64_t, std::string>> picks = {{0, "first"}};
    // Under 1F1B each stage keeps one micro-batch fewer in flight than the one before it, so every
    // stage is a kind of its own: up to kAllStagesUpTo stages each get a bar, more are sampled.
    if (n <= kAllStagesUpTo) {
        for (int64_t stage = 1; stage + 1 < n; ++stage) picks.emplace_back(stage, "middle");
    } else {
        picks.emplace_back(n / 2, "middle");
    }
    picks.emplace_back(n - 1, "last");
    const bool heaviest_picked = std::any_of(picks.begin(), picks.end(),
                                             [&](const auto& p) { return p.first == r.most_loaded_stage; });
    if (!heaviest_picked && r.most_loaded_stage >= 0 && r.most_loaded_stage < n) {
        picks.emplace_back(r.most_loaded_stage, "most loaded");
        std::sort(picks.begin(), picks.end());
    }
    for (const auto& [stage, role] : picks) {
        const StageMemory& st = r.stages[static_cast<size_t>(stage)];
        const bool repeat = std::any_of(bars.begin(), bars.end(), [&](const MemoryBar& b) {
            return same_bytes(b.bytes, st.bytes) && !(st.stage == r.most_loaded_stage);
        });
        if (!repeat) bars.push_back(bar_for(r, st, role));
    }
    return bars;
}

std::vector<StepPart> step_parts(const Report& r) {
    std::vector<StepPart> parts;
    if (!r.time.step || !r.time.compute || *r.time.step <= 0) return parts;
    const double step = *r.time.step;
    const auto add = [&](std::string name, std::string dim, StepPartKind kind, double s, double contention = 0) {
        parts.push_back(StepPart{std::move(name), std::move(dim), kind, s, s / step, contention});
    };
    add("compute", "", StepPartKind::compute, *r.time.compute);
    double dims_exposed = 0;
    for (const DimCost& d : r.dims) {
        if (d.exposed_s <= 0) continue;
        add(d.name + " comm", d.name, StepPartKind::communication, d.exposed_s, d.contention_s);
        if (!d.calls.empty())
            parts.back().calls = d.link + " link; per step " + describe_calls(d.calls) + " (mean message); " +
                                 format_seconds(d.time_s) + " before overlap";
        dims_exposed += d.exposed_s;
    }
    // Rounding aside, the dims account for all exposed communication; list a real remainder.
    const double rest = r.time.exposed_comm.value_or(0) - dims_exposed;
    if (rest > 1e-9 * step) add("other comm", "", StepPartKind::communication, rest);
    // A bubble of rounding residue (no pipeline) is not a part.
    if (r.time.bubble.value_or(0) > 1e-9 * step) add("bubble (busiest stage idle)", "", StepPartKind::bubble, *r.time.bubble);
    return parts;
}

std::vector<ComputeOp> compute_ops(const Report& r) {
    std::vector<ComputeOp> out;
    if (!r.breakdown) return out;
    const double compute = r.time.compute.value_or(0);
    for (const OpEntry& e : longest_first(*r.breakdown)) {
        ComputeOp op;
        op.name = std::string(to_string(e.op));
        op.kind = std::string(to_string(kind_of(e.op)));
        op.bound = std::string(to_string(e.figures.bound()));
        op.seconds = e.figures.time_s();
        op.recompute_s = e.figures.rerun_s;
        op.fraction = compute > 0 ? op.seconds / compute : 0.0;
        op.moe_part = is_moe_part(e.op);
        out.push_back(std::move(op));
    }
    return out;
}

std::string bound_meaning(std::string_view bound) {
    if (bound == "flops") return "bound by FLOPs: the tensor cores' rate for its shape";
    if (bound == "hbm") return "bound by HBM bandwidth: it moves more bytes than it computes";
    if (bound == "launch") return "bound by kernel launches: each kernel is shorter than the per-kernel floor";
    return std::string(bound);
}

std::string moe_summary(const Report& r) {
    if (!r.moe || !r.breakdown) return {};
    const MoeFigures& f = *r.moe;
    return count_of(f.blocks, "MoE block") + " on this GPU: " + format_count(f.tokens_per_expert) +
           " routed tokens per expert a micro-batch, " + format_count(f.local_experts) +
           (f.local_experts == 1 ? " expert" : " experts") + " per GPU; their GEMMs reach " +
           format_flops_rate(f.expert_gemm_flops_per_s) + " (" + format_percent(f.expert_gemm_share_of_peak) +
           " of peak). The mixture's compute takes " + format_seconds(f.mixture_s) + " (" +
           format_percent(f.mixture_share_of_compute) + " of compute); its all-to-all " +
           format_seconds(f.all_to_all_s) + " before overlap, " + format_seconds(f.all_to_all_exposed_s) + " exposed.";
}

}  // namespace shardscope
