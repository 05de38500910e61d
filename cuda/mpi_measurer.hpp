#pragma once
// The MPI launch of the CUDA/NCCL measurer (beyond one machine): mpirun starts one rank per
// GPU, possibly on several nodes; rank 0 makes the NCCL unique id and MPI_Bcast hands it to the others,
// each rank joins with ncclCommInitRank on the GPU of its local rank, and every size of the sweep is
// timed on every rank and merged with MPI_Allreduce (the slowest rank's time, the sum of wrong
// elements), so each rank holds the same MeasureResult and rank 0 prints it. Built only when CMake
// finds MPI beside CUDA (SHARDSCOPE_WITH_MPI).
//
// A failure on one rank (CUDA, NCCL, out of memory) must not leave the others waiting inside a
// collective: that rank prints its message with its rank and host and calls MPI_Abort, which ends the
// whole job. A rank without a GPU is found by status(), which every rank calls: all of them then
// return not ready and end normally.

#include "core/measure/measure.hpp"

#include <memory>
#include <string>

namespace shardscope::cuda {

inline constexpr const char* kMpiBackendName = "cuda-nccl-mpi";

struct MpiSession {
    std::unique_ptr<Measurer> measurer;  // null when MPI could not start (error says why)
    int rank = 0;
    int size = 0;
    int nodes = 0;   // nodes the ranks span
    std::string error;
};

// MPI_Init (once per process), the rank, and the rank's node from MPI_Comm_split_type. The measurer
// calls MPI_Finalize when destroyed.
[[nodiscard]] MpiSession start_mpi_measurer();

}  // namespace shardscope::cuda
