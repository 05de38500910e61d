#include "core/teaching/lesson.hpp"

#include "core/model/cost_model.hpp"
#include "core/scenario/json_reader.hpp"
#include "core/model/hardware.hpp"
#include "core/model/memory.hpp"
#include "core/pipeline/pipeline.hpp"
#include "core/scenario/units.hpp"

#include <algorithm>
#include <cstdio>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <set>

namespace shardscope {

using json_read::fail;
using json_read::FieldError;
using json_read::index_path;
using json_read::Json;
using json_read::ObjectReader;

// ---- Body text --------------------------------------------------------------------------------------

std::vector<BodySpan> split_glossary_links(std::string_view body) {
    std::vector<BodySpan> spans;
    std::string plain;
    size_t i = 0;
    while (i < body.size()) {
        const size_t open = body.find("[[", i);
        const size_t close = open == std::string_view::npos ? open : body.find("]]", open + 2);
        if (open == std::string_view::npos || close == std::string_view::npos) {
            plain.append(body.substr(i));
            break;
        }
        plain.append(body.substr(i, open - i));
        if (!plain.empty()) spans.push_back({std::move(plain), ""});
        plain.clear();
        const std::string_view inside = body.substr(open + 2, close - open - 2);
        const size_t bar = inside.find('|');
        BodySpan link;
        link.term = std::string(inside.substr(0, bar));
        link.text = std::string(bar == std::string_view::npos ? inside : inside.substr(bar + 1));
        spans.push_back(std::move(link));
        i = close + 2;
    }
    if (!plain.empty()) spans.push_back({std::move(plain), ""});
    return spans;
}

std::vector<std::string> glossary_links(std::string_view body) {
    std::vector<std::string> terms;
    for (const BodySpan& s : split_glossary_links(body))
        if (s.is_link()) terms.push_back(s.term);
    return terms;
}

// ---- Scenario merge ---------------------------------------------------------------------------------

ScenarioLoad merge_scenario(const Scenario& base, std::string_view partial_json) {
    Json merged = Json::parse(scenario_to_json(base));
    // parse_document bounds the nesting before merge_patch and dump recurse through it.
    ScenarioLoad out;
    out.error = json_read::first_error([&] {
        const Json patch = json_read::parse_document(partial_json);
        if (!patch.is_object()) fail("", "must be an object");
        merged.merge_patch(patch);
    });
    return out.error.empty() ? parse_scenario(merged.dump()) : out;
}

namespace {
std::string leaf_text(const Json& j) {
    if (j.is_string()) return j.get<std::string>();
    if (!j.is_array()) return j.dump();
    std::string list;
    for (const Json& item : j) list += (list.empty() ? "" : ", ") + leaf_text(item);
    return list;
}

void describe_leaves(const Json& j, const Json& before, const std::string& path, std::vector<std::string>& out) {
    if (before == j) return;
    if (j.is_object() && path == "model" && j.contains("name") && j.contains("layers")) {
        out.push_back("model = " + leaf_text(j.at("name")));
        return;
    }
    if (!j.is_object()) {
        out.push_back(path + " = " + leaf_text(j));
        return;
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
        const Json none;
        const Json& was = before.is_object() && before.contains(it.key()) ? before.at(it.key()) : none;
        describe_leaves(*it, was, path.empty() ? it.key() : path + "." + it.key(), out);
    }
}
}  // namespace

std::vector<std::string> describe_scenario_changes(const Scenario& before, std::string_view changes_json) {
    std::vector<std::string> out;
    if (changes_json.empty()) return out;
    Json j;
    if (!json_read::first_error([&] { j = json_read::parse_document(changes_json); }).empty()) return out;
    describe_leaves(j, Json::parse(scenario_to_json(before)), "", out);
    return out;
}

// ---- Quantities -------------------------------------------------------------------------------------

namespace {

constexpr double kGib = 1024.0 * 1024.0 * 1024.0;  // GiB, the unit every panel shows memory in

using Getter = std::function<QuantityValue(const Scenario&, const Report&, const DeviceMesh&)>;

struct Quantity {
    QuantityInfo info;
    Getter get;
};

QuantityValue value_of(double v) { return QuantityValue{v, ""}; }
QuantityValue value_of(const std::optional<double>& v, const char* why_missing) {
    if (v) return value_of(*v);
    return QuantityValue{std::nullopt, why_missing};
}

constexpr const char* kNoArchitecture = "needs the model's architecture (a bare parameter count has no FLOPs or activations)";

void add_report_quantities(std::vector<Quantity>& q) {
    q.push_back({{"report.world_size", "GPUs", "GPUs in the mesh"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(double(r.world_size)); }});
    q.push_back({{"report.params_total", "", "parameters in the model"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.params_total); }});
    q.push_back({{"report.params_total_b", "billion", "parameters in the model, in billions"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.params_total / 1e9); }});
    q.push_back({{"report.params_active_b", "billion", "parameters one token passes through, in billions"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.params_active / 1e9); }});
    using Field = double MemoryBreakdown::*;
    const std::pair<const char*, Field> fields[] = {{"params", &MemoryBreakdown::params},
                                                    {"grads", &MemoryBreakdown::grads},
                                                    {"optimizer", &MemoryBreakdown::optimizer},
                                                    {"other", &MemoryBreakdown::other}};
    for (const auto& [name, field] : fields) {
        const Field f = field;
        q.push_back({{std::string("report.memory.") + name + "_gib", "GiB", std::string(name) + " on the most loaded GPU"},
                     [f](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.memory.*f / kGib); }});
    }
    q.push_back({{"report.memory.activations_gib", "GiB", "activations on the most loaded GPU"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) {
                     if (!r.memory.activations) return QuantityValue{std::nullopt, kNoArchitecture};
                     return value_of(*r.memory.activations / kGib);
                 }});
    q.push_back({{"report.memory.model_state_gib", "GiB", "weights + gradients + optimizer on the most loaded GPU"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) {
                     return value_of(r.memory.model_state() / kGib);
                 }});
    q.push_back({{"report.memory.total_gib", "GiB", "memory of the most loaded GPU"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.memory.total() / kGib); }});
    q.push_back({{"report.gpu_memory_gib", "GiB", "memory one GPU has"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.gpu_memory_bytes / kGib); }});
    q.push_back({{"report.fits", "", "1 when the most loaded GPU fits in its memory, else 0"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.fits ? 1.0 : 0.0); }});
    q.push_back({{"report.microbatches", "", "micro-batches per pipeline per step"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(double(r.microbatches)); }});
    q.push_back({{"report.bubble_fraction", "", "idle fraction of the step read off the simulated schedule"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.bubble_fraction, kNoArchitecture); }});
    q.push_back({{"pipeline.closed_form_bubble", "", "the schedule's textbook bubble, (p-1)/(m+p-1) or (p-1)/v over (m+(p-1)/v), for equal stages"},
                 [](const Scenario& s, const Report& r, const DeviceMesh&) {
                     const Schedule sched = s.training.schedule;
                     if (sched != Schedule::gpipe && sched != Schedule::one_f_one_b && sched != Schedule::interleaved_1f1b)
                         return QuantityValue{std::nullopt, "the closed form of " + std::string(to_string(sched)) +
                                                                " depends on how the backward splits; read the timeline"};
                     const int v = sched == Schedule::interleaved_1f1b ? int(s.training.virtual_stages) : 1;
                     // Equal stages: the fraction does not depend on their cost.
                     return value_of(closed_form_bubble_fraction(sched, int(s.parallel.pp), int(r.microbatches), v, StageCost{1, 2, 0}));
                 }});
    q.push_back({{"report.time.compute_s", "s", "compute time of the busiest stage per step"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.time.compute, kNoArchitecture); }});
    q.push_back({{"report.time.exposed_comm_s", "s", "communication on the critical path per step"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.time.exposed_comm, kNoArchitecture); }});
    q.push_back({{"report.time.bubble_s", "s", "pipeline idle time per step"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.time.bubble, kNoArchitecture); }});
    q.push_back({{"report.time.step_s", "s", "time of one training step"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.time.step, kNoArchitecture); }});
    q.push_back({{"report.mfu", "", "model FLOPs utilisation (0..1)"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.throughput.mfu, kNoArchitecture); }});
    q.push_back({{"report.tokens_per_s", "tokens/s", "training throughput of the whole cluster"},
                 [](const Scenario&, const Report& r, const DeviceMesh&) { return value_of(r.throughput.tokens_per_s, kNoArchitecture); }});
}

