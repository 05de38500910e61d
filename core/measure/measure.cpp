#include "core/measure/measure.hpp"

#include "core/scenario/scenario_json.hpp"
#include "core/scenario/units.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <utility>

namespace shardscope {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kMaxSweepSizes = 1000;

[[nodiscard]] bool splits_among_ranks(Collective op) noexcept {
    return op == Collective::all_gather || op == Collective::reduce_scatter || op == Collective::all_to_all;
}

[[nodiscard]] std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace

// --- Ops -----------------------------------------------------------------------------------------

const std::vector<Collective>& measurable_ops() {
    static const std::vector<Collective> ops = {Collective::all_reduce, Collective::all_gather,
                                                Collective::reduce_scatter, Collective::broadcast,
                                                Collective::all_to_all};
    return ops;
}

std::string_view measure_op_name(Collective c) noexcept {
    switch (c) {
        case Collective::all_reduce: return "all_reduce";
        case Collective::all_gather: return "all_gather";
        case Collective::reduce_scatter: return "reduce_scatter";
        case Collective::broadcast: return "broadcast";
        case Collective::all_to_all: return "all_to_all";
        case Collective::reduce: return "reduce";
        case Collective::p2p: return "p2p";
    }
    return "?";
}

std::optional<Collective> measure_op_from_string(std::string_view s) noexcept {
    std::string spelled(s);
    for (char& ch : spelled)
        if (ch == '-') ch = '_';
    for (Collective c : measurable_ops())
        if (measure_op_name(c) == spelled) return c;
    return std::nullopt;
}

std::string measure_algorithm_name(const std::optional<StepAlgorithm>& a) {
    if (!a) return "mpi";
    return *a == StepAlgorithm::double_binary_tree ? "double_binary_tree" : std::string(to_string(*a));
}

bool measure_algorithm_from_string(std::string_view s, std::optional<StepAlgorithm>& out) {
    std::string spelled(s);
    for (char& ch : spelled)
        if (ch == '-') ch = '_';
    if (spelled == "mpi") {
        out.reset();
        return true;
    }
    if (spelled == "dbtree") spelled = "double_binary_tree";
    for (StepAlgorithm a : {StepAlgorithm::ring, StepAlgorithm::tree, StepAlgorithm::pairwise,
                            StepAlgorithm::double_binary_tree, StepAlgorithm::hierarchical})
        if (measure_algorithm_name(a) == spelled) {
            out = a;
            return true;
        }
    return false;
}

// --- Sweep ---------------------------------------------------------------------------------------

std::string validate_sweep(const SweepSpec& s) {
    if (!std::isfinite(s.min_bytes) || s.min_bytes < kMeasureElementBytes)
        return "-b: " + format_bytes(s.min_bytes) + " must be at least one element (4 B)";
    if (!std::isfinite(s.max_bytes) || s.max_bytes < s.min_bytes)
        return "-e: " + format_bytes(s.max_bytes) + " must be at least -b (" + format_bytes(s.min_bytes) + ")";
    if (s.max_bytes > kMaxSweepBytes) return "-e: " + format_bytes(s.max_bytes) + " exceeds the limit of 64 GiB";
    if (s.max_bytes > s.min_bytes && !(std::isfinite(s.factor) && s.factor > 1))
        return "-f: " + num(s.factor) + " must be greater than 1";
    if (s.max_bytes > s.min_bytes && std::log(s.max_bytes / s.min_bytes) / std::log(s.factor) > kMaxSweepSizes)
        return "-f: " + num(s.factor) + " gives more than 1000 sizes between -b and -e";
    if (s.iters < 1) return "-n: " + std::to_string(s.iters) + " must be at least 1";
    if (s.warmup < 0) return "-w: " + std::to_string(s.warmup) + " must be zero or more";
    if (s.gpus < 0) return "-g: " + std::to_string(s.gpus) + " must be zero (all) or more";
    if (s.algorithm) {
        const auto allowed = step_algorithms_for(s.op);
        if (std::find(allowed.begin(), allowed.end(), *s.algorithm) == allowed.end()) {
            std::string names;
            for (StepAlgorithm a : allowed) names += (names.empty() ? "" : ", ") + measure_algorithm_name(a);
            return "--algorithm: " + measure_algorithm_name(s.algorithm) + " is not an algorithm for " +
                   std::string(measure_op_name(s.op)) + " (mpi or " + names + ")";
        }
    }
    if (s.ranks_per_node < 0) return "--ranks-per-node: " + std::to_string(s.ranks_per_node) + " must be zero or more";
    if (s.ranks_per_node > 0 && s.algorithm != StepAlgorithm::hierarchical)
        return "--ranks-per-node: only the hierarchical algorithm has nodes to choose (--algorithm hierarchical)";
    return {};
}

std::vector<SweepSize> sweep_sizes(const SweepSpec& spec, int ranks) {
    std::vector<SweepSize> sizes;
    if (!validate_sweep(spec).empty() || ranks < 1) return sizes;
    const double per = splits_among_ranks(spec.op) ? static_cast<double>(ranks) : 1.0;
    const double unit = kMeasureElementBytes * per;  // the buffer must split into whole elements
    // The 1e-9 slack keeps max itself when min * f^k lands on it up to rounding.
    for (double size = spec.min_bytes; size <= spec.max_bytes * (1 + 1e-9); size *= spec.factor) {
        const double bytes = std::floor(size / unit) * unit;
        if (bytes > 0 && (sizes.empty() || bytes > sizes.back().bytes))
            sizes.push_back({bytes, static_cast<int64_t>(bytes / unit)});
        if (spec.max_bytes <= spec.min_bytes) break;  // a single size; the factor does not matter
    }
    return sizes;
}

namespace {

// 134217728 -> "128M", 1536 -> "1536": nccl-tests reads K, M and G as powers of 1024.
[[nodiscard]] std::string size_flag(double bytes) {
    const char* suffix[] = {"G", "M", "K"};
    const double unit[] = {1024.0 * 1024 * 1024, 1024.0 * 1024, 1024.0};
    // Whole numbers only, never an exponent: nccl-tests reads "4.43451e+06K" as 4 bytes.
    const auto whole = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return std::string(buf);
    };
    for (int i = 0; i < 3; ++i)
        if (bytes >= unit[i] && std::fmod(bytes, unit[i]) == 0) return whole(bytes / unit[i]) + suffix[i];
    return whole(bytes);
}

[[nodiscard]] std::string nccl_tests_binary(Collective op) {
    return op == Collective::all_to_all ? "alltoall_perf" : std::string(measure_op_name(op)) + "_perf";
}

}  // namespace

