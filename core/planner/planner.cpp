#include "core/planner/planner.hpp"

#include "core/planner/plan_floors.hpp"

#include "core/model/bounded_cache.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/memory.hpp"
#include "core/mesh/mesh.hpp"
#include "core/model/params.hpp"
#include "core/pipeline/pipeline.hpp"
#include "core/scenario/units.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>

namespace shardscope {
namespace {

// ---- Enumeration ------------------------------------------------------------------------------------

std::vector<int64_t> divisors(int64_t n) {
    std::vector<int64_t> small, large;
    for (int64_t d = 1; d * d <= n; ++d) {
        if (n % d != 0) continue;
        small.push_back(d);
        if (d != n / d) large.push_back(n / d);
    }
    small.insert(small.end(), large.rbegin(), large.rend());
    return small;
}

// Mesh orders to try. Two orders that list the dims of size > 1 in the same sequence place every rank
// identically (a dim of size 1 has stride but no extent), so only one of them is kept.
std::vector<std::vector<Dim>> orders_for(const ParallelSpec& p, bool all_orders) {
    std::vector<Dim> order(kMeshDims.begin(), kMeshDims.end());
    if (!all_orders) return {order};
    std::vector<std::vector<Dim>> out;
    std::vector<std::vector<Dim>> seen;
    do {
        std::vector<Dim> placed;
        for (Dim d : order)
            if (p.factor(d) > 1) placed.push_back(d);
        if (std::find(seen.begin(), seen.end(), placed) != seen.end()) continue;
        seen.push_back(placed);
        out.push_back(order);
    } while (std::next_permutation(order.begin(), order.end()));
    return out;
}

std::vector<int> zero_stages(const ParallelSpec& p, const PlanFilters& f, Offload offload) {
    std::vector<int> out;
    const int64_t shard_ranks = p.dp_shard * p.cp;
    // zero 0 with dp_shard > 1 is a validation error, and so is an offloaded optimizer without ZeRO.
    if (p.dp_shard == 1 && offload == Offload::none) out.push_back(0);
    if (shard_ranks > 1)
        for (int z = 1; z <= 3; ++z) out.push_back(z);
    if (f.zero_at_most_1) out.erase(std::remove_if(out.begin(), out.end(), [](int z) { return z > 1; }), out.end());
    return out;
}

// validate_training's limits of the pipeline simulator: pp stages, m micro-batches, v chunks a stage.
bool simulator_runs(int64_t pp, int64_t m, int64_t v) noexcept {
    return pp <= kMaxPipelineStages && m <= kMaxMicrobatches && 3 * m * pp * v <= kMaxPipelineOps;
}

// The units interleaving splits into chunks: the layers, plus the embedding and the loss where the
// layout counts them in the pipeline split (Llama 3 405B: 126 + 2 = 128 chunks on 16 stages x 8).
int64_t chunk_units(const ModelSpec& model, const ParallelSpec& p) noexcept {
    return model.layers + (p.embedding_in_pipeline_split ? 1 : 0) + (p.loss_in_pipeline_split ? 1 : 0);
}

bool uneven_ends(const ParallelSpec& p) noexcept { return p.first_stage_layers > 0 || p.last_stage_layers > 0; }

// Uneven first and last stages are a choice made for one pipeline depth: the search keeps them where pp
// is the scenario's own, and splits every other depth evenly.
bool keeps_uneven_ends(const Scenario& base, int64_t pp) noexcept { return pp == base.parallel.pp; }

// The ways the search counts the embedding and the loss in a pipeline of pp stages: as the scenario
// does, and both as chunks of their own or both not (Megatron-LM's --account-for-embedding/loss-in-
// pipeline-split), whichever of those differ. One stage has nothing to split.
std::vector<std::pair<bool, bool>> pipeline_split_variants(const Scenario& base, int64_t pp) {
    const std::pair<bool, bool> own{base.parallel.embedding_in_pipeline_split, base.parallel.loss_in_pipeline_split};
    if (pp <= 1 || !base.model.has_architecture()) return {own};
    std::vector<std::pair<bool, bool>> out{own};
    for (const std::pair<bool, bool>& v : {std::pair{false, false}, std::pair{true, true}})
        if (v != own) out.push_back(v);
    return out;
}

// Calls add(schedule) for each schedule validate_training accepts for layout p (its pp, pipeline split
// and ends) and m micro-batches per pipeline.
template <typename Add>
void each_schedule(const ModelSpec& model, const ParallelSpec& p, int64_t m, Add&& add) {
    const int64_t pp = p.pp;
    if (!simulator_runs(pp, m, 1)) return;
    // One stage runs its ops back to back whatever the schedule; a count-only model has no times to
    // choose a schedule by. Both keep 1f1b alone.
    if (pp == 1 || !model.has_architecture()) {
        add(ScheduleChoice{Schedule::one_f_one_b, 1});
        return;
    }
    for (Schedule s : {Schedule::gpipe, Schedule::one_f_one_b, Schedule::zb_h1, Schedule::zb_h2}) add(ScheduleChoice{s, 1});
    // Interleaving as Megatron-LM runs it: every chunk holds the same whole number of layers (uneven
    // ends are not chunked).
    const int64_t units = chunk_units(model, p);
    if (m % pp == 0 && !uneven_ends(p))
        for (int64_t v = 2; pp * v <= units && simulator_runs(pp, m, v); ++v)
            if (units % (pp * v) == 0) add(ScheduleChoice{Schedule::interleaved_1f1b, v});
    if (pp % 2 == 0 && m % 2 == 0 && m >= 2 * pp) add(ScheduleChoice{Schedule::dualpipe, 1});
}

void schedules_for(const ModelSpec& model, const ParallelSpec& p, int64_t m, std::vector<ScheduleChoice>& out) {
    out.clear();
    each_schedule(model, p, m, [&](ScheduleChoice sc) { out.push_back(sc); });
}

std::vector<ScheduleChoice> schedules_for(const ModelSpec& model, const ParallelSpec& p, int64_t m) {
    std::vector<ScheduleChoice> out;
    schedules_for(model, p, m, out);
    return out;
}

// How many schedules schedules_for lists, without listing them.
std::size_t schedule_count(const ModelSpec& model, const ParallelSpec& p, int64_t m) {
    std::size_t n = 0;
    each_schedule(model, p, m, [&](ScheduleChoice) { ++n; });
    return n;
}

// Calls visit(parallel, zero stages) for every layout that passes the filters, and counts layouts.
template <typename Visit>
void for_each_layout(const Scenario& base, const PlanOptions& options, PlanStats& stats, Visit&& visit) {
    const ModelSpec& m = base.model;
    const int64_t world = base.cluster.gpu_count();
    const bool arch = m.has_architecture();
    const int64_t gb = base.training.global_batch;
    for (int64_t tp : divisors(world)) {
        if (arch && (m.heads % tp != 0 || m.kv_heads % tp != 0)) continue;
        for (int64_t cp : divisors(world / tp)) {
            if (m.seq_len > 0 && m.seq_len % cp != 0) continue;
            for (int64_t pp : divisors(world / tp / cp)) {
                if (arch && pp > m.layers) continue;
                if (options.filters.no_pp && pp > 1) continue;
                const int64_t dp = world / tp / cp / pp;
                if (gb % dp != 0) continue;  // no micro-batch size splits the batch over dp replicas
                for (int64_t dp_shard : divisors(dp)) {
                    const std::vector<int64_t> eps =
                        m.is_moe() ? divisors(m.experts) : std::vector<int64_t>{1};
                    for (int64_t ep : eps) {
                        if ((dp_shard * cp) % ep != 0) continue;
                        ParallelSpec p = base.parallel;
                        p.tp = tp;
                        p.cp = cp;
                        p.pp = pp;
                        p.dp_shard = dp_shard;
                        p.dp_replicate = dp / dp_shard;
                        p.ep = ep;
                        if (!keeps_uneven_ends(base, pp)) p.first_stage_layers = p.last_stage_layers = 0;
                        for (const auto& [embedding, loss] : pipeline_split_variants(base, pp)) {
                            p.embedding_in_pipeline_split = embedding;
                            p.loss_in_pipeline_split = loss;
                            for (const std::vector<Dim>& order : orders_for(p, options.all_orders)) {
                                p.order = order;
                                ++stats.layouts;
                                const std::vector<int> zeros = zero_stages(p, options.filters, base.training.offload);
                                if (!zeros.empty()) visit(p, zeros);
                            }
                        }
                    }
                }
            }
        }
    }
}

Scenario with_knobs(const Scenario& base, const ParallelSpec& p, int64_t micro_batch, Recompute rc,
                    ScheduleChoice sc) {
    Scenario s = base;
    s.parallel = p;
    s.training.micro_batch = micro_batch;
    s.training.recompute = rc;
    s.training.schedule = sc.schedule;
    s.training.virtual_stages = sc.virtual_stages;
    return s;
}

bool tp_within_node(const DeviceMesh& mesh) {
    const DimLinks links = mesh.summary(Dim::tp).links;
    return links == DimLinks::none || links == DimLinks::intra;
}

constexpr std::array<Recompute, 3> kRecomputes = {Recompute::none, Recompute::selective, Recompute::full};

// ---- Ranking ----------------------------------------------------------------------------------------

std::array<int64_t, 18> layout_key(const Scenario& s) {
    const ParallelSpec& p = s.parallel;
    const TrainingSpec& t = s.training;
    std::array<int64_t, 18> k{p.tp, p.cp, p.pp, p.dp_shard, p.dp_replicate, p.ep, p.zero, t.micro_batch,
                              static_cast<int64_t>(t.recompute), static_cast<int64_t>(t.schedule),
                              t.virtual_stages, 0, 0, 0, 0, 0,
                              // the pipeline split last: layers only before embedding and loss counted
                              static_cast<int64_t>(p.embedding_in_pipeline_split),
                              static_cast<int64_t>(p.loss_in_pipeline_split)};
    for (std::size_t i = 0; i < p.order.size() && i < 5; ++i) k[11 + i] = static_cast<int64_t>(p.order[i]);
    return k;
}

PlanEntry entry_from(const Scenario& s, const Report& r) {
    PlanEntry e;
    e.scenario = s;
    e.step_s = r.time.step.value_or(0);
    e.mfu = r.throughput.mfu.value_or(0);
    e.mfu_known = r.throughput.mfu.has_value();
    e.tokens_per_s = r.throughput.tokens_per_s.value_or(0);
    e.memory_bytes = r.memory.total();
    e.headroom_bytes = r.gpu_memory_bytes - e.memory_bytes;
    e.compute_s = r.time.compute.value_or(0);
    e.exposed_comm_s = r.time.exposed_comm.value_or(0);
    e.bubble_s = r.time.bubble.value_or(0);
    for (const DimCost& d : r.dims)
        if (d.name == "tp") e.tp_within_node = d.size <= 1 || d.link == "intra";
    return e;
}

bool same_factors(const ParallelSpec& p, const ParallelSpec& q) noexcept {
    return p.tp == q.tp && p.cp == q.cp && p.pp == q.pp && p.dp_shard == q.dp_shard &&
           p.dp_replicate == q.dp_replicate && p.ep == q.ep;
}

// The same pipeline split: embedding and loss counted alike, the same uneven ends.
bool same_split(const ParallelSpec& p, const ParallelSpec& q) noexcept {
    return p.embedding_in_pipeline_split == q.embedding_in_pipeline_split &&
           p.loss_in_pipeline_split == q.loss_in_pipeline_split && p.first_stage_layers == q.first_stage_layers &&
           p.last_stage_layers == q.last_stage_layers;
}

bool same_mesh(const Scenario& a, const Scenario& b) {
    return same_factors(a.parallel, b.parallel) && a.parallel.order == b.parallel.order;
}

// The figure a ranking orders by: memory per GPU, or the step (MFU ranks as the step does).
double ranked_figure(const PlanEntry& e, PlanObjective objective) noexcept {
    return objective == PlanObjective::memory ? e.memory_bytes : e.step_s;
}

// The best k rows, best first; with one_per_mesh, the best entry of each of the best k meshes; with
// fold, each row carries the near-identical layouts folded into it. Every entry that could still be a
// row or a variant is kept, and the rows are folded from them in rank order, so the result does not
// depend on the order entries arrive in.
class TopK {
public:
    TopK(std::size_t k, PlanObjective objective, bool one_per_mesh, bool fold)
        : k_(std::max<std::size_t>(1, k)), objective_(objective), one_per_mesh_(one_per_mesh), fold_(fold) {}
    void offer(PlanEntry e) {
        if (full() && ranked_figure(e, objective_) > bound()) return;
        if (one_per_mesh_) {
            const auto same = std::find_if(entries_.begin(), entries_.end(),
                                           [&](const PlanEntry& x) { return same_mesh(x.scenario, e.scenario); });
            if (same != entries_.end()) {
                if (!ranks_before(e, *same, objective_)) return;
                entries_.erase(same);
            }
        }
        const auto at = std::upper_bound(entries_.begin(), entries_.end(), e, [&](const PlanEntry& a, const PlanEntry& b) {
            return ranks_before(a, b, objective_);
        });
        entries_.insert(at, std::move(e));
        fold_rows();
        if (full()) {
            const double limit = bound();
            while (!entries_.empty() && ranked_figure(entries_.back(), objective_) > limit) entries_.pop_back();
        }
    }
    [[nodiscard]] bool full() const noexcept { return rows_.size() >= k_; }
    // Above this figure a candidate can be neither a row nor a variant of one (only when full).
    [[nodiscard]] double bound() const {
        const double kth = ranked_figure(entries_[rows_.back()], objective_);
        return fold_ ? kth * (1.0 + kFoldShare) : kth;
    }
    [[nodiscard]] std::vector<PlanEntry> take() {
        std::vector<PlanEntry> out;
        for (std::size_t r = 0; r < rows_.size(); ++r) {
            PlanEntry row = entries_[rows_[r]];
            for (std::size_t v : variants_[r])
                row.also.push_back({entries_[v].scenario, entries_[v].step_s, entries_[v].memory_bytes});
            out.push_back(std::move(row));
        }
        return out;
    }

private:
    // Rows in rank order: an entry folds into the first row it is a variant of, else starts a row.
    void fold_rows() {
        rows_.clear();
        variants_.clear();
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            std::size_t r = 0;
            if (fold_)
                while (r < rows_.size() && !folds_into(entries_[rows_[r]], entries_[i], objective_)) ++r;
            if (fold_ && r < rows_.size()) {
                variants_[r].push_back(i);
            } else if (rows_.size() < k_) {
                rows_.push_back(i);
                variants_.emplace_back();
            }
        }
    }

