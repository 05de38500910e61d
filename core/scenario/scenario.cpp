#include "core/scenario/scenario.hpp"
#include "core/scenario/scenario_json.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

namespace shardscope {
namespace detail {

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
    m.ffn = r.enum_field<Ffn>("ffn", &ffn_from_string, "gelu, swiglu, squared-relu", Ffn::swiglu);
    m.experts = r.int_field("experts", 0);
    m.top_k = r.int_field("top_k", 0);
    m.expert_ffn_hidden = r.int_field("expert_ffn_hidden", 0);
    m.shared_experts = r.int_field("shared_experts", 0);
    m.dense_layers = r.int_field("dense_layers", 0);
    m.tie_embeddings = r.bool_field("tie_embeddings", false);
    m.mtp_layers = r.int_field("mtp_layers", 0);
    if (r.has("dropout")) m.dropout = r.bool_field("dropout");
    m.head_dim = r.int_field("head_dim", 0);
    m.capacity_factor = r.number_field("capacity_factor", 0.0);
    m.rope_theta = r.number_field("rope_theta", 0.0);
    m.expert_groups = r.int_field("expert_groups", 0);
    m.expert_groups_per_token = r.int_field("expert_groups_per_token", 0);
    m.attention_type = r.enum_field<AttentionType>("attention_type", &attention_type_from_string, "gqa, mla",
                                                   AttentionType::gqa);
    m.q_lora_rank = r.int_field("q_lora_rank", 0);
    m.kv_lora_rank = r.int_field("kv_lora_rank", 0);
    m.qk_rope_head_dim = r.int_field("qk_rope_head_dim", 0);
    m.qk_nope_head_dim = r.int_field("qk_nope_head_dim", 0);
    m.v_head_dim = r.int_field("v_head_dim", 0);
    r.reject_unknown();
    return m;
}

static LinkSpec read_link(const Json& j, const std::string& path) {
    ObjectReader r(j, path);
    LinkSpec l;
    l.bandwidth_gbps = r.number_field("bandwidth_gbps");
    l.latency_us = r.number_field("latency_us");
    // Only a link that leaves the node has NICs.
    if (path == "cluster.inter_node") l.nics_per_node = r.int_field("nics_per_node", 0);
    r.reject_unknown();
    return l;
}

static GpuSpec read_gpu(const Json& j) {
    ObjectReader r(j, "cluster.gpu");
    GpuSpec g;
    g.name = r.string_field("name", std::string("GPU"));
    g.memory_gb = r.number_field("memory_gb");
    g.peak_tflops = r.number_field("peak_tflops");
    g.hbm_gbps = r.number_field("hbm_gbps", GpuSpec{}.hbm_gbps);
    g.matmul_efficiency = r.optional_number("matmul_efficiency");
    g.peak_fp8_tflops = r.number_field("peak_fp8_tflops", 0.0);
    if (r.has("sm_count")) g.sm_count = r.int_field("sm_count");
    g.memory_mib = r.optional_number("memory_mib");
    g.reserve_gib = r.optional_number("reserve_gib");
    g.speed_spread = r.optional_number("speed_spread");
    g.board_power_w = r.optional_number("board_power_w");
    r.reject_unknown();
    return g;
}

static HostSpec read_host(const Json& j) {
    ObjectReader r(j, "cluster.host");
    HostSpec h;
    h.memory_gb = r.optional_number("memory_gb");
    h.link_gbps = r.optional_number("link_gbps");
    if (r.has("cpu_cores")) h.cpu_cores = r.int_field("cpu_cores");
    r.reject_unknown();
    return h;
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
    if (r.has("host")) c.host = read_host(r.required("host"));
    r.reject_unknown();
    return c;
}

}  // namespace detail

namespace {

using namespace detail;

constexpr std::string_view kSchema = "shardscope.scenario/1";

std::vector<Dim> read_order(const Json& j) {
    const std::string path = "parallel.order";
    if (!j.is_array()) fail(path, "must be a list of the dims tp, cp, dp_shard, dp_replicate, pp");
    std::vector<Dim> order;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string item_path = path + "[" + std::to_string(i) + "]";
        if (!j[i].is_string()) fail(item_path, "must be a string");
        const auto d = mesh_dim_from_string(j[i].get<std::string>());
        if (!d) fail(item_path, "\"" + j[i].get<std::string>() + "\" is not one of tp, cp, dp_shard, dp_replicate, pp");
        for (Dim seen : order)
            if (seen == *d) fail(item_path, "\"" + std::string(to_string(*d)) + "\" is listed twice");
        order.push_back(*d);
    }
    if (order.size() != kMeshDims.size())
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
    // Range-checked before the narrowing cast so 4294967296 cannot wrap around to a valid 0.
    const int64_t zero = r.int_field("zero", 0);
    if (zero < 0 || zero > 3) fail(r.path("zero"), std::to_string(zero) + " must be 0, 1, 2 or 3");
    p.zero = static_cast<int>(zero);
    p.sequence_parallel = r.bool_field("sequence_parallel", false);
    p.tp_comm_overlap = r.bool_field("tp_comm_overlap", false);
    p.ep_comm_overlap = r.bool_field("ep_comm_overlap", false);
    p.cp_comm = r.enum_field<CpComm>("cp_comm", &cp_comm_from_string, "ring, all-gather", CpComm::ring);
    if (r.has("zero_impl"))
        p.zero_impl = r.enum_field<ZeroImpl>("zero_impl", &zero_impl_from_string,
                                             "fsdp2, fsdp1, megatron-fsdp, deepspeed, deepspeed-0.3");
    p.embedding_in_pipeline_split = r.bool_field("embedding_in_pipeline_split", false);
    p.loss_in_pipeline_split = r.bool_field("loss_in_pipeline_split", false);
    p.first_stage_layers = r.int_field("first_stage_layers", 0);
    p.last_stage_layers = r.int_field("last_stage_layers", 0);
    if (r.has("order")) p.order = read_order(r.required("order"));
    r.reject_unknown();
    return p;
}

// Ticks the module `name` names; false when it names none.
bool tick_recompute_module(RecomputeModules& m, std::string_view name) {
    for (std::size_t i = 0; i < kRecomputeModuleNames.size(); ++i)
        if (name == kRecomputeModuleNames[i]) {
            m.*kRecomputeModuleFields[i] = true;
            return true;
        }
    return false;
}

