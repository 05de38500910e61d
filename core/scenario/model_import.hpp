#pragma once
// A model brought in from a file: a Shardscope model preset (assets/models/*.json) or a Hugging Face
// config.json, told apart by their keys ("schema" against "model_type"). Core reads no files: the
// caller hands over the text.
//
// Hugging Face configs are read for the architectures whose cost Shardscope can express exactly:
// Llama (1-3), Mistral, Mixtral, Qwen2 and Qwen3 (dense and MoE) and DeepSeek-V3 (MLA, routed and
// shared experts, dense leading layers, group-limited routing). Their field names are those of the
// `transformers` configuration classes (LlamaConfig, MixtralConfig, Qwen2MoeConfig, Qwen3MoeConfig,
// DeepseekV3Config). A field that changes the cost and that Shardscope cannot express (a sliding
// window shorter than the training length, MoE layers that are not every layer) is an error naming
// it; one that changes nothing Shardscope prices, or only by a rounding (the q/k/v biases, the
// multi-token-prediction head), is named in a note. max_position_embeddings is the context window,
// not the length trained at, so a Hugging Face config needs the sequence length from the caller.

#include "core/scenario/scenario.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct ModelImport {
    std::optional<ModelSpec> model;
    std::string source;              // the preset's citation, or which config was read and how
    std::vector<std::string> notes;  // the sequence length used, fields read loosely or left out
    std::string error;               // "field: rule", as every loader words it
    [[nodiscard]] bool ok() const noexcept { return model.has_value(); }
};

// `seq_len` is required for a Hugging Face config and replaces a preset's own when given. `name`
// names a Hugging Face model (its configs carry none): the caller passes what it knows, e.g. the
// folder the config.json sits in; empty gives the architecture's name.
[[nodiscard]] ModelImport import_model(std::string_view json_text, std::optional<int64_t> seq_len,
                                       const std::string& name = "");

// What kind of model file the text is: whether it is one at all (a model preset or a Hugging Face
// config, not a scenario: how a window told "open this" knows to import a model), whether it is a
// Hugging Face config (which needs a sequence length asked for first), and that config's
// max_position_embeddings (0 when it has none).
struct ModelFileInfo {
    bool model = false;
    bool hugging_face = false;
    int64_t context_window = 0;
};
[[nodiscard]] ModelFileInfo model_file_info(std::string_view json_text);

// The model types import_model reads, as Hugging Face spells them.
[[nodiscard]] const std::vector<std::string>& hugging_face_model_types();

// What a caller offers as a model's name for a config file at `path`: the folder it sits in when the
// file is called config.json (the Hub's layout, e.g. "Meta-Llama-3-8B/config.json"), else its stem.
[[nodiscard]] std::string model_name_from_path(std::string_view path);

}  // namespace shardscope
