#pragma once
// What one GPU achieves, from the hardware up: the figures the compute model prices kernels with.
// Datasheets give the peaks; public microbenchmarks give how much of each peak a kernel reaches. No
// figure here was fitted to an end-to-end training run: those runs are what `shardscope validate`
// judges the model on.
//
// A scenario's GpuSpec may set any figure itself (a measured matmul_efficiency from `measure`, the
// exposed memory, the runtime reserve); what it leaves empty comes from the GPU's family below,
// recognised by name (A100, H100/H800/H200/H20, B200/GB200, MI300X, MI325X), else by its BF16 peak.
//
// Sources (each figure in hardware.cpp names the one it takes):
// [MAMF]  S. Bekman, "Machine Learning Engineering", compute/accelerator/README.md, "Maximum
//         Achievable Matmul FLOPS" table: best torch.matmul (cuBLAS) BF16 over a shape sweep,
//         A100 SXM 271.2 TFLOP/s (86.9% of 312), H100 SXM 794.5 (80.3% of 989), H100 FP8 1402.6
//         (70.9% of 1979), B200 SXM 1745.0 (77.6% of 2250), B200 FP8 3432.5 (76.3% of 4500).
// [DEEPGEMM] deepseek-ai/DeepGEMM README, "Performance" (commit 55ab91f, H800 SXM5, FP8 with
//         fine-grained scaling): at M = 4096, N = 7168, K = 16384 runs at 1426 TFLOP/s and K = 2048 at
//         1168, the same tiles and waves; K = 1536 (N = 24576) 1125, K = 512 (N = 32768) 751. A tile's
//         time is its K loop plus a fixed part (filling the pipeline, the epilogue's scaling and
//         store): at the rate K / (K + K0), the first pair gives K0 = 534 and the model then gives 1093
//         and 720 for the other two (3% and 4% under).
// [AMD]   AMD Instinct MI300X / MI325X data sheets and ROCm's GPU architecture specs
//         (ROCm/ROCm docs/reference/gpu-arch-specs.rst: 304 CUs, 192 / 256 GB HBM3/HBM3E): 1,307.4
//         dense BF16, 2,614.9 FP8, 163.4 FP32 TFLOP/s; 5.3 / 6.0 TB/s HBM; 750 / 1,000 W.
// [AMD-MAF] ROCm blogs, "Measuring max-achievable FLOPs, part 2" (ROCm/rocm-blogs, blogs/
//         .../measuring-max-achievable-flops-part2): hipBLASLt at 4096 x 4864 x 32896, FP16 / BF16 / FP8:
//         MI300X 654 / 708 / 1273 TFLOP/s (clocks 1115 / 1207 / 1230 MHz under the load), MI325X
//         794 / 843 / 1519.
// [FA2]   T. Dao, "FlashAttention-2", arXiv:2307.08691, section 4.1: forward up to 73% of the A100's
//         peak; "50-73%" over its sweep. FLOPs counted as 4 s^2 d h, halved when causal; backward 2.5x.
// [FA3]   J. Shah et al., "FlashAttention-3", arXiv:2407.08608, figures 5-6 (H100 SXM, BF16, head dim
//         128), causal forward at 512, 1k, 2k, 4k, 8k, 16k tokens: FlashAttention-2 191, 260, 298, 319,
//         333, 335 TFLOP/s; cuDNN 315, 410, 484, 518, 529, 539; FA3 292, 423, 521, 579, 602, 616.
//         Backward at 16k (figure 6 times it without the causal mask only): FA2 322, cuDNN 516,
//         FA3 561.
// [SDPA]  PyTorch's scaled_dot_product_attention runs FlashAttention-2 as its flash backend (PyTorch 2.2
//         release notes), on Hopper too: what FSDP, torchtitan and Hugging Face training run.
// [TE]    Transformer Engine (Megatron-Core, NeMo) picks cuDNN's fused attention over FlashAttention on
//         Hopper "for performance reasons" (transformer_engine/pytorch/attention/dot_product_attention/
//         utils.py, get_attention_backend); on Ampere it runs FlashAttention-2.
// [HBM]   A100 80GB: 1,818 GB/s measured of 2,039 (89%); H100 SXM: 2,959 GB/s device copy of 3,350
//         (88%, github.com/NVIDIA/cuda-samples/issues/392).
// [SWEEP] github.com/zzc0721/torch-performance-test-data/issues/79 (H100 80GB HBM3, PyTorch 2.7,
//         CUDA 12.8), square torch.matmul BF16: 1024: 176.6, 2048: 676.6, 4096: 788.7, 8192: 797.5,
//         10240: 719.7 TFLOP/s.
// [SWEEP-A100] github.com/zzc0721/torch-performance-test-data/issues/108 (A100 PCIe 40GB, PyTorch 2.8,
//         CUDA 12.8), square BF16: 2048: 138.5, 4096: 234.1, 8192: 215.3, 10240: 211.7 TFLOP/s.
// [LAUNCH] NVIDIA developer forums, "too much time for kernel launch latency": a null kernel's
//         launch overhead is about 3 us on recent hardware and software.
// [SMI]   nvidia-smi totals: H100 80GB 81,559 MiB; A100 80GB 81,920 MiB; A100 40GB 40,960 MiB
//         (github.com/modal-labs/modal-client/pull/2797; github.com/NVIDIA/nccl/issues/1264).
// [DS]    Datasheets: A100 108 SMs, H100 SXM 132 SMs (NVIDIA Ampere / Hopper whitepapers); FP32 (no
//         tensor cores) A100 19.5 TFLOP/s against 312 BF16, H100 SXM 67 against 989, B200 80 against
//         2,250 (DGX B200 datasheet).
// [OVERLAP] S. Lee et al., "Characterizing Compute-Communication Overlap in GPU-Accelerated Distributed
//         Deep Learning: Performance and Power Implications", arXiv:2507.03114 (2025): a GEMM-heavy
//         kernel runs on average 18.9% slower while a collective runs beside it on the same GPU
//         (A100, H100, MI250, MI210; at most 40%): it keeps 1 / 1.189 = 84.1% of its throughput.
//         DeepSeek-V3's report (arXiv:2412.19437, section 3.2.2) gives its overlapped all-to-all
//         20 of the H800's 132 SMs: 15.2% of the compute. Both put the loss near 16%.
// [SPREAD] P. Sinha et al., "Not All GPUs Are Created Equal: Characterizing Variability in
//         Large-Scale, Accelerator-Rich Systems", SC'22, arXiv:2208.11035: one SKU's GPUs in five
//         clusters (V100 and MI60, over 90% of each cluster's GPUs, cuBLAS SGEMM among the tests)
//         vary by 8% on average (at most 22%), from power management and manufacturing, outliers up to
//         1.5x slower left aside. Their artifact (github.com/hal-uw/gpu_variability_sc22_artifact,
//         plot_script/plot_aggregated.py) measures variation as the box plot's whisker span over the
//         median, (Q3 + 1.5 IQR) - (Q1 - 1.5 IQR) = 4 IQR: an interquartile range of 2% of the median,
//         a standard deviation of 2% / 1.349 = 1.5% for a normal spread. No A100/H100 fleet
//         distribution is public among our sources; the figure stands for every family. (Llama 3's
//         report, section 3.3.4, saw the whole job's throughput move 1-2% with the time of day through
//         the GPUs' voltage and frequency scaling: the same mechanism, shared by all cards.)
// [DGX]   NVIDIA DGX H100 datasheet: 8 H100 GPUs, 2 TB of system memory, two Intel Xeon Platinum
//         8480C processors of 56 cores each (112); DGX A100: 8 A100s, 2 TB, two 64-core AMD EPYC 7742.
// [NVBW]  nvbandwidth (NVIDIA's host-device copy benchmark), device to host over PCIe: H100 on Gen5 x16
//         52.77 GB/s (NVIDIA/nvbandwidth#24, every GPU of an H100 node alike); A100 SXM4 on Gen4 x16
//         25.13 GB/s (NVIDIA/nvbandwidth#42, host_to_device at 512 MiB and 1 GiB).
// [CPUADAM] DeepSpeed's CPU-Adam (the AVX kernel ZeRO-Offload steps its optimizer with) steps an
//         11.6-billion-parameter GPT-2 in 8.2 s, against 56 s for torch.optim.Adam
//         (github.com/deepspeedai/DeepSpeed/pull/735). The PR does not name its host; we take it to be
//         the ZeRO-Offload paper's DGX-2 (Ren et al. 2021, section 6.1: two 24-core Xeon Platinum 8168):
//         11.6e9 / 8.2 s / 48 cores = 2.95e7 parameters a second a core.

