#pragma once
// The CUDA/NCCL measurer: one process driving every local GPU (ncclCommInitAll), out-of-place
// collectives timed with CUDA events around n iterations after warm-up, --check against the closed
// form, and with one GPU a device-to-device copy (HBM) and bf16 cuBLAS GEMMs. Every failure (no
// driver, no device, NCCL error, out of memory, a GPU that goes away) comes back as a message.

#include "core/measure/measure.hpp"

#include <memory>

namespace shardscope::cuda {

inline constexpr const char* kBackendName = "cuda-nccl";

[[nodiscard]] std::unique_ptr<Measurer> make_cuda_measurer();
// Adds the backend to core's registry (make_measurer); the app calls it once at start.
void register_cuda_measurer();

}  // namespace shardscope::cuda
