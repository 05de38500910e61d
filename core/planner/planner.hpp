#pragma once
// The planner: every valid layout of the scenario's model on its cluster, scored by the cost
// model (build_report, the very numbers `shardscope report` prints), ranked.
//
// What is searched, and what is held fixed (choices made once, here):
// - tp, cp, pp, dp_shard, dp_replicate whose product is the GPU count. Layouts that leave GPUs over are
//   not listed separately: the leftover GPUs become dp_replicate (docs/design.md), which is the same mesh as
//   the layout that names that dp_replicate outright.
// - ep: every divisor of experts that divides dp_shard*cp (1 for a dense model).
// - zero 0-3 where it means something: 0 only with dp_shard = 1 (the validation rule), and 1-3 only
//   when the ZeRO group dp_shard*cp has more than one rank (over one rank they shard nothing and cost
//   exactly what zero 0 costs, so they would only repeat rows).
// - micro_batch: every size that splits global_batch into whole micro-batches.
// - recompute: none, selective, full.
// - schedule: every one the validation rules accept for the layout; for interleaved-1f1b every depth v
//   whose pp x v chunks each hold the same whole number of layers (the embedding and the loss count as
//   one each where the scenario puts them in the pipeline split). With pp = 1 only 1f1b: one stage runs
//   the same ops whatever the schedule says.
// - pipeline split (pp > 1): the scenario's own embedding_in_pipeline_split / loss_in_pipeline_split,
//   and both on and both off where those differ (Megatron-LM's --account-for-embedding/loss-in-pipeline-
//   split: 126 layers + 2 split evenly over 16 stages). Uneven first/last stages are kept at the
//   scenario's own pp only (a choice for that depth; every other depth splits evenly, and uneven ends are
//   not interleaved).
// - order: tp innermost, then cp, dp_shard, dp_replicate, pp (the default order) unless all_orders,
//   which tries every order that differs in the dims of size > 1 (dims of size 1 place no ranks).
// - offload: the optimizer stays on the GPUs; only when no candidate fits there does a second search
//   run the same layouts (zero 1-3) with it offloaded to host memory (training.offload optimizer),
//   and says so in its notes.
// - Held from the scenario: model, cluster, global_batch, precision, sequence_parallel, tp_comm_overlap,
//   cp_comm.
//
// Folding: layouts that differ only in knobs that barely move the figure ranked by (the interleaving
// depth, the ZeRO stage, how the data-parallel ranks split into dp_shard x dp_replicate, the mesh order,
// whether the embedding and loss count in the pipeline split)
// and come within 0.1% of a better-ranked one fold into its row as `also`, so the top k are k distinct
// settings. The search still costs every candidate that could be such a variant (it prunes only above
// the k-th row's figure plus 0.1%), so the `also` lists are complete.
//
// Ranking: by step time (MFU ranks the same way: model FLOPs per step do not depend on the layout), or
// by memory per GPU; ties go to the layout with more memory headroom (less memory), then to the
// faster one, then to a fixed order of the knobs so the ranking is deterministic.
//
// Pruning, only where it is provably safe (a test compares it with brute force):
// - memory: per stage, model state + `other` + the activations of the micro-batches the schedule
//   holds at its peak (the simulator's peak, which the schedule's closed form gives exactly) is a floor
//   on what build_report reports; a candidate whose floor exceeds the GPU's memory never fits and is
//   never costed.
// - time: a device runs one op at a time, so the step is at least the busiest stage's work, plus, on
//   stage s, the forwards of stages 0..s-1 before its first op and (schedules with a whole backward)
//   their backwards after its last one (DualPipe: the forwards of whichever direction reaches it
//   first); then the step-end data-parallel collectives that the last backward cannot hide, at least
//   the least of any stage. Candidates are costed in the order of that floor; the search stops once
//   the floor exceeds the k-th best step found.
// - Stages that repeat their neighbour (same blocks, neither first nor last) are priced once per run.

#include "core/model/report.hpp"
#include "core/scenario/scenario.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shardscope {

enum class PlanObjective { step, mfu, memory };

[[nodiscard]] std::string_view to_string(PlanObjective o) noexcept;
[[nodiscard]] std::optional<PlanObjective> plan_objective_from_string(std::string_view s) noexcept;

