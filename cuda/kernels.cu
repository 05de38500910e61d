// Device kernels of the measure backend; see kernels.hpp for what each one computes.
#include "cuda/kernels.hpp"

#include <cuda_bf16.h>

namespace shardscope::cuda {

namespace {

constexpr int kThreads = 256;

__host__ __device__ inline float sent_value(int rank, int64_t index) {
    return static_cast<float>((rank + 1) * 8 + static_cast<int>(index % 7));
}

// The sum over ranks q = 0..n-1 of sent_value(q, index): 8 n(n+1)/2 + n (index % 7).
__device__ inline float summed_value(int nranks, int64_t index) {
    return static_cast<float>(4 * nranks * (nranks + 1) + nranks * static_cast<int>(index % 7));
}

__device__ float expected_value(CheckOp op, int rank, int nranks, int64_t count, int64_t j) {
    switch (op) {
        case CheckOp::all_reduce: return summed_value(nranks, j);
        case CheckOp::all_gather: return sent_value(static_cast<int>(j / count), j % count);
        case CheckOp::reduce_scatter: return summed_value(nranks, rank * count + j);
        case CheckOp::broadcast: return sent_value(0, j);
        case CheckOp::all_to_all: return sent_value(static_cast<int>(j / count), rank * count + j % count);
    }
    return 0.0f;
}

__global__ void fill_send_kernel(float* send, int64_t n, int rank) {
    for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n;
         j += static_cast<int64_t>(gridDim.x) * blockDim.x)
        send[j] = sent_value(rank, j);
}

__global__ void count_wrong_kernel(const float* recv, int64_t n, CheckOp op, int rank, int nranks, int64_t count,
                                   unsigned long long* wrong) {
    unsigned long long mine = 0;
    for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n;
         j += static_cast<int64_t>(gridDim.x) * blockDim.x)
        if (recv[j] != expected_value(op, rank, nranks, count, j)) ++mine;
    if (mine) atomicAdd(wrong, mine);
}

__global__ void fill_bf16_kernel(__nv_bfloat16* data, int64_t n, uint32_t seed) {
    for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n;
         j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        uint32_t h = static_cast<uint32_t>(j) * 2654435761u ^ seed;  // Knuth's multiplicative hash
        h ^= h >> 15;
        data[j] = __float2bfloat16(static_cast<float>(h & 0xffff) / 32768.0f - 1.0f);
    }
}

[[nodiscard]] unsigned blocks_for(int64_t n) {
    const int64_t wanted = (n + kThreads - 1) / kThreads;
    return static_cast<unsigned>(wanted < 4096 ? (wanted > 0 ? wanted : 1) : 4096);  // grid-stride beyond
}

}  // namespace

cudaError_t fill_send_buffer(float* send, int64_t elements, int rank, cudaStream_t stream) {
    fill_send_kernel<<<blocks_for(elements), kThreads, 0, stream>>>(send, elements, rank);
    return cudaGetLastError();
}

cudaError_t count_wrong(const float* recv, int64_t recv_elements, CheckOp op, int rank, int nranks, int64_t count,
                        unsigned long long* wrong, cudaStream_t stream) {
    count_wrong_kernel<<<blocks_for(recv_elements), kThreads, 0, stream>>>(recv, recv_elements, op, rank, nranks,
                                                                           count, wrong);
    return cudaGetLastError();
}

cudaError_t fill_bf16(void* data, int64_t elements, uint32_t seed, cudaStream_t stream) {
    fill_bf16_kernel<<<blocks_for(elements), kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data), elements,
                                                                    seed);
    return cudaGetLastError();
}

}  // namespace shardscope::cuda
