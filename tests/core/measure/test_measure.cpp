// The measure backend's pure half: nccl-tests' size sweep and bandwidth columns, the
// alpha-beta fit on synthetic timings with known alpha and B, the calibrated cluster preset, the JSON
// of results, and the "no backend" path this GPU-less build takes. Expected values worked by hand.

#include "core/measure/calibration.hpp"
#include "core/measure/measure.hpp"
#include "core/scenario/presets.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

using namespace shardscope;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

// t = steps * alpha + factor * S / B for every size of the sweep, times (1 + noise * u) with u a
// fixed pseudo-random sequence in [-1, 1] (a linear congruential generator: same numbers every run).
MeasureResult synthetic_sweep(Collective op, int ranks, double alpha, double bandwidth, double noise,
                              double min_bytes = 8, double max_bytes = kGiB) {
    MeasureResult r;
    r.backend = "synthetic";
    r.op = op;
    r.ranks = ranks;
    r.iters = 20;
    SweepSpec spec;
    spec.op = op;
    spec.min_bytes = min_bytes;
    spec.max_bytes = max_bytes;
    uint32_t state = 12345;
    for (const SweepSize& size : sweep_sizes(spec, ranks)) {
        state = state * 1664525u + 1013904223u;
        const double u = static_cast<double>(state >> 8) / static_cast<double>(1u << 24) * 2.0 - 1.0;
        const double t = collective_time(op, size.bytes, ranks, Link{bandwidth, alpha}) * (1.0 + noise * u);
        r.rows.push_back(make_timing_row(op, size, t, ranks));
    }
    return r;
}

struct FakeMeasurer final : Measurer {
    std::string name() const override { return "fake"; }
    BackendStatus status() override { return {true, 2, {"Fake GPU", "Fake GPU"}, "2 fake GPUs"}; }
    MeasureResult measure(const SweepSpec& spec, const MeasureProgress& progress) override {
        MeasureResult r;
        r.op = spec.op;
        r.ranks = 2;
        const auto sizes = sweep_sizes(spec, 2);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            r.rows.push_back(make_timing_row(spec.op, sizes[i], 1e-5, 2));
            if (progress && !progress(i + 1, sizes.size(), &r.rows.back())) {
                r.cancelled = true;
                break;
            }
        }
        return r;
    }
    SingleGpuResult measure_single_gpu(const std::vector<GemmShape>&, double, int, int, const MeasureProgress&) override {
        return {};
    }
};

}  // namespace

TEST_CASE("nccl-tests columns: algbw = S / t, busbw = algbw x factor") {
    // all-reduce of 1 GiB on 8 ranks in 5 ms: algbw = 1073741824 / 0.005 = 214.748 GB/s,
    // busbw = 214.748 x 2(8-1)/8 = 214.748 x 1.75 = 375.810 GB/s.
    const TimingRow ar = make_timing_row(Collective::all_reduce, {kGiB, 268435456}, 5e-3, 8);
    CHECK(ar.algbw == doctest::Approx(214.7483648e9));
    CHECK(ar.busbw == doctest::Approx(375.8096384e9));
    CHECK(ar.count == 268435456);
    CHECK_FALSE(ar.wrong.has_value());
    // all-gather of 64 MiB on 4 ranks in 1 ms: algbw 67.108864 GB/s, busbw x 3/4 = 50.331648 GB/s.
    const TimingRow ag = make_timing_row(Collective::all_gather, {64 * kMiB, 4194304}, 1e-3, 4);
    CHECK(ag.algbw == doctest::Approx(67.108864e9));
    CHECK(ag.busbw == doctest::Approx(50.331648e9));
    // broadcast: the bus carries the message once, busbw = algbw.
    const TimingRow bc = make_timing_row(Collective::broadcast, {1e6, 250000}, 1e-4, 8);
    CHECK(bc.busbw == doctest::Approx(bc.algbw));
    CHECK(bc.algbw == doctest::Approx(1e10));
    // Average bus bandwidth: the mean of the rows' busbw.
    MeasureResult r;
    r.rows = {ar, ag};
    CHECK(average_busbw(r) == doctest::Approx((375.8096384e9 + 50.331648e9) / 2));
}

