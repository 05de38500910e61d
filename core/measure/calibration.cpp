#include "core/measure/calibration.hpp"

#include "core/scenario/units.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace shardscope {

namespace {

using Json = nlohmann::ordered_json;

// 3 significant digits: 447.123 -> 447, 2.3456 -> 2.35, 0.012345 -> 0.0123.
[[nodiscard]] double round3(double v) {
    if (!(v > 0) || !std::isfinite(v)) return v;
    const double scale = std::pow(10.0, 2 - std::floor(std::log10(v)));
    return std::round(v * scale) / scale;
}

// Weighted sums of the normal equations for t = a x + b y with weights 1/t^2.
struct NormalSums {
    double xx = 0, xy = 0, yy = 0, xt = 0, yt = 0;
};

[[nodiscard]] NormalSums normal_sums(const std::vector<AlphaBetaSample>& samples) {
    NormalSums s;
    for (const AlphaBetaSample& p : samples) {
        const double w = 1.0 / (p.time_s * p.time_s);
        s.xx += w * p.steps * p.steps;
        s.xy += w * p.steps * p.scaled_bytes;
        s.yy += w * p.scaled_bytes * p.scaled_bytes;
        s.xt += w * p.steps * p.time_s;
        s.yt += w * p.scaled_bytes * p.time_s;
    }
    return s;
}

[[nodiscard]] double rms_relative_error(const std::vector<AlphaBetaSample>& samples, double a, double b) {
    double sum = 0;
    for (const AlphaBetaSample& p : samples) {
        const double rel = (a * p.steps + b * p.scaled_bytes - p.time_s) / p.time_s;
        sum += rel * rel;
    }
    return std::sqrt(sum / static_cast<double>(samples.size()));
}

[[nodiscard]] std::string size_range(const MeasureResult& r) {
    if (r.rows.empty()) return "no sizes";
    return format_bytes(r.rows.front().bytes) + " to " + format_bytes(r.rows.back().bytes);
}

}  // namespace

double alpha_beta_steps(Collective op, int64_t ranks) noexcept {
    // Zero bytes on a link of 1 s latency: what is left is the number of latency terms.
    return collective_time(op, 0.0, ranks, Link{1.0, 1.0});
}

double alpha_beta_bytes_factor(Collective op, int64_t ranks) noexcept {
    // One byte on a link of 1 B/s and no latency: what is left is the bytes factor.
    return collective_time(op, 1.0, ranks, Link{1.0, 0.0});
}

std::vector<AlphaBetaSample> alpha_beta_samples(const MeasureResult& r) {
    std::vector<AlphaBetaSample> samples;
    const double steps = alpha_beta_steps(r.op, r.ranks);
    const double factor = alpha_beta_bytes_factor(r.op, r.ranks);
    for (const TimingRow& row : r.rows)
        if (row.time_s > 0 && std::isfinite(row.time_s)) samples.push_back({steps, factor * row.bytes, row.time_s});
    return samples;
}

LinkFit fit_alpha_beta(const std::vector<AlphaBetaSample>& samples) {
    LinkFit fit;
    fit.samples = static_cast<int>(samples.size());
    for (const AlphaBetaSample& p : samples)
        if (!(p.time_s > 0) || !std::isfinite(p.time_s) || !std::isfinite(p.scaled_bytes)) {
            fit.note = "every timing must be positive and finite";
            return fit;
        }
    if (samples.size() < 2) {
        fit.note = "a fit needs at least two sizes";
        return fit;
    }
    const NormalSums s = normal_sums(samples);
    const double det = s.xx * s.yy - s.xy * s.xy;
    double a = 0, b = 0;
    if (s.xx > 0 && det > 1e-12 * s.xx * s.yy) {
        a = (s.xt * s.yy - s.yt * s.xy) / det;
        b = (s.xx * s.yt - s.xy * s.xt) / det;
    } else if (s.xx > 0) {
        fit.note = "the sizes do not differ enough to tell latency from bandwidth";
        return fit;
    } else if (s.yy > 0) {
        b = s.yt / s.yy;  // no latency terms at all (one rank): bandwidth only
    }
    if (!(b > 0)) {
        fit.note = "time does not grow with size: sweep up to larger messages (-e)";
        return fit;
    }
    if (a < 0) {
        a = 0;
        b = s.yt / s.yy;
        fit.note = "alpha came out negative (noise on a tiny latency) and was set to 0";
    }
    fit.ok = true;
    fit.alpha_s = a;
    fit.bandwidth_bytes_per_s = 1.0 / b;
    fit.rms_relative_error = rms_relative_error(samples, a, b);
    return fit;
}