void add_dim_quantities(std::vector<Quantity>& q) {
    for (Dim dim : {Dim::tp, Dim::cp, Dim::dp_shard, Dim::dp_replicate, Dim::pp, Dim::ep}) {
        const std::string d(to_string(dim));
        const std::string prefix = "report.dims." + d + ".";
        const auto with_dim = [d](std::function<double(const DimCost&)> f) -> Getter {
            return [d, f](const Scenario&, const Report& r, const DeviceMesh&) {
                if (const DimCost* c = find_dim_cost(r, d)) return value_of(f(*c));
                return QuantityValue{std::nullopt, "the report has no " + d + " dim for this scenario"};
            };
        };
        q.push_back({{prefix + "size", "ranks", d + ": ranks per group"}, with_dim([](const DimCost& c) { return double(c.size); })});
        q.push_back({{prefix + "groups", "groups", d + ": groups across the world"}, with_dim([](const DimCost& c) { return double(c.groups); })});
        q.push_back({{prefix + "bytes_per_step_gib", "GiB", d + ": GB one GPU sends per step"},
                     with_dim([](const DimCost& c) { return c.bytes_per_step / kGib; })});
        q.push_back({{prefix + "time_s", "s", d + ": communication time per step before overlap"},
                     with_dim([](const DimCost& c) { return c.time_s; })});
        q.push_back({{prefix + "exposed_s", "s", d + ": communication left on the critical path per step"},
                     with_dim([](const DimCost& c) { return c.exposed_s; })});
        q.push_back({{prefix + "inter", "", d + ": 1 when some of its groups span nodes, else 0"},
                     with_dim([](const DimCost& c) { return c.link == "inter" || c.link == "mixed" ? 1.0 : 0.0; })});
    }
}