// Restrictions the user asks for; the search honours them, so the top k is the top k among them.
struct PlanFilters {
    bool tp_within_node = false;  // every TP group inside one node
    bool no_pp = false;           // pp = 1
    bool zero_at_most_1 = false;  // zero 0 or 1
};

struct PlanOptions {
    PlanObjective objective = PlanObjective::step;
    int top_k = 10;
    bool all_orders = false;
    bool prune = true;            // false: cost every candidate (brute force, for tests)
    PlanFilters filters;
    // Keep only the best candidate of each mesh (tp, cp, pp, dp_shard, dp_replicate, ep, order) in the
    // ranking: the top k distinct meshes, each with its best ZeRO stage, micro-batch, recompute and
    // schedule. Pruning stays safe: a candidate can neither enter nor replace its mesh's entry unless it
    // beats the k-th entry.
    bool one_per_mesh = false;
    // Fold near-identical layouts into one row (see Folding above); false ranks every layout on its own.
    bool fold = true;
    // Also return every fitting candidate the search costed (the panel's scatter), not only the top k.
    bool keep_costed = false;
    // Threads for the first pass (flooring every layout); 0: one per hardware thread. The ranking is
    // the same for any count.
    int threads = 0;
};

// Shared with a thread that runs the search: how far it got, and a way to stop it early.
struct PlanProgress {
    std::atomic<int64_t> costed{0};   // candidates put through build_report so far
    // Candidates that passed the memory floor, of the layouts floored so far (an upper bound on costed;
    // it grows while the search floors more layouts).
    std::atomic<int64_t> to_cost{0};
    std::atomic<bool> cancel{false};
};

// A layout folded into a better row: it differs from that row only in knobs that barely move the figure.
struct PlanVariant {
    Scenario scenario;
    double step_s = 0;
    double memory_bytes = 0;
};

// A ranked variant within this share of its row's figure (step, or memory when ranked by memory) folds
// into that row.
inline constexpr double kFoldShare = 0.001;

// One ranked layout.
struct PlanEntry {
    Scenario scenario;            // the whole scenario with this layout: ready for AppState::try_apply
    double step_s = 0;
    double mfu = 0;               // 0 when unknown (see mfu_known)
    bool mfu_known = true;        // false where the report gives none (Megatron's FLOPs above the peak)
    double tokens_per_s = 0;
    double memory_bytes = 0;      // the most loaded GPU
    double headroom_bytes = 0;    // GPU memory - memory_bytes
    double compute_s = 0;
    double exposed_comm_s = 0;
    double bubble_s = 0;
    bool tp_within_node = true;   // every TP group shares a node (or there is no TP)
    std::vector<PlanVariant> also;  // near-identical layouts folded into this row, best first
};

struct PlanStats {
    int64_t layouts = 0;          // (tp, cp, pp, dp_shard, dp_replicate, ep, order) tuples
    int64_t candidates = 0;       // complete candidates enumerated (every knob set)
    int64_t pruned_memory = 0;    // never costed: their memory floor exceeds the GPU
    int64_t pruned_time = 0;      // never costed: their step-time floor cannot beat the k-th best
    int64_t costed = 0;           // put through build_report
    int64_t fitting = 0;          // of those, the ones that fit
    double seconds = 0;           // wall time of the whole search
    // Candidates enumerated per second of the search (0 before it ran).
    [[nodiscard]] double candidates_per_second() const noexcept { return seconds > 0 ? candidates / seconds : 0.0; }
};

struct PlanResult {
    std::vector<PlanEntry> ranked;     // best first, at most top_k
    std::vector<PlanEntry> costed;     // keep_costed: every fitting candidate costed, in no order
    PlanStats stats;
    PlanObjective objective = PlanObjective::step;  // what was ranked by (memory for a count-only model)
    bool cancelled = false;
    std::vector<std::string> notes;
    double gpu_memory_bytes = 0;       // the capacity every candidate was judged against
};

