// The optimizer offloaded to the host (training.offload optimizer): what moves off the GPU, what the
// host holds, what the step pays, each worked by hand from the cited figures in core/model/hardware.hpp.
#include "core/model/cost_model.hpp"
#include "core/model/fit_advisor.hpp"
#include "core/model/hardware.hpp"
#include "core/model/memory.hpp"
#include "core/model/report.hpp"
#include "core/planner/planner.hpp"
#include "core/scenario/units.hpp"
#include "core/strategy/ownership.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>

using namespace shardscope;
using shardscope::test::small_dense;

namespace {

// small_dense as one ZeRO-1 group of 16 (two nodes of 8 H100s): every GPU's optimizer steps 1/16 of
// the model's parameters, on every stage alike (pp 1).
Scenario zero1_over_16() {
    Scenario s = small_dense();
    s.parallel.dp_shard = 16;
    s.parallel.dp_replicate = 1;
    s.parallel.zero = 1;
    REQUIRE(validate_scenario(s).empty());
    return s;
}

bool has_note(const Report& r, const std::string& start) {
    return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n.rfind(start, 0) == 0; });
}

}  // namespace

TEST_CASE("offload: the host figures default to DGX H100's host and nvbandwidth's PCIe rates") {
    ClusterSpec c = default_scenario().cluster;  // 8 H100s a node
    HostFigures h = host_figures(c);
    CHECK(h.memory_bytes_per_node == doctest::Approx(2048e9));  // 256 GB a GPU x 8
    CHECK(h.link_bytes_per_s == doctest::Approx(52.77e9));
    // 14 cores a GPU at 11.6e9 / 8.2 / 48 = 29.47M parameters a second a core: 412.6M a second.
    CHECK(h.adam_params_per_s == doctest::Approx(14 * 11.6e9 / 8.2 / 48));
    CHECK(h.adam_params_per_s == doctest::Approx(412.6e6).epsilon(1e-3));
    c.gpu.name = "A100 SXM4 80GB";
    CHECK(host_figures(c).link_bytes_per_s == doctest::Approx(25.13e9));
    // What the scenario sets wins: a GB200-like host, 72 cores for 2 GPUs over NVLink-C2C.
    c.gpus_per_node = 2;
    c.host = HostSpec{960.0, 173.0, 72};
    h = host_figures(c);
    CHECK(h.memory_bytes_per_node == doctest::Approx(960e9));
    CHECK(h.link_bytes_per_s == doctest::Approx(173e9));
    CHECK(h.adam_params_per_s == doctest::Approx(36 * 11.6e9 / 8.2 / 48));
    CHECK(h.sources.size() == 1);  // only CPU Adam's rate came from a default
}

TEST_CASE("offload: the optimizer's bytes leave the GPU and land on the host with an FP32 gradient copy") {
    const Scenario on_gpu = zero1_over_16();
    Scenario off = on_gpu;
    off.training.offload = Offload::optimizer;
    REQUIRE(validate_scenario(off).empty());
    const Report a = build_report(on_gpu);
    const Report b = build_report(off);
    // Mixed bf16: 12 optimizer bytes a parameter (FP32 master, m, v) sharded over 16.
    const double per_gpu = a.params_total / 16;
    CHECK(a.memory.optimizer == doctest::Approx(12 * per_gpu));
    CHECK(b.memory.optimizer == 0);
    CHECK(b.memory.params == a.memory.params);
    CHECK(b.memory.grads == a.memory.grads);
    CHECK(b.memory.activations == a.memory.activations);
    // The host keeps the 12 bytes and 4 more of FP32 gradients: 16 a parameter.
    CHECK(b.memory.host == doctest::Approx(16 * per_gpu));
    REQUIRE(b.host.has_value());
    CHECK(b.host->bytes_per_gpu == doctest::Approx(16 * per_gpu));
    CHECK(b.host->bytes_per_node == doctest::Approx(8 * 16 * per_gpu));
    CHECK(b.host->capacity_bytes == doctest::Approx(2048e9));
    CHECK(b.host->fits);
    CHECK(b.fits);
    // The GPU drops exactly the optimizer's bytes, and the allocator's 5% slack on them.
    CHECK(a.memory.total() - b.memory.total() == doctest::Approx(1.05 * 12 * per_gpu));
    CHECK_FALSE(a.host.has_value());
}