TEST_CASE("sweep sizes: -b 8 -e 128 -f 2, whole elements, split ops round to a multiple of ranks") {
    SweepSpec spec;
    spec.min_bytes = 8;
    spec.max_bytes = 128;
    const auto ar = sweep_sizes(spec, 8);
    REQUIRE(ar.size() == 5);  // 8 16 32 64 128
    CHECK(ar[0].bytes == 8);
    CHECK(ar[0].count == 2);
    CHECK(ar[4].bytes == 128);
    CHECK(ar[4].count == 32);

    // all-gather on 3 ranks: a unit is 3 floats = 12 B. 8 -> 0 (dropped), 16 -> 12 (1 per rank),
    // 32 -> 24 (2), 64 -> 60 (5), 128 -> 120 (10).
    spec.op = Collective::all_gather;
    const auto ag = sweep_sizes(spec, 3);
    REQUIRE(ag.size() == 4);
    CHECK(ag[0].bytes == 12);
    CHECK(ag[0].count == 1);
    CHECK(ag[2].bytes == 60);
    CHECK(ag[2].count == 5);

    // -f 4: 8, 32, 128. -b == -e: one size whatever the factor.
    spec.op = Collective::all_reduce;
    spec.factor = 4;
    CHECK(sweep_sizes(spec, 2).size() == 3);
    spec.min_bytes = spec.max_bytes = 1 * kMiB;
    spec.factor = 1;
    CHECK(validate_sweep(spec).empty());
    REQUIRE(sweep_sizes(spec, 2).size() == 1);
    CHECK(sweep_sizes(spec, 2)[0].count == 262144);
    // 1000 x 2^k lands on 8000 despite rounding.
    spec.min_bytes = 1000;
    spec.max_bytes = 8000;
    spec.factor = 2;
    CHECK(sweep_sizes(spec, 2).size() == 4);
}

TEST_CASE("NCCL buffers as nccl-tests sizes them: count 1000 on 4 ranks") {
    // ncclAllGather(send, recv, count): recv holds every rank's count; ncclReduceScatter(send, recv,
    // recvcount): send holds a count for every rank; all-to-all sends and receives a count per peer.
    const auto b = [](Collective op) { return nccl_buffer_elements(op, 1000, 4); };
    CHECK(b(Collective::all_reduce).send == 1000);
    CHECK(b(Collective::all_reduce).recv == 1000);
    CHECK(b(Collective::broadcast).send == 1000);
    CHECK(b(Collective::broadcast).recv == 1000);
    CHECK(b(Collective::all_gather).send == 1000);
    CHECK(b(Collective::all_gather).recv == 4000);
    CHECK(b(Collective::reduce_scatter).send == 4000);
    CHECK(b(Collective::reduce_scatter).recv == 1000);
    CHECK(b(Collective::all_to_all).send == 4000);
    CHECK(b(Collective::all_to_all).recv == 4000);
}

TEST_CASE("a sweep's sizes are named in bytes, not in scientific notation") {
    SweepSpec spec;
    spec.min_bytes = 1073741824.0;  // -b 1G
    spec.max_bytes = 8;
    CHECK(validate_sweep(spec) == "-e: 8.00 B must be at least -b (1.00 GiB)");  // format_bytes, as every panel writes sizes
    spec = SweepSpec{};
    spec.max_bytes = 100.0 * 1073741824.0;  // -e 100G
    CHECK(validate_sweep(spec) == "-e: 100 GiB exceeds the limit of 64 GiB");
}

