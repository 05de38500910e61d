#include "mpi/mpi_world.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace shardscope::mpi {

namespace {

[[nodiscard]] std::string library_name() {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(text, &len);
    std::string s(text, static_cast<std::size_t>(len));
    // "Open MPI v4.1.4, package: ..." or "MPICH Version: 4.0 ...": the first clause names it.
    s = s.substr(0, s.find_first_of(",\n"));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
    return s.empty() ? "MPI" : s;
}

}  // namespace

bool start_mpi(MpiWorld& w, std::string& error) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized && MPI_Init(nullptr, nullptr) != MPI_SUCCESS) {
        error = "MPI_Init failed: start shardscope with mpirun (or your MPI's launcher), with the MPI it was built against";
        return false;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.size);
    // The ranks that share this node's memory are this node's ranks.
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &w.local_rank);
    MPI_Comm_size(node, &w.local_size);
    MPI_Comm_free(&node);
    int first_on_node = w.local_rank == 0 ? 1 : 0;
    MPI_Allreduce(&first_on_node, &w.nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(host, &len);
    w.host.assign(host, static_cast<std::size_t>(len));
    w.library = library_name();
    return true;
}

void finish_mpi() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

void check_mpi(int rc, const std::string& what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw MpiFailure{what + ": MPI: " + std::string(text, static_cast<std::size_t>(len))};
}

bool add_row_on_every_rank(MeasureResult& result, const SweepSpec& spec, const SweepSize& size, double my_time_s,
                           std::optional<int64_t> wrong, std::size_t done, std::size_t total,
                           const MeasureProgress& progress) {
    double slowest = 0;
    check_mpi(MPI_Allreduce(&my_time_s, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "merging the times");
    TimingRow row = make_timing_row(spec.op, size, slowest, result.ranks);
    row.wrong = wrong;
    result.rows.push_back(row);
    int go_on = !progress || progress(done, total, &result.rows.back()) ? 1 : 0, all = 0;
    check_mpi(MPI_Allreduce(&go_on, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "agreeing to go on");
    if (!all) result.cancelled = true;
    return all != 0;
}

int64_t wrong_on_every_rank(int64_t mine) {
    long long own = static_cast<long long>(mine), all = 0;
    check_mpi(MPI_Allreduce(&own, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "adding up the check");
    return static_cast<int64_t>(all);
}

void abort_job(const MpiWorld& w, const std::string& message) {
    std::fprintf(stderr, "measure: rank %d on %s: %s\n", w.rank, w.host.c_str(), message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();  // MPI_Abort does not return; this keeps [[noreturn]] honest if it ever did
}

}  // namespace shardscope::mpi
