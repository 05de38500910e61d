#pragma once
// Measuring collectives on real GPUs, the pure half: what a sweep asks for, what it returns,
// nccl-tests' algbw/busbw columns, the result's JSON and text, and a registry of the backends this
// build has. The CUDA/NCCL backend lives in its own target (cuda/) and registers itself here at start;
// a build without CUDA simply has none, and everything below still works on recorded results.
//
// Sizes follow nccl-tests so the two tools can be compared line by line: `bytes` is S of docs/design.md
// (all-reduce and broadcast: the buffer; all-gather: the gathered result; reduce-scatter: the input;
// all-to-all: what each rank sends in all), the data type is float (4 bytes), and
//   algbw = S / time,   busbw = algbw * busbw_factor(op, ranks)   (core/collectives/collectives.hpp).

#include "core/collectives/collective_steps.hpp"
#include "core/collectives/collectives.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// --- What a sweep asks for ------------------------------------------------------------------------

inline constexpr double kMeasureElementBytes = 4;  // float, nccl-tests' default type
inline constexpr double kMaxSweepBytes = 64.0 * 1024 * 1024 * 1024;  // past this a size is a typo, not a plan

// The collectives a measurer times, in the spelling of nccl-tests' binaries and `--collective`.
[[nodiscard]] std::string_view measure_op_name(Collective c) noexcept;  // "all_reduce", ...
// Accepts "all_reduce" and "all-reduce" alike; nullopt for anything not measurable.
[[nodiscard]] std::optional<Collective> measure_op_from_string(std::string_view s) noexcept;
// The collective of one of nccl-tests' binaries (all_reduce_perf, ..., alltoall_perf); nullopt for
// the others and any other name.
[[nodiscard]] std::optional<Collective> measure_op_from_nccl_tests_binary(std::string_view s);
[[nodiscard]] const std::vector<Collective>& measurable_ops();

// nccl-tests' flags: -b MIN -e MAX -f FACTOR -n ITERS -w WARMUP -g GPUS, plus --check.
struct SweepSpec {
    Collective op = Collective::all_reduce;
    double min_bytes = 8;
    double max_bytes = 128.0 * 1024 * 1024;
    double factor = 2;     // each size is the previous one times this
    int iters = 20;        // timed iterations per size
    int warmup = 5;        // untimed iterations first
    int gpus = 0;          // ranks; 0 = every local GPU
    bool check = false;    // verify results against the closed form
    // The CPU backend can also time, over point-to-point messages, the algorithms the Collective
    // animator steps (core/measure/schedule_runner.hpp); nullopt times the library's own collective.
    std::optional<StepAlgorithm> algorithm;
    int ranks_per_node = 0;  // the hierarchical all-reduce's node size; 0 = the ranks' real nodes
};

// "mpi" for the library's own collective, else the animator's algorithm as a flag spells it:
// ring, tree, pairwise, double_binary_tree, hierarchical.
[[nodiscard]] std::string measure_algorithm_name(const std::optional<StepAlgorithm>& a);
// Accepts those names ('-' for '_' too, "dbtree" for the double binary tree); false when unknown.
[[nodiscard]] bool measure_algorithm_from_string(std::string_view s, std::optional<StepAlgorithm>& out);

// "" when the spec can run, else the flag and the rule it breaks ("-f: 1 must be greater than 1").
[[nodiscard]] std::string validate_sweep(const SweepSpec& spec);

// One size of the sweep: S in bytes and the element count nccl-tests prints beside it.
struct SweepSize {
    double bytes = 0;
    // The element count NCCL is called with, as nccl-tests prints it: the buffer for all-reduce and
    // broadcast, one rank's piece for all-gather and reduce-scatter, one peer's piece for all-to-all.
    int64_t count = 0;
};

// min, min*f, min*f^2, ... up to max, each rounded down to whole elements, and for the ops that split
// the buffer among ranks (all-gather, reduce-scatter, all-to-all) to a multiple of ranks elements, as
// nccl-tests does. Sizes that round to nothing or repeat are dropped.
[[nodiscard]] std::vector<SweepSize> sweep_sizes(const SweepSpec& spec, int ranks);

