#include "core/export/table_csv.hpp"

#include "core/mesh/mesh_groups.hpp"
#include "core/model/step_ops.hpp"
#include "core/scenario/units.hpp"

#include <initializer_list>
#include <sstream>

namespace shardscope {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Full precision: a script reading the file gets the figure, not a rounding of it.
std::string number(double v) {
    std::ostringstream os;
    os.precision(10);
    os << v;
    return os.str();
}

std::string gib(double bytes) { return number(bytes / kGiB); }

class CsvWriter {
public:
    void row(std::initializer_list<std::string> fields) {
        bool first = true;
        for (const std::string& f : fields) {
            if (!first) out_ << ',';
            out_ << csv_field(f);
            first = false;
        }
        out_ << '\n';
    }
    [[nodiscard]] std::string text() const { return out_.str(); }

private:
    std::ostringstream out_;
};

std::string order_text(const ParallelSpec& p) {
    std::string out;
    for (Dim d : p.order) out += (out.empty() ? "" : " ") + std::string(to_string(d));
    return out;
}

}  // namespace

std::string csv_field(std::string_view text) {
    if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string plan_csv(const std::vector<PlanEntry>& ranked) {
    CsvWriter csv;
    csv.row({"rank", "layout", "tp", "cp", "pp", "dp_shard", "dp_replicate", "ep", "zero", "order", "micro_batch",
             "schedule", "virtual_stages", "recompute", "embedding_in_pipeline_split", "loss_in_pipeline_split", "offload", "step_s", "compute_s", "exposed_comm_s", "bubble_s", "mfu",
             "tokens_per_s", "memory_gib", "headroom_gib"});
    int rank = 0;
    for (const PlanEntry& e : ranked) {
        const ParallelSpec& p = e.scenario.parallel;
        const TrainingSpec& t = e.scenario.training;
        csv.row({std::to_string(++rank), describe_layout(e.scenario), std::to_string(p.tp), std::to_string(p.cp),
                 std::to_string(p.pp), std::to_string(p.dp_shard), std::to_string(p.dp_replicate), std::to_string(p.ep),
                 std::to_string(p.zero), order_text(p), std::to_string(t.micro_batch), std::string(to_string(t.schedule)),
                 std::to_string(t.virtual_stages), std::string(to_string(t.recompute)),
                 p.embedding_in_pipeline_split ? "true" : "false", p.loss_in_pipeline_split ? "true" : "false",
                 std::string(to_string(t.offload)), number(e.step_s),
                 number(e.compute_s), number(e.exposed_comm_s), number(e.bubble_s), e.mfu_known ? number(e.mfu) : "",
                 number(e.tokens_per_s), gib(e.memory_bytes), gib(e.headroom_bytes)});
    }
    return csv.text();
}

std::string memory_csv(const Report& report) {
    CsvWriter csv;
    csv.row({"stage", "layers", "most_loaded", "params_gib", "grads_gib", "optimizer_gib", "activations_gib", "other_gib",
             "reserved_gib", "total_gib", "gpu_gib", "fits", "host_gib"});
    for (const StageMemory& st : report.stages) {
        const MemoryBreakdown& b = st.bytes;
        csv.row({std::to_string(st.stage), std::to_string(st.layers), st.stage == report.most_loaded_stage ? "yes" : "no",
                 gib(b.params), gib(b.grads), gib(b.optimizer), b.activations ? gib(*b.activations) : "", gib(b.other),
                 gib(b.reserved), gib(b.total()), gib(report.gpu_memory_bytes),
                 b.total() <= report.gpu_memory_bytes ? "yes" : "no", gib(b.host)});
    }
    return csv.text();
}

std::string breakdown_csv(const Report& report) {
    CsvWriter csv;
    csv.row({"operation", "kind", "time_s_per_step", "recompute_s_per_step", "share_of_compute", "bound_by",
             "flops_per_step"});
    if (!report.breakdown) return csv.text();
    const double compute = total_time_s(*report.breakdown);
    for (const OpEntry& e : longest_first(*report.breakdown)) {
        const OpFigures& f = e.figures;
        csv.row({std::string(to_string(e.op)), std::string(to_string(kind_of(e.op))), number(f.time_s()),
                 number(f.rerun_s), compute > 0 ? number(f.time_s() / compute) : "0", std::string(to_string(f.bound())),
                 number(f.flops + f.rerun_flops)});
    }
    return csv.text();
}

std::string mesh_csv(const DeviceMesh& mesh, const Report& report) {
    CsvWriter csv;
    csv.row({"dim", "factor", "groups", "intra_node_groups", "inter_node_groups", "links", "collective",
             "sent_gib_per_step", "time_s_per_step", "exposed_s_per_step"});
    // The mesh's order (innermost first), then ep, which borrows from cp x dp_shard: the Device mesh
    // panel's rows.
    std::vector<Dim> dims(mesh.effective().order.begin(), mesh.effective().order.end());
    dims.push_back(Dim::ep);
    for (Dim d : dims) {
        const DimSummary& s = dim_summary(mesh, d);
        const DimCost* cost = find_dim_cost(report, to_string(d));
        csv.row({std::string(to_string(d)), std::to_string(s.size), std::to_string(s.groups),
                 std::to_string(s.intra_groups), std::to_string(s.inter_groups), std::string(to_string(s.links)),
                 cost ? cost->collective : "", cost ? gib(cost->bytes_per_step) : "0", cost ? number(cost->time_s) : "0",
                 cost ? number(cost->exposed_s) : "0"});
    }
    return csv.text();
}

}  // namespace shardscope