std::optional<Collective> measure_op_from_nccl_tests_binary(std::string_view s) {
    for (Collective c : measurable_ops())
        if (nccl_tests_binary(c) == s) return c;
    return std::nullopt;
}

std::string sweep_command_line(const SweepSpec& spec, bool nccl_tests) {
    std::string cmd = nccl_tests ? nccl_tests_binary(spec.op)
                                 : "shardscope measure --collective " + std::string(measure_op_name(spec.op));
    cmd += " -b " + size_flag(spec.min_bytes) + " -e " + size_flag(spec.max_bytes) + " -f " + num(spec.factor) +
           " -n " + std::to_string(spec.iters) + " -w " + std::to_string(spec.warmup);
    if (spec.gpus > 0) cmd += " -g " + std::to_string(spec.gpus);
    if (spec.check) cmd += nccl_tests ? " -c 1" : " --check";
    if (!nccl_tests && spec.algorithm) cmd += " --algorithm " + measure_algorithm_name(spec.algorithm);
    if (!nccl_tests && spec.ranks_per_node > 0) cmd += " --ranks-per-node " + std::to_string(spec.ranks_per_node);
    return cmd;
}

std::string mpirun_command_line(const SweepSpec& spec, int ranks, const std::string& launcher, const std::string& exe) {
    SweepSpec under_mpirun = spec;
    under_mpirun.gpus = 0;  // mpirun -np sets the ranks
    std::string cmd = sweep_command_line(under_mpirun, false);
    cmd.replace(0, std::string("shardscope measure").size(), exe + " measure --backend cpu");
    return launcher + " -np " + std::to_string(ranks) + " " + cmd;
}

std::string check_sweep_schedule(const SweepSpec& spec, int ranks, int ranks_per_node) {
    if (!spec.algorithm) return "";
    StepConfig c;
    c.collective = spec.op;
    c.algorithm = *spec.algorithm;
    c.ranks = ranks;
    c.gpus_per_node = ranks_per_node;
    const std::string e = check_step_config(c);
    const std::string field = "gpus_per_node";
    if (e.compare(0, field.size(), field) != 0) return e;
    return "--ranks-per-node" + e.substr(field.size()) +
           (spec.ranks_per_node > 0 ? "" : " (the ranks' own nodes; --ranks-per-node sets it)");
}

