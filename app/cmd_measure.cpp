// `shardscope measure`: times collectives on the local GPUs with nccl-tests' flags and columns.
//
//   shardscope measure [all_reduce_perf|...|alltoall_perf | --collective all_reduce|all_gather|reduce_scatter|
//                      broadcast|all_to_all] [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP] [-g GPUS]
//                      [-c N] [-o sum] [-d float] [--format json|text]
//                      [--config SCENARIO.json] [--save-cluster FILE] [--mpi]
//                      [--backend cuda|cpu] [--algorithm mpi|ring|tree|pairwise|double_binary_tree|hierarchical]
//                      [--ranks-per-node N]
//
// Sizes take nccl-tests' suffixes (8, 64K, 128M, 1G; binary). Every flag nccl-tests has means here what
// it means there (nccl-tests' src/common.cu): -o is the reduction operator and -d the element type, and
// the collective is chosen as nccl-tests chooses it, by the binary's name (all_reduce_perf, ...) or with
// --collective. A value Shardscope does not time (another operator, type or averaging) is refused with
// the reason rather than ignored. One process drives every local GPU.
// With one GPU it says that a collective needs two or more and measures what one GPU can tell the
// model instead: the HBM copy bandwidth and bf16 GEMMs at the scenario's shapes (--config, else the
// default scenario). --save-cluster writes the scenario's cluster with the measured figures as a
// cluster preset file. Exit 0 on success, 2 on bad arguments, 1 when nothing could be measured (no
// backend, no GPU, an NCCL or CUDA failure) or --check found wrong results.
//
// Under mpirun with more than one rank (or with --mpi) each rank drives one GPU, on one node or many
// (cuda/mpi_measurer.hpp); the columns are the same, rank 0 prints them and writes --save-cluster, and
// the other ranks print only their errors. A build without MPI says so instead of letting every rank
// drive all of its node's GPUs at once.
//
// --backend cpu times collectives between MPI processes instead (mpi/cpu_mpi_measurer.hpp), no GPU
// needed: `mpirun -np 4 shardscope measure --backend cpu`. With --algorithm it runs the algorithm the
// Collective animator steps, over point-to-point messages, instead of MPI's own collective.
// --format jsonl prints each row as a JSON line as it is measured, then the whole result on one line:
// what the Measure panel reads from the mpirun it starts.

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "host/file_io.hpp"
#include "core/measure/calibration.hpp"
#include "core/collectives/collective_figures.hpp"
#include "core/measure/measure.hpp"
#include "core/measure/mpi_launch.hpp"
#include "core/scenario/units.hpp"

#ifdef SHARDSCOPE_WITH_MPI
#include "app/measure_plugin_loader.hpp"
#endif
#ifdef SHARDSCOPE_WITH_CPU_MPI
#include "mpi/cpu_mpi_measurer.hpp"
#endif

#include <cstdlib>
#include <iostream>
#include <optional>
#include <tuple>
#include <streambuf>
#include <utility>