RecomputeModules read_recompute_modules(const std::vector<std::string>& names, const std::string& path) {
    RecomputeModules m{false, false, false, false};
    for (const std::string& name : names)
        if (!tick_recompute_module(m, name))
            fail(path, "\"" + name + "\" is not one of core_attn, layernorm, mla_up_proj, moe_act");
    return m;
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
                                          "mixed-bf16, fp32, megatron-bf16, megatron-fp16, fp8",
                                          Precision::mixed_bf16);
    t.attention = r.enum_field<AttentionKernel>("attention", &attention_from_string, "flash, eager",
                                                AttentionKernel::flash);
    t.fused_kernels = r.bool_field("fused_kernels", false);
    if (r.has("recompute_modules")) {
        if (t.recompute != Recompute::selective || !t.fused_kernels)
            fail(r.path("recompute_modules"),
                 "applies to recompute selective with fused_kernels true (Megatron-LM's --recompute-modules); "
                 "without fused kernels selective is torchtitan's op-level policy");
        t.recompute_modules = read_recompute_modules(r.string_list("recompute_modules"), r.path("recompute_modules"));
    }
    t.recompute_method = r.enum_field<RecomputeMethod>("recompute_method", &recompute_method_from_string,
                                                       "uniform, block", RecomputeMethod::uniform);
    t.recompute_num_layers = r.int_field("recompute_num_layers", 1);
    // Megatron-LM asserts the same: a method other than every block on its own needs full granularity.
    const auto needs_full = [&](const char* key) {
        fail(r.path(key), std::string("applies to recompute full (Megatron-LM's --recompute-method and "
                                      "--recompute-num-layers); recompute is ") +
                              std::string(to_string(t.recompute)));
    };
    if (t.recompute != Recompute::full && t.recompute_method != RecomputeMethod::uniform) needs_full("recompute_method");
    if (t.recompute != Recompute::full && t.recompute_num_layers != 1) needs_full("recompute_num_layers");
    t.activation_func_fp8_input_store = r.bool_field("activation_func_fp8_input_store", false);
    if (std::string e = fp8_activation_input_error(t); !e.empty()) throw FieldError{std::move(e)};
    t.fp8_param_gather = r.bool_field("fp8_param_gather", false);
    if (std::string e = fp8_param_gather_error(t); !e.empty()) throw FieldError{std::move(e)};
    t.bf16_adam_moments = r.bool_field("bf16_adam_moments", false);
    t.grad_reduce_in_bf16 = r.bool_field("grad_reduce_in_bf16", false);
    if (std::string e = grad_reduce_in_bf16_error(t); !e.empty()) throw FieldError{std::move(e)};
    t.offload = r.enum_field<Offload>("offload", &offload_from_string, "none, optimizer", Offload::none);
    r.reject_unknown();
    return t;
}

RunSpec read_run(const Json& j) {
    ObjectReader r(j, "run");
    RunSpec run;
    run.tokens = r.number_field("tokens");
    run.checkpoint_write_gbps = r.number_field("checkpoint_write_gbps");
    run.gpu_mtbf_hours = r.optional_number("gpu_mtbf_hours");
    run.restart_minutes = r.optional_number("restart_minutes");
    run.usd_per_gpu_hour = r.optional_number("usd_per_gpu_hour");
    run.pue = r.optional_number("pue");
    r.reject_unknown();
    return run;
}

Scenario read_scenario(const Json& doc) {
    ObjectReader r(doc, "");
    r.expect_schema(kSchema);
    Scenario s;
    s.model = read_model(r.required("model"));
    s.cluster = read_cluster(r.required("cluster"));
    s.parallel = read_parallel(r.required("parallel"));
    s.training = read_training(r.required("training"));
    if (r.has("run")) s.run = read_run(r.required("run"));
    r.reject_unknown();
    return s;
}

Json run_to_json(const RunSpec& run) {
    Json j;
    j["tokens"] = run.tokens;
    j["checkpoint_write_gbps"] = run.checkpoint_write_gbps;
    if (run.gpu_mtbf_hours) j["gpu_mtbf_hours"] = *run.gpu_mtbf_hours;
    if (run.restart_minutes) j["restart_minutes"] = *run.restart_minutes;
    if (run.usd_per_gpu_hour) j["usd_per_gpu_hour"] = *run.usd_per_gpu_hour;
    if (run.pue) j["pue"] = *run.pue;
    return j;
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
    // Written only when set, so files from before these fields existed save back unchanged.
    if (m.tie_embeddings) j["tie_embeddings"] = true;
    if (m.mtp_layers > 0) j["mtp_layers"] = m.mtp_layers;
    if (m.dropout) j["dropout"] = *m.dropout;
    if (m.head_dim > 0) j["head_dim"] = m.head_dim;
    if (m.capacity_factor > 0) j["capacity_factor"] = m.capacity_factor;
    if (m.rope_theta > 0) j["rope_theta"] = m.rope_theta;
    if (m.expert_groups > 0) {
        j["expert_groups"] = m.expert_groups;
        j["expert_groups_per_token"] = m.expert_groups_per_token;
    }
    if (m.is_mla()) {
        j["attention_type"] = to_string(m.attention_type);
        j["q_lora_rank"] = m.q_lora_rank;
        j["kv_lora_rank"] = m.kv_lora_rank;
        j["qk_rope_head_dim"] = m.qk_rope_head_dim;
        j["qk_nope_head_dim"] = m.qk_nope_head_dim;
        j["v_head_dim"] = m.v_head_dim;
    }
    j["params"] = m.params ? Json(*m.params) : Json(nullptr);
    return j;
}

