// The CPU backend end to end: `mpirun -np 4 shardscope measure --backend cpu` on this machine's cores,
// MPI's own collectives and the animator's algorithms over point-to-point messages, each checked
// element by element against the closed form (--check); then the mpirun launch the Measure panel uses,
// with its progress and its cancel. Figures are asserted sane (sizes as asked, finite positive times,
// a fit that holds), never fast: 4 ranks share 2 cores here.

#include "app_runner.hpp"

#include "app/mpirun_measurer.hpp"
#include "core/measure/calibration.hpp"
#include "core/measure/measure.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

using namespace shardscope;
using namespace shardscope::test;

#ifdef SHARDSCOPE_TEST_CPU_MPI

namespace {

// Open MPI refuses root without --allow-run-as-root, and more ranks than cores without --oversubscribe.
std::string mpirun_prefix(int ranks) {
    const std::string mpirun = app::find_mpirun();
    REQUIRE_MESSAGE(!mpirun.empty(), "mpirun is not on PATH: scripts/test installs openmpi-bin");
    return "'" + mpirun + "' --oversubscribe" + (geteuid() == 0 ? " --allow-run-as-root" : "") + " -np " +
           std::to_string(ranks) + " ";
}

RunResult run_under_mpirun(int ranks, const std::string& args, const std::string& name) {
    const auto dir = scratch_dir(name);
    const std::string cmd = mpirun_prefix(ranks) + "'" SHARDSCOPE_EXE "' " + args + " > '" + (dir / "out").string() +
                            "' 2> '" + (dir / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(dir / "out");
    r.err = slurp(dir / "err");
    return r;
}

MeasureResult parsed(const RunResult& r) {
    const MeasureResultLoad load = parse_measure_result(r.out);
    REQUIRE_MESSAGE(load.ok(), std::string(load.error + "\nstdout: " + r.out + "\nstderr: " + r.err));
    return *load.result;
}

void check_sane_rows(const MeasureResult& m, std::size_t expected_rows) {
    REQUIRE(m.rows.size() == expected_rows);
    for (std::size_t i = 0; i < m.rows.size(); ++i) {
        const TimingRow& row = m.rows[i];
        CAPTURE(row.bytes);
        if (i > 0) CHECK(row.bytes > m.rows[i - 1].bytes);
        CHECK(std::isfinite(row.time_s));
        CHECK(row.time_s > 0);
        CHECK(std::isfinite(row.busbw));
        CHECK(row.busbw > 0);
        REQUIRE(row.wrong.has_value());
        CHECK(*row.wrong == 0);
    }
}

}  // namespace

TEST_CASE("4 CPU ranks: MPI's all-reduce delivers the closed form, one row per size, and the fit is made") {
    const RunResult r = run_under_mpirun(4, "measure --backend cpu --check -b 64K -e 16M -f 4 -n 10 -w 2 --format json",
                                         "measure-cpu-allreduce");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const MeasureResult m = parsed(r);
    CHECK(m.backend == "cpu-mpi");
    CHECK(m.ranks == 4);
    CHECK(m.link == LinkClass::intra);  // one machine
    CHECK(m.algorithm.empty());         // MPI's own collective
    CHECK(m.device.find("4 x CPU rank") == 0);
    // 64K, 256K, 1M, 4M, 16M.
    check_sane_rows(m, 5);
    CHECK(m.rows.front().count == 16384);
    const LinkFit fit = fit_alpha_beta(alpha_beta_samples(m));
    REQUIRE_MESSAGE(fit.ok, fit.note);
    CHECK(fit.alpha_s >= 0);
    CHECK(std::isfinite(fit.bandwidth_bytes_per_s));
    CHECK(fit.bandwidth_bytes_per_s > 0);
    CHECK(std::isfinite(fit.rms_relative_error));
    // How well the form fits depends on what else the cores run (a loaded CI machine bent it past any
    // bound): no figure is asserted, only that 256 times the bytes take longer.
    CHECK(m.rows.back().time_s > m.rows.front().time_s);
}

TEST_CASE("nccl-tests' own command line runs on CPU ranks: the binary's name, -o sum, -d float, -c 1, -a 3") {
    const RunResult r = run_under_mpirun(
        4, "measure reduce_scatter_perf -b 4K -e 64K -f 4 -n 3 -w 1 -o sum -d float -c 1 -t 1 -a 3 -m 1 -z 0 -G 0 -N 1 "
           "--backend cpu --format json",
        "measure-cpu-nccl-flags");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const MeasureResult m = parsed(r);
    CHECK(m.op == Collective::reduce_scatter);
    CHECK(m.ranks == 4);
    // 4K, 16K, 64K; a rank's piece of 4 KiB is 256 floats.
    check_sane_rows(m, 3);
    CHECK(m.rows.front().count == 256);
}

TEST_CASE("every algorithm the animator steps runs between real processes and delivers the closed form") {
    struct Case {
        const char* flags;
        const char* algorithm;
    };
    const Case cases[] = {
        {"--collective all_reduce --algorithm ring", "ring"},
        {"--collective all_reduce --algorithm double_binary_tree", "double_binary_tree"},
        {"--collective all_reduce --algorithm hierarchical --ranks-per-node 2", "hierarchical"},
        {"--collective all_gather --algorithm ring", "ring"},
        {"--collective reduce_scatter --algorithm ring", "ring"},
        {"--collective broadcast --algorithm tree", "tree"},
        {"--collective broadcast --algorithm ring", "ring"},
        {"--collective all_to_all --algorithm pairwise", "pairwise"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.flags);
        // 8 bytes split four ways is nothing for the per-rank ops: 16 B and 4 KiB keep one element per rank.
        const RunResult r = run_under_mpirun(
            4, std::string("measure --backend cpu --check -b 16 -e 4K -f 16 -n 3 -w 1 --format json ") + c.flags,
            "measure-cpu-algorithms");
        REQUIRE_MESSAGE(r.exit_code == 0, r.err);
        const MeasureResult m = parsed(r);
        CHECK(m.algorithm == c.algorithm);
        check_sane_rows(m, 3);  // 16 B, 256 B, 4 KiB
    }
}

TEST_CASE("the CPU backend's refusals name the flag: one rank, a node size that does not divide, a GPU-only flag") {
    RunResult r = run_under_mpirun(3, "measure --backend cpu --algorithm hierarchical --ranks-per-node 2 -e 1K",
                                   "measure-cpu-refusals");
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.err.find("--ranks-per-node: 2 does not divide ranks (3)") != std::string::npos, r.err);
    r = run_under_mpirun(1, "measure --backend cpu -e 1K", "measure-cpu-refusals");
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.err.find("two or more ranks") != std::string::npos, r.err);
    const auto dir = scratch_dir("measure-cpu-flags");
    r = run_shardscope("measure --algorithm ring", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--algorithm: the GPU backend times NCCL's own choice") != std::string::npos);
    r = run_shardscope("measure --backend cpu --collective all_gather --algorithm double_binary_tree", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--algorithm: double_binary_tree is not an algorithm for all_gather (mpi or ring)") !=
          std::string::npos);
}