namespace {

using namespace shardscope;

constexpr const char* kUsage =
    "usage: shardscope measure [all_reduce_perf|all_gather_perf|reduce_scatter_perf|broadcast_perf|alltoall_perf]\n"
    "                          [--collective all_reduce|all_gather|reduce_scatter|broadcast|all_to_all]\n"
    "                          [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP] [-g GPUS] [-c [N]]\n"
    "                          [-o sum] [-d float] [-t 1] [-a 3] [-m 1] [-z 0] [-G 0] [-N 1]\n"
    "                          [--format json|jsonl|text] [--config SCENARIO.json] [--save-cluster FILE] [--mpi]\n"
    "                          [--backend cuda|cpu] [--algorithm mpi|ring|tree|pairwise|double_binary_tree|hierarchical]\n"
    "                          [--ranks-per-node N]\n"
    "  The collective: a name of nccl-tests' binaries first, or --collective (default all_reduce).\n"
    "  nccl-tests' flags, with its meanings: -b/--minbytes, -e/--maxbytes: smallest/largest size (default\n"
    "  8 and 128M; suffixes K M G), -f/--stepfactor: size factor (2), -n/--iters: timed iterations (20),\n"
    "  -w/--warmup_iters: warm-up iterations (5), -g/--ngpus: GPUs the one thread drives (here 0 = all,\n"
    "  the default), -c/--check N: verify results (0 off; alone: 1), -o/--op: the reduction operator and\n"
    "  -d/--datatype: the element type (Shardscope times sum over float, what the model prices), and, at\n"
    "  the one value each that Shardscope runs, -t/--nthreads 1, -a/--average 3 (the slowest rank's time),\n"
    "  -m/--agg_iters 1, -z/--blocking 0, -G/--cudagraph 0, -N/--run_cycles 1; values glued (-b8) or after\n"
    "  = (--minbytes=8) too;\n"
    "  --mpi: one rank per GPU under mpirun (chosen by itself when mpirun\n"
    "  starts two or more ranks), --backend cpu: ranks are MPI processes, no GPU (mpirun -np 4 shardscope\n"
    "  measure --backend cpu), --algorithm: with --backend cpu, the Collective animator's algorithm over\n"
    "  point-to-point messages instead of MPI's own (mpi), --ranks-per-node: the hierarchical algorithm's\n"
    "  node size (default: the ranks' real nodes), --format jsonl: a JSON line per row as measured";

struct Options {
    SweepSpec spec;
    std::string format = "text";
    std::string config;
    std::string save_cluster;
    std::string backend;  // "" = the build's GPU backend, "cuda", or "cpu"
    bool mpi = false;
};

[[nodiscard]] bool parse_whole(const std::string& text, int lo, int& out) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || v < lo || v > 1000000) return false;
    out = static_cast<int>(v);
    return true;
}

// The flags as given, as text: nccl-tests' spellings (-b/--minbytes, -e/--maxbytes, -f/--stepfactor,
// -n/--iters, -w/--warmup_iters, -g/--ngpus, -c/--check [0|1], -o/--op) and Shardscope's own.
struct Flags {
    std::string binary, collective, op, datatype, minbytes, maxbytes, stepfactor, iters, warmup, ngpus, check, backend,
        algorithm, ranks_per_node;
    // nccl-tests' flags that Shardscope runs at one value only: -t, -a, -m, -z, -G, -N.
    std::string nthreads, average, agg_iters, blocking, cudagraph, run_cycles;
};

void add_flags(CLI::App& parser, Flags& f, Options& o) {
    parser.add_option("binary", f.binary);
    parser.add_option("--collective", f.collective);
    parser.add_option("-o,--op", f.op);
    parser.add_option("-d,--datatype", f.datatype);
    parser.add_option("-t,--nthreads", f.nthreads);
    parser.add_option("-a,--average", f.average);
    parser.add_option("-m,--agg_iters", f.agg_iters);
    parser.add_option("-z,--blocking", f.blocking);
    parser.add_option("-G,--cudagraph", f.cudagraph);
    parser.add_option("-N,--run_cycles", f.run_cycles);
    parser.add_option("-b,--minbytes", f.minbytes);
    parser.add_option("-e,--maxbytes", f.maxbytes);
    parser.add_option("-f,--stepfactor", f.stepfactor);
    parser.add_option("-n,--iters", f.iters);
    parser.add_option("-w,--warmup_iters", f.warmup);
    parser.add_option("-g,--ngpus", f.ngpus);
    // --check alone is a flag; nccl-tests' spelling takes the iterations to check (-c 1, --check 0).
    parser.add_option("-c,--check", f.check)->expected(0, 1)->default_str("1");
    parser.add_option("--backend", f.backend);
    parser.add_option("--algorithm", f.algorithm);
    parser.add_option("--ranks-per-node", f.ranks_per_node);
    parser.add_option("--format", o.format);
    parser.add_option("--config", o.config);
    parser.add_option("--save-cluster", o.save_cluster);
    parser.add_flag("--mpi", o.mpi);
}