void add_mesh_quantities(std::vector<Quantity>& q) {
    q.push_back({{"mesh.world_size", "GPUs", "GPUs in the mesh"},
                 [](const Scenario&, const Report&, const DeviceMesh& m) { return value_of(double(m.world_size())); }});
    q.push_back({{"mesh.nodes", "nodes", "nodes in the mesh"},
                 [](const Scenario&, const Report&, const DeviceMesh& m) { return value_of(double(m.node_count())); }});
    q.push_back({{"mesh.extra_replicas", "", "data-parallel replicas added by leftover GPUs"},
                 [](const Scenario&, const Report&, const DeviceMesh& m) { return value_of(double(m.extra_replicas())); }});
    q.push_back({{"mesh.hsdp", "", "1 when the layout is HSDP (shards in a node, replicas across)"},
                 [](const Scenario&, const Report&, const DeviceMesh& m) { return value_of(m.is_hsdp() ? 1.0 : 0.0); }});
    q.push_back({{"mesh.groups.ep", "groups", "expert-parallel groups"},
                 [](const Scenario&, const Report&, const DeviceMesh& m) { return value_of(double(m.ep_group_count())); }});
    q.push_back({{"mesh.inter_groups.ep", "groups", "expert-parallel groups that span nodes"},
                 [](const Scenario&, const Report&, const DeviceMesh& m) { return value_of(double(m.ep_summary().inter_groups)); }});
    for (Dim dim : kMeshDims) {
        const std::string d(to_string(dim));
        q.push_back({{"mesh.groups." + d, "groups", d + ": number of groups"},
                     [dim](const Scenario&, const Report&, const DeviceMesh& m) { return value_of(double(m.group_count(dim))); }});
        q.push_back({{"mesh.size." + d, "ranks", d + ": ranks per group (after leftover replicas)"},
                     [dim](const Scenario&, const Report&, const DeviceMesh& m) { return value_of(double(m.size(dim))); }});
        q.push_back({{"mesh.stride." + d, "ranks", d + ": rank distance between neighbours in a group"},
                     [dim](const Scenario&, const Report&, const DeviceMesh& m) { return value_of(double(m.stride(dim))); }});
        q.push_back({{"mesh.intra_groups." + d, "groups", d + ": groups inside one node"},
                     [dim](const Scenario&, const Report&, const DeviceMesh& m) { return value_of(double(m.summary(dim).intra_groups)); }});
        q.push_back({{"mesh.inter_groups." + d, "groups", d + ": groups spanning nodes"},
                     [dim](const Scenario&, const Report&, const DeviceMesh& m) { return value_of(double(m.summary(dim).inter_groups)); }});
    }
}

