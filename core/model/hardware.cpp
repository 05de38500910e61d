#include "core/model/hardware.hpp"

#include "core/scenario/units.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace shardscope {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

bool name_has(const std::string& name, const char* word) {
    std::string upper;
    for (char c : name) upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    return upper.find(word) != std::string::npos;
}

struct Family {
    const char* name;
    int64_t sm_count;
    double gemm_ceiling;
    double fp8_gemm_ceiling;
    FlashKernel flash_sdpa;   // what PyTorch's SDPA runs [SDPA]
    FlashKernel flash_fused;  // what Transformer Engine runs [TE]
    double hbm_fraction;
    double fp32_per_bf16;  // FP32 CUDA-core peak over the dense BF16 peak [DS]
    const char* source;
};

// Causal head-dim-128 forward speed at 512 .. 16k tokens over the 16k speed, per kernel [FA3].
constexpr std::array<double, 6> kFa2Curve = {191.0 / 335, 260.0 / 335, 298.0 / 335, 319.0 / 335, 333.0 / 335, 1.0};
constexpr std::array<double, 6> kCudnnCurve = {315.0 / 539, 410.0 / 539, 484.0 / 539, 518.0 / 539, 529.0 / 539, 1.0};

// FlashAttention-2 on an A100: forward up to 73% of peak, 50-73% over its sweep [FA2]: 0.70 forward
// at long sequences, and 0.60 backward (the paper's figures put backward below forward; 0.60 sits
// inside the published range). Its fall-off with length is FA2's own curve, measured on H100 [FA3]
// (no public A100 curve among our sources). Transformer Engine runs the same kernel on Ampere [TE].
constexpr FlashKernel kAmpereFlash{"FlashAttention-2", 0.70, 0.60, kFa2Curve};
// On Hopper the two stacks run different kernels [SDPA] [TE], measured side by side [FA3]:
// FlashAttention-2 335 forward / 322 backward TFLOP/s at 16k, cuDNN's 539 / 516, of 989.
constexpr FlashKernel kHopperSdpa{"FlashAttention-2 (PyTorch SDPA)", 335.0 / 989, 322.0 / 989, kFa2Curve};
constexpr FlashKernel kHopperFused{"cuDNN fused attention (Transformer Engine)", 539.0 / 989, 516.0 / 989,
                                   kCudnnCurve};

// A100 SXM: 108 SMs [DS]; GEMM 271.2 / 312 in a burst [MAMF], times the sustained-to-burst ratio a
// public A100 sweep shows once the card sits at its power limit (A100 PCIe, 8192^3 at 215.3 against
// 4096^3 at 234.1 TFLOP/s: 0.919) [SWEEP-A100]: 0.80, the same correction the H100 sweep makes;
// flash attention as kAmpereFlash above; HBM 1,818 / 2,039 GB/s [HBM].
constexpr Family kAmpere{"A100", 108, 0.799, 0.0, kAmpereFlash, kAmpereFlash, 0.89, 19.5 / 312,
                         "A100 figures: 108 SMs (datasheet); large BF16 GEMMs 249 of 312 TFLOP/s sustained (271 in a "
                         "burst, Bekman's MAMF table, times the 0.919 a public A100 sweep loses at its power limit); "
                         "FlashAttention-2 (PyTorch SDPA and Transformer Engine alike) 0.70 forward / 0.60 backward "
                         "of peak (Dao 2023: 50-73%); "
                         "HBM 89% of 2,039 GB/s (measured copy)"};
// H100 / H800 / H200 SXM: 132 SMs [DS]. GEMM: 720 of 989 TFLOP/s sustained [SWEEP]: the largest
// square BF16 GEMM of a public sweep (10240^3) runs below the 797 of 8192^3 once the card sits at its
// power limit, and a training step keeps it there; the best short burst is 794.5 [MAMF]. FP8:
// 1402.6 / 1979 in a burst [MAMF], times the same sustained-to-burst ratio (720 / 794.5): 0.642.
// Flash attention by software stack as kHopperSdpa and kHopperFused above. HBM 2,959 / 3,350 GB/s
// [HBM].
constexpr Family kHopper{"Hopper", 132, 0.728, 0.642, kHopperSdpa, kHopperFused, 0.88, 67.0 / 989,
                         "Hopper figures: 132 SMs (datasheet); large BF16 GEMMs 720 of 989 TFLOP/s sustained "
                         "(10240^3 in a public torch.matmul sweep; 794 in short bursts, Bekman's MAMF table) and FP8 "
                         "1271 of 1979 (MAMF's 1403 burst at the same sustained ratio); causal flash attention at 16k tokens: "
                         "FlashAttention-2 (PyTorch SDPA) 34% forward / 33% backward of peak, cuDNN's fused attention "
                         "(Transformer Engine, fused_kernels) 54% / 52% (Shah et al. 2024, figs. 5-6); HBM 88% "
                         "of datasheet (measured copy)"};
