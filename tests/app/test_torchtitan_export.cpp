// The TorchTitan export is loaded as TorchTitan's --module would load it, against its config classes
// at the pinned commit (tests/frameworks/torchtitan/stub: a field that does not exist there raises),
// and passes the rules TorchTitan checks before it trains (check_export.py). Each scenario's degrees,
// batch and pipeline cut come back as priced.

#include "app_runner.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace shardscope::test;
using nlohmann::json;

namespace {

json example(const char* name) {
    std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR) + "/examples/" + name);
    return json::parse(in);
}

struct Loaded {
    int exit_code = -1;
    json config;  // TorchTitan's Trainer.Config as the export built it, with "derived" figures
    std::string export_text;
};

// Exports `scenario` to dir/NAME.py and loads it with the checker; `function` is the job function to
// call ("" for a model outside TorchTitan's registry: apply_layout on a config of one).
Loaded load_export(const json& scenario, const std::string& name, const std::filesystem::path& dir,
                   const std::string& function = "shardscope_job") {
    const auto file = dir / (name + ".json");
    std::ofstream(file) << scenario.dump(2);
    const auto module = dir / (name + ".py");
    Loaded out;
    const RunResult e = run_shardscope("export --to torchtitan --config '" + file.string() + "' -o '" + module.string() + "'", dir);
    REQUIRE(e.exit_code == 0);
    out.export_text = slurp(module);
    const auto result = dir / (name + ".out");
    const int64_t world = scenario["cluster"]["nodes"].get<int64_t>() * scenario["cluster"]["gpus_per_node"].get<int64_t>();
    const std::string cmd = "/usr/bin/python3 '" SHARDSCOPE_SOURCE_DIR "/tests/frameworks/torchtitan/check_export.py' '" +
                            module.string() + "' --world " + std::to_string(world) +
                            (function.empty() ? "" : " --config " + function) + " > '" + result.string() + "' 2> '" +
                            (dir / (name + ".err")).string() + "'";
    out.exit_code = std::system(cmd.c_str());
    if (out.exit_code == 0) out.config = json::parse(slurp(result));
    else MESSAGE(slurp(dir / (name + ".err")));
    return out;
}

}  // namespace

TEST_CASE("TorchTitan export: Llama 3 405B on 16k H100s loads, 16 micro-batches a step, the priced cut of 126 layers") {
    const auto dir = scratch_dir("titan-405b");
    const Loaded l = load_export(example("llama3-405b-16k-h100.json"), "l405", dir);
    REQUIRE(l.exit_code == 0);
    const json& p = l.config["parallelism"];
    CHECK(p["tensor_parallel_degree"] == 8);
    CHECK(p["pipeline_parallel_degree"] == 16);
    CHECK(p["data_parallel_shard_degree"] == 128);
    CHECK(p["pipeline_parallel_schedule"] == "1F1B");
    // Global batch 2048 over dp 128: 16 micro-batches of 1 sequence per step, no accumulation.
    CHECK(p["num_pp_microbatches"] == 16);
    CHECK(l.config["derived"]["gradient_accumulation_steps"] == 1);
    CHECK(l.config["training"]["num_tokens_per_microbatch_per_dp_rank"] == 8192);
    CHECK(l.config["training"]["disable_cuda_graphs"] == true);
    // 126 layers priced as 7 on the end stages, 8 elsewhere (Llama 3's split); TorchTitan alone would
    // give 8 to the first 14 stages and 7 to the last two, so the export names each stage's modules.
    const json& parts = p["module_fqns_per_model_part"];
    REQUIRE(parts.size() == 16);
    CHECK(parts[0].size() == 1 + 7);
    CHECK(parts[1].size() == 8);
    CHECK(parts[15].size() == 7 + 2);
    CHECK(parts[15].back() == "lm_head");
    // Its own Llama 3 405B, rebuilt without float8 since the scenario trains in bf16.
    CHECK(l.config["model_spec"]["flavor"] == "405B");
    CHECK(l.config["model_spec"]["converters"].empty());
    CHECK(l.config["activation_checkpoint"]["type"] == "SelectiveAC.Config");
}

TEST_CASE("TorchTitan export: interleaved 1F1B counts the embedding and the loss, 1 layer a chunk, never 0") {
    // Meta's 405B split: 126 layers + embedding + loss = 128 units on 16 stages x 8 chunks.
    json s = example("llama3-405b-16k-h100.json");
    s["parallel"]["embedding_in_pipeline_split"] = true;
    s["parallel"]["loss_in_pipeline_split"] = true;
    s["training"]["schedule"] = "interleaved-1f1b";
    s["training"]["virtual_stages"] = 8;
    const auto dir = scratch_dir("titan-interleaved");
    const Loaded l = load_export(s, "inter", dir);
    REQUIRE(l.exit_code == 0);
    const json& p = l.config["parallelism"];
    CHECK(p["pipeline_parallel_schedule"] == "Interleaved1F1B");
    CHECK(p["pipeline_parallel_layers_per_stage"] == 1);
    CHECK(p["pipeline_parallel_first_stage_less_layers"] == 1);
    CHECK(p["pipeline_parallel_last_stage_less_layers"] == 1);
    CHECK(l.config["derived"]["stages_per_rank"] == 8);
    // 128 units split evenly: TorchTitan's own cut is the one priced, so no module list.
    CHECK(p["module_fqns_per_model_part"].is_null());
}

