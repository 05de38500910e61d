#include "core/planner/plan_floors.hpp"

#include <algorithm>
#include <limits>

namespace shardscope {

namespace {

// Two stages whose memory and step-end collectives are the same: the same blocks and parameters, and
// neither is the last stage (which also holds the loss's logits).
bool same_footprint(const StageShape& a, const StageShape& b) noexcept {
    const StageParams& p = a.params;
    const StageParams& q = b.params;
    return p.layers.count == q.layers.count && p.embedding == q.embedding && p.output == q.output &&
           p.blocks_non_expert == q.blocks_non_expert && p.routed_experts == q.routed_experts &&
           a.largest_block == b.largest_block;
}

// The micro-batches whose activations stage `stage` holds at its peak in build_report: the simulator's
// peak, which its closed form gives exactly (a core test sweeps the two against each other). Every
// schedule schedules_for lists is one the simulator runs.
double inflight_peak(ScheduleChoice sc, int64_t pp, int64_t microbatches, int64_t stage) {
    const auto p = static_cast<int>(pp);
    const auto m = static_cast<int>(microbatches);
    const int v = static_cast<int>(sc.virtual_stages);
    const int peak = closed_form_peak_inflight(sc.schedule, p, m, v, static_cast<int>(stage));
    return static_cast<double>(peak) / (sc.schedule == Schedule::interleaved_1f1b ? v : 1);
}

bool has_whole_backward(Schedule s) noexcept {
    return s == Schedule::gpipe || s == Schedule::one_f_one_b || s == Schedule::interleaved_1f1b;
}

bool same_cost(const StageCost& a, const StageCost& b) noexcept { return a.f == b.f && a.b == b.b && a.w == b.w; }

}  // namespace

std::vector<int64_t> run_starts(const std::vector<StageShape>& shapes) {
    std::vector<int64_t> out;
    const auto last = static_cast<int64_t>(shapes.size()) - 1;
    for (int64_t st = 0; st <= last; ++st) {
        const bool repeats = st > 0 && st != last &&
                             same_footprint(shapes[static_cast<std::size_t>(st)],
                                            shapes[static_cast<std::size_t>(st - 1)]);
        if (!repeats) out.push_back(st);
    }
    return out;
}

void memory_runs(const Scenario& s, const std::vector<StageShape>& shapes, const std::vector<int64_t>& starts,
                 const BlockActivations& blocks, std::vector<MemoryRun>& out) {
    out.clear();
    for (const int64_t st : starts) {
        // Activations are the only part that scales with the micro-batches in flight.
        const MemoryBreakdown one = stage_memory(s, shapes[static_cast<std::size_t>(st)], st, 1.0, blocks).bytes;
        MemoryRun run;
        run.first_stage = st;
        run.parts.one_inflight = one.activations.value_or(0);
        run.parts.base = one.params + one.grads + one.optimizer + one.other;
        run.parts.extra_copy = one.params + one.grads;
        run.state = one.params + one.grads + one.optimizer;
        out.push_back(run);
    }
}

double memory_floor(const std::vector<MemoryRun>& runs, int64_t pp, ScheduleChoice sc, int64_t microbatches) {
    const double copies_extra = parameter_copies(sc.schedule) > 1 ? 1.0 : 0.0;
    double worst = 0;
    for (const MemoryRun& run : runs) {
        const StageMemoryParts& p = run.parts;
        const double inflight = inflight_peak(sc, pp, microbatches, run.first_stage);
        worst = std::max(worst, p.base + copies_extra * p.extra_copy + inflight * p.one_inflight);
    }
    // Summed in another order than MemoryBreakdown::total(): stay a hair below so rounding never prunes
    // a candidate that fits to the last byte.
    return worst * (1.0 - 1e-12);
}

double least_memory(const std::vector<MemoryRun>& runs, bool state_only) {
    double most = 0;
    for (const MemoryRun& run : runs) most = std::max(most, state_only ? run.state : run.parts.base);
    return most * (1.0 - 1e-12);
}

std::vector<RunEnd> run_ends(const PipelineSpec& spec) {
    std::vector<RunEnd> out;
    const double m = static_cast<double>(spec.microbatches);
    double forward_before = 0, backward_before = 0;
    for (std::size_t s = 0; s < spec.costs.size(); ++s) {
        const StageCost& c = spec.costs[s];
        if (s + 1 == spec.costs.size() || !same_cost(c, spec.costs[s + 1]))
            out.push_back({m * c.total(), forward_before, backward_before, static_cast<double>(s) * spec.p2p_time});
        forward_before += c.f;
        backward_before += c.b + c.w;
    }
    return out;
}

double makespan_floor(const PipelineSpec& spec, const std::vector<RunEnd>& ends, ScheduleChoice sc) {
    double best = 0;
    if (sc.schedule == Schedule::dualpipe) {
        const std::size_t p = spec.costs.size();
        const double m = static_cast<double>(spec.microbatches);
        std::vector<double> forward_before(p + 1, 0.0);  // sum of F over positions < k
        for (std::size_t k = 0; k < p; ++k) forward_before[k + 1] = forward_before[k] + spec.costs[k].f;
        for (std::size_t d = 0; d < p; ++d) {
            const std::size_t mirror = p - 1 - d;
            const double lead = std::min(forward_before[d] + static_cast<double>(d) * spec.p2p_time,
                                         forward_before[mirror] + static_cast<double>(mirror) * spec.p2p_time);
            best = std::max(best, lead + m / 2.0 * (spec.costs[d].total() + spec.costs[mirror].total()));
        }
    } else {
        const double v = static_cast<double>(sc.virtual_stages);
        const bool tail = has_whole_backward(sc.schedule);
        for (const RunEnd& e : ends) {
            const double lead = e.forward_before / v + e.hops;
            const double trail = tail ? e.backward_before / v + e.hops : 0.0;
            best = std::max(best, lead + e.busy + trail);
        }
    }
    // Summation order differs from the simulator's: leave room for rounding so the floor stays below.
    return best * (1.0 - 1e-9);
}

std::vector<StepEndTimes> step_end_times_of_runs(const Scenario& s, const ParamCounts& counts, const DeviceMesh& mesh,
                                                 const std::vector<int64_t>& starts) {
    std::vector<StepEndTimes> out;
    out.reserve(starts.size());
    for (const int64_t st : starts) out.push_back(step_end_times(s, counts, mesh, st));
    return out;
}

double step_end_floor(const std::vector<StepEndTimes>& ends, const std::vector<int64_t>& starts,
                      const PipelineSpec& spec) {
    double least = std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < starts.size(); ++r) {
        const auto first = static_cast<std::size_t>(starts[r]);
        const std::size_t end = r + 1 < starts.size() ? static_cast<std::size_t>(starts[r + 1]) : spec.costs.size();
        double longest = 0;
        for (std::size_t st = first; st < end; ++st) longest = std::max(longest, spec.costs[st].full_backward());
        least = std::min(least, ends[r].exposed(longest));
    }
    return ends.empty() ? 0.0 : least * (1.0 - 1e-9);
}

}  // namespace shardscope
