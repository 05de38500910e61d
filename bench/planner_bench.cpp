// planner_bench: the planner's two speed cases, timed on one thread (the goal) and on every core. `shardscope bench` prints the
// same figures alongside the app's frame times.
#include "bench/planner_cases.hpp"

#include "core/scenario/units.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

int main() {
    using namespace shardscope;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::printf("%-30s %8s %12s %12s %10s %14s\n", "case", "threads", "total time", "candidates", "costed",
                "candidates/s");
    for (const bench::PlannerCase& c : bench::planner_cases()) {
        for (int threads : {1, 0}) {
            if (threads == 0 && cores == 1) continue;  // the same run again
            const bench::PlannerTiming t = bench::time_planner(c.scenario, 5, threads);
            std::printf("%-30s %8u %12s %12lld %10lld %12.3g/s\n", c.name.c_str(), threads == 0 ? cores : 1u,
                        format_seconds(t.seconds).c_str(), static_cast<long long>(t.stats.candidates),
                        static_cast<long long>(t.stats.costed), static_cast<double>(t.stats.candidates) / t.seconds);
            if (threads == 1) std::printf("  best: %s\n", t.best.c_str());
        }
    }
    return 0;
}