TEST_CASE("--save-cluster from CPU ranks writes a preset that says it was measured on CPU ranks over MPI") {
    const auto dir = scratch_dir("measure-cpu-save");
    const std::string path = (dir / "cpu-cluster.json").string();
    const RunResult r = run_under_mpirun(4, "measure --backend cpu -b 4K -e 4M -f 8 -n 5 -w 1 --save-cluster '" + path + "'",
                                         "measure-cpu-save-run");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const std::string preset = slurp(path);
    CHECK(preset.find("cpu-mpi") != std::string::npos);
    CHECK(preset.find("CPU rank") != std::string::npos);
    CHECK(preset.find("\"intra_node\"") != std::string::npos);
}

TEST_CASE("the panel's mpirun launch: rows arrive one by one as progress, and a cancel ends the job") {
    const auto measurer = app::make_mpirun_measurer(SHARDSCOPE_EXE);
    const BackendStatus status = measurer->status();
    REQUIRE_MESSAGE(status.ready, status.message);
    CHECK(status.unit == "CPU rank");
    CHECK(status.animator_algorithms);

    SweepSpec spec;
    spec.op = Collective::all_reduce;
    spec.algorithm = StepAlgorithm::ring;
    spec.min_bytes = 1024;
    spec.max_bytes = 1024 * 1024;
    spec.factor = 4;  // 1K, 4K, 16K, 64K, 256K, 1M
    spec.iters = 3;
    spec.warmup = 1;
    spec.check = true;
    std::vector<std::size_t> seen;
    const MeasureResult full = measurer->measure(spec, [&](std::size_t done, std::size_t total, const TimingRow* row) {
        CHECK(total == 6);
        if (row) seen.push_back(done);
        return true;
    });
    REQUIRE_MESSAGE(full.ok(), full.error);
    CHECK(seen == std::vector<std::size_t>{1, 2, 3, 4, 5, 6});
    CHECK(full.ranks == 4);
    CHECK(full.algorithm == "ring");
    check_sane_rows(full, 6);

    spec.max_bytes = 64.0 * 1024 * 1024;  // long enough that cancelling after two rows stops it early
    std::size_t rows_seen = 0;
    const MeasureResult cut = measurer->measure(spec, [&](std::size_t, std::size_t, const TimingRow* row) {
        if (row) ++rows_seen;
        return rows_seen < 2;
    });
    CHECK(cut.cancelled);
    CHECK(cut.rows.size() == 2);  // what came before the cancel; the ranks were ended (measure waits for mpirun)
}

#else

TEST_CASE("this build has no CPU/MPI backend: --backend cpu says how to get it") {
    const auto dir = scratch_dir("measure-cpu-missing");
    const RunResult r = run_shardscope("measure --backend cpu", dir);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("libopenmpi-dev") != std::string::npos);
}

#endif
