#include "core/model/cost_model.hpp"
#include "core/model/params.hpp"
#include "core/model/report.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace shardscope;

namespace {

// docs/design.md's example scenario (Llama 3 405B on 2048 nodes of 8 H100s), as the loader reads it.
const char* kDesignExample = R"({
  "schema": "shardscope.scenario/1",
  "model": {
    "name": "Llama 3 405B",
    "layers": 126, "hidden": 16384, "ffn_hidden": 53248, "heads": 128, "kv_heads": 8,
    "vocab": 128000, "seq_len": 8192, "ffn": "swiglu",
    "experts": 0, "top_k": 0, "expert_ffn_hidden": 0, "shared_experts": 0,
    "params": null
  },
  "cluster": {
    "name": "H100 SXM, 8 per node",
    "nodes": 2048, "gpus_per_node": 8,
    "gpu": { "name": "H100 SXM", "memory_gb": 80, "peak_tflops": 989, "hbm_gbps": 3350 },
    "intra_node": { "bandwidth_gbps": 450, "latency_us": 2.0 },
    "inter_node": { "bandwidth_gbps": 50,  "latency_us": 5.0 }
  },
  "parallel": {
    "tp": 8, "cp": 1, "pp": 16, "dp_shard": 128, "dp_replicate": 1, "ep": 1,
    "zero": 3, "sequence_parallel": true,
    "order": ["tp", "cp", "dp_shard", "dp_replicate", "pp"]
  },
  "training": {
    "global_batch": 2048, "micro_batch": 1,
    "schedule": "1f1b", "virtual_stages": 1,
    "recompute": "none",
    "precision": "mixed-bf16"
  }
})";

void require_keys(const nlohmann::json& j, const std::vector<std::string>& keys) {
    for (const std::string& k : keys) {
        CAPTURE(k);
        CHECK(j.contains(k));
    }
}

}  // namespace

TEST_CASE("report JSON has every field docs/design.md names, in its units") {
    const ReportResult result = report_from_json(kDesignExample);
    REQUIRE_MESSAGE(result.ok(), result.error);
    const nlohmann::json j = nlohmann::json::parse(report_to_json(*result.report));
    require_keys(j, {"schema", "world_size", "leftover_dp_replicate", "params_total", "mesh", "memory_bytes", "fits",
                     "flops", "time_s", "pipeline", "throughput", "notes"});
    CHECK(j["schema"] == "shardscope.report/1");
    require_keys(j["memory_bytes"], {"params", "grads", "optimizer", "activations", "other", "total"});
    require_keys(j["flops"], {"model_per_step", "hardware_per_step"});
    require_keys(j["time_s"], {"compute", "exposed_comm", "bubble", "step"});
    require_keys(j["pipeline"], {"microbatches", "bubble_fraction"});
    require_keys(j["throughput"], {"tokens_per_s", "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu"});
    REQUIRE(j["mesh"]["dims"].is_array());
    REQUIRE(j["mesh"]["dims"].size() == 5);
    for (const auto& d : j["mesh"]["dims"])
        require_keys(d, {"name", "size", "groups", "link", "collective", "bytes_per_step", "time_s"});

    // 2048 nodes * 8 GPUs, and tp*pp*dp_shard = 8*16*128 uses them all.
    CHECK(j["world_size"] == 16384);
    CHECK(j["leftover_dp_replicate"] == 1);
    // TP 8 inside a node: 16384 / 8 = 2048 groups, intra.
    const auto& tp = j["mesh"]["dims"][0];
    CHECK(tp["name"] == "tp");
    CHECK(tp["groups"] == 2048);
    CHECK(tp["link"] == "intra");
    // dp_shard strides 8 ranks: a group of 128 spans 128 nodes.
    CHECK(j["mesh"]["dims"][2]["link"] == "inter");
    // Each dim lists its calls as the report holds them: op, one call's message, calls a step.
    const Report& rep = *result.report;
    for (size_t i = 0; i < rep.dims.size(); ++i) {
        const auto& calls = j["mesh"]["dims"][i]["calls"];
        REQUIRE(calls.size() == rep.dims[i].calls.size());
        for (size_t k = 0; k < calls.size(); ++k) {
            CHECK(calls[k]["op"] == std::string(to_string(rep.dims[i].calls[k].op)));
            CHECK(calls[k]["message_bytes"].get<double>() == rep.dims[i].calls[k].message_bytes);
            CHECK(calls[k]["calls_per_step"].get<double>() == rep.dims[i].calls[k].calls_per_step);
        }
    }
    // TP with SP: an all-gather and a reduce-scatter of one micro-batch's activation.
    REQUIRE(tp["calls"].size() == 2);
    CHECK(tp["calls"][0]["op"] == "all-gather");
    CHECK(tp["calls"][1]["op"] == "reduce-scatter");
    // m = 2048 / (1 * 128 * 1) = 16.
    CHECK(j["pipeline"]["microbatches"] == 16);
    // The total is the sum of its parts.
    const auto& mem = j["memory_bytes"];
    const double sum = mem["params"].get<double>() + mem["grads"].get<double>() + mem["optimizer"].get<double>() +
                       mem["activations"].get<double>() + mem["other"].get<double>() + mem["reserved"].get<double>();
    CHECK(mem["total"].get<double>() == doctest::Approx(sum));
    // The capacity judged against is what an H100 80GB exposes: 81,559 MiB.
    CHECK(mem["capacity"].get<double>() == doctest::Approx(81559.0 * 1024 * 1024));
    // ZeRO-3 over 128 ranks of a TP-8 shard: about 405.8e9 / 16 stages / 8 / 128 * 2 B = 50 MB of weights.
    CHECK(mem["params"].get<double>() == doctest::Approx(405.8e9 / 16 / 8 / 128 * 2).epsilon(0.05));
    // mfu = model_per_step / (step * world * peak).
    const double mfu = j["flops"]["model_per_step"].get<double>() /
                       (j["time_s"]["step"].get<double>() * 16384 * 989e12);
    CHECK(j["throughput"]["mfu"].get<double>() == doctest::Approx(mfu));
}

