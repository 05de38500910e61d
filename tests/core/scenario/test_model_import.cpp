// Hugging Face config.json files (examples/hf/, copied from the published model repositories) read
// into models whose parameter counts match the published totals, and the rules that refuse what
// Shardscope cannot express.
#include "core/model/params.hpp"
#include "core/scenario/model_import.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace shardscope;
namespace fs = std::filesystem;

namespace {

std::string read_example(const std::string& folder) {
    std::ifstream in(fs::path(SHARDSCOPE_SOURCE_DIR) / "examples" / "hf" / folder / "config.json", std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

ModelSpec imported(const std::string& folder, int64_t seq_len) {
    const ModelImport im = import_model(read_example(folder), seq_len, folder);
    REQUIRE_MESSAGE(im.ok(), im.error);
    return *im.model;
}

double billions(double v) { return v / 1e9; }

}  // namespace

TEST_CASE("Llama 3 8B's config.json: 8.03B parameters, GQA with 8 kv heads, the sequence as given") {
    const ModelImport im = import_model(read_example("Meta-Llama-3-8B"), 8192, "Meta-Llama-3-8B");
    REQUIRE_MESSAGE(im.ok(), im.error);
    const ModelSpec& m = *im.model;
    CHECK(m.name == "Meta-Llama-3-8B");
    CHECK(m.layers == 32);
    CHECK(m.hidden == 4096);
    CHECK(m.ffn_hidden == 14336);
    CHECK(m.heads == 32);
    CHECK(m.kv_heads == 8);
    CHECK(m.vocab == 128256);
    CHECK(m.seq_len == 8192);
    CHECK(m.ffn == Ffn::swiglu);
    CHECK_FALSE(m.tie_embeddings);
    CHECK(m.head_dim == 0);  // 4096 / 32 = 128: no override
    CHECK(m.rope_theta == 500000.0);  // the config's rope_theta, for the exports
    // Meta's model card: 8.03B. By hand: embeddings 2 x 128256 x 4096 = 1.0507B; per layer attention
    // 4096 x (4096 + 2 x 1024) + 4096 x 4096 = 41.94M, MLP 3 x 4096 x 14336 = 176.16M, norms 8192:
    // 218.11M x 32 = 6.9796B; final norm 4096: 8.0303B.
    CHECK(billions(count_params(m).total) == doctest::Approx(8.0303).epsilon(0.0005));
    REQUIRE_FALSE(im.notes.empty());
    CHECK(im.notes.front().find("seq_len 8192 as given") != std::string::npos);
    CHECK(im.notes.front().find("max_position_embeddings 8192 is the context window") != std::string::npos);
    CHECK(im.source == "Hugging Face config.json (model_type llama)");
}

TEST_CASE("Mixtral 8x7B's config.json: 46.7B total, 12.9B active (top 2 of 8 experts)") {
    const ModelSpec m = imported("Mixtral-8x7B-v0.1", 4096);
    CHECK(m.experts == 8);
    CHECK(m.top_k == 2);
    CHECK(m.expert_ffn_hidden == 14336);
    CHECK(m.shared_experts == 0);
    CHECK(m.dense_layers == 0);
    CHECK(m.rope_theta == 1e6);
    const ParamCounts c = count_params(m);
    // Mistral AI's announcement: 46.7B total, 12.9B used per token. By hand: per layer attention 41.94M,
    // router 4096 x 8, experts 8 x 176.16M; embeddings 2 x 32000 x 4096 = 262.1M.
    CHECK(billions(c.total) == doctest::Approx(46.70).epsilon(0.003));
    CHECK(billions(c.active_per_token) == doctest::Approx(12.88).epsilon(0.003));
}

TEST_CASE("DeepSeek-V3's config.json: 671B total, 37B active, MLA, 3 dense layers, node-limited routing") {
    const ModelImport im = import_model(read_example("DeepSeek-V3"), 4096, "DeepSeek-V3");
    REQUIRE_MESSAGE(im.ok(), im.error);
    const ModelSpec& m = *im.model;
    CHECK(m.is_mla());
    CHECK(m.q_lora_rank == 1536);
    CHECK(m.kv_lora_rank == 512);
    CHECK(m.qk_rope_head_dim == 64);
    CHECK(m.qk_nope_head_dim == 128);
    CHECK(m.v_head_dim == 128);
    CHECK(m.experts == 256);
    CHECK(m.top_k == 8);
    CHECK(m.expert_ffn_hidden == 2048);
    CHECK(m.shared_experts == 1);
    CHECK(m.dense_layers == 3);
    CHECK(m.expert_groups == 8);
    CHECK(m.expert_groups_per_token == 4);
    CHECK(m.mtp_layers == 1);
    // The technical report's abstract: 671B total, 37B activated, the MTP module left out.
    ModelSpec main_model = m;
    main_model.mtp_layers = 0;
    const ParamCounts c = count_params(main_model);
    CHECK(billions(c.total) == doctest::Approx(671.0).epsilon(0.005));
    CHECK(billions(c.active_per_token) == doctest::Approx(37.0).epsilon(0.02));
    // The MTP module by hand: an MoE block (MLA 187,107,328 + norms 14,336 + routed 256 x 3 x 7168 x
    // 2048 = 11,274,289,152 + shared 44,040,192 + router 1,835,008) and its norms and projection
    // (3 x 7168 + 2 x 7168^2 = 102,781,952): 11,610,067,968. With its own copies of the embedding and
    // head (2 x 926,679,040) that is the 13.5B the released checkpoint's "14B MTP" rounds.
    CHECK(count_params(m).total - c.total == 11610067968.0);
    // What the model leaves out is said, not dropped.
    bool mtp = false, quant = false;
    for (const std::string& n : im.notes) {
        mtp = mtp || n.find("num_nextn_predict_layers 1") != std::string::npos;
        quant = quant || n.find("quantization_config") != std::string::npos;
    }
    CHECK(mtp);
    CHECK(quant);
}

TEST_CASE("Qwen3's configs: head_dim wider than hidden / heads, and a 128-expert MoE") {
    const ModelSpec dense = imported("Qwen3-8B", 4096);
    CHECK(dense.head_dim == 0);  // 4096 / 32 is 128 already: no override needed
    CHECK(billions(count_params(dense).total) == doctest::Approx(8.19).epsilon(0.005));  // Qwen3-8B: 8.2B
    const ModelSpec moe = imported("Qwen3-30B-A3B", 4096);
    CHECK(moe.head_dim == 128);  // 2048 / 32 = 64: the config's 128 is kept
    CHECK(moe.experts == 128);
    CHECK(moe.top_k == 8);
    CHECK(moe.expert_ffn_hidden == 768);
    const ParamCounts c = count_params(moe);
    // Qwen3 technical report, table 2: 30.5B total, 3.3B activated.
    CHECK(billions(c.total) == doctest::Approx(30.5).epsilon(0.01));
    CHECK(billions(c.active_per_token) == doctest::Approx(3.3).epsilon(0.03));
}

TEST_CASE("A sliding window shorter than the sequence is refused by name; one at least as long is full attention") {
    const std::string mistral = read_example("Mistral-7B-v0.1");
    const ModelImport long_seq = import_model(mistral, 8192);
    CHECK_FALSE(long_seq.ok());
    CHECK(long_seq.error ==
          "sliding_window: 4096 is shorter than the sequence length 8192: Shardscope prices full causal attention and "
          "cannot express a sliding window");
    const ModelImport short_seq = import_model(mistral, 4096);
    REQUIRE_MESSAGE(short_seq.ok(), short_seq.error);
    CHECK(billions(count_params(*short_seq.model).total) == doctest::Approx(7.24).epsilon(0.002));  // Mistral 7B: 7.24B
}

TEST_CASE("A Hugging Face config needs the training length: max_position_embeddings is the context window") {
    const ModelImport im = import_model(read_example("Meta-Llama-3-8B"), std::nullopt);
    CHECK_FALSE(im.ok());
    CHECK(im.error == "seq_len: a Hugging Face config gives max_position_embeddings (8192), the longest context the model "
                      "takes, not the length it trains at: give the sequence length (--seq-len N)");
    const ModelImport beyond = import_model(read_example("Meta-Llama-3-8B"), 16384);
    REQUIRE(beyond.ok());
    CHECK(beyond.notes.back() == "seq_len 16384 is beyond the model's context window (8192)");
}

TEST_CASE("Fields Shardscope cannot read are named with their rule") {
    CHECK(import_model(R"({"model_type": "gemma2", "hidden_size": 8})", 4096).error ==
          "model_type: \"gemma2\" is not one Shardscope reads (llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, "
          "qwen3_moe, deepseek_v3)");
    CHECK(import_model(R"({"model_type": "llama", "hidden_act": "gelu"})", 4096).error ==
          "hidden_act: \"gelu\": Shardscope prices these architectures' gated MLP with SiLU (SwiGLU) only");
    CHECK(import_model(R"({"model_type": "llama", "num_hidden_layers": 2})", 4096).error ==
          "hidden_size: is required for this model_type");
    CHECK(import_model(R"({"model_type": "llama", "num_hidden_layers": -2})", 4096).error ==
          "num_hidden_layers: must be a whole number, at least 1");
    CHECK(import_model(R"({"model_type": "qwen3_moe", "num_hidden_layers": 4, "hidden_size": 64, "intermediate_size": 128,
                           "num_attention_heads": 4, "vocab_size": 100, "num_experts": 4, "num_experts_per_tok": 2,
                           "moe_intermediate_size": 32, "decoder_sparse_step": 2})",
                       4096)
              .error == "decoder_sparse_step: must be 1: Shardscope expresses a model whose every layer after the dense "
                        "leading ones is MoE");
    // A config the model rules reject: 5 kv heads do not divide 4 heads.
    const ModelImport bad = import_model(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
                                             "intermediate_size": 128, "num_attention_heads": 4,
                                             "num_key_value_heads": 5, "vocab_size": 100})",
                                         128);
    CHECK_FALSE(bad.ok());
    CHECK(bad.error.rfind("as read from the Hugging Face config, model.kv_heads", 0) == 0);
    CHECK(import_model(R"({"hello": 1})", 4096).error ==
          "(document): neither a Shardscope model preset (\"schema\": \"shardscope.model-preset/1\") nor a Hugging "
          "Face config.json (\"model_type\")");
    CHECK(import_model("[1, 2]", 4096).error == "(document): must be an object");
}

