#include "cuda/cuda_measurer.hpp"

#include "core/scenario/units.hpp"
#include "cuda/kernels.hpp"
#include "cuda/nccl_checks.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace shardscope::cuda {

namespace {

using detail::check_cuda;
using detail::check_nccl;
using detail::check_op;
using detail::Failure;

void check_cublas(cublasStatus_t s, const std::string& what) {
    if (s != CUBLAS_STATUS_SUCCESS) throw Failure{what + ": cuBLAS: " + cublasGetStatusString(s)};
}

[[nodiscard]] std::string nccl_version() {
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) return "unknown";
    // NCCL_VERSION(X, Y, Z) is X * 10000 + Y * 100 + Z from 2.9 on.
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

// Device memory that frees itself, on the device it came from.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(int device, std::size_t bytes) : device_(device), bytes_(bytes) {
        check_cuda(cudaSetDevice(device), "selecting GPU " + std::to_string(device));
        check_cuda(cudaMalloc(&ptr_, std::max<std::size_t>(bytes, 1)),
                   "allocating " + format_bytes(static_cast<double>(bytes)) + " on GPU " + std::to_string(device));
    }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            device_ = o.device_;
            bytes_ = o.bytes_;
            ptr_ = std::exchange(o.ptr_, nullptr);
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    template <typename T>
    [[nodiscard]] T* as() const noexcept { return static_cast<T*>(ptr_); }
    [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

private:
    void release() noexcept {
        if (!ptr_) return;
        cudaSetDevice(device_);
        cudaFree(ptr_);  // failures here cannot be reported any better than the error that got us here
        ptr_ = nullptr;
    }
    int device_ = 0;
    std::size_t bytes_ = 0;
    void* ptr_ = nullptr;
};

// One GPU's share of a sweep: its stream, timing events, communicator and buffers.
struct Rank {
    int device = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    ncclComm_t comm = nullptr;
    DeviceBuffer send, recv, wrong;
};

// Streams, events and communicators, released in reverse on every path out.
class RankSet {
public:
    explicit RankSet(int count) : ranks_(static_cast<std::size_t>(count)) {}
    // Apart from the constructor so that the destructor releases what a failed open created.
    // Rank r drives device r.
    void open() {
        const int count = size();
        std::vector<int> devices(static_cast<std::size_t>(count));
        for (int r = 0; r < count; ++r) {
            Rank& rank = ranks_[static_cast<std::size_t>(r)];
            rank.device = devices[static_cast<std::size_t>(r)] = r;
            const std::string gpu = "GPU " + std::to_string(r);
            check_cuda(cudaSetDevice(r), "selecting " + gpu);
            check_cuda(cudaStreamCreateWithFlags(&rank.stream, cudaStreamNonBlocking), "creating a stream on " + gpu);
            check_cuda(cudaEventCreate(&rank.start), "creating an event on " + gpu);
            check_cuda(cudaEventCreate(&rank.stop), "creating an event on " + gpu);
        }
        std::vector<ncclComm_t> comms(static_cast<std::size_t>(count));
        check_nccl(ncclCommInitAll(comms.data(), count, devices.data()),
                   "creating NCCL communicators on " + std::to_string(count) + " GPUs");
        for (int r = 0; r < count; ++r) ranks_[static_cast<std::size_t>(r)].comm = comms[static_cast<std::size_t>(r)];
    }
    ~RankSet() {
        for (Rank& rank : ranks_) {
            cudaSetDevice(rank.device);
            if (rank.comm) ncclCommDestroy(rank.comm);
            if (rank.start) cudaEventDestroy(rank.start);
            if (rank.stop) cudaEventDestroy(rank.stop);
            if (rank.stream) cudaStreamDestroy(rank.stream);
        }
    }
    RankSet(const RankSet&) = delete;
    RankSet& operator=(const RankSet&) = delete;

    [[nodiscard]] std::vector<Rank>& ranks() noexcept { return ranks_; }
    [[nodiscard]] int size() const noexcept { return static_cast<int>(ranks_.size()); }

private:
    std::vector<Rank> ranks_;
};

