#include "widgets/memory/memory_view.hpp"

#include "core/teaching/lesson.hpp"

#include "core/model/op_recompute.hpp"
#include "core/scenario/units.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace shardscope::ui {

namespace {

std::string setup_line(const Scenario& s, const Report& r) {
    const ParallelSpec& p = s.parallel;
    std::ostringstream os;
    os << s.model.name << " on " << r.world_size << " x " << s.cluster.gpu.name << "  |  tp " << p.tp;
    if (p.cp > 1) os << ", cp " << p.cp;
    os << ", pp " << p.pp << ", dp_shard " << p.dp_shard << ", dp_replicate ";
    // Leftover GPUs are replicas too: say how many the layout really runs, and where they come from.
    if (r.leftover_dp_replicate > 1)
        os << p.dp_replicate * r.leftover_dp_replicate << " (the layout sets " << p.dp_replicate << "; the leftover GPUs make it x"
           << r.leftover_dp_replicate << ")";
    else
        os << p.dp_replicate;
    if (p.ep > 1) os << ", ep " << p.ep;
    os << "  |  " << zero_text(p, s.training.fused_kernels) << ", recompute " << recompute_text(s.training) << ", "
       << to_string(s.training.precision) << ", micro-batch " << s.training.micro_batch;
    return os.str();
}

// Past 10x the GPU a percentage stops reading well: "37.9x" instead of "3794.1%".
std::string share_of_gpu(double fraction) {
    return fraction < 10 ? format_percent(fraction) : format_count(fraction) + "x";
}

std::string bar_label(const MemoryBar& b) {
    if (b.role == "every GPU") return "every GPU";
    return "stage " + std::to_string(b.stage) + "\n" + b.role;
}

MemoryBarRecord bar_record(const MemoryBar& b) {
    MemoryBarRecord rec;
    rec.stage = b.stage;
    rec.most_loaded = b.most_loaded;
    rec.fits = b.fits;
    rec.total_bytes = b.total_bytes;
    rec.model_state_bytes = b.bytes.model_state();
    rec.activations_known = b.bytes.activations.has_value();
    rec.total_short = format_memory(b.total_bytes);
    rec.total_text = rec.total_short + " (" + share_of_gpu(b.fraction_of_gpu) + ")";
    rec.stack.label = bar_label(b);
    rec.stack.short_label = b.role == "every GPU" ? "all" : std::to_string(b.stage);
    for (const std::string& line : b.other_parts) rec.other_detail += (rec.other_detail.empty() ? "" : "\n") + line;
    rec.stack.highlight = !b.fits;
    const double values[] = {b.bytes.params, b.bytes.grads, b.bytes.optimizer, b.bytes.activations.value_or(0),
                             b.bytes.other, b.bytes.reserved};
    for (int i = 0; i < kMemoryPartCount; ++i)
        rec.stack.segments.push_back(plot::Segment{palette::memory_part_name(kMemoryParts[i]), values[i],
                                                   palette::memory_part_colour(kMemoryParts[i])});
    return rec;
}

std::string fit_line(const Report& r) {
    const std::string where =
        r.stages.size() > 1 ? " on the most loaded GPU (stage " + std::to_string(r.most_loaded_stage) + ")" : " per GPU";
    if (r.fits) return "Fits: " + format_memory(r.memory.total()) + " of " + format_memory(r.gpu_memory_bytes) + where + ".";
    if (r.host && !r.host->fits && r.memory.total() <= r.gpu_memory_bytes)
        return "Does not fit on the host: the node's GPUs offload " + format_memory(r.host->bytes_per_node) + " of its " +
               format_memory(r.host->capacity_bytes) + " (each GPU " + format_memory(r.memory.total()) + " of " +
               format_memory(r.gpu_memory_bytes) + ").";
    return "Does not fit: " + format_memory(r.memory.total()) + " needed of " + format_memory(r.gpu_memory_bytes) + where + ".";
}

// What an offloaded optimizer puts on the host and what its step costs there ("" without offload).
std::string host_line(const Report& r) {
    if (!r.host) return {};
    const HostOffload& h = *r.host;
    std::string line = "Optimizer on the host: " + format_memory(h.bytes_per_gpu) + " per GPU (FP32 master, moments, "
                       "gradients), " + format_memory(h.bytes_per_node) + " of the node's " +
                       format_memory(h.capacity_bytes) + ".";
    if (r.time.step)
        line += " Its step: gradients out " + format_seconds(h.step.gradients_to_host_s) + ", CPU Adam " +
                format_seconds(h.step.cpu_adam_s) + ", weights back " + format_seconds(h.step.weights_to_gpu_s) + ".";
    return line;
}

std::string advice_line(const FitAdvice& a) {
    if (!a.needed) return {};
    const std::string searched = " (" + count_of(a.candidates_screened, "layout") + " screened, " +
                                 std::to_string(a.candidates_costed) + " re-costed)";
    if (a.found) {
        std::string line = "Fastest fix that fits: " + a.summary() + ". Then " + format_memory(a.total_bytes) + " of " +
                           format_memory(a.capacity_bytes);
        if (a.step_s) line += ", step " + format_seconds(*a.step_s);
        return line + searched + ".";
    }
    std::string line = "No mix of ZeRO stage, micro-batch, recompute, TP, PP and optimizer offload fits on these GPUs" + searched + ".";
    if (!a.closest_changes.empty())
        line += " Even the lightest (" + changes_text(a.closest_changes) + ") needs at least " +
                format_memory(a.closest_bytes) + " per GPU.";
    return line + " It takes more GPUs, or GPUs with more memory.";
}

// The model's size, and for a mixture of experts what one token runs through.
void add_parameter_figures(const Report& r, std::vector<FigureRecord>& out) {
    out.push_back(FigureRecord{"Parameters", format_quantity("report.params_total_b", r.params_total / 1e9), "",
                               {"report.params_total_b"}});
    if (r.params_active >= r.params_total) return;
    out.push_back(FigureRecord{"Active per token", format_quantity("report.params_active_b", r.params_active / 1e9),
                               "A token runs through the shared blocks and the experts its router picks. Every expert "
                               "is still held somewhere, so memory follows the total.",
                               {"report.params_active_b"}});
}

std::vector<FigureRecord> figures(const Report& r) {
    std::vector<FigureRecord> out;
    const auto add = [&](const char* label, const std::optional<double>& v, std::string (*fmt)(double), const char* suffix) {
        out.push_back(FigureRecord{label, v ? fmt(*v) + suffix : "n/a (no architecture)", ""});
    };
    add_parameter_figures(r, out);
    add("Step time", r.time.step, format_seconds, "");
    out.back().quantities = {"report.time.step_s"};
    out.push_back(FigureRecord{"Micro-batches per step", std::to_string(r.microbatches), "", {"report.microbatches"}});
    // The simulated schedule's idle share, before communication lengthens the step (the step bar's
    // bubble is a share of the whole step).
    add("Pipeline bubble (idle share of all stages)", r.bubble_fraction, format_percent, "");
    out.back().quantities = {"report.bubble_fraction"};
    add("Tokens per second", r.throughput.tokens_per_s, format_count, " tokens/s");
    out.back().quantities = {"report.tokens_per_s"};
    // Report keeps TFLOP/s; format_flops_rate takes FLOP/s.
    const auto flops = [](const std::optional<double>& tflops) {
        return tflops ? std::optional<double>(*tflops * 1e12) : std::nullopt;
    };
    add("Model TFLOP/s per GPU", flops(r.throughput.model_tflops_per_gpu), format_flops_rate, "");
    out.back().meaning = "The model's FLOPs per step over the step time: 6 x active parameters x tokens plus the "
                         "attention scores counted in full, as Megatron-LM counts them, whatever the kernels run.";
    add("Hardware TFLOP/s per GPU", flops(r.throughput.hardware_tflops_per_gpu), format_flops_rate, "");
    out.back().meaning = "What the kernels execute, over the step time. Recomputation adds its forward, so this can "
                         "exceed the model's figure; causal flash attention skips the masked half of the scores, so "
                         "it can also sit below it.";
    add("MFU", r.throughput.mfu, format_percent, "");
    out.back().quantities = {"report.mfu"};
    out.back().meaning = "Model FLOPs utilisation: the model's TFLOP/s over the GPU's dense peak for the training "
                         "precision.";
    return out;
}

// The run block's figures, and how its goodput falls as the job grows (a quarter, half, twice and four
// times this job's GPUs).
std::vector<FigureRecord> run_records(const Scenario& s, const Report& r) {
    std::vector<FigureRecord> out;
    if (!s.run || !r.run) return out;
    const RunFigures& f = *r.run;
    const auto days = [](double d) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f days", d);
        return std::string(buf);
    };
    out.push_back({"Ideal time", days(f.ideal_days), "The token budget at this step's rate, with no interruption."});
    out.push_back({"Goodput", format_percent(f.goodput),
                   "The share of wall time that trains: less the checkpoint writes, the work redone after each "
                   "interruption (half an interval on average) and the restarts (first order, Young's interval)."});
    out.push_back({"Interruptions", "every " + format_seconds(f.job_mtbf_hours * 3600.0) + " of the job",
                   "The GPUs' mean time between interruptions over this job's GPUs."});
    out.push_back({"Checkpoint", format_memory(f.checkpoint_bytes) + " in " + format_seconds(f.checkpoint_s) +
                                     ", every " + format_seconds(f.checkpoint_interval_s),
                   "Weights and optimizer state as the precision keeps them, at the storage's bandwidth; the "
                   "interval is Young's optimum, sqrt(2 x write x MTBF)."});
    if (f.goodput <= 0) return out;
    out.push_back({"Wall time", days(f.days), ""});
    out.push_back({"GPU-hours", format_count(f.gpu_hours), ""});
    if (f.usd) out.push_back({"Cost", "$" + format_count(*f.usd), "GPU-hours x the run's price per GPU-hour."});
    if (f.energy_mwh) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f MWh", *f.energy_mwh);
        out.push_back({"Energy", buf, "GPU-hours x each GPU's board power (its TDP, an upper bound) x the PUE."});
    }
    const int64_t n = r.world_size;
    std::string curve;
    for (const GoodputAtSize& g : goodput_by_job_size(s, *s.run, r.params_total, {n / 4, n / 2, n, 2 * n, 4 * n})) {
        if (g.gpus < 1) continue;
        curve += (curve.empty() ? "" : ", ") + format_grouped(g.gpus) + " GPUs " + format_percent(g.goodput);
    }
    out.push_back({"Goodput as the job grows", curve, "The same run on a quarter of the GPUs up to four times them: "
                                                      "the job's MTBF shrinks with its size, the checkpoint does not."});
    return out;
}

}  // namespace