// The collective from nccl-tests' binary name or --collective; "" or the message.
std::string check_collective(const Flags& f, Options& o) {
    if (!f.binary.empty() && !f.collective.empty())
        return "'" + f.binary + "' and --collective " + f.collective + " both name the collective: give one";
    if (!f.binary.empty()) {
        const auto op = measure_op_from_nccl_tests_binary(f.binary);
        if (!op)
            return "'" + f.binary + "' is not one of nccl-tests' binaries measured here: all_reduce_perf, all_gather_perf, "
                   "reduce_scatter_perf, broadcast_perf, alltoall_perf";
        o.spec.op = *op;
    }
    if (!f.collective.empty()) {
        const auto op = measure_op_from_string(f.collective);
        if (!op)
            return "--collective: '" + f.collective + "' is not one of all_reduce, all_gather, reduce_scatter, broadcast, all_to_all";
        o.spec.op = *op;
    }
    return "";
}

// nccl-tests' -o and -d: the operator and type every backend runs (sum over float, as gradients are
// reduced), or the message; a collective named with -o, as Shardscope's first flags did, is told where
// it goes now.
std::string check_reduction(const Flags& f) {
    if (!f.op.empty() && f.op != "sum") {
        if (measure_op_from_string(f.op))
            return "-o/--op: '" + f.op + "' is a collective, but -o is nccl-tests' reduction operator (sum, prod, min, "
                   "max, avg, mulsum): name the collective with --collective " + f.op + " or its binary's name";
        return "-o/--op: '" + f.op + "': Shardscope times the sum reduction only (what gradients are reduced with); "
               "nccl-tests' prod, min, max, avg, mulsum and all are not measured here";
    }
    if (!f.datatype.empty() && f.datatype != "float")
        return "-d/--datatype: '" + f.datatype + "': Shardscope times float (4-byte) elements only; sizes are in bytes, "
               "so a bf16 message of S bytes is timed as S bytes of float";
    return "";
}

// nccl-tests' flags that Shardscope runs at one value: that value is accepted, any other refused
// with what Shardscope does instead.
std::string check_fixed_flags(const Flags& f) {
    const struct {
        const char* flag;
        const std::string* value;
        const char* runs;
        const char* why;
    } fixed[] = {
        {"-t/--nthreads", &f.nthreads, "1", "one thread drives every GPU of this process; more processes: mpirun"},
        {"-a/--average", &f.average, "3", "each row is the slowest rank's time (nccl-tests' 3), as a collective is done "
                                          "when every rank is"},
        {"-m/--agg_iters", &f.agg_iters, "1", "each timed iteration launches one collective"},
        {"-z/--blocking", &f.blocking, "0", "collectives are launched without a barrier between them"},
        {"-G/--cudagraph", &f.cudagraph, "0", "collectives are launched directly, never from a CUDA graph"},
        {"-N/--run_cycles", &f.run_cycles, "1", "the sweep runs once"},
    };
    for (const auto& x : fixed)
        if (!x.value->empty() && *x.value != x.runs)
            return std::string(x.flag) + ": '" + *x.value + "': Shardscope runs " + x.runs + " only (" + x.why + ")";
    return "";
}