[[nodiscard]] ncclResult_t launch(Collective op, const Rank& r, int64_t count, int nranks) {
    const auto n = static_cast<std::size_t>(count);
    const float* send = r.send.as<float>();
    float* recv = r.recv.as<float>();
    switch (op) {
        case Collective::all_reduce: return ncclAllReduce(send, recv, n, ncclFloat, ncclSum, r.comm, r.stream);
        case Collective::all_gather: return ncclAllGather(send, recv, n, ncclFloat, r.comm, r.stream);
        case Collective::reduce_scatter:
            return ncclReduceScatter(send, recv, n, ncclFloat, ncclSum, r.comm, r.stream);
        case Collective::broadcast: return ncclBroadcast(send, recv, n, ncclFloat, 0, r.comm, r.stream);
        case Collective::all_to_all:
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
            (void)nranks;
            return ncclAlltoAll(send, recv, n, ncclFloat, r.comm, r.stream);
#else
            // Older NCCL has no all-to-all call: the usual grouped send/receive to every peer.
            for (int p = 0; p < nranks; ++p) {
                if (ncclResult_t e = ncclSend(send + p * n, n, ncclFloat, p, r.comm, r.stream); e != ncclSuccess) return e;
                if (ncclResult_t e = ncclRecv(recv + p * n, n, ncclFloat, p, r.comm, r.stream); e != ncclSuccess) return e;
            }
            return ncclSuccess;
#endif
        default: return ncclInvalidArgument;
    }
}

// One collective on every rank, as one NCCL group (one process drives all GPUs).
void run_once(Collective op, RankSet& set, int64_t count) {
    check_nccl(ncclGroupStart(), "starting an NCCL group");
    ncclResult_t first = ncclSuccess;
    for (const Rank& r : set.ranks())
        if (ncclResult_t e = launch(op, r, count, set.size()); e != ncclSuccess && first == ncclSuccess) first = e;
    const ncclResult_t end = ncclGroupEnd();  // always closed, even after a failed launch
    check_nccl(first != ncclSuccess ? first : end, std::string(measure_op_name(op)) + " of " +
                                                       std::to_string(count) + " elements");
}

void synchronize(RankSet& set) {
    for (const Rank& r : set.ranks()) {
        check_cuda(cudaSetDevice(r.device), "selecting GPU " + std::to_string(r.device));
        check_cuda(cudaStreamSynchronize(r.stream), "waiting for GPU " + std::to_string(r.device));
    }
}

// --check: rank-dependent data in, one collective, then the elements that differ from the closed form.
int64_t count_wrong_elements(Collective op, RankSet& set, int64_t count) {
    const int n = set.size();
    for (Rank& r : set.ranks()) {
        check_cuda(cudaSetDevice(r.device), "selecting GPU");
        check_cuda(fill_send_buffer(r.send.as<float>(), nccl_buffer_elements(op, count, n).send, r.device, r.stream),
                   "filling the send buffer");
        // 0xFF bytes are NaN: an element the collective never wrote cannot pass by accident.
        check_cuda(cudaMemsetAsync(r.recv.as<void>(), 0xFF, static_cast<std::size_t>(nccl_buffer_elements(op, count, n).recv) * 4,
                                   r.stream),
                   "clearing the receive buffer");
        check_cuda(cudaMemsetAsync(r.wrong.as<void>(), 0, sizeof(unsigned long long), r.stream), "clearing a counter");
    }
    run_once(op, set, count);
    int64_t wrong = 0;
    for (Rank& r : set.ranks()) {
        check_cuda(cudaSetDevice(r.device), "selecting GPU");
        check_cuda(count_wrong(r.recv.as<float>(), nccl_buffer_elements(op, count, n).recv, check_op(op), r.device, n, count,
                               r.wrong.as<unsigned long long>(), r.stream),
                   "checking the result");
        unsigned long long host = 0;
        check_cuda(cudaMemcpyAsync(&host, r.wrong.as<void>(), sizeof host, cudaMemcpyDeviceToHost, r.stream),
                   "reading the check's count");
        check_cuda(cudaStreamSynchronize(r.stream), "waiting for the check");
        wrong += static_cast<int64_t>(host);
    }
    return wrong;
}

