#pragma once
// What both MPI launches of `shardscope measure` (CPU ranks in mpi/, one rank per GPU in cuda/) do
// alike with MPI: start it once per process, learn the rank, its node and its host, turn a failed call
// into a message, and end the whole job when one rank fails, so that no rank waits forever inside a
// collective. Only MPI's C API is used.

#include "core/measure/measure.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace shardscope::mpi {

struct MpiWorld {
    int rank = 0;
    int size = 0;
    int local_rank = 0;   // among the ranks that share this node's memory
    int local_size = 1;
    int nodes = 1;        // nodes the ranks span
    std::string host;
    std::string library;  // "Open MPI v4.1.4"
};

// Thrown by check_mpi inside a measurer, which turns it into abort_job.
struct MpiFailure {
    std::string message;
};

// MPI_Init (when not yet done) and the world; false with error set when MPI could not start.
[[nodiscard]] bool start_mpi(MpiWorld& world, std::string& error);
// MPI_Finalize unless already done: the measurers call it when destroyed.
void finish_mpi();

void check_mpi(int rc, const std::string& what);
// One size measured on every rank: the row gets the slowest rank's time (a collective is done when its
// last rank is), goes to progress as row `done` of `total`, and every rank agrees whether to go on,
// since one rank stopping alone would leave the others waiting. False (result.cancelled) to stop.
bool add_row_on_every_rank(MeasureResult& result, const SweepSpec& spec, const SweepSize& size, double my_time_s,
                           std::optional<int64_t> wrong, std::size_t done, std::size_t total,
                           const MeasureProgress& progress);

// --check's wrong elements of this rank, added up over every rank (each rank gets the total).
[[nodiscard]] int64_t wrong_on_every_rank(int64_t mine);

// Prints "measure: rank R on HOST: message" and ends every rank of the job (MPI_Abort).
[[noreturn]] void abort_job(const MpiWorld& world, const std::string& message);

}  // namespace shardscope::mpi