Json link_to_json(const LinkSpec& l) {
    Json j;
    j["bandwidth_gbps"] = l.bandwidth_gbps;
    j["latency_us"] = l.latency_us;
    if (l.nics_per_node > 0) j["nics_per_node"] = l.nics_per_node;
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
    if (c.gpu.matmul_efficiency) g["matmul_efficiency"] = *c.gpu.matmul_efficiency;
    if (c.gpu.peak_fp8_tflops > 0) g["peak_fp8_tflops"] = c.gpu.peak_fp8_tflops;
    if (c.gpu.sm_count) g["sm_count"] = *c.gpu.sm_count;
    if (c.gpu.memory_mib) g["memory_mib"] = *c.gpu.memory_mib;
    if (c.gpu.reserve_gib) g["reserve_gib"] = *c.gpu.reserve_gib;
    if (c.gpu.speed_spread) g["speed_spread"] = *c.gpu.speed_spread;
    if (c.gpu.board_power_w) g["board_power_w"] = *c.gpu.board_power_w;
    j["gpu"] = g;
    j["intra_node"] = link_to_json(c.intra_node);
    j["inter_node"] = link_to_json(c.inter_node);
    Json h = Json::object();
    if (c.host.memory_gb) h["memory_gb"] = *c.host.memory_gb;
    if (c.host.link_gbps) h["link_gbps"] = *c.host.link_gbps;
    if (c.host.cpu_cores) h["cpu_cores"] = *c.host.cpu_cores;
    if (!h.empty()) j["host"] = h;
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
    if (p.ep_comm_overlap) j["ep_comm_overlap"] = true;
    if (p.cp_comm != CpComm::ring) j["cp_comm"] = to_string(p.cp_comm);
    if (p.zero_impl) j["zero_impl"] = to_string(*p.zero_impl);
    if (p.embedding_in_pipeline_split) j["embedding_in_pipeline_split"] = true;
    if (p.loss_in_pipeline_split) j["loss_in_pipeline_split"] = true;
    if (p.first_stage_layers > 0) j["first_stage_layers"] = p.first_stage_layers;
    if (p.last_stage_layers > 0) j["last_stage_layers"] = p.last_stage_layers;
    Json order = Json::array();
    for (Dim d : p.order) order.push_back(to_string(d));
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
    if (t.attention != AttentionKernel::flash) j["attention"] = to_string(t.attention);
    if (t.fused_kernels) j["fused_kernels"] = true;
    if (t.recompute == Recompute::selective && t.fused_kernels && !t.recompute_modules.is_default())
        j["recompute_modules"] = recompute_module_names(t.recompute_modules);
    if (t.recompute == Recompute::full && t.recompute_method != RecomputeMethod::uniform)
        j["recompute_method"] = to_string(t.recompute_method);
    if (t.recompute == Recompute::full && t.recompute_num_layers != 1) j["recompute_num_layers"] = t.recompute_num_layers;
    if (fp8_activation_input_on(t)) j["activation_func_fp8_input_store"] = true;
    if (fp8_param_gather_on(t)) j["fp8_param_gather"] = true;
    if (t.bf16_adam_moments) j["bf16_adam_moments"] = true;
    if (grad_reduce_in_bf16_on(t)) j["grad_reduce_in_bf16"] = true;
    if (t.offload != Offload::none) j["offload"] = to_string(t.offload);
    return j;
}

}  // namespace

namespace {
// One switch for the const and the mutable accessor.
template <typename Spec>
auto& factor_field(Spec& p, Dim d) noexcept {
    switch (d) {
        case Dim::tp: return p.tp;
        case Dim::cp: return p.cp;
        case Dim::ep: return p.ep;
        case Dim::dp_shard: return p.dp_shard;
        case Dim::dp_replicate: return p.dp_replicate;
        case Dim::pp: return p.pp;
    }
    return p.tp;
}
}  // namespace

int64_t& ParallelSpec::factor(Dim d) noexcept { return factor_field(*this, d); }
int64_t ParallelSpec::factor(Dim d) const noexcept { return factor_field(*this, d); }

std::vector<std::string> recompute_module_names(const RecomputeModules& m) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < kRecomputeModuleNames.size(); ++i)
        if (m.*kRecomputeModuleFields[i]) out.emplace_back(kRecomputeModuleNames[i]);
    return out;
}

bool fp8_activation_input_applies(const TrainingSpec& t) noexcept {
    return t.precision == Precision::fp8 && t.fused_kernels;
}

bool fp8_param_gather_applies(const TrainingSpec& t) noexcept { return t.precision == Precision::fp8 && t.fused_kernels; }

std::string fp8_param_gather_error(const TrainingSpec& t) {
    if (!t.fp8_param_gather) return {};
    if (t.precision != Precision::fp8)
        return "training.fp8_param_gather: needs precision fp8 (precision is " + std::string(to_string(t.precision)) + ")";
    if (!t.fused_kernels)
        return "training.fp8_param_gather: Megatron-LM's --fp8-param-gather needs fused_kernels true (Transformer "
               "Engine's FP8 weights; PyTorch's float8 keeps BF16 weights)";
    return {};
}

bool grad_reduce_in_bf16_applies(const TrainingSpec& t) noexcept {
    return t.precision == Precision::megatron_bf16 || t.precision == Precision::fp8;
}

std::string grad_reduce_in_bf16_error(const TrainingSpec& t) {
    if (!t.grad_reduce_in_bf16 || grad_reduce_in_bf16_applies(t)) return {};
    return "training.grad_reduce_in_bf16: needs precision megatron-bf16 or fp8, whose gradients Megatron-LM keeps "
           "in FP32 (precision is " + std::string(to_string(t.precision)) + ")";
}

std::string fp8_activation_input_error(const TrainingSpec& t) {
    if (!t.activation_func_fp8_input_store) return {};
    if (t.precision != Precision::fp8)
        return "training.activation_func_fp8_input_store: needs precision fp8 (precision is " +
               std::string(to_string(t.precision)) + ")";
    if (!t.fused_kernels)
        return "training.activation_func_fp8_input_store: Megatron-LM's --activation-func-fp8-input-store needs "
               "fused_kernels true (PyTorch's float8 keeps the activation's input in bf16)";
    return {};
}

std::optional<RecomputeModules> recompute_modules_from_text(std::string_view text) {
    RecomputeModules m{false, false, false, false};
    if (text == "none") return m;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t plus = std::min(text.find('+', start), text.size());
        if (!tick_recompute_module(m, text.substr(start, plus - start))) return std::nullopt;
        start = plus + 1;
    }
    return m;
}

ScenarioLoad parse_scenario(std::string_view json_text) {
    ScenarioLoad out;
    Scenario s;
    out.error = json_read::first_error([&] { s = read_scenario(json_read::parse_document(json_text)); });
    if (out.error.empty()) out.error = validate_scenario(s);
    if (out.error.empty()) out.scenario = std::move(s);
    return out;
}

std::string scenario_to_json(const Scenario& s) {
    Json j;
    j["schema"] = kSchema;
    j["model"] = model_to_json(s.model);
    j["cluster"] = cluster_to_json(s.cluster);
    j["parallel"] = parallel_to_json(s.parallel);
    j["training"] = training_to_json(s.training);
    if (s.run) j["run"] = run_to_json(*s.run);
    return j.dump(2) + "\n";
}

bool operator==(const Scenario& a, const Scenario& b) { return scenario_to_json(a) == scenario_to_json(b); }

