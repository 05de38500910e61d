// The whole run: days, checkpoints, goodput, GPU-hours, cost and energy, each worked by hand.
#include "core/model/cost_model.hpp"
#include "core/model/run_cost.hpp"
#include "core/scenario/scenario.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace shardscope;

namespace {

// Llama 3 405B's 15.6T tokens on 16,384 H100s (the report's budget and job size), checkpoints at
// 2 TB/s (the Llama 3 report's storage: 2 TB/s sustained), 10 minutes a restart, $2 a GPU-hour, 700 W a
// GPU (the H100 SXM datasheet) and a PUE of 1.1.
Scenario llama3_run() {
    Scenario s = default_scenario();
    s.model.layers = 126;
    s.model.hidden = 16384;
    s.model.ffn_hidden = 53248;
    s.model.heads = 128;
    s.model.kv_heads = 8;
    s.cluster.nodes = 2048;
    s.cluster.gpu.board_power_w = 700;
    s.parallel.tp = 8;
    s.parallel.pp = 16;
    s.parallel.dp_shard = 128;
    s.parallel.dp_replicate = 1;
    s.training.global_batch = 2048;
    RunSpec run;
    run.tokens = 15.6e12;
    run.checkpoint_write_gbps = 2000;
    run.restart_minutes = 10;
    run.usd_per_gpu_hour = 2.0;
    run.pue = 1.1;
    s.run = run;
    return s;
}

}  // namespace

TEST_CASE("Young's interval and first-order goodput, by hand") {
    // MTBF 10,000 s, a 10 s checkpoint: interval sqrt(2 x 10 x 10000) = 447.21 s. Of each 457.21 s,
    // 447.21 train; an interruption loses 228.61 s + a 60 s restart, 1 in 10,000 s:
    // 447.21 / 457.21 x (1 - 288.61 / 10000) = 0.97813 x 0.97114 = 0.94990.
    const double interval = std::sqrt(2.0 * 10.0 * 10000.0);
    CHECK(interval == doctest::Approx(447.2136));
    CHECK(first_order_goodput(10000, 10, interval, 60) == doctest::Approx(0.949898).epsilon(1e-5));
    // Nothing lost without interruptions' cost: no checkpoint time and no restart leaves only the
    // half-interval of rework.
    CHECK(first_order_goodput(1e12, 0, 100, 0) == doctest::Approx(1.0));
    // Interruptions faster than an interval: no goodput, not a negative one.
    CHECK(first_order_goodput(100, 50, 400, 60) == 0.0);
}

TEST_CASE("a 405B run of 15.6T tokens on 16,384 H100s: days, GPU-hours, cost, energy and goodput by hand") {
    const Scenario s = llama3_run();
    REQUIRE(validate_scenario(s).empty());
    const Report r = build_report(s);
    REQUIRE(r.run.has_value());
    const RunFigures& f = *r.run;
    const double tps = *r.throughput.tokens_per_s;
    // Ideal: 15.6e12 tokens at the step's rate.
    CHECK(f.ideal_days == doctest::Approx(15.6e12 / tps / 86400.0));
    // The job's MTBF: 50,677 GPU-hours (16,384 x 54 x 24 / 419) over 16,384 GPUs = 3.0931 h.
    CHECK(kLlama3GpuMtbfHours == doctest::Approx(50677.0).epsilon(1e-4));
    CHECK(f.job_mtbf_hours == doctest::Approx(54.0 * 24.0 / 419.0));
    // A checkpoint: weights (2 B) and Adam's state (12 B) of every parameter, 14 B x params, at 2e12 B/s.
    CHECK(f.checkpoint_bytes == doctest::Approx(14.0 * r.params_total));
    CHECK(f.checkpoint_s == doctest::Approx(14.0 * r.params_total / 2e12));
    // Young: sqrt(2 x checkpoint x MTBF).
    const double mtbf_s = 54.0 * 24.0 / 419.0 * 3600.0;
    CHECK(f.checkpoint_interval_s == doctest::Approx(std::sqrt(2.0 * f.checkpoint_s * mtbf_s)));
    const double period = f.checkpoint_interval_s + f.checkpoint_s;
    const double goodput = f.checkpoint_interval_s / period * (1.0 - (period / 2.0 + 600.0) / mtbf_s);
    CHECK(f.goodput == doctest::Approx(goodput));
    // 405B: about 5.7 TB a checkpoint, 2.8 s; an interval near 250 s; goodput near 92%.
    CHECK(f.checkpoint_bytes == doctest::Approx(5.68e12).epsilon(0.01));
    CHECK(f.goodput == doctest::Approx(0.924).epsilon(0.002));
    CHECK(f.days == doctest::Approx(f.ideal_days / f.goodput));
    CHECK(f.gpu_hours == doctest::Approx(16384.0 * f.days * 24.0));
    REQUIRE(f.usd.has_value());
    CHECK(*f.usd == doctest::Approx(2.0 * f.gpu_hours));
    REQUIRE(f.energy_mwh.has_value());
    CHECK(*f.energy_mwh == doctest::Approx(f.gpu_hours * 700.0 * 1.1 / 1e6));
    // The JSON report carries the block.
    const auto j = nlohmann::json::parse(report_to_json(r));
    CHECK(j["run"]["goodput"].get<double>() == doctest::Approx(f.goodput));
    CHECK(j["run"]["usd"].get<double>() == doctest::Approx(*f.usd));
}