TEST_CASE("sweep flags are checked with the flag named") {
    SweepSpec spec;
    spec.factor = 1;
    CHECK(validate_sweep(spec).rfind("-f:", 0) == 0);
    spec = SweepSpec{};
    spec.iters = 0;
    CHECK(validate_sweep(spec).rfind("-n:", 0) == 0);
    spec = SweepSpec{};
    spec.min_bytes = 2;
    CHECK(validate_sweep(spec).rfind("-b:", 0) == 0);
    spec = SweepSpec{};
    spec.max_bytes = 4;
    CHECK(validate_sweep(spec).rfind("-e:", 0) == 0);
    CHECK(measure_op_from_string("all-reduce") == Collective::all_reduce);
    CHECK(measure_op_from_string("all_to_all") == Collective::all_to_all);
    CHECK_FALSE(measure_op_from_string("p2p").has_value());
}

TEST_CASE("the same sweep as a command line, ours and nccl-tests'") {
    SweepSpec spec;  // defaults: all_reduce, 8 B .. 128 MiB, x2, 20 iterations, 5 warm-up
    CHECK(sweep_command_line(spec, false) == "shardscope measure --collective all_reduce -b 8 -e 128M -f 2 -n 20 -w 5");
    spec.op = Collective::all_to_all;
    spec.min_bytes = 1536;
    spec.max_bytes = 4.0 * kGiB;
    spec.gpus = 8;
    spec.check = true;
    CHECK(sweep_command_line(spec, true) == "alltoall_perf -b 1536 -e 4G -f 2 -n 20 -w 5 -g 8 -c 1");
    CHECK(sweep_command_line(spec, false) ==
          "shardscope measure --collective all_to_all -b 1536 -e 4G -f 2 -n 20 -w 5 -g 8 --check");
    // A size of millions of KiB is written whole, as nccl-tests parses it (%g gave "4.43451e+06K").
    spec.min_bytes = spec.max_bytes = 4434510.0 * 1024;
    spec.check = false;
    CHECK(sweep_command_line(spec, true) == "alltoall_perf -b 4434510K -e 4434510K -f 2 -n 20 -w 5 -g 8");
}

TEST_CASE("alpha-beta form read off the cost model: steps and bytes factor") {
    CHECK(alpha_beta_steps(Collective::all_reduce, 8) == doctest::Approx(14));
    CHECK(alpha_beta_bytes_factor(Collective::all_reduce, 8) == doctest::Approx(1.75));
    CHECK(alpha_beta_steps(Collective::all_gather, 8) == doctest::Approx(7));
    CHECK(alpha_beta_bytes_factor(Collective::all_gather, 8) == doctest::Approx(0.875));
    CHECK(alpha_beta_steps(Collective::broadcast, 8) == doctest::Approx(7));
    CHECK(alpha_beta_bytes_factor(Collective::broadcast, 8) == doctest::Approx(1));
}

TEST_CASE("the fit recovers alpha and B exactly from noise-free timings") {
    // alpha 2 us, B 400 GB/s, all-reduce on 8 ranks. At 1 GiB:
    // t = 14 x 2 us + 1.75 x 1073741824 / 400e9 = 28 us + 4.697620 ms = 4.725620 ms.
    const MeasureResult r = synthetic_sweep(Collective::all_reduce, 8, 2e-6, 400e9, 0);
    REQUIRE(r.rows.size() == 28);  // 8 B .. 1 GiB: 2^3 .. 2^30
    CHECK(r.rows.back().time_s == doctest::Approx(4.725620e-3).epsilon(1e-6));
    const LinkFit fit = fit_alpha_beta(alpha_beta_samples(r));
    REQUIRE(fit.ok);
    CHECK(fit.alpha_s == doctest::Approx(2e-6).epsilon(1e-9));
    CHECK(fit.bandwidth_bytes_per_s == doctest::Approx(400e9).epsilon(1e-9));
    CHECK(fit.rms_relative_error < 1e-9);
    CHECK(fit.note.empty());
    CHECK(fitted_time(fit, Collective::all_reduce, kGiB, 8) == doctest::Approx(4.725620e-3).epsilon(1e-6));
}