namespace {

// Each check returns the first broken rule as "path: rule", or an empty string.
std::string num(int64_t v) { return std::to_string(v); }
std::string num(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

std::string count_in_range(const std::string& path, int64_t v, int64_t min, int64_t max) {
    if (v < min) return path + ": " + num(v) + (min == 1 ? " must be a positive integer" : " must be at least " + num(min));
    if (v > max) return path + ": " + num(v) + " exceeds the limit of " + num(max);
    return {};
}

std::string positive_number(const std::string& path, double v, double max) {
    if (!std::isfinite(v) || v <= 0) return path + ": " + num(v) + " must be positive";
    if (v > max) return path + ": " + num(v) + " exceeds the limit of " + num(max);
    return {};
}

std::string validate_count_only_model(const ModelSpec& m) {
    if (auto e = positive_number("model.params", *m.params, kMaxParams); !e.empty()) return e;
    // A count of parameters is a count: below one there is no model to train.
    if (*m.params < 1) return "model.params: " + num(*m.params) + " is less than one parameter";
    // A bare count stands in for the architecture; both at once would leave it unclear which to use.
    if (m.layers != 0 || m.hidden != 0)
        return "model.params: a bare parameter count replaces the architecture; set layers and hidden to 0 "
               "or params to null";
    if (m.experts != 0) return "model.experts: a model given only as params has no experts; set it to 0";
    if (m.mtp_layers != 0)
        return "model.mtp_layers: a model given only as params has no blocks to predict with; set it to 0";
    return count_in_range("model.seq_len", m.seq_len, 0, kMaxSeqLen);
}

std::string validate_mla(const ModelSpec& m) {
    const std::pair<const char*, int64_t> widths[] = {{"model.q_lora_rank", m.q_lora_rank},
                                                     {"model.kv_lora_rank", m.kv_lora_rank},
                                                     {"model.qk_rope_head_dim", m.qk_rope_head_dim},
                                                     {"model.qk_nope_head_dim", m.qk_nope_head_dim},
                                                     {"model.v_head_dim", m.v_head_dim}};
    for (const auto& [path, v] : widths) {
        if (auto e = count_in_range(path, v, 0, kMaxHidden); !e.empty()) return e;
        if (!m.is_mla() && v != 0) return std::string(path) + ": " + num(v) + " needs attention_type mla";
    }
    if (!m.is_mla()) return {};
    if (m.kv_lora_rank < 1) return "model.kv_lora_rank: MLA needs a key/value latent rank of at least 1";
    if (m.qk_nope_head_dim + m.qk_rope_head_dim < 1)
        return "model.qk_nope_head_dim: MLA needs a query/key head width (qk_nope_head_dim + qk_rope_head_dim)";
    if (m.v_head_dim < 1) return "model.v_head_dim: MLA needs a value head width of at least 1";
    return {};
}

// Group-limited routing: both fields or neither; the groups split the experts evenly; a token's
// groups are at least one and at most its top_k (each chosen group gives it an expert).
std::string validate_expert_groups(const ModelSpec& m) {
    if (m.expert_groups == 0 && m.expert_groups_per_token == 0) return {};
    if (m.expert_groups < 1 || m.expert_groups > m.experts || m.experts % m.expert_groups != 0)
        return "model.expert_groups: " + num(m.expert_groups) + " must divide experts (" + num(m.experts) + ")";
    if (m.expert_groups_per_token < 1 || m.expert_groups_per_token > std::min(m.expert_groups, m.top_k))
        return "model.expert_groups_per_token: " + num(m.expert_groups_per_token) +
               " must be between 1 and the smaller of expert_groups (" + num(m.expert_groups) + ") and top_k (" +
               num(m.top_k) + ")";
    return {};
}

std::string validate_experts(const ModelSpec& m) {
    if (auto e = count_in_range("model.experts", m.experts, 0, kMaxExperts); !e.empty()) return e;
    if (m.experts == 0) {
        const std::pair<const char*, int64_t> moe_only[] = {{"model.top_k", m.top_k},
                                                           {"model.expert_ffn_hidden", m.expert_ffn_hidden},
                                                           {"model.shared_experts", m.shared_experts},
                                                           {"model.dense_layers", m.dense_layers},
                                                           {"model.expert_groups", m.expert_groups},
                                                           {"model.expert_groups_per_token", m.expert_groups_per_token}};
        for (const auto& [path, v] : moe_only)
            if (v != 0) return std::string(path) + ": " + num(v) + " must be 0 for a dense model (experts is 0)";
        return {};
    }
    if (m.top_k < 1 || m.top_k > m.experts)
        return "model.top_k: " + num(m.top_k) + " must be between 1 and experts (" + num(m.experts) + ")";
    if (auto e = count_in_range("model.expert_ffn_hidden", m.expert_ffn_hidden, 1, kMaxFfnHidden); !e.empty())
        return e;
    if (auto e = count_in_range("model.shared_experts", m.shared_experts, 0, kMaxExperts); !e.empty()) return e;
    if (m.dense_layers < 0 || m.dense_layers >= m.layers)
        return "model.dense_layers: " + num(m.dense_layers) + " must be between 0 and layers - 1 (" +
               num(m.layers - 1) + ")";
    return validate_expert_groups(m);
}

}  // namespace

std::string validate_model(const ModelSpec& m) {
    if (m.params) return validate_count_only_model(m);
    const std::tuple<const char*, int64_t, int64_t> sizes[] = {
        {"model.layers", m.layers, kMaxLayers},  {"model.hidden", m.hidden, kMaxHidden},
        {"model.heads", m.heads, kMaxHidden},    {"model.kv_heads", m.kv_heads, kMaxHidden},
        {"model.vocab", m.vocab, kMaxVocab},     {"model.seq_len", m.seq_len, kMaxSeqLen}};
    for (const auto& [path, v, max] : sizes)
        if (auto e = count_in_range(path, v, 1, max); !e.empty()) return e;
    // ffn_hidden sizes the dense FFN; an MoE model whose every layer is MoE never uses it.
    const bool has_dense_ffn = m.experts == 0 || m.dense_layers > 0;
    if (auto e = count_in_range("model.ffn_hidden", m.ffn_hidden, has_dense_ffn ? 1 : 0, kMaxFfnHidden); !e.empty())
        return e;
    if (m.hidden % m.heads != 0)
        return "model.hidden: " + num(m.hidden) + " is not divisible by heads (" + num(m.heads) + ")";
    // kv_heads need not divide heads: a parameter-equivalent stand-in (DeepSeek-V3's MLA as 96 KV
    // heads) is allowed, but more KV heads than query heads is not attention.
    if (m.kv_heads > m.heads)
        return "model.kv_heads: " + num(m.kv_heads) + " exceeds heads (" + num(m.heads) + ")";
    if (auto e = count_in_range("model.head_dim", m.head_dim, 0, kMaxHidden); !e.empty()) return e;
    if (!std::isfinite(m.capacity_factor) || m.capacity_factor < 0 || m.capacity_factor > 64)
        return "model.capacity_factor: " + num(m.capacity_factor) + " must be 0 (dropless) or a factor up to 64";
    if (!std::isfinite(m.rope_theta) || m.rope_theta < 0 || m.rope_theta > kMaxRopeTheta)
        return "model.rope_theta: " + num(m.rope_theta) + " must be 0 (not stated) or a positive base up to " +
               num(kMaxRopeTheta);
    if (m.capacity_factor > 0 && m.experts == 0)
        return "model.capacity_factor: " + num(m.capacity_factor) + " needs an MoE model (experts is 0)";
    if (m.mtp_layers < 0 || m.mtp_layers > m.layers)
        return "model.mtp_layers: " + num(m.mtp_layers) + " must be between 0 and layers (" + num(m.layers) + ")";
    if (auto e = validate_mla(m); !e.empty()) return e;
    return validate_experts(m);
}

namespace {

std::string validate_link(const std::string& path, const LinkSpec& l) {
    if (auto e = positive_number(path + ".bandwidth_gbps", l.bandwidth_gbps, kMaxBandwidthGbps); !e.empty()) return e;
    if (!std::isfinite(l.latency_us) || l.latency_us < 0)
        return path + ".latency_us: " + num(l.latency_us) + " must be zero or positive";
    if (l.latency_us > kMaxLatencyUs)
        return path + ".latency_us: " + num(l.latency_us) + " exceeds the limit of " + num(kMaxLatencyUs);
    return {};
}

}  // namespace

std::string validate_cluster(const ClusterSpec& c) {
    if (auto e = count_in_range("cluster.nodes", c.nodes, 1, kMaxGpus); !e.empty()) return e;
    if (auto e = count_in_range("cluster.gpus_per_node", c.gpus_per_node, 1, kMaxGpus); !e.empty()) return e;
    if (c.nodes * c.gpus_per_node > kMaxGpus)  // both <= 2^20: the product fits
        return "cluster.nodes: " + num(c.nodes) + " nodes x " + num(c.gpus_per_node) + " GPUs = " +
               num(c.nodes * c.gpus_per_node) + " GPUs exceeds the limit of " + num(kMaxGpus);
    const GpuSpec& g = c.gpu;
    if (auto e = positive_number("cluster.gpu.memory_gb", g.memory_gb, kMaxMemoryGb); !e.empty()) return e;
    if (auto e = positive_number("cluster.gpu.peak_tflops", g.peak_tflops, kMaxPeakTflops); !e.empty()) return e;
    if (auto e = positive_number("cluster.gpu.hbm_gbps", g.hbm_gbps, kMaxBandwidthGbps); !e.empty()) return e;
    if (g.matmul_efficiency && !(*g.matmul_efficiency > 0 && *g.matmul_efficiency <= 1))
        return "cluster.gpu.matmul_efficiency: " + num(*g.matmul_efficiency) + " must be in (0, 1]";
    if (g.peak_fp8_tflops != 0)
        if (auto e = positive_number("cluster.gpu.peak_fp8_tflops", g.peak_fp8_tflops, kMaxPeakTflops); !e.empty())
            return e;
    if (g.sm_count)
        if (auto e = count_in_range("cluster.gpu.sm_count", *g.sm_count, 1, 65536); !e.empty()) return e;
    if (g.memory_mib)
        if (auto e = positive_number("cluster.gpu.memory_mib", *g.memory_mib, kMaxMemoryGb * 1024); !e.empty())
            return e;
    if (g.reserve_gib && (!std::isfinite(*g.reserve_gib) || *g.reserve_gib < 0 || *g.reserve_gib > kMaxMemoryGb))
        return "cluster.gpu.reserve_gib: " + num(*g.reserve_gib) + " must be zero or positive, at most " +
               num(kMaxMemoryGb);
    if (g.board_power_w)
        if (auto e = positive_number("cluster.gpu.board_power_w", *g.board_power_w, 1e5); !e.empty()) return e;
    if (g.speed_spread && !(*g.speed_spread >= 0 && *g.speed_spread <= kMaxSpeedSpread))
        return "cluster.gpu.speed_spread: " + num(*g.speed_spread) + " must be between 0 and " + num(kMaxSpeedSpread) +
               " (a standard deviation over the median card's speed)";
    if (auto e = count_in_range("cluster.inter_node.nics_per_node", c.inter_node.nics_per_node, 0, kMaxGpus);
        !e.empty())
        return e;
    if (c.host.memory_gb)
        if (auto e = positive_number("cluster.host.memory_gb", *c.host.memory_gb, kMaxMemoryGb); !e.empty()) return e;
    if (c.host.link_gbps)
        if (auto e = positive_number("cluster.host.link_gbps", *c.host.link_gbps, kMaxBandwidthGbps); !e.empty())
            return e;
    if (c.host.cpu_cores)
        if (auto e = count_in_range("cluster.host.cpu_cores", *c.host.cpu_cores, 1, kMaxGpus * 1024); !e.empty())
            return e;
    if (auto e = validate_link("cluster.intra_node", c.intra_node); !e.empty()) return e;
    return validate_link("cluster.inter_node", c.inter_node);
}

namespace {

std::string validate_order(const std::vector<Dim>& order) {
    bool seen[kMeshDims.size()] = {};
    for (Dim d : order) {
        const auto i = mesh_axis(d);
        if (i >= kMeshDims.size() || seen[i]) break;
        seen[i] = true;
    }
    for (bool b : seen)
        if (!b || order.size() != kMeshDims.size())
            return "parallel.order: must list each of tp, cp, dp_shard, dp_replicate, pp exactly once";
    return {};
}

// tp*cp*pp*dp_shard*dp_replicate, or 0 when it exceeds the GPU count (five factors of up to 2^20 each
// would overflow int64, so the product stops growing once it is too big to divide anything).
int64_t mesh_product(const ParallelSpec& p, int64_t gpus) {
    int64_t product = 1;
    for (Dim d : kMeshDims) {
        product *= p.factor(d);
        if (product > gpus) return 0;
    }
    return product;
}

// Uneven ends leave at least one layer for each stage between them.
std::string validate_stage_split(const Scenario& s) {
    const ParallelSpec& p = s.parallel;
    const std::pair<const char*, int64_t> ends[] = {{"parallel.first_stage_layers", p.first_stage_layers},
                                                   {"parallel.last_stage_layers", p.last_stage_layers}};
    for (const auto& [path, v] : ends) {
        if (auto e = count_in_range(path, v, 0, kMaxLayers); !e.empty()) return e;
        if (v > 0 && p.pp < 2) return std::string(path) + ": " + num(v) + " needs pp > 1 (pp is " + num(p.pp) + ")";
    }
    if (!s.model.has_architecture() || (p.first_stage_layers == 0 && p.last_stage_layers == 0)) return {};
    const int64_t fixed_stages = (p.first_stage_layers > 0) + (p.last_stage_layers > 0);
    const int64_t rest = s.model.layers - p.first_stage_layers - p.last_stage_layers;
    const int64_t rest_stages = p.pp - fixed_stages;
    if (rest < rest_stages || (rest_stages == 0 && rest != 0))
        return "parallel.first_stage_layers: first (" + num(p.first_stage_layers) + ") and last (" +
               num(p.last_stage_layers) + ") stage layers leave " + num(rest) + " layers for the other " +
               num(rest_stages) + " stages; each needs a whole layer and every layer a stage";
    return {};
}

std::string validate_parallel(const Scenario& s) {
    const ParallelSpec& p = s.parallel;
    const ModelSpec& m = s.model;
    const std::pair<const char*, int64_t> factors[] = {{"parallel.tp", p.tp}, {"parallel.cp", p.cp},
                                                      {"parallel.pp", p.pp}, {"parallel.dp_shard", p.dp_shard},
                                                      {"parallel.dp_replicate", p.dp_replicate}, {"parallel.ep", p.ep}};
    for (const auto& [path, v] : factors)
        if (auto e = count_in_range(path, v, 1, kMaxGpus); !e.empty()) return e;
    if (p.zero < 0 || p.zero > 3) return "parallel.zero: " + num(int64_t{p.zero}) + " must be 0, 1, 2 or 3";
    if (p.zero == 0 && p.dp_shard > 1)
        return "parallel.zero: 0 shards nothing, but dp_shard is " + num(p.dp_shard) +
               "; use zero 1-3 or dp_shard 1";
    if (auto e = validate_order(p.order); !e.empty()) return e;

    const int64_t gpus = s.cluster.gpu_count();
    const int64_t product = mesh_product(p, gpus);
    if (product == 0 || gpus % product != 0) {
        std::ostringstream os;
        os << "parallel: tp*cp*pp*dp_shard*dp_replicate = " << p.tp << "*" << p.cp << "*" << p.pp << "*"
           << p.dp_shard << "*" << p.dp_replicate;
        // The product is the GPUs one copy of the layout takes: said, as the rule is about it (in
        // floating point: factors up to the GPU limit would overflow a whole number).
        const double copy = static_cast<double>(p.tp) * static_cast<double>(p.cp) * static_cast<double>(p.pp) *
                            static_cast<double>(p.dp_shard) * static_cast<double>(p.dp_replicate);
        const bool sayable = copy < 1e15;
        if (sayable) os << " = " << static_cast<int64_t>(copy) << " GPUs a copy, which";
        os << " does not divide the " << gpus << " GPUs of the cluster";
        if (sayable)
            os << " (" << s.cluster.nodes << " x " << s.cluster.gpus_per_node << "): the cluster needs a multiple of "
               << static_cast<int64_t>(copy) << " GPUs, or the layout fewer";
        return os.str();
    }
    if (m.has_architecture()) {
        if (m.heads % p.tp != 0) return "parallel.tp: " + num(p.tp) + " does not divide heads (" + num(m.heads) + ")";
        if (m.kv_heads % p.tp != 0)
            return "parallel.tp: " + num(p.tp) + " does not divide kv_heads (" + num(m.kv_heads) + ")";
        // Stages take whole layers (unevenly when they must), so only more stages than layers is wrong.
        if (p.pp > m.layers)
            return "parallel.pp: " + num(p.pp) + " exceeds layers (" + num(m.layers) + "); every stage needs a whole layer";
    }
    if (auto e = validate_stage_split(s); !e.empty()) return e;
    if (m.seq_len > 0 && m.seq_len % p.cp != 0)
        return "parallel.cp: " + num(p.cp) + " does not divide seq_len (" + num(m.seq_len) + ")";
    // Sequence parallelism splits each context-parallel rank's tokens over the tensor-parallel ranks:
    // Megatron-LM's scatter and reduce-scatter along the sequence assert that tp divides them
    // (megatron/core/tensor_parallel/mappings.py, "First dimension of the tensor should be divisible
    // by tensor parallel size").
    if (p.sequence_parallel && p.tp > 1 && m.seq_len > 0 && (m.seq_len / p.cp) % p.tp != 0)
        return "parallel.sequence_parallel: tp " + num(p.tp) + " does not divide the " + num(m.seq_len / p.cp) +
               " tokens each context-parallel rank holds (seq_len " + num(m.seq_len) + " / cp " + num(p.cp) +
               "); sequence parallelism splits them over the tensor-parallel ranks";
    if (p.ep > 1) {
        if (!m.is_moe()) return "parallel.ep: " + num(p.ep) + " needs an MoE model (model.experts is 0)";
        if (m.experts % p.ep != 0)
            return "parallel.ep: " + num(p.ep) + " does not divide experts (" + num(m.experts) + ")";
        if ((p.dp_shard * p.cp) % p.ep != 0)
            return "parallel.ep: " + num(p.ep) + " does not divide dp_shard*cp (" + num(p.dp_shard * p.cp) + ")";
    }
    return {};
}

// The limits of the pipeline simulator the step is priced by (kMaxPipelineStages and its neighbours).
std::string validate_pipeline_size(const Scenario& s, int64_t microbatches) {
    const int64_t pp = s.parallel.pp;
    if (pp > kMaxPipelineStages)
        return "parallel.pp: " + num(pp) + " stages exceeds the limit of " + num(kMaxPipelineStages) +
               " the pipeline simulator runs";
    if (microbatches > kMaxMicrobatches)
        return "training.global_batch: " + num(microbatches) + " micro-batches per pipeline exceeds the limit of " +
               num(kMaxMicrobatches) + " the pipeline simulator runs; raise micro_batch or the data-parallel size";
    const int64_t v = s.training.schedule == Schedule::interleaved_1f1b ? s.training.virtual_stages : 1;
    const int64_t ops = 3 * microbatches * pp * v;  // each factor is bounded above: no overflow
    if (ops > kMaxPipelineOps)
        return "training.global_batch: 3 x " + num(microbatches) + " micro-batches x " + num(pp) + " stages" +
               (v > 1 ? " x " + num(v) + " virtual stages" : std::string()) + " = " + num(ops) +
               " pipeline ops exceeds the limit of " + num(kMaxPipelineOps) + " the pipeline simulator runs";
    return {};
}

// Leftover GPUs are extra replicas, and each replica needs its own micro-batches.
int64_t replicas_with_leftovers(const Scenario& s) {
    const ParallelSpec& p = s.parallel;
    return p.product() > 0 ? p.dp_replicate * (s.cluster.gpu_count() / p.product()) : p.dp_replicate;
}

std::string validate_training(const Scenario& s) {
    const TrainingSpec& t = s.training;
    const ParallelSpec& p = s.parallel;
    if (auto e = count_in_range("training.global_batch", t.global_batch, 1, kMaxGlobalBatch); !e.empty()) return e;
    if (auto e = count_in_range("training.micro_batch", t.micro_batch, 1, kMaxGlobalBatch); !e.empty()) return e;
    if (auto e = count_in_range("training.virtual_stages", t.virtual_stages, 1, kMaxLayers); !e.empty()) return e;
    if (auto e = count_in_range("training.recompute_num_layers", t.recompute_num_layers, 1, kMaxLayers); !e.empty())
        return e;
    // Megatron-LM asserts it (arguments.py: "--fp8-param-gather only supported with distributed optimizer,
    // torch fsdp2, megatron fsdp, or inference mode").
    if (fp8_param_gather_on(t) && p.zero == 0)
        return "training.fp8_param_gather: Megatron-LM's --fp8-param-gather needs the distributed optimizer or FSDP "
               "(parallel.zero 1 or more); zero is 0";
    if (std::string e = offload_error(p, t.offload); !e.empty()) return e;

    const int64_t dp_replicate = replicas_with_leftovers(s);
    const int64_t per_microbatch_step = t.micro_batch * p.dp_shard * dp_replicate;
    if (t.global_batch % per_microbatch_step != 0) {
        std::string leftover = dp_replicate != p.dp_replicate ? ", with leftover replicas" : "";
        return "training.global_batch: " + num(t.global_batch) + " does not split into whole micro-batches of " +
               "micro_batch (" + num(t.micro_batch) + ") x dp_shard (" + num(p.dp_shard) + ") x dp_replicate (" +
               num(dp_replicate) + leftover + ") = " + num(per_microbatch_step) + " sequences";
    }
    const int64_t m = t.global_batch / per_microbatch_step;
    if (auto e = validate_pipeline_size(s, m); !e.empty()) return e;

    if (t.schedule != Schedule::interleaved_1f1b && t.virtual_stages != 1)
        return "training.virtual_stages: " + num(t.virtual_stages) + " needs schedule interleaved-1f1b (schedule is " +
               std::string(to_string(t.schedule)) + ")";
    if (t.schedule == Schedule::interleaved_1f1b) {
        if (p.pp < 2) return "training.schedule: interleaved-1f1b needs pp > 1 (pp is " + num(p.pp) + ")";
        if (t.virtual_stages < 2)
            return "training.virtual_stages: " + num(t.virtual_stages) + " must be at least 2 for interleaved-1f1b";
        // The embedding and the loss may be chunks of their own (Llama 3 405B: 126 layers + 2 = 128
        // chunks on 16 stages x 8).
        const int64_t units = s.model.layers + (p.embedding_in_pipeline_split ? 1 : 0) +
                              (p.loss_in_pipeline_split ? 1 : 0);
        if (s.model.has_architecture() && p.pp * t.virtual_stages > units)
            return "training.virtual_stages: pp (" + num(p.pp) + ") x virtual_stages (" + num(t.virtual_stages) +
                   ") = " + num(p.pp * t.virtual_stages) + " model chunks exceeds layers (" + num(units) +
                   (units != s.model.layers ? ", embedding and loss included" : "") +
                   "); every chunk needs a whole layer";
        // Megatron-LM's interleaved schedule (Narayanan et al. 2021) runs micro-batches in groups of pp.
        if (m % p.pp != 0)
            return "training.global_batch: interleaved-1f1b needs the micro-batches per pipeline (" + num(m) +
                   ") to be a multiple of pp (" + num(p.pp) + ")";
    }
    if (t.precision == Precision::fp8 && s.cluster.gpu.peak_fp8_tflops <= 0)
        return "training.precision: fp8 needs cluster.gpu.peak_fp8_tflops (this GPU gives none)";
    if (t.schedule == Schedule::dualpipe) {
        // DeepSeek-V3 report, section 3.2.1, and its reference code: pp even, micro-batches even, >= 2 pp.
        if (p.pp % 2 != 0) return "training.schedule: dualpipe needs an even pp (pp is " + num(p.pp) + ")";
        if (m % 2 != 0 || m < 2 * p.pp)
            return "training.global_batch: dualpipe needs an even number of micro-batches per pipeline, at least "
                   "2 x pp (" + num(2 * p.pp) + "); it is " + num(m);
    }
    return {};
}

}  // namespace

// A run's figures divide by each of these: every one given must be positive (and a PUE at least 1).
std::string validate_run(const RunSpec& run) {
    if (auto e = positive_number("run.tokens", run.tokens, 1e18); !e.empty()) return e;
    if (auto e = positive_number("run.checkpoint_write_gbps", run.checkpoint_write_gbps, 1e9); !e.empty()) return e;
    if (run.gpu_mtbf_hours)
        if (auto e = positive_number("run.gpu_mtbf_hours", *run.gpu_mtbf_hours, 1e12); !e.empty()) return e;
    if (run.restart_minutes && !(std::isfinite(*run.restart_minutes) && *run.restart_minutes >= 0 &&
                                 *run.restart_minutes <= 1e6))
        return "run.restart_minutes: " + num(*run.restart_minutes) + " must be zero or positive, at most 1e+06";
    if (run.usd_per_gpu_hour)
        if (auto e = positive_number("run.usd_per_gpu_hour", *run.usd_per_gpu_hour, 1e6); !e.empty()) return e;
    if (run.pue && !(std::isfinite(*run.pue) && *run.pue >= 1 && *run.pue <= 10))
        return "run.pue: " + num(*run.pue) + " must be between 1 and 10 (a data centre's total power over its IT power)";
    return {};
}

std::string validate_scenario(const Scenario& s) {
    // Order matters: later rules divide by factors that earlier rules proved positive.
    if (auto e = validate_model(s.model); !e.empty()) return e;
    if (auto e = validate_cluster(s.cluster); !e.empty()) return e;
    if (auto e = validate_parallel(s); !e.empty()) return e;
    if (auto e = validate_training(s); !e.empty()) return e;
    return s.run ? validate_run(*s.run) : std::string();
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
    s.model.rope_theta = 500000;  // the Llama 3 8B preset's (assets/models/llama3-8b.json)
    s.cluster.name = "DGX H100, 8 per node";
    s.cluster.nodes = 8;
    s.cluster.gpus_per_node = 8;
    // The shipped DGX H100 preset (assets/clusters/dgx-h100.json): NCCL's measured bus bandwidths.
    s.cluster.gpu = GpuSpec{"H100 SXM", 80, 989, 3350, std::nullopt, 1979};
    s.cluster.intra_node = LinkSpec{370, 2};
    s.cluster.inter_node = LinkSpec{48, 5, 8};
    s.parallel.tp = 2;
    s.parallel.pp = 2;
    s.parallel.dp_shard = 8;
    s.parallel.dp_replicate = 2;
    s.parallel.zero = 3;
    s.parallel.sequence_parallel = true;
    s.training.global_batch = 256;
    s.training.micro_batch = 1;
    // Flash attention (the default kernel) never stores the s x s scores, so no recompute is needed to
    // fit 8K-token sequences.
    s.training.recompute = Recompute::none;
    return s;
}

std::vector<int64_t> valid_micro_batches(const Scenario& s) {
    const int64_t ranks = s.parallel.dp_shard * replicas_with_leftovers(s);
    std::vector<int64_t> sizes;
    if (ranks <= 0 || s.training.global_batch % ranks != 0) return sizes;
    const int64_t per_rank = s.training.global_batch / ranks;
    for (int64_t d = 1; d * d <= per_rank; ++d)
        if (per_rank % d == 0) {
            sizes.push_back(d);
            if (d != per_rank / d) sizes.push_back(per_rank / d);
        }
    std::sort(sizes.begin(), sizes.end());
    return sizes;
}

std::string_view to_string(Ffn v) noexcept {
    switch (v) {
        case Ffn::gelu: return "gelu";
        case Ffn::swiglu: return "swiglu";
        case Ffn::squared_relu: return "squared-relu";
    }
    return "swiglu";
}

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
        case Precision::megatron_fp16: return "megatron-fp16";
        case Precision::fp8: return "fp8";
    }
    return "mixed-bf16";
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
    return lookup(s, std::array{Ffn::gelu, Ffn::swiglu, Ffn::squared_relu});
}
std::optional<Schedule> schedule_from_string(std::string_view s) noexcept {
    return lookup(s, kAllSchedules);
}
std::optional<Recompute> recompute_from_string(std::string_view s) noexcept {
    return lookup(s, kAllRecomputes);
}
std::optional<Precision> precision_from_string(std::string_view s) noexcept {
    return lookup(s, kAllPrecisions);
}
std::string_view to_string(AttentionKernel v) noexcept { return v == AttentionKernel::eager ? "eager" : "flash"; }
std::string_view to_string(AttentionType v) noexcept { return v == AttentionType::mla ? "mla" : "gqa"; }
std::optional<AttentionType> attention_type_from_string(std::string_view s) noexcept {
    return lookup(s, std::array{AttentionType::gqa, AttentionType::mla});
}
std::optional<AttentionKernel> attention_from_string(std::string_view s) noexcept {
    return lookup(s, std::array{AttentionKernel::flash, AttentionKernel::eager});
}