TEST_CASE("no run block, no run figures; a missing price or board power leaves only those figures out") {
    Scenario s = llama3_run();
    s.run.reset();
    CHECK_FALSE(build_report(s).run.has_value());
    CHECK_FALSE(nlohmann::json::parse(report_to_json(build_report(s))).contains("run"));
    s = llama3_run();
    s.run->usd_per_gpu_hour.reset();
    s.cluster.gpu.board_power_w.reset();
    const Report r = build_report(s);
    REQUIRE(r.run.has_value());
    CHECK_FALSE(r.run->usd.has_value());
    CHECK_FALSE(r.run->energy_mwh.has_value());
    CHECK(r.run->days > 0);
}

TEST_CASE("the run block's bad input is refused by field name") {
    const auto refused = [](auto change) {
        Scenario s = llama3_run();
        change(*s.run);
        return validate_scenario(s);
    };
    CHECK(refused([](RunSpec& r) { r.tokens = 0; }) == "run.tokens: 0 must be positive");
    CHECK(refused([](RunSpec& r) { r.tokens = -5; }) == "run.tokens: -5 must be positive");
    CHECK(refused([](RunSpec& r) { r.checkpoint_write_gbps = 0; }) == "run.checkpoint_write_gbps: 0 must be positive");
    CHECK(refused([](RunSpec& r) { r.gpu_mtbf_hours = 0.0; }) == "run.gpu_mtbf_hours: 0 must be positive");
    CHECK(refused([](RunSpec& r) { r.usd_per_gpu_hour = -1.0; }) == "run.usd_per_gpu_hour: -1 must be positive");
    CHECK(refused([](RunSpec& r) { r.restart_minutes = -1.0; }) ==
          "run.restart_minutes: -1 must be zero or positive, at most 1e+06");
    CHECK(refused([](RunSpec& r) { r.pue = 0.5; }).rfind("run.pue: 0.5 must be between 1 and 10", 0) == 0);
    // From a file: a missing budget, and an unknown field, are named.
    nlohmann::json doc = nlohmann::json::parse(scenario_to_json(llama3_run()));
    doc["run"].erase("tokens");
    CHECK(parse_scenario(doc.dump()).error.find("run.tokens") != std::string::npos);
    doc = nlohmann::json::parse(scenario_to_json(llama3_run()));
    doc["run"]["tokenz"] = 1;
    CHECK(parse_scenario(doc.dump()).error.find("run.tokenz") != std::string::npos);
    // And a good one round-trips.
    const ScenarioLoad back = parse_scenario(scenario_to_json(llama3_run()));
    REQUIRE(back.ok());
    CHECK(*back.scenario == llama3_run());
}