TEST_CASE("the fit recovers alpha and B within a few percent from +-3% noisy timings") {
    const MeasureResult r = synthetic_sweep(Collective::all_reduce, 8, 2e-6, 400e9, 0.03);
    const LinkFit fit = fit_alpha_beta(alpha_beta_samples(r));
    REQUIRE(fit.ok);
    CHECK(fit.alpha_s == doctest::Approx(2e-6).epsilon(0.05));
    CHECK(fit.bandwidth_bytes_per_s == doctest::Approx(400e9).epsilon(0.05));
    CHECK(fit.rms_relative_error > 0.005);  // the noise shows in the residual
    CHECK(fit.rms_relative_error < 0.03);
}

TEST_CASE("sweeps of different ops and rank counts on one link share one fit") {
    // all-reduce on 8 and all-gather on 4 over a link of 5 us and 50 GB/s: one alpha, one B.
    const std::vector<MeasureResult> sweeps = {synthetic_sweep(Collective::all_reduce, 8, 5e-6, 50e9, 0),
                                               synthetic_sweep(Collective::all_gather, 4, 5e-6, 50e9, 0)};
    const Calibration c = calibrate(sweeps, nullptr);
    REQUIRE(c.intra.has_value());
    CHECK_FALSE(c.inter.has_value());
    CHECK(c.intra->samples == 28 + 27);  // all-gather on 4: 8 B rounds to nothing (a unit is 16 B)
    CHECK(c.intra->alpha_s == doctest::Approx(5e-6).epsilon(1e-9));
    CHECK(c.intra->bandwidth_bytes_per_s == doctest::Approx(50e9).epsilon(1e-9));
}

TEST_CASE("the fit refuses what it cannot tell apart, and clamps a negative alpha") {
    CHECK_FALSE(fit_alpha_beta({}).ok);
    CHECK_FALSE(fit_alpha_beta({{14, 1e6, 1e-5}}).ok);
    // Time flat in size: no bandwidth to fit.
    const LinkFit flat = fit_alpha_beta({{14, 1e3, 1e-5}, {14, 1e6, 1e-5}, {14, 1e9, 1e-5}});
    CHECK_FALSE(flat.ok);
    CHECK(flat.note.find("larger messages") != std::string::npos);
    // Large sizes only, t = y / 400e9 - 0.1 us: the exact solution has alpha < 0, clamped to 0.
    std::vector<AlphaBetaSample> samples;
    for (double s = kMiB; s <= kGiB; s *= 2) samples.push_back({14, 1.75 * s, 1.75 * s / 400e9 - 1e-7});
    const LinkFit clamped = fit_alpha_beta(samples);
    REQUIRE(clamped.ok);
    CHECK(clamped.alpha_s == 0);
    CHECK(clamped.note.find("negative") != std::string::npos);
    CHECK(clamped.bandwidth_bytes_per_s == doctest::Approx(400e9).epsilon(0.05));
}

TEST_CASE("calibrated cluster: fitted figures written in, 3 significant digits, loads as a preset") {
    Calibration c;
    c.intra = LinkFit{true, 2.3456e-6, 447.123e9, 0.01, 20, ""};
    c.inter = LinkFit{false, 0, 0, 0, 1, "a fit needs at least two sizes"};  // not written
    c.hbm_bytes_per_s = 3.0123e12;
    c.best_gemm_flops_per_s = 7.4321e14;
    const ClusterSpec base = default_scenario().cluster;
    const ClusterSpec out = calibrated_cluster(base, c);
    CHECK(out.intra_node.bandwidth_gbps == doctest::Approx(447));
    CHECK(out.intra_node.latency_us == doctest::Approx(2.35));
    CHECK(out.inter_node.bandwidth_gbps == base.inter_node.bandwidth_gbps);
    CHECK(out.inter_node.latency_us == base.inter_node.latency_us);
    CHECK(out.gpu.hbm_gbps == doctest::Approx(3010));
    // 743.21 TFLOP/s over 989 TFLOP/s peak = 0.75148 -> 0.751.
    CHECK(out.gpu.matmul_efficiency == doctest::Approx(0.751));
    CHECK(out.gpu.peak_tflops == base.gpu.peak_tflops);

    const std::string text = cluster_preset_json(out, "measured");
    const ClusterPresetLoad loaded = parse_cluster_preset(text);
    REQUIRE_MESSAGE(loaded.ok(), loaded.error);
    CHECK(loaded.preset->source == "measured");
    CHECK(loaded.preset->cluster.intra_node.bandwidth_gbps == doctest::Approx(447));
    CHECK(loaded.preset->cluster.intra_node.latency_us == doctest::Approx(2.35));
    CHECK(loaded.preset->cluster.gpu.matmul_efficiency == doctest::Approx(0.751));
    CHECK(validate_cluster(loaded.preset->cluster).empty());
}