    std::size_t k_;
    PlanObjective objective_;
    bool one_per_mesh_ = false;
    bool fold_ = true;
    std::vector<PlanEntry> entries_;             // every entry kept, best first
    std::vector<std::size_t> rows_;              // indices into entries_
    std::vector<std::vector<std::size_t>> variants_;  // per row
};

// ---- The search -------------------------------------------------------------------------------------

// A group: one layout with one ZeRO stage, micro-batch and recompute mode. Pass 1 floors each set of
// factors as a whole on its block floors (Floors::unpriced_floor); when that floor comes up in pass 2
// the layout is priced at each micro-batch (Floors::micro_batch_floors) and queued again; when that
// comes up, every schedule of every group of the layout is floored and the group keeps its lowest
// floor; the group is expanded into its candidates (every schedule that may fit, lowest floor first)
// only when that floor comes up.
struct Group {
    uint32_t layout = 0;        // index into the layouts (ParallelSpec with zero set)
    int64_t micro_batch = 1;
    Recompute recompute = Recompute::none;
    double floor = 0;           // the lowest floor of its candidates
    // A group's first floors hold in every mesh order, so a layout tried in several orders is one group
    // of them all (its layout has the first order) until the search reaches it: the index of its orders
    // in the order sets, or -1 for a group of one order.
    int32_t orders = -1;
};

struct Candidate {
    double floor = 0;           // the objective's floor: makespan or memory
    ScheduleChoice schedule;
};

// Pass 2's heaps: a layout whose groups are not yet floored (candidate kLayout, group the job's index,
// a heap of their own), a group of several orders not yet split into them (kOrders), a group not yet
// expanded (kUnexpanded), or an expanded group's next candidate. Each floor is below those of what it
// expands into.
constexpr int32_t kUnexpanded = -1;
constexpr int32_t kOrders = -2;
constexpr int32_t kLayout = -3;
struct HeapEntry {
    double floor = 0;
    uint32_t group = 0;
    int32_t candidate = kUnexpanded;  // else index into the group's expanded candidates
};

bool by_floor_desc(const HeapEntry& a, const HeapEntry& b) { return a.floor > b.floor; }  // min-heap
bool lower_floor(const Candidate& a, const Candidate& b) { return a.floor < b.floor; }

// What every group of one set of factors shares, whatever the mesh order: its stages' shapes, which
// fix every memory floor.
struct LayoutShape {
    std::vector<StageShape> shapes;  // stage_shape per stage (zero, micro-batch and recompute change none)
    std::vector<int64_t> starts;     // run_starts(shapes)
};

// What one group's schedules share when the group is floored on its mesh: the pipeline specs and
// step-end collectives (they depend on the links the order gives each dim). Kept for one group only:
// the specs of one mesh order under different ZeRO stages are not the same (sharing them across the
// groups of an order broke the brute-force tests).
struct OrderCache {
    // By (micro_batch, recompute, expert all-to-all overlapped), for ZeRO 0-2 (ZeRO 3 builds its own).
    // The spec's schedule is 1f1b, or DualPipe where that hides the all-to-all.
    using Key = std::tuple<int64_t, int, bool>;
    std::map<Key, FlooredSpec> specs;
    std::map<int, std::vector<StepEndTimes>> ends;  // by ZeRO stage (it changes what the step ends with)
};

// Floors candidates: the memory floor of every schedule, and the objective's floor of those that may fit.
class Floors {
public:
    Floors(const Scenario& base, const ParamCounts& counts, const PlanOptions& options, bool by_memory)
        : base_(base), counts_(counts), options_(options), by_memory_(by_memory),
          arch_(base.model.has_architecture()), gpu_bytes_(gpu_memory_bytes(base.cluster)), work_(base) {
        // Floors read the layout at 1F1B, one parameter copy, whatever the base runs: memory_floor
        // adds DualPipe's second copy for the schedules that hold one.
        work_.training.schedule = Schedule::one_f_one_b;
    }

