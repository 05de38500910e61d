#pragma once
// The whole training run, not one step: how long a token budget takes at the step's rate, what the
// failures a large job meets and the checkpoints that bound their loss cost it, in days, GPU-hours,
// money and energy (the scenario's optional `run` block).
//
// - Interruptions arrive at random, one every gpu_mtbf_hours / GPUs hours of the job. Default: the
//   Llama 3 report's rate, 419 unexpected interruptions in 54 days on 16,384 GPUs (Llama 3 Team 2024,
//   section 3.3.4): 16,384 x 54 x 24 / 419 = 50,677 GPU-hours between them.
// - A checkpoint holds the weights and the optimizer state as the precision keeps them (not the
//   gradients), written at the storage's aggregate bandwidth while training waits.
// - The interval between checkpoints is Young's optimum, sqrt(2 x checkpoint time x job MTBF)
//   (J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974).
// - Goodput, the share of wall time that trains, to first order: of each interval and its write only
//   the interval trains, and each interruption costs, on average, half an interval and its write of
//   lost work plus the restart.
// - Energy at each GPU's board power (the datasheet's TDP, an upper bound on its draw) times the
//   data centre's PUE.

#include "core/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shardscope {

// The Llama 3 report's interruption rate, in GPU-hours between interruptions.
inline constexpr double kLlama3GpuMtbfHours = 16384.0 * 54.0 * 24.0 / 419.0;

struct RunFigures {
    double ideal_days = 0;             // tokens / tokens_per_s, no failure
    double job_mtbf_hours = 0;         // gpu_mtbf_hours / GPUs
    double checkpoint_bytes = 0;       // the whole model's weights and optimizer state
    double checkpoint_s = 0;           // one checkpoint at the storage's bandwidth
    double checkpoint_interval_s = 0;  // Young's optimum
    double goodput = 0;                // share of wall time that trains, (0, 1]
    double days = 0;                   // ideal_days / goodput
    double gpu_hours = 0;
    std::optional<double> usd;         // with run.usd_per_gpu_hour
    std::optional<double> energy_mwh;  // with cluster.gpu.board_power_w
    std::vector<std::string> notes;
};

// Needs the step's tokens per second (> 0), the GPU count and the model's parameter count.
[[nodiscard]] RunFigures run_figures(const Scenario& s, const RunSpec& run, double tokens_per_s, double params,
                                     int64_t gpus);

// How goodput falls as the job grows: the same run's goodput at each GPU count in `gpus` (the same
// checkpoint, written at the same bandwidth; only the job's MTBF shrinks with its size).
struct GoodputAtSize {
    int64_t gpus = 0;
    double goodput = 0;
};
[[nodiscard]] std::vector<GoodputAtSize> goodput_by_job_size(const Scenario& s, const RunSpec& run, double params,
                                                             const std::vector<int64_t>& gpus);

// Goodput of a job of this MTBF (seconds) with this checkpoint time, interval and restart (seconds):
// interval / (interval + write) x (1 - ((interval + write) / 2 + restart) / mtbf), never below 0.
[[nodiscard]] double first_order_goodput(double mtbf_s, double checkpoint_s, double interval_s, double restart_s) noexcept;

}  // namespace shardscope