TEST_CASE("calibration from a single GPU: HBM from the copy, efficiency capped at 1") {
    SingleGpuResult g;
    g.copy_bytes_per_s = 2.5e12;
    g.gemms = {{{"a", 1, 1, 1}, 1, 5e14}, {{"b", 1, 1, 1}, 1, 1.2e15}};
    const Calibration c = calibrate({}, &g);
    CHECK_FALSE(c.intra.has_value());
    REQUIRE(c.best_gemm_flops_per_s.has_value());
    CHECK(*c.best_gemm_flops_per_s == doctest::Approx(1.2e15));
    const ClusterSpec out = calibrated_cluster(default_scenario().cluster, c);
    CHECK(out.gpu.hbm_gbps == doctest::Approx(2500));
    CHECK(out.gpu.matmul_efficiency == 1.0);  // 1200 / 989 > 1: a peak below what was measured
    CHECK(calibration_source({}, &g).find("matmul_efficiency") != std::string::npos);
}

TEST_CASE("measure result JSON round trip, and the strict reader names the field") {
    MeasureResult r = synthetic_sweep(Collective::reduce_scatter, 4, 3e-6, 100e9, 0, 1024, 64 * kMiB);
    r.device = "4 x Test GPU";
    r.link = LinkClass::inter;
    r.rows[0].wrong = 0;
    r.rows[1].wrong = 3;
    const std::string text = measure_result_to_json(r);
    const MeasureResultLoad back = parse_measure_result(text);
    REQUIRE_MESSAGE(back.ok(), back.error);
    const MeasureResult& b = *back.result;
    CHECK(b.backend == "synthetic");
    CHECK(b.device == "4 x Test GPU");
    CHECK(b.op == Collective::reduce_scatter);
    CHECK(b.ranks == 4);
    CHECK(b.link == LinkClass::inter);
    REQUIRE(b.rows.size() == r.rows.size());
    for (std::size_t i = 0; i < b.rows.size(); ++i) {
        CHECK(b.rows[i].bytes == r.rows[i].bytes);
        CHECK(b.rows[i].count == r.rows[i].count);
        CHECK(b.rows[i].time_s == r.rows[i].time_s);
        CHECK(b.rows[i].busbw == r.rows[i].busbw);
        CHECK(b.rows[i].wrong == r.rows[i].wrong);
    }
    CHECK(measure_result_to_json(b) == text);

    std::string typo = text;
    typo.replace(typo.find("\"ranks\""), 7, "\"rank\"");
    CHECK(parse_measure_result(typo).error.find("ranks: is required") != std::string::npos);
    std::string bad_op = text;
    bad_op.replace(bad_op.find("reduce_scatter"), 14, "gather_scatter");
    CHECK(parse_measure_result(bad_op).error.rfind("op:", 0) == 0);
    CHECK_FALSE(parse_measure_result("{").ok());
}

