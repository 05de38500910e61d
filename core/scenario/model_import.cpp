#include "core/scenario/model_import.hpp"

#include "core/scenario/json_reader.hpp"
#include "core/scenario/presets.hpp"

#include <algorithm>
#include <cmath>

namespace shardscope {
namespace {

using json_read::Json;
using json_read::fail;

// A Hugging Face config is a flat object of known names; unknown keys are the norm there (tokenizer
// ids, rope settings), so this reader takes what it needs and leaves the rest.
class HfReader {
public:
    explicit HfReader(const Json& j) : json_(j) {}

    [[nodiscard]] bool present(const std::string& key) const { return json_.contains(key) && !json_.at(key).is_null(); }

    [[nodiscard]] int64_t positive(const std::string& key) const {
        if (!present(key)) fail(key, "is required for this model_type");
        return positive_value(key);
    }
    [[nodiscard]] int64_t positive_or(const std::string& key, int64_t fallback) const {
        return present(key) ? positive_value(key) : fallback;
    }
    [[nodiscard]] int64_t count_or(const std::string& key, int64_t fallback) const {
        if (!present(key)) return fallback;
        const Json& v = json_.at(key);
        if (!v.is_number_integer() || v.get<int64_t>() < 0) fail(key, "must be a whole number, 0 or more");
        return v.get<int64_t>();
    }
    [[nodiscard]] bool flag_or(const std::string& key, bool fallback) const {
        if (!present(key)) return fallback;
        const Json& v = json_.at(key);
        if (!v.is_boolean()) fail(key, "must be true or false");
        return v.get<bool>();
    }
    [[nodiscard]] std::string text_or(const std::string& key, const std::string& fallback) const {
        if (!present(key)) return fallback;
        const Json& v = json_.at(key);
        if (!v.is_string()) fail(key, "must be a string");
        return v.get<std::string>();
    }
    [[nodiscard]] double number_or(const std::string& key, double fallback) const {
        if (!present(key)) return fallback;
        const Json& v = json_.at(key);
        if (!v.is_number()) fail(key, "must be a number");
        return v.get<double>();
    }
    [[nodiscard]] const Json& raw(const std::string& key) const { return json_.at(key); }

private:
    [[nodiscard]] int64_t positive_value(const std::string& key) const {
        const Json& v = json_.at(key);
        if (!v.is_number_integer() || v.get<int64_t>() < 1) fail(key, "must be a whole number, at least 1");
        return v.get<int64_t>();
    }
    const Json& json_;
};

const std::vector<std::string> kModelTypes = {"llama",      "mistral", "mixtral",   "qwen2",
                                              "qwen2_moe", "qwen3",   "qwen3_moe", "deepseek_v3"};

std::string model_type_list() {
    std::string out;
    for (const std::string& t : kModelTypes) out += (out.empty() ? "" : ", ") + t;
    return out;
}

// The architecture's own name for an unnamed config: architectures[0] less "ForCausalLM".
std::string architecture_name(const HfReader& r, const std::string& model_type) {
    if (r.present("architectures") && r.raw("architectures").is_array() && !r.raw("architectures").empty() &&
        r.raw("architectures")[0].is_string()) {
        std::string a = r.raw("architectures")[0].get<std::string>();
        const std::string suffix = "ForCausalLM";
        if (a.size() > suffix.size() && a.compare(a.size() - suffix.size(), suffix.size(), suffix) == 0)
            a.resize(a.size() - suffix.size());
        return a;
    }
    return model_type;
}

// Every model type read here gates its MLP with SiLU (SwiGLU's three matrices).
void read_activation(const HfReader& r) {
    const std::string act = r.text_or("hidden_act", "silu");
    if (act != "silu" && act != "swish")
        fail("hidden_act", "\"" + act + "\": Shardscope prices these architectures' gated MLP with SiLU (SwiGLU) only");
}

// A sliding window shorter than the sequence changes attention's cost, which Shardscope prices as full
// causal attention; a window at least as long as the sequence is full attention.
void read_sliding_window(const HfReader& r, const std::string& model_type, int64_t seq_len,
                         std::vector<std::string>& notes) {
    if (!r.present("sliding_window")) return;
    const bool qwen = model_type.rfind("qwen", 0) == 0;
    if (qwen && !r.flag_or("use_sliding_window", false)) return;  // Qwen ships the window switched off
    const int64_t window = r.positive("sliding_window");
    if (window < seq_len)
        fail("sliding_window", std::to_string(window) + " is shorter than the sequence length " +
                                   std::to_string(seq_len) +
                                   ": Shardscope prices full causal attention and cannot express a sliding window");
    notes.push_back("sliding_window " + std::to_string(window) + " is at least the sequence length: full attention");
}

// Qwen's MoE configs may keep some layers dense (mlp_only_layers) or make only every n-th layer MoE
// (decoder_sparse_step): Shardscope expresses dense leading layers only.
int64_t qwen_dense_layers(const HfReader& r) {
    if (r.count_or("decoder_sparse_step", 1) != 1)
        fail("decoder_sparse_step", "must be 1: Shardscope expresses a model whose every layer after the dense leading ones is MoE");
    if (!r.present("mlp_only_layers")) return 0;
    const Json& layers = r.raw("mlp_only_layers");
    if (!layers.is_array()) fail("mlp_only_layers", "must be a list of layer indices");
    for (std::size_t i = 0; i < layers.size(); ++i) {
        if (!layers[i].is_number_integer() || layers[i].get<int64_t>() != static_cast<int64_t>(i))
            fail("mlp_only_layers", "must list the first layers in order (0, 1, ...): Shardscope expresses dense leading layers only");
    }
    return static_cast<int64_t>(layers.size());
}

// Qwen2-MoE's one shared expert is `shared_expert_intermediate_size` wide; Shardscope counts shared
// experts of the routed experts' width.
int64_t qwen_shared_experts(const HfReader& r, int64_t expert_width) {
    const int64_t shared = r.count_or("shared_expert_intermediate_size", 0);
    if (shared == 0) return 0;
    if (shared % expert_width != 0)
        fail("shared_expert_intermediate_size", std::to_string(shared) + " is not a whole number of experts of moe_intermediate_size " +
                                                    std::to_string(expert_width));
    return shared / expert_width;
}

void read_moe(const HfReader& r, const std::string& type, ModelSpec& m, std::vector<std::string>& notes) {
    if (type == "mixtral") {
        m.experts = r.positive("num_local_experts");
        m.top_k = r.positive("num_experts_per_tok");
        m.expert_ffn_hidden = m.ffn_hidden;  // each expert is the dense MLP's width
        return;
    }
    if (type == "qwen2_moe" || type == "qwen3_moe") {
        m.experts = r.positive("num_experts");
        m.top_k = r.positive("num_experts_per_tok");
        m.expert_ffn_hidden = r.positive("moe_intermediate_size");
        m.shared_experts = type == "qwen2_moe" ? qwen_shared_experts(r, m.expert_ffn_hidden) : 0;
        m.dense_layers = qwen_dense_layers(r);
        if (m.shared_experts > 0)
            notes.push_back("the shared expert's one-output gate (hidden_size parameters a layer) is not counted");
        return;
    }
    if (type == "deepseek_v3") {
        m.experts = r.positive("n_routed_experts");
        m.top_k = r.positive("num_experts_per_tok");
        m.expert_ffn_hidden = r.positive("moe_intermediate_size");
        m.shared_experts = r.count_or("n_shared_experts", 0);
        m.dense_layers = r.count_or("first_k_dense_replace", 0);
        m.mtp_layers = r.count_or("num_nextn_predict_layers", 0);
        if (r.count_or("moe_layer_freq", 1) != 1)
            fail("moe_layer_freq", "must be 1: Shardscope expresses a model whose every layer after the dense leading ones is MoE");
        m.expert_groups = r.count_or("n_group", 0);
        m.expert_groups_per_token = r.count_or("topk_group", 0);
        if (m.expert_groups <= 1) m.expert_groups = m.expert_groups_per_token = 0;  // one group: no limit
    }
}

void read_mla(const HfReader& r, ModelSpec& m) {
    m.attention_type = AttentionType::mla;
    m.q_lora_rank = r.count_or("q_lora_rank", 0);  // null: queries projected directly (V2-Lite)
    m.kv_lora_rank = r.positive("kv_lora_rank");
    m.qk_rope_head_dim = r.positive("qk_rope_head_dim");
    m.qk_nope_head_dim = r.positive("qk_nope_head_dim");
    m.v_head_dim = r.positive("v_head_dim");
}

// Fields Shardscope does not price, said aloud so nothing is dropped silently.
void note_unpriced(const HfReader& r, const std::string& type, const ModelSpec& m, std::vector<std::string>& notes) {
    const bool qkv_bias = type == "qwen2" || type == "qwen2_moe" || r.flag_or("attention_bias", false);
    if (qkv_bias) {
        const int64_t width = m.heads * m.attention_head_dim() + 2 * m.kv_heads * m.attention_head_dim();
        notes.push_back("the q, k and v projections' biases (" + std::to_string(width * m.layers) +
                        " parameters) are not counted");
    }
    if (r.flag_or("mlp_bias", false)) notes.push_back("mlp_bias: the MLP's biases are not counted");
    if (type == "qwen3" || type == "qwen3_moe")
        notes.push_back("the per-head q and k norms (2 x head_dim parameters a layer) are not counted");
    if (m.mtp_layers > 0)
        notes.push_back("num_nextn_predict_layers " + std::to_string(m.mtp_layers) +
                        ": priced as that many multi-token prediction modules on the last pipeline stage "
                        "(model.mtp_layers; DeepSeek's 671B total leaves them out)");
    if (r.present("quantization_config"))
        notes.push_back("quantization_config describes how the released weights are stored, not how the model trains: not read");
    if (r.number_or("attention_dropout", 0.0) > 0.0)
        notes.push_back("attention_dropout: dropout on the attention probabilities is not priced (flash attention fuses it)");
}

ModelSpec read_hugging_face(const HfReader& r, int64_t seq_len, const std::string& name, std::vector<std::string>& notes) {
    const std::string type = r.text_or("model_type", "");
    if (type.empty()) fail("model_type", "is required (it says which architecture the config describes)");
    if (std::find(kModelTypes.begin(), kModelTypes.end(), type) == kModelTypes.end())
        fail("model_type", "\"" + type + "\" is not one Shardscope reads (" + model_type_list() + ")");
    read_activation(r);
    ModelSpec m;
    m.name = name.empty() ? architecture_name(r, type) : name;
    m.layers = r.positive("num_hidden_layers");
    m.hidden = r.positive("hidden_size");
    m.ffn_hidden = r.positive("intermediate_size");
    m.heads = r.positive("num_attention_heads");
    m.kv_heads = r.positive_or("num_key_value_heads", m.heads);  // Llama 1 and 2 7B: one kv head a head
    m.vocab = r.positive("vocab_size");
    m.seq_len = seq_len;
    m.ffn = Ffn::swiglu;
    m.tie_embeddings = r.flag_or("tie_word_embeddings", false);  // every class read here defaults to untied
    m.rope_theta = r.number_or("rope_theta", 0.0);
    if (type == "deepseek_v3") {
        read_mla(r, m);
    } else {
        const int64_t head_dim = r.positive_or("head_dim", m.hidden / m.heads);
        if (head_dim * m.heads != m.hidden) m.head_dim = head_dim;
    }
    read_moe(r, type, m, notes);
    read_sliding_window(r, type, seq_len, notes);
    note_unpriced(r, type, m, notes);
    return m;
}

ModelImport import_hugging_face(const Json& doc, std::optional<int64_t> seq_len, const std::string& name) {
    ModelImport out;
    const HfReader r(doc);
    const std::string type = doc.contains("model_type") && doc["model_type"].is_string()
                                 ? doc["model_type"].get<std::string>()
                                 : std::string("?");
    const int64_t context = doc.contains("max_position_embeddings") && doc["max_position_embeddings"].is_number_integer()
                                ? doc["max_position_embeddings"].get<int64_t>()
                                : 0;
    if (!seq_len) {
        out.error = "seq_len: a Hugging Face config gives max_position_embeddings" +
                    (context > 0 ? " (" + std::to_string(context) + ")" : std::string()) +
                    ", the longest context the model takes, not the length it trains at: give the sequence length (--seq-len N)";
        return out;
    }
    ModelSpec m;
    out.error = json_read::first_error([&] { m = read_hugging_face(r, *seq_len, name, out.notes); });
    if (!out.error.empty()) return out;
    out.error = validate_model(m);
    if (!out.error.empty()) {
        out.error = "as read from the Hugging Face config, " + out.error;
        return out;
    }
    out.notes.insert(out.notes.begin(), "seq_len " + std::to_string(*seq_len) + " as given" +
                                            (context > 0 ? " (max_position_embeddings " + std::to_string(context) +
                                                               " is the context window, not the training length)"
                                                         : std::string()));
    if (context > 0 && *seq_len > context)
        out.notes.push_back("seq_len " + std::to_string(*seq_len) + " is beyond the model's context window (" +
                            std::to_string(context) + ")");
    out.source = "Hugging Face config.json (model_type " + type + ")";
    out.model = std::move(m);
    return out;
}

ModelImport import_preset(std::string_view text, std::optional<int64_t> seq_len) {
    ModelImport out;
    ModelPresetLoad load = parse_model_preset(text);
    if (!load.ok()) {
        out.error = load.error;
        return out;
    }
    ModelSpec m = load.preset->model;
    if (seq_len && m.has_architecture()) {
        out.notes.push_back("seq_len " + std::to_string(*seq_len) + " as given (the preset says " +
                            std::to_string(m.seq_len) + ")");
        m.seq_len = *seq_len;
        out.error = validate_model(m);
        if (!out.error.empty()) return out;
    }
    out.source = load.preset->source;
    out.model = std::move(m);
    return out;
}

}  // namespace

const std::vector<std::string>& hugging_face_model_types() { return kModelTypes; }

ModelFileInfo model_file_info(std::string_view json_text) {
    ModelFileInfo info;
    Json doc;
    if (!json_read::first_error([&] { doc = json_read::parse_document(json_text); }).empty() || !doc.is_object())
        return info;
    if (doc.contains("schema")) {
        info.model = doc["schema"] == "shardscope.model-preset/1";
        return info;
    }
    info.model = info.hugging_face = doc.contains("model_type") || doc.contains("architectures");
    if (info.hugging_face && doc.contains("max_position_embeddings") && doc["max_position_embeddings"].is_number_integer())
        info.context_window = doc["max_position_embeddings"].get<int64_t>();
    return info;
}

ModelImport import_model(std::string_view json_text, std::optional<int64_t> seq_len, const std::string& name) {
    Json doc;
    ModelImport out;
    out.error = json_read::first_error([&] { doc = json_read::parse_document(json_text); });
    if (!out.error.empty()) return out;
    if (!doc.is_object()) {
        out.error = "(document): must be an object";
        return out;
    }
    if (doc.contains("schema")) return import_preset(json_text, seq_len);
    if (doc.contains("model_type") || doc.contains("architectures")) return import_hugging_face(doc, seq_len, name);
    out.error = "(document): neither a Shardscope model preset (\"schema\": \"shardscope.model-preset/1\") nor a "
                "Hugging Face config.json (\"model_type\")";
    return out;
}

std::string model_name_from_path(std::string_view path) {
    const auto slash = path.find_last_of('/');
    const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (file == "config.json" && slash != std::string_view::npos && slash > 0) {
        const std::string_view dir = path.substr(0, slash);
        const auto parent = dir.find_last_of('/');
        const std::string_view folder = parent == std::string_view::npos ? dir : dir.substr(parent + 1);
        if (!folder.empty() && folder != "." && folder != "..") return std::string(folder);
    }
    const auto dot = file.find_last_of('.');
    return std::string(dot == std::string_view::npos || dot == 0 ? file : file.substr(0, dot));
}

}  // namespace shardscope
