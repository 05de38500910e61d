#pragma once
// The CUDA/NCCL measure backend is built as a plugin (libshardscope_measure_cuda.so) that the app
// loads with dlopen only when something measures, so `--version`, `plan` and the window never map
// cudart, cuBLAS(Lt) and NCCL (hundreds of MB and a second of loading on a machine with the toolkit).
// This header is the contract between the two: the names the plugin exports with C linkage and what
// they return. Both sides are built from one tree by one compiler, so C++ objects (a Measurer, an
// MpiSession) cross the boundary; the ABI tag catches a plugin left over from another build.

#include "core/measure/measure.hpp"
#include "cuda/mpi_measurer.hpp"

#include <string>

namespace shardscope::cuda {

inline constexpr const char* kPluginFileName = "libshardscope_measure_cuda.so";

// Raise when Measurer or the value types it passes change shape in a way the sizes below miss.
inline constexpr int kPluginAbiVersion = 1;

// The interface's version and the sizes of what crosses it, as both sides were compiled.
inline std::string plugin_abi_tag() {
    return std::to_string(kPluginAbiVersion) + "/" + std::to_string(sizeof(SweepSpec)) + "/" +
           std::to_string(sizeof(MeasureResult)) + "/" + std::to_string(sizeof(SingleGpuResult)) + "/" +
           std::to_string(sizeof(BackendStatus)) + "/" + std::to_string(sizeof(MpiSession)) + "/" SHARDSCOPE_VERSION;
}

// const char* shardscope_measure_plugin_abi(void): plugin_abi_tag() as the plugin was built.
inline constexpr const char* kAbiSymbol = "shardscope_measure_plugin_abi";
// shardscope::Measurer* shardscope_make_cuda_measurer(void): a new measurer; the caller owns it.
inline constexpr const char* kMakeMeasurerSymbol = "shardscope_make_cuda_measurer";
// void shardscope_start_mpi_measurer(shardscope::cuda::MpiSession* out): the MPI launch
// (start_mpi_measurer); exported only by a plugin built with MPI.
inline constexpr const char* kStartMpiSymbol = "shardscope_start_mpi_measurer";

using AbiFn = const char* (*)();
using MakeMeasurerFn = Measurer* (*)();
using StartMpiFn = void (*)(MpiSession*);

}  // namespace shardscope::cuda