NcclBuffers nccl_buffer_elements(Collective op, int64_t count, int ranks) noexcept {
    const int64_t all = count * ranks;
    NcclBuffers b{count, count};
    if (op == Collective::reduce_scatter || op == Collective::all_to_all) b.send = all;
    if (op == Collective::all_gather || op == Collective::all_to_all) b.recv = all;
    return b;
}

TimingRow make_timing_row(Collective op, const SweepSize& size, double time_s, int ranks) {
    TimingRow row;
    row.bytes = size.bytes;
    row.count = size.count;
    row.time_s = time_s;
    row.algbw = algbw(size.bytes, time_s);
    row.busbw = busbw(op, size.bytes, time_s, ranks);
    return row;
}

MeasureResult begin_measure_result(const std::string& backend, const SweepSpec& spec, int ranks, LinkClass link) {
    MeasureResult r;
    r.backend = backend;
    r.op = spec.op;
    r.iters = spec.iters;
    r.warmup = spec.warmup;
    r.ranks = ranks;
    r.link = link;
    if (spec.algorithm) r.algorithm = measure_algorithm_name(spec.algorithm);
    return r;
}

double average_busbw(const MeasureResult& r) noexcept {
    if (r.rows.empty()) return 0;
    double sum = 0;
    for (const TimingRow& row : r.rows) sum += row.busbw;
    return sum / static_cast<double>(r.rows.size());
}

// --- JSON ----------------------------------------------------------------------------------------

namespace {

[[nodiscard]] Json row_json(const TimingRow& row) {
    return Json{{"bytes", row.bytes}, {"count", row.count}, {"time_s", row.time_s}, {"algbw", row.algbw},
                {"busbw", row.busbw}, {"wrong", row.wrong ? Json(*row.wrong) : Json(nullptr)}};
}

[[nodiscard]] TimingRow read_row(detail::ObjectReader row) {
    TimingRow t;
    t.bytes = row.number_field("bytes");
    t.count = row.int_field("count");
    t.time_s = row.number_field("time_s");
    if (t.bytes < 0 || t.time_s < 0) detail::fail(row.path("time_s"), "sizes and times must not be negative");
    t.algbw = row.number_field("algbw");
    t.busbw = row.number_field("busbw");
    const Json& wrong = row.required("wrong");
    if (!wrong.is_null()) t.wrong = row.int_field("wrong");
    row.reject_unknown();
    return t;
}

}  // namespace

std::string measure_result_to_json(const MeasureResult& r, bool one_line) {
    Json j;
    j["schema"] = "shardscope.measure/1";
    j["backend"] = r.backend;
    j["device"] = r.device;
    j["op"] = std::string(measure_op_name(r.op));
    j["ranks"] = r.ranks;
    j["iters"] = r.iters;
    j["warmup"] = r.warmup;
    j["link"] = std::string(to_string(r.link));
    if (!r.algorithm.empty()) j["algorithm"] = r.algorithm;
    j["dtype"] = "float";
    Json rows = Json::array();
    for (const TimingRow& row : r.rows) rows.push_back(row_json(row));
    j["rows"] = std::move(rows);
    j["avg_busbw"] = average_busbw(r);
    j["cancelled"] = r.cancelled;
    j["error"] = r.error;
    return j.dump(one_line ? -1 : 2) + "\n";
}

std::string measure_row_json_line(const TimingRow& row) { return Json{{"row", row_json(row)}}.dump() + "\n"; }