void add_scenario_quantities(std::vector<Quantity>& q) {
    q.push_back({{"memory.state_bytes_per_param", "bytes", "bytes of weights + gradients + Adam state per parameter"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) {
                     return value_of(state_bytes_per_param(s.training).total());
                 }});
    q.push_back({{"model.heads_per_tp_rank", "heads", "attention heads each tensor-parallel GPU computes"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) {
                     return value_of(double(s.model.heads) / double(s.parallel.tp));
                 }});
    q.push_back({{"model.layers_per_stage", "layers", "transformer blocks per pipeline stage (an even split)"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) {
                     return value_of(double(s.model.layers) / double(s.parallel.pp));
                 }});
    q.push_back({{"model.experts_per_ep_rank", "experts", "routed experts each expert-parallel GPU holds"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) {
                     if (!s.model.is_moe()) return QuantityValue{std::nullopt, "the model has no experts"};
                     return value_of(double(s.model.experts) / double(s.parallel.ep));
                 }});
    q.push_back({{"model.tokens_per_cp_rank", "tokens", "tokens of each sequence one context-parallel GPU holds"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) {
                     return value_of(double(s.model.seq_len) / double(s.parallel.cp));
                 }});
    q.push_back({{"training.tokens_per_step", "tokens", "tokens in one global batch"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) {
                     return value_of(double(s.training.global_batch) * double(s.model.seq_len));
                 }});
    q.push_back({{"scenario.peak_tflops", "TFLOP/s", "one GPU's peak at the training precision (FP32 on the CUDA cores)"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) { return value_of(training_peak_tflops(s)); }});
    q.push_back({{"scenario.intra_gbps", "GB/s", "intra-node bandwidth per GPU, one direction"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) { return value_of(s.cluster.intra_node.bandwidth_gbps); }});
    q.push_back({{"scenario.inter_gbps", "GB/s", "inter-node bandwidth of one NIC, one direction"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) { return value_of(s.cluster.inter_node.bandwidth_gbps); }});
    q.push_back({{"scenario.node_inter_gbps", "GB/s", "inter-node bandwidth of all of one node's NICs together"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) {
                     const LinkSpec& l = s.cluster.inter_node;
                     const double nics = double(l.nics_per_node > 0 ? l.nics_per_node : s.cluster.gpus_per_node);
                     return value_of(l.bandwidth_gbps * nics);
                 }});
    q.push_back({{"model.overlap_slowdown", "", "share of its speed compute loses while a collective runs beside it"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) {
                     return value_of(hardware_figures(s.cluster.gpu).overlap_compute_loss);
                 }});
    q.push_back({{"memory.whole_model_state_gib", "GiB", "weights + gradients + optimizer of the whole model, unsharded"},
                 [](const Scenario& s, const Report& r, const DeviceMesh&) {
                     return value_of(r.params_total * state_bytes_per_param(s.training).total() / kGib);
                 }});
    q.push_back({{"scenario.gpu_count", "GPUs", "GPUs the cluster has"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) { return value_of(double(s.cluster.gpu_count())); }});
    q.push_back({{"scenario.link_ratio", "x", "intra-node bandwidth over inter-node bandwidth"},
                 [](const Scenario& s, const Report&, const DeviceMesh&) {
                     return value_of(s.cluster.intra_node.bandwidth_gbps / s.cluster.inter_node.bandwidth_gbps);
                 }});
}

const std::vector<Quantity>& quantity_table() {
    static const std::vector<Quantity> table = [] {
        std::vector<Quantity> q;
        add_report_quantities(q);
        add_dim_quantities(q);
        add_mesh_quantities(q);
        add_scenario_quantities(q);
        return q;
    }();
    return table;
}

const Quantity* find_quantity_entry(std::string_view name) {
    for (const Quantity& q : quantity_table())
        if (q.info.name == name) return &q;
    return nullptr;
}

}  // namespace

const std::vector<QuantityInfo>& lesson_quantities() {
    static const std::vector<QuantityInfo> infos = [] {
        std::vector<QuantityInfo> out;
        for (const Quantity& q : quantity_table()) out.push_back(q.info);
        return out;
    }();
    return infos;
}

const QuantityInfo* find_quantity(std::string_view name) {
    const Quantity* q = find_quantity_entry(name);
    return q ? &q->info : nullptr;
}

namespace {
std::string three_digits(double v) {
    char buf[64];
    const double a = std::fabs(v);
    std::snprintf(buf, sizeof buf, a >= 100 || a == std::floor(a) ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", v);
    return buf;
}
bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}
}  // namespace

bool is_share_quantity(std::string_view name) noexcept {
    return name == "report.bubble_fraction" || name == "report.mfu" || name == "model.overlap_slowdown" ||
           name == "pipeline.closed_form_bubble";
}