TEST_CASE("text output has nccl-tests' columns and the average bus bandwidth") {
    MeasureResult r;
    r.backend = "synthetic";
    r.op = Collective::all_reduce;
    r.ranks = 8;
    r.iters = 20;
    r.warmup = 5;
    r.rows = {make_timing_row(Collective::all_reduce, {kGiB, 268435456}, 5e-3, 8)};
    const std::string text = measure_result_to_text(r);
    CHECK(text.find("algbw") != std::string::npos);
    CHECK(text.find("busbw") != std::string::npos);
    CHECK(text.find("#wrong") != std::string::npos);
    // size, count, type, redop, root, time (us), algbw, busbw (GB/s), #wrong (not checked: N/A).
    CHECK(text.find("  1073741824     268435456     float     sum      -1    5000.00   214.75   375.81     N/A")
          != std::string::npos);
    CHECK(text.find("# Avg bus bandwidth    : 375.81 GB/s") != std::string::npos);
}

TEST_CASE("GEMM shapes of one Llama 3 8B layer on TP 2 (the default scenario)") {
    // tokens 1 x 8192; head_dim 4096/32 = 128, kv_dim 8 x 128 = 1024.
    const auto shapes = model_gemm_shapes(default_scenario());
    REQUIRE(shapes.size() == 4);
    CHECK(shapes[0].name == "QKV");
    CHECK(shapes[0].m == 8192);
    CHECK(shapes[0].n == 3072);  // (4096 + 2 x 1024) / 2
    CHECK(shapes[0].k == 4096);
    CHECK(shapes[1].n == 4096);
    CHECK(shapes[1].k == 2048);  // 4096 / 2
    CHECK(shapes[2].n == 14336);  // swiglu gate + up: 2 x 14336 / 2
    CHECK(shapes[3].k == 7168);   // 14336 / 2
    CHECK(shapes[2].flops() == doctest::Approx(2.0 * 8192 * 14336 * 4096));
    Scenario counted = default_scenario();
    counted.model = ModelSpec{};
    counted.model.params = 70e9;
    const auto square = model_gemm_shapes(counted);
    REQUIRE(square.size() == 1);
    CHECK(square[0].m == 8192);
}

TEST_CASE("predicted times are core's alpha-beta times") {
    const auto t = predicted_times(Collective::all_reduce, 8, {1e9}, Link{100e9, 10e-6});
    REQUIRE(t.size() == 1);
    CHECK(t[0] == doctest::Approx(0.01764));  // 14 x 10 us + 1.75 GB / 100 GB/s
}

TEST_CASE("no GPU backend in this build: none registered, and the message says how to get one") {
    // core_tests links no backend: the registry starts empty, as in a build without CUDA.
    CHECK(measurer_names().empty());
    CHECK(make_measurer() == nullptr);
    const std::string why = no_backend_message();
    CHECK(why.find("NCCL") != std::string::npos);
    CHECK(why.find("SHARDSCOPE_CUDA=ON") != std::string::npos);
}

TEST_CASE("backends are asked at run time: a registered fake is found, runs, cancels, and goes") {
    register_measurer("fake", [] { return std::make_unique<FakeMeasurer>(); });
    auto m = make_measurer();
    REQUIRE(m != nullptr);
    CHECK(m->name() == "fake");
    CHECK(m->status().ready);
    SweepSpec spec;
    spec.max_bytes = 1024;  // 8 .. 1024: 8 sizes
    std::size_t seen = 0;
    const MeasureResult r = m->measure(spec, [&](std::size_t done, std::size_t total, const TimingRow* row) {
        seen = done;
        CHECK(total == 8);
        CHECK(row != nullptr);
        return done < 3;  // cancel after the third size
    });
    CHECK(seen == 3);
    CHECK(r.cancelled);
    CHECK(r.rows.size() == 3);
    CHECK_FALSE(r.ok());
    unregister_measurer("fake");
    CHECK(make_measurer() == nullptr);
}