#include "core/scenario/scenario.hpp"

#include <array>
#include <string>
#include <vector>

namespace shardscope {

// One flash-attention kernel on one GPU: its long-sequence (16k) causal forward and backward
// fractions of the dense peak, and its forward speed at 512, 1k, 2k, 4k, 8k and 16k tokens over its
// 16k speed (how it falls off for short sequences).
struct FlashKernel {
    const char* name = "FlashAttention-2";
    double forward = 0.6;
    double backward = 0.5;
    std::array<double, 6> length_curve = {1, 1, 1, 1, 1, 1};
};

// [SPREAD]: a standard deviation of 1.5% of the median card's speed, for every family.
inline constexpr double kFleetSpeedSpread = 0.015;

struct HardwareFigures {
    std::string family;             // "A100", "Hopper", "Blackwell" or "generic"
    int64_t sm_count = 132;
    double peak_flops = 0;          // dense BF16 (or the training dtype's) FLOP/s
    double peak_fp8_flops = 0;      // 0 = none
    // FP32 on the CUDA cores: PyTorch runs fp32 matmuls without tensor cores unless TF32 is allowed,
    // and it is not by default (torch.backends.cuda.matmul.allow_tf32, False since 1.12) [DS]
    double peak_fp32_flops = 0;
    double gemm_ceiling = 0.8;      // the best large GEMM's fraction of peak [MAMF]
    double fp8_gemm_ceiling = 0.7;  // the same for FP8 GEMMs [MAMF]
    // A tile's fixed time as K elements of its loop [DEEPGEMM]: 534 for Hopper's FP8 tensor cores. The
    // fixed time is taken to be the same on every GPU and dtype, so K0 scales with the tensor cores'
    // rate per SM (Hopper BF16: 267). 0: no such cost.
    double gemm_fixed_k = 0;
    double fp8_gemm_fixed_k = 0;
    // Causal flash attention as the two software stacks run it on this GPU: PyTorch's SDPA
    // (`fused_kernels` false) and Transformer Engine's fused attention (`fused_kernels` true).
    FlashKernel flash_sdpa;
    FlashKernel flash_fused;
    double hbm_bytes_per_s = 0;     // achievable: datasheet x measured fraction [HBM]
    double kernel_floor_s = 3e-6;   // the least time any kernel takes [LAUNCH]
    // The share of its throughput compute loses while a collective runs beside it (SMs, HBM and L2
    // taken by the communication kernels) [OVERLAP]: 1 - 1/1.189.
    double overlap_compute_loss = 0.159;
    // One card's sustained compute speed against the next of the same model: the standard deviation
    // over the median card's speed [SPREAD] (gpu.speed_spread replaces it).
    double speed_spread = kFleetSpeedSpread;
    double capacity_bytes = 0;      // what the card exposes [SMI]
    double reserve_bytes = 0;       // CUDA context, NCCL buffers, workspaces (the fixed part)
    std::vector<std::string> sources;  // one line per figure that came from the family table
};

[[nodiscard]] HardwareFigures hardware_figures(const GpuSpec& gpu);

// The host side of one GPU, for an optimizer offloaded to the CPU (training.offload): cluster.host's
// figures, each left empty taken from [DGX], [NVBW] and [CPUADAM].
struct HostFigures {
    double memory_bytes_per_node = 0;  // the node's system memory, in bytes (GB are SI)
    double link_bytes_per_s = 0;       // one GPU to host memory, one way
    double adam_params_per_s = 0;      // one GPU's share of its node's CPU cores stepping Adam
    std::vector<std::string> sources;  // one line per figure taken from a default
};
// [DGX]: 2 TB and 112 cores for 8 GPUs, per GPU.
inline constexpr double kHostMemoryGbPerGpu = 2048.0 / 8;
inline constexpr double kHostCoresPerGpu = 112.0 / 8;
// [CPUADAM]: parameters one CPU core steps a second.
inline constexpr double kCpuAdamParamsPerCoreS = 11.6e9 / 8.2 / 48;
[[nodiscard]] HostFigures host_figures(const ClusterSpec& cluster);
// What the card exposes, in bytes (gpu.memory_mib, else the family rule [SMI]).
[[nodiscard]] double exposed_memory_bytes(const GpuSpec& gpu);
// The runtime's reserve on a GPU whose tensors take `tensor_bytes`: the fixed part (gpu.reserve_gib,
// default 1 GiB) plus the allocator's slack on the tensors (5%).
[[nodiscard]] double runtime_reserve_bytes(const GpuSpec& gpu, double tensor_bytes) noexcept;

// The flash kernel a scenario's software stack runs: Transformer Engine's with `fused_kernels`,
// PyTorch SDPA's without [SDPA] [TE].
[[nodiscard]] const FlashKernel& flash_kernel(const HardwareFigures& hw, bool fused_kernels) noexcept;

// How a kernel's achieved fraction falls off with short sequences: its causal forward curve [FA3]
// normalised to its 16k figure, interpolated in log2 of the length (1 from 16k; below 512 tokens
// proportionally less).
[[nodiscard]] double flash_length_factor(const FlashKernel& kernel, double seq) noexcept;

// Achieved time of one GEMM C[M,N] = A[M,K] B[K,N], `batch` times (a grouped or batched GEMM),
// with `peak` FLOP/s and `ceiling` of it reachable: the longer of
// - compute: 2MNK / (peak x ceiling x tile efficiency): the best of four cuBLAS-like tiles, each
//   losing the padding of partial tiles and the idle SMs of the last wave (wave quantisation);
// - memory: the operands and the result once through HBM (`elem_bytes` each);
// plus the per-kernel floor (launch and the first tiles' prologue).
// Small GEMMs come out slower per FLOP than large ones: fewer tiles than SMs, a partial last wave, a
// small K that makes them memory-bound, or the floor that every GEMM pays.
struct GemmDims {
    double m = 0, n = 0, k = 0;
    double batch = 1;
    [[nodiscard]] double flops() const noexcept { return 2.0 * m * n * k * batch; }
};
[[nodiscard]] double gemm_seconds(const HardwareFigures& hw, const GemmDims& g, double peak, double ceiling,
                                  double elem_bytes, double fixed_k = 0) noexcept;
// A kernel's time split by what sets it: the longer of its FLOPs and its HBM bytes (the other is 0),
// and the floor it pays on top (a GEMM) or instead (a memory-bound kernel shorter than the floor).
struct KernelTime {
    double flops_s = 0, hbm_s = 0, launch_s = 0;
    [[nodiscard]] double seconds() const noexcept { return flops_s + hbm_s + launch_s; }
};
[[nodiscard]] KernelTime gemm_time(const HardwareFigures& hw, const GemmDims& g, double peak, double ceiling,
                                   double elem_bytes, double fixed_k = 0) noexcept;
// The share of the ceiling's rate a GEMM of depth k keeps against the ceiling's own measurement
// (10240^3 [SWEEP]): each tile runs its K loop at k / (k + fixed_k) of the loop's rate [DEEPGEMM].
[[nodiscard]] double gemm_depth_efficiency(double k, double fixed_k) noexcept;
// The ceilings' reference depth: [SWEEP]'s sustained 10240^3 run.
inline constexpr double kGemmCeilingDepth = 10240.0;
// [DEEPGEMM]'s K0 on Hopper FP8, and the per-SM FP8 rate it was measured at (1979 TFLOP/s, 132 SMs).
inline constexpr double kHopperFp8FixedK = 534.0;
inline constexpr double kHopperFp8FlopsPerSm = 1979e12 / 132.0;
// The fraction of the SMs' tile throughput a GEMM of this shape keeps (wave and tile quantisation).
[[nodiscard]] double gemm_tile_efficiency(const HardwareFigures& hw, const GemmDims& g) noexcept;
// The most gemm_tile_efficiency gives any shape: the best tile's rate, every tile full, every wave full.
[[nodiscard]] double gemm_tile_efficiency_ceiling() noexcept;
// The most gemm_depth_efficiency gives any depth: its limit as k grows without bound.
[[nodiscard]] double gemm_depth_efficiency_ceiling(double fixed_k) noexcept;

// The share of the median card's compute speed a synchronous step keeps when it waits, at every
// collective, for the slowest of `gpus` cards whose speeds spread by `spread` (a standard deviation
// over the median): 1 - spread x E[the largest of `gpus` standard normal draws], the expectation by
// Blom's approximation, Phi^-1((n - 0.375) / (n + 0.25)). One GPU keeps all of it.
[[nodiscard]] double slowest_gpu_pace(double spread, int64_t gpus) noexcept;
// E[the largest of n standard normal draws] by Blom's approximation (0 for one draw).
[[nodiscard]] double expected_largest_normal(int64_t n) noexcept;
// What one GPU achieves inside a synchronous job of `world` GPUs, as the cost model prices it: the
// family's figures with the compute peaks at the slowest card's pace (slowest_gpu_pace). Memory-bound
// kernels keep the median card's speed: HBM's clock does not follow the SMs' power management.
// The reference holds until this thread asks for another GPU or world: a search asks for one pair.
[[nodiscard]] const HardwareFigures& paced_hardware_figures(const GpuSpec& gpu, int64_t world);

// A memory-bound kernel moving `bytes` through HBM (at least the kernel floor).
[[nodiscard]] double streaming_seconds(const HardwareFigures& hw, double bytes) noexcept;
[[nodiscard]] KernelTime streaming_time(const HardwareFigures& hw, double bytes) noexcept;

}  // namespace shardscope