std::string format_quantity(std::string_view name, double value) {
    const QuantityInfo* info = find_quantity(name);
    const std::string unit = info ? info->unit : "";
    if (name == "report.fits" || name == "mesh.hsdp" || ends_with(name, ".inter")) return value != 0 ? "yes" : "no";
    if (is_share_quantity(name)) return three_digits(value) + " (" + format_percent(value) + ")";
    if (unit == "GiB") return format_memory(value * kGib);
    if (unit == "s") return format_seconds(value);
    if (unit == "billion") return three_digits(value) + " billion";
    if (name == "report.params_total") return format_count(value);
    if (unit == "tokens/s") return format_count(value) + " tokens/s";
    return three_digits(value) + (unit.empty() ? "" : " " + unit);
}

namespace {

// Inputs are counts: printed whole, never rounded to "131k".
std::string named(const char* name, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s = %.0f", name, v);
    return buf;
}

std::string bytes_named(const char* name, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s %g bytes", name, v);
    return buf;
}

std::string bytes_per_s_named(const char* name, double gbps) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s %g GB/s", name, gbps);
    return buf;
}

}  // namespace

std::optional<std::string> hand_calculation_inputs(std::string_view name, const Scenario& s) {
    const ModelSpec& m = s.model;
    const ParallelSpec& p = s.parallel;
    if (name == "memory.state_bytes_per_param") {
        const StateBytesPerParam b = state_bytes_per_param(s.training);
        return "precision " + std::string(to_string(s.training.precision)) + ": " + bytes_named("weights", b.weights) + ", " +
               bytes_named("gradients", b.grads) + ", " + bytes_named("optimizer state", b.optimizer) + " per parameter";
    }
    if (name == "model.heads_per_tp_rank") return named("heads", double(m.heads)) + ", " + named("tp", double(p.tp));
    if (name == "model.layers_per_stage") return named("layers", double(m.layers)) + ", " + named("pp", double(p.pp));
    if (name == "model.experts_per_ep_rank") return named("experts", double(m.experts)) + ", " + named("ep", double(p.ep));
    if (name == "model.tokens_per_cp_rank") return named("seq_len", double(m.seq_len)) + ", " + named("cp", double(p.cp));
    if (name == "training.tokens_per_step")
        return named("global_batch", double(s.training.global_batch)) + " sequences, " + named("seq_len", double(m.seq_len));
    if (name == "scenario.gpu_count")
        return named("nodes", double(s.cluster.nodes)) + ", " + named("gpus_per_node", double(s.cluster.gpus_per_node));
    if (name == "scenario.link_ratio")
        return bytes_per_s_named("intra-node", s.cluster.intra_node.bandwidth_gbps) + ", " +
               bytes_per_s_named("inter-node", s.cluster.inter_node.bandwidth_gbps);
    return std::nullopt;
}

QuantityValue evaluate_quantity(std::string_view name, const Scenario& s, const Report& r, const DeviceMesh& mesh) {
    const Quantity* q = find_quantity_entry(name);
    if (!q) return QuantityValue{std::nullopt, "\"" + std::string(name) + "\" is not a known quantity"};
    return q->get(s, r, mesh);
}

namespace {

struct UnitScale {
    const char* suffix;
    double scale;  // into the quantity's unit
};

// Suffixes a panel writes after a number, per unit of the quantity it stands for.
std::vector<UnitScale> scales_for(std::string_view name, std::string_view unit) {
    if (unit == "GiB") return {{"TiB", 1024.0}, {"GiB", 1.0}, {"MiB", 1.0 / 1024}, {"KiB", 1.0 / (1024.0 * 1024)}};
    if (unit == "s") return {{"days", 86400.0}, {"min", 60.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"h", 3600.0}, {"s", 1.0}};
    if (is_share_quantity(name)) return {{"%", 0.01}};
    if (unit == "billion") return {{"billion", 1.0}};
    return {{"T", 1e12}, {"B", 1e9}, {"M", 1e6}, {"k", 1e3}, {"", 1.0}};
}

}  // namespace

