// `shardscope measure` as a user runs it. CI and this machine have no GPU: the command must
// say what is missing and how to get it, and exit 1. Where a GPU is present it measures instead, and
// the test then checks that figures came out. Bad flags exit 2 naming the flag, before any GPU work.

#include "app_runner.hpp"

#include <doctest/doctest.h>

using namespace shardscope::test;

TEST_CASE("measure without a usable GPU exits 1 and says what is missing and how to get it") {
    const auto dir = scratch_dir("measure-nogpu");
    const RunResult r = run_shardscope("measure -e 1M -n 2 -w 1", dir);
    if (r.exit_code == 0) {  // a machine with a GPU: it measured (a sweep, or one GPU's HBM and GEMMs)
        CHECK((r.out.find("busbw") != std::string::npos || r.out.find("HBM") != std::string::npos));
        return;
    }
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    // Either no backend was built (how to build it) or no GPU was found (how to get one seen).
    const bool no_backend = r.err.find("SHARDSCOPE_CUDA=ON") != std::string::npos;
    const bool no_device = r.err.find("nvidia-smi") != std::string::npos;
    CHECK_MESSAGE((no_backend || no_device), r.err);
}

TEST_CASE("measure refuses bad flags with exit 2, naming the flag") {
    const auto dir = scratch_dir("measure-flags");
    RunResult r = run_shardscope("measure -f 1", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("-f: 1 must be greater than 1") != std::string::npos);
    r = run_shardscope("measure --op p2p", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--op: 'p2p'") != std::string::npos);
    r = run_shardscope("measure -b 1X", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("-b: '1X' is not a size") != std::string::npos);
    r = run_shardscope("measure --help", dir);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("usage: shardscope measure") != std::string::npos);
}