// "" when every given flag holds a value it takes, else the message (exit 2), which names the flag
// by nccl-tests' short spelling, as the usage does.
std::string check_flags(const Flags& f, Options& o) {
    for (const std::string& e : {check_collective(f, o), check_reduction(f), check_fixed_flags(f)})
        if (!e.empty()) return e;
    for (const auto& [flag, text, bytes] : {std::tuple{"-b", &f.minbytes, &o.spec.min_bytes},
                                            std::tuple{"-e", &f.maxbytes, &o.spec.max_bytes}}) {
        if (text->empty()) continue;
        const auto parsed = parse_byte_size(*text);
        if (!parsed) return std::string(flag) + ": '" + *text + "' is not a size (e.g. 8, 64K, 128M, 1G)";
        *bytes = *parsed;
    }
    if (!f.stepfactor.empty()) {
        char* end = nullptr;
        o.spec.factor = std::strtod(f.stepfactor.c_str(), &end);
        if (*end != '\0') return "-f: '" + f.stepfactor + "' is not a number";
    }
    if (!f.iters.empty() && !parse_whole(f.iters, 1, o.spec.iters))
        return "-n: '" + f.iters + "' must be a whole number, at least 1";
    if (!f.warmup.empty() && !parse_whole(f.warmup, 0, o.spec.warmup))
        return "-w: '" + f.warmup + "' must be a whole number, 0 or more";
    if (!f.ngpus.empty() && !parse_whole(f.ngpus, 0, o.spec.gpus))
        return "-g: '" + f.ngpus + "' must be a whole number, 0 (all) or more";
    if (!f.check.empty()) {
        int iterations = 0;
        if (!parse_whole(f.check, 0, iterations))
            return "-c: '" + f.check + "' must be a whole number of iterations to check, 0 (off) or more";
        o.spec.check = iterations > 0;
    }
    if (!f.backend.empty()) {
        if (f.backend != "cuda" && f.backend != "cpu") return "--backend must be cuda or cpu, got '" + f.backend + "'";
        o.backend = f.backend;
    }
    if (!f.algorithm.empty() && !measure_algorithm_from_string(f.algorithm, o.spec.algorithm))
        return "--algorithm: '" + f.algorithm + "' is not one of mpi, ring, tree, pairwise, double_binary_tree, hierarchical";
    if (!f.ranks_per_node.empty() && !parse_whole(f.ranks_per_node, 1, o.spec.ranks_per_node))
        return "--ranks-per-node: '" + f.ranks_per_node + "' must be a whole number, at least 1";
    if (o.format != "json" && o.format != "jsonl" && o.format != "text")
        return "--format must be json, jsonl or text, got '" + o.format + "'";
    if (o.spec.algorithm && o.backend != "cpu")
        return "--algorithm: the GPU backend times NCCL's own choice (NCCL_ALGO picks among NCCL's); the "
               "animator's algorithms run with --backend cpu";
    return validate_sweep(o.spec);
}

// The scenario whose GEMM shapes and cluster the measurement calibrates; nullopt after a message.
std::optional<Scenario> load_scenario(const std::string& path, int& exit_code) {
    if (path.empty()) return default_scenario();
    std::string error;
    const auto text = host::read_text_file(path, error);
    if (!text) {
        std::cerr << "measure: " << error << "\n";
        exit_code = 2;
        return std::nullopt;
    }
    ScenarioLoad loaded = parse_scenario(*text);
    if (!loaded.ok()) {
        std::cerr << path << ": " << loaded.error << "\n";
        exit_code = 2;
        return std::nullopt;
    }
    return loaded.scenario;
}

// Writes the calibrated cluster preset; false after a message.
bool save_cluster(const Options& o, const Scenario& scenario, const std::vector<MeasureResult>& sweeps,
                  const SingleGpuResult* single) {
    if (o.save_cluster.empty()) return true;
    const ClusterSpec cluster = calibrated_cluster(scenario.cluster, calibrate(sweeps, single));
    const std::string text = cluster_preset_json(cluster, calibration_source(sweeps, single));
    if (std::string e = host::write_file_atomically(o.save_cluster, text); !e.empty()) {
        std::cerr << "measure: cannot write " << o.save_cluster << ": " << e << "\n";
        return false;
    }
    std::cerr << "measure: wrote the calibrated cluster to " << o.save_cluster << "\n";
    return true;
}

int measure_one_gpu(const Options& o, Measurer& m, const BackendStatus& status, const Scenario& scenario) {
    std::cerr << "measure: a collective needs two or more GPUs; "
              << (status.devices == 1 ? "this machine has one" : "-g 1 asks for one") << " ("
              << (status.device_names.empty() ? std::string("GPU") : status.device_names.front())
              << "). Measuring what one GPU tells the model instead: HBM copy bandwidth and bf16 GEMMs at "
              << scenario.model.name << "'s shapes.\n";
    const SingleGpuResult r =
        m.measure_single_gpu(model_gemm_shapes(scenario), 1024.0 * 1024 * 1024, o.spec.iters, o.spec.warmup, {});
    std::cout << (o.format == "json" ? single_gpu_result_to_json(r) : single_gpu_result_to_text(r));
    if (!r.ok()) {
        std::cerr << "measure: " << r.error << "\n";
        return 1;
    }
    return save_cluster(o, scenario, {}, &r) ? 0 : 1;
}

