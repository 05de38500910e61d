#pragma once
// Turning measurements back into the model's figures: a least-squares fit of alpha and the
// bandwidth of a link class on the alpha-beta form the cost model uses, the scenario's cluster block
// with the fitted figures written in (a cluster preset file the app can load), the GEMM shapes a
// model's layers run, and the model's prediction for a measured sweep.

#include "core/measure/measure.hpp"
#include "core/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shardscope {

// One timing on the alpha-beta form t = steps * alpha + bytes_factor * S / B.
struct AlphaBetaSample {
    double steps = 0;           // latency terms: all-reduce 2(N-1), the others N-1
    double scaled_bytes = 0;    // bytes_factor * S: what the busiest link carries
    double time_s = 0;
};

// The form's two coefficients for an op on N ranks, read off core's collective_time itself so the
// fit has exactly the shape the cost model predicts with (all-reduce: 2(N-1) and 2(N-1)/N).
[[nodiscard]] double alpha_beta_steps(Collective op, int64_t ranks) noexcept;
[[nodiscard]] double alpha_beta_bytes_factor(Collective op, int64_t ranks) noexcept;

// The rows of a sweep as samples (rows with no time are left out).
[[nodiscard]] std::vector<AlphaBetaSample> alpha_beta_samples(const MeasureResult& r);

struct LinkFit {
    bool ok = false;
    double alpha_s = 0;                 // latency per step
    double bandwidth_bytes_per_s = 0;   // B
    double rms_relative_error = 0;      // of the fitted times against the measured ones
    int samples = 0;
    std::string note;                   // why it failed, or what was adjusted (alpha clamped to 0)
};

// Weighted least squares with weights 1/t^2, i.e. on relative error: a sweep spans 8 B to GiBs and
// times from microseconds to tens of milliseconds, and plain least squares would let the largest
// sizes decide alpha as well as B. Needs two samples of different size and a time that grows with it.
// A negative alpha (noise on a link whose latency is tiny) is clamped to 0 and B refitted alone.
[[nodiscard]] LinkFit fit_alpha_beta(const std::vector<AlphaBetaSample>& samples);

// The fitted line's time for one size of a sweep.
[[nodiscard]] double fitted_time(const LinkFit& fit, Collective op, double bytes, int64_t ranks) noexcept;

// What a set of measurements says about a cluster. Sweeps are grouped by link class; each class gets
// one fit over all its sweeps (different ops and rank counts share alpha and B).
struct Calibration {
    std::optional<LinkFit> intra;
    std::optional<LinkFit> inter;
    std::optional<double> hbm_bytes_per_s;    // from a device-to-device copy
    std::optional<double> best_gemm_flops_per_s;
};
[[nodiscard]] Calibration calibrate(const std::vector<MeasureResult>& sweeps, const SingleGpuResult* single_gpu);

// base with the calibrated figures written in: intra_node / inter_node (GB/s and us) where a fit
// succeeded, gpu.hbm_gbps from the copy, gpu.matmul_efficiency = best GEMM rate / peak (at most 1).
// Figures are rounded to 3 significant digits: more would claim a precision a sweep does not have.
[[nodiscard]] ClusterSpec calibrated_cluster(const ClusterSpec& base, const Calibration& c);
// A cluster preset file (core/scenario/presets.hpp layout) holding the cluster, with `source` saying what was
// measured, so the file loads with the same strict reader as every preset.
[[nodiscard]] std::string cluster_preset_json(const ClusterSpec& cluster, const std::string& source);
// The `source` line for cluster_preset_json: backend, devices, ops, rank counts and sizes measured.
[[nodiscard]] std::string calibration_source(const std::vector<MeasureResult>& sweeps, const SingleGpuResult* single_gpu);

// The GEMMs of one transformer layer's forward pass for one micro-batch on one TP rank:
// tokens = micro_batch * seq_len; QKV [tokens x hidden] x [hidden x (hidden + 2 kv_dim)/tp],
// attention out [tokens x hidden/tp] x [hidden/tp x hidden], FFN up (swiglu: gate and up together)
// and FFN down. A model given only as a parameter count gets one square 8192 GEMM.
[[nodiscard]] std::vector<GemmShape> model_gemm_shapes(const Scenario& s);

// The model's time for each size of a sweep on a link (the prediction drawn beside the measurement).
[[nodiscard]] std::vector<double> predicted_times(Collective op, int64_t ranks, const std::vector<double>& bytes,
                                                  const Link& link);

}  // namespace shardscope
