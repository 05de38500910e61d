#include "core/measure/mpi_launch.hpp"

#include <algorithm>
#include <cstdlib>

namespace shardscope {

namespace {

// The variable as a whole number >= lo, or fallback when unset or not a number.
int read_int(const std::function<const char*(const char*)>& get, const char* name, int lo, int fallback) {
    const char* v = get(name);
    if (!v || !*v) return fallback;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < lo || n > 1000000) return fallback;
    return static_cast<int>(n);
}

}  // namespace

MpiLaunch detect_mpi_launch(const std::function<const char*(const char*)>& get) {
    struct Names {
        const char* launcher;
        const char* size;
        const char* rank;
        const char* local_rank;
        const char* local_size;
    };
    static const Names kLaunchers[] = {
        {"Open MPI", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
         "OMPI_COMM_WORLD_LOCAL_SIZE"},
        {"MPICH/Hydra", "PMI_SIZE", "PMI_RANK", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
    };
    for (const Names& n : kLaunchers) {
        const int size = read_int(get, n.size, 1, 0);
        if (size == 0) continue;
        MpiLaunch l;
        l.launcher = n.launcher;
        l.world_size = size;
        l.world_rank = read_int(get, n.rank, 0, 0);
        l.local_rank = read_int(get, n.local_rank, 0, -1);
        l.local_size = read_int(get, n.local_size, 1, 0);
        return l;
    }
    return {};
}

bool use_mpi_measure(const MpiLaunch& launch, bool insist) noexcept { return insist || launch.world_size > 1; }

GpuAssignment gpu_for_rank(int world_rank, int local_rank, int local_size, int visible_devices,
                           bool visible_devices_set, const std::string& host) {
    GpuAssignment a;
    if (local_rank >= 0 && local_rank < visible_devices && visible_devices >= local_size) {
        a.device = local_rank;
        return a;
    }
    if (visible_devices == 1 && visible_devices_set) {
        a.device = 0;
        return a;
    }
    const std::string who = "rank " + std::to_string(world_rank) + " (local rank " + std::to_string(local_rank) +
                            " of " + std::to_string(local_size) + " on " + host + ") has no GPU: ";
    if (visible_devices <= 0) {
        // No count of ranks fixes this one: the node's GPUs are missing or hidden.
        a.error = who + "CUDA shows none on this node (check nvidia-smi, the driver and CUDA_VISIBLE_DEVICES there).";
        return a;
    }
    a.error = who + "the node shows " +
              std::to_string(visible_devices) + " GPU" + (visible_devices == 1 ? "" : "s") + " for " +
              std::to_string(local_size) + " rank" + (local_size == 1 ? "" : "s") +
              ". Start one rank per GPU: at most that many per node (mpirun -H " + host + ":" +
              std::to_string(visible_devices) + ",...).";
    return a;
}

LinkClass mpi_link_class(int nodes) noexcept { return nodes > 1 ? LinkClass::inter : LinkClass::intra; }

std::string mpi_device_label(int ranks, int nodes, const std::string& gpu_name) {
    std::string s = std::to_string(ranks) + " x " + gpu_name;
    if (nodes > 1) s += " on " + std::to_string(nodes) + " nodes";
    return s;
}

RankFigures merge_rank_figures(const std::vector<RankFigures>& ranks) noexcept {
    RankFigures m;
    for (const RankFigures& r : ranks) {
        m.time_s = std::max(m.time_s, r.time_s);
        m.wrong += r.wrong;
    }
    return m;
}

}  // namespace shardscope
