// Which measure backends this build has. Core keeps a registry that the `measure` command and the
// Measure panel ask at run time. The CUDA/NCCL backend, when CMake found the toolkit, is a plugin
// (app/measure_plugin_loader.hpp) registered here by name and loaded only when a measurer is first asked
// for. The CPU backend, when MPI was found, registers for the panel as an mpirun launch of this very
// executable (app/mpirun_measurer.hpp); the `measure` command reaches it with --backend cpu instead.
// The panel's "Save cluster JSON" writes through the app's atomic writer, since widgets do no file I/O.

#include "host/file_io.hpp"
#include "widgets/measure/measure_panel.hpp"

#ifdef SHARDSCOPE_CUDA_PLUGIN
#include "app/measure_plugin_loader.hpp"
#include "cuda/cuda_measurer.hpp"
#endif
#ifdef SHARDSCOPE_WITH_CPU_MPI
#include "app/mpirun_measurer.hpp"
#endif

namespace {

bool install_measure_backends() {
#ifdef SHARDSCOPE_CUDA_PLUGIN
    shardscope::register_measurer(shardscope::cuda::kBackendName, &shardscope::app::make_plugin_measurer);
#endif
#ifdef SHARDSCOPE_WITH_CPU_MPI
    shardscope::register_measurer(shardscope::kCpuMeasureBackend, [] {
        // The ranks run this same binary: the one the kernel says is running, wherever it was installed.
        const std::string self = shardscope::host::executable_path();
        return shardscope::app::make_mpirun_measurer(self.empty() ? "shardscope" : self);
    });
#endif
    shardscope::ui::set_measure_file_writer(&shardscope::host::write_file_atomically);
    return true;
}

const bool measure_backends_installed = install_measure_backends();

}  // namespace
