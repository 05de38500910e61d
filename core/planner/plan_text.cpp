#include "core/planner/planner.hpp"

#include "core/model/op_recompute.hpp"

#include "core/scenario/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace shardscope {

// The planner's text: a layout in one line, what changes between two, why one ranks below another.

namespace {

// A change of schedule in words: a layout without a pipeline has none.
std::string schedule_or_none(const Scenario& s) {
    const std::string text = pipeline_schedule_text(s);
    return text.empty() ? std::string("none") : text;
}

std::string order_text(const std::vector<Dim>& order) {
    std::string s;
    for (Dim d : order) s += (s.empty() ? "" : ",") + std::string(to_string(d));
    return s;
}

bool default_order(const std::vector<Dim>& order) {
    return std::equal(order.begin(), order.end(), kMeshDims.begin(), kMeshDims.end());
}

// Variants sit within a tenth of a percent: two decimals tell them apart.
std::string signed_share(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.2f%%", fraction * 100.0);
    return buf;
}

}  // namespace

// How the pipeline counts the embedding and the loss, and any uneven ends: "" when it counts neither.
std::string pipeline_split_text(const ParallelSpec& p) {
    std::string s;
    if (p.embedding_in_pipeline_split && p.loss_in_pipeline_split) s = "emb+loss in split";
    else if (p.embedding_in_pipeline_split) s = "emb in split";
    else if (p.loss_in_pipeline_split) s = "loss in split";
    if (p.first_stage_layers > 0 || p.last_stage_layers > 0)
        s += (s.empty() ? "" : ", ") + std::string("ends ") + std::to_string(p.first_stage_layers) + "/" +
             std::to_string(p.last_stage_layers) + " layers";
    return s;
}


std::string pipeline_schedule_text(const Scenario& s) {
    if (s.parallel.pp <= 1) return {};
    const TrainingSpec& t = s.training;
    std::string text(to_string(t.schedule));
    if (t.schedule == Schedule::interleaved_1f1b) text += " v" + std::to_string(t.virtual_stages);
    return text;
}

std::string describe_layout(const Scenario& s) {
    const ParallelSpec& p = s.parallel;
    std::ostringstream os;
    os << "tp " << p.tp;
    for (Dim d : {Dim::cp, Dim::pp, Dim::dp_shard, Dim::dp_replicate, Dim::ep})
        if (p.factor(d) > 1) os << ", " << to_string(d) << " " << p.factor(d);
    os << ", zero " << p.zero << ", mb " << s.training.micro_batch;
    if (const std::string schedule = pipeline_schedule_text(s); !schedule.empty()) os << ", " << schedule;
    os << ", recompute " << recompute_text(s.training);
    if (p.pp > 1 && !pipeline_split_text(p).empty()) os << ", " << pipeline_split_text(p);
    if (!default_order(p.order)) os << ", order " << order_text(p.order);
    if (s.training.offload == Offload::optimizer) os << ", optimizer offloaded";
    return os.str();
}

namespace {

// layout_changes' items, one a knob.
std::vector<std::string> layout_change_parts(const Scenario& a, const Scenario& b) {
    std::vector<std::string> parts;
    const auto num = [&](std::string_view name, int64_t x, int64_t y) {
        if (x != y) parts.push_back(std::string(name) + " " + std::to_string(x) + " -> " + std::to_string(y));
    };
    const ParallelSpec& p = a.parallel;
    const ParallelSpec& q = b.parallel;
    for (Dim d : {Dim::tp, Dim::cp, Dim::pp, Dim::dp_shard, Dim::dp_replicate, Dim::ep})
        num(to_string(d), p.factor(d), q.factor(d));
    num("zero", p.zero, q.zero);
    num("mb", a.training.micro_batch, b.training.micro_batch);
    if (schedule_or_none(a) != schedule_or_none(b))
        parts.push_back("schedule " + schedule_or_none(a) + " -> " + schedule_or_none(b));
    if (recompute_text(a.training) != recompute_text(b.training))
        parts.push_back("recompute " + recompute_text(a.training) + " -> " + recompute_text(b.training));
    if (pipeline_split_text(p) != pipeline_split_text(q))
        parts.push_back("split " + (pipeline_split_text(p).empty() ? std::string("layers only") : pipeline_split_text(p)) + " -> " +
                        (pipeline_split_text(q).empty() ? std::string("layers only") : pipeline_split_text(q)));
    if (p.order != q.order) parts.push_back("order " + order_text(p.order) + " -> " + order_text(q.order));
    if (a.training.offload != b.training.offload)
        parts.push_back("offload " + std::string(to_string(a.training.offload)) + " -> " +
                        std::string(to_string(b.training.offload)));
    return parts;
}

// The items joined by ", ", at most `most` of them, then "and N more".
std::string joined(const std::vector<std::string>& parts, std::size_t most) {
    std::string out;
    for (std::size_t i = 0; i < parts.size() && i < most; ++i) out += (out.empty() ? "" : ", ") + parts[i];
    if (parts.size() > most) out += " and " + std::to_string(parts.size() - most) + " more";
    return out;
}

}  // namespace

