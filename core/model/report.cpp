#include "core/model/report.hpp"

#include "core/collectives/collectives.hpp"
#include "core/scenario/units.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace shardscope {
namespace {

using Json = nlohmann::ordered_json;

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

std::string printf_string(const char* format, double value, const char* unit) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, value, unit);
    return buf;
}

std::string or_na(const std::optional<double>& v, std::string (*format)(double)) {
    return v ? format(*v) : std::string("n/a");
}

std::string format_tflops(double v) { return printf_string("%.1f%s", v, " TFLOP/s"); }

}  // namespace

const DimCost* find_dim_cost(const Report& report, std::string_view name) {
    for (const DimCost& d : report.dims)
        if (d.name == name) return &d;
    return nullptr;
}

const CollectiveCall* dominant_call(const DimCost& dim) {
    const CollectiveCall* best = nullptr;
    for (const CollectiveCall& c : dim.calls)
        if (!best || c.message_bytes * c.calls_per_step > best->message_bytes * best->calls_per_step) best = &c;
    return best;
}

std::string describe_calls(const std::vector<CollectiveCall>& calls) {
    std::string out;
    for (const CollectiveCall& c : calls) {
        if (!out.empty()) out += ", ";
        out += format_grouped(std::llround(c.calls_per_step)) + " x " + std::string(to_string(c.op)) + " of " +
               format_bytes(c.message_bytes);
    }
    return out;
}

std::string report_to_json(const Report& r) {
    Json j;
    j["schema"] = "shardscope.report/1";
    j["world_size"] = r.world_size;
    j["leftover_dp_replicate"] = r.leftover_dp_replicate;
    j["params_total"] = r.params_total;
    Json dims = Json::array();
    for (const DimCost& d : r.dims) {
        Json dj;
        dj["name"] = d.name;
        dj["size"] = d.size;
        dj["groups"] = d.groups;
        dj["link"] = d.link;
        dj["collective"] = d.collective;
        dj["bytes_per_step"] = d.bytes_per_step;
        dj["time_s"] = d.time_s;
        dj["exposed_s"] = d.exposed_s;
        dj["contention_s"] = d.contention_s;
        Json calls = Json::array();
        for (const CollectiveCall& c : d.calls)
            calls.push_back(Json{{"op", std::string(to_string(c.op))}, {"message_bytes", c.message_bytes},
                                 {"calls_per_step", c.calls_per_step}});
        dj["calls"] = std::move(calls);
        dims.push_back(std::move(dj));
    }
    j["mesh"] = Json{{"dims", std::move(dims)}};
    Json mem;
    mem["params"] = r.memory.params;
    mem["grads"] = r.memory.grads;
    mem["optimizer"] = r.memory.optimizer;
    mem["activations"] = optional_number(r.memory.activations);
    mem["other"] = r.memory.other;
    mem["reserved"] = r.memory.reserved;
    mem["total"] = r.memory.total();
    mem["capacity"] = r.gpu_memory_bytes;
    j["memory_bytes"] = std::move(mem);
    j["fits"] = r.fits;
    if (r.host) {
        const HostOffload& h = *r.host;
        j["host"] = Json{{"bytes_per_gpu", h.bytes_per_gpu},
                         {"bytes_per_node", h.bytes_per_node},
                         {"capacity", h.capacity_bytes},
                         {"fits", h.fits},
                         {"link_gbps", h.link_bytes_per_s / 1e9},
                         {"cpu_adam_params_per_s", h.adam_params_per_s},
                         {"optimizer_params", h.params},
                         {"optimizer_step_s", Json{{"gradients_to_host", h.step.gradients_to_host_s},
                                                   {"cpu_adam", h.step.cpu_adam_s},
                                                   {"weights_to_gpu", h.step.weights_to_gpu_s},
                                                   {"total", h.step.total()}}}};
    }
    j["flops"] = Json{{"model_per_step", optional_number(r.model_flops_per_step)},
                      {"hardware_per_step", optional_number(r.hardware_flops_per_step)}};
    j["time_s"] = Json{{"compute", optional_number(r.time.compute)},
                       {"exposed_comm", optional_number(r.time.exposed_comm)},
                       {"bubble", optional_number(r.time.bubble)},
                       {"step", optional_number(r.time.step)}};
    j["pipeline"] = Json{{"microbatches", r.microbatches}, {"bubble_fraction", optional_number(r.bubble_fraction)}};
    j["throughput"] = Json{{"tokens_per_s", optional_number(r.throughput.tokens_per_s)},
                           {"model_tflops_per_gpu", optional_number(r.throughput.model_tflops_per_gpu)},
                           {"hardware_tflops_per_gpu", optional_number(r.throughput.hardware_tflops_per_gpu)},
                           {"mfu", optional_number(r.throughput.mfu)}};
    if (r.breakdown) {
        Json ops = Json::array();
        for (const OpEntry& e : longest_first(*r.breakdown))
            ops.push_back(Json{{"name", std::string(to_string(e.op))},
                               {"kind", std::string(to_string(kind_of(e.op)))},
                               {"time_s", e.figures.time_s()},
                               {"recompute_s", e.figures.rerun_s},
                               {"bound", std::string(to_string(e.figures.bound()))},
                               {"flops", e.figures.flops + e.figures.rerun_flops}});
        j["breakdown"] = std::move(ops);
    }
    if (r.moe) {
        const MoeFigures& f = *r.moe;
        Json parts = Json::object();
        for (std::size_t i = 0; i < kStepOpCount; ++i)
            if (is_moe_part(static_cast<StepOp>(i)) && r.breakdown)
                parts[std::string(to_string(static_cast<StepOp>(i)))] = (*r.breakdown)[i].time_s();
        j["moe"] = Json{{"blocks", f.blocks},
                        {"tokens_per_expert", f.tokens_per_expert},
                        {"local_experts", f.local_experts},
                        {"expert_gemm_tflops", f.expert_gemm_flops_per_s / 1e12},
                        {"expert_gemm_share_of_peak", f.expert_gemm_share_of_peak},
                        {"parts_s", std::move(parts)},
                        {"all_to_all_s", f.all_to_all_s},
                        {"all_to_all_exposed_s", f.all_to_all_exposed_s}};
    }
    if (r.run) {
        const RunFigures& f = *r.run;
        j["run"] = Json{{"ideal_days", f.ideal_days},
                        {"job_mtbf_hours", f.job_mtbf_hours},
                        {"checkpoint_bytes", f.checkpoint_bytes},
                        {"checkpoint_s", f.checkpoint_s},
                        {"checkpoint_interval_s", f.checkpoint_interval_s},
                        {"goodput", f.goodput},
                        {"days", f.goodput > 0 ? Json(f.days) : Json(nullptr)},
                        {"gpu_hours", f.goodput > 0 ? Json(f.gpu_hours) : Json(nullptr)},
                        {"usd", optional_number(f.usd)},
                        {"energy_mwh", optional_number(f.energy_mwh)}};
    }
    j["notes"] = r.notes;
    return j.dump(2) + "\n";
}

