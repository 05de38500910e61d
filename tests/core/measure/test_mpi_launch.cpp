// The MPI launch's pure half (beyond one machine): launcher detection from environment
// variables, the rank-to-GPU mapping and its "no GPU" message, and the merge of figures over ranks.
// No MPI and no GPU needed: the environment is a map.

#include "core/measure/mpi_launch.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>

using namespace shardscope;

namespace {

MpiLaunch detect(const std::map<std::string, std::string>& env) {
    return detect_mpi_launch([&](const char* name) -> const char* {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    });
}

}  // namespace

TEST_CASE("mpi launch: a plain run is no launch and does not use MPI unless asked") {
    const MpiLaunch l = detect({{"HOME", "/root"}, {"SLURM_NTASKS", "16"}});
    CHECK(l.world_size == 0);
    CHECK(l.launcher.empty());
    CHECK_FALSE(use_mpi_measure(l, false));
    CHECK(use_mpi_measure(l, true));
}

TEST_CASE("mpi launch: Open MPI's variables give size, rank and local rank") {
    // mpirun -np 16 -H node1:8,node2:8: the 12th rank is local rank 3 on node2.
    const MpiLaunch l = detect({{"OMPI_COMM_WORLD_SIZE", "16"},
                                {"OMPI_COMM_WORLD_RANK", "11"},
                                {"OMPI_COMM_WORLD_LOCAL_RANK", "3"},
                                {"OMPI_COMM_WORLD_LOCAL_SIZE", "8"}});
    CHECK(l.launcher == "Open MPI");
    CHECK(l.world_size == 16);
    CHECK(l.world_rank == 11);
    CHECK(l.local_rank == 3);
    CHECK(l.local_size == 8);
    CHECK(use_mpi_measure(l, false));
}

TEST_CASE("mpi launch: Hydra's variables, a missing local rank, and one rank alone") {
    const MpiLaunch h = detect({{"PMI_SIZE", "4"}, {"PMI_RANK", "2"}});
    CHECK(h.launcher == "MPICH/Hydra");
    CHECK(h.world_size == 4);
    CHECK(h.world_rank == 2);
    CHECK(h.local_rank == -1);  // MPI_Comm_split_type tells it after MPI_Init
    // mpirun -np 1 is a plain run unless --mpi insists.
    const MpiLaunch one = detect({{"OMPI_COMM_WORLD_SIZE", "1"}, {"OMPI_COMM_WORLD_RANK", "0"}});
    CHECK(one.world_size == 1);
    CHECK_FALSE(use_mpi_measure(one, false));
    // Garbage is no launch rather than a wrong one.
    CHECK(detect({{"OMPI_COMM_WORLD_SIZE", "many"}}).world_size == 0);
}

TEST_CASE("mpi launch: local rank L drives GPU L when the node has a GPU per rank") {
    const GpuAssignment a = gpu_for_rank(11, 3, 8, 8, false, "node2");
    CHECK(a.ok());
    CHECK(a.device == 3);
    // More GPUs than ranks: the first local_size are used.
    CHECK(gpu_for_rank(1, 1, 2, 8, false, "n").device == 1);
    // The scheduler gave each rank its own GPU through CUDA_VISIBLE_DEVICES: each drives its GPU 0.
    CHECK(gpu_for_rank(5, 5, 8, 1, true, "n").device == 0);
}

TEST_CASE("mpi launch: a rank without a GPU gets a message that says how to start the job") {
    // 10 ranks on a node with 8 GPUs: local rank 9 has none.
    const GpuAssignment a = gpu_for_rank(9, 9, 10, 8, false, "node1");
    CHECK_FALSE(a.ok());
    CHECK(a.device == -1);
    CHECK(a.error ==
          "rank 9 (local rank 9 of 10 on node1) has no GPU: the node shows 8 GPUs for 10 ranks. Start one rank per "
          "GPU: at most that many per node (mpirun -H node1:8,...).");
    // Fewer GPUs than ranks fails every rank, also those whose local rank has a GPU: two ranks would
    // otherwise share one, which NCCL refuses later with a less helpful message.
    CHECK_FALSE(gpu_for_rank(0, 0, 10, 8, false, "node1").ok());
    // One GPU shown to several ranks without CUDA_VISIBLE_DEVICES: they would all share GPU 0.
    CHECK_FALSE(gpu_for_rank(1, 1, 2, 1, false, "n").ok());
    // No GPU at all: no mpirun -H advice, the node itself is the problem.
    CHECK(gpu_for_rank(0, 0, 1, 0, false, "n").error ==
          "rank 0 (local rank 0 of 1 on n) has no GPU: CUDA shows none on this node (check nvidia-smi, the driver "
          "and CUDA_VISIBLE_DEVICES there).");
}

TEST_CASE("mpi launch: link class, device label and the merge over ranks") {
    CHECK(mpi_link_class(1) == LinkClass::intra);
    CHECK(mpi_link_class(2) == LinkClass::inter);
    CHECK(mpi_device_label(8, 1, "NVIDIA H100") == "8 x NVIDIA H100");
    CHECK(mpi_device_label(16, 2, "NVIDIA H100") == "16 x NVIDIA H100 on 2 nodes");
    // Times 100, 250 and 180 us: the collective took as long as the slowest rank; 0 + 3 + 4 wrong.
    const RankFigures m = merge_rank_figures({{100e-6, 0}, {250e-6, 3}, {180e-6, 4}});
    CHECK(m.time_s == doctest::Approx(250e-6));
    CHECK(m.wrong == 7);
    CHECK(merge_rank_figures({}).time_s == 0);
}