// The fit beside the scenario's own figures, after the text table.
void print_fit(const MeasureResult& r, const Scenario& scenario) {
    const LinkFit fit = fit_alpha_beta(alpha_beta_samples(r));
    if (!fit.ok) {
        std::cout << "# alpha-beta fit: " << fit.note << "\n";
        return;
    }
    // Ranks on several nodes (the MPI path) fit the network, which the scenario's inter-node link prices.
    const bool inter = r.link == LinkClass::inter;
    const LinkSpec& model = inter ? scenario.cluster.inter_node : scenario.cluster.intra_node;
    std::cout << "# alpha-beta fit (t = steps x alpha + bytes_factor x S / B): alpha " << format_seconds(fit.alpha_s)
              << ", B " << format_bandwidth(fit.bandwidth_bytes_per_s) << ", rms error "
              << format_percent(fit.rms_relative_error) << "; the scenario's " << (inter ? "inter" : "intra")
              << "-node link says alpha "
              << format_seconds(model.latency_us * 1e-6) << ", B " << format_bandwidth(model.bandwidth_gbps * 1e9)
              << (fit.note.empty() ? "" : " (" + fit.note + ")") << "\n";
}

// The header's facts before the sweep reports them: the GPUs -g asks for, on this machine's names.
// Under MPI the ranks may span nodes: mpi_nodes (0 without MPI) says where they sit.
MeasureResult planned_header(const Options& o, const Measurer& m, const BackendStatus& status, int mpi_nodes) {
    MeasureResult h;
    h.backend = m.name();
    h.op = o.spec.op;
    h.ranks = o.spec.gpus > 0 ? o.spec.gpus : status.devices;
    h.iters = o.spec.iters;
    h.warmup = o.spec.warmup;
    if (o.spec.algorithm) h.algorithm = measure_algorithm_name(o.spec.algorithm);
    if (!status.device_names.empty()) h.device = std::to_string(h.ranks) + " x " + status.device_names.front();
    if (mpi_nodes > 0) {
        h.link = mpi_link_class(mpi_nodes);
        if (!status.device_names.empty()) h.device = mpi_device_label(h.ranks, mpi_nodes, status.device_names.front());
    }
    return h;
}