std::string_view to_string(CpComm v) noexcept { return v == CpComm::all_gather ? "all-gather" : "ring"; }

std::optional<CpComm> cp_comm_from_string(std::string_view s) noexcept {
    return lookup(s, std::array{CpComm::ring, CpComm::all_gather});
}

std::string_view to_string(ZeroImpl v) noexcept {
    switch (v) {
        case ZeroImpl::fsdp2: return "fsdp2";
        case ZeroImpl::fsdp1: return "fsdp1";
        case ZeroImpl::megatron_fsdp: return "megatron-fsdp";
        case ZeroImpl::deepspeed: return "deepspeed";
        case ZeroImpl::deepspeed_0_3: return "deepspeed-0.3";
    }
    return "fsdp2";
}

std::string_view to_string(RecomputeMethod v) noexcept { return v == RecomputeMethod::block ? "block" : "uniform"; }

std::optional<RecomputeMethod> recompute_method_from_string(std::string_view s) noexcept {
    return lookup(s, std::array{RecomputeMethod::uniform, RecomputeMethod::block});
}

std::string offload_error(const ParallelSpec& p, Offload offload) {
    // DeepSpeed's offload_optimizer is a ZeRO option (stages 1-3) and Megatron-LM's CPU offload runs
    // inside its distributed optimizer: both offload the shard of the state a rank owns.
    if (offload == Offload::optimizer && p.zero == 0)
        return "training.offload: optimizer offload needs a sharded optimizer (parallel.zero 1, 2 or 3: DeepSpeed's "
               "offload_optimizer, Megatron-LM's --optimizer-cpu-offload with its distributed optimizer); zero is 0";
    return {};
}