namespace {

// "  routed experts              3.12 s   25.8%  flops-bound (of which 1.02 s recompute)"
void write_op_line(std::ostringstream& os, std::string_view name, const OpFigures& f, double compute) {
    os << "  " << std::left << std::setw(24) << name << std::right << std::setw(10) << format_seconds(f.time_s())
       << "  " << std::setw(6) << format_percent(compute > 0 ? f.time_s() / compute : 0) << "  "
       << to_string(f.bound()) << "-bound";
    if (f.rerun_s > 0) os << " (of which " << format_seconds(f.rerun_s) << " recompute)";
    os << "\n";
}

void write_breakdown(std::ostringstream& os, const Report& r) {
    const double compute = r.time.compute.value_or(0);
    os << "\nCompute by operation (the busiest GPU, per step; sums to compute)\n";
    for (const OpEntry& e : longest_first(*r.breakdown)) write_op_line(os, to_string(e.op), e.figures, compute);
}

void write_moe(std::ostringstream& os, const Report& r) {
    const MoeFigures& f = *r.moe;
    const OpTimes& ops = *r.breakdown;
    os << "\nMoE blocks (" << f.blocks << " on the busiest GPU, per step)\n";
    os << "  " << format_count(f.tokens_per_expert) << " routed tokens per expert a micro-batch, "
       << format_count(f.local_experts) << (f.local_experts == 1 ? " expert" : " experts") << " per GPU; their GEMMs reach "
       << format_flops_rate(f.expert_gemm_flops_per_s) << " (" << format_percent(f.expert_gemm_share_of_peak)
       << " of peak)\n";
    for (const OpEntry& e : longest_first(ops))
        if (is_moe_part(e.op)) write_op_line(os, to_string(e.op), e.figures, r.time.compute.value_or(0));
    os << "  " << std::left << std::setw(24) << "all-to-all (ep)" << std::right << std::setw(10)
       << format_seconds(f.all_to_all_s) << "  before overlap, " << format_seconds(f.all_to_all_exposed_s) << " exposed\n";
    os << "  " << std::left << std::setw(24) << "the mixture's compute" << std::right << std::setw(10)
       << format_seconds(f.mixture_s) << "  " << format_percent(f.mixture_share_of_compute) << " of compute\n";
}

}  // namespace