double fitted_time(const LinkFit& fit, Collective op, double bytes, int64_t ranks) noexcept {
    if (!fit.ok) return 0;
    return collective_time(op, bytes, ranks, Link{fit.bandwidth_bytes_per_s, fit.alpha_s});
}

Calibration calibrate(const std::vector<MeasureResult>& sweeps, const SingleGpuResult* single_gpu) {
    Calibration c;
    for (LinkClass link : {LinkClass::intra, LinkClass::inter}) {
        std::vector<AlphaBetaSample> samples;
        for (const MeasureResult& r : sweeps)
            if (r.link == link && r.ranks >= 2) {
                const auto more = alpha_beta_samples(r);
                samples.insert(samples.end(), more.begin(), more.end());
            }
        if (samples.empty()) continue;
        (link == LinkClass::intra ? c.intra : c.inter) = fit_alpha_beta(samples);
    }
    if (single_gpu) {
        if (single_gpu->copy_bytes_per_s > 0) c.hbm_bytes_per_s = single_gpu->copy_bytes_per_s;
        for (const GemmTiming& g : single_gpu->gemms)
            if (g.flops_per_s > 0 && (!c.best_gemm_flops_per_s || g.flops_per_s > *c.best_gemm_flops_per_s))
                c.best_gemm_flops_per_s = g.flops_per_s;
    }
    return c;
}

ClusterSpec calibrated_cluster(const ClusterSpec& base, const Calibration& c) {
    ClusterSpec out = base;
    const auto write_link = [](LinkSpec& spec, const std::optional<LinkFit>& fit) {
        if (!fit || !fit->ok) return;
        spec.bandwidth_gbps = round3(fit->bandwidth_bytes_per_s / 1e9);
        spec.latency_us = round3(fit->alpha_s * 1e6);
    };
    write_link(out.intra_node, c.intra);
    write_link(out.inter_node, c.inter);
    if (c.hbm_bytes_per_s) out.gpu.hbm_gbps = round3(*c.hbm_bytes_per_s / 1e9);
    if (c.best_gemm_flops_per_s && out.gpu.peak_tflops > 0)
        out.gpu.matmul_efficiency = std::min(1.0, round3(*c.best_gemm_flops_per_s / (out.gpu.peak_tflops * 1e12)));
    return out;
}

std::string cluster_preset_json(const ClusterSpec& cluster, const std::string& source) {
    // The scenario writer already knows the canonical cluster object; borrow it rather than repeat it.
    Scenario s = default_scenario();
    s.cluster = cluster;
    const Json scenario = Json::parse(scenario_to_json(s));
    Json out;
    out["schema"] = "shardscope.cluster-preset/1";
    out["source"] = source;
    out["cluster"] = scenario.at("cluster");
    return out.dump(2) + "\n";
}

