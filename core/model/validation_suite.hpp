#pragma once
// `shardscope validate`: published training runs, and what the cost model predicts for each.
//
// Runs (figures as their sources print them):
// - Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using
//   Megatron-LM" (SC'21, arXiv:2104.04473), Table 1, weak scaling of GPT models 1.7B .. 1T on Selene
//   (DGX A100 80GB, 8 x HDR 200 Gb/s InfiniBand per node): t, p, GPUs, batch, achieved TFLOP/s per
//   GPU and % of the 312 TFLOP/s peak. Sequence 2048, vocabulary 51,200, full activation recompute;
//   the paper counts FLOPs with its eq. 3, 96 B s l h^2 (1 + s/6h + V/16lh), recompute included.
// - Llama 3 Team 2024, "The Llama 3 Herd of Models" (arXiv:2407.21783), Table 4: Llama 3 405B on
//   8,192 and 16,384 H100s (TP 8, PP 16, CP 1 or 16), TFLOP/s per GPU and BF16 MFU. Section 3.3.2:
//   FSDP shards optimizer state and gradients but keeps the weights gathered after the forward (the
//   ZeRO-2 shape), and the first and last stages hold one layer fewer (126 layers on 16 stages).
//
// Predictions come from build_report with the shipped cluster presets (assets/clusters/, handed in by
// the caller: core reads no files) and the model's defaults: what a user gets. No row has a constant
// of its own, and no constant of the model was fitted to any row. What differs between rows is only
// what the sources state (model, mesh, batch, precision, attention kernel).
//
// In-sample: a row whose source was read while the model's constants were chosen is marked so in
// the output (both tables above were: earlier versions of the model were checked against them).
// Rows added after the constants were fixed are out-of-sample: the honest test.

#include "core/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shardscope {

// How the source counts the FLOPs it divides by time.
enum class FlopConvention {
    megatron_eq3,   // Narayanan et al. 2021 eq. 3: hardware FLOPs with full recompute
    model_flops,    // 6 * params * tokens + attention: our model_per_step
};

struct PublishedRun {
    std::string source;          // short citation
    bool in_sample = false;      // the source was read while choosing the model's constants
    double tolerance = 0.15;     // the error the row is held to
    std::string name;            // e.g. "GPT 18.4B, t8 p1, 256 GPUs"
    Scenario scenario;
    double published_tflops_per_gpu = 0;
    double published_fraction_of_peak = 0;  // Megatron's "% of peak" or Llama's BF16 MFU (0: a memory-only row)
    FlopConvention convention = FlopConvention::model_flops;
    // A measured memory peak (GiB): PyTorch's caching allocator's peak reserved bytes, which leave out
    // the CUDA context and NCCL's own buffers.
    std::optional<double> measured_peak_gib;
    double memory_tolerance = 0.10;
    [[nodiscard]] bool has_throughput() const noexcept { return published_tflops_per_gpu > 0; }
};

struct ValidationRow {
    PublishedRun run;
    double predicted_tflops_per_gpu = 0;     // in the source's FLOP convention
    double predicted_fraction_of_peak = 0;
    double step_s = 0;
    bool fits = false;
    // What the allocator holds at the peak as the model counts it: the total less the runtime's fixed
    // reserve (CUDA context, NCCL buffers), GiB.
    double predicted_peak_gib = 0;
    [[nodiscard]] double memory_error() const noexcept {
        return run.measured_peak_gib ? predicted_peak_gib / *run.measured_peak_gib - 1.0 : 0;
    }
    // Within its tolerance counts only for a layout that fits: a published run ran.
    [[nodiscard]] bool throughput_within() const noexcept;
    [[nodiscard]] bool memory_within() const noexcept;
    [[nodiscard]] double tflops_error() const noexcept {
        return run.published_tflops_per_gpu > 0 ? predicted_tflops_per_gpu / run.published_tflops_per_gpu - 1.0 : 0;
    }
    [[nodiscard]] double fraction_error() const noexcept {
        return run.published_fraction_of_peak > 0 ? predicted_fraction_of_peak / run.published_fraction_of_peak - 1.0
                                                   : 0;
    }
};

// Megatron-LM 2021 eq. 3 FLOPs of one step: 96 B s l h^2 (1 + s/(6h) + V/(16 l h)).
[[nodiscard]] double megatron_eq3_flops(const Scenario& s) noexcept;

// The clusters the rows run on, as the shipped presets give them (assets/clusters/dgx-a100-80gb.json
// and dgx-h100.json); the row sets the node count.
struct ValidationClusters {
    ClusterSpec a100_80gb;
    ClusterSpec h100;
};

[[nodiscard]] std::vector<PublishedRun> published_runs(const ValidationClusters& clusters);
[[nodiscard]] ValidationRow predict(const PublishedRun& run);
[[nodiscard]] std::vector<ValidationRow> run_validation_suite(const ValidationClusters& clusters);

// The table `shardscope validate` prints: published vs predicted TFLOP/s per GPU and fraction of
// peak, the error of each row, and the largest miss.
[[nodiscard]] std::string validation_table_text(const std::vector<ValidationRow>& rows);
[[nodiscard]] std::string validation_table_json(const std::vector<ValidationRow>& rows);

}  // namespace shardscope