// A search that runs a slice at a time: the browser page, which has no threads, advances it a few
// milliseconds per frame; plan_layouts runs one to the end. The ranking is the same either way, and the
// same for any thread count. `base` must pass validate_scenario; `progress` may be null, and its cancel
// flag ends the search at the next candidate.
class PlanSearch {
public:
    PlanSearch(const Scenario& base, const PlanOptions& options, PlanProgress* progress = nullptr);
    ~PlanSearch();
    PlanSearch(const PlanSearch&) = delete;
    PlanSearch& operator=(const PlanSearch&) = delete;
    // Works until the search is done (true) or `deadline` has passed (false: call again). With more
    // than one thread the first pass runs to its end whatever the deadline.
    bool advance(std::chrono::steady_clock::time_point deadline);
    [[nodiscard]] bool done() const noexcept;
    // The result, once done() (moved out: call once).
    [[nodiscard]] PlanResult take();

private:
    struct State;
    static bool advance_state(State& s, std::chrono::steady_clock::time_point deadline);
    std::unique_ptr<State> state_;
    bool offloaded_ = false;  // the second search, with the optimizer in host memory, has begun
};

// Runs the search for `base` (which must pass validate_scenario). `progress` may be null.
[[nodiscard]] PlanResult plan_layouts(const Scenario& base, const PlanOptions& options,
                                      PlanProgress* progress = nullptr);

// Every candidate the search would consider (after filters, before any pruning). For tests and small
// clusters: it is a complete list of scenarios.
[[nodiscard]] std::vector<Scenario> enumerate_candidates(const Scenario& base, const PlanOptions& options);

// True when `a` ranks before `b` under `objective` (the ordering above).
[[nodiscard]] bool ranks_before(const PlanEntry& a, const PlanEntry& b, PlanObjective objective) noexcept;

// "tp 8, pp 4, dp_shard 2, zero 1, mb 1, 1f1b, recompute none": the knobs of a layout, short.
[[nodiscard]] std::string describe_layout(const Scenario& s);
// The pipeline schedule as the planner writes it ("1f1b", "interleaved-1f1b v4"), or "" for a layout
// without a pipeline (pp 1), whose schedule field schedules nothing.
[[nodiscard]] std::string pipeline_schedule_text(const Scenario& s);
// How a pipeline layout counts the embedding and the loss, and any uneven ends: "emb+loss in split",
// "ends 7/7 layers" ("" when it splits the layers alone, evenly).
[[nodiscard]] std::string pipeline_split_text(const ParallelSpec& p);
// The knobs where `b` differs from `a`, e.g. "pp 4 -> 8, zero 1 -> 3" ("" when none do).
[[nodiscard]] std::string layout_changes(const Scenario& a, const Scenario& b);
// Everything where `b` differs from `a`, short: the model (by name when it changed, else field by
// field), the batch and training settings, the GPUs, then layout_changes; at most `most` items, then
// "and N more". "other settings" when they differ only where no item looks (a link's bandwidth).
[[nodiscard]] std::string scenario_changes(const Scenario& a, const Scenario& b, std::size_t most = 4);
// True when `variant` folds into `row`: the same tp, cp, pp, ep, data-parallel size, micro-batch,
// recompute and schedule kind, and a figure within kFoldShare of the row's.
[[nodiscard]] bool folds_into(const PlanEntry& row, const PlanEntry& variant, PlanObjective objective) noexcept;
// The knobs a variant sets differently from its row, as the variant has them: "zero 1, v 4".
[[nodiscard]] std::string variant_knobs(const Scenario& row, const Scenario& variant);
// "also within 0.1%: zero 1 (+0.02%, 49.3 GiB); v4 (+0.05%, 43.0 GiB)" ("" without variants).
[[nodiscard]] std::string describe_variants(const PlanEntry& row);
// Why `loser` ranks below `winner`: the objective's gap and the time part (compute, exposed
// communication, bubble) or memory that makes most of it, with the knobs that differ.
[[nodiscard]] std::string why_ranked_below(const PlanEntry& winner, const PlanEntry& loser, PlanObjective objective);

// The entries no other entry beats on both step time and memory (lower is better for both), sorted by
// step time: the Pareto front of the scatter. Indices into `entries`.
[[nodiscard]] std::vector<std::size_t> pareto_front(const std::vector<PlanEntry>& entries);

// The knobs the planner searches, reset to fixed values: two scenarios with the same planning key
// give the same ranking, so applying a row (which changes only those knobs) need not re-plan.
[[nodiscard]] Scenario planning_key(const Scenario& s);
// True when the two scenarios agree on every knob the planner searches (the fields planning_key
// resets): cheaper than comparing whole scenarios, which matters for thousands of costed points.
[[nodiscard]] bool same_planner_knobs(const Scenario& a, const Scenario& b);

}  // namespace shardscope
