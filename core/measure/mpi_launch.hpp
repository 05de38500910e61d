#pragma once
// The MPI launch of `shardscope measure` (beyond one machine), the pure half: whether this
// process was started by an MPI launcher and as which rank (read from the launcher's environment
// variables, before MPI is initialised), which GPU a rank drives, and how the ranks' figures merge.
// The MPI/NCCL code that uses it lives in cuda/mpi_measurer.cpp, built only with CUDA and MPI.

#include "core/collectives/collectives.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace shardscope {

// What the launcher told this process. world_size 0: not started by a launcher we know.
struct MpiLaunch {
    std::string launcher;  // "Open MPI", "MPICH/Hydra", or "" when none
    int world_size = 0;
    int world_rank = 0;
    int local_rank = -1;   // -1 when the launcher does not say (MPI_Comm_split_type tells later)
    int local_size = 0;
};

// Reads Open MPI's OMPI_COMM_WORLD_{SIZE,RANK,LOCAL_RANK,LOCAL_SIZE}, then MPICH/Intel MPI Hydra's
// PMI_SIZE, PMI_RANK, MPI_LOCALRANKID, MPI_LOCALNRANKS. Slurm's variables are left out on purpose: they
// are also set inside a plain sbatch job, where they do not mean that MPI started this process.
// get(name) returns the variable or nullptr (std::getenv in the app, a map in tests).
[[nodiscard]] MpiLaunch detect_mpi_launch(const std::function<const char*(const char*)>& get);

// The MPI path runs when asked (--mpi) or when a launcher started more than one rank: a lone rank
// under mpirun measures like a plain run.
[[nodiscard]] bool use_mpi_measure(const MpiLaunch& launch, bool insist) noexcept;

// Which local GPU a rank drives. One rank per GPU: local rank L drives GPU L when the node shows at
// least as many GPUs as it has ranks. A node that shows one GPU to each of several ranks while
// CUDA_VISIBLE_DEVICES is set has been split per rank by the scheduler (or a wrapper script): each
// rank drives its GPU 0. Anything else leaves a rank without a GPU: device -1 and the reason.
struct GpuAssignment {
    int device = -1;
    std::string error;
    [[nodiscard]] bool ok() const noexcept { return device >= 0; }
};
[[nodiscard]] GpuAssignment gpu_for_rank(int world_rank, int local_rank, int local_size, int visible_devices,
                                         bool visible_devices_set, const std::string& host);

// Ranks on one node talk over NVLink/PCIe (intra); once they span nodes the slowest hop is the network.
[[nodiscard]] LinkClass mpi_link_class(int nodes) noexcept;

// "16 x NVIDIA H100 80GB HBM3 on 2 nodes" (one node: no "on ...").
[[nodiscard]] std::string mpi_device_label(int ranks, int nodes, const std::string& gpu_name);

// Each rank times its own stream; a collective is done when the slowest rank is, so the row's time is
// the maximum over ranks (what MPI_Allreduce with MPI_MAX computes). Wrong elements add up over ranks.
struct RankFigures {
    double time_s = 0;
    int64_t wrong = 0;
};
[[nodiscard]] RankFigures merge_rank_figures(const std::vector<RankFigures>& ranks) noexcept;

}  // namespace shardscope
