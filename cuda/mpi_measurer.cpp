#include "cuda/mpi_measurer.hpp"

#include "core/measure/mpi_launch.hpp"
#include "core/scenario/units.hpp"
#include "cuda/cuda_measurer.hpp"
#include "cuda/kernels.hpp"
#include "cuda/nccl_checks.hpp"
#include "mpi/mpi_world.hpp"

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardscope::cuda {

namespace {

using detail::check_cuda;
using detail::check_nccl;
using detail::check_op;
using detail::Failure;

using mpi::abort_job;
using mpi::check_mpi;
using World = mpi::MpiWorld;

// This rank's GPU, stream, events, communicator and buffers, released in reverse on every path out.
struct RankState {
    int device = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    ncclComm_t comm = nullptr;
    float* send = nullptr;
    float* recv = nullptr;
    unsigned long long* wrong = nullptr;
    RankState() = default;
    RankState(const RankState&) = delete;
    RankState& operator=(const RankState&) = delete;
    ~RankState() {
        cudaSetDevice(device);
        if (comm) ncclCommDestroy(comm);
        cudaFree(send);
        cudaFree(recv);
        cudaFree(wrong);
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
        if (stream) cudaStreamDestroy(stream);
    }
};

// One collective on this rank's GPU; the other ranks make the same call in their processes.
void run_once(Collective op, const RankState& r, int64_t count, int nranks) {
    const auto n = static_cast<std::size_t>(count);
    ncclResult_t e = ncclInvalidArgument;
    switch (op) {
        case Collective::all_reduce: e = ncclAllReduce(r.send, r.recv, n, ncclFloat, ncclSum, r.comm, r.stream); break;
        case Collective::all_gather: e = ncclAllGather(r.send, r.recv, n, ncclFloat, r.comm, r.stream); break;
        case Collective::reduce_scatter:
            e = ncclReduceScatter(r.send, r.recv, n, ncclFloat, ncclSum, r.comm, r.stream);
            break;
        case Collective::broadcast: e = ncclBroadcast(r.send, r.recv, n, ncclFloat, 0, r.comm, r.stream); break;
        case Collective::all_to_all: {
            // Grouped send/receive to every peer: nccl-tests' alltoall, and available in every NCCL.
            e = ncclGroupStart();
            for (int p = 0; p < nranks && e == ncclSuccess; ++p) {
                e = ncclSend(r.send + p * n, n, ncclFloat, p, r.comm, r.stream);
                if (e == ncclSuccess) e = ncclRecv(r.recv + p * n, n, ncclFloat, p, r.comm, r.stream);
            }
            const ncclResult_t end = ncclGroupEnd();  // always closed, even after a failed call
            if (e == ncclSuccess) e = end;
            break;
        }
        default: break;
    }
    check_nccl(e, std::string(measure_op_name(op)) + " of " + std::to_string(count) + " elements");
}

class MpiNcclMeasurer final : public Measurer {
public:
    explicit MpiNcclMeasurer(World w) : world_(std::move(w)) {}
    ~MpiNcclMeasurer() override { mpi::finish_mpi(); }
    MpiNcclMeasurer(const MpiNcclMeasurer&) = delete;
    MpiNcclMeasurer& operator=(const MpiNcclMeasurer&) = delete;

    std::string name() const override { return kMpiBackendName; }

    // Collective: every rank calls it once, and all learn whether any rank lacks a GPU.
    BackendStatus status() override {
        int visible = 0;
        if (cudaGetDeviceCount(&visible) != cudaSuccess) {
            visible = 0;
            cudaGetLastError();
        }
        assignment_ = gpu_for_rank(world_.rank, world_.local_rank, world_.local_size, visible,
                                   std::getenv("CUDA_VISIBLE_DEVICES") != nullptr, world_.host);
        int mine = assignment_.ok() ? 1 : 0, all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        BackendStatus s;
        s.devices = world_.size;
        if (!assignment_.ok()) std::fprintf(stderr, "measure: %s\n", assignment_.error.c_str());
        if (!all) {
            s.message = "a rank has no GPU (its message is above): no collective was measured";
            return s;
        }
        cudaDeviceProp prop{};
        gpu_name_ = cudaGetDeviceProperties(&prop, assignment_.device) == cudaSuccess ? prop.name : "GPU";
        s.device_names.push_back(gpu_name_);
        s.ready = true;
        s.message = mpi_device_label(world_.size, world_.nodes, gpu_name_) + ", one MPI rank per GPU.";
        return s;
    }

    MeasureResult measure(const SweepSpec& spec, const MeasureProgress& progress) override {
        MeasureResult result = begin_measure_result(kMpiBackendName, spec, world_.size, mpi_link_class(world_.nodes));
        // The same on every rank, so every rank returns it and no rank waits for another.
        if (std::string e = validate_sweep(spec); !e.empty()) return with_error(result, e);
        if (spec.gpus > 0 && spec.gpus != world_.size)
            return with_error(result, "-g " + std::to_string(spec.gpus) + ": under MPI each rank drives one GPU and "
                                      "mpirun started " + std::to_string(world_.size) +
                                      " ranks (leave -g out, or match mpirun -np)");
        if (world_.size < 2) return with_error(result, "a collective needs two or more ranks: mpirun -np 2 or more");
        if (!assignment_.ok()) return with_error(result, assignment_.error.empty() ? "status() was not asked first"
                                                                                  : assignment_.error);
        const std::vector<SweepSize> sizes = sweep_sizes(spec, world_.size);
        if (sizes.empty()) return with_error(result, "-b/-e: no size between them holds a whole element per rank");
        result.device = mpi_device_label(world_.size, world_.nodes, gpu_name_);
        try {
            run_sweep(spec, sizes, progress, result);
        } catch (const Failure& f) {
            abort_job(world_, f.message);
        } catch (const mpi::MpiFailure& f) {
            abort_job(world_, f.message);
        } catch (const std::exception& e) {
            abort_job(world_, std::string("unexpected failure: ") + e.what());
        }
        return result;
    }

    // One rank alone (mpirun -np 1 ... --mpi): what one GPU tells the model, as without MPI.
    SingleGpuResult measure_single_gpu(const std::vector<GemmShape>& gemms, double copy_bytes, int iters, int warmup,
                                       const MeasureProgress& progress) override {
        return make_cuda_measurer()->measure_single_gpu(gemms, copy_bytes, iters, warmup, progress);
    }

private:
    static MeasureResult with_error(MeasureResult r, std::string e) {
        r.error = std::move(e);
        return r;
    }

    void run_sweep(const SweepSpec& spec, const std::vector<SweepSize>& sizes, const MeasureProgress& progress,
                   MeasureResult& result) {
        const int n = world_.size;
        RankState r;
        r.device = assignment_.device;
        const std::string gpu = "GPU " + std::to_string(r.device);
        check_cuda(cudaSetDevice(r.device), "selecting " + gpu);
        check_cuda(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "creating a stream on " + gpu);
        check_cuda(cudaEventCreate(&r.start), "creating an event on " + gpu);
        check_cuda(cudaEventCreate(&r.stop), "creating an event on " + gpu);

        // Rank 0 makes the id; MPI carries it to every rank, which then joins the communicator.
        ncclUniqueId id{};
        if (world_.rank == 0) check_nccl(ncclGetUniqueId(&id), "making the NCCL unique id");
        check_mpi(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD), "broadcasting the NCCL unique id");
        check_nccl(ncclCommInitRank(&r.comm, n, id, world_.rank),
                   "joining the NCCL communicator of " + std::to_string(n) + " ranks on " + gpu);

        const int64_t largest = sizes.back().count;
        const auto send_bytes = static_cast<std::size_t>(nccl_buffer_elements(spec.op, largest, n).send) * 4;
        const auto recv_bytes = static_cast<std::size_t>(nccl_buffer_elements(spec.op, largest, n).recv) * 4;
        check_cuda(cudaMalloc(reinterpret_cast<void**>(&r.send), send_bytes),
                   "allocating " + format_bytes(static_cast<double>(send_bytes)) + " on " + gpu);
        check_cuda(cudaMalloc(reinterpret_cast<void**>(&r.recv), recv_bytes),
                   "allocating " + format_bytes(static_cast<double>(recv_bytes)) + " on " + gpu);
        check_cuda(cudaMalloc(reinterpret_cast<void**>(&r.wrong), sizeof(unsigned long long)), "allocating on " + gpu);

        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const int64_t count = sizes[i].count;
            std::optional<int64_t> wrong;
            if (spec.check) wrong = count_wrong_elements(spec.op, r, count);
            for (int w = 0; w < spec.warmup; ++w) run_once(spec.op, r, count, n);
            check_cuda(cudaStreamSynchronize(r.stream), "waiting for " + gpu);
            // Start together, so that no rank's span includes waiting for a late peer to arrive.
            check_mpi(MPI_Barrier(MPI_COMM_WORLD), "waiting for the other ranks");
            check_cuda(cudaEventRecord(r.start, r.stream), "recording a start event");
            for (int it = 0; it < spec.iters; ++it) run_once(spec.op, r, count, n);
            check_cuda(cudaEventRecord(r.stop, r.stream), "recording a stop event");
            check_cuda(cudaEventSynchronize(r.stop), "waiting for " + gpu);
            float ms = 0;
            check_cuda(cudaEventElapsedTime(&ms, r.start, r.stop), "reading the timing events");
            const double mine = static_cast<double>(ms) * 1e-3 / spec.iters;
            if (!mpi::add_row_on_every_rank(result, spec, sizes[i], mine, wrong, i + 1, sizes.size(), progress)) return;
        }
    }

    // --check: rank-dependent data in, one collective, and the elements that differ from the closed
    // form summed over all ranks.
    int64_t count_wrong_elements(Collective op, RankState& r, int64_t count) {
        const int n = world_.size;
        check_cuda(fill_send_buffer(r.send, nccl_buffer_elements(op, count, n).send, world_.rank, r.stream),
                   "filling the send buffer");
        // 0xFF bytes are NaN: an element the collective never wrote cannot pass by accident.
        check_cuda(cudaMemsetAsync(r.recv, 0xFF, static_cast<std::size_t>(nccl_buffer_elements(op, count, n).recv) * 4, r.stream),
                   "clearing the receive buffer");
        check_cuda(cudaMemsetAsync(r.wrong, 0, sizeof(unsigned long long), r.stream), "clearing a counter");
        run_once(op, r, count, n);
        check_cuda(count_wrong(r.recv, nccl_buffer_elements(op, count, n).recv, check_op(op), world_.rank, n, count, r.wrong,
                               r.stream),
                   "checking the result");
        unsigned long long host = 0;
        check_cuda(cudaMemcpyAsync(&host, r.wrong, sizeof host, cudaMemcpyDeviceToHost, r.stream),
                   "reading the check's count");
        check_cuda(cudaStreamSynchronize(r.stream), "waiting for the check");
        return mpi::wrong_on_every_rank(static_cast<int64_t>(host));
    }

    World world_;
    GpuAssignment assignment_;
    std::string gpu_name_ = "GPU";
};

}  // namespace

MpiSession start_mpi_measurer() {
    MpiSession s;
    World w;
    if (!mpi::start_mpi(w, s.error)) return s;
    s.rank = w.rank;
    s.size = w.size;
    s.nodes = w.nodes;
    s.measurer = std::make_unique<MpiNcclMeasurer>(std::move(w));
    return s;
}

}  // namespace shardscope::cuda