TEST_CASE("report JSON writes null, not zero, for what a count-only model cannot know") {
    Scenario s = default_scenario();
    s.model = ModelSpec{};
    s.model.params = 70e9;
    const nlohmann::json j = nlohmann::json::parse(report_to_json(build_report(s)));
    CHECK(j["memory_bytes"]["activations"].is_null());
    CHECK(j["flops"]["model_per_step"].is_null());
    CHECK(j["time_s"]["step"].is_null());
    CHECK(j["throughput"]["mfu"].is_null());
    CHECK(j["memory_bytes"]["params"].is_number());
}

TEST_CASE("a rejected scenario gives the loader's error and no report") {
    std::string bad = kDesignExample;
    bad.replace(bad.find("\"tp\": 8"), 7, "\"tp\": 3");
    const ReportResult result = report_from_json(bad);
    CHECK_FALSE(result.ok());
    CHECK(result.error.find("parallel") != std::string::npos);
}

TEST_CASE("leftover GPUs become extra data-parallel replicas, and the report says so") {
    Scenario s = default_scenario();
    // 8 nodes * 8 = 64 GPUs; tp 2 * pp 2 * dp_shard 8 * dp_replicate 1 = 32 leaves a factor 2.
    s.parallel.dp_replicate = 1;
    const Report r = build_report(s);
    CHECK(r.world_size == 64);
    CHECK(r.leftover_dp_replicate == 2);
    bool noted = false;
    for (const auto& n : r.notes) noted = noted || n.find("dp_replicate grows from 1 to 2") != std::string::npos;
    CHECK(noted);
}

namespace {

// The text report's "per stage:" line ("" when it has none).
std::string per_stage_line(const std::string& text) {
    const auto at = text.find("per stage:");
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
}

}  // namespace

TEST_CASE("the text report names the most loaded stage and every dim") {
    const ReportResult result = report_from_json(kDesignExample);
    REQUIRE(result.ok());
    const std::string text = report_to_text(*result.report);
    CHECK(text.find("most loaded: pipeline stage") != std::string::npos);
    for (const char* dim : {"tp x8", "dp_shard x128", "pp x16"}) {
        CAPTURE(dim);
        CHECK(text.find(dim) != std::string::npos);
    }
    CHECK(text.find("MFU") != std::string::npos);
    // Of 16 stages the per-stage line shows the first two, the last two and the most loaded.
    const Report& r = *result.report;
    REQUIRE(r.stages.size() == 16);
    const std::string most = "[" + std::to_string(r.most_loaded_stage) + "] ";
    const std::string line = per_stage_line(text);
    CAPTURE(line);
    CHECK(line.find(most) != std::string::npos);
    CHECK(line.find("[0] ") != std::string::npos);
    CHECK(line.find("[15] ") != std::string::npos);
}

TEST_CASE("the text report's per-stage line never leaves out the stage it calls most loaded") {
    // DeepSeek-V3's 61 layers on 16 stages under DualPipe: a middle stage holds the most.
    Scenario s = default_scenario();
    s.model.layers = 61;
    s.parallel.tp = 1;
    s.parallel.pp = 16;
    s.parallel.dp_shard = 4;
    s.parallel.dp_replicate = 1;
    s.parallel.zero = 1;
    s.training.schedule = Schedule::dualpipe;
    s.training.global_batch = 4 * 32;
    REQUIRE(validate_scenario(s).empty());
    const Report r = build_report(s);
    const std::string line = per_stage_line(report_to_text(r));
    CAPTURE(line);
    CHECK(line.find("[" + std::to_string(r.most_loaded_stage) + "] ") != std::string::npos);
}

