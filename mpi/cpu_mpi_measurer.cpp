#include "mpi/cpu_mpi_measurer.hpp"

#include "core/measure/mpi_launch.hpp"
#include "core/measure/schedule_runner.hpp"
#include "core/scenario/units.hpp"
#include "mpi/mpi_world.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardscope::mpi {

namespace {

using Failure = MpiFailure;
using World = MpiWorld;

[[nodiscard]] int as_mpi_count(int64_t elements) {
    if (elements > INT_MAX) throw Failure{"a message of " + std::to_string(elements) + " elements exceeds MPI's int count"};
    return static_cast<int>(elements);
}

// MPI's own collective, out of place as nccl-tests calls NCCL. MPI_Bcast works in place, so the root
// first copies its input into the buffer it broadcasts from, the copy NCCL's out-of-place broadcast makes.
void run_library_collective(Collective op, const float* send, float* recv, int64_t count, int rank) {
    const int n = as_mpi_count(count);
    auto* in = const_cast<float*>(send);  // MPI-2 signatures in some MPIs take void*, not const void*
    switch (op) {
        case Collective::all_reduce:
            check_mpi(MPI_Allreduce(in, recv, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
            break;
        case Collective::all_gather:
            check_mpi(MPI_Allgather(in, n, MPI_FLOAT, recv, n, MPI_FLOAT, MPI_COMM_WORLD), "MPI_Allgather");
            break;
        case Collective::reduce_scatter:
            check_mpi(MPI_Reduce_scatter_block(in, recv, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
                      "MPI_Reduce_scatter_block");
            break;
        case Collective::broadcast:
            if (rank == 0 && count > 0) std::memcpy(recv, send, static_cast<std::size_t>(count) * sizeof(float));
            check_mpi(MPI_Bcast(recv, n, MPI_FLOAT, 0, MPI_COMM_WORLD), "MPI_Bcast");
            break;
        case Collective::all_to_all:
            check_mpi(MPI_Alltoall(in, n, MPI_FLOAT, recv, n, MPI_FLOAT, MPI_COMM_WORLD), "MPI_Alltoall");
            break;
        default: throw Failure{"no MPI collective for " + std::string(measure_op_name(op))};
    }
}

// The animator's schedule, step by step: post every receive and send of the step, wait for all, apply.
void run_schedule(ScheduleRunner& runner, const float* send, float* recv) {
    runner.start(send, recv);
    std::vector<MPI_Request> requests;
    for (int k = 0; k < runner.steps(); ++k) {
        const StepMessages m = runner.messages(k);
        requests.assign(m.receives.size() + m.sends.size(), MPI_REQUEST_NULL);
        // At most one message a step between two ranks, and MPI keeps each pair's order: the step is the tag.
        const int tag = k % 32768;
        std::size_t i = 0;
        for (const RankMessage& r : m.receives)
            check_mpi(MPI_Irecv(r.data, as_mpi_count(r.elements), MPI_FLOAT, r.peer, tag, MPI_COMM_WORLD, &requests[i++]),
                      "MPI_Irecv from rank " + std::to_string(r.peer));
        for (const RankMessage& s : m.sends)
            check_mpi(MPI_Isend(s.data, as_mpi_count(s.elements), MPI_FLOAT, s.peer, tag, MPI_COMM_WORLD, &requests[i++]),
                      "MPI_Isend to rank " + std::to_string(s.peer));
        check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
                  "waiting for step " + std::to_string(k + 1));
        runner.complete(k);
    }
    runner.finish();
}

class CpuMpiMeasurer final : public Measurer {
public:
    explicit CpuMpiMeasurer(World w) : world_(std::move(w)) {}
    ~CpuMpiMeasurer() override { finish_mpi(); }
    CpuMpiMeasurer(const CpuMpiMeasurer&) = delete;
    CpuMpiMeasurer& operator=(const CpuMpiMeasurer&) = delete;

    std::string name() const override { return kCpuBackendName; }

    BackendStatus status() override {
        BackendStatus s;
        s.devices = world_.size;
        s.device_names.push_back(unit_name());
        s.ready = world_.size >= 2;
        s.message = s.ready ? mpi_device_label(world_.size, world_.nodes, unit_name()) + ", one MPI process each."
                            : "a collective needs two or more ranks, and this process is MPI's only one: start it as "
                              "mpirun -np 4 shardscope measure --backend cpu ...";
        return s;
    }

    MeasureResult measure(const SweepSpec& spec, const MeasureProgress& progress) override {
        MeasureResult result = begin_measure_result(kCpuBackendName, spec, world_.size, mpi_link_class(world_.nodes));
        result.device = mpi_device_label(world_.size, world_.nodes, unit_name());
        // Every check below reads what every rank has alike, so every rank returns and none waits.
        if (std::string e = validate_sweep(spec); !e.empty()) return with_error(result, e);
        if (spec.gpus > 0 && spec.gpus != world_.size)
            return with_error(result, "-g " + std::to_string(spec.gpus) + ": mpirun started " +
                                          std::to_string(world_.size) + " ranks (leave -g out, or match mpirun -np)");
        if (world_.size < 2) return with_error(result, "a collective needs two or more ranks: mpirun -np 2 or more");
        const int node_size = spec.ranks_per_node > 0 ? spec.ranks_per_node : world_.local_size;
        if (std::string e = check_sweep_schedule(spec, world_.size, node_size); !e.empty()) return with_error(result, e);
        std::optional<SteppedCollective> schedule;
        if (spec.algorithm) {
            StepConfig c;
            c.collective = spec.op;
            c.algorithm = *spec.algorithm;
            c.ranks = world_.size;
            c.gpus_per_node = node_size;
            schedule.emplace(c);
        }
        const std::vector<SweepSize> sizes = sweep_sizes(spec, world_.size);
        if (sizes.empty()) return with_error(result, "-b/-e: no size between them holds a whole element per rank");
        try {
            run_sweep(spec, sizes, schedule ? &*schedule : nullptr, progress, result);
        } catch (const Failure& f) {
            abort_job(world_, f.message);
        } catch (const std::bad_alloc&) {
            abort_job(world_, "out of memory for the buffers of the largest size: lower -e");
        } catch (const std::exception& e) {
            abort_job(world_, std::string("unexpected failure: ") + e.what());
        }
        return result;
    }

    SingleGpuResult measure_single_gpu(const std::vector<GemmShape>&, double, int, int, const MeasureProgress&) override {
        SingleGpuResult r;
        r.backend = kCpuBackendName;
        r.error = "the CPU backend measures collectives between MPI ranks, and has no GPU to time GEMMs or HBM on";
        return r;
    }

private:
    [[nodiscard]] std::string unit_name() const { return "CPU rank (" + world_.library + ")"; }

    static MeasureResult with_error(MeasureResult r, std::string e) {
        r.error = std::move(e);
        return r;
    }

    void run_once(const SweepSpec& spec, ScheduleRunner* runner, const float* send, float* recv, int64_t count) {
        if (runner)
            run_schedule(*runner, send, recv);
        else
            run_library_collective(spec.op, send, recv, count, world_.rank);
    }

    void run_sweep(const SweepSpec& spec, const std::vector<SweepSize>& sizes, const SteppedCollective* schedule,
                   const MeasureProgress& progress, MeasureResult& result) {
        const int n = world_.size;
        const NcclBuffers largest = nccl_buffer_elements(spec.op, sizes.back().count, n);
        std::vector<float> send(static_cast<std::size_t>(largest.send));
        std::vector<float> recv(static_cast<std::size_t>(largest.recv));
        // Whatever --check says, the data is --check's: the timed runs then add what they always add.
        fill_check_send_buffer(send.data(), largest.send, world_.rank);

        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const int64_t count = sizes[i].count;
            std::optional<ScheduleRunner> runner;
            if (schedule) runner.emplace(*schedule, world_.rank, count);
            ScheduleRunner* steps = runner ? &*runner : nullptr;
            std::optional<int64_t> wrong;
            if (spec.check) wrong = count_wrong(spec, steps, send.data(), recv.data(), count);
            for (int w = 0; w < spec.warmup; ++w) run_once(spec, steps, send.data(), recv.data(), count);
            // Start together, so that no rank's span includes waiting for a late peer to arrive.
            check_mpi(MPI_Barrier(MPI_COMM_WORLD), "waiting for the other ranks");
            const double t0 = MPI_Wtime();
            for (int it = 0; it < spec.iters; ++it) run_once(spec, steps, send.data(), recv.data(), count);
            const double mine = (MPI_Wtime() - t0) / spec.iters;
            if (!add_row_on_every_rank(result, spec, sizes[i], mine, wrong, i + 1, sizes.size(), progress)) return;
        }
    }

    // --check: one collective into a NaN-filled buffer, and the elements that differ from the closed
    // form, summed over all ranks.
    int64_t count_wrong(const SweepSpec& spec, ScheduleRunner* runner, const float* send, float* recv, int64_t count) {
        const int n = world_.size;
        const int64_t received = nccl_buffer_elements(spec.op, count, n).recv;
        std::fill(recv, recv + received, std::numeric_limits<float>::quiet_NaN());
        run_once(spec, runner, send, recv, count);
        return wrong_on_every_rank(count_wrong_elements(recv, received, spec.op, world_.rank, n, count));
    }

    World world_;
};

}  // namespace

CpuMpiSession start_cpu_mpi_measurer() {
    CpuMpiSession s;
    MpiWorld w;
    if (!start_mpi(w, s.error)) return s;
    s.rank = w.rank;
    s.size = w.size;
    s.nodes = w.nodes;
    s.measurer = std::make_unique<CpuMpiMeasurer>(std::move(w));
    return s;
}

}  // namespace shardscope::mpi