// Mean time of one iteration: events on every rank's stream around `iters` grouped launches; the
// slowest rank's span counts, as the collective is not done until every rank is.
double time_iterations(Collective op, RankSet& set, int64_t count, int iters) {
    for (const Rank& r : set.ranks()) {
        check_cuda(cudaSetDevice(r.device), "selecting GPU");
        check_cuda(cudaEventRecord(r.start, r.stream), "recording a start event");
    }
    for (int i = 0; i < iters; ++i) run_once(op, set, count);
    for (const Rank& r : set.ranks()) {
        check_cuda(cudaSetDevice(r.device), "selecting GPU");
        check_cuda(cudaEventRecord(r.stop, r.stream), "recording a stop event");
    }
    float slowest_ms = 0;
    for (const Rank& r : set.ranks()) {
        check_cuda(cudaEventSynchronize(r.stop), "waiting for GPU " + std::to_string(r.device));
        float ms = 0;
        check_cuda(cudaEventElapsedTime(&ms, r.start, r.stop), "reading the timing events");
        slowest_ms = std::max(slowest_ms, ms);
    }
    return static_cast<double>(slowest_ms) * 1e-3 / iters;
}

struct Devices {
    int count = 0;
    std::vector<std::string> names;
    cudaError_t error = cudaSuccess;
};

[[nodiscard]] Devices list_devices() {
    Devices d;
    d.error = cudaGetDeviceCount(&d.count);
    if (d.error != cudaSuccess) {
        d.count = 0;
        cudaGetLastError();  // clear it, so later calls do not report it again
        return d;
    }
    for (int i = 0; i < d.count; ++i) {
        cudaDeviceProp prop{};
        d.names.push_back(cudaGetDeviceProperties(&prop, i) == cudaSuccess ? prop.name : "GPU " + std::to_string(i));
    }
    return d;
}

// "8 x NVIDIA H100 80GB HBM3", or the names listed when they differ.
[[nodiscard]] std::string describe(const std::vector<std::string>& names, int count) {
    if (count <= 0) return "no GPU";
    std::map<std::string, int> tally;
    for (int i = 0; i < count && i < static_cast<int>(names.size()); ++i) ++tally[names[static_cast<std::size_t>(i)]];
    std::string out;
    for (const auto& [name, n] : tally) out += (out.empty() ? "" : ", ") + std::to_string(n) + " x " + name;
    return out;
}

[[nodiscard]] std::string no_device_message(const Devices& d) {
    const std::string why = d.error != cudaSuccess ? std::string(cudaGetErrorString(d.error)) : "no CUDA device";
    return "No NVIDIA GPU can be used here (CUDA says: " + why +
           "). To measure, run on a machine with NVIDIA GPUs and their driver installed: nvidia-smi should list "
           "them, and CUDA_VISIBLE_DEVICES must not hide them. The model's predictions work without one.";
}

class CudaNcclMeasurer final : public Measurer {
public:
    std::string name() const override { return kBackendName; }

    BackendStatus status() override {
        const Devices d = list_devices();
        BackendStatus s;
        s.devices = d.count;
        s.device_names = d.names;
        if (d.count == 0) {
            s.message = no_device_message(d);
            return s;
        }
        s.ready = true;
        s.message = describe(d.names, d.count) + ", NCCL " + nccl_version() + ".";
        if (d.count == 1)
            s.message += " A collective needs two or more GPUs; one GPU still measures its HBM copy bandwidth and "
                         "bf16 GEMM rate.";
        return s;
    }

    MeasureResult measure(const SweepSpec& spec, const MeasureProgress& progress) override {
        // One process, one node; run_sweep sets the ranks once it knows the GPUs.
        MeasureResult result = begin_measure_result(kBackendName, spec, 0, LinkClass::intra);
        try {
            run_sweep(spec, progress, result);
        } catch (const Failure& f) {
            result.error = f.message;
        } catch (const std::exception& e) {
            result.error = std::string("unexpected failure: ") + e.what();
        }
        return result;
    }

