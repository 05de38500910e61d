#pragma once
// The six strategies the Strategy explorer toggles, how each maps onto the scenario's parallel block,
// what each costs (read off the Report's per-dim communication) and how much memory each saves.
//
// Mapping (chosen once, here):
//   DP / DDP     -> parallel.dp_replicate          (plain replicas, gradients all-reduced)
//   FSDP / ZeRO  -> parallel.dp_shard + zero 1-3   (off: dp_shard 1, zero 0)
//   TP           -> parallel.tp                    (sequence_parallel is TP's companion switch)
//   PP           -> parallel.pp
//   EP           -> parallel.ep                    (borrows from dp_shard*cp, as docs/design.md says)
//   SP / CP      -> parallel.cp
// Turning a strategy off sets its factor to 1; the GPUs it used become leftover dp_replicate.

#include "core/model/report.hpp"
#include "core/scenario/scenario.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// A strategy is the teaching name of a dim (core/scenario/dim.hpp): DP is dp_replicate, FSDP / ZeRO is
// dp_shard, SP / CP is cp; the explorer lists them in kStrategyOrder.
[[nodiscard]] inline std::string_view strategy_label(Dim d) noexcept { return dim_facts(d).strategy_label; }
[[nodiscard]] inline std::string_view strategy_key(Dim d) noexcept { return dim_facts(d).strategy_key; }
// Accepts the strategy keys ("dp", "fsdp", "tp", "pp", "ep", "cp"), every dim's own name, and "zero",
// "ddp", "sp", "sp_cp".
[[nodiscard]] std::optional<Dim> strategy_from_key(std::string_view key) noexcept;

// The factor a strategy sets (1 = off).
[[nodiscard]] int64_t strategy_factor(const ParallelSpec& p, Dim s) noexcept;
[[nodiscard]] inline bool strategy_on(const ParallelSpec& p, Dim s) noexcept { return strategy_factor(p, s) > 1; }
// The scenario with the strategy's factor set (1 turns it off). FSDP turned on from zero 0 takes
// zero 3 (the FSDP default); turned off it takes zero 0; PP turned off leaves interleaved-1f1b and
// dualpipe for 1f1b. Not validated: pass it to try_apply.
[[nodiscard]] Scenario with_strategy_factor(const Scenario& s, Dim st, int64_t factor);
// Why the strategy cannot take `factor` on this scenario, in a person's words, with what would make room
// ("" when it can): a dense model has no experts to split; a layout whose one copy needs more GPUs than
// the cluster has names both counts; anything else is validate_scenario's rule.
[[nodiscard]] std::string factor_refusal(const Scenario& s, Dim st, int64_t factor);
// Every strategy off, every GPU a plain replica (what "memory saved vs plain DP" compares against).
[[nodiscard]] Scenario plain_data_parallel(const Scenario& s);

// When a dim's collectives run, in words: "every block, each micro-batch", "once per step", ...
[[nodiscard]] std::string communication_cadence(Dim d, const ParallelSpec& p);

// The price of one strategy that is on, from the Report of the current scenario.
struct StrategyPrice {
    Dim strategy = Dim::dp_replicate;
    int64_t factor = 1;
    std::string dim;             // the Report dim it reads ("dp_replicate", "dp_shard", "tp", ...)
    std::string collective;      // e.g. "all-reduce"
    std::string cadence;         // communication_cadence(dim)
    std::string link;            // intra, inter, mixed, none
    double bytes_per_step = 0;   // per GPU
    double time_s = 0;           // per step, before overlap
    double exposed_s = 0;        // the part on the critical path
    // Memory per GPU (most loaded) with this strategy turned off and its GPUs made plain replicas
    // instead, minus the current one: what it saves (0 for DP itself, which copies everything).
    // Empty when turning it off gives an invalid scenario (why in `saved_note`).
    std::optional<double> memory_saved;
    std::string saved_note;
    // DP only: copies of the layout on the GPUs it leaves over (the mesh makes them data parallel,
    // DP toggled on or not); 1 when the layout fills the cluster. `factor` counts them in.
    int64_t leftover_copies = 1;
};

// One row per strategy that is on, in kStrategyOrder order, and DP also when the layout leaves GPUs
// over for copies of it. `report` is build_report(s).
[[nodiscard]] std::vector<StrategyPrice> price_strategies(const Scenario& s, const Report& report);

// Memory per GPU of plain data parallel minus the current layout's (most loaded GPUs); empty when plain
// DP is not a valid scenario (e.g. the batch does not split over every GPU).
[[nodiscard]] std::optional<double> memory_saved_vs_plain_dp(const Scenario& s, const Report& report);

}  // namespace shardscope