TEST_CASE("the report names what a block keeps for its backward") {
    const auto note_of = [](const Report& r) {
        for (const std::string& n : r.notes)
            if (n.rfind("activations:", 0) == 0) return n;
        return std::string();
    };
    Scenario s = default_scenario();  // Llama 3 8B: GQA, SwiGLU, no dropout
    s.training.recompute = Recompute::none;
    const std::string llama = note_of(build_report(s));
    CHECK(llama.find("grouped K and V") != std::string::npos);
    CHECK(llama.find("SwiGLU") != std::string::npos);
    CHECK(llama.find("no dropout masks") != std::string::npos);
    CHECK(llama.find("2 bytes an element") != std::string::npos);
    CHECK(llama.find("no recompute") != std::string::npos);
    s.model.ffn = Ffn::gelu;
    s.model.ffn_hidden = 4 * s.model.hidden;
    s.training.precision = Precision::fp32;
    const std::string gpt = note_of(build_report(s));
    CHECK(gpt.find("GeLU") != std::string::npos);
    CHECK(gpt.find("; dropout masks") != std::string::npos);
    CHECK(gpt.find("4 bytes an element") != std::string::npos);
    CHECK(gpt.find("FP8") == std::string::npos);
    s.training.precision = Precision::fp8;
    CHECK(note_of(build_report(s)).find("inputs as their FP8 copies (1 byte") != std::string::npos);
}

TEST_CASE("the report names the attention kernel it prices and the one fused_kernels would") {
    const auto note_of = [](const Report& r) {
        for (const std::string& n : r.notes)
            if (n.rfind("attention:", 0) == 0) return n;
        return std::string();
    };
    Scenario s = default_scenario();  // Llama 3 8B on H100s, flash attention
    const std::string sdpa = note_of(build_report(s));
    CHECK(sdpa.find("FlashAttention-2 (PyTorch SDPA) at 34% of peak forward and 33% backward") != std::string::npos);
    CHECK(sdpa.find("fused_kernels runs Transformer Engine's instead") != std::string::npos);
    s.training.fused_kernels = true;
    const std::string te = note_of(build_report(s));
    CHECK(te.find("cuDNN fused attention (Transformer Engine) at 54% of peak forward and 52% backward") !=
          std::string::npos);
    // On an A100 both stacks run FlashAttention-2: nothing to point at.
    s.cluster.gpu = GpuSpec{"A100 SXM 80GB", 80, 312, 2039};
    s.training.fused_kernels = false;
    const std::string a100 = note_of(build_report(s));
    CHECK(a100.find("FlashAttention-2 at 70% of peak forward and 60% backward") != std::string::npos);
    CHECK(a100.find("fused_kernels") == std::string::npos);
}

TEST_CASE("FP8 parameters take 2 bytes a block weight off the weights and half the blocks' weight gather") {
    // Llama 3 8B on one node of 8 H100s, FP8 on Megatron-LM's stack, ZeRO-1 over the 8 (NeMo's layout
    // of the weights: each GPU keeps them all, the distributed optimizer gathers the updated ones).
    Scenario s = default_scenario();
    s.cluster.nodes = 1;
    s.parallel.tp = 1;
    s.parallel.pp = 1;
    s.parallel.dp_shard = 8;
    s.parallel.dp_replicate = 1;
    s.parallel.zero = 1;
    s.training.global_batch = 64;
    s.training.precision = Precision::fp8;
    s.training.fused_kernels = true;
    const Report bf16_weights = build_report(s);
    s.training.fp8_param_gather = true;
    REQUIRE(validate_scenario(s).empty());
    const Report fp8_weights = build_report(s);

    const ParamCounts c = count_params(s.model);
    // The final norm sits with the output layer, outside Transformer Engine's FP8 region.
    const double ends = c.embedding + c.output + c.final_norm;
    const double blocks = c.total - ends;
    // 3 bytes (BF16 + its FP8 copy) -> 1 for every block weight; the ends keep 2.
    CHECK(bf16_weights.memory.params - fp8_weights.memory.params == doctest::Approx(2.0 * blocks).epsilon(1e-9));
    // The step-end all-gather of the updated weights: 2 bytes a weight before, (2 ends + 1 block) after.
    const auto gather_message = [](const Report& r) {
        for (const CollectiveCall& call : find_dim_cost(r, "dp_shard")->calls)
            if (call.op == Collective::all_gather) return call.message_bytes;
        return 0.0;
    };
    CHECK(gather_message(bf16_weights) == doctest::Approx(2.0 * c.total).epsilon(1e-9));
    CHECK(gather_message(fp8_weights) == doctest::Approx(2.0 * ends + blocks).epsilon(1e-9));
}