TEST_CASE("offload: the step pays gradients out, the CPU's Adam and the weights back, by hand") {
    const Scenario on_gpu = zero1_over_16();
    Scenario off = on_gpu;
    off.training.offload = Offload::optimizer;
    const Report a = build_report(on_gpu);
    const Report b = build_report(off);
    REQUIRE(b.host.has_value());
    const double p = a.params_total / 16;
    CHECK(b.host->params == doctest::Approx(p));
    // bf16 gradients (2 bytes) over PCIe Gen5's 52.77 GB/s; CPU Adam at 14 cores x 29.47M a second; the
    // bf16 weights (2 bytes) back.
    const double out_s = 2 * p / 52.77e9, adam_s = p / (14 * 11.6e9 / 8.2 / 48), back_s = 2 * p / 52.77e9;
    CHECK(b.host->step.gradients_to_host_s == doctest::Approx(out_s));
    CHECK(b.host->step.cpu_adam_s == doctest::Approx(adam_s));
    CHECK(b.host->step.weights_to_gpu_s == doctest::Approx(back_s));
    // The host's step replaces the HBM one in the step end, the same on the one stage.
    REQUIRE(a.stage_work.size() == 1);
    REQUIRE(b.stage_work.size() == 1);
    CHECK(b.stage_work[0].optimizer_s == doctest::Approx(out_s + adam_s + back_s));
    CHECK(*b.time.step - *a.time.step == doctest::Approx(b.stage_work[0].optimizer_s - a.stage_work[0].optimizer_s));
    // The breakdown books it as the optimizer's time, bound by the host.
    REQUIRE(b.breakdown.has_value());
    const OpFigures& opt = (*b.breakdown)[static_cast<std::size_t>(StepOp::optimizer)];
    CHECK(opt.time_s() == doctest::Approx(out_s + adam_s + back_s));
    CHECK(opt.bound() == OpBound::host);
    CHECK(has_note(b, "optimizer offloaded to the host: "));
    // And the report says so in its JSON.
    const nlohmann::json j = nlohmann::json::parse(report_to_json(b));
    CHECK(j["host"]["optimizer_step_s"]["cpu_adam"].get<double>() == doctest::Approx(adam_s));
    CHECK(j["host"]["fits"] == true);
    CHECK_FALSE(nlohmann::json::parse(report_to_json(a)).contains("host"));
}

TEST_CASE("offload: a host too small for the node's offloaded optimizers does not fit") {
    Scenario s = zero1_over_16();
    s.training.offload = Offload::optimizer;
    const Report roomy = build_report(s);
    REQUIRE(roomy.host.has_value());
    // Half of what the node's 8 GPUs put there.
    s.cluster.host.memory_gb = roomy.host->bytes_per_node / 2 / 1e9;
    const Report r = build_report(s);
    CHECK_FALSE(r.host->fits);
    CHECK_FALSE(r.fits);
    CHECK(r.memory.total() <= r.gpu_memory_bytes);  // the GPU alone would fit
    CHECK(has_note(r, "does not fit on the host: "));
}

TEST_CASE("offload: refused by name without a sharded optimizer, and bad host figures name their field") {
    Scenario s = small_dense();  // zero 0, dp_replicate 16
    s.training.offload = Offload::optimizer;
    CHECK(validate_scenario(s).rfind("training.offload: optimizer offload needs a sharded optimizer", 0) == 0);
    Scenario h = zero1_over_16();
    h.cluster.host.link_gbps = -1;
    CHECK(validate_scenario(h) == "cluster.host.link_gbps: -1 must be positive");
    h.cluster.host.link_gbps.reset();
    h.cluster.host.cpu_cores = 0;
    CHECK(validate_scenario(h) == "cluster.host.cpu_cores: 0 must be a positive integer");
    // An unknown value in a file names the field and the choices.
    std::string text = scenario_to_json(zero1_over_16());
    const std::string key = "\"precision\": \"mixed-bf16\"";
    text.replace(text.find(key), key.size(), key + ", \"offload\": \"nvme\"");
    const ScenarioLoad load = parse_scenario(text);
    CHECK_FALSE(load.ok());
    CHECK(load.error.find("training.offload") == 0);
    CHECK(load.error.find("none, optimizer") != std::string::npos);
}