std::optional<double> number_in_shown_text(std::string_view name, std::string_view text) {
    const QuantityInfo* info = find_quantity(name);
    if (!info) return std::nullopt;
    size_t start = 0;
    while (start < text.size() && !std::isdigit(static_cast<unsigned char>(text[start]))) ++start;
    if (start == text.size()) return std::nullopt;
    if (text.substr(0, start).find('<') != std::string_view::npos) return std::nullopt;  // "< 0.001 GiB": a bound
    std::string digits;
    size_t i = start;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') digits += c;
        else if (c == ',' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) continue;
        else break;
    }
    const double number = std::strtod(digits.c_str(), nullptr);
    size_t rest = i;
    while (rest < text.size() && text[rest] == ' ') ++rest;
    const std::string_view after = text.substr(rest);
    for (const UnitScale& u : scales_for(name, info->unit)) {
        const std::string_view suffix(u.suffix);
        if (after.substr(0, suffix.size()) == suffix) return number * u.scale;
    }
    return std::nullopt;
}

bool number_answer_is_right(const LessonCheck& check, double computed, double typed, const std::vector<std::string>& shown_texts) {
    if (number_answer_is_right(check, computed, typed)) return true;
    for (const std::string& text : shown_texts)
        if (const auto shown = number_in_shown_text(check.quantity, text); shown && number_answer_is_right(check, *shown, typed))
            return true;
    return false;
}

// ---- Checks -----------------------------------------------------------------------------------------

CheckAnswer answer_check(const LessonCheck& check, const Scenario& s, const Report& r, const DeviceMesh& mesh) {
    CheckAnswer a;
    if (check.kind == CheckKind::number || check.rule == ChoiceRule::range) {
        const QuantityValue v = evaluate_quantity(check.quantity, s, r, mesh);
        if (!v.value) {
            a.error = check.quantity + ": " + v.error;
            return a;
        }
        a.value = *v.value;
        if (check.kind == CheckKind::number) return a;
        int matches = 0;
        for (size_t i = 0; i < check.options.size(); ++i) {
            const ChoiceOption& o = check.options[i];
            if ((!o.min || a.value >= *o.min) && (!o.max || a.value < *o.max)) {
                ++matches;
                a.correct_option = static_cast<int>(i);
            }
        }
        if (matches != 1) {
            a.error = check.quantity + " = " + std::to_string(a.value) + " falls in " + std::to_string(matches) +
                      " options' ranges; it must fall in exactly one";
            a.correct_option = -1;
        }
        return a;
    }
    for (const ChoiceOption& o : check.options) {
        const QuantityValue v = evaluate_quantity(o.quantity, s, r, mesh);
        if (!v.value) {
            a.error = o.quantity + ": " + v.error;
            return a;
        }
        a.option_values.push_back(*v.value);
    }
    const auto& vals = a.option_values;
    const auto best = check.rule == ChoiceRule::largest ? std::max_element(vals.begin(), vals.end())
                                                        : std::min_element(vals.begin(), vals.end());
    a.correct_option = static_cast<int>(best - vals.begin());
    if (std::count(vals.begin(), vals.end(), *best) > 1) {
        a.error = "two options tie for the " + std::string(check.rule == ChoiceRule::largest ? "largest" : "smallest") +
                  " value; the question has no single answer";
        a.correct_option = -1;
    }
    return a;
}

CheckAnswer answer_check(const LessonCheck& check, const Scenario& s) {
    const Report report = build_report(s);
    const DeviceMesh mesh = DeviceMesh::build(s.cluster, s.parallel);
    return answer_check(check, s, report, mesh);
}

bool number_answer_is_right(const LessonCheck& check, double computed, double typed) noexcept {
    if (!std::isfinite(typed)) return false;
    const double allowed = std::max(check.tolerance * std::fabs(computed), check.absolute_tolerance);
    if (std::fabs(typed - computed) <= allowed) return true;
    // A share the panels print as a percentage may be typed as one: 33.1 for 0.331.
    return is_share_quantity(check.quantity) && typed > 1 && typed <= 100 &&
           std::fabs(typed / 100.0 - computed) <= allowed;
}

std::vector<std::string> verify_lesson_checks(const Lesson& lesson) {
    std::vector<std::string> errors;
    for (size_t k = 0; k < lesson.steps.size(); ++k) {
        const LessonStep& step = lesson.steps[k];
        if (!step.check) continue;
        const CheckAnswer a = answer_check(*step.check, step.scenario);
        if (!a.ok()) errors.push_back(lesson.file + ": " + index_path("steps", k) + ".check: " + a.error);
    }
    return errors;
}

// ---- Loader -----------------------------------------------------------------------------------------

