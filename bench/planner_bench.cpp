// planner_bench: the planner's two cases of issue 8, timed on one core. `shardscope bench` prints the
// same figures alongside the app's frame times.
#include "bench/planner_cases.hpp"

#include "core/units.hpp"

#include <cstdio>

int main() {
    using namespace shardscope;
    std::printf("%-30s %12s %12s %14s %14s\n", "case", "total time", "candidates", "costed", "candidates/s");
    for (const bench::PlannerCase& c : bench::planner_cases()) {
        const bench::PlannerTiming t = bench::time_planner(c.scenario, 3);
        std::printf("%-30s %12s %12lld %14lld %12.3g/s\n", c.name.c_str(), format_seconds(t.seconds).c_str(),
                    static_cast<long long>(t.stats.candidates), static_cast<long long>(t.stats.costed),
                    static_cast<double>(t.stats.candidates) / t.seconds);
        std::printf("  best: %s\n", t.best.c_str());
    }
    return 0;
}
