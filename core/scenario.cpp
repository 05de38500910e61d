#include "core/scenario.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <sstream>

namespace shardscope {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kSchema = "shardscope.scenario/1";

// Thrown inside the loader only; parse_scenario turns it into ScenarioLoad::error.
struct FieldError {
    std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& rule) {
    throw FieldError{path + ": " + rule};
}

std::string join_path(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

// Reads one JSON object field by field and rejects keys nobody asked for (typos must not pass).
class ObjectReader {
public:
    ObjectReader(const Json& j, std::string path) : json_(j), path_(std::move(path)) {
        if (!json_.is_object()) fail(path_.empty() ? "(document)" : path_, "must be an object");
    }

    [[nodiscard]] bool has(const std::string& key) const { return json_.contains(key); }

    const Json& required(const std::string& key) {
        seen_.insert(key);
        if (!json_.contains(key)) fail(join_path(path_, key), "is required");
        return json_.at(key);
    }

    std::string path(const std::string& key) const { return join_path(path_, key); }

    std::string string_field(const std::string& key, std::optional<std::string> fallback = std::nullopt) {
        if (!has(key) && fallback) return *fallback;
        const Json& v = required(key);
        if (!v.is_string()) fail(path(key), "must be a string");
        return v.get<std::string>();
    }

    int64_t int_field(const std::string& key, std::optional<int64_t> fallback = std::nullopt) {
        if (!has(key) && fallback) { seen_.insert(key); return *fallback; }
        const Json& v = required(key);
        if (v.is_number_integer() || v.is_number_unsigned()) return v.get<int64_t>();
        if (v.is_number_float()) {
            const double d = v.get<double>();
            if (std::floor(d) == d && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
        }
        fail(path(key), "must be a whole number");
    }

    double number_field(const std::string& key, std::optional<double> fallback = std::nullopt) {
        if (!has(key) && fallback) { seen_.insert(key); return *fallback; }
        const Json& v = required(key);
        if (!v.is_number()) fail(path(key), "must be a number");
        const double d = v.get<double>();
        if (!std::isfinite(d)) fail(path(key), "must be finite");
        return d;
    }

    bool bool_field(const std::string& key, std::optional<bool> fallback = std::nullopt) {
        if (!has(key) && fallback) { seen_.insert(key); return *fallback; }
        const Json& v = required(key);
        if (!v.is_boolean()) fail(path(key), "must be true or false");
        return v.get<bool>();
    }

    template <typename Enum>
    Enum enum_field(const std::string& key, std::optional<Enum> (*parse)(std::string_view) noexcept,
                    const char* allowed, std::optional<Enum> fallback = std::nullopt) {
        if (!has(key) && fallback) { seen_.insert(key); return *fallback; }
        const std::string s = string_field(key);
        if (auto e = parse(s)) return *e;
        fail(path(key), "\"" + s + "\" is not one of " + allowed);
    }

    void reject_unknown() const {
        for (auto it = json_.begin(); it != json_.end(); ++it)
            if (!seen_.count(it.key())) fail(join_path(path_, it.key()), "unknown field");
    }

private:
    const Json& json_;
    std::string path_;
    std::set<std::string> seen_;
};

ModelSpec read_model(const Json& j) {
    ObjectReader r(j, "model");
    ModelSpec m;
    m.name = r.string_field("name", std::string("custom"));
    if (r.has("params") && !r.required("params").is_null()) {
        m.params = r.number_field("params");
    } else if (r.has("params")) {
        r.required("params");
    }
    // A bare parameter count may stand in for the architecture; then the architecture fields are optional.
    const std::optional<int64_t> arch_default =
        m.params ? std::optional<int64_t>(0) : std::nullopt;
    m.layers = r.int_field("layers", arch_default);
    m.hidden = r.int_field("hidden", arch_default);
    m.ffn_hidden = r.int_field("ffn_hidden", arch_default);
    m.heads = r.int_field("heads", arch_default);
    m.kv_heads = r.int_field("kv_heads", m.params ? std::optional<int64_t>(0) : std::nullopt);
    m.vocab = r.int_field("vocab", arch_default);
    m.seq_len = r.int_field("seq_len", arch_default);
    m.ffn = r.enum_field<Ffn>("ffn", &ffn_from_string, "gelu, swiglu", Ffn::swiglu);
    m.experts = r.int_field("experts", 0);
    m.top_k = r.int_field("top_k", 0);
    m.expert_ffn_hidden = r.int_field("expert_ffn_hidden", 0);
    m.shared_experts = r.int_field("shared_experts", 0);
    m.dense_layers = r.int_field("dense_layers", 0);
    r.reject_unknown();
    return m;
}

LinkSpec read_link(const Json& j, const std::string& path) {
    ObjectReader r(j, path);
    LinkSpec l;
    l.bandwidth_gbps = r.number_field("bandwidth_gbps");
    l.latency_us = r.number_field("latency_us");
    r.reject_unknown();
    return l;
}

GpuSpec read_gpu(const Json& j) {
    ObjectReader r(j, "cluster.gpu");
    GpuSpec g;
    g.name = r.string_field("name", std::string("GPU"));
    g.memory_gb = r.number_field("memory_gb");
    g.peak_tflops = r.number_field("peak_tflops");
    g.hbm_gbps = r.number_field("hbm_gbps", GpuSpec{}.hbm_gbps);
    g.matmul_efficiency = r.number_field("matmul_efficiency", GpuSpec{}.matmul_efficiency);
    r.reject_unknown();
    return g;
}

ClusterSpec read_cluster(const Json& j) {
    ObjectReader r(j, "cluster");
    ClusterSpec c;
    c.name = r.string_field("name", std::string("cluster"));
    c.nodes = r.int_field("nodes");
    c.gpus_per_node = r.int_field("gpus_per_node");
    c.gpu = read_gpu(r.required("gpu"));
    c.intra_node = read_link(r.required("intra_node"), "cluster.intra_node");
    c.inter_node = read_link(r.required("inter_node"), "cluster.inter_node");
    r.reject_unknown();
    return c;
}

std::vector<MeshDim> read_order(const Json& j) {
    const std::string path = "parallel.order";
    if (!j.is_array()) fail(path, "must be a list of the dims tp, cp, dp_shard, dp_replicate, pp");
    std::vector<MeshDim> order;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string item_path = path + "[" + std::to_string(i) + "]";
        if (!j[i].is_string()) fail(item_path, "must be a string");
        const auto d = mesh_dim_from_string(j[i].get<std::string>());
        if (!d) fail(item_path, "\"" + j[i].get<std::string>() + "\" is not one of tp, cp, dp_shard, dp_replicate, pp");
        for (MeshDim seen : order)
            if (seen == *d) fail(item_path, "\"" + std::string(to_string(*d)) + "\" is listed twice");
        order.push_back(*d);
    }
    if (order.size() != kAllMeshDims.size())
        fail(path, "must list each of tp, cp, dp_shard, dp_replicate, pp exactly once");
    return order;
}

ParallelSpec read_parallel(const Json& j) {
    ObjectReader r(j, "parallel");
    ParallelSpec p;
    p.tp = r.int_field("tp", 1);
    p.cp = r.int_field("cp", 1);
    p.pp = r.int_field("pp", 1);
    p.dp_shard = r.int_field("dp_shard", 1);
    p.dp_replicate = r.int_field("dp_replicate", 1);
    p.ep = r.int_field("ep", 1);
    p.zero = static_cast<int>(r.int_field("zero", 0));
    p.sequence_parallel = r.bool_field("sequence_parallel", false);
    p.tp_comm_overlap = r.bool_field("tp_comm_overlap", false);
    if (r.has("order")) p.order = read_order(r.required("order"));
    r.reject_unknown();
    return p;
}

TrainingSpec read_training(const Json& j) {
    ObjectReader r(j, "training");
    TrainingSpec t;
    t.global_batch = r.int_field("global_batch");
    t.micro_batch = r.int_field("micro_batch", 1);
    t.schedule = r.enum_field<Schedule>("schedule", &schedule_from_string,
                                        "gpipe, 1f1b, interleaved-1f1b, zb-h1, zb-h2, dualpipe",
                                        Schedule::one_f_one_b);
    t.virtual_stages = r.int_field("virtual_stages", 1);
    t.recompute = r.enum_field<Recompute>("recompute", &recompute_from_string, "none, selective, full",
                                          Recompute::none);
    t.precision = r.enum_field<Precision>("precision", &precision_from_string,
                                          "mixed-bf16, fp32, megatron-bf16", Precision::mixed_bf16);
    r.reject_unknown();
    return t;
}

Scenario read_scenario(const Json& doc) {
    ObjectReader r(doc, "");
    const std::string schema = r.string_field("schema");
    if (schema != kSchema) fail("schema", "must be \"" + std::string(kSchema) + "\", got \"" + schema + "\"");
    Scenario s;
    s.model = read_model(r.required("model"));
    s.cluster = read_cluster(r.required("cluster"));
    s.parallel = read_parallel(r.required("parallel"));
    s.training = read_training(r.required("training"));
    r.reject_unknown();
    return s;
}

Json model_to_json(const ModelSpec& m) {
    Json j;
    j["name"] = m.name;
    j["layers"] = m.layers;
    j["hidden"] = m.hidden;
    j["ffn_hidden"] = m.ffn_hidden;
    j["heads"] = m.heads;
    j["kv_heads"] = m.kv_heads;
    j["vocab"] = m.vocab;
    j["seq_len"] = m.seq_len;
    j["ffn"] = to_string(m.ffn);
    j["experts"] = m.experts;
    j["top_k"] = m.top_k;
    j["expert_ffn_hidden"] = m.expert_ffn_hidden;
    j["shared_experts"] = m.shared_experts;
    j["dense_layers"] = m.dense_layers;
    j["params"] = m.params ? Json(*m.params) : Json(nullptr);
    return j;
}

Json link_to_json(const LinkSpec& l) {
    Json j;
    j["bandwidth_gbps"] = l.bandwidth_gbps;
    j["latency_us"] = l.latency_us;
    return j;
}

Json cluster_to_json(const ClusterSpec& c) {
    Json j;
    j["name"] = c.name;
    j["nodes"] = c.nodes;
    j["gpus_per_node"] = c.gpus_per_node;
    Json g;
    g["name"] = c.gpu.name;
    g["memory_gb"] = c.gpu.memory_gb;
    g["peak_tflops"] = c.gpu.peak_tflops;
    g["hbm_gbps"] = c.gpu.hbm_gbps;
    g["matmul_efficiency"] = c.gpu.matmul_efficiency;
    j["gpu"] = g;
    j["intra_node"] = link_to_json(c.intra_node);
    j["inter_node"] = link_to_json(c.inter_node);
    return j;
}

Json parallel_to_json(const ParallelSpec& p) {
    Json j;
    j["tp"] = p.tp;
    j["cp"] = p.cp;
    j["pp"] = p.pp;
    j["dp_shard"] = p.dp_shard;
    j["dp_replicate"] = p.dp_replicate;
    j["ep"] = p.ep;
    j["zero"] = p.zero;
    j["sequence_parallel"] = p.sequence_parallel;
    j["tp_comm_overlap"] = p.tp_comm_overlap;
    Json order = Json::array();
    for (MeshDim d : p.order) order.push_back(to_string(d));
    j["order"] = order;
    return j;
}

Json training_to_json(const TrainingSpec& t) {
    Json j;
    j["global_batch"] = t.global_batch;
    j["micro_batch"] = t.micro_batch;
    j["schedule"] = to_string(t.schedule);
    j["virtual_stages"] = t.virtual_stages;
    j["recompute"] = to_string(t.recompute);
    j["precision"] = to_string(t.precision);
    return j;
}

}  // namespace

int64_t ParallelSpec::factor(MeshDim d) const noexcept {
    switch (d) {
        case MeshDim::tp: return tp;
        case MeshDim::cp: return cp;
        case MeshDim::dp_shard: return dp_shard;
        case MeshDim::dp_replicate: return dp_replicate;
        case MeshDim::pp: return pp;
    }
    return 1;
}

ScenarioLoad parse_scenario(std::string_view json_text) {
    ScenarioLoad out;
    Json doc;
    try {
        doc = Json::parse(json_text.begin(), json_text.end());
    } catch (const nlohmann::json::parse_error& e) {
        out.error = std::string("(document): not valid JSON: ") + e.what();
        return out;
    }
    try {
        Scenario s = read_scenario(doc);
        if (std::string rule = validate_scenario(s); !rule.empty()) {
            out.error = rule;
            return out;
        }
        out.scenario = std::move(s);
    } catch (const FieldError& e) {
        out.error = e.message;
    }
    return out;
}

std::string scenario_to_json(const Scenario& s) {
    Json j;
    j["schema"] = kSchema;
    j["model"] = model_to_json(s.model);
    j["cluster"] = cluster_to_json(s.cluster);
    j["parallel"] = parallel_to_json(s.parallel);
    j["training"] = training_to_json(s.training);
    return j.dump(2) + "\n";
}

bool operator==(const Scenario& a, const Scenario& b) { return scenario_to_json(a) == scenario_to_json(b); }

std::string validate_scenario(const Scenario& s) {
    const auto positive = [](int64_t v) { return v >= 1; };
    const ParallelSpec& p = s.parallel;
    const std::pair<const char*, int64_t> factors[] = {{"parallel.tp", p.tp}, {"parallel.cp", p.cp},
                                                      {"parallel.pp", p.pp}, {"parallel.dp_shard", p.dp_shard},
                                                      {"parallel.dp_replicate", p.dp_replicate}, {"parallel.ep", p.ep}};
    for (const auto& [path, v] : factors)
        if (!positive(v)) return std::string(path) + ": " + std::to_string(v) + " must be a positive integer";
    if (s.cluster.nodes < 1) return "cluster.nodes: must be at least 1";
    if (s.cluster.gpus_per_node < 1) return "cluster.gpus_per_node: must be at least 1";
    if (s.cluster.gpu_count() % p.product() != 0) {
        std::ostringstream os;
        os << "parallel: tp*cp*pp*dp_shard*dp_replicate = " << p.product() << " does not divide the "
           << s.cluster.gpu_count() << " GPUs of the cluster";
        return os.str();
    }
    return {};
}

Scenario default_scenario() {
    Scenario s;
    s.model.name = "Llama 3 8B";
    s.model.layers = 32;
    s.model.hidden = 4096;
    s.model.ffn_hidden = 14336;
    s.model.heads = 32;
    s.model.kv_heads = 8;
    s.model.vocab = 128256;
    s.model.seq_len = 8192;
    s.model.ffn = Ffn::swiglu;
    s.cluster.name = "DGX H100, 8 per node";
    s.cluster.nodes = 8;
    s.cluster.gpus_per_node = 8;
    s.cluster.gpu = GpuSpec{"H100 SXM", 80, 989, 3350, 0.75};
    s.cluster.intra_node = LinkSpec{450, 2};
    s.cluster.inter_node = LinkSpec{50, 5};
    s.parallel.tp = 2;
    s.parallel.pp = 2;
    s.parallel.dp_shard = 8;
    s.parallel.dp_replicate = 2;
    s.parallel.zero = 3;
    s.parallel.sequence_parallel = true;
    s.training.global_batch = 256;
    s.training.micro_batch = 1;
    return s;
}

std::string_view to_string(Ffn v) noexcept { return v == Ffn::gelu ? "gelu" : "swiglu"; }

std::string_view to_string(Schedule v) noexcept {
    switch (v) {
        case Schedule::gpipe: return "gpipe";
        case Schedule::one_f_one_b: return "1f1b";
        case Schedule::interleaved_1f1b: return "interleaved-1f1b";
        case Schedule::zb_h1: return "zb-h1";
        case Schedule::zb_h2: return "zb-h2";
        case Schedule::dualpipe: return "dualpipe";
    }
    return "1f1b";
}

std::string_view to_string(Recompute v) noexcept {
    switch (v) {
        case Recompute::none: return "none";
        case Recompute::selective: return "selective";
        case Recompute::full: return "full";
    }
    return "none";
}

std::string_view to_string(Precision v) noexcept {
    switch (v) {
        case Precision::mixed_bf16: return "mixed-bf16";
        case Precision::fp32: return "fp32";
        case Precision::megatron_bf16: return "megatron-bf16";
    }
    return "mixed-bf16";
}

std::string_view to_string(MeshDim v) noexcept {
    switch (v) {
        case MeshDim::tp: return "tp";
        case MeshDim::cp: return "cp";
        case MeshDim::dp_shard: return "dp_shard";
        case MeshDim::dp_replicate: return "dp_replicate";
        case MeshDim::pp: return "pp";
    }
    return "tp";
}

namespace {
template <typename Enum, size_t N>
std::optional<Enum> lookup(std::string_view s, const std::array<Enum, N>& all) noexcept {
    for (Enum e : all)
        if (to_string(e) == s) return e;
    return std::nullopt;
}
}  // namespace

std::optional<Ffn> ffn_from_string(std::string_view s) noexcept {
    return lookup(s, std::array{Ffn::gelu, Ffn::swiglu});
}
std::optional<Schedule> schedule_from_string(std::string_view s) noexcept {
    return lookup(s, std::array{Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved_1f1b,
                                Schedule::zb_h1, Schedule::zb_h2, Schedule::dualpipe});
}
std::optional<Recompute> recompute_from_string(std::string_view s) noexcept {
    return lookup(s, std::array{Recompute::none, Recompute::selective, Recompute::full});
}
std::optional<Precision> precision_from_string(std::string_view s) noexcept {
    return lookup(s, std::array{Precision::mixed_bf16, Precision::fp32, Precision::megatron_bf16});
}
std::optional<MeshDim> mesh_dim_from_string(std::string_view s) noexcept { return lookup(s, kAllMeshDims); }

}  // namespace shardscope