MeasureResultLoad parse_measure_result(std::string_view json_text) {
    using detail::ObjectReader;
    MeasureResultLoad out;
    out.error = json_read::first_error([&] {
        const Json j = json_read::parse_document(json_text);
        ObjectReader top(j, "");
        top.expect_schema("shardscope.measure/1");
        MeasureResult r;
        r.backend = top.string_field("backend");
        r.device = top.string_field("device");
        const std::string op = top.string_field("op");
        const auto parsed_op = measure_op_from_string(op);
        if (!parsed_op) detail::fail("op", "\"" + op + "\" is not one of all_reduce, all_gather, reduce_scatter, broadcast, all_to_all");
        r.op = *parsed_op;
        r.ranks = static_cast<int>(top.int_field("ranks"));
        if (r.ranks < 1) detail::fail("ranks", "must be at least 1");
        r.iters = static_cast<int>(top.int_field("iters"));
        r.warmup = static_cast<int>(top.int_field("warmup"));
        const std::string link = top.string_field("link");
        if (link != "intra" && link != "inter") detail::fail("link", "must be \"intra\" or \"inter\"");
        r.link = link == "intra" ? LinkClass::intra : LinkClass::inter;
        r.algorithm = top.string_field("algorithm", std::string());
        if (std::optional<StepAlgorithm> a; !r.algorithm.empty() && (!measure_algorithm_from_string(r.algorithm, a) || !a))
            detail::fail("algorithm", "\"" + r.algorithm + "\" is not one of ring, tree, pairwise, double_binary_tree, hierarchical");
        if (top.string_field("dtype") != "float") detail::fail("dtype", "must be \"float\"");
        const Json& rows = top.required("rows");
        if (!rows.is_array()) detail::fail("rows", "must be an array");
        for (std::size_t i = 0; i < rows.size(); ++i) {
            r.rows.push_back(read_row(ObjectReader(rows[i], "rows[" + std::to_string(i) + "]")));
        }
        (void)top.number_field("avg_busbw", 0.0);  // derived; accepted and recomputed
        r.cancelled = top.bool_field("cancelled", false);
        r.error = top.string_field("error", std::string());
        top.reject_unknown();
        out.result = std::move(r);
    });
    return out;
}

std::optional<TimingRow> parse_measure_row_line(std::string_view line) {
    std::optional<TimingRow> out;
    const std::string error = json_read::first_error([&] {
        const Json j = json_read::parse_document(line);
        detail::ObjectReader top(j, "");
        const Json& row = top.required("row");
        out = read_row(detail::ObjectReader(row, "row"));
        top.reject_unknown();
    });
    if (!error.empty()) out.reset();
    return out;
}

// --- Text ----------------------------------------------------------------------------------------

std::string measure_text_header(const MeasureResult& r) {
    std::string out = "# shardscope measure: " + std::string(measure_op_name(r.op)) + " on " +
                      std::to_string(r.ranks) + " ranks (" + std::string(to_string(r.link)) + "-node), " + r.backend +
                      (r.device.empty() ? "" : ", " + r.device) +
                      (r.algorithm.empty() ? std::string()
                                           : "\n# algorithm: " + r.algorithm +
                                                 ", point-to-point, step for step as the Collective animator shows it") +
                      "\n# " + std::to_string(r.iters) +
                      " iterations after " + std::to_string(r.warmup) +
                      " warm-up, out-of-place; algbw = size / time, busbw = algbw x " +
                      num(busbw_factor(r.op, r.ranks)) + "\n#\n";
    char line[200];
    std::snprintf(line, sizeof line, "#%11s %13s %9s %7s %7s %10s %8s %8s %7s\n", "size", "count", "type", "redop",
                  "root", "time", "algbw", "busbw", "#wrong");
    out += line;
    std::snprintf(line, sizeof line, "#%11s %13s %9s %7s %7s %10s %8s %8s %7s\n", "(B)", "(elements)", "", "", "",
                  "(us)", "(GB/s)", "(GB/s)", "");
    return out + line;
}

std::string measure_text_row(Collective op, const TimingRow& row) {
    const bool reduces = op == Collective::all_reduce || op == Collective::reduce_scatter;
    const std::string wrong = row.wrong ? std::to_string(*row.wrong) : "N/A";
    char line[200];
    std::snprintf(line, sizeof line, "%12.0f %13lld %9s %7s %7d %10.2f %8.2f %8.2f %7s\n", row.bytes,
                  static_cast<long long>(row.count), "float", reduces ? "sum" : "none",
                  op == Collective::broadcast ? 0 : -1, row.time_s * 1e6, row.algbw / 1e9, row.busbw / 1e9,
                  wrong.c_str());
    return line;
}

std::string measure_text_footer(const MeasureResult& r) {
    std::string out;
    if (r.cancelled) out += "# cancelled after " + std::to_string(r.rows.size()) + " sizes\n";
    if (!r.error.empty()) out += "# error: " + r.error + "\n";
    char line[80];
    std::snprintf(line, sizeof line, "# Avg bus bandwidth    : %g GB/s\n", average_busbw(r) / 1e9);
    return out + line;
}

std::string measure_result_to_text(const MeasureResult& r) {
    std::string out = measure_text_header(r);
    for (const TimingRow& row : r.rows) out += measure_text_row(r.op, row);
    return out + measure_text_footer(r);
}