std::string layout_changes(const Scenario& a, const Scenario& b) {
    const std::vector<std::string> parts = layout_change_parts(a, b);
    return joined(parts, parts.size());
}

std::string scenario_changes(const Scenario& a, const Scenario& b, std::size_t most) {
    std::vector<std::string> parts;
    const auto num = [&](std::string_view name, int64_t x, int64_t y) {
        if (x != y) parts.push_back(std::string(name) + " " + std::to_string(x) + " -> " + std::to_string(y));
    };
    const auto text = [&](std::string_view name, std::string_view x, std::string_view y) {
        if (x != y) parts.push_back(std::string(name) + " " + std::string(x) + " -> " + std::string(y));
    };
    const ModelSpec& m = a.model;
    const ModelSpec& n = b.model;
    if (m.name != n.name) {
        text("model", m.name, n.name);
    } else {
        num("layers", m.layers, n.layers);
        num("hidden", m.hidden, n.hidden);
        num("ffn_hidden", m.ffn_hidden, n.ffn_hidden);
        num("heads", m.heads, n.heads);
        num("kv_heads", m.kv_heads, n.kv_heads);
        num("vocab", m.vocab, n.vocab);
        num("experts", m.experts, n.experts);
        num("top_k", m.top_k, n.top_k);
    }
    num("seq_len", m.seq_len, n.seq_len);
    num("global_batch", a.training.global_batch, b.training.global_batch);
    text("precision", to_string(a.training.precision), to_string(b.training.precision));
    text("attention", to_string(a.training.attention), to_string(b.training.attention));
    const auto on_off = [](bool on) { return on ? "on" : "off"; };
    text("kernels", a.training.fused_kernels ? "fused" : "eager", b.training.fused_kernels ? "fused" : "eager");
    text("FP8 activation input", on_off(a.training.activation_func_fp8_input_store),
         on_off(b.training.activation_func_fp8_input_store));
    text("FP8 params", on_off(a.training.fp8_param_gather), on_off(b.training.fp8_param_gather));
    text("Adam moments", a.training.bf16_adam_moments ? "bf16" : "fp32", b.training.bf16_adam_moments ? "bf16" : "fp32");
    text("BF16 grads", on_off(a.training.grad_reduce_in_bf16), on_off(b.training.grad_reduce_in_bf16));
    const auto impl = [](const ParallelSpec& p) {
        return p.zero_impl ? std::string(to_string(*p.zero_impl)) : std::string("the stack's own");
    };
    text("ZeRO-3 by", impl(a.parallel), impl(b.parallel));
    num("GPUs", a.cluster.gpu_count(), b.cluster.gpu_count());
    text("GPU", a.cluster.gpu.name, b.cluster.gpu.name);
    for (std::string& part : layout_change_parts(a, b)) parts.push_back(std::move(part));
    if (parts.empty()) return a == b ? std::string() : std::string("other settings");
    return joined(parts, most);
}