    [[nodiscard]] double gpu_bytes() const noexcept { return gpu_bytes_; }
    [[nodiscard]] const Scenario& base() const noexcept { return base_; }
    [[nodiscard]] const PlanOptions& options() const noexcept { return options_; }

    // The factors' stage shapes, or nothing when pruning is off (no floors are computed then).
    [[nodiscard]] LayoutShape layout_shape(const ParallelSpec& p) const {
        LayoutShape shape;
        if (!options_.prune) return shape;
        shape.shapes.reserve(static_cast<std::size_t>(p.pp));
        for (int64_t st = 0; st < p.pp; ++st) shape.shapes.push_back(stage_shape(counts_, p, st));
        shape.starts = run_starts(shape.shapes);
        return shape;
    }

    // True when the model state alone of layout `p` (zero set) overflows a GPU: nothing with it fits.
    [[nodiscard]] bool state_overflows(const ParallelSpec& p, int64_t micro_batch, const LayoutShape& shape) {
        if (!options_.prune) return false;
        set_knobs(p, micro_batch, Recompute::none);
        memory_runs(work_, shape.shapes, shape.starts, activations(p, micro_batch, Recompute::none), memory_);
        return least_memory(memory_, true) > gpu_bytes_;
    }

    // The group's candidates that pass the memory floor, with their floors (the memory floor when
    // ranking by memory or for a count-only model), into `out`; returns how many schedules the memory
    // floor pruned. `mesh()` gives the layout's mesh with this ZeRO stage, which the caller builds on
    // first use (never, when nothing of the group fits).
    template <typename MeshOf>
    int64_t floor_group(const ParallelSpec& p, int64_t micro_batch, Recompute rc, const LayoutShape& shape,
                        OrderCache& cache, MeshOf&& mesh, std::vector<Candidate>& out) {
        const int64_t pruned = floor_memory(p, micro_batch, rc, shape, out);
        if (needs_time_floors(out)) floor_time(p, micro_batch, rc, shape, cache, mesh(), out);
        return pruned;
    }

    // The memory half of floor_group: it depends on the factors, not on the mesh order.
    int64_t floor_memory(const ParallelSpec& p, int64_t micro_batch, Recompute rc, const LayoutShape& shape,
                         std::vector<Candidate>& out) {
        out.clear();
        set_knobs(p, micro_batch, rc);
        const int64_t microbatches = base_.training.global_batch / (p.dp_shard * p.dp_replicate * micro_batch);
        const int64_t units = chunk_units(base_.model, p);
        if (p.pp != schedules_pp_ || microbatches != schedules_m_ || units != schedules_units_ ||
            uneven_ends(p) != schedules_uneven_) {
            schedules_for(base_.model, p, microbatches, schedules_);
            schedules_pp_ = p.pp;
            schedules_m_ = microbatches;
            schedules_units_ = units;
            schedules_uneven_ = uneven_ends(p);
        }
        const auto count = static_cast<int64_t>(schedules_.size());
        if (!options_.prune) {
            for (const ScheduleChoice sc : schedules_) out.push_back({0.0, sc});
            return 0;
        }
        memory_runs(work_, shape.shapes, shape.starts, activations(p, micro_batch, rc), memory_);
        if (least_memory(memory_, false) > gpu_bytes_) return count;
        for (const ScheduleChoice sc : schedules_) {
            const double mem = memory_floor(memory_, p.pp, sc, microbatches);
            if (mem <= gpu_bytes_) out.push_back({mem, sc});
        }
        return count - static_cast<int64_t>(out.size());
    }

    // Whether floor_memory's candidates go on to step-time floors (not when ranking by memory, not for
    // a count-only model, not when pruning is off or nothing may fit).
    [[nodiscard]] bool needs_time_floors(const std::vector<Candidate>& found) const noexcept {
        return options_.prune && !found.empty() && !by_memory_ && arch_;
    }