std::string calibration_source(const std::vector<MeasureResult>& sweeps, const SingleGpuResult* single_gpu) {
    std::string text = "Measured with `shardscope measure`";
    std::set<std::string> devices;
    for (const MeasureResult& r : sweeps)
        if (!r.device.empty()) devices.insert(r.backend + ", " + r.device);
    if (single_gpu && !single_gpu->device.empty()) devices.insert(single_gpu->backend + ", " + single_gpu->device);
    for (const std::string& d : devices) text += " (" + d + ")";
    text += ".";
    for (const MeasureResult& r : sweeps)
        text += " " + std::string(measure_op_name(r.op)) +
                (r.algorithm.empty() ? std::string() : " (" + r.algorithm + " algorithm, point-to-point)") + " on " +
                std::to_string(r.ranks) + " ranks (" + std::string(to_string(r.link)) + "-node), " + size_range(r) +
                ", " + std::to_string(r.iters) + " iterations.";
    for (const MeasureResult& r : sweeps)
        if (r.backend == kCpuMeasureBackend) {
            text += " These are CPU/MPI measurements: MPI processes on CPU cores talking through shared memory (or "
                    "the network between machines), not GPUs over NVLink or InfiniBand.";
            break;
        }
    if (!sweeps.empty())
        text += " Link latency and bandwidth are a weighted least-squares fit of t = steps x alpha + "
                "bytes_factor x S / B to those timings.";
    if (single_gpu && single_gpu->copy_bytes_per_s > 0)
        text += " hbm_gbps is a device-to-device copy (read + write) of " + format_bytes(single_gpu->copy_bytes) + ".";
    if (single_gpu && !single_gpu->gemms.empty())
        text += " matmul_efficiency is the best bf16 cuBLAS GEMM at the model's shapes over peak_tflops.";
    return text;
}

std::vector<GemmShape> model_gemm_shapes(const Scenario& s) {
    const ModelSpec& m = s.model;
    if (!m.has_architecture() || m.heads <= 0) return {{"square 8192", 8192, 8192, 8192}};
    const int64_t tp = std::max<int64_t>(1, s.parallel.tp);
    const int64_t cp = std::max<int64_t>(1, s.parallel.cp);
    const int64_t tokens = std::max<int64_t>(1, s.training.micro_batch * m.seq_len / cp);
    const int64_t head_dim = m.hidden / m.heads;
    const int64_t kv_dim = (m.kv_heads > 0 ? m.kv_heads : m.heads) * head_dim;
    const int64_t ffn_matrices = m.ffn == Ffn::swiglu ? 2 : 1;  // swiglu's gate and up run as one GEMM
    std::vector<GemmShape> shapes;
    shapes.push_back({"QKV", tokens, (m.hidden + 2 * kv_dim) / tp, m.hidden});
    shapes.push_back({"attention out", tokens, m.hidden, m.hidden / tp});
    if (m.is_moe() && m.expert_ffn_hidden > 0) {
        // One expert's share of the micro-batch: tokens * top_k spread evenly over the experts.
        const int64_t routed = std::max<int64_t>(1, tokens * std::max<int64_t>(1, m.top_k) / m.experts);
        shapes.push_back({"expert FFN up", routed, ffn_matrices * m.expert_ffn_hidden / tp, m.hidden});
        shapes.push_back({"expert FFN down", routed, m.hidden, m.expert_ffn_hidden / tp});
    } else if (m.ffn_hidden > 0) {
        shapes.push_back({"FFN up", tokens, ffn_matrices * m.ffn_hidden / tp, m.hidden});
        shapes.push_back({"FFN down", tokens, m.hidden, m.ffn_hidden / tp});
    }
    shapes.erase(std::remove_if(shapes.begin(), shapes.end(),
                                [](const GemmShape& g) { return g.m <= 0 || g.n <= 0 || g.k <= 0; }),
                 shapes.end());
    return shapes;
}

std::vector<double> predicted_times(Collective op, int64_t ranks, const std::vector<double>& bytes, const Link& link) {
    std::vector<double> t;
    t.reserve(bytes.size());
    for (double b : bytes) t.push_back(collective_time(op, b, ranks, link));
    return t;
}

}  // namespace shardscope