TEST_CASE("Qwen's dense leading layers and shared expert width are read exactly or refused") {
    const std::string base = R"({"model_type": "qwen2_moe", "num_hidden_layers": 4, "hidden_size": 64,
        "intermediate_size": 128, "num_attention_heads": 4, "vocab_size": 100, "num_experts": 4,
        "num_experts_per_tok": 2, "moe_intermediate_size": 32, )";
    const ModelImport ok = import_model(base + R"("shared_expert_intermediate_size": 128, "mlp_only_layers": [0, 1]})", 512);
    REQUIRE_MESSAGE(ok.ok(), ok.error);
    CHECK(ok.model->shared_experts == 4);  // 128 / 32
    CHECK(ok.model->dense_layers == 2);
    CHECK(import_model(base + R"("shared_expert_intermediate_size": 100})", 512).error ==
          "shared_expert_intermediate_size: 100 is not a whole number of experts of moe_intermediate_size 32");
    CHECK(import_model(base + R"("mlp_only_layers": [1]})", 512).error ==
          "mlp_only_layers: must list the first layers in order (0, 1, ...): Shardscope expresses dense leading layers only");
}

TEST_CASE("A Shardscope model preset comes through as it is, with a sequence length replaced when given") {
    std::ifstream in(fs::path(SHARDSCOPE_SOURCE_DIR) / "assets" / "models" / "mixtral-8x7b.json");
    std::ostringstream os;
    os << in.rdbuf();
    const ModelImport as_is = import_model(os.str(), std::nullopt);
    REQUIRE_MESSAGE(as_is.ok(), as_is.error);
    CHECK(as_is.model->experts == 8);
    CHECK_FALSE(as_is.source.empty());
    const ModelImport longer = import_model(os.str(), 32768);
    REQUIRE(longer.ok());
    CHECK(longer.model->seq_len == 32768);
    CHECK(longer.notes.front().rfind("seq_len 32768 as given (the preset says ", 0) == 0);
}

