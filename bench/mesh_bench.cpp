// mesh_bench: CPU time per frame of the Device mesh panel at 64, 16,384 and 131,072 GPUs, headless
// ImGui (no GL), the whole mesh in view (the default fitted zoom). The goal is that the 131,072-GPU
// frame cost at most 3x the 64-GPU one: the panel's caches (per scenario version, dim and view) keep a
// zoomed-out frame free of per-GPU work. It prints; it asserts nothing. Build Release to quote it.
#include "bench/panel_timings.hpp"

#include <cstdio>
#include <vector>

using namespace shardscope;

int main() {
    constexpr int kTimedFrames = 300;
    std::printf("Device mesh panel, CPU time per frame (median of %d frames, whole mesh in view, colouring dp_shard)\n",
                kTimedFrames);
    std::printf("%10s  %12s  %12s  %s\n", "GPUs", "panel (us)", "frame (us)", "drawn");
    std::vector<bench::MeshTiming> timings;
    for (const bench::MeshCase& c : bench::mesh_cases()) {
        const std::string rule = validate_scenario(c.scenario);
        if (!rule.empty()) {
            std::fprintf(stderr, "mesh_bench: the %s-GPU scenario is invalid: %s\n", c.gpus.c_str(), rule.c_str());
            return 1;
        }
        timings.push_back(bench::time_mesh_panel(c.scenario, 10, kTimedFrames));
        const bench::MeshTiming& t = timings.back();
        std::printf("%10s  %12.1f  %12.1f  %zu cells (%s)\n", c.gpus.c_str(), t.panel_us, t.frame_us, t.cells,
                    t.level.c_str());
    }
    const double ratio = timings.back().panel_us / timings.front().panel_us;
    const double frame_ratio = timings.back().frame_us / timings.front().frame_us;
    std::printf("ratio 131,072 / 64: panel %.2fx, frame %.2fx (the goal: at most 3x)\n", ratio, frame_ratio);
    return 0;
}
