// Every shipped preset file loads through the strict reader, cites its sources, and (for models)
// matches its published parameter count within 2%.
#include "core/model/cost_model.hpp"
#include "core/model/hardware.hpp"
#include "core/model/params.hpp"
#include "core/scenario/presets.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace shardscope;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

// name -> preset, for every *.json under `dir` of the source tree.
std::map<std::string, ModelPreset> load_models() {
    std::map<std::string, ModelPreset> out;
    for (const auto& e : fs::directory_iterator(fs::path(SHARDSCOPE_SOURCE_DIR) / kModelPresetDir)) {
        if (e.path().extension() != ".json") continue;
        CAPTURE(e.path().string());
        const ModelPresetLoad loaded = parse_model_preset(read_text(e.path()));
        REQUIRE_MESSAGE(loaded.ok(), loaded.error);
        out.emplace(loaded.preset->model.name, *loaded.preset);
    }
    return out;
}

std::map<std::string, ClusterPreset> load_clusters() {
    std::map<std::string, ClusterPreset> out;
    for (const auto& e : fs::directory_iterator(fs::path(SHARDSCOPE_SOURCE_DIR) / kClusterPresetDir)) {
        if (e.path().extension() != ".json") continue;
        CAPTURE(e.path().string());
        const ClusterPresetLoad loaded = parse_cluster_preset(read_text(e.path()));
        REQUIRE_MESSAGE(loaded.ok(), loaded.error);
        out.emplace(loaded.preset->cluster.name, *loaded.preset);
    }
    return out;
}

double rel_err(double got, double published) { return std::fabs(got - published) / published; }

const char* const kModelJson = R"json({"schema": "shardscope.model-preset/1", "source": "hand made",
  "model": {"name": "tiny", "layers": 2, "hidden": 8, "ffn_hidden": 16, "heads": 2, "kv_heads": 1,
            "vocab": 10, "seq_len": 8}})json";

}  // namespace

TEST_CASE("every model preset loads and matches its published size within 2%") {
    const auto models = load_models();
    CHECK(models.size() == 7);
    // Published totals (and active counts for MoE), as cited in each file's "source".
    const std::map<std::string, std::pair<double, double>> published = {
        {"GPT-3 175B", {175e9, 175e9}},     {"Llama 3 8B", {8.03e9, 8.03e9}},
        {"Llama 3 70B", {70.6e9, 70.6e9}},  {"Llama 3 405B", {405.8e9, 405.8e9}},
        {"Mixtral 8x7B", {46.7e9, 12.9e9}}, {"DeepSeek-V3", {671e9, 37e9}},
        {"70B (count only)", {70e9, 70e9}}};
    for (const auto& [name, sizes] : published) {
        CAPTURE(name);
        REQUIRE(models.count(name) == 1);
        const ModelPreset& p = models.at(name);
        CHECK(p.source.size() > 40);  // a real citation, not a placeholder
        // Published sizes leave multi-token prediction modules out (DeepSeek-V3's 671B).
        ModelSpec main_model = p.model;
        main_model.mtp_layers = 0;
        const ParamCounts c = count_params(main_model);
        CHECK(rel_err(c.total, sizes.first) < 0.02);
        CHECK(rel_err(c.active_per_token, sizes.second) < 0.02);
    }
    CHECK_FALSE(count_params(models.at("70B (count only)").model).from_architecture);
    const ModelSpec& ds = models.at("DeepSeek-V3").model;
    CHECK(ds.experts == 256);
    CHECK(ds.mtp_layers == 1);
    CHECK(ds.top_k == 8);
    CHECK(ds.shared_experts == 1);
    CHECK(ds.dense_layers == 3);
}