std::string report_to_text(const Report& r) {
    std::ostringstream os;
    os << "World: " << r.world_size << " GPUs";
    if (r.leftover_dp_replicate > 1) os << " (leftover GPUs multiply dp_replicate by " << r.leftover_dp_replicate << ")";
    os << "\nParameters: " << format_count(r.params_total);
    if (r.params_active > 0 && r.params_active != r.params_total)
        os << " total, " << format_count(r.params_active) << " active per token";
    os << "\n\nMemory per GPU (most loaded: pipeline stage " << r.most_loaded_stage << ")\n";
    os << "  params      " << format_memory(r.memory.params) << "\n";
    os << "  grads       " << format_memory(r.memory.grads) << "\n";
    os << "  optimizer   " << format_memory(r.memory.optimizer) << (r.host ? "  (offloaded to the host)" : "") << "\n";
    os << "  activations " << (r.memory.activations ? format_memory(*r.memory.activations) : std::string("n/a")) << "\n";
    os << "  other       " << format_memory(r.memory.other) << "\n";
    os << "  reserved    " << format_memory(r.memory.reserved) << "  (runtime + allocator)\n";
    os << "  total       " << format_memory(r.memory.total()) << " of " << format_memory(r.gpu_memory_bytes)
       << (r.fits ? "  (fits)" : "  (DOES NOT FIT)") << "\n";
    if (r.host) {
        const HostOffload& h = *r.host;
        os << "  host        " << format_memory(h.bytes_per_gpu) << " per GPU offloaded, " << format_memory(h.bytes_per_node)
           << " of the node's " << format_memory(h.capacity_bytes) << (h.fits ? "  (fits)" : "  (DOES NOT FIT)") << "\n";
        os << "  optimizer step on the host: " << format_seconds(h.step.total()) << " (gradients to host "
           << format_seconds(h.step.gradients_to_host_s) << ", CPU Adam " << format_seconds(h.step.cpu_adam_s)
           << ", weights back " << format_seconds(h.step.weights_to_gpu_s) << ")\n";
    }
    if (r.stages.size() > 1) {
        os << "  per stage:";
        // The first two, the last two and the most loaded; "..." where stages are left out.
        bool skipping = false;
        for (const StageMemory& s : r.stages) {
            const bool shown = r.stages.size() <= 6 || s.stage <= 1 ||
                               s.stage + 2 >= static_cast<int64_t>(r.stages.size()) || s.stage == r.most_loaded_stage;
            if (!shown) {
                if (!skipping) os << " ...";
                skipping = true;
                continue;
            }
            skipping = false;
            os << " [" << s.stage << "] " << format_memory(s.bytes.total());
        }
        os << "\n";
    }
    os << "\nCommunication per step (per GPU)\n";
    for (const DimCost& d : r.dims) {
        os << "  " << d.name << " x" << d.size << " (" << count_of(d.groups, "group") << ", " << d.link << "): ";
        if (d.bytes_per_step <= 0) {
            os << "nothing\n";
            continue;
        }
        os << d.collective << ", " << format_bytes(d.bytes_per_step) << ", " << format_seconds(d.time_s)
           << " (exposed " << format_seconds(d.exposed_s);
        if (d.contention_s > 0) os << ", of which " << format_seconds(d.contention_s) << " compute slowed beside it";
        os << ")\n";
        if (!d.calls.empty()) os << "    calls per step (mean message): " << describe_calls(d.calls) << "\n";
    }
    os << "\nStep\n";
    os << "  compute       " << or_na(r.time.compute, format_seconds) << "\n";
    os << "  exposed comm  " << or_na(r.time.exposed_comm, format_seconds) << "\n";
    os << "  bubble        " << or_na(r.time.bubble, format_seconds) << "  (the busiest stage's idle time)\n";
    os << "  step          " << or_na(r.time.step, format_seconds) << "\n";
    os << "  micro-batches " << r.microbatches << ", bubble fraction " << or_na(r.bubble_fraction, format_percent)
       << " (idle share of all stages, simulated schedule)"
       << "\n";
    if (r.breakdown) write_breakdown(os, r);
    if (r.moe && r.breakdown) write_moe(os, r);
    os << "\nThroughput\n";
    os << "  tokens/s         " << or_na(r.throughput.tokens_per_s, format_count) << "\n";
    os << "  model TFLOP/s    " << or_na(r.throughput.model_tflops_per_gpu, format_tflops) << " per GPU\n";
    os << "  hardware TFLOP/s " << or_na(r.throughput.hardware_tflops_per_gpu, format_tflops) << " per GPU\n";
    os << "  MFU              " << or_na(r.throughput.mfu, format_percent) << "\n";
    if (r.run) {
        const RunFigures& f = *r.run;
        os << "\nRun (the whole token budget, interruptions and checkpoints included)\n";
        os << "  ideal         " << printf_string("%.1f%s", f.ideal_days, " days") << " at this step's rate\n";
        os << "  goodput       " << format_percent(f.goodput) << " of wall time trains (interruptions every "
           << printf_string("%.2f%s", f.job_mtbf_hours, " h") << ", a checkpoint of " << format_memory(f.checkpoint_bytes)
           << " every " << format_seconds(f.checkpoint_interval_s) << ")\n";
        if (f.goodput > 0) {
            os << "  wall time     " << printf_string("%.1f%s", f.days, " days") << "\n";
            os << "  GPU-hours     " << format_count(f.gpu_hours) << "\n";
            if (f.usd) os << "  cost          $" << format_count(*f.usd) << "\n";
            if (f.energy_mwh) os << "  energy        " << printf_string("%.0f%s", *f.energy_mwh, " MWh") << "\n";
        }
    }
    if (!r.notes.empty()) {
        os << "\nNotes\n";
        for (const std::string& n : r.notes) os << "  - " << n << "\n";
    }
    return os.str();
}

}  // namespace shardscope