// B200 SXM: 148 SMs (CUDA's device query: github.com/pytorch/ao/pull/4002). GEMM: 1,745 of 2,250
// TFLOP/s BF16 and 3,432.5 of 4,500 FP8 in a burst [MAMF]; no public sustained sweep, so Hopper's
// sustained-to-burst ratio (720 / 794.5 [SWEEP]) stands in: 0.703 and 0.691. FP32: 80 of 2,250 [DS].
// No public Blackwell attention or copy benchmark among our sources: Hopper's fractions stand in.
constexpr Family kBlackwell{"Blackwell", 148, 1745.0 / 2250 * (720.0 / 794.5), 3432.5 / 4500 * (720.0 / 794.5),
                            kHopperSdpa, kHopperFused, 0.88, 80.0 / 2250,
                            "Blackwell figures: 148 SMs; large BF16 GEMMs 1582 of 2250 TFLOP/s sustained (1745 in a "
                            "burst, Bekman's MAMF table, at Hopper's sustained-to-burst ratio) and FP8 3112 of 4500 "
                            "(3432 burst); no public Blackwell attention or HBM benchmark in Shardscope's sources: "
                            "Hopper's achieved fractions stand in"};
// MI300X / MI325X (CDNA 3): 304 compute units [AMD]. GEMM: AMD's own maximum achievable FLOPs with
// hipBLASLt (4096 x 4864 x 32896), measured at the clock the card settles to under the load: MI300X
// 708 of 1,307.4 BF16 and 1,273 of 2,614.9 FP8; MI325X 843 and 1,519 [AMD-MAF]. FP32: 163.4 of
// 1,307.4 [AMD]. No public CDNA 3 flash-attention or copy benchmark among our sources: Hopper's
// fractions stand in (PyTorch's SDPA and Transformer Engine both have ROCm builds).
constexpr Family kMi300x{"CDNA3", 304, 708.0 / 1307.4, 1273.0 / 2614.9, kHopperSdpa, kHopperFused, 0.88, 163.4 / 1307.4,
                         "CDNA 3 (MI300X) figures: 304 CUs; large BF16 GEMMs 708 of 1307 TFLOP/s and FP8 1273 of 2615 "
                         "(AMD's hipBLASLt maximum achievable FLOPs, at the clock the card settles to); no public "
                         "CDNA 3 attention or HBM benchmark in Shardscope's sources: Hopper's achieved fractions stand in"};
constexpr Family kMi325x{"CDNA3", 304, 843.0 / 1307.4, 1519.0 / 2614.9, kHopperSdpa, kHopperFused, 0.88, 163.4 / 1307.4,
                         "CDNA 3 (MI325X) figures: 304 CUs; large BF16 GEMMs 843 of 1307 TFLOP/s and FP8 1519 of 2615 "
                         "(AMD's hipBLASLt maximum achievable FLOPs, at the clock the card settles to); no public "
                         "CDNA 3 attention or HBM benchmark in Shardscope's sources: Hopper's achieved fractions stand in"};
constexpr Family kGeneric{"generic", 132, 0.728, 0.642, kHopperSdpa, kHopperFused, 0.88, 67.0 / 989,
                          "unknown GPU: Hopper's achieved fractions stand in; set cluster.gpu.matmul_efficiency and "
                          "sm_count from a measurement"};