TEST_CASE("every cluster preset loads") {
    const auto clusters = load_clusters();
    CHECK(clusters.size() == 9);
    for (const char* name : {"DGX A100 80GB", "DGX H100", "H800 (DeepSeek-V3)", "HGX H200", "GB200 NVL72",
                             "GB200 NVL72, 64 of 72 a rack", "DGX B200", "MI300X, 8 per node", "MI325X, 8 per node"}) {
        CAPTURE(name);
        REQUIRE(clusters.count(name) == 1);
        CHECK(clusters.at(name).source.size() > 40);
    }
    CHECK(clusters.at("GB200 NVL72").cluster.gpus_per_node == 72);  // one NVLink domain
    // As published runs use a rack: 16 of its 18 four-GPU trays, with their 32 Grace CPUs (72 cores and
    // 480 GB each) as the host, 173 GB/s a GPU over NVLink-C2C.
    const ClusterSpec& partial = clusters.at("GB200 NVL72, 64 of 72 a rack").cluster;
    CHECK(partial.gpus_per_node == 64);
    CHECK(partial.gpu.name == clusters.at("GB200 NVL72").cluster.gpu.name);
    CHECK(partial.host.memory_gb == 32 * 480.0);
    CHECK(partial.host.cpu_cores == 32 * 72);
    CHECK(partial.host.link_gbps == 173.0);
    CHECK(clusters.at("GB200 NVL72").cluster.host.memory_gb == 36 * 480.0);
    // DeepSeek-V3 report: 2048 H800s, 8 per node; NVLink 160 GB/s vs InfiniBand 50 GB/s.
    const ClusterSpec& h800 = clusters.at("H800 (DeepSeek-V3)").cluster;
    CHECK(h800.gpu_count() == 2048);
    CHECK(h800.intra_node.bandwidth_gbps == 160);
    CHECK(h800.inter_node.bandwidth_gbps == 48);
    // DGX B200: NCCL's ring all-reduce over 8 B200s at 8 GiB, NVLS off, 682 GB/s; 180 GB cards showing
    // 183,359 MiB. MI300X: rccl-tests all_reduce over 8 GPUs at 8 GiB, 318 GB/s; rocm-smi's
    // 206,141,652,992 bytes = 196,592 MiB.
    const ClusterSpec& b200 = clusters.at("DGX B200").cluster;
    CHECK(b200.intra_node.bandwidth_gbps == 682);
    CHECK(exposed_memory_bytes(b200.gpu) == 183359.0 * 1024 * 1024);
    const ClusterSpec& mi300x = clusters.at("MI300X, 8 per node").cluster;
    CHECK(mi300x.intra_node.bandwidth_gbps == 318);
    CHECK(exposed_memory_bytes(mi300x.gpu) == 206141652992.0);
    CHECK(exposed_memory_bytes(clusters.at("MI325X, 8 per node").cluster.gpu) == 256.0 * 1024 * 1024 * 1024);
}

TEST_CASE("every cluster preset prices the default scenario's model, with its own GPU's figures") {
    for (const auto& [name, preset] : load_clusters()) {
        CAPTURE(name);
        Scenario s = default_scenario();
        s.cluster = preset.cluster;
        // The default layout's 64 GPUs a copy, on as many of the preset's nodes as that takes.
        s.cluster.nodes = std::max<int64_t>(1, 64 / s.cluster.gpus_per_node);
        if (s.cluster.gpu_count() % 64 != 0) continue;  // a 72-GPU rack takes other factors
        REQUIRE(validate_scenario(s).empty());
        const Report r = build_report(s);
        REQUIRE(r.time.step);
        CHECK(*r.time.step > 0);
        CHECK(std::isfinite(*r.time.step));
    }
    // The family each new GPU is priced as, and its GEMM ceiling: AMD's hipBLASLt 708 of 1,307.4 BF16
    // TFLOP/s on MI300X, 843 on MI325X; B200 1,745 of 2,250 in a burst at Hopper's 720 / 794.5.
    const auto clusters = load_clusters();
    const HardwareFigures mi300x = hardware_figures(clusters.at("MI300X, 8 per node").cluster.gpu);
    CHECK(mi300x.family == "CDNA3");
    CHECK(mi300x.sm_count == 304);
    CHECK(mi300x.gemm_ceiling == doctest::Approx(708.0 / 1307.4));
    CHECK(hardware_figures(clusters.at("MI325X, 8 per node").cluster.gpu).gemm_ceiling == doctest::Approx(843.0 / 1307.4));
    const HardwareFigures b200 = hardware_figures(clusters.at("DGX B200").cluster.gpu);
    CHECK(b200.family == "Blackwell");
    CHECK(b200.gemm_ceiling == doctest::Approx(1745.0 / 2250 * 720.0 / 794.5));
}

