#pragma once
// The CPU backend of `shardscope measure`: ranks are MPI processes (mpirun -np N shardscope measure
// --backend cpu), on one machine or many. Each size of the sweep is timed on every rank with
// MPI_Wtime between two barriers' worth of agreement and merged with MPI_Allreduce (the slowest rank's
// time, the sum of wrong elements), so every rank holds the same MeasureResult and rank 0 prints it,
// with nccl-tests' columns, exactly as the GPU backend does.
//
// What it times: MPI's own collective (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block, MPI_Bcast,
// MPI_Alltoall), or, with SweepSpec::algorithm, the algorithm the Collective animator steps, run
// step for step over MPI_Isend / MPI_Irecv (core/measure/schedule_runner.hpp), so a student can time
// the ring they just watched against the library's choice and the model. Built only when CMake finds
// MPI (SHARDSCOPE_WITH_CPU_MPI); it needs no GPU.

#include "core/measure/measure.hpp"

#include <memory>
#include <string>

namespace shardscope::mpi {

inline constexpr const char* kCpuBackendName = kCpuMeasureBackend;

struct CpuMpiSession {
    std::unique_ptr<Measurer> measurer;  // null when MPI could not start (error says why)
    int rank = 0;
    int size = 0;
    int nodes = 0;
    std::string error;
};

// MPI_Init (once per process), the rank and its node; the measurer calls MPI_Finalize when destroyed.
[[nodiscard]] CpuMpiSession start_cpu_mpi_measurer();

}  // namespace shardscope::mpi