    // The first time floor, for pass 1: the pipeline of layout `p` with each stage's compute alone
    // (compute_pipeline_spec). It reads no links, so one serves every mesh order and ZeRO stage, and
    // its stage costs read no data-parallel factor, so layouts that differ only in those share them.
    [[nodiscard]] FlooredSpec compute_spec(const ParallelSpec& p, int64_t micro_batch, Recompute rc) {
        set_knobs(p, micro_batch, rc);
        const int64_t leftover = DeviceMesh::leftover_factor(base_.cluster, p);
        const ComputeKey key{p.tp, p.cp, p.ep, p.sequence_parallel ? 1 : 0, p.pp, p.first_stage_layers,
                             p.last_stage_layers, p.embedding_in_pipeline_split ? 1 : 0,
                             p.loss_in_pipeline_split ? 1 : 0, micro_batch, static_cast<int64_t>(rc),
                             p.product() * leftover};
        PipelineSpec spec = compute_specs_.get(key, [&] { return compute_pipeline_spec(work_, counts_); });
        spec.microbatches = static_cast<int>(std::min<int64_t>(
            std::max<int64_t>(1, microbatches_per_step(work_, p.dp_replicate * leftover)), std::numeric_limits<int>::max()));
        return FlooredSpec(std::move(spec));
    }

    // Floors under every group floor_layout finds for the factors `p`, one for each micro-batch in
    // `micro_batches`, for pass 2 to order whole layouts by before it floors any of their groups: the
    // compute-alone makespan of each schedule, before any memory floor (which only removes schedules)
    // and without recompute (a recompute only adds to the backward, and the makespan floor grows with
    // every stage's costs; the margin covers what rounding gives back where a full recompute's kept
    // blocks subtract their forward again). They read neither the ZeRO stage nor how data parallelism
    // splits, so layouts that differ only in those share them. 0 where groups are not floored by time;
    // infinity for a micro-batch that no schedule runs.
    [[nodiscard]] const std::vector<double>& micro_batch_floors(const ParallelSpec& p,
                                                                const std::vector<int64_t>& micro_batches) {
        const int64_t dp = p.dp_shard * p.dp_replicate;
        const LayoutFloorKey key = layout_floor_key(p);
        if (const auto known = layout_floors_.find(key); known != layout_floors_.end()) return known->second;
        std::vector<double> floors;
        floors.reserve(micro_batches.size());
        const bool timed = options_.prune && !by_memory_ && arch_;
        for (const int64_t mb : micro_batches) {
            schedules_for(base_.model, p, base_.training.global_batch / (dp * mb), layout_schedules_);
            double least = std::numeric_limits<double>::infinity();
            if (!layout_schedules_.empty() && !timed) least = 0.0;
            if (!layout_schedules_.empty() && timed) {
                const FlooredSpec spec = compute_spec(p, mb, Recompute::none);
                for (const ScheduleChoice sc : layout_schedules_)
                    least = std::min(least, makespan_floor(spec.spec, spec.run_ends, sc));
            }
            floors.push_back(least * (1.0 - 1e-12));
        }
        return layout_floors_.emplace(key, std::move(floors)).first->second;
    }

    // A floor under every micro_batch_floors(p, micro_batches), for pass 1 to order layouts by before
    // it prices a single block: the same makespans on the stages' block floors (block_floor), which
    // read the micro-batch only to scale each kernel's work. 0 where groups are not floored by time.
    [[nodiscard]] double unpriced_floor(const ParallelSpec& p, const std::vector<int64_t>& micro_batches) {
        if (!options_.prune || by_memory_ || !arch_) return 0.0;
        const int64_t dp = p.dp_shard * p.dp_replicate;
        const LayoutFloorKey key = layout_floor_key(p);
        if (const auto known = unpriced_floors_.find(key); known != unpriced_floors_.end()) return known->second;
        double least = std::numeric_limits<double>::infinity();
        for (const int64_t mb : micro_batches) {
            schedules_for(base_.model, p, base_.training.global_batch / (dp * mb), layout_schedules_);
            if (layout_schedules_.empty()) continue;
            set_knobs(p, mb, Recompute::none);
            const FlooredSpec spec(compute_pipeline_floor_spec(work_, counts_, block_floors(p)));
            for (const ScheduleChoice sc : layout_schedules_)
                least = std::min(least, makespan_floor(spec.spec, spec.run_ends, sc));
        }
        // Summed in another order than compute_pipeline_spec: stay a hair below.
        least *= 1.0 - 1e-9;
        unpriced_floors_.emplace(key, least);
        return least;
    }

    // The time half: replaces each candidate's memory floor with its step-time floor on mesh `m`, the
    // layout `p` (order and zero set) builds.
    void floor_time(const ParallelSpec& p, int64_t micro_batch, Recompute rc, const LayoutShape& shape,
                    OrderCache& cache, const DeviceMesh& m, std::vector<Candidate>& out) {
        set_knobs(p, micro_batch, rc);
        // DualPipe hides the expert all-to-all that 1f1b exposes: its candidates get a spec of their own.
        const bool overlap_differs = p.ep > 1 && !p.ep_comm_overlap;
        std::array<std::optional<FlooredSpec>, 2> fresh;
        const auto spec_for = [&](bool ep_overlapped) -> const FlooredSpec& {
            work_.training.schedule = ep_overlapped ? Schedule::dualpipe : Schedule::one_f_one_b;
            const auto build = [&] { return FlooredSpec(scenario_pipeline_spec(work_, counts_, m)); };
            if (p.zero >= 3) {
                std::optional<FlooredSpec>& slot = fresh[ep_overlapped ? 1 : 0];
                if (!slot) slot = build();
                return *slot;
            }
            const OrderCache::Key key{micro_batch, static_cast<int>(rc), ep_overlapped};
            auto it = cache.specs.find(key);
            if (it == cache.specs.end()) it = cache.specs.emplace(key, build()).first;
            return it->second;
        };
        std::vector<StepEndTimes>& ends = cache.ends[p.zero];
        if (ends.empty()) ends = step_end_times_of_runs(work_, counts_, m, shape.starts);
        for (Candidate& c : out) {
            const FlooredSpec& spec = spec_for(overlap_differs && c.schedule.schedule == Schedule::dualpipe);
            c.floor = makespan_floor(spec.spec, spec.run_ends, c.schedule) + step_end_floor(ends, shape.starts, spec.spec);
        }
        work_.training.schedule = Schedule::one_f_one_b;
    }

private:
    void set_knobs(const ParallelSpec& p, int64_t micro_batch, Recompute rc) {
        work_.parallel = p;
        work_.training.micro_batch = micro_batch;
        work_.training.recompute = rc;
    }

    // layout_block_floors of the factors (set_knobs first): they read tp, cp, ep and sequence
    // parallelism, not the micro-batch, the recompute or how data parallelism splits.
    const LayoutBlockFloors& block_floors(const ParallelSpec& p) {
        const std::array<int64_t, 4> key{p.tp, p.cp, p.ep, p.sequence_parallel ? 1 : 0};
        auto it = block_floors_.find(key);
        if (it == block_floors_.end()) it = block_floors_.emplace(key, layout_block_floors(work_)).first;
        return it->second;
    }

    // block_activations of the knobs set (set_knobs first): they read tp, cp, sequence parallelism,
    // the micro-batch and recompute of a layout, so every ZeRO stage and data-parallel split shares them.

    const BlockActivations& activations(const ParallelSpec& p, int64_t micro_batch, Recompute rc) {
        const ActivationKey key{p.tp, p.cp, p.sequence_parallel ? 1 : 0, micro_batch, static_cast<int64_t>(rc)};
        auto it = activations_.find(key);
        if (it == activations_.end()) it = activations_.emplace(key, block_activations(work_)).first;
        return it->second;
    }

