#pragma once
// Loads the CUDA/NCCL measure backend (cuda/plugin_abi.hpp) the first time something measures.
// Looked for, in order: $SHARDSCOPE_MEASURE_PLUGIN (a path), beside the executable (the build tree),
// and in the installed library folder relative to it (bin/../lib/shardscope).

#include "core/measure/measure.hpp"
#include "cuda/mpi_measurer.hpp"

#include <memory>
#include <string>

namespace shardscope::app {

// The plugin's measurer; when the plugin is missing or broken, a measurer that is never ready and
// whose status says what was tried, why it failed, and how to get a backend.
[[nodiscard]] std::unique_ptr<Measurer> make_plugin_measurer();
// The plugin's MPI launch (one rank per GPU); a session with no measurer and the reason when the
// plugin is missing or was built without MPI.
[[nodiscard]] cuda::MpiSession start_plugin_mpi_measurer();

}  // namespace shardscope::app
