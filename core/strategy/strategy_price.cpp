#include "core/strategy/strategy_price.hpp"

#include "core/model/cost_model.hpp"

#include <algorithm>

namespace shardscope {

std::optional<Dim> strategy_from_key(std::string_view key) noexcept {
    for (Dim s : kStrategyOrder)
        if (key == strategy_key(s)) return s;
    if (const auto d = dim_from_string(key)) return d;
    if (key == "zero") return Dim::dp_shard;
    if (key == "ddp") return Dim::dp_replicate;
    if (key == "sp" || key == "sp_cp") return Dim::cp;
    return std::nullopt;
}

int64_t strategy_factor(const ParallelSpec& p, Dim s) noexcept {
    // dp_shard without ZeRO shards nothing: it is more data parallelism, not FSDP.
    if (s == Dim::dp_shard && p.zero == 0) return 1;
    return p.factor(s);
}

Scenario with_strategy_factor(const Scenario& s, Dim st, int64_t factor) {
    Scenario out = s;
    ParallelSpec& p = out.parallel;
    switch (st) {
        case Dim::dp_replicate: p.dp_replicate = factor; break;
        case Dim::dp_shard:
            p.dp_shard = factor;
            if (factor <= 1) p.zero = 0;
            else if (p.zero == 0) p.zero = 3;
            break;
        case Dim::tp:
            p.tp = factor;
            if (factor <= 1) p.sequence_parallel = false;  // SP rides on the TP group
            break;
        case Dim::pp:
            p.pp = factor;
            // Schedules that need several stages fall back to 1F1B when the pipeline goes.
            if (factor <= 1 && (out.training.schedule == Schedule::interleaved_1f1b ||
                                out.training.schedule == Schedule::dualpipe)) {
                out.training.schedule = Schedule::one_f_one_b;
                out.training.virtual_stages = 1;
            }
            break;
        case Dim::ep: p.ep = factor; break;
        case Dim::cp: p.cp = factor; break;
    }
    return out;
}

std::string factor_refusal(const Scenario& s, Dim st, int64_t factor) {
    if (factor < 1) return "a GPU count must be at least 1";
    if (st == Dim::ep && factor > 1 && s.model.has_architecture() && !s.model.is_moe())
        return s.model.name + " is dense: expert parallelism splits the experts of an MoE model, and it has none";
    const Scenario next = with_strategy_factor(s, st, factor);
    const std::string rule = validate_scenario(next);
    if (rule.empty()) return "";
    const int64_t needed = next.parallel.product();
    const int64_t have = s.cluster.gpu_count();
    if (needed > have)
        return "one copy of this layout would need " + std::to_string(needed) + " GPUs and the cluster has " +
               std::to_string(have) + ": add nodes (Device mesh) or lower another strategy";
    if (have % needed != 0)
        return std::to_string(needed) + " GPUs per copy do not split the cluster's " + std::to_string(have) +
               " GPUs into whole copies";
    return rule;
}

Scenario plain_data_parallel(const Scenario& s) {
    Scenario out = s;
    ParallelSpec& p = out.parallel;
    // The GPUs of one copy of the layout all become replicas (leftover GPUs stay leftover replicas).
    const int64_t gpus = p.product();
    p.tp = p.cp = p.pp = p.dp_shard = p.ep = 1;
    p.dp_replicate = gpus;
    p.zero = 0;
    p.sequence_parallel = false;
    // Schedules that need stages fall back to the plain one.
    out.training.schedule = Schedule::one_f_one_b;
    out.training.virtual_stages = 1;
    return out;
}

std::string communication_cadence(Dim d, const ParallelSpec& p) {
    switch (d) {
        case Dim::tp: return "every block, forward and backward, each micro-batch";
        case Dim::cp: return "every attention, forward and backward, each micro-batch";
        case Dim::dp_shard:
            // As the cost model prices it: ZeRO-2 keeps only its gradient slice, so it reduce-scatters
            // after every micro-batch's backward; ZeRO-1 accumulates whole gradients and reduces once.
            if (p.zero >= 3) return "every block, each micro-batch";
            if (p.zero == 2) return "gradients each micro-batch, updated weights once per step";
            return "once per step";
        case Dim::dp_replicate: return "once per step";
        case Dim::pp: return "each micro-batch, at every stage boundary";
        case Dim::ep: return "every MoE block, each micro-batch";
    }
    return "";
}

namespace {

// Memory of the most loaded GPU of `variant`, or the rule it breaks.
std::optional<double> memory_of(const Scenario& variant, std::string& why) {
    why = validate_scenario(variant);
    if (!why.empty()) return std::nullopt;
    return build_report(variant).memory.total();
}

}  // namespace

std::vector<StrategyPrice> price_strategies(const Scenario& s, const Report& report) {
    std::vector<StrategyPrice> out;
    const double current = report.memory.total();
    const int64_t leftover = std::max<int64_t>(1, report.leftover_dp_replicate);
    for (Dim st : kStrategyOrder) {
        const bool copies_left_over = st == Dim::dp_replicate && leftover > 1;
        if (!strategy_on(s.parallel, st) && !copies_left_over) continue;
        StrategyPrice price;
        price.strategy = st;
        price.factor = strategy_factor(s.parallel, st);
        if (copies_left_over) {
            price.leftover_copies = leftover;
            price.factor *= leftover;
        }
        price.dim = std::string(to_string(st));
        price.cadence = communication_cadence(st, s.parallel);
        for (const DimCost& d : report.dims) {
            if (d.name != price.dim) continue;
            price.collective = d.collective;
            price.link = d.link;
            price.bytes_per_step = d.bytes_per_step;
            price.time_s = d.time_s;
            price.exposed_s = d.exposed_s;
        }
        if (!strategy_on(s.parallel, st)) {  // copies on leftover GPUs only: whole replicas, nothing saved
            price.memory_saved = 0.0;
            out.push_back(std::move(price));
            continue;
        }
        // Without it: its GPUs become plain replicas of the rest (dp_replicate grows by its factor), so
        // the comparison runs on the same GPUs and batch split.
        Scenario off = with_strategy_factor(s, st, 1);
        if (st != Dim::dp_replicate) off.parallel.dp_replicate *= price.factor;
        else off.parallel.dp_replicate = s.parallel.dp_replicate;
        std::string why;
        const std::optional<double> without = memory_of(off, why);
        if (without) price.memory_saved = *without - current;
        else price.saved_note = "turning it off is not valid: " + why;
        out.push_back(std::move(price));
    }
    return out;
}

std::optional<double> memory_saved_vs_plain_dp(const Scenario& s, const Report& report) {
    std::string why;
    const std::optional<double> plain = memory_of(plain_data_parallel(s), why);
    if (!plain) return std::nullopt;
    return *plain - report.memory.total();
}

}  // namespace shardscope