    const Scenario& base_;
    const ParamCounts& counts_;
    const PlanOptions& options_;
    bool by_memory_, arch_;
    double gpu_bytes_;
    Scenario work_;  // the knobs being floored: one scenario rewritten in place, never copied
    // compute_pipeline_spec by what its stage costs read: tp, cp, ep, sp, pp and the split, micro-batch,
    // recompute and world size.
    using ComputeKey = std::array<int64_t, 12>;
    BoundedCache<ComputeKey, PipelineSpec> compute_specs_{4096};
    // micro_batch_floors and unpriced_floor by what they read: the compute key's factors but
    // micro-batch, recompute and world (one search has one world), and the data-parallel degree
    // (which fixes the micro-batches).
    using LayoutFloorKey = std::array<int64_t, 10>;
    static LayoutFloorKey layout_floor_key(const ParallelSpec& p) {
        return {p.tp, p.cp, p.ep, p.sequence_parallel ? 1 : 0, p.pp, p.first_stage_layers, p.last_stage_layers,
                p.embedding_in_pipeline_split ? 1 : 0, p.loss_in_pipeline_split ? 1 : 0, p.dp_shard * p.dp_replicate};
    }
    std::map<LayoutFloorKey, std::vector<double>> layout_floors_;
    std::map<LayoutFloorKey, double> unpriced_floors_;
    std::map<std::array<int64_t, 4>, LayoutBlockFloors> block_floors_;
    std::vector<ScheduleChoice> layout_schedules_;
    using ActivationKey = std::array<int64_t, 5>;
    std::map<ActivationKey, BlockActivations> activations_;
    std::vector<MemoryRun> memory_;
    std::vector<ScheduleChoice> schedules_;  // schedules_for(pp, m) of the last group floored
    int64_t schedules_pp_ = 0, schedules_m_ = 0, schedules_units_ = 0;
    bool schedules_uneven_ = false;
};

// One set of factors, with the mesh orders and ZeRO stages to try. Pass 1 gives it its floor and
// counts its candidates; pass 2 floors its groups only when that floor comes up.
struct LayoutJob {
    ParallelSpec parallel;
    std::vector<std::vector<Dim>> orders;
    std::vector<int> zeros;
    // Floors::micro_batch_floors, once the layout's unpriced floor came up in pass 2: below every
    // group's floor. `floor` is the least of them then, Floors::unpriced_floor before.
    std::vector<double> micro_batch_floors;
    bool priced = false;
    double floor = 0;
    int64_t candidates = 0;     // every knob set, in every order kept
    int64_t per_zero = 0;       // candidates of one ZeRO stage, in every order kept
    int64_t pruned_memory = 0;  // those of the ZeRO stages whose model state alone overflows a GPU
};

using OrderSet = std::vector<std::vector<Dim>>;

// The groups of the layouts floored: groups index its own layouts.
struct FlooredGroups {
    std::vector<ParallelSpec> layouts;  // with zero set
    std::vector<OrderSet> order_sets;   // the orders of each group of several (Group::orders)
    std::vector<Group> groups;
    int64_t pruned_memory = 0;
    int64_t to_cost = 0;                 // candidates past the memory floor
};

std::vector<int64_t> micro_batches_of(const Scenario& base, const ParallelSpec& p) {
    return divisors(base.training.global_batch / (p.dp_shard * p.dp_replicate));
}

// Pass 1 for one set of factors: the orders the filters keep, how many candidates they hold and the
// layout's unpriced floor. A job left with no order has nothing to search.
void price_job(LayoutJob& job, Floors& floors) {
    const Scenario& base = floors.base();
    if (floors.options().filters.tp_within_node) {
        ParallelSpec p = job.parallel;
        const auto crosses_nodes = [&](const std::vector<Dim>& order) {
            p.order = order;
            return !tp_within_node(DeviceMesh::build(base.cluster, p));
        };
        job.orders.erase(std::remove_if(job.orders.begin(), job.orders.end(), crosses_nodes), job.orders.end());
    }
    if (job.orders.empty()) return;
    const std::vector<int64_t> micro_batches = micro_batches_of(base, job.parallel);
    const int64_t dp = job.parallel.dp_shard * job.parallel.dp_replicate;
    int64_t per_zero = 0;  // the schedules read no ZeRO stage
    for (int64_t mb : micro_batches)
        per_zero += static_cast<int64_t>(kRecomputes.size() *
                                         schedule_count(base.model, job.parallel, base.training.global_batch / (dp * mb)));
    job.per_zero = per_zero * static_cast<int64_t>(job.orders.size());
    job.candidates = job.per_zero * static_cast<int64_t>(job.zeros.size());
    job.floor = floors.unpriced_floor(job.parallel, micro_batches);
}

// Pass 2 for a layout whose unpriced floor came up: the ZeRO stages whose model state alone overflows
// a GPU are dropped (their candidates cannot fit), and the others' floors at each micro-batch priced.
void price_layout(LayoutJob& job, const LayoutShape& shape, Floors& floors) {
    const std::vector<int64_t> micro_batches = micro_batches_of(floors.base(), job.parallel);
    const auto overflows = [&](int z) {
        ParallelSpec p = job.parallel;
        p.zero = z;
        return floors.state_overflows(p, micro_batches.front(), shape);
    };
    const auto fitting = std::remove_if(job.zeros.begin(), job.zeros.end(), overflows);
    job.pruned_memory = job.per_zero * static_cast<int64_t>(job.zeros.end() - fitting);
    job.zeros.erase(fitting, job.zeros.end());
    job.priced = true;
    if (job.zeros.empty()) return;
    job.micro_batch_floors = floors.micro_batch_floors(job.parallel, micro_batches);
    job.floor = *std::min_element(job.micro_batch_floors.begin(), job.micro_batch_floors.end());
}

// Floors every group of one set of factors, in each of its mesh orders, into `out`. These floors read
// no links: the memory floor and the compute-alone makespan are the same in every mesh order and (the
// latter) under every ZeRO stage, so they are taken once for all of them and no mesh is built. A group
// is floored on its mesh, with its communication, only when the search reaches it.
// Nothing above `bound` is kept: a micro-batch whose floor is above it is not floored at all, and a
// group whose floor is above it is left out (the bound only falls, so neither could ever rank).
void floor_layout(const LayoutJob& job, const LayoutShape& shape, double bound, Floors& floors,
                  FlooredGroups& out) {
    const Scenario& base = floors.base();
    struct Order {
        ParallelSpec parallel;
        std::optional<uint32_t> layout;  // its index in out.layouts for the ZeRO stage being floored
    };
    std::map<std::pair<int64_t, Recompute>, FlooredSpec> compute_specs;  // by micro-batch and recompute
    const auto compute_spec = [&](int64_t mb, Recompute rc) -> const FlooredSpec& {
        auto it = compute_specs.find({mb, rc});
        if (it == compute_specs.end()) it = compute_specs.emplace(std::pair{mb, rc}, floors.compute_spec(job.parallel, mb, rc)).first;
        return it->second;
    };
    std::vector<Order> orders;
    for (const std::vector<Dim>& order : job.orders) {
        Order o;
        o.parallel = job.parallel;
        o.parallel.order = order;
        orders.push_back(std::move(o));
    }
    if (orders.empty()) return;
    const auto n_orders = static_cast<int64_t>(orders.size());
    ParallelSpec p = job.parallel;
    const std::vector<int64_t> micro_batches = micro_batches_of(base, p);
    std::vector<Candidate> found_memory;
    for (int z : job.zeros) {
        p.zero = z;
        for (Order& o : orders) {
            o.parallel.zero = z;
            o.layout.reset();
        }
        // One group stands for every order: its layout is the first order's.
        const int32_t order_set = n_orders > 1 ? static_cast<int32_t>(out.order_sets.size()) : -1;
        if (n_orders > 1) {
            OrderSet set;
            for (const Order& o : orders) set.push_back(o.parallel.order);
            out.order_sets.push_back(std::move(set));
        }
        Order& first = orders.front();
        for (std::size_t i = 0; i < micro_batches.size(); ++i) {
            if (job.micro_batch_floors[i] > bound) continue;
            const int64_t mb = micro_batches[i];
            for (Recompute rc : kRecomputes) {
                const int64_t pruned = floors.floor_memory(p, mb, rc, shape, found_memory);
                out.pruned_memory += pruned * n_orders;
                if (found_memory.empty()) continue;
                if (floors.needs_time_floors(found_memory)) {
                    const FlooredSpec& spec = compute_spec(mb, rc);
                    for (Candidate& c : found_memory) c.floor = makespan_floor(spec.spec, spec.run_ends, c.schedule);
                }
                const double lowest = std::min_element(found_memory.begin(), found_memory.end(), lower_floor)->floor;
                if (lowest > bound) continue;
                if (!first.layout) {
                    out.layouts.push_back(first.parallel);
                    first.layout = static_cast<uint32_t>(out.layouts.size() - 1);
                }
                out.to_cost += static_cast<int64_t>(found_memory.size()) * n_orders;
                out.groups.push_back(Group{*first.layout, mb, rc, lowest, order_set});
            }
        }
    }
}

std::size_t thread_count(int asked) {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
    (void)asked;
    return 1;  // the browser page has no threads: it searches in slices (PlanSearch)
#else
    if (asked > 0) return static_cast<std::size_t>(asked);
    return std::max(1u, std::thread::hardware_concurrency());
#endif
}

}  // namespace

