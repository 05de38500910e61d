// Which measure backends this build has. Core keeps a registry that the `measure` command
// and the Measure panel ask at run time; the CUDA/NCCL backend is linked only when CMake found the
// toolkit (SHARDSCOPE_HAVE_CUDA), and registers here before main runs. The panel's "Save cluster
// JSON" writes through the app's atomic writer, since widgets do no file I/O.

#include "app/file_io.hpp"
#include "widgets/measure/measure_panel.hpp"

#ifdef SHARDSCOPE_HAVE_CUDA
#include "cuda/cuda_measurer.hpp"
#endif

namespace {

bool install_measure_backends() {
#ifdef SHARDSCOPE_HAVE_CUDA
    shardscope::cuda::register_cuda_measurer();
#endif
    shardscope::ui::set_measure_file_writer(&shardscope::app::write_file_atomically);
    return true;
}

const bool measure_backends_installed = install_measure_backends();

}  // namespace