std::string_view to_string(Offload v) noexcept { return v == Offload::optimizer ? "optimizer" : "none"; }

std::optional<Offload> offload_from_string(std::string_view s) noexcept {
    return lookup(s, std::array{Offload::none, Offload::optimizer});
}

RecomputedBlocks recomputed_blocks(const TrainingSpec& t, int64_t layers, int64_t chunks) noexcept {
    RecomputedBlocks r;
    if (t.recompute != Recompute::full || layers <= 0) return r;
    const int64_t n = std::max<int64_t>(1, t.recompute_num_layers);
    const int64_t c = std::max<int64_t>(1, std::min(chunks, layers));
    const int64_t per_chunk = layers / c, longer = layers % c;  // chunks of per_chunk or per_chunk + 1
    if (t.recompute_method == RecomputeMethod::block) {
        // The first n blocks of every chunk re-run, each from its own input.
        for (int64_t i = 0; i < c; ++i) r.rerun += std::min(n, per_chunk + (i < longer ? 1 : 0));
        r.checkpoints = r.rerun;
        r.working = r.rerun > 0 ? 1 : 0;
        return r;
    }
    // Groups of n blocks in every chunk, each keeping its first block's input.
    for (int64_t i = 0; i < c; ++i) {
        const int64_t in_chunk = per_chunk + (i < longer ? 1 : 0);
        r.checkpoints += (in_chunk + n - 1) / n;
    }
    r.rerun = layers;
    r.working = std::min(n, per_chunk + (longer > 0 ? 1 : 0));
    return r;
}

std::optional<ZeroImpl> zero_impl_from_string(std::string_view s) noexcept {
    return lookup(s, kAllZeroImpls);
}

ZeroImpl effective_zero_impl(const ParallelSpec& p, bool fused_kernels) noexcept {
    return p.zero_impl.value_or(fused_kernels ? ZeroImpl::megatron_fsdp : ZeroImpl::fsdp2);
}

std::string zero_text(const ParallelSpec& p, bool fused_kernels) {
    const std::string stage = "ZeRO " + std::to_string(p.zero);
    if (p.zero == 0) return stage;
    const int64_t ranks = p.dp_shard * p.cp;
    if (ranks <= 1) return stage + " (shards nothing: dp_shard x cp is 1)";
    std::string out = stage + " over " + std::to_string(ranks) + " ranks";
    if (p.zero == 3) out += " (" + std::string(to_string(effective_zero_impl(p, fused_kernels))) + ")";
    return out;
}

}  // namespace shardscope
