// Which measure backends this build has. Core keeps a registry that the `measure` command
// and the Measure panel ask at run time; the CUDA/NCCL backend is linked only when CMake found the
// toolkit (SHARDSCOPE_HAVE_CUDA), and registers here before main runs. The CPU backend, when MPI was
// found, registers for the panel as an mpirun launch of this very executable (app/mpirun_measurer.hpp);
// the `measure` command reaches it with --backend cpu instead. The panel's "Save cluster
// JSON" writes through the app's atomic writer, since widgets do no file I/O.

#include "app/file_io.hpp"
#include "widgets/measure/measure_panel.hpp"

#ifdef SHARDSCOPE_HAVE_CUDA
#include "cuda/cuda_measurer.hpp"
#endif
#ifdef SHARDSCOPE_WITH_CPU_MPI
#include "app/mpirun_measurer.hpp"

#include <unistd.h>

#include <climits>
#include <string>
#endif

namespace {

#ifdef SHARDSCOPE_WITH_CPU_MPI
// The ranks run this same binary: the one the kernel says is running, wherever it was installed.
std::string this_executable() {
    char path[PATH_MAX] = {};
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string("shardscope");
}
#endif

bool install_measure_backends() {
#ifdef SHARDSCOPE_HAVE_CUDA
    shardscope::cuda::register_cuda_measurer();
#endif
#ifdef SHARDSCOPE_WITH_CPU_MPI
    shardscope::register_measurer(shardscope::kCpuMeasureBackend, [] { return shardscope::app::make_mpirun_measurer(this_executable()); });
#endif
    shardscope::ui::set_measure_file_writer(&shardscope::app::write_file_atomically);
    return true;
}

const bool measure_backends_installed = install_measure_backends();

}  // namespace
