#include "core/strategy/strategy_price.hpp"

#include "core/model/cost_model.hpp"

namespace shardscope {

std::string_view strategy_label(Strategy s) noexcept {
    switch (s) {
        case Strategy::dp: return "DP / DDP";
        case Strategy::fsdp: return "FSDP / ZeRO";
        case Strategy::tp: return "TP";
        case Strategy::pp: return "PP";
        case Strategy::ep: return "EP";
        case Strategy::sp_cp: return "SP / CP";
    }
    return "";
}

std::string_view strategy_key(Strategy s) noexcept {
    switch (s) {
        case Strategy::dp: return "dp";
        case Strategy::fsdp: return "fsdp";
        case Strategy::tp: return "tp";
        case Strategy::pp: return "pp";
        case Strategy::ep: return "ep";
        case Strategy::sp_cp: return "cp";
    }
    return "";
}

std::optional<Strategy> strategy_from_key(std::string_view key) noexcept {
    for (Strategy s : kAllStrategies)
        if (key == strategy_key(s)) return s;
    if (key == "zero" || key == "dp_shard") return Strategy::fsdp;
    if (key == "dp_replicate" || key == "ddp") return Strategy::dp;
    if (key == "sp" || key == "sp_cp") return Strategy::sp_cp;
    return std::nullopt;
}

int64_t strategy_factor(const ParallelSpec& p, Strategy s) noexcept {
    switch (s) {
        case Strategy::dp: return p.dp_replicate;
        case Strategy::fsdp: return p.zero > 0 ? p.dp_shard : 1;
        case Strategy::tp: return p.tp;
        case Strategy::pp: return p.pp;
        case Strategy::ep: return p.ep;
        case Strategy::sp_cp: return p.cp;
    }
    return 1;
}

Scenario with_strategy_factor(const Scenario& s, Strategy st, int64_t factor) {
    Scenario out = s;
    ParallelSpec& p = out.parallel;
    switch (st) {
        case Strategy::dp: p.dp_replicate = factor; break;
        case Strategy::fsdp:
            p.dp_shard = factor;
            if (factor <= 1) p.zero = 0;
            else if (p.zero == 0) p.zero = 3;
            break;
        case Strategy::tp:
            p.tp = factor;
            if (factor <= 1) p.sequence_parallel = false;  // SP rides on the TP group
            break;
        case Strategy::pp:
            p.pp = factor;
            // Schedules that need several stages fall back to 1F1B when the pipeline goes.
            if (factor <= 1 && (out.training.schedule == Schedule::interleaved_1f1b ||
                                out.training.schedule == Schedule::dualpipe)) {
                out.training.schedule = Schedule::one_f_one_b;
                out.training.virtual_stages = 1;
            }
            break;
        case Strategy::ep: p.ep = factor; break;
        case Strategy::sp_cp: p.cp = factor; break;
    }
    return out;
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

const StrategyFacts& strategy_facts(Strategy s) noexcept {
    static const StrategyFacts kFacts[] = {
        {"the batch: each GPU trains on its own rows", "all-reduce of the gradients, once per step",
         "every GPU keeps the full weights, gradients and optimizer state", "the model fits and you want throughput"},
        {"the batch, and the weights, gradients and optimizer state", "all-gather of weights + reduce-scatter of gradients",
         "more traffic than DP: each layer is gathered right before it runs", "the model state barely fits under plain DP"},
        {"the matmuls inside each layer (heads, MLP columns and rows)", "all-reduce of activations, twice per layer each way",
         "frequent, latency-bound messages that need the fastest links", "one layer is too big and you have NVLink"},
        {"the layer stack into stages", "point-to-point activations between neighbouring stages",
         "the bubble: stages wait while the pipeline fills and drains", "the model spans many nodes"},
        {"the experts of each MoE layer", "all-to-all: tokens go to their expert and come back",
         "all-to-all traffic and uneven load across experts", "the model is a mixture of experts"},
        {"the sequence (SP: norm/dropout regions; CP: attention too)", "K and V blocks around a ring, or all-gather",
         "extra traffic to move keys and values between GPUs", "the context is very long"},
    };
    return kFacts[static_cast<size_t>(s)];
}

std::string communication_cadence(std::string_view dim, const ParallelSpec& p) {
    if (dim == "tp") return "every block, forward and backward, each micro-batch";
    if (dim == "cp") return "every attention, forward and backward, each micro-batch";
    if (dim == "dp_shard") return p.zero >= 3 ? "every block, each micro-batch" : "once per step";
    if (dim == "dp_replicate") return "once per step";
    if (dim == "pp") return "each micro-batch, at every stage boundary";
    if (dim == "ep") return "every MoE block, each micro-batch";
    return "";
}

namespace {

std::string_view report_dim(Strategy s) noexcept {
    switch (s) {
        case Strategy::dp: return "dp_replicate";
        case Strategy::fsdp: return "dp_shard";
        case Strategy::tp: return "tp";
        case Strategy::pp: return "pp";
        case Strategy::ep: return "ep";
        case Strategy::sp_cp: return "cp";
    }
    return "";
}

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
    for (Strategy st : kAllStrategies) {
        if (!strategy_on(s.parallel, st)) continue;
        StrategyPrice price;
        price.strategy = st;
        price.factor = strategy_factor(s.parallel, st);
        price.dim = std::string(report_dim(st));
        price.cadence = communication_cadence(price.dim, s.parallel);
        for (const DimCost& d : report.dims) {
            if (d.name != price.dim) continue;
            price.collective = d.collective;
            price.link = d.link;
            price.bytes_per_step = d.bytes_per_step;
            price.time_s = d.time_s;
            price.exposed_s = d.exposed_s;
        }
        // Without it: its GPUs become plain replicas of the rest (dp_replicate grows by its factor), so
        // the comparison runs on the same GPUs and batch split.
        Scenario off = with_strategy_factor(s, st, 1);
        if (st != Strategy::dp) off.parallel.dp_replicate *= price.factor;
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