TEST_CASE("offload: saved and loaded back exactly, host block and all") {
    Scenario s = zero1_over_16();
    s.training.offload = Offload::optimizer;
    s.cluster.host = HostSpec{1024.0, 25.13, 64};
    const ScenarioLoad back = parse_scenario(scenario_to_json(s));
    REQUIRE(back.ok());
    CHECK(*back.scenario == s);
    CHECK(back.scenario->training.offload == Offload::optimizer);
    CHECK(back.scenario->cluster.host.cpu_cores == 64);
    // Nothing set: nothing written.
    CHECK(scenario_to_json(zero1_over_16()).find("\"host\"") == std::string::npos);
    CHECK(scenario_to_json(zero1_over_16()).find("\"offload\"") == std::string::npos);
}

TEST_CASE("offload: the planner offloads only when nothing fits on the GPUs, and then prunes as brute force does") {
    Scenario base = small_dense();
    base.cluster.gpu.reserve_gib = 0.0;
    PlanOptions least;
    least.objective = PlanObjective::memory;
    least.top_k = 1;
    const PlanResult fitting = plan_layouts(base, least);
    REQUIRE(fitting.ranked.size() == 1);
    // A roomy GPU: no row offloads, even when the scenario asked for it.
    Scenario asked = zero1_over_16();
    asked.training.offload = Offload::optimizer;
    REQUIRE(validate_scenario(asked).empty());
    for (const PlanEntry& e : plan_layouts(asked, PlanOptions{}).ranked) CHECK(e.scenario.training.offload == Offload::none);
    // A card 1% under the least any layout needs with the optimizer on it: only offloading fits.
    base.cluster.gpu.memory_mib = fitting.ranked[0].memory_bytes * 0.99 / (1024.0 * 1024.0);
    REQUIRE(validate_scenario(base).empty());
    PlanOptions o;
    o.top_k = 5;
    const PlanResult pruned = plan_layouts(base, o);
    REQUIRE(!pruned.ranked.empty());
    for (const PlanEntry& e : pruned.ranked) {
        INFO(describe_layout(e.scenario));
        CHECK(e.scenario.training.offload == Offload::optimizer);
        CHECK(e.scenario.parallel.zero >= 1);
        CHECK(describe_layout(e.scenario).find("optimizer offloaded") != std::string::npos);
        // Each row prices as it says when applied through the report.
        const Report r = build_report(e.scenario);
        CHECK(r.fits);
        CHECK(*r.time.step == e.step_s);
        CHECK(r.memory.total() == e.memory_bytes);
    }
    CHECK(std::any_of(pruned.notes.begin(), pruned.notes.end(),
                      [](const std::string& n) { return n.find("offload it to host memory") != std::string::npos; }));
    o.prune = false;
    const PlanResult brute = plan_layouts(base, o);
    REQUIRE(brute.ranked.size() == pruned.ranked.size());
    for (std::size_t i = 0; i < brute.ranked.size(); ++i) {
        CHECK(describe_layout(pruned.ranked[i].scenario) == describe_layout(brute.ranked[i].scenario));
        CHECK(pruned.ranked[i].step_s == brute.ranked[i].step_s);
    }
}

