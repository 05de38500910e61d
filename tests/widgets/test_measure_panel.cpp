// Measure panel: the no-GPU state this machine (and CI) shows, and the whole path of a sweep
// through a fake backend registered with core: background job, progress, cancel, fit, calibrated
// cluster saved through the app's writer and applied to the scenario. Expected values by hand from
// the default scenario (8 GPUs per node, intra-node link 450 GB/s and 2 us).

#include "imgui_fixture.hpp"
#include "panel_harness.hpp"
#include "widgets/measure/measure_panel.hpp"

#include "core/scenario/presets.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

using namespace shardscope;
using shardscope::test::ImGuiFixture;

namespace {

using PanelHarness = shardscope::test::PanelHarness<ui::MeasurePanel>;

// Four fake GPUs whose collectives take exactly the alpha-beta time of alpha 2 us and B 400 GB/s.
// With a gate, the sweep stops after its first size until the test opens it.
struct FakeGpus final : Measurer {
    std::atomic<bool>* gate = nullptr;
    std::string name() const override { return "fake"; }
    BackendStatus status() override { return {true, 4, {"Fake", "Fake", "Fake", "Fake"}, "4 x Fake GPU"}; }
    MeasureResult measure(const SweepSpec& spec, const MeasureProgress& progress) override {
        MeasureResult r;
        r.backend = "fake";
        r.device = "4 x Fake";
        r.op = spec.op;
        r.ranks = 4;
        r.iters = spec.iters;
        const auto sizes = sweep_sizes(spec, 4);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const double t = collective_time(spec.op, sizes[i].bytes, 4, Link{400e9, 2e-6});
            r.rows.push_back(make_timing_row(spec.op, sizes[i], t, 4));
            if (gate && i == 0)
                while (!gate->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            if (!progress(i + 1, sizes.size(), &r.rows.back())) {
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

// Registers the fake for one test and takes it out again, whatever happens.
struct FakeBackend {
    explicit FakeBackend(std::atomic<bool>* gate = nullptr) {
        register_measurer("fake", [gate] {
            auto m = std::make_unique<FakeGpus>();
            m->gate = gate;
            return m;
        });
    }
    ~FakeBackend() { unregister_measurer("fake"); }
};

}  // namespace

TEST_CASE("no GPU backend: the panel says what is missing, predicts, and measures nothing") {
    REQUIRE(make_measurer() == nullptr);  // widget_tests links no backend, like a build without CUDA
    PanelHarness h;
    h.frames(2);
    const ui::MeasureRecords& r = h.panel.records();
    CHECK_FALSE(r.backend_built);
    CHECK_FALSE(r.ready);
    CHECK(r.status == no_backend_message());
    CHECK(r.status.find("SHARDSCOPE_CUDA=ON") != std::string::npos);
    CHECK_FALSE(r.running);

    // The prediction still shows: all_reduce on one node of the scenario (8 GPUs), 8 B .. 128 MiB.
    const ui::MeasureChartRecord& c = r.chart;
    CHECK(c.op == Collective::all_reduce);
    CHECK(c.ranks == 8);
    REQUIRE(c.bytes.size() == 25);  // 2^3 .. 2^27
    CHECK(c.bytes.front() == 8);
    CHECK(c.bytes.back() == 134217728);
    REQUIRE(c.predicted_s.size() == 25);
    // 14 x 2 us + 1.75 x 134217728 B / 370 GB/s = 28 us + 634.81 us = 662.81 us.
    CHECK(c.predicted_s.back() == doctest::Approx(662.814e-6).epsilon(1e-5));
    // 8 B: latency-bound, 28 us + 1.75 x 8 / 370e9 = 28.00004 us.
    CHECK(c.predicted_s.front() == doctest::Approx(28.0e-6).epsilon(1e-4));
    CHECK(c.measured_s.empty());
    CHECK(c.fitted_s.empty());
    CHECK_FALSE(r.fit.has_value());
    CHECK(r.cluster_json.empty());
    CHECK(r.command_line == "shardscope measure --collective all_reduce -b 8 -e 128M -f 2 -n 20 -w 5");
    CHECK(r.nccl_tests_command_line == "all_reduce_perf -b 8 -e 128M -f 2 -n 20 -w 5 -g 8");

    // Run and save refuse with the reason; the Run button is drawn but does nothing.
    CHECK(h.panel.act(h.state, "run", "1") == "measure.run: " + no_backend_message());
    CHECK(h.panel.act(h.state, "save", "x.json").find("nothing measured") != std::string::npos);
    CHECK(h.click("measure/run"));
    CHECK_FALSE(h.panel.running());
    CHECK(h.panel.records().rows.empty());
}

TEST_CASE("sweep controls: actions set nccl-tests' flags, and bad values are refused with the flag") {
    PanelHarness h;
    h.act("op", "all_gather");
    h.act("min", "1KiB");
    h.act("max", "1MiB");
    h.act("factor", "4");
    h.act("iters", "50");
    h.act("check", "1");
    CHECK(h.panel.spec().op == Collective::all_gather);
    CHECK(h.panel.spec().min_bytes == 1024);
    CHECK(h.panel.spec().factor == 4);
    CHECK(h.panel.spec().iters == 50);
    CHECK(h.panel.spec().check);
    CHECK(h.panel.act(h.state, "op", "p2p").rfind("measure.op: \"p2p\" is not one of all_reduce, ", 0) == 0);
    CHECK(h.panel.act(h.state, "factor", "1").rfind("measure.factor: -f:", 0) == 0);
    CHECK(h.panel.act(h.state, "max", "512").rfind("measure.max: -e:", 0) == 0);  // below min
    CHECK(h.panel.act(h.state, "iters", "0") == "measure.iters: \"0\" is not a whole number from 1 to 100000");
    h.frames(1);
    // all_gather on 8 ranks (unit 32 B): 1 KiB, 4 KiB, 16 KiB, 64 KiB, 256 KiB, 1 MiB.
    const ui::MeasureChartRecord& c = h.panel.records().chart;
    REQUIRE(c.bytes.size() == 6);
    CHECK(c.bytes[1] == 4096);
    // 7 x 2 us + 7/8 x 4096 / 450e9 = 14 us + 7.96 ns.
    CHECK(c.predicted_s[1] == doctest::Approx(14.00796e-6).epsilon(1e-6));
}

TEST_CASE("a sweep on a fake backend: background job, rows, fit, calibrated cluster saved and applied") {
    FakeBackend backend;
    std::map<std::string, std::string> written;
    ui::set_measure_file_writer([&](const std::string& path, const std::string& text) {
        written[path] = text;
        return std::string();
    });
    PanelHarness h;
    h.frames(1);
    REQUIRE(h.panel.records().backend_built);
    CHECK(h.panel.records().ready);
    CHECK(h.panel.records().devices == 4);
    h.act("max", "1MiB");
    REQUIRE(h.click("measure/run"));
    h.panel.wait();
    h.frames(2);

    const ui::MeasureRecords& r = h.panel.records();
    CHECK_FALSE(r.running);
    CHECK(r.error.empty());
    REQUIRE(r.rows.size() == 18);  // 2^3 .. 2^20
    CHECK(r.done == 18);
    CHECK(r.total == 18);
    // all_reduce on 4 ranks at 1 MiB: 6 x 2 us + 1.5 x 1048576 / 400e9 = 12 us + 3.932 us = 15.932 us.
    CHECK(r.rows.back().time_s == doctest::Approx(15.93216e-6).epsilon(1e-6));
    CHECK(r.rows.back().busbw == doctest::Approx(1.5 * 1048576 / 15.93216e-6).epsilon(1e-6));
    REQUIRE(r.fit.has_value());
    REQUIRE(r.fit->ok);
    CHECK(r.fit->alpha_s == doctest::Approx(2e-6).epsilon(1e-6));
    CHECK(r.fit->bandwidth_bytes_per_s == doctest::Approx(400e9).epsilon(1e-6));
    const ui::MeasureChartRecord& c = r.chart;
    CHECK(c.ranks == 4);
    CHECK(c.measured_s.size() == 18);
    REQUIRE(c.fitted_s.size() == 18);
    CHECK(c.fitted_s.back() == doctest::Approx(c.measured_s.back()).epsilon(1e-6));
    // The model predicts on the scenario's link: 6 x 2 us + 1.5 x 1 MiB / 450 GB/s = 15.495 us.
    CHECK(c.predicted_s.back() == doctest::Approx(15.49525e-6).epsilon(1e-5));

    REQUIRE_FALSE(r.cluster_json.empty());
    const ClusterPresetLoad preset = parse_cluster_preset(r.cluster_json);
    REQUIRE_MESSAGE(preset.ok(), preset.error);
    CHECK(preset.preset->cluster.intra_node.bandwidth_gbps == doctest::Approx(400));
    CHECK(preset.preset->cluster.intra_node.latency_us == doctest::Approx(2));
    CHECK(preset.preset->cluster.inter_node.bandwidth_gbps == 48);  // not measured: kept

    h.act("save", "/tmp/calibrated.json");
    REQUIRE(written.count("/tmp/calibrated.json") == 1);
    CHECK(written["/tmp/calibrated.json"] == r.cluster_json);
    CHECK(h.state.ui.status == "Saved the measured cluster preset to /tmp/calibrated.json");
    // A name alone goes where the file dialogs look, and is said in full.
    h.state.ui.file_dialog_dir = "/data/runs";
    h.act("save", "mine.json");
    CHECK(written.count("/data/runs/mine.json") == 1);
    CHECK(h.state.ui.status == "Saved the measured cluster preset to /data/runs/mine.json");
    h.act("apply", "1");
    CHECK(h.state.scenario().cluster.intra_node.bandwidth_gbps == doctest::Approx(400));
    CHECK(h.state.ui.status.rfind("The scenario uses the measured links (cluster \"", 0) == 0);
    ui::set_measure_file_writer({});
}

TEST_CASE("cancel stops a running sweep after the size in flight, and the panel says so") {
    std::atomic<bool> gate{false};
    FakeBackend backend(&gate);
    PanelHarness h;
    h.frames(1);
    h.act("max", "1MiB");
    h.act("run", "1");
    h.frames(1);
    CHECK(h.panel.running());
    CHECK(h.panel.records().running);
    CHECK(ui::find_item_rect("measure/progress").has_value());
    REQUIRE(h.click("measure/cancel"));
    gate = true;  // let the fake finish its first size; its next progress call sees the cancel
    h.panel.wait();
    h.frames(1);
    const ui::MeasureRecords& r = h.panel.records();
    CHECK_FALSE(r.running);
    CHECK(r.rows.size() == 1);
    CHECK(r.error == "cancelled after 1 of 18 sizes");
    // One size cannot tell latency from bandwidth: no fit, and nothing to save.
    REQUIRE(r.fit.has_value());
    CHECK_FALSE(r.fit->ok);
    CHECK(r.cluster_json.empty());
}

namespace {

// One fake GPU: no collective, but an HBM copy of 2.5 TB/s and GEMMs at 500 and 700 TFLOP/s.
struct FakeOneGpu final : Measurer {
    std::string name() const override { return "fake-one"; }
    BackendStatus status() override { return {true, 1, {"Fake"}, "1 x Fake GPU"}; }
    MeasureResult measure(const SweepSpec&, const MeasureProgress&) override {
        MeasureResult r;
        r.error = "a collective needs two or more GPUs";
        return r;
    }
    SingleGpuResult measure_single_gpu(const std::vector<GemmShape>& gemms, double copy_bytes, int, int,
                                       const MeasureProgress& progress) override {
        SingleGpuResult r;
        r.backend = "fake-one";
        r.copy_bytes = copy_bytes;
        r.copy_time_s = 2 * copy_bytes / 2.5e12;
        r.copy_bytes_per_s = 2.5e12;
        for (std::size_t i = 0; i < gemms.size(); ++i) {
            const double rate = i == 2 ? 7e14 : 5e14;
            r.gemms.push_back({gemms[i], gemms[i].flops() / rate, rate});
            progress(i + 2, gemms.size() + 1, nullptr);
        }
        return r;
    }
};

}  // namespace

TEST_CASE("one GPU: the panel measures HBM and GEMMs at the model's shapes and calibrates the GPU") {
    register_measurer("fake-one", [] { return std::make_unique<FakeOneGpu>(); });
    PanelHarness h;
    h.frames(1);
    CHECK(h.panel.records().devices == 1);
    h.act("run", "1");
    h.panel.wait();
    h.frames(1);
    const ui::MeasureRecords& r = h.panel.records();
    CHECK(r.error.empty());
    CHECK(r.rows.empty());  // no collective on one GPU
    REQUIRE(r.single_gpu.has_value());
    // The default scenario's four GEMMs of one Llama 3 8B layer on TP 2 (see core's test).
    REQUIRE(r.single_gpu->gemms.size() == 4);
    CHECK(r.single_gpu->gemms[2].shape.name == "FFN up");
    CHECK(r.single_gpu->copy_bytes == 1024.0 * 1024 * 1024);
    const ClusterPresetLoad preset = parse_cluster_preset(r.cluster_json);
    REQUIRE_MESSAGE(preset.ok(), preset.error);
    CHECK(preset.preset->cluster.gpu.hbm_gbps == doctest::Approx(2500));
    // Best GEMM 700 TFLOP/s over the H100's 989 peak: 0.70779 -> 0.708.
    CHECK(preset.preset->cluster.gpu.matmul_efficiency == doctest::Approx(0.708));
    CHECK(preset.preset->cluster.intra_node.bandwidth_gbps == 370);  // links not measured: kept
    unregister_measurer("fake-one");
}

namespace {

// A build whose GPU backend finds no device, beside CPU ranks that can run the animator's algorithms.
struct NoGpu final : Measurer {
    std::string name() const override { return "fake-gpu"; }
    BackendStatus status() override { return {false, 0, {}, "no GPU here"}; }
    MeasureResult measure(const SweepSpec&, const MeasureProgress&) override { return {}; }
    SingleGpuResult measure_single_gpu(const std::vector<GemmShape>&, double, int, int, const MeasureProgress&) override {
        return {};
    }
};

struct FakeCpuRanks final : Measurer {
    SweepSpec* asked = nullptr;
    std::string name() const override { return "fake-cpu"; }
    BackendStatus status() override {
        BackendStatus s{true, 4, {"CPU rank"}, "4 local ranks"};
        s.unit = "CPU rank";
        s.animator_algorithms = true;
        return s;
    }
    MeasureResult measure(const SweepSpec& spec, const MeasureProgress& progress) override {
        *asked = spec;
        MeasureResult r = begin_measure_result("fake-cpu", spec, spec.gpus > 0 ? spec.gpus : 4, LinkClass::intra);
        for (const SweepSize& size : sweep_sizes(spec, r.ranks)) {
            r.rows.push_back(make_timing_row(spec.op, size, 1e-5 + size.bytes / 1e9, r.ranks));
            r.rows.back().wrong = 0;
            if (!progress(r.rows.size(), 0, &r.rows.back())) break;
        }
        return r;
    }
    SingleGpuResult measure_single_gpu(const std::vector<GemmShape>&, double, int, int, const MeasureProgress&) override {
        return {};
    }
};

}  // namespace

TEST_CASE("CPU ranks: chosen over a GPU backend with no device; the animator's algorithms reach the sweep") {
    SweepSpec asked;
    register_measurer("fake-gpu", [] { return std::make_unique<NoGpu>(); });
    register_measurer("fake-cpu", [&asked] {
        auto m = std::make_unique<FakeCpuRanks>();
        m->asked = &asked;
        return m;
    });
    {
        PanelHarness h;
        h.frames(1);
        const ui::MeasureRecords& r = h.panel.records();
        CHECK(r.backend == "fake-cpu");  // the first backend with something to measure
        CHECK(r.backends == std::vector<std::string>{"fake-gpu", "fake-cpu"});
        CHECK(r.unit == "CPU rank");
        REQUIRE(h.panel.act(h.state, "algorithm", "ring").empty());
        h.act("max", "64KiB");
        h.frames(1);
        CHECK(r.command_line ==
              "mpirun -np 4 shardscope measure --backend cpu --collective all_reduce -b 8 -e 64K -f 2 -n 20 -w 5 --algorithm ring");
        // The ring is an all-reduce algorithm; pairwise belongs to all-to-all, and says so.
        CHECK(h.panel.act(h.state, "algorithm", "pairwise") ==
              "measure.algorithm: --algorithm: pairwise is not an algorithm for all_reduce (mpi or ring, "
              "double_binary_tree, hierarchical)");
        REQUIRE(h.click("measure/run"));
        h.panel.wait();
        h.frames(2);
        REQUIRE(asked.algorithm == StepAlgorithm::ring);
        CHECK(r.rows.size() == 14);  // 8 B .. 64 KiB by 2
        CHECK(r.chart.caption == "all_reduce on 4 CPU ranks (ring)");
        CHECK(r.chart.earlier_s.empty());  // nothing before it to compare with
        // MPI's own next: the ring stays on the chart beside it.
        h.act("algorithm", "mpi");
        REQUIRE(h.click("measure/run"));
        h.panel.wait();
        h.frames(2);
        CHECK_FALSE(asked.algorithm.has_value());
        CHECK(r.chart.caption == "all_reduce on 4 CPU ranks (MPI's own)");
        CHECK(r.chart.earlier_label == "earlier: ring");
        REQUIRE(r.chart.earlier_s.size() == 14);
        CHECK(r.chart.earlier_s.back() == doctest::Approx(1e-5 + 65536 / 1e9));  // the fake's time at 64 KiB
        CHECK(r.rows_caption == "Last sweep: all_reduce, MPI's own, 4 CPU ranks (nccl-tests' columns)");
        // A node size that does not divide the ranks is refused before the sweep starts: the last
        // sweep's rows stay.
        h.act("algorithm", "hierarchical");
        h.act("ranks_per_node", "3");
        REQUIRE(h.click("measure/run"));  // greyed: the click does nothing
        h.frames(1);
        CHECK_FALSE(h.panel.running());
        CHECK(r.rows.size() == 14);
        CHECK(h.panel.act(h.state, "run", "1") ==
              "measure.run: --ranks-per-node: 3 does not divide ranks (4) for the hierarchical all-reduce");
        CHECK(r.rows.size() == 14);
        // Changing the op drops an algorithm the new op does not have, and its node size with it.
        h.act("ranks_per_node", "2");
        h.act("op", "all_to_all");
        CHECK(h.panel.spec().algorithm == std::nullopt);
        CHECK(h.panel.spec().ranks_per_node == 0);
        h.frames(1);
        CHECK(r.command_line.find("--ranks-per-node") == std::string::npos);
    }
    unregister_measurer("fake-gpu");
    unregister_measurer("fake-cpu");
}