std::string_view to_string(PlanObjective o) noexcept {
    switch (o) {
        case PlanObjective::step: return "step";
        case PlanObjective::mfu: return "mfu";
        case PlanObjective::memory: return "memory";
    }
    return "step";
}

std::optional<PlanObjective> plan_objective_from_string(std::string_view s) noexcept {
    if (s == "step") return PlanObjective::step;
    if (s == "mfu") return PlanObjective::mfu;
    if (s == "memory") return PlanObjective::memory;
    return std::nullopt;
}

bool ranks_before(const PlanEntry& a, const PlanEntry& b, PlanObjective objective) noexcept {
    if (objective == PlanObjective::memory) {
        if (a.memory_bytes != b.memory_bytes) return a.memory_bytes < b.memory_bytes;
        if (a.step_s != b.step_s) return a.step_s < b.step_s;
    } else {
        // MFU = model FLOPs / (step * world * peak) with the FLOPs fixed by the model: highest MFU is
        // shortest step, so both objectives share this order.
        if (a.step_s != b.step_s) return a.step_s < b.step_s;
        if (a.memory_bytes != b.memory_bytes) return a.memory_bytes < b.memory_bytes;
    }
    return layout_key(a.scenario) < layout_key(b.scenario);
}

std::vector<Scenario> enumerate_candidates(const Scenario& base, const PlanOptions& options) {
    std::vector<Scenario> out;
    PlanStats stats;
    for_each_layout(base, options, stats, [&](ParallelSpec p, const std::vector<int>& zeros) {
        if (options.filters.tp_within_node && !tp_within_node(DeviceMesh::build(base.cluster, p))) return;
        const int64_t dp = p.dp_shard * p.dp_replicate;
        for (int z : zeros) {
            p.zero = z;
            for (int64_t mb : divisors(base.training.global_batch / dp)) {
                const int64_t m = base.training.global_batch / (dp * mb);
                for (Recompute rc : kRecomputes)
                    for (ScheduleChoice sc : schedules_for(base.model, p, m)) out.push_back(with_knobs(base, p, mb, rc, sc));
            }
        }
    });
    return out;
}

// Everything the search keeps between slices. Floors hold references to base and counts, so the
// state never moves (PlanSearch keeps it behind a pointer).
struct PlanSearch::State {
    enum class Phase { listing, floors, costing, done };

    State(const Scenario& b, const PlanOptions& o, PlanProgress* p)
        : base(b), options(o), progress(p), started(std::chrono::steady_clock::now()),
          by_memory(!b.model.has_architecture() || o.objective == PlanObjective::memory), counts(count_params(b.model)),
          floors(base, counts, options, by_memory),
          top(static_cast<std::size_t>(std::max(1, o.top_k)), by_memory ? PlanObjective::memory : o.objective,
              o.one_per_mesh, o.fold) {}

    Scenario base;
    PlanOptions options;
    PlanProgress* progress;
    std::chrono::steady_clock::time_point started;
    PlanResult result;
    bool by_memory;
    ParamCounts counts;
    Floors floors;  // pass 2's, to floor layouts and expand groups (pass 1's too, on one thread)
    Phase phase = Phase::listing;

    // Pass 1.
    std::vector<LayoutJob> jobs;
    std::size_t threads = 1;
    std::size_t next_job = 0;                 // one thread, a slice at a time

    // Pass 2.
    std::vector<ParallelSpec> layouts;        // with zero set
    std::vector<OrderSet> order_sets;
    std::vector<Group> groups;
    int64_t to_cost = 0;
    FlooredGroups floored;                    // a layout's groups, reused
    int64_t impossible = 0;                   // costed, but a figure broke report_invariant_violation
    TopK top;
    PipelineMemo memo;                        // ZeRO 0-2 and the dp_shard / dp_replicate split share simulations
    std::vector<HeapEntry> heap;
    // The layouts not yet floored, apart from the groups and candidates: the search takes those of the
    // layouts floored so far first until the ranking holds k rows, so that a bound prunes each later
    // layout's groups as it is floored (with one heap, every layout whose floor was below the first
    // candidate's was floored in full before the first costing). Any order is exact: each entry is
    // taken once, and the bound only falls.
    std::vector<HeapEntry> layout_heap;
    int64_t floored_layouts = 0;
    // The first layouts (lowest floors) are each searched out before the next is floored: with a
    // bound already near its end, the groups of the layouts floored after them that cannot rank are
    // never kept. An eighth of the layouts, at most 64 (the Llama 3 405B search's bound is then within
    // 20% of its end); a small search still takes most of its layouts by the lower floor.
    int64_t searched_one_by_one = 0;
    std::map<uint32_t, std::vector<Candidate>> expanded;  // by group
    std::vector<uint32_t> layout_jobs;  // beside layouts: the job each belongs to
    BoundedCache<uint32_t, DeviceMesh, std::hash<uint32_t>> meshes{4096};  // by layout, for the groups expanded
    BoundedCache<uint32_t, LayoutShape, std::hash<uint32_t>> shapes{1024};  // by job
    // The layout of each order split_orders made, by the group's layout and the order's index: the
    // groups of one layout's micro-batches and recomputes share it, and its mesh.
    std::map<std::pair<uint32_t, std::size_t>, uint32_t> split_layouts;

    [[nodiscard]] bool cancelled() const { return progress && progress->cancel.load(std::memory_order_relaxed); }
    void stop_clock() {
        result.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    }
    void list_jobs();
    bool floor_until(std::chrono::steady_clock::time_point deadline);
    void gather_floors();
    bool cost_until(std::chrono::steady_clock::time_point deadline);
    void cost_next();
    void split_orders(const HeapEntry& next);
    void take_layout();
    void floor_groups(const HeapEntry& next);
    void push(const HeapEntry& e) {
        heap.push_back(e);
        std::push_heap(heap.begin(), heap.end(), by_floor_desc);
    }
    void finish();
    const DeviceMesh& mesh_of(uint32_t layout) {
        return meshes.get(layout, [&] { return DeviceMesh::build(base.cluster, layouts[layout]); });
    }
    const LayoutShape& shape_of(uint32_t job) {
        return shapes.get(job, [&] { return floors.layout_shape(jobs[job].parallel); });
    }
};

