// What libshardscope_measure_cuda.so exports (cuda/plugin_abi.hpp): everything else in it is
// hidden, so the plugin's own copy of core never stands in for the app's.

#include "cuda/cuda_measurer.hpp"
#include "cuda/plugin_abi.hpp"

#define SHARDSCOPE_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

SHARDSCOPE_PLUGIN_EXPORT const char* shardscope_measure_plugin_abi() {
    static const std::string tag = shardscope::cuda::plugin_abi_tag();
    return tag.c_str();
}

SHARDSCOPE_PLUGIN_EXPORT shardscope::Measurer* shardscope_make_cuda_measurer() {
    return shardscope::cuda::make_cuda_measurer().release();
}

#ifdef SHARDSCOPE_WITH_MPI
SHARDSCOPE_PLUGIN_EXPORT void shardscope_start_mpi_measurer(shardscope::cuda::MpiSession* out) {
    *out = shardscope::cuda::start_mpi_measurer();
}
#endif