bool folds_into(const PlanEntry& row, const PlanEntry& variant, PlanObjective objective) noexcept {
    const ParallelSpec& p = row.scenario.parallel;
    const ParallelSpec& q = variant.scenario.parallel;
    const TrainingSpec& t = row.scenario.training;
    const TrainingSpec& u = variant.scenario.training;
    const bool same_setting = p.tp == q.tp && p.cp == q.cp && p.pp == q.pp && p.ep == q.ep &&
                              p.dp_shard * p.dp_replicate == q.dp_shard * q.dp_replicate &&
                              t.micro_batch == u.micro_batch && t.recompute == u.recompute && t.schedule == u.schedule;
    if (!same_setting) return false;
    const double a = objective == PlanObjective::memory ? row.memory_bytes : row.step_s;
    const double b = objective == PlanObjective::memory ? variant.memory_bytes : variant.step_s;
    return std::abs(b - a) <= kFoldShare * std::abs(a);
}

std::string variant_knobs(const Scenario& row, const Scenario& variant) {
    std::vector<std::string> parts;
    const ParallelSpec& p = row.parallel;
    const ParallelSpec& q = variant.parallel;
    if (p.dp_shard != q.dp_shard || p.dp_replicate != q.dp_replicate)
        parts.push_back("dp_shard " + std::to_string(q.dp_shard) + " x dp_replicate " + std::to_string(q.dp_replicate));
    if (p.zero != q.zero) parts.push_back("zero " + std::to_string(q.zero));
    if (row.training.virtual_stages != variant.training.virtual_stages)
        parts.push_back("v" + std::to_string(variant.training.virtual_stages));
    if (pipeline_split_text(p) != pipeline_split_text(q)) parts.push_back(pipeline_split_text(q).empty() ? "layers only in split" : pipeline_split_text(q));
    if (p.order != q.order) parts.push_back("order " + order_text(q.order));
    std::string out;
    for (const std::string& s : parts) out += (out.empty() ? "" : ", ") + s;
    return out;
}

std::string describe_variants(const PlanEntry& row) {
    if (row.also.empty()) return "";
    std::string out = "also within " + format_percent(kFoldShare) + ": ";
    for (std::size_t i = 0; i < row.also.size(); ++i) {
        const PlanVariant& v = row.also[i];
        const double dt = row.step_s > 0 ? (v.step_s - row.step_s) / row.step_s : 0.0;
        out += (i ? "; " : "") + variant_knobs(row.scenario, v.scenario) + " (" + signed_share(dt) + ", " + format_memory(v.memory_bytes) + ")";
    }
    return out;
}

std::string why_ranked_below(const PlanEntry& winner, const PlanEntry& loser, PlanObjective objective) {
    std::ostringstream os;
    const std::string changes = layout_changes(winner.scenario, loser.scenario);
    const double dt = loser.step_s - winner.step_s;
    const double dm = loser.memory_bytes - winner.memory_bytes;
    if (objective == PlanObjective::memory && dm > 0) {
        os << "needs " << format_memory(dm) << " more per GPU";
    } else if (objective != PlanObjective::memory && dt > 0) {
        // The step is compute + exposed communication + bubble: the parts that changed, largest first.
        std::pair<const char*, double> parts[] = {{"compute", loser.compute_s - winner.compute_s},
                                                  {"exposed comm", loser.exposed_comm_s - winner.exposed_comm_s},
                                                  {"bubble", loser.bubble_s - winner.bubble_s}};
        std::sort(std::begin(parts), std::end(parts),
                  [](const auto& a, const auto& b) { return std::abs(a.second) > std::abs(b.second); });
        os << format_seconds(dt) << " slower per step (+" << format_percent(dt / winner.step_s) << "):";
        const char* sep = " ";
        for (const auto& [name, delta] : parts) {
            if (std::abs(delta) < 1e-3 * dt) continue;  // a part that barely moved says nothing
            os << sep << name << (delta > 0 ? " +" : " -") << format_seconds(std::abs(delta));
            sep = ", ";
        }
    } else if (dm > 0) {
        os << "same " << (objective == PlanObjective::memory ? "memory" : "step time") << ", " << format_memory(dm)
           << " less headroom";
    } else {
        os << "ties on step time and memory; ranked by the fixed knob order";
    }
    if (!changes.empty()) os << " [" << changes << "]";
    return os.str();
}

}  // namespace shardscope