void PlanSearch::State::list_jobs() {
    result.objective = by_memory ? PlanObjective::memory : options.objective;
    if (!base.model.has_architecture() && options.objective != PlanObjective::memory)
        result.notes.push_back("model given as a parameter count only: no step time, ranked by memory");
    result.gpu_memory_bytes = floors.gpu_bytes();
    for_each_layout(base, options, result.stats, [&](const ParallelSpec& p, const std::vector<int>& zeros) {
        // for_each_layout lists a set of factors' orders one after another: they make one job.
        if (!jobs.empty() && same_factors(jobs.back().parallel, p) && same_split(jobs.back().parallel, p)) {
            jobs.back().orders.push_back(p.order);
            return;
        }
        LayoutJob job;
        job.parallel = p;
        job.orders = {p.order};
        job.zeros = zeros;
        jobs.push_back(std::move(job));
    });
    threads = std::max<std::size_t>(1, std::min<std::size_t>(thread_count(options.threads), jobs.size()));
}

// Pass 1: every layout's floor and candidates. With threads the layouts are dealt round-robin to them
// (deep and shallow pipelines alternate, which spreads the work); one thread takes them in order, a
// slice at a time. Each job is written by one thread only, and its figures do not depend on which.
bool PlanSearch::State::floor_until(std::chrono::steady_clock::time_point deadline) {
    if (threads == 1) {
        while (next_job < jobs.size() && !cancelled()) {
            price_job(jobs[next_job++], floors);
            if (std::chrono::steady_clock::now() >= deadline) return next_job == jobs.size();
        }
        return true;
    }
    const auto run_share = [&](std::size_t t) {
        Floors share_floors(base, counts, options, by_memory);
        for (std::size_t j = t; j < jobs.size() && !cancelled(); j += threads) price_job(jobs[j], share_floors);
    };
    std::vector<std::thread> workers;
    for (std::size_t t = 0; t < threads; ++t) workers.emplace_back(run_share, t);
    for (std::thread& w : workers) w.join();
    return true;
}

void PlanSearch::State::gather_floors() {
        layout_heap.reserve(jobs.size());
    for (uint32_t j = 0; j < jobs.size(); ++j) {
        result.stats.candidates += jobs[j].candidates;
        if (jobs[j].orders.empty() || jobs[j].zeros.empty()) continue;
        layout_heap.push_back({jobs[j].floor, j, kLayout});
    }
    std::make_heap(layout_heap.begin(), layout_heap.end(), by_floor_desc);
    searched_one_by_one = std::min<int64_t>(64, static_cast<int64_t>(layout_heap.size() / 8));
}

// A layout's floor comes up: its first floor is priced and the layout queued again under the priced
// one; that floor floors its groups.
void PlanSearch::State::take_layout() {
    HeapEntry next = layout_heap.front();
    std::pop_heap(layout_heap.begin(), layout_heap.end(), by_floor_desc);
    layout_heap.pop_back();
    LayoutJob& job = jobs[next.group];
    if (job.priced) {
        floor_groups(next);
        ++floored_layouts;
        return;
    }
    price_layout(job, shape_of(next.group), floors);
    result.stats.pruned_memory += job.pruned_memory;
    if (job.zeros.empty()) return;  // no ZeRO stage's model state fits
    next.floor = job.floor;
    layout_heap.push_back(next);
    std::push_heap(layout_heap.begin(), layout_heap.end(), by_floor_desc);
}

// Floor each of a layout's groups, and queue them by their own floors.
void PlanSearch::State::floor_groups(const HeapEntry& next) {
    FlooredGroups& part = floored;
    part.layouts.clear();
    part.order_sets.clear();
    part.groups.clear();
    part.pruned_memory = part.to_cost = 0;
    const double bound = options.prune && top.full() ? top.bound() : std::numeric_limits<double>::infinity();
    floor_layout(jobs[next.group], shape_of(next.group), bound, floors, part);
    const auto layout_offset = static_cast<uint32_t>(layouts.size());
    const auto order_offset = static_cast<int32_t>(order_sets.size());
    for (Group g : part.groups) {
        g.layout += layout_offset;
        if (g.orders >= 0) g.orders += order_offset;
        groups.push_back(g);
        push({g.floor, static_cast<uint32_t>(groups.size() - 1), g.orders >= 0 ? kOrders : kUnexpanded});
    }
    std::move(part.layouts.begin(), part.layouts.end(), std::back_inserter(layouts));
    layout_jobs.resize(layouts.size(), next.group);
    std::move(part.order_sets.begin(), part.order_sets.end(), std::back_inserter(order_sets));
    result.stats.pruned_memory += part.pruned_memory;
    to_cost += part.to_cost;
    if (progress) progress->to_cost = to_cost;
}

// Pass 2: cost candidates from the lowest floor up; stop when the floor cannot beat the k-th best.
bool PlanSearch::State::cost_until(std::chrono::steady_clock::time_point deadline) {
    // A costing takes tens of microseconds: the clock is read every few of them.
    constexpr int kBetweenClockReads = 8;
    for (int n = 1; !heap.empty() || !layout_heap.empty(); ++n) {
        const double bound = options.prune && top.full() ? top.bound() : std::numeric_limits<double>::infinity();
        const bool groups_done = heap.empty() || heap.front().floor > bound;
        const bool layouts_done = layout_heap.empty() || layout_heap.front().floor > bound;
        if (groups_done && layouts_done) break;  // nothing left can rank
        // The first layouts are searched out one by one before the next is floored, which brings the
        // bound near its end early; after them, the lower floor of the two heaps is taken.
        const bool layout_next = groups_done || (!layouts_done && floored_layouts >= searched_one_by_one &&
                                                 top.full() && layout_heap.front().floor < heap.front().floor);
        if (cancelled()) {
            result.cancelled = true;
            break;
        }
        if (layout_next) {
            take_layout();
        } else {
            cost_next();
        }
        if (n % kBetweenClockReads == 0 && std::chrono::steady_clock::now() >= deadline) return false;
    }
    return true;
}

// A group of several orders comes up: its floor holds in each of them, so each becomes a group of its
// own, with that floor, to be floored on its own mesh when it comes up.
void PlanSearch::State::split_orders(const HeapEntry& next) {
    const Group all = groups[next.group];
    const OrderSet& orders = order_sets[static_cast<std::size_t>(all.orders)];
    for (std::size_t o = 0; o < orders.size(); ++o) {
        auto [at, added] = split_layouts.try_emplace({all.layout, o}, static_cast<uint32_t>(layouts.size()));
        if (added) {
            ParallelSpec p = layouts[all.layout];
            p.order = orders[o];
            layouts.push_back(std::move(p));
            layout_jobs.push_back(layout_jobs[all.layout]);
        }
        groups.push_back(Group{at->second, all.micro_batch, all.recompute, all.floor});
        push({all.floor, static_cast<uint32_t>(groups.size() - 1), kUnexpanded});
    }
}

