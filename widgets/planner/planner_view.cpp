#include "widgets/planner/planner_view.hpp"

#include "core/scenario/units.hpp"
#include "widgets/kit/palette.hpp"

#include <algorithm>

namespace shardscope::ui {

namespace {

// tp always, then the other dims above 1.
std::vector<MeshToken> mesh_tokens(const ParallelSpec& p) {
    std::vector<MeshToken> out;
    for (Dim d : {Dim::tp, Dim::cp, Dim::pp, Dim::dp_shard, Dim::dp_replicate, Dim::ep}) {
        if (d != Dim::tp && p.factor(d) <= 1) continue;
        // dp_replicate shortened: the row has room for six dims only in short form.
        const std::string name = d == Dim::dp_replicate ? "dp_rep" : std::string(to_string(d));
        out.push_back(MeshToken{d, name + " " + std::to_string(p.factor(d)), palette::dim_colour(d)});
    }
    return out;
}

std::string mesh_text(const std::vector<MeshToken>& tokens) {
    std::string out;
    for (const MeshToken& t : tokens) out += (out.empty() ? "" : " \xc2\xb7 ") + t.text;
    return out;
}

PlannerRow row_from(const PlanEntry& e, int rank, const Scenario& s) {
    PlannerRow r;
    r.rank = rank;
    const ParallelSpec& p = s.parallel;
    r.mesh_tokens = mesh_tokens(p);
    r.mesh = mesh_text(r.mesh_tokens);
    r.tp = p.tp;
    r.cp = p.cp;
    r.pp = p.pp;
    r.dp_shard = p.dp_shard;
    r.dp_replicate = p.dp_replicate;
    r.ep = p.ep;
    r.zero = p.zero;
    r.micro_batch = s.training.micro_batch;
    r.schedule = pipeline_schedule_text(s);  // "" without a pipeline: the table shows a dash
    // The split changes where the layers sit, so the schedule's cell says it.
    if (p.pp > 1 && !pipeline_split_text(p).empty()) r.schedule += ", " + pipeline_split_text(p);
    r.recompute = std::string(to_string(s.training.recompute));
    r.tp_within_node = e.tp_within_node;
    r.step_s = e.step_s;
    r.mfu = e.mfu;
    r.memory_bytes = e.memory_bytes;
    r.headroom_bytes = e.headroom_bytes;
    r.step_text = format_seconds(e.step_s);
    r.mfu_text = format_percent_or_na(e.mfu, e.mfu_known);
    r.memory_text = format_memory(e.memory_bytes);
    r.headroom_text = format_memory(e.headroom_bytes);
    r.alike = static_cast<int>(e.also.size());
    r.also = describe_variants(e);
    return r;
}

std::string point_label(const PlanEntry& e) {
    return describe_layout(e.scenario) + "\nstep " + format_seconds(e.step_s) + ", MFU " + format_percent_or_na(e.mfu, e.mfu_known) +
           ", " + format_memory(e.memory_bytes) + " per GPU";
}

}  // namespace

PlannerView build_planner_view(const PlanResult& result) {
    PlannerView v;
    v.objective = result.objective;
    v.gpu_memory_bytes = result.gpu_memory_bytes;
    v.notes = result.notes;
    for (std::size_t i = 0; i < result.ranked.size(); ++i) {
        const PlanEntry& e = result.ranked[i];
        PlannerRow row = row_from(e, static_cast<int>(i) + 1, e.scenario);
        if (i > 0) row.why_below_best = why_ranked_below(result.ranked.front(), e, result.objective);
        v.rows.push_back(std::move(row));
    }
    if (v.rows.size() > 1) v.runner_up = "#2 vs #1: " + v.rows[1].why_below_best;

    // The scatter: every costed layout, the ranked ones numbered, and the front.
    const std::vector<PlanEntry>& costed = result.costed.empty() ? result.ranked : result.costed;
    const std::vector<std::size_t> front = pareto_front(costed);
    for (std::size_t i = 0; i < costed.size(); ++i) {
        PlannerPoint p;
        p.memory_bytes = costed[i].memory_bytes;
        p.step_s = costed[i].step_s;
        p.on_front = std::find(front.begin(), front.end(), i) != front.end();
        for (std::size_t k = 0; k < result.ranked.size(); ++k)
            if (same_planner_knobs(result.ranked[k].scenario, costed[i].scenario)) p.rank = static_cast<int>(k) + 1;
        // A layout in the table says its rank first: the row to find it by.
        p.label = (p.rank > 0 ? "#" + std::to_string(p.rank) + "  " : std::string()) + point_label(costed[i]);
        v.points.push_back(std::move(p));
    }
    for (std::size_t i : front) v.front.push_back(v.points[i]);

    const PlanStats& st = result.stats;
    v.summary = "costed " + format_count(static_cast<double>(st.costed)) + " of " +
                format_count(static_cast<double>(st.candidates)) + " candidates (" +
                format_count(static_cast<double>(st.layouts)) + " meshes); " +
                format_count(static_cast<double>(st.pruned_memory)) + " cannot fit, " +
                format_count(static_cast<double>(st.pruned_time)) + " cannot beat #" +
                std::to_string(std::max<std::size_t>(1, result.ranked.size())) + "; " +
                format_count(static_cast<double>(st.fitting)) + " costed layouts fit";
    return v;
}
}  // namespace shardscope::ui
