#include "core/model/validation_suite.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace shardscope;

TEST_CASE("Megatron-LM eq. 3: 96 B s l h^2 (1 + s/6h + V/16lh)") {
    Scenario s;
    s.training.global_batch = 1;
    s.model.seq_len = 6;
    s.model.layers = 1;
    s.model.hidden = 1;
    s.model.vocab = 16;
    // 96 * 1 * 6 * 1 * 1 * (1 + 6/6 + 16/16) = 576 * 3 = 1728.
    CHECK(megatron_eq3_flops(s) == doctest::Approx(1728));
    // GPT-3 175B shape (96 layers, h 12288, s 2048, V 51200), batch 1: 96*2048*96*12288^2 =
    // 2.849934e15, times (1 + 2048/73728 + 51200/18874368) = 1.030490 -> 2.936830e15.
    s.model.seq_len = 2048;
    s.model.layers = 96;
    s.model.hidden = 12288;
    s.model.vocab = 51200;
    CHECK(megatron_eq3_flops(s) == doctest::Approx(2.936830e15).epsilon(1e-6));
}

TEST_CASE("the suite holds Megatron-LM 2021 Table 1 and Llama 3 Table 4, every scenario valid") {
    const auto runs = published_runs();
    REQUIRE(runs.size() == 13);
    int megatron = 0, llama = 0;
    for (const PublishedRun& r : runs) {
        CAPTURE(r.name);
        CHECK(validate_scenario(r.scenario) == "");
        megatron += r.convention == FlopConvention::megatron_eq3 ? 1 : 0;
        llama += r.convention == FlopConvention::model_flops ? 1 : 0;
    }
    CHECK(megatron == 10);
    CHECK(llama == 3);
    // Spot checks against the tables: 1T on 3072 GPUs, t 8, p 64, batch 3072, 163 TFLOP/s (52%).
    const PublishedRun& t1 = runs[9];
    CHECK(t1.scenario.cluster.gpu_count() == 3072);
    CHECK(t1.scenario.parallel.pp == 64);
    CHECK(t1.published_tflops_per_gpu == 163);
    // Llama 3 405B with CP 16: 16,384 GPUs at 131,072 tokens per sequence, 380 TFLOP/s, 38% MFU.
    const PublishedRun& cp = runs[12];
    CHECK(cp.scenario.cluster.gpu_count() == 16384);
    CHECK(cp.scenario.parallel.cp == 16);
    CHECK(cp.scenario.model.seq_len == 131072);
    CHECK(cp.published_fraction_of_peak == doctest::Approx(0.38));
}

TEST_CASE("predicted vs published: the error is predicted / published - 1") {
    ValidationRow row;
    row.run.published_tflops_per_gpu = 160;
    row.predicted_tflops_per_gpu = 176;
    row.run.published_fraction_of_peak = 0.5;
    row.predicted_fraction_of_peak = 0.45;
    CHECK(row.tflops_error() == doctest::Approx(0.10));
    CHECK(row.fraction_error() == doctest::Approx(-0.10));
}

TEST_CASE("every published run is predicted within 15% (the issue's goal)") {
    const auto rows = run_validation_suite();
    for (const ValidationRow& r : rows) {
        CAPTURE(r.run.name);
        CAPTURE(r.predicted_tflops_per_gpu);
        CHECK(r.step_s > 0);
        CHECK(std::fabs(r.tflops_error()) <= 0.15);
        // Fraction of peak is TFLOP/s over the GPU's peak for both sources.
        CHECK(r.predicted_fraction_of_peak ==
              doctest::Approx(r.predicted_tflops_per_gpu / r.run.scenario.cluster.gpu.peak_tflops));
    }
    // The effects the model carries show up: the 1.7B run (no TP, no PP) still falls short of the
    // A100's achievable matmul rate, 312 * 0.65 = 202.8 TFLOP/s, because its gradient all-reduce
    // crosses nodes after the last micro-batch and its element-wise work is memory-bound.
    CHECK(rows[0].predicted_tflops_per_gpu < 202.8 * 0.8);
    const std::string text = validation_table_text(rows);
    CHECK(text.find("largest miss") != std::string::npos);
    const auto j = nlohmann::json::parse(validation_table_json(rows));
    CHECK(j.size() == rows.size());
}