std::string single_gpu_result_to_json(const SingleGpuResult& r) {
    Json j;
    j["schema"] = "shardscope.measure-gpu/1";
    j["backend"] = r.backend;
    j["device"] = r.device;
    j["copy"] = Json{{"bytes", r.copy_bytes}, {"time_s", r.copy_time_s}, {"bytes_per_s", r.copy_bytes_per_s}};
    Json gemms = Json::array();
    for (const GemmTiming& g : r.gemms)
        gemms.push_back(Json{{"name", g.shape.name}, {"m", g.shape.m}, {"n", g.shape.n}, {"k", g.shape.k},
                             {"time_s", g.time_s}, {"flops_per_s", g.flops_per_s}});
    j["gemm_bf16"] = std::move(gemms);
    j["notes"] = r.notes;
    j["error"] = r.error;
    return j.dump(2) + "\n";
}

std::string single_gpu_result_to_text(const SingleGpuResult& r) {
    std::string out = "# shardscope measure, one GPU: " + r.backend + (r.device.empty() ? "" : ", " + r.device) + "\n";
    if (r.copy_time_s > 0)
        out += "HBM (device-to-device copy of " + format_bytes(r.copy_bytes) + ", read + write): " +
               format_bandwidth(r.copy_bytes_per_s) + " in " + format_seconds(r.copy_time_s) + "\n";
    if (!r.gemms.empty()) out += "bf16 GEMM (cuBLAS, fp32 accumulate), C[m x n] = A[m x k] B[k x n]:\n";
    char line[200];
    for (const GemmTiming& g : r.gemms) {
        std::snprintf(line, sizeof line, "  %-16s m=%-7lld n=%-7lld k=%-7lld %10s  %s\n", g.shape.name.c_str(),
                      static_cast<long long>(g.shape.m), static_cast<long long>(g.shape.n),
                      static_cast<long long>(g.shape.k), format_seconds(g.time_s).c_str(),
                      format_flops_rate(g.flops_per_s).c_str());
        out += line;
    }
    for (const std::string& note : r.notes) out += "note: " + note + "\n";
    if (!r.error.empty()) out += "error: " + r.error + "\n";
    return out;
}

// --- Registry ------------------------------------------------------------------------------------

namespace {

struct Registry {
    std::mutex mutex;
    std::vector<std::pair<std::string, MeasurerFactory>> factories;
};

Registry& registry() {
    static Registry r;
    return r;
}

}  // namespace

void register_measurer(const std::string& name, MeasurerFactory factory) {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    for (auto& entry : r.factories)
        if (entry.first == name) {
            entry.second = std::move(factory);
            return;
        }
    r.factories.emplace_back(name, std::move(factory));
}

void unregister_measurer(const std::string& name) {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    r.factories.erase(std::remove_if(r.factories.begin(), r.factories.end(),
                                     [&](const auto& entry) { return entry.first == name; }),
                      r.factories.end());
}

std::vector<std::string> measurer_names() {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    std::vector<std::string> names;
    for (const auto& entry : r.factories) names.push_back(entry.first);
    return names;
}

std::unique_ptr<Measurer> make_measurer(std::string_view name) {
    MeasurerFactory factory;
    {
        Registry& r = registry();
        const std::lock_guard<std::mutex> lock(r.mutex);
        for (const auto& entry : r.factories)
            if (name.empty() || entry.first == name) {
                factory = entry.second;
                break;
            }
    }
    return factory ? factory() : nullptr;
}

std::string no_backend_message() {
#ifdef __EMSCRIPTEN__
    return "A browser page can reach no GPU and start no MPI ranks, so nothing can be measured here. Measure with "
           "the desktop app (scripts/run) on a machine with an NVIDIA GPU, its CUDA toolkit and NCCL, or between "
           "CPU ranks over MPI (mpirun -np 4 shardscope measure --backend cpu). The model's predictions work "
           "without measuring.";
#else
    return "This build has no GPU backend, so nothing can be measured. Measuring needs an NVIDIA GPU with its "
           "driver, the CUDA toolkit (nvcc, cuBLAS) and NCCL, e.g. under /usr/local/cuda with include/nccl.h "
           "and lib/libnccl.so. Install them and rebuild: cmake -DSHARDSCOPE_CUDA=ON (the default, AUTO, "
           "builds the backend whenever they are found). Without a GPU, the CPU backend times collectives between "
           "MPI processes: install an MPI (Debian: libopenmpi-dev, openmpi-bin), rebuild, and run "
           "mpirun -np 4 shardscope measure --backend cpu. The model's predictions work without either.";
#endif
}

}  // namespace shardscope