// The same sweep as a command line, to run it outside the app or compare with nccl-tests:
// "shardscope measure --collective all_reduce -b 8 -e 128M -f 2 -n 20 -w 5 [-g G] [--check]", or with
// nccl_tests "all_reduce_perf -b 8 -e 128M -f 2 -n 20 -w 5 -g G [-c 1]" (-g: GPUs; 0 leaves it out).
// Sizes use nccl-tests' binary suffixes K, M, G where they divide evenly.
[[nodiscard]] std::string sweep_command_line(const SweepSpec& spec, bool nccl_tests);
// The CPU backend's sweep on `ranks` MPI ranks: "mpirun -np 4 shardscope measure --backend cpu --collective ...";
// launcher and exe as they are run here (e.g. "mpirun --oversubscribe" and the binary's full path).
[[nodiscard]] std::string mpirun_command_line(const SweepSpec& spec, int ranks, const std::string& launcher = "mpirun",
                                              const std::string& exe = "shardscope");
// Whether the animator's schedule for spec.algorithm can run on `ranks` ranks of `ranks_per_node` a node
// ("" when it can, or when spec has no algorithm), naming --ranks-per-node where the node size is the fault.
[[nodiscard]] std::string check_sweep_schedule(const SweepSpec& spec, int ranks, int ranks_per_node);

// --- What it returns ------------------------------------------------------------------------------

struct TimingRow {
    double bytes = 0;                // S
    int64_t count = 0;
    double time_s = 0;               // mean of one iteration
    double algbw = 0;                // bytes per second
    double busbw = 0;                // bytes per second
    std::optional<int64_t> wrong;    // --check: elements that differ from the closed form
};

// The elements of each rank's send and receive buffers for a collective called with `count` elements
// on `ranks` ranks, as nccl-tests (and NCCL's API) size them: all-gather receives count from every
// rank, reduce-scatter sends count for every rank, all-to-all both; the rest send and receive count.
struct NcclBuffers {
    int64_t send = 0;
    int64_t recv = 0;
};
[[nodiscard]] NcclBuffers nccl_buffer_elements(Collective op, int64_t count, int ranks) noexcept;

// A row with nccl-tests' bandwidth columns filled in from the time.
[[nodiscard]] TimingRow make_timing_row(Collective op, const SweepSize& size, double time_s, int ranks);

struct MeasureResult {
    std::string backend;             // e.g. "cuda-nccl"
    std::string device;              // e.g. "8 x NVIDIA H100 80GB HBM3"
    Collective op = Collective::all_reduce;
    int ranks = 0;
    int iters = 0;
    int warmup = 0;
    LinkClass link = LinkClass::intra;  // where the ranks sit: one process on one node is intra
    // "" for the library's own collective (NCCL's, MPI's), else the animator's algorithm run step
    // for step over point-to-point messages (measure_algorithm_name).
    std::string algorithm;
    std::vector<TimingRow> rows;
    bool cancelled = false;
    std::string error;               // why the sweep stopped early ("" when it ran to the end)

    [[nodiscard]] bool ok() const noexcept { return error.empty() && !cancelled; }
};

// A backend's result before its first row: backend, op, iters, warmup, ranks, link and the
// algorithm (SweepSpec::algorithm's name, "" for the library's own) as the sweep asks them.
[[nodiscard]] MeasureResult begin_measure_result(const std::string& backend, const SweepSpec& spec, int ranks,
                                                 LinkClass link);

// nccl-tests' "Avg bus bandwidth": the mean busbw over the rows (0 when there are none).
[[nodiscard]] double average_busbw(const MeasureResult& r) noexcept;

// JSON ("schema": "shardscope.measure/1"; sizes in bytes, times in seconds, bandwidths in bytes/s).
// one_line: the whole document on one line, the last line of a --format jsonl stream.
[[nodiscard]] std::string measure_result_to_json(const MeasureResult& r, bool one_line = false);
// A stream's row line as it is measured: {"row": {bytes, count, time_s, algbw, busbw, wrong}}.
[[nodiscard]] std::string measure_row_json_line(const TimingRow& row);
// The row of such a line; nullopt for any other line (the final document among them).
[[nodiscard]] std::optional<TimingRow> parse_measure_row_line(std::string_view line);
struct MeasureResultLoad {
    std::optional<MeasureResult> result;
    std::string error;               // field path and rule, as the scenario reader words it
    [[nodiscard]] bool ok() const noexcept { return result.has_value(); }
};
[[nodiscard]] MeasureResultLoad parse_measure_result(std::string_view json_text);

