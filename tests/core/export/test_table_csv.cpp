// Tables out as CSV: quoting as RFC 4180 says, one row per stage / dim / ranked layout, and the figures
// the report holds, in the units the header names.
#include "core/export/table_csv.hpp"

#include "core/model/cost_model.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

using namespace shardscope;

namespace {

// Splits one CSV text into rows of fields (quoted fields may hold commas and doubled quotes).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        std::string& field = rows.back().back();
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rows.back().emplace_back();
        } else if (c == '\n') {
            rows.emplace_back(1);
        } else {
            field += c;
        }
    }
    if (rows.back().size() == 1 && rows.back().front().empty()) rows.pop_back();  // the final newline
    return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return i;
    FAIL("no column " << name);
    return 0;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

TEST_CASE("a field with a comma, a quote or a line break is quoted, its quotes doubled") {
    CHECK(csv_field("tp 2") == "tp 2");
    CHECK(csv_field("tp 2, pp 4") == "\"tp 2, pp 4\"");
    CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(csv_field("two\nlines") == "\"two\nlines\"");
    CHECK(parse_csv(csv_field("a, \"b\"") + ",c\n") == std::vector<std::vector<std::string>>{{"a, \"b\"", "c"}});
}

TEST_CASE("the memory table: one row per stage, in GiB, the parts summing to the total") {
    const Report r = build_report(default_scenario());  // pp 2
    const auto rows = parse_csv(memory_csv(r));
    REQUIRE(rows.size() == 3);
    const auto& h = rows[0];
    for (std::size_t st = 0; st < 2; ++st) {
        const auto& row = rows[st + 1];
        REQUIRE(row.size() == h.size());
        const MemoryBreakdown& b = r.stages[st].bytes;
        CHECK(std::stod(row[column(h, "params_gib")]) == doctest::Approx(b.params / kGiB).epsilon(1e-9));
        CHECK(std::stod(row[column(h, "activations_gib")]) == doctest::Approx(*b.activations / kGiB).epsilon(1e-9));
        double parts = 0;
        for (const char* part : {"params_gib", "grads_gib", "optimizer_gib", "activations_gib", "other_gib", "reserved_gib"})
            parts += std::stod(row[column(h, part)]);
        CHECK(std::stod(row[column(h, "total_gib")]) == doctest::Approx(parts).epsilon(1e-8));
        CHECK(row[column(h, "most_loaded")] == (static_cast<int64_t>(st) == r.most_loaded_stage ? "yes" : "no"));
        CHECK(std::stod(row[column(h, "gpu_gib")]) == doctest::Approx(r.gpu_memory_bytes / kGiB).epsilon(1e-9));
    }
}

TEST_CASE("the mesh table: every dim in the mesh's order, then ep, with the report's traffic") {
    const Scenario s = default_scenario();  // tp 2, cp 1, pp 2, dp_shard 8, dp_replicate 2 on 64 GPUs
    const Report r = build_report(s);
    const auto rows = parse_csv(mesh_csv(DeviceMesh::build(s.cluster, s.parallel), r));
    REQUIRE(rows.size() == 1 + 6);
    const auto& h = rows[0];
    CHECK(rows.back()[0] == "ep");
    bool saw_tp = false;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        if (rows[i][0] != "tp") continue;
        saw_tp = true;
        CHECK(rows[i][column(h, "factor")] == "2");
        CHECK(rows[i][column(h, "groups")] == "32");  // 64 GPUs / 2
        CHECK(rows[i][column(h, "links")] == "intra");
        for (const DimCost& d : r.dims)
            if (d.name == "tp") {
                CHECK(std::stod(rows[i][column(h, "sent_gib_per_step")]) == doctest::Approx(d.bytes_per_step / kGiB).epsilon(1e-9));
                CHECK(std::stod(rows[i][column(h, "time_s_per_step")]) == doctest::Approx(d.time_s).epsilon(1e-9));
            }
    }
    CHECK(saw_tp);
}

TEST_CASE("the planner's ranking: a row per layout with its knobs and figures, MFU empty when unknown") {
    PlanEntry a;
    a.scenario = default_scenario();
    a.step_s = 1.25;
    a.mfu = 0.41;
    a.tokens_per_s = 1.5e6;
    a.memory_bytes = 40 * kGiB;
    a.headroom_bytes = 39.6 * kGiB;
    PlanEntry b = a;
    b.mfu_known = false;
    b.scenario.training.schedule = Schedule::interleaved_1f1b;
    b.scenario.training.virtual_stages = 2;
    b.scenario.parallel.embedding_in_pipeline_split = true;
    const auto rows = parse_csv(plan_csv({a, b}));
    REQUIRE(rows.size() == 3);
    const auto& h = rows[0];
    CHECK(h.size() == 25);
    CHECK(rows[1][column(h, "rank")] == "1");
    CHECK(rows[1][column(h, "layout")] == describe_layout(a.scenario));
    CHECK(rows[1][column(h, "tp")] == "2");
    CHECK(rows[1][column(h, "dp_shard")] == "8");
    CHECK(rows[1][column(h, "zero")] == "3");
    CHECK(std::stod(rows[1][column(h, "step_s")]) == 1.25);
    CHECK(std::stod(rows[1][column(h, "mfu")]) == 0.41);
    CHECK(std::stod(rows[1][column(h, "memory_gib")]) == doctest::Approx(40));
    CHECK(rows[2][column(h, "mfu")].empty());
    CHECK(rows[2][column(h, "schedule")] == "interleaved-1f1b");
    CHECK(rows[2][column(h, "virtual_stages")] == "2");
    // Every knob the search sets, the pipeline split's two flags too.
    CHECK(rows[1][column(h, "embedding_in_pipeline_split")] == "false");
    CHECK(rows[2][column(h, "embedding_in_pipeline_split")] == "true");
    CHECK(rows[2][column(h, "loss_in_pipeline_split")] == "false");
}

TEST_CASE("the compute by operation: longest first, the times summing to the step's compute") {
    const Report r = build_report(default_scenario());
    REQUIRE(r.breakdown);
    REQUIRE(r.time.compute);
    const auto rows = parse_csv(breakdown_csv(r));
    REQUIRE(rows.size() >= 6);  // GEMMs, attention, element-wise work, the optimizer
    const auto& h = rows[0];
    double sum = 0, shares = 0, previous = 1e300;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto& row = rows[i];
        REQUIRE(row.size() == h.size());
        const double t = std::stod(row[column(h, "time_s_per_step")]);
        CHECK(t <= previous);
        previous = t;
        sum += t;
        shares += std::stod(row[column(h, "share_of_compute")]);
        const std::string bound = row[column(h, "bound_by")];
        CHECK((bound == "flops" || bound == "hbm" || bound == "launch"));
    }
    CHECK(sum == doctest::Approx(*r.time.compute).epsilon(1e-8));
    CHECK(shares == doctest::Approx(1.0).epsilon(1e-8));
    CHECK(rows[1][column(h, "kind")] == "gemm");  // Llama 3 8B's step is led by its MLP GEMMs

    // A model given as a parameter count has no operations: the header alone.
    Scenario counted = default_scenario();
    counted.model = ModelSpec{};
    counted.model.params = 8e9;
    const auto none = parse_csv(breakdown_csv(build_report(counted)));
    CHECK(none.size() == 1);
}