void PlanSearch::State::cost_next() {
    const HeapEntry next = heap.front();
    std::pop_heap(heap.begin(), heap.end(), by_floor_desc);
    heap.pop_back();
    if (next.candidate == kOrders) return split_orders(next);
    const Group& g = groups[next.group];
    const ParallelSpec& p = layouts[g.layout];
    if (next.candidate == kUnexpanded) {
        // Floor the group again, on its mesh, this time keeping every candidate.
        const LayoutShape& shape = shape_of(layout_jobs[g.layout]);
        OrderCache cache;
        std::vector<Candidate>& list = expanded[next.group];
        floors.floor_group(p, g.micro_batch, g.recompute, shape, cache,
                           [&]() -> const DeviceMesh& { return mesh_of(g.layout); }, list);
        std::sort(list.begin(), list.end(), lower_floor);
        // The bound only falls: a candidate above it now is never costed, so it is not kept (with
        // every mesh order searched, the lists kept were most of the search's memory).
        if (options.prune && top.full()) {
            const double bound = top.bound();
            list.erase(std::find_if(list.begin(), list.end(), [&](const Candidate& c) { return c.floor > bound; }),
                       list.end());
        }
        if (list.empty()) {
            expanded.erase(next.group);
            return;
        }
        push({list.front().floor, next.group, 0});
        return;
    }
    const auto listed = expanded.find(next.group);
    const auto at = static_cast<std::size_t>(next.candidate);
    const ScheduleChoice schedule = listed->second[at].schedule;
    const bool more = at + 1 < listed->second.size() &&
                      !(options.prune && top.full() && listed->second[at + 1].floor > top.bound());
    if (more) {
        push({listed->second[at + 1].floor, next.group, next.candidate + 1});
    } else {
        expanded.erase(listed);  // its last candidate that may still rank
    }
    const Scenario s = with_knobs(base, p, g.micro_batch, g.recompute, schedule);
    const Report r = build_report(s, counts, mesh_of(g.layout), &memo, ReportDetail::ranking);
    ++result.stats.costed;
    if (progress) progress->costed.fetch_add(1, std::memory_order_relaxed);
    // Never rank an impossible figure; the core property test keeps this from happening at all.
    if (!report_invariant_violation(s, r).empty()) {
        ++impossible;
        return;
    }
    if (!r.fits) return;
    ++result.stats.fitting;
    PlanEntry e = entry_from(s, r);
    if (options.keep_costed) result.costed.push_back(e);
    top.offer(std::move(e));
}

void PlanSearch::State::finish() {

    // A layout whose floor never came up is pruned by time in all its candidates.
    result.stats.pruned_time = result.stats.candidates - result.stats.pruned_memory - result.stats.costed;
    if (impossible > 0)
        result.notes.push_back(std::to_string(impossible) + " costed layouts left out: their figures broke an invariant");
    result.ranked = top.take();
    if (result.ranked.empty() && !result.cancelled)
        result.notes.push_back("no layout fits in " + format_memory(floors.gpu_bytes()) + " per GPU");
    stop_clock();
}

PlanSearch::~PlanSearch() = default;

bool PlanSearch::done() const noexcept { return state_->phase == State::Phase::done; }

namespace {
// The planner holds the optimizer on the GPUs unless nothing fits there (PlanSearch::advance).
Scenario optimizer_on_gpu(Scenario s) {
    s.training.offload = Offload::none;
    return s;
}
}  // namespace

PlanSearch::PlanSearch(const Scenario& base, const PlanOptions& options, PlanProgress* progress)
    : state_(std::make_unique<State>(optimizer_on_gpu(base), options, progress)) {}

bool PlanSearch::advance(std::chrono::steady_clock::time_point deadline) {
    if (!advance_state(*state_, deadline)) return false;
    const PlanResult& first = state_->result;
    if (offloaded_ || !first.ranked.empty() || first.cancelled) return true;
    // Nothing fits with the optimizer on the GPUs: search again with it in host memory, where the
    // step pays the host link and the CPU's Adam (a second search over the same layouts, zero 1-3).
    offloaded_ = true;
    Scenario offloaded = state_->base;
    offloaded.training.offload = Offload::optimizer;
    const int64_t tried = first.stats.candidates;
    const std::string capacity = format_memory(first.gpu_memory_bytes);
    state_ = std::make_unique<State>(offloaded, state_->options, state_->progress);
    state_->result.notes.push_back("nothing fits in " + capacity + " per GPU with the optimizer on the GPUs (" +
                                   std::to_string(tried) +
                                   " candidates): these layouts offload it to host memory (training.offload "
                                   "optimizer), and their step pays the host link and the CPU's Adam");
    return false;  // the second search runs on the next calls
}

bool PlanSearch::advance_state(State& s, std::chrono::steady_clock::time_point deadline) {
    if (s.phase == State::Phase::listing) {
        s.list_jobs();  // here, not in the constructor: on the desktop it runs on the worker thread
        s.phase = State::Phase::floors;
    }
    if (s.phase == State::Phase::floors) {
        if (!s.floor_until(deadline)) return false;
        if (s.cancelled()) {
            s.result.cancelled = true;
            s.stop_clock();
            s.phase = State::Phase::done;
            return true;
        }
        s.gather_floors();
        s.phase = State::Phase::costing;
    }
    if (s.phase == State::Phase::costing) {
        if (!s.cost_until(deadline)) return false;
        s.finish();
        s.phase = State::Phase::done;
    }
    return true;
}

PlanResult PlanSearch::take() { return std::move(state_->result); }

PlanResult plan_layouts(const Scenario& base, const PlanOptions& options, PlanProgress* progress) {
    PlanSearch search(base, options, progress);
    while (!search.advance(std::chrono::steady_clock::time_point::max())) {
    }
    return search.take();
}

std::vector<std::size_t> pareto_front(const std::vector<PlanEntry>& entries) {
    std::vector<std::size_t> idx(entries.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        if (entries[a].step_s != entries[b].step_s) return entries[a].step_s < entries[b].step_s;
        return entries[a].memory_bytes < entries[b].memory_bytes;
    });
    std::vector<std::size_t> front;
    double least_memory = 0;
    for (std::size_t i : idx) {
        // Sorted by step: an entry is on the front when it needs less memory than every faster one.
        if (front.empty() || entries[i].memory_bytes < least_memory) {
            front.push_back(i);
            least_memory = entries[i].memory_bytes;
        }
    }
    return front;
}

namespace {

// The knobs the planner searches, once: planning_key resets them and same_planner_knobs compares them.
// The pipeline split's two flags are searched together and handled beside.
template <class S>
auto searched_knobs(S& s) {
    auto& p = s.parallel;
    auto& t = s.training;
    return std::tie(p.tp, p.cp, p.pp, p.dp_shard, p.dp_replicate, p.ep, p.zero, p.order, t.micro_batch, t.recompute,
                    t.schedule, t.virtual_stages, t.offload);
}

const Scenario& unsearched_knobs() {
    static const Scenario reset = [] {
        Scenario k;
        k.parallel.tp = k.parallel.cp = k.parallel.pp = k.parallel.dp_shard = k.parallel.ep = 1;
        k.parallel.dp_replicate = 1;
        k.parallel.zero = 0;
        k.parallel.order = ParallelSpec{}.order;
        k.training.micro_batch = 1;
        k.training.recompute = Recompute::none;
        k.training.schedule = Schedule::one_f_one_b;
        k.training.virtual_stages = 1;
        k.training.offload = Offload::none;
        return k;
    }();
    return reset;
}

}  // namespace

Scenario planning_key(const Scenario& s) {
    Scenario k = s;
    searched_knobs(k) = searched_knobs(unsearched_knobs());
    // Both on and both off are searched whatever the scenario says; a mixed choice is its own.
    if (k.parallel.embedding_in_pipeline_split == k.parallel.loss_in_pipeline_split)
        k.parallel.embedding_in_pipeline_split = k.parallel.loss_in_pipeline_split = false;
    return k;
}

bool same_planner_knobs(const Scenario& a, const Scenario& b) {
    return searched_knobs(a) == searched_knobs(b) &&
           a.parallel.embedding_in_pipeline_split == b.parallel.embedding_in_pipeline_split &&
           a.parallel.loss_in_pipeline_split == b.parallel.loss_in_pipeline_split;
}

}  // namespace shardscope