const Family& family_of(const GpuSpec& g) {
    if (name_has(g.name, "A100") || name_has(g.name, "A800")) return kAmpere;
    if (name_has(g.name, "H100") || name_has(g.name, "H800") || name_has(g.name, "H200") || name_has(g.name, "H20") ||
        name_has(g.name, "GH200"))
        return kHopper;
    if (name_has(g.name, "B200") || name_has(g.name, "B100") || name_has(g.name, "GB200")) return kBlackwell;
    if (name_has(g.name, "MI300X")) return kMi300x;
    if (name_has(g.name, "MI325X")) return kMi325x;
    // By peak: Ampere's 312 TFLOP/s class, else the newest figures we have.
    return g.peak_tflops <= 400 ? kAmpere : kGeneric;
}

// nvidia-smi's total [SMI]: an H100/H800 80GB shows 81,559 MiB; A100s show exactly memory_gb GiB,
// which is the rule for any other card.
double exposed_bytes_of(const GpuSpec& g) {
    if (g.memory_mib) return *g.memory_mib * kMiB;
    if ((name_has(g.name, "H100") || name_has(g.name, "H800")) && g.memory_gb == 80) return 81559.0 * kMiB;
    return g.memory_gb * kGiB;
}

struct Tile {
    double m, n, efficiency;
};
// cuBLAS picks among tile shapes per GEMM (NVIDIA, "Matrix Multiplication Background User's Guide",
// section 2.3: larger tiles reuse more data and run faster; smaller ones fill more SMs). The relative
// per-SM rates are Shardscope's stated assumption, ordered as the guide says (operand reuse per tile
// m*n/(m+n): 85, 64, 43, 32), not fitted to any run.
constexpr std::array<Tile, 4> kTiles = {Tile{256, 128, 1.00}, Tile{128, 128, 0.92}, Tile{128, 64, 0.80},
                                        Tile{64, 64, 0.62}};

HardwareFigures figures_of(const GpuSpec& g);

// Every field hardware_figures reads.
bool same_gpu(const GpuSpec& a, const GpuSpec& b) noexcept {
    return a.name == b.name && a.memory_gb == b.memory_gb && a.peak_tflops == b.peak_tflops &&
           a.hbm_gbps == b.hbm_gbps && a.matmul_efficiency == b.matmul_efficiency &&
           a.peak_fp8_tflops == b.peak_fp8_tflops && a.sm_count == b.sm_count && a.memory_mib == b.memory_mib &&
           a.reserve_gib == b.reserve_gib && a.speed_spread == b.speed_spread;
}

}  // namespace

HardwareFigures hardware_figures(const GpuSpec& g) {
    // The planner asks for the same GPU for every layout it costs: answer a repeat from the last call.
    thread_local GpuSpec last_gpu;
    thread_local HardwareFigures last;
    thread_local bool have_last = false;
    if (have_last && same_gpu(g, last_gpu)) return last;
    last = figures_of(g);
    last_gpu = g;
    have_last = true;
    return last;
}

namespace {

HardwareFigures figures_of(const GpuSpec& g) {
    const Family& f = family_of(g);
    HardwareFigures hw;
    hw.family = f.name;
    hw.sm_count = g.sm_count.value_or(f.sm_count);
    hw.peak_flops = g.peak_tflops * 1e12;
    hw.peak_fp8_flops = g.peak_fp8_tflops * 1e12;
    hw.peak_fp32_flops = hw.peak_flops * f.fp32_per_bf16;
    hw.gemm_ceiling = g.matmul_efficiency.value_or(f.gemm_ceiling);
    hw.fp8_gemm_ceiling = f.fp8_gemm_ceiling > 0 ? f.fp8_gemm_ceiling : kHopper.fp8_gemm_ceiling;
    const double sms = static_cast<double>(std::max<int64_t>(1, hw.sm_count));
    hw.gemm_fixed_k = kHopperFp8FixedK * hw.peak_flops / sms / kHopperFp8FlopsPerSm;
    hw.fp8_gemm_fixed_k = kHopperFp8FixedK * hw.peak_fp8_flops / sms / kHopperFp8FlopsPerSm;
    hw.flash_sdpa = f.flash_sdpa;
    hw.flash_fused = f.flash_fused;
    hw.hbm_bytes_per_s = g.hbm_bytes_per_s() * f.hbm_fraction;
    hw.capacity_bytes = exposed_bytes_of(g);
    // Shardscope's stated default: about 0.5 GiB of CUDA context and cuBLAS workspace and 0.5 GiB of
    // NCCL buffers (NCCL_BUFFSIZE is 4 MiB per channel and peer by default, NCCL's environment
    // documentation); runtime_reserve_bytes adds the allocator's slack on the tensors.
    hw.reserve_bytes = runtime_reserve_bytes(g, 0.0);
    hw.speed_spread = g.speed_spread.value_or(kFleetSpeedSpread);
    hw.sources.emplace_back(f.source);
    if (g.matmul_efficiency) hw.sources.emplace_back("GEMM ceiling: the scenario's cluster.gpu.matmul_efficiency");
    return hw;
}

}  // namespace

