// `shardscope measure` as a user runs it. CI and this machine have no GPU: the command must
// say what is missing and how to get it, and exit 1. Where a GPU is present it measures instead, and
// the test then checks that figures came out. Bad flags exit 2 naming the flag, before any GPU work.

#include "app_runner.hpp"

#include <doctest/doctest.h>

#include <tuple>

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
    r = run_shardscope("measure --collective p2p", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--collective: 'p2p'") != std::string::npos);
    r = run_shardscope("measure -b 1X", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("-b: '1X' is not a size") != std::string::npos);
    r = run_shardscope("measure sendrecv_perf", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("'sendrecv_perf' is not one of nccl-tests' binaries measured here") != std::string::npos);
    r = run_shardscope("measure all_gather_perf --collective all_reduce", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("both name the collective") != std::string::npos);
    r = run_shardscope("measure -c x", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("-c: 'x' must be a whole number of iterations to check") != std::string::npos);
    r = run_shardscope("measure --help", dir);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("usage: shardscope measure") != std::string::npos);
}

TEST_CASE("measure: nccl-tests' -o, -d and the one-value flags mean what they mean in nccl-tests") {
    const auto dir = scratch_dir("measure-nccl-flags");
    // -o is the reduction operator there: a collective given to it is pointed to --collective.
    RunResult r = run_shardscope("measure -o all_gather", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("-o/--op: 'all_gather' is a collective, but -o is nccl-tests' reduction operator") != std::string::npos);
    CHECK(r.err.find("--collective all_gather") != std::string::npos);
    for (const char* op : {"prod", "min", "max", "avg", "mulsum", "all"}) {
        r = run_shardscope(std::string("measure -o ") + op, dir);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("Shardscope times the sum reduction only") != std::string::npos);
    }
    r = run_shardscope("measure -d bfloat16", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("-d/--datatype: 'bfloat16': Shardscope times float (4-byte) elements only") != std::string::npos);
    // Each of -t, -a, -m, -z, -G, -N at another value than the one Shardscope runs: refused, saying which.
    for (const auto& [flag, value, runs] : {std::tuple{"-t", "2", "1"}, std::tuple{"-a", "1", "3"}, std::tuple{"-m", "4", "1"},
                                            std::tuple{"-z", "1", "0"}, std::tuple{"-G", "10", "0"}, std::tuple{"-N", "0", "1"}}) {
        CAPTURE(flag);
        r = run_shardscope(std::string("measure ") + flag + " " + value, dir);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find(std::string(": '") + value + "': Shardscope runs " + runs + " only (") != std::string::npos);
    }
}

namespace {

// glibc's loader names every library it maps under LD_DEBUG=files ("file=libcudart.so.13 [0]; needed
// by ..."), whatever the build.
bool maps_a_cuda_library(const std::string& loader_log) {
    for (const char* lib : {"file=libcudart", "file=libcublas", "file=libnccl", "file=libcuda."})
        if (loader_log.find(lib) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("only measuring maps a CUDA library: --version, plan, report and the window never do") {
    const auto dir = scratch_dir("measure-maps");
    const std::string model = "'" SHARDSCOPE_SOURCE_DIR "/assets/models/llama3-8b.json'";
    for (const std::string& args : {std::string("--version"), "report --model " + model,
                                   "plan --model " + model + " --top 1",
                                   "--frames 1 --size 640x480 --screenshot '" + (dir / "w.png").string() + "'"}) {
        const RunResult r = run_shardscope(args, dir, "LD_DEBUG=files");
        CAPTURE(args);
        CHECK(r.exit_code == 0);
        CHECK_FALSE(maps_a_cuda_library(r.err));
        CHECK(r.err.find("shardscope_measure_cuda") == std::string::npos);
    }
}

#ifdef SHARDSCOPE_TEST_CUDA_PLUGIN
TEST_CASE("measure loads the CUDA plugin, and a missing or broken one is refused in words") {
    const auto dir = scratch_dir("measure-plugin");
    RunResult r = run_shardscope("measure -e 1M -n 2 -w 1", dir, "LD_DEBUG=files");
    CHECK(r.err.find("libshardscope_measure_cuda.so") != std::string::npos);
    CHECK(maps_a_cuda_library(r.err));

    r = run_shardscope("measure", dir, "SHARDSCOPE_MEASURE_PLUGIN=/nonexistent/plugin.so");
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err.find("could not be loaded (/nonexistent/plugin.so: cannot open shared object file") != std::string::npos);
    CHECK(r.err.find("-DSHARDSCOPE_CUDA=ON") != std::string::npos);

    const auto junk = dir / "junk.so";
    std::ofstream(junk) << "not a shared object";
    r = run_shardscope("measure", dir, "SHARDSCOPE_MEASURE_PLUGIN='" + junk.string() + "'");
    CHECK(r.exit_code == 1);
    CHECK(r.err.find(junk.string()) != std::string::npos);
    CHECK(r.err.find("could not be loaded") != std::string::npos);
}
#endif
