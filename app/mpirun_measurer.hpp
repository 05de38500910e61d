#pragma once
// The CPU backend as the window reaches it: the Measure panel cannot become MPI ranks itself, so this
// measurer starts `mpirun -np N <this executable> measure --backend cpu --format jsonl ...` on the
// local machine, reads each row as rank 0 prints it (progress), and ends the whole job when the
// panel cancels. Registered by app/measure_backends.cpp when the build has the CPU backend.

#include "core/measure/measure.hpp"

#include <memory>
#include <string>
#include <vector>

namespace shardscope::app {

inline constexpr int kDefaultCpuRanks = 4;

// The mpirun command line for a sweep on `ranks` local ranks of `exe`. Open MPI's mpirun also gets
// --oversubscribe (more ranks than cores is the point on a laptop) and, as root, --allow-run-as-root.
[[nodiscard]] std::vector<std::string> mpirun_arguments(const std::string& mpirun, bool open_mpi, bool as_root,
                                                        const std::string& exe, const SweepSpec& spec, int ranks);

// `mpirun` on PATH ("" when there is none).
[[nodiscard]] std::string find_mpirun();

// exe: the shardscope binary the ranks run (normally this one, /proc/self/exe).
[[nodiscard]] std::unique_ptr<Measurer> make_mpirun_measurer(std::string exe);

}  // namespace shardscope::app