namespace {

void require_quantity(const std::string& name, const std::string& path) {
    if (!find_quantity(name)) fail(path, "\"" + name + "\" is not a known quantity (see lesson_quantities())");
}

ChoiceOption read_option(const Json& j, const std::string& path, ChoiceRule rule) {
    ObjectReader r(j, path);
    ChoiceOption o;
    o.text = r.text_field("text");
    if (rule == ChoiceRule::range) {
        o.min = r.optional_number("min");
        o.max = r.optional_number("max");
        if (!o.min && !o.max) fail(path, "a range option needs \"min\", \"max\" or both");
        if (o.min && o.max && *o.min >= *o.max) fail(r.path("max"), "must be above min");
    } else {
        o.quantity = r.string_field("quantity");
        require_quantity(o.quantity, r.path("quantity"));
    }
    r.reject_unknown();
    return o;
}

LessonCheck read_check(const Json& j, const std::string& path) {
    ObjectReader r(j, path);
    LessonCheck c;
    const std::string kind = r.string_field("kind");
    if (kind == "number") c.kind = CheckKind::number;
    else if (kind == "choice") c.kind = CheckKind::choice;
    else fail(r.path("kind"), "\"" + kind + "\" is not one of number, choice");
    c.question = r.text_field("question");
    c.explain = r.string_or("explain", "");
    if (c.kind == CheckKind::number) {
        c.quantity = r.string_field("quantity");
        require_quantity(c.quantity, r.path("quantity"));
        c.tolerance = r.optional_number("tolerance").value_or(0.05);
        if (c.tolerance < 0 || c.tolerance >= 1) fail(r.path("tolerance"), "must be a fraction in [0, 1)");
        c.absolute_tolerance = r.optional_number("absolute_tolerance").value_or(0.0);
        if (c.absolute_tolerance < 0) fail(r.path("absolute_tolerance"), "must not be negative");
        r.reject_unknown();
        return c;
    }
    const std::string pick = r.string_or("pick", "range");
    if (pick == "range") c.rule = ChoiceRule::range;
    else if (pick == "largest") c.rule = ChoiceRule::largest;
    else if (pick == "smallest") c.rule = ChoiceRule::smallest;
    else fail(r.path("pick"), "\"" + pick + "\" is not one of range, largest, smallest");
    if (c.rule == ChoiceRule::range) {
        c.quantity = r.string_field("quantity");
        require_quantity(c.quantity, r.path("quantity"));
    }
    const Json& options = r.array_field("options");
    if (options.size() < 2) fail(r.path("options"), "a choice needs at least two options");
    for (size_t i = 0; i < options.size(); ++i)
        c.options.push_back(read_option(options[i], index_path(r.path("options"), i), c.rule));
    r.reject_unknown();
    return c;
}

void check_action(const std::string& action, const std::string& path) {
    const auto dot = action.find('.');
    const auto eq = action.find('=');
    if (dot == std::string::npos || eq == std::string::npos || dot == 0 || eq < dot + 2)
        fail(path, "\"" + action + "\" must be written PANEL.ACTION=VALUE, e.g. mesh.dim=dp_shard");
}

void check_links(const std::string& body, const std::string& path) {
    for (size_t open = body.find("[["); open != std::string::npos; open = body.find("[[", open + 2)) {
        const size_t close = body.find("]]", open + 2);
        if (close == std::string::npos) break;
        const std::string inside = body.substr(open + 2, close - open - 2);
        const size_t bar = inside.find('|');
        const bool empty_part = inside.empty() || bar == 0 || (bar != std::string::npos && bar + 1 == inside.size());
        if (empty_part) fail(path, "a glossary link [[term|text]] has an empty part");
    }
}

void check_quoted_figures(const std::string& text, size_t at, const std::string& path) {
    if (const QuotedFigures q = quoted_figures(text, at); !q.error.empty()) fail(path, q.error);
}

std::vector<LessonClaim> read_claims(ObjectReader& r, size_t at) {
    std::vector<LessonClaim> claims;
    const std::vector<std::string> texts = r.string_list("claims");
    for (size_t i = 0; i < texts.size(); ++i) {
        ClaimParse p = parse_claim(texts[i], at);
        if (!p.claim) fail(index_path(r.path("claims"), i), "\"" + texts[i] + "\" " + p.error);
        claims.push_back(std::move(*p.claim));
    }
    return claims;
}

LessonStep read_step(const Json& j, const std::string& path, const Scenario& previous, size_t at) {
    ObjectReader r(j, path);
    LessonStep step;
    step.title = r.text_field("title");
    step.body = r.text_field("body");
    check_links(step.body, r.path("body"));
    check_quoted_figures(step.body, at, r.path("body"));
    step.scenario = previous;
    if (const Json* changes = r.optional("scenario")) {
        if (!changes->is_object()) fail(r.path("scenario"), "must be an object (a partial scenario)");
        step.scenario_changes = changes->dump();
        const ScenarioLoad merged = merge_scenario(previous, step.scenario_changes);
        if (!merged.ok()) {
            const bool whole = merged.error.rfind("(document)", 0) == 0;
            throw FieldError{r.path("scenario") + (whole ? merged.error.substr(10) : "." + merged.error)};
        }
        step.scenario = *merged.scenario;
    }
    step.panels = r.string_list("panels");
    step.highlight = r.string_or("highlight", "");
    step.actions = r.string_list("actions");
    for (size_t i = 0; i < step.actions.size(); ++i) check_action(step.actions[i], index_path(r.path("actions"), i));
    if (const Json* check = r.optional("check")) {
        step.check = read_check(*check, r.path("check"));
        check_quoted_figures(step.check->explain, at, r.path("check") + ".explain");
    }
    step.claims = read_claims(r, at);
    r.reject_unknown();
    return step;
}

Lesson read_lesson(const Json& doc) {
    ObjectReader r(doc, "");
    r.expect_schema(kLessonSchema);
    Lesson lesson;
    lesson.id = r.text_field("id");
    if (lesson.id.find_first_of(" \t\n/") != std::string::npos) fail("id", "must not contain spaces or slashes");
    lesson.title = r.text_field("title");
    lesson.summary = r.text_field("summary");
    const Json& steps = r.array_field("steps");
    if (steps.size() < kMinLessonSteps || steps.size() > kMaxLessonSteps)
        fail("steps", "has " + std::to_string(steps.size()) + " steps; a lesson has " + std::to_string(kMinLessonSteps) +
                          " to " + std::to_string(kMaxLessonSteps));
    Scenario current = default_scenario();
    for (size_t k = 0; k < steps.size(); ++k) {
        lesson.steps.push_back(read_step(steps[k], index_path("steps", k), current, k));
        current = lesson.steps.back().scenario;
        // A step that names no panels keeps the previous step's panels and outline, so jumping
        // straight to it shows what going step by step would.
        LessonStep& step = lesson.steps.back();
        if (k > 0 && step.panels.empty() && step.highlight.empty()) {
            step.panels = lesson.steps[k - 1].panels;
            step.highlight = lesson.steps[k - 1].highlight;
        }
    }
    r.reject_unknown();
    return lesson;
}

}  // namespace