// nccl-tests' table: size (B), count, type, redop, root, time (us), algbw, busbw (GB/s), #wrong,
// then "# Avg bus bandwidth".
[[nodiscard]] std::string measure_result_to_text(const MeasureResult& r);
// Its three parts, for printing rows as they are measured: the header reads op, ranks, link, backend,
// device, iters and warmup; the footer the rows, cancelled and error.
[[nodiscard]] std::string measure_text_header(const MeasureResult& r);
[[nodiscard]] std::string measure_text_row(Collective op, const TimingRow& row);
[[nodiscard]] std::string measure_text_footer(const MeasureResult& r);

// --- One GPU: what it tells the compute side of the model -----------------------------------------

struct GemmShape {
    std::string name;                // e.g. "FFN up"
    int64_t m = 0, n = 0, k = 0;     // C[m x n] = A[m x k] * B[k x n]
    [[nodiscard]] double flops() const noexcept {
        return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    }
};

struct GemmTiming {
    GemmShape shape;
    double time_s = 0;
    double flops_per_s = 0;
};

struct SingleGpuResult {
    std::string backend;
    std::string device;
    double copy_bytes = 0;           // one device-to-device copy
    double copy_time_s = 0;
    // HBM bandwidth as CUDA's bandwidthTest counts it: a copy reads and writes, 2 * bytes / time.
    double copy_bytes_per_s = 0;
    std::vector<GemmTiming> gemms;   // bf16 in and out, fp32 accumulate
    std::vector<std::string> notes;  // e.g. a GEMM skipped because it does not fit in free memory
    std::string error;
    [[nodiscard]] bool ok() const noexcept { return error.empty(); }
};

[[nodiscard]] std::string single_gpu_result_to_json(const SingleGpuResult& r);
[[nodiscard]] std::string single_gpu_result_to_text(const SingleGpuResult& r);

// --- Backends, asked at run time ------------------------------------------------------------------

struct BackendStatus {
    bool ready = false;              // a sweep can run now
    int devices = 0;
    std::vector<std::string> device_names;
    std::string message;             // one paragraph: what was found, or what is missing and how to get it
    std::string unit = "GPU";        // what a rank is: "GPU", or "CPU rank" for MPI processes
    // SweepSpec::algorithm can pick the Collective animator's algorithms (the CPU backend).
    bool animator_algorithms = false;
    // How the CPU backend's ranks are started here, for a command a person can paste: the launcher
    // with the flags it gets ("mpirun --oversubscribe --allow-run-as-root") and the binary's path.
    std::string launcher{};
    std::string executable{};
};

// Called after each size (row set) or each single-GPU figure (row null). Return false to cancel.
using MeasureProgress = std::function<bool(std::size_t done, std::size_t total, const TimingRow* row)>;

class Measurer {
public:
    virtual ~Measurer() = default;
    [[nodiscard]] virtual std::string name() const = 0;
    // Cheap; safe to call every few seconds from the UI thread.
    [[nodiscard]] virtual BackendStatus status() = 0;
    // Never throws: every failure (no GPU, NCCL error, out of memory) ends up in MeasureResult::error.
    [[nodiscard]] virtual MeasureResult measure(const SweepSpec& spec, const MeasureProgress& progress) = 0;
    // One device: a device-to-device copy of copy_bytes and each GEMM, iters times after warmup.
    [[nodiscard]] virtual SingleGpuResult measure_single_gpu(const std::vector<GemmShape>& gemms, double copy_bytes,
                                                             int iters, int warmup,
                                                             const MeasureProgress& progress) = 0;
};

// The CPU backend's name: MPI processes as ranks (mpi/), registered for the panel as an mpirun launch.
inline constexpr const char* kCpuMeasureBackend = "cpu-mpi";

using MeasurerFactory = std::function<std::unique_ptr<Measurer>()>;
// Registering a name twice replaces the first factory.
void register_measurer(const std::string& name, MeasurerFactory factory);
// Tests register fakes; this takes one out again so later tests see the build's own list.
void unregister_measurer(const std::string& name);
[[nodiscard]] std::vector<std::string> measurer_names();
// The named backend, or the first registered one when name is empty; nullptr when there is none.
[[nodiscard]] std::unique_ptr<Measurer> make_measurer(std::string_view name = {});
// What to say when no backend was built in: what is missing and how to get it.
[[nodiscard]] std::string no_backend_message();

}  // namespace shardscope