ImU32 compute_op_colour(const std::string& kind) {
    if (kind == "gemm") return palette::compute_colour();
    if (kind == "attention") return IM_COL32(120, 170, 235, 255);
    if (kind == "optimizer") return IM_COL32(200, 160, 230, 255);
    return IM_COL32(235, 190, 110, 255);  // element-wise: bound by HBM, a warm colour apart from the GEMMs
}

namespace {

ComputeOpRecord compute_op_record(const ComputeOp& op) {
    ComputeOpRecord rec;
    rec.name = op.name;
    rec.fraction = op.fraction;
    rec.colour = compute_op_colour(op.kind);
    rec.time_text = format_seconds(op.seconds);
    rec.share_text = format_percent(op.fraction);
    rec.bound = op.bound;
    rec.moe_part = op.moe_part;
    rec.detail = op.kind + ", " + bound_meaning(op.bound);
    if (op.recompute_s > 0) rec.detail += "\nof it, " + format_seconds(op.recompute_s) + " re-runs the forward (recompute)";
    if (op.moe_part) rec.detail += "\npart of the MoE blocks";
    return rec;
}

}  // namespace

ImU32 step_part_colour(const StepPart& part) {
    switch (part.kind) {
        case StepPartKind::compute: return palette::compute_colour();
        case StepPartKind::bubble: return palette::bubble_colour();
        case StepPartKind::communication: break;
    }
    return palette::dim_colour(part.dim).value_or(palette::other_comm_colour());
}