    SingleGpuResult measure_single_gpu(const std::vector<GemmShape>& gemms, double copy_bytes, int iters, int warmup,
                                       const MeasureProgress& progress) override {
        SingleGpuResult result;
        result.backend = kBackendName;
        try {
            run_single_gpu(gemms, copy_bytes, std::max(1, iters), std::max(0, warmup), progress, result);
        } catch (const Failure& f) {
            result.error = f.message;
        } catch (const std::exception& e) {
            result.error = std::string("unexpected failure: ") + e.what();
        }
        return result;
    }

private:
    static void run_sweep(const SweepSpec& spec, const MeasureProgress& progress, MeasureResult& result) {
        if (std::string e = validate_sweep(spec); !e.empty()) throw Failure{e};
        const Devices d = list_devices();
        if (d.count == 0) throw Failure{no_device_message(d)};
        const int ranks = spec.gpus > 0 ? spec.gpus : d.count;
        if (ranks > d.count)
            throw Failure{"-g " + std::to_string(ranks) + ": this machine has " + std::to_string(d.count) + " GPU" +
                          (d.count == 1 ? "" : "s")};
        if (ranks < 2)
            throw Failure{"a collective needs two or more GPUs; this machine offers " + std::to_string(ranks) +
                          " (" + describe(d.names, d.count) + "). One GPU can still measure its HBM copy "
                          "bandwidth and bf16 GEMM rate."};
        result.ranks = ranks;
        result.device = describe(d.names, ranks) + ", NCCL " + nccl_version();
        const std::vector<SweepSize> sizes = sweep_sizes(spec, ranks);
        if (sizes.empty()) throw Failure{"-b/-e: no size between them holds a whole element per rank"};

        RankSet set(ranks);
        set.open();
        const int64_t largest = sizes.back().count;
        for (Rank& r : set.ranks()) {
            r.send = DeviceBuffer(r.device, static_cast<std::size_t>(nccl_buffer_elements(spec.op, largest, ranks).send) * 4);
            r.recv = DeviceBuffer(r.device, static_cast<std::size_t>(nccl_buffer_elements(spec.op, largest, ranks).recv) * 4);
            r.wrong = DeviceBuffer(r.device, sizeof(unsigned long long));
        }
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const SweepSize& size = sizes[i];
            std::optional<int64_t> wrong;
            if (spec.check) wrong = count_wrong_elements(spec.op, set, size.count);
            for (int w = 0; w < spec.warmup; ++w) run_once(spec.op, set, size.count);
            synchronize(set);
            const double t = time_iterations(spec.op, set, size.count, spec.iters);
            TimingRow row = make_timing_row(spec.op, size, t, ranks);
            row.wrong = wrong;
            result.rows.push_back(row);
            if (progress && !progress(i + 1, sizes.size(), &result.rows.back())) {
                result.cancelled = true;
                return;
            }
        }
    }

    static void run_single_gpu(const std::vector<GemmShape>& gemms, double copy_bytes, int iters, int warmup,
                               const MeasureProgress& progress, SingleGpuResult& result) {
        const Devices d = list_devices();
        if (d.count == 0) throw Failure{no_device_message(d)};
        result.device = describe(d.names, 1);
        check_cuda(cudaSetDevice(0), "selecting GPU 0");
        cudaStream_t stream = nullptr;
        check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "creating a stream");
        cudaEvent_t start = nullptr, stop = nullptr;
        cublasHandle_t blas = nullptr;
        // Released however this ends.
        struct Cleanup {
            cudaStream_t& stream;
            cudaEvent_t& start;
            cudaEvent_t& stop;
            cublasHandle_t& blas;
            ~Cleanup() {
                if (blas) cublasDestroy(blas);
                if (start) cudaEventDestroy(start);
                if (stop) cudaEventDestroy(stop);
                if (stream) cudaStreamDestroy(stream);
            }
        } cleanup{stream, start, stop, blas};
        check_cuda(cudaEventCreate(&start), "creating an event");
        check_cuda(cudaEventCreate(&stop), "creating an event");
        const std::size_t total = 1 + gemms.size();

        const auto timed = [&](const auto& body) {
            for (int w = 0; w < warmup; ++w) body();
            check_cuda(cudaEventRecord(start, stream), "recording a start event");
            for (int i = 0; i < iters; ++i) body();
            check_cuda(cudaEventRecord(stop, stream), "recording a stop event");
            check_cuda(cudaEventSynchronize(stop), "waiting for GPU 0");
            float ms = 0;
            check_cuda(cudaEventElapsedTime(&ms, start, stop), "reading the timing events");
            return static_cast<double>(ms) * 1e-3 / iters;
        };

        // HBM: a device-to-device copy reads and writes every byte.
        std::size_t free_bytes = 0, total_bytes = 0;
        check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "asking for free memory");
        const double fits = static_cast<double>(free_bytes) * 0.4;  // two buffers, with room to spare
        const auto bytes = static_cast<std::size_t>(std::max(4096.0, std::min(copy_bytes, fits)) / 4096) * 4096;
        {
            DeviceBuffer from(0, bytes), to(0, bytes);
            check_cuda(cudaMemsetAsync(from.as<void>(), 1, bytes, stream), "filling the copy source");
            result.copy_bytes = static_cast<double>(bytes);
            result.copy_time_s = timed([&] {
                check_cuda(cudaMemcpyAsync(to.as<void>(), from.as<void>(), bytes, cudaMemcpyDeviceToDevice, stream),
                           "copying on GPU 0");
            });
            result.copy_bytes_per_s = 2.0 * result.copy_bytes / result.copy_time_s;
        }
        if (bytes < copy_bytes)
            result.notes.push_back("the copy was cut to " + format_bytes(static_cast<double>(bytes)) +
                                   " to fit in free memory");
        if (progress && !progress(1, total, nullptr)) return;

        check_cublas(cublasCreate(&blas), "creating a cuBLAS handle");
        check_cublas(cublasSetStream(blas, stream), "binding cuBLAS to a stream");
        for (std::size_t i = 0; i < gemms.size(); ++i) {
            const GemmShape& g = gemms[i];
            const double need = 2.0 * static_cast<double>(g.m * g.k + g.k * g.n + g.m * g.n);
            check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "asking for free memory");
            if (need > 0.9 * static_cast<double>(free_bytes) || g.m > INT32_MAX || g.n > INT32_MAX || g.k > INT32_MAX) {
                result.notes.push_back(g.name + " skipped: needs " + format_bytes(need) + ", " +
                                       format_bytes(static_cast<double>(free_bytes)) + " free");
            } else {
                DeviceBuffer a(0, static_cast<std::size_t>(g.m * g.k) * 2), b(0, static_cast<std::size_t>(g.k * g.n) * 2),
                    c(0, static_cast<std::size_t>(g.m * g.n) * 2);
                check_cuda(fill_bf16(a.as<void>(), g.m * g.k, 1u, stream), "filling A");
                check_cuda(fill_bf16(b.as<void>(), g.k * g.n, 2u, stream), "filling B");
                const float one = 1.0f, zero = 0.0f;
                const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
                const double t = timed([&] {
                    // Column-major C[m x n] = A[m x k] B[k x n], bf16 in and out, fp32 accumulate.
                    check_cublas(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a.as<void>(), CUDA_R_16BF, m,
                                              b.as<void>(), CUDA_R_16BF, k, &zero, c.as<void>(), CUDA_R_16BF, m,
                                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                                 "bf16 GEMM " + g.name);
                });
                result.gemms.push_back({g, t, g.flops() / t});
            }
            if (progress && !progress(i + 2, total, nullptr)) return;
        }
    }
};

}  // namespace

std::unique_ptr<Measurer> make_cuda_measurer() { return std::make_unique<CudaNcclMeasurer>(); }

void register_cuda_measurer() { register_measurer(kBackendName, [] { return make_cuda_measurer(); }); }

}  // namespace shardscope::cuda
