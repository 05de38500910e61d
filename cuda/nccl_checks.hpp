#pragma once
// What both measurers (one process for every local GPU, and one MPI rank per GPU) do alike with the
// CUDA runtime and NCCL: turn a failed call into a Failure naming what was being done, with a hint where
// the error has a usual cause, and name a collective as the check kernel knows it. Internal to cuda/.

#include "core/collectives/collectives.hpp"
#include "cuda/kernels.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

namespace shardscope::cuda::detail {

// Thrown inside the measurers only; each turns it into its result's error (or, under MPI, aborts the
// job with it): a measurement never takes the app down.
struct Failure {
    std::string message;
};

// " (what usually causes this)" for the errors users meet (no driver, a GPU taken away), else "".
[[nodiscard]] std::string cuda_hint(cudaError_t e);
void check_cuda(cudaError_t e, const std::string& what);
void check_nccl(ncclResult_t r, const std::string& what);

[[nodiscard]] CheckOp check_op(Collective op) noexcept;

}  // namespace shardscope::cuda::detail