MemoryView build_memory_view(const AppState& state) {
    const Report& r = state.report();
    const Scenario& s = state.scenario();
    MemoryView v;
    v.version = state.version();
    v.setup_line = setup_line(s, r);
    for (const MemoryBar& b : memory_bars(r)) v.bars.push_back(bar_record(b));
    v.capacity_bytes = r.gpu_memory_bytes;
    v.capacity_label = s.cluster.gpu.name + ": " + format_memory(r.gpu_memory_bytes);
    v.fits = r.fits;
    v.fit_line = fit_line(r);
    v.host_line = host_line(r);
    v.host_fits = !r.host || r.host->fits;
    // Re-costing candidates takes a while: only when there is something to fix.
    v.advice = state.fit_advice();
    if (v.advice.found) {
        v.fix_preview = bar_record(memory_bar(v.advice.memory, v.advice.capacity_bytes, "after fix"));
        v.fix_preview->stack.label = "after fix";
    }
    v.advice_line = advice_line(v.advice);
    for (const StepPart& p : step_parts(r)) {
        std::string detail = p.contention_s > 0 ? "of it, " + format_seconds(p.contention_s) + " is compute slowed beside it" : "";
        if (!p.calls.empty()) detail += (detail.empty() ? "" : "\n") + p.calls;
        v.step.push_back(StepSegmentRecord{p.name, p.dim, p.seconds, p.fraction, step_part_colour(p),
                                           format_seconds(p.seconds), format_percent(p.fraction), std::move(detail)});
    }
    v.step_title = r.time.step ? "Where a " + format_seconds(*r.time.step) + " step goes" : "Where a step goes";
    for (const ComputeOp& op : compute_ops(r)) v.compute_ops.push_back(compute_op_record(op));
    if (r.time.compute) v.compute_title = "Where the " + format_seconds(*r.time.compute) + " of compute goes";
    v.moe_line = moe_summary(r);
    v.figures = figures(r);
    v.run = run_records(s, r);
    v.conventions = r.conventions;
    for (const std::string& n : r.notes)
        if (std::find(r.conventions.begin(), r.conventions.end(), n) == r.conventions.end()) v.notes.push_back(n);
    return v;
}

}  // namespace shardscope::ui