double exposed_memory_bytes(const GpuSpec& gpu) { return exposed_bytes_of(gpu); }

HostFigures host_figures(const ClusterSpec& c) {
    HostFigures h;
    const double gpus = static_cast<double>(std::max<int64_t>(1, c.gpus_per_node));
    const HostSpec& host = c.host;
    if (host.memory_gb) {
        h.memory_bytes_per_node = *host.memory_gb * 1e9;
    } else {
        h.memory_bytes_per_node = kHostMemoryGbPerGpu * gpus * 1e9;
        h.sources.push_back("host memory: " + format_memory(kHostMemoryGbPerGpu * 1e9) +
                            " per GPU, DGX H100's 2 TB for 8 (datasheet)");
    }
    if (host.link_gbps) {
        h.link_bytes_per_s = *host.link_gbps * 1e9;
    } else if (&family_of(c.gpu) == &kAmpere) {
        h.link_bytes_per_s = 25.13e9;
        h.sources.push_back("host link: PCIe Gen4 x16 at 25.13 GB/s (nvbandwidth on an A100 SXM4)");
    } else {
        h.link_bytes_per_s = 52.77e9;
        h.sources.push_back("host link: PCIe Gen5 x16 at 52.77 GB/s (nvbandwidth on an H100 node)");
    }
    const double cores = host.cpu_cores ? static_cast<double>(*host.cpu_cores) : kHostCoresPerGpu * gpus;
    if (!host.cpu_cores) h.sources.push_back("host CPU: 14 cores per GPU, DGX H100's 112 for 8 (datasheet)");
    // Every GPU's rank steps its own shard at once, so the node's cores split among them.
    h.adam_params_per_s = kCpuAdamParamsPerCoreS * cores / gpus;
    h.sources.push_back("CPU Adam: 2.95e7 parameters a second a core (DeepSpeed's CPU-Adam, 11.6 B parameters in "
                        "8.2 s on a 48-core host)");
    return h;
}

double runtime_reserve_bytes(const GpuSpec& gpu, double tensor_bytes) noexcept {
    // Shardscope's stated default, not a vendor figure: PyTorch's caching allocator keeps freed
    // blocks for reuse, and a few percent of the tensors' bytes sit in blocks too small to reuse.
    constexpr double kFragmentation = 0.05;
    return gpu.reserve_gib.value_or(1.0) * kGiB + kFragmentation * std::max(0.0, tensor_bytes);
}

const FlashKernel& flash_kernel(const HardwareFigures& hw, bool fused_kernels) noexcept {
    return fused_kernels ? hw.flash_fused : hw.flash_sdpa;
}

double flash_length_factor(const FlashKernel& kernel, double seq) noexcept {
    const std::array<double, 6>& curve = kernel.length_curve;
    if (!(seq > 0)) return curve.front();
    const double x = std::log2(seq) - 9.0;
    if (x <= 0) return curve.front() * std::max(0.25, seq / 512.0);  // shorter still: proportionally less
    if (x >= 5) return curve.back();
    const auto i = static_cast<std::size_t>(x);
    const double t = x - static_cast<double>(i);
    return curve[i] + t * (curve[i + 1] - curve[i]);
}

double gemm_tile_efficiency(const HardwareFigures& hw, const GemmDims& g) noexcept {
    const double sms = static_cast<double>(std::max<int64_t>(1, hw.sm_count));
    double best = 0;
    for (const Tile& t : kTiles) {
        const double tiles = std::ceil(g.m / t.m) * std::ceil(g.n / t.n) * g.batch;
        const double waves = std::ceil(tiles / sms);
        const double useful = g.m * g.n * g.batch / (waves * sms * t.m * t.n);  // padding and idle SMs lost
        best = std::max(best, t.efficiency * useful);
    }
    return best;
}

