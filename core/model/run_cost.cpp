#include "core/model/run_cost.hpp"

#include "core/model/memory.hpp"
#include "core/scenario/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shardscope {

double first_order_goodput(double mtbf_s, double checkpoint_s, double interval_s, double restart_s) noexcept {
    const double period = interval_s + checkpoint_s;
    if (!(period > 0) || !(mtbf_s > 0)) return 0.0;
    const double lost_per_interruption = period / 2.0 + restart_s;
    return std::max(0.0, interval_s / period * (1.0 - lost_per_interruption / mtbf_s));
}

namespace {

// What a checkpoint holds: the weights and the optimizer state as the precision keeps them.
double checkpoint_bytes(const Scenario& s, double params) {
    const StateBytesPerParam per = state_bytes_per_param(s.training);
    return params * (per.weights + per.optimizer);
}

// The job's mean time between interruptions, hours: the GPUs' over their count.
double job_mtbf_hours(const RunSpec& run, int64_t gpus) {
    return run.gpu_mtbf_hours.value_or(kLlama3GpuMtbfHours) / static_cast<double>(std::max<int64_t>(1, gpus));
}

// Young's optimum interval between checkpoints.
double young_interval_s(double checkpoint_s, double mtbf_s) { return std::sqrt(2.0 * checkpoint_s * mtbf_s); }

}  // namespace

std::vector<GoodputAtSize> goodput_by_job_size(const Scenario& s, const RunSpec& run, double params,
                                               const std::vector<int64_t>& gpus) {
    const double checkpoint_s = checkpoint_bytes(s, params) / (run.checkpoint_write_gbps * 1e9);
    const double restart_s = run.restart_minutes.value_or(0.0) * 60.0;
    std::vector<GoodputAtSize> out;
    for (const int64_t n : gpus) {
        const double mtbf_s = job_mtbf_hours(run, n) * 3600.0;
        out.push_back({n, first_order_goodput(mtbf_s, checkpoint_s, young_interval_s(checkpoint_s, mtbf_s), restart_s)});
    }
    return out;
}

RunFigures run_figures(const Scenario& s, const RunSpec& run, double tokens_per_s, double params, int64_t gpus) {
    RunFigures f;
    const double n = static_cast<double>(std::max<int64_t>(1, gpus));
    const double ideal_s = run.tokens / tokens_per_s;
    f.ideal_days = ideal_s / 86400.0;
    const double gpu_mtbf = run.gpu_mtbf_hours.value_or(kLlama3GpuMtbfHours);
    f.job_mtbf_hours = job_mtbf_hours(run, gpus);
    f.checkpoint_bytes = checkpoint_bytes(s, params);
    f.checkpoint_s = f.checkpoint_bytes / (run.checkpoint_write_gbps * 1e9);
    const double mtbf_s = f.job_mtbf_hours * 3600.0;
    f.checkpoint_interval_s = young_interval_s(f.checkpoint_s, mtbf_s);
    const double restart_s = run.restart_minutes.value_or(0.0) * 60.0;
    f.goodput = first_order_goodput(mtbf_s, f.checkpoint_s, f.checkpoint_interval_s, restart_s);
    if (f.goodput > 0) {
        f.days = f.ideal_days / f.goodput;
        f.gpu_hours = n * f.days * 24.0;
        if (run.usd_per_gpu_hour) f.usd = f.gpu_hours * *run.usd_per_gpu_hour;
        if (s.cluster.gpu.board_power_w)
            f.energy_mwh = f.gpu_hours * *s.cluster.gpu.board_power_w * run.pue.value_or(1.0) / 1e6;
    }
    f.notes.push_back("run: interruptions every " + format_fixed(f.job_mtbf_hours, 2) + " h of the job (" +
                      (run.gpu_mtbf_hours ? format_fixed(gpu_mtbf, 0) + " GPU-hours between them, as given"
                                          : "the Llama 3 report's 419 in 54 days on 16,384 GPUs, 50,677 GPU-hours") +
                      "); a checkpoint of " + format_memory(f.checkpoint_bytes) + " (weights and optimizer state) in " +
                      format_seconds(f.checkpoint_s) + ", every " + format_seconds(f.checkpoint_interval_s) +
                      " (Young's optimum); " +
                      (run.restart_minutes ? format_fixed(*run.restart_minutes, 1) + " min a restart"
                                           : std::string("no restart time given (0)")));
    if (f.goodput <= 0)
        f.notes.push_back("run: no goodput: interruptions come faster than a checkpoint interval and its restart");
    if (f.energy_mwh)
        f.notes.push_back("run: energy at " + format_fixed(*s.cluster.gpu.board_power_w, 0) +
                          " W a GPU (its board power, an upper bound) x PUE " + format_fixed(run.pue.value_or(1.0), 2) +
                          (run.pue ? "" : " (none given: the GPUs alone)"));
    return f;
}

}  // namespace shardscope
