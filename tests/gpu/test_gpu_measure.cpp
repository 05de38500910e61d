// GPU test of the CUDA/NCCL measure backend (CTest label `gpu`). Without a usable NVIDIA GPU it skips
// with exit code 77 and says why (CI and most machines); with one GPU it checks the HBM copy and GEMM
// figures and that a collective is refused with a clear message; with two or more it runs every op
// with --check and compares the fitted link with the measured rows.

#include "core/measure/calibration.hpp"
#include "core/measure/measure.hpp"
#include "cuda/cuda_measurer.hpp"

#include <cstdio>
#include <iostream>
#include <string>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
    std::cout << (ok ? "ok    " : "FAIL  ") << what << "\n";
    if (!ok) ++failures;
}

void one_gpu(shardscope::Measurer& m) {
    using namespace shardscope;
    const std::vector<GemmShape> shapes = model_gemm_shapes(default_scenario());
    const SingleGpuResult g = m.measure_single_gpu(shapes, 256.0 * 1024 * 1024, 10, 2, {});
    std::cout << single_gpu_result_to_text(g);
    expect(g.ok(), "single-GPU measurement ran: " + g.error);
    expect(g.copy_bytes_per_s > 1e10, "HBM copy bandwidth above 10 GB/s");
    expect(g.gemms.size() + g.notes.size() == shapes.size(), "every GEMM shape measured or skipped with a note");
    for (const GemmTiming& t : g.gemms) expect(t.flops_per_s > 1e12, t.shape.name + " above 1 TFLOP/s");
}

void collectives(shardscope::Measurer& m, int devices) {
    using namespace shardscope;
    for (Collective op : measurable_ops()) {
        SweepSpec spec;
        spec.op = op;
        spec.min_bytes = 1024;
        spec.max_bytes = 64.0 * 1024 * 1024;
        spec.factor = 4;
        spec.iters = 10;
        spec.warmup = 2;
        spec.check = true;
        const MeasureResult r = m.measure(spec, {});
        std::cout << measure_result_to_text(r);
        const std::string name(measure_op_name(op));
        expect(r.ok(), name + " ran: " + r.error);
        expect(r.ranks == devices, name + " on every GPU");
        bool all_right = !r.rows.empty();
        for (const TimingRow& row : r.rows) all_right = all_right && row.wrong && *row.wrong == 0;
        expect(all_right, name + ": every result equals the closed form");
        const LinkFit fit = fit_alpha_beta(alpha_beta_samples(r));
        expect(fit.ok && fit.bandwidth_bytes_per_s > 1e9, name + ": the fit finds a bandwidth above 1 GB/s");
        std::cout << "fit: alpha " << fit.alpha_s * 1e6 << " us, B " << fit.bandwidth_bytes_per_s / 1e9
                  << " GB/s, rms " << fit.rms_relative_error * 100 << "%\n";
    }
}

}  // namespace

int main() {
    auto m = shardscope::cuda::make_cuda_measurer();
    const shardscope::BackendStatus status = m->status();
    if (!status.ready) {
        std::cout << "SKIP: no usable NVIDIA GPU here. " << status.message << "\n";
        return 77;  // CTest's SKIP_RETURN_CODE
    }
    std::cout << "backend: " << status.message << "\n";
    one_gpu(*m);
    if (status.devices < 2) {
        const shardscope::MeasureResult r = m->measure(shardscope::SweepSpec{}, {});
        expect(r.error.find("two or more GPUs") != std::string::npos, "one GPU: a collective is refused clearly");
    } else {
        collectives(*m, status.devices);
    }
    std::cout << (failures ? "FAILED: " + std::to_string(failures) + " checks\n" : std::string("all passed\n"));
    return failures ? 1 : 0;
}