TEST_CASE("the CPU backend's flags: algorithm names, their rules, the mpirun line and the streamed rows") {
    std::optional<StepAlgorithm> a;
    CHECK(measure_algorithm_from_string("double-binary-tree", a));
    CHECK(a == StepAlgorithm::double_binary_tree);
    CHECK(measure_algorithm_from_string("dbtree", a));
    CHECK(a == StepAlgorithm::double_binary_tree);
    CHECK(measure_algorithm_from_string("mpi", a));
    CHECK_FALSE(a.has_value());
    CHECK_FALSE(measure_algorithm_from_string("butterfly", a));
    CHECK(measure_algorithm_name(StepAlgorithm::hierarchical) == "hierarchical");

    SweepSpec s;
    s.op = Collective::all_gather;
    s.algorithm = StepAlgorithm::tree;
    CHECK(validate_sweep(s) == "--algorithm: tree is not an algorithm for all_gather (mpi or ring)");
    s.algorithm = StepAlgorithm::ring;
    s.ranks_per_node = 2;
    CHECK(validate_sweep(s) ==
          "--ranks-per-node: only the hierarchical algorithm has nodes to choose (--algorithm hierarchical)");
    s.op = Collective::all_reduce;
    s.algorithm = StepAlgorithm::hierarchical;
    CHECK(validate_sweep(s).empty());
    s.gpus = 8;  // mpirun -np says how many ranks: -g is left out
    s.max_bytes = 1024.0 * 1024;
    CHECK(mpirun_command_line(s, 8) == "mpirun -np 8 shardscope measure --backend cpu --collective all_reduce -b 8 -e 1M -f 2 "
                                       "-n 20 -w 5 --algorithm hierarchical --ranks-per-node 2");

    CHECK(mpirun_command_line(s, 8, "/usr/bin/mpirun --oversubscribe", "/opt/bin/shardscope") ==
          "/usr/bin/mpirun --oversubscribe -np 8 /opt/bin/shardscope measure --backend cpu --collective all_reduce -b 8 -e 1M -f 2 "
          "-n 20 -w 5 --algorithm hierarchical --ranks-per-node 2");
    CHECK(check_sweep_schedule(s, 8, 2).empty());
    CHECK(check_sweep_schedule(s, 6, 4) == "--ranks-per-node: 4 does not divide ranks (6) for the hierarchical all-reduce");
    s.ranks_per_node = 0;
    CHECK(check_sweep_schedule(s, 6, 4) == "--ranks-per-node: 4 does not divide ranks (6) for the hierarchical "
                                           "all-reduce (the ranks' own nodes; --ranks-per-node sets it)");
    s.algorithm.reset();
    CHECK(check_sweep_schedule(s, 6, 4).empty());  // MPI's own collective has no schedule to check
    s.algorithm = StepAlgorithm::hierarchical;
    s.ranks_per_node = 2;

    TimingRow row;
    row.bytes = 4096;
    row.count = 1024;
    row.time_s = 2e-5;
    row.algbw = 4096 / 2e-5;
    row.busbw = 1.5 * 4096 / 2e-5;
    row.wrong = 0;
    const auto back = parse_measure_row_line(measure_row_json_line(row));
    REQUIRE(back.has_value());
    CHECK(back->bytes == 4096);
    CHECK(back->count == 1024);
    CHECK(back->wrong == std::optional<int64_t>(0));
    CHECK_FALSE(parse_measure_row_line("{\"schema\": \"shardscope.measure/1\"}").has_value());

    MeasureResult r = begin_measure_result("cpu-mpi", s, 8, LinkClass::intra);
    CHECK(r.algorithm == "hierarchical");
    r.rows.push_back(row);
    const std::string line = measure_result_to_json(r, true);
    CHECK(line.find('\n') == line.size() - 1);  // one line: the last of a jsonl stream
    const MeasureResultLoad load = parse_measure_result(line);
    REQUIRE_MESSAGE(load.ok(), load.error);
    CHECK(load.result->algorithm == "hierarchical");
    CHECK(load.result->ranks == 8);
    const std::string bad = std::string(line).replace(line.find("hierarchical"), 12, "butterflies!");
    CHECK(parse_measure_result(bad).error.find("algorithm") != std::string::npos);
}
