#pragma once
// The few device kernels the measure backend needs (kernels.cu): rank-dependent data to send, a
// count of the elements that differ from the closed form of the collective (--check), and bf16
// matrices for the GEMM. Plain C++ declarations so the host code compiles without nvcc.

#include <cuda_runtime_api.h>

#include <cstdint>

namespace shardscope::cuda {

// The collectives as the check kernel knows them.
enum class CheckOp : int { all_reduce, all_gather, reduce_scatter, broadcast, all_to_all };

// send[j] = (rank + 1) * 8 + j % 7: small whole numbers, so every sum over up to thousands of ranks
// is exact in float and the closed form can be compared with ==.
cudaError_t fill_send_buffer(float* send, int64_t elements, int rank, cudaStream_t stream);

// Adds to *wrong the elements of rank's receive buffer (recv_elements of them) that differ from the
// closed form of op on nranks ranks with `count` as NCCL was called with; broadcast's root is 0.
cudaError_t count_wrong(const float* recv, int64_t recv_elements, CheckOp op, int rank, int nranks, int64_t count,
                        unsigned long long* wrong, cudaStream_t stream);

// Values in [-1, 1) from a hash of the index: GEMM inputs that are neither zero nor constant (zeros
// would let the hardware idle and flatter the rate).
cudaError_t fill_bf16(void* data, int64_t elements, uint32_t seed, cudaStream_t stream);

}  // namespace shardscope::cuda