TEST_CASE("preset files are read as strictly as scenarios") {
    const ModelPresetLoad ok = parse_model_preset(kModelJson);
    REQUIRE_MESSAGE(ok.ok(), ok.error);
    CHECK(count_params(ok.preset->model).total == 1352);  // the hand-counted tiny model of test_params

    auto patched = [](const std::string& from, const std::string& to) {
        std::string text = kModelJson;
        text.replace(text.find(from), from.size(), to);
        return parse_model_preset(text);
    };
    CHECK(patched("\"layers\": 2", "\"layers\": 2, \"layerz\": 2").error == "model.layerz: unknown field");
    CHECK(patched("\"layers\": 2", "\"layerz\": 2").error == "model.layers: is required");
    CHECK(patched("\"hidden\": 8", "\"hidden\": 9").error == "model.hidden: 9 is not divisible by heads (2)");
    CHECK(patched("\"source\": \"hand made\"", "\"source\": \" \"").error == "source: must not be empty");
    CHECK(patched("\"source\": \"hand made\",", "").error == "source: is required");
    CHECK(patched("\"source\"", "\"notes\": 1, \"source\"").error == "notes: unknown field");
    CHECK(patched("model-preset/1", "model-preset/2").error ==
          "schema: must be \"shardscope.model-preset/1\", got \"shardscope.model-preset/2\"");
    CHECK_FALSE(patched("\"layers\": 2", "\"layers\": \"2\"").ok());

    const ClusterPresetLoad bad = parse_cluster_preset(R"json({"schema": "shardscope.cluster-preset/1",
      "source": "x", "cluster": {"nodes": 1, "gpus_per_node": 8,
      "gpu": {"memory_gb": 80, "peak_tflops": 989, "matmul_efficiency": 2},
      "intra_node": {"bandwidth_gbps": 450, "latency_us": 2}, "inter_node": {"bandwidth_gbps": 50, "latency_us": 5}}})json");
    CHECK(bad.error == "cluster.gpu.matmul_efficiency: 2 must be in (0, 1]");
    CHECK_FALSE(bad.preset.has_value());
    CHECK(parse_cluster_preset(kModelJson).error ==
          "schema: must be \"shardscope.cluster-preset/1\", got \"shardscope.model-preset/1\"");
}

TEST_CASE("a model reshaped by hand is named for what it is: edited, or the preset it became") {
    std::vector<ModelPreset> presets;
    for (const auto& [name, preset] : load_models()) presets.push_back(preset);
    const auto llama8b = load_models().at("Llama 3 8B").model;
    ModelSpec deeper = llama8b;
    deeper.layers = 48;
    CHECK(model_name_after_edit(llama8b, deeper, presets) == "Llama 3 8B (edited)");
    // Edited again, it is not marked twice.
    deeper.name = "Llama 3 8B (edited)";
    ModelSpec wider = deeper;
    wider.hidden = 5120;
    CHECK(model_name_after_edit(deeper, wider, presets) == "Llama 3 8B (edited)");
    // Put back to the preset's shape, at another training length, it is the preset again.
    ModelSpec back = llama8b;
    back.name = "Llama 3 8B (edited)";
    back.seq_len = 4096;
    CHECK(model_name_after_edit(deeper, back, presets) == "Llama 3 8B");
    // A model from elsewhere (a Hugging Face config) keeps its own name, marked once reshaped.
    ModelSpec imported = llama8b;
    imported.name = "Meta-Llama-3-8B";
    imported.vocab = 128000;
    ModelSpec reshaped = imported;
    reshaped.layers = 40;
    CHECK(model_name_after_edit(imported, reshaped, presets) == "Meta-Llama-3-8B (edited)");
    // The training length is not shape: a longer context leaves the imported model's name alone, and
    // an edit that changes nothing leaves an edited model's mark as it is.
    ModelSpec longer = imported;
    longer.seq_len = 16384;
    CHECK(model_name_after_edit(imported, longer, presets) == "Meta-Llama-3-8B");
    CHECK(model_name_after_edit(deeper, deeper, presets) == "Llama 3 8B (edited)");
}

TEST_CASE("an edited cluster keeps its preset's name only while its node is the preset's") {
    std::vector<ClusterPreset> presets;
    for (const auto& [name, p] : load_clusters()) presets.push_back(p);
    const ClusterSpec dgx = load_clusters().at("DGX H100").cluster;
    // More nodes of the same kind: still that preset (presets name the node, not the count).
    ClusterSpec more = dgx;
    more.nodes = 32;
    CHECK(cluster_name_after_edit(dgx, more, presets) == "DGX H100");
    // 4 GPUs a node is no longer a DGX H100.
    ClusterSpec halved = dgx;
    halved.gpus_per_node = 4;
    CHECK(cluster_name_after_edit(dgx, halved, presets) == "DGX H100 (edited)");
    // Edited again, marked once; put back, the preset's name again.
    halved.name = "DGX H100 (edited)";
    ClusterSpec slower = halved;
    slower.gpu.hbm_gbps = 2000;
    CHECK(cluster_name_after_edit(halved, slower, presets) == "DGX H100 (edited)");
    ClusterSpec back = dgx;
    back.name = "DGX H100 (edited)";
    back.nodes = 3;
    CHECK(cluster_name_after_edit(slower, back, presets) == "DGX H100");
}