double gemm_tile_efficiency_ceiling() noexcept {
    double best = 0;
    for (const Tile& t : kTiles) best = std::max(best, t.efficiency);
    return best;
}

double gemm_depth_efficiency_ceiling(double fixed_k) noexcept {
    if (!(fixed_k > 0)) return 1.0;
    return (kGemmCeilingDepth + fixed_k) / kGemmCeilingDepth;
}

double gemm_depth_efficiency(double k, double fixed_k) noexcept {
    if (!(fixed_k > 0) || !(k > 0)) return 1.0;
    return (k / (k + fixed_k)) / (kGemmCeilingDepth / (kGemmCeilingDepth + fixed_k));
}

KernelTime gemm_time(const HardwareFigures& hw, const GemmDims& g, double peak, double ceiling,
                     double elem_bytes, double fixed_k) noexcept {
    if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) return {};
    const double efficiency = gemm_tile_efficiency(hw, g) * gemm_depth_efficiency(g.k, fixed_k);
    const double compute = g.flops() / (peak * ceiling * efficiency);
    const double bytes = elem_bytes * (g.m * g.k + g.k * g.n + g.m * g.n) * g.batch;
    const double memory = bytes / hw.hbm_bytes_per_s;
    // A GEMM also pays its launch and its first tiles' prologue before any wave runs: the floor,
    // added (a 1024^3 BF16 GEMM takes about 12 us on an H100 where its FLOPs need 4 [SWEEP]).
    KernelTime t;
    (compute >= memory ? t.flops_s : t.hbm_s) = std::max(compute, memory);
    t.launch_s = hw.kernel_floor_s;
    return t;
}

double gemm_seconds(const HardwareFigures& hw, const GemmDims& g, double peak, double ceiling,
                    double elem_bytes, double fixed_k) noexcept {
    return gemm_time(hw, g, peak, ceiling, elem_bytes, fixed_k).seconds();
}

namespace {

// The standard normal distribution's quantile, by bisection on its CDF: called once a report.
double normal_quantile(double p) noexcept {
    double lo = -10.0, hi = 10.0;
    for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

}  // namespace

double expected_largest_normal(int64_t n) noexcept {
    if (n <= 1) return 0.0;
    const double k = static_cast<double>(n);
    return normal_quantile((k - 0.375) / (k + 0.25));
}

double slowest_gpu_pace(double spread, int64_t gpus) noexcept {
    if (!(spread > 0)) return 1.0;
    // A search costs every layout on one world size: the bisection inside expected_largest_normal
    // runs once for it, not once a layout (it was a third of a 16k-GPU search).
    thread_local int64_t last_gpus = -1;
    thread_local double last_largest = 0;
    if (gpus != last_gpus) {
        last_largest = expected_largest_normal(gpus);
        last_gpus = gpus;
    }
    return std::max(0.0, 1.0 - spread * last_largest);
}

const HardwareFigures& paced_hardware_figures(const GpuSpec& gpu, int64_t world) {
    // Every layout of a search is priced on one GPU and one world size; copying the figures (their
    // source lines are strings) for each was a tenth of a search's allocations.
    thread_local GpuSpec last_gpu;
    thread_local int64_t last_world = -1;
    thread_local HardwareFigures hw;
    if (world == last_world && same_gpu(gpu, last_gpu)) return hw;
    hw = hardware_figures(gpu);
    const double pace = slowest_gpu_pace(hw.speed_spread, world);
    hw.peak_flops *= pace;
    hw.peak_fp8_flops *= pace;
    hw.peak_fp32_flops *= pace;
    last_gpu = gpu;
    last_world = world;
    return hw;
}

KernelTime streaming_time(const HardwareFigures& hw, double bytes) noexcept {
    if (bytes <= 0) return {};
    const double through_hbm = bytes / hw.hbm_bytes_per_s;
    KernelTime t;
    (through_hbm >= hw.kernel_floor_s ? t.hbm_s : t.launch_s) = std::max(through_hbm, hw.kernel_floor_s);
    return t;
}

double streaming_seconds(const HardwareFigures& hw, double bytes) noexcept {
    return streaming_time(hw, bytes).seconds();
}

}  // namespace shardscope