LessonLoad parse_lesson(std::string_view json_text, const std::string& file) {
    LessonLoad out;
    const std::string error = json_read::first_error([&] {
        Lesson lesson = read_lesson(json_read::parse_document(json_text));
        lesson.file = file;
        out.lesson = std::move(lesson);
    });
    if (!error.empty()) out.error = file + ": " + error;
    return out;
}

std::string lesson_step_error(const std::vector<Lesson>& lessons, const std::string& id, int step) {
    for (const Lesson& l : lessons) {
        if (l.id != id) continue;
        const int count = static_cast<int>(l.steps.size());
        if (step >= 1 && step <= count) return {};
        return "lesson \"" + id + "\" has steps 1 to " + std::to_string(count) + ", not " + std::to_string(step);
    }
    std::string known;
    for (const Lesson& l : lessons) known += (known.empty() ? "" : ", ") + l.id;
    return "\"" + id + "\" is not a lesson (lessons: " + known + ")";
}

LessonSet load_lessons(std::vector<std::pair<std::string, std::string>> files_and_texts) {
    std::sort(files_and_texts.begin(), files_and_texts.end());
    LessonSet set;
    std::set<std::string> ids;
    for (const auto& [file, text] : files_and_texts) {
        LessonLoad load = parse_lesson(text, file);
        if (!load.ok()) {
            set.errors.push_back(load.error);
            continue;
        }
        if (!ids.insert(load.lesson->id).second) {
            set.errors.push_back(file + ": id: \"" + load.lesson->id + "\" is already used by another lesson");
            continue;
        }
        set.lessons.push_back(std::move(*load.lesson));
    }
    return set;
}

}  // namespace shardscope