TEST_CASE("offload: the fit advice offloads the optimizer only when no other fix fits, and names it") {
    // Llama 3 70B on one node of 8 H100s, ZeRO-3 over all 8: 70.55B x 16 B / 8 = 141 GB of model
    // state a GPU, and no TP, PP, recompute or micro-batch fix brings it under 80 GB on 8 GPUs.
    Scenario s = shardscope::test::llama70b_ddp(1);
    s.parallel.dp_replicate = 1;
    s.parallel.dp_shard = 8;
    s.parallel.zero = 3;
    s.training.global_batch = 64;
    s.training.recompute = Recompute::full;
    REQUIRE(validate_scenario(s).empty());
    const FitAdvice advice = advise_fit(s);
    REQUIRE(advice.needed);
    REQUIRE(advice.found);
    CHECK(advice.scenario.training.offload == Offload::optimizer);
    CHECK(advice.summary().find("offload none -> optimizer") != std::string::npos);
    const Report fixed = build_report(advice.scenario);
    CHECK(fixed.fits);
    CHECK(fixed.memory.optimizer == 0);
    // The host holds 16 bytes a parameter for the GPUs of the node: 70.55B x 16 = 1.13 TB of 2.05 TB.
    REQUIRE(fixed.host.has_value());
    CHECK(fixed.host->bytes_per_node == doctest::Approx(fixed.params_total * 16).epsilon(1e-9));
    // Where another fix fits, offloading is never the advice: on 16 nodes recompute does.
    Scenario roomy = s;
    roomy.cluster.nodes = 16;
    roomy.parallel.dp_shard = 128;
    roomy.training.global_batch = 128;
    roomy.training.recompute = Recompute::none;  // 80 blocks' activations: does not fit as it is
    REQUIRE(validate_scenario(roomy).empty());
    const FitAdvice other = advise_fit(roomy);
    REQUIRE(other.needed);
    REQUIRE(other.found);
    CHECK(other.scenario.training.offload == Offload::none);
}

TEST_CASE("offload: docs/cost-model.md's example quotes the report of the example it names") {
    const std::string root = SHARDSCOPE_SOURCE_DIR;
    std::ifstream example(root + "/examples/llama3-70b-8xh100-offload.json");
    std::ifstream doc(root + "/docs/cost-model.md");
    REQUIRE(example.good());
    REQUIRE(doc.good());
    const ScenarioLoad load = parse_scenario(std::string(std::istreambuf_iterator<char>(example), {}));
    REQUIRE_MESSAGE(load.ok(), load.error);
    std::string text(std::istreambuf_iterator<char>(doc), {});
    // The paragraph is wrapped: compare with its lines joined.
    for (char& c : text)
        if (c == '\n') c = ' ';
    const Report off = build_report(*load.scenario);
    Scenario on_gpu = *load.scenario;
    on_gpu.training.offload = Offload::none;
    const Report on = build_report(on_gpu);
    REQUIRE(off.host.has_value());
    for (const std::string& figure :
         {"needs " + format_memory(on.memory.total()) + " a GPU with the optimizer on it",
          "offloaded, " + format_memory(off.memory.total()) + ", the host " + format_memory(off.host->bytes_per_node) +
              " of the node's " + format_memory(off.host->capacity_bytes),
          format_seconds(off.host->step.total()) + " of the " + format_seconds(*off.time.step) + " step is the host's",
          "CPU Adam " + format_seconds(off.host->step.cpu_adam_s) + " over " + format_count(off.host->params) +
              " parameters a GPU"}) {
        CAPTURE(figure);
        CHECK(text.find(figure) != std::string::npos);
    }
}

TEST_CASE("offload: the strategy explorer's ranks still own their optimizer shards, kept on their hosts") {
    Scenario s = zero1_over_16();
    const Ownership on_gpu = build_ownership(s);
    s.training.offload = Offload::optimizer;
    const Ownership off = build_ownership(s);
    CHECK_FALSE(on_gpu.optimizer_on_host);
    CHECK(off.optimizer_on_host);
    // The same pieces and bytes: which rank owns a shard does not change with where it lives.
    REQUIRE(off.pieces.size() == on_gpu.pieces.size());
    CHECK(off.held_bytes(3).optimizer == on_gpu.held_bytes(3).optimizer);
    CHECK(off.held_bytes(3).optimizer > 0);
}