TEST_CASE("TorchTitan export: Llama 3 8B, FP8 and async TP without a pipeline: accumulation, compile, float8") {
    json s = example("llama3-8b-64xh100.json");
    s["parallel"]["pp"] = 1;
    s["parallel"]["dp_shard"] = 16;
    s["parallel"]["zero"] = 2;
    s["parallel"]["tp_comm_overlap"] = true;
    s["training"]["precision"] = "fp8";
    s["cluster"]["gpu"]["peak_fp8_tflops"] = 1979.0;  // H100 SXM datasheet, dense FP8
    s["training"]["micro_batch"] = 2;
    s["training"]["recompute"] = "full";
    const auto dir = scratch_dir("titan-fp8");
    const Loaded l = load_export(s, "fp8", dir);
    REQUIRE(l.exit_code == 0);
    const json& p = l.config["parallelism"];
    CHECK(p["fsdp_reshard_after_forward"] == "never");
    CHECK(p["data_parallel_replicate_degree"] == 2);
    // 256 sequences over dp 32 in micro-batches of 2: 4 accumulation steps of 2 x 8192 tokens.
    CHECK(l.config["training"]["num_tokens_per_microbatch_per_dp_rank"] == 2 * 8192);
    CHECK(l.config["derived"]["gradient_accumulation_steps"] == 4);
    CHECK(l.config["training"]["disable_cuda_graphs"] == false);
    CHECK(l.config["compile"]["enable"] == true);
    CHECK(l.config["compile"]["enable_async_tensor_parallel"] == true);
    CHECK(l.config["activation_checkpoint"]["type"] == "FullAC.Config");
    const json& converters = l.config["model_spec"]["converters"];
    REQUIRE(converters.size() == 1);
    CHECK(converters[0]["type"] == "Float8LinearConverter.Config");
    CHECK(converters[0]["filter_fqns"] == json::array({"lm_head"}));
}

TEST_CASE("TorchTitan export: DeepSeek-V3 keeps multi-token prediction only where TorchTitan runs it") {
    const auto dir = scratch_dir("titan-dsv3");
    const RunResult row = run_shardscope("validate --scenario 'DeepSeek-V3 p16 e64 dualpipe'", dir);
    REQUIRE(row.exit_code == 0);
    json s = json::parse(row.out);
    // On 16 stages: TorchTitan's MTP runs with no pipeline, so it is left out and said.
    const Loaded piped = load_export(s, "dsv3pp", dir);
    REQUIRE(piped.exit_code == 0);
    CHECK(piped.config["model_spec"]["num_mtp_layers"] == 0);
    CHECK(piped.export_text.find("NOTE: mtp_layers 1") != std::string::npos);
    CHECK(piped.config["parallelism"]["expert_parallel_degree"] == 64);
    // 3 layers on the first stage and 2 (with the MTP module) on the last, as priced.
    const json& parts = piped.config["parallelism"]["module_fqns_per_model_part"];
    REQUIRE(parts.size() == 16);
    CHECK(parts[0] == json::array({"tok_embeddings", "layers.0", "layers.1", "layers.2"}));
    CHECK(parts[15] == json::array({"layers.59", "layers.60", "norm", "lm_head"}));
    // Without a pipeline: the module and its loss.
    s["parallel"]["pp"] = 1;
    s["parallel"]["dp_shard"] = 2048;
    s["parallel"]["first_stage_layers"] = 0;
    s["parallel"]["last_stage_layers"] = 0;
    s["training"]["schedule"] = "1f1b";
    s["training"]["global_batch"] = 4096;
    const Loaded flat = load_export(s, "dsv3", dir);
    REQUIRE(flat.exit_code == 0);
    CHECK(flat.config["model_spec"]["num_mtp_layers"] == 1);
    CHECK(flat.config["loss"]["type"] == "MTPLoss.Config");
    CHECK(flat.config["training"]["disable_cuda_graphs"] == true);  // ep 64's dispatch syncs with the host
    CHECK(flat.config["model_spec"]["converters"].size() == 2);
}

TEST_CASE("TorchTitan export: a model outside TorchTitan's registry gets apply_layout alone, and the note") {
    json s = example("llama3-8b-64xh100.json");
    s["model"]["name"] = "Llama 3 8B (edited)";
    const auto dir = scratch_dir("titan-edited");
    const Loaded l = load_export(s, "edited", dir, "");
    REQUIRE(l.exit_code == 0);
    CHECK(l.export_text.find("def shardscope_job") == std::string::npos);
    CHECK(l.export_text.find("TorchTitan's registry has no such model") != std::string::npos);
    CHECK(l.config["parallelism"]["pipeline_parallel_degree"] == 2);
    CHECK(l.config["parallelism"]["num_pp_microbatches"] == 16);  // 256 / dp 16
}
