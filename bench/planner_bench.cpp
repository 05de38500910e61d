// planner_bench: the planner's speed cases (bench/planner_cases.hpp), timed on one thread (the goal)
// and on every core. `shardscope bench` prints the same figures alongside the app's frame times. The
// DeepSeek-V3 case runs on the H100 preset of this source tree (assets/clusters/dgx-h100.json).
#include "bench/planner_cases.hpp"

#include "core/scenario/presets.hpp"
#include "core/scenario/units.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace {

std::optional<shardscope::ClusterSpec> source_tree_h100() {
    std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/clusters/dgx-h100.json");
    std::ostringstream text;
    text << in.rdbuf();
    const shardscope::ClusterPresetLoad load = shardscope::parse_cluster_preset(text.str());
    if (!load.ok()) {
        std::fprintf(stderr, "planner_bench: assets/clusters/dgx-h100.json: %s (DeepSeek-V3 left out)\n",
                     load.error.c_str());
        return std::nullopt;
    }
    return load.preset->cluster;
}

}  // namespace

int main() {
    using namespace shardscope;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::printf("%-40s %8s %12s %8s %12s %10s %14s\n", "case", "threads", "total time", "goal", "candidates",
                "costed", "candidates/s");
    for (const bench::PlannerCase& c : bench::planner_cases(source_tree_h100())) {
        for (int threads : {1, 0}) {
            if (threads == 0 && cores == 1) continue;  // the same run again
            const bench::PlannerTiming t = bench::time_planner(c, threads);
            std::printf("%-40s %8u %12s %8s %12lld %10lld %12.3g/s\n", c.name.c_str(), threads == 0 ? cores : 1u,
                        format_seconds(t.seconds).c_str(), threads == 1 ? c.goal.c_str() : "",
                        static_cast<long long>(t.stats.candidates), static_cast<long long>(t.stats.costed),
                        static_cast<double>(t.stats.candidates) / t.seconds);
            if (threads == 1) std::printf("  best: %s\n", t.best.c_str());
        }
    }
    return 0;
}
