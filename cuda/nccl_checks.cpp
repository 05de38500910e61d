#include "cuda/nccl_checks.hpp"

namespace shardscope::cuda::detail {

std::string cuda_hint(cudaError_t e) {
    switch (e) {
        case cudaErrorMemoryAllocation: return " (out of GPU memory: lower -e, or free the GPU)";
        case cudaErrorNoDevice:
        case cudaErrorInsufficientDriver:
            return " (no usable NVIDIA GPU: install the NVIDIA driver, check that nvidia-smi lists the GPU "
                   "and that CUDA_VISIBLE_DEVICES does not hide it)";
        case cudaErrorDevicesUnavailable:
            return " (the GPU is busy in exclusive mode or was taken away: see nvidia-smi)";
        case cudaErrorLaunchFailure:
        case cudaErrorIllegalAddress:
        case cudaErrorHardwareStackError:
        case cudaErrorECCUncorrectable:
            return " (the GPU failed or went away; nvidia-smi shows its state, and the process must restart "
                   "to use it again)";
        default: return "";
    }
}

void check_cuda(cudaError_t e, const std::string& what) {
    if (e != cudaSuccess) throw Failure{what + ": " + cudaGetErrorString(e) + cuda_hint(e)};
}

void check_nccl(ncclResult_t r, const std::string& what) {
    if (r == ncclSuccess) return;
    const std::string detail = ncclGetLastError(nullptr);
    throw Failure{what + ": NCCL: " + ncclGetErrorString(r) + (detail.empty() ? "" : " (" + detail + ")") +
                  " (NCCL_DEBUG=WARN shows more)"};
}

CheckOp check_op(Collective op) noexcept {
    switch (op) {
        case Collective::all_gather: return CheckOp::all_gather;
        case Collective::reduce_scatter: return CheckOp::reduce_scatter;
        case Collective::broadcast: return CheckOp::broadcast;
        case Collective::all_to_all: return CheckOp::all_to_all;
        default: return CheckOp::all_reduce;
    }
}

}  // namespace shardscope::cuda::detail