TEST_CASE("A config's name comes from the folder it sits in, as on the Hub") {
    CHECK(model_name_from_path("/models/Meta-Llama-3-8B/config.json") == "Meta-Llama-3-8B");
    CHECK(model_name_from_path("Mixtral-8x7B-v0.1/config.json") == "Mixtral-8x7B-v0.1");
    CHECK(model_name_from_path("config.json") == "config");
    CHECK(model_name_from_path("/tmp/my-model.json") == "my-model");
}

TEST_CASE("What a file is, before importing it: a Hugging Face config with its context window, a preset, neither") {
    const ModelFileInfo hf = model_file_info(read_example("Mixtral-8x7B-v0.1"));
    CHECK(hf.model);
    CHECK(hf.hugging_face);
    CHECK(hf.context_window == 32768);  // the config's max_position_embeddings
    std::ifstream in(fs::path(SHARDSCOPE_SOURCE_DIR) / "assets" / "models" / "mixtral-8x7b.json");
    std::ostringstream preset;
    preset << in.rdbuf();
    const ModelFileInfo p = model_file_info(preset.str());
    CHECK(p.model);
    CHECK_FALSE(p.hugging_face);
    CHECK(p.context_window == 0);
    const ModelFileInfo scenario = model_file_info(scenario_to_json(default_scenario()));
    CHECK_FALSE(scenario.model);
    CHECK_FALSE(model_file_info("not json").model);
}