int run_measure(const std::vector<std::string>& args) {
    Options o;
    Flags flags;
    CLI::App parser;
    app::configure_parser(parser);
    add_flags(parser, flags, o);
    if (const auto exit = app::parse_arguments(parser, args, "measure", kUsage)) return *exit;
    if (std::string e = check_flags(flags, o); !e.empty()) {
        std::cerr << "measure: " << e << "\n";
        return 2;
    }
    int exit_code = 0;
    const std::optional<Scenario> scenario = load_scenario(o.config, exit_code);
    if (!scenario) return exit_code;

    std::unique_ptr<Measurer> m;
    int mpi_nodes = 0;  // > 0 on the MPI path
    // Ranks other than 0 keep stdout quiet (one table per job, as nccl-tests prints); restored on return.
    struct NullBuffer : std::streambuf {
        int overflow(int c) override { return c; }
    } null_buffer;
    struct Restore {
        std::streambuf* saved = nullptr;
        ~Restore() {
            if (saved) std::cout.rdbuf(saved);
        }
    } restore;
    // Either MPI launch: rank 0 prints the table and writes --save-cluster, the others stay quiet.
    [[maybe_unused]] const auto adopt_mpi_session = [&](auto session) {
        if (!session.measurer) {
            std::cerr << "measure: " << session.error << "\n";
            return false;
        }
        m = std::move(session.measurer);
        mpi_nodes = session.nodes;
        if (session.rank != 0) {
            restore.saved = std::cout.rdbuf(&null_buffer);
            o.save_cluster.clear();
        }
        return true;
    };
    const MpiLaunch launch = detect_mpi_launch([](const char* name) -> const char* { return std::getenv(name); });
#ifdef SHARDSCOPE_WITH_MPI
    constexpr bool gpu_mpi_built = true;
#else
    constexpr bool gpu_mpi_built = false;
#endif
#ifdef SHARDSCOPE_WITH_CPU_MPI
    constexpr bool cpu_built = true;
#else
    constexpr bool cpu_built = false;
#endif
    // Under mpirun a build without the GPU launch measures the CPU ranks it was started as.
    const bool cpu = o.backend == "cpu" ||
                     (o.backend.empty() && cpu_built && !gpu_mpi_built && launch.world_size > 1);
    if (cpu) {
#ifdef SHARDSCOPE_WITH_CPU_MPI
        if (!adopt_mpi_session(mpi::start_cpu_mpi_measurer())) return 1;
#else
        std::cerr << "measure: --backend cpu needs the CPU/MPI backend, and this build has none: install an MPI "
                     "(Debian: libopenmpi-dev openmpi-bin) and rebuild\n";
        return 1;
#endif
    } else if (use_mpi_measure(launch, o.mpi)) {
#ifdef SHARDSCOPE_WITH_MPI
        if (!adopt_mpi_session(app::start_plugin_mpi_measurer())) return 1;
#else
        std::cerr << "measure: "
                  << (o.mpi ? std::string("--mpi asks for")
                            : launch.launcher + " started " + std::to_string(launch.world_size) + " ranks, which needs")
                  << " the MPI launch, and this build has none: rebuild with CUDA, NCCL and an MPI's development "
                     "files (e.g. libopenmpi-dev) present, or run one process per machine without mpirun\n";
        return 1;
#endif
    } else {
        // The GPU backend: the CPU one is registered for the panel and taken only with --backend cpu.
        for (const std::string& name : measurer_names())
            if (name != kCpuMeasureBackend) {
                m = make_measurer(name);
                break;
            }
    }
    if (!m) {
        std::cerr << "measure: " << no_backend_message() << "\n";
        return 1;
    }
    const BackendStatus status = m->status();
    if (!status.ready) {
        std::cerr << "measure: " << status.message << "\n";
        return 1;
    }
    // Under MPI one rank alone measures one GPU; -g that differs from the rank count is the sweep's error.
    if (!cpu && (status.devices < 2 || (o.spec.gpus == 1 && mpi_nodes == 0)))
        return measure_one_gpu(o, *m, status, *scenario);

    const bool text = o.format == "text";
    const bool lines = o.format == "jsonl";
    if (text) std::cout << measure_text_header(planned_header(o, *m, status, mpi_nodes)) << std::flush;
    // Text prints each row as it is measured, as nccl-tests does; JSON prints the document at the end.
    const MeasureProgress print_row = [&](std::size_t, std::size_t, const TimingRow* row) {
        if (text && row) std::cout << measure_text_row(o.spec.op, *row) << std::flush;
        if (lines && row) std::cout << measure_row_json_line(*row) << std::flush;
        return true;
    };
    const MeasureResult r = m->measure(o.spec, print_row);
    std::cout << (text ? measure_text_footer(r) : measure_result_to_json(r, lines));
    if (text && !r.rows.empty()) print_fit(r, *scenario);
    if (!r.error.empty()) {
        std::cerr << "measure: " << r.error << "\n";
        return 1;
    }
    int64_t wrong = 0;
    for (const TimingRow& row : r.rows) wrong += row.wrong.value_or(0);
    if (wrong > 0) {
        std::cerr << "measure: --check found " << wrong << " wrong elements: the results differ from the closed form\n";
        return 1;
    }
    return save_cluster(o, *scenario, {r}, nullptr) ? 0 : 1;
}

}  // namespace

SHARDSCOPE_COMMAND(measure, "time collectives on GPUs (NCCL) or CPU ranks (MPI), nccl-tests style", &run_measure);
