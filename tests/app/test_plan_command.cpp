// `shardscope plan` and `shardscope bench` from the command line, and the Planner panel in the real
// window: exit codes, the ranking's shape, and the messages.
#include "app_runner.hpp"

#include "core/scenario/scenario.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <regex>

using namespace shardscope;
using shardscope::test::run_shardscope;
using shardscope::test::scratch_dir;
using shardscope::test::small_dense;

namespace {

// A small dense model on two nodes of 8 GPUs: the whole search takes a moment.
std::filesystem::path small_scenario_file(const std::filesystem::path& dir) {
    Scenario s = small_dense();
    s.parallel.sequence_parallel = false;
    const auto path = dir / "small.json";
    std::ofstream(path) << scenario_to_json(s);
    return path;
}

}  // namespace

TEST_CASE("plan --format json: the top K layouts, best first, each with memory, step and MFU") {
    const auto dir = scratch_dir("plan-json");
    const auto r = run_shardscope("plan --config '" + small_scenario_file(dir).string() + "' --top 5 --format json", dir);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["schema"] == "shardscope.plan/1");
    CHECK(j["objective"] == "step");
    // The search reports its own speed (a figure, not asserted): candidates per second of its wall time.
    const double seconds = j["stats"]["seconds"].get<double>();
    REQUIRE(seconds > 0);
    CHECK(j["stats"]["candidates_per_s"].get<double>() ==
          doctest::Approx(j["stats"]["candidates"].get<double>() / seconds));
    REQUIRE(j["ranking"].size() == 5);
    for (std::size_t i = 0; i < 5; ++i) {
        const auto& e = j["ranking"][i];
        CHECK(e["rank"] == i + 1);
        CHECK(e["memory_bytes"].get<double>() > 0);
        CHECK(e["mfu"].get<double>() > 0);
        if (i > 0) {
            CHECK(e["time_s"]["step"].get<double>() >= j["ranking"][i - 1]["time_s"]["step"].get<double>());
            CHECK(e.contains("why_below_best"));
        }
    }
}

TEST_CASE("plan --format text says why the runner-up loses; --objective memory ranks by memory") {
    const auto dir = scratch_dir("plan-text");
    const auto file = small_scenario_file(dir).string();
    const auto r = run_shardscope("plan --config '" + file + "' --top 3", dir);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("ranked by step") != std::string::npos);
    CHECK(r.out.find("why #2 loses: ") != std::string::npos);
    const auto m = run_shardscope("plan --config '" + file + "' --top 3 --objective memory", dir);
    REQUIRE(m.exit_code == 0);
    CHECK(m.out.find("ranked by memory") != std::string::npos);
}

TEST_CASE("plan: a rejected scenario or a bad flag exits 2 with the reason") {
    const auto dir = scratch_dir("plan-bad");
    std::ofstream(dir / "bad.json") << "{\"schema\": \"shardscope.scenario/1\"}";
    const auto bad = run_shardscope("plan --config '" + (dir / "bad.json").string() + "'", dir);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("bad.json: ") != std::string::npos);
    const auto file = small_scenario_file(dir).string();
    const auto objective = run_shardscope("plan --config '" + file + "' --objective fastest", dir);
    CHECK(objective.exit_code == 2);
    CHECK(objective.err.find("--objective must be step, mfu or memory") != std::string::npos);
    const auto top = run_shardscope("plan --config '" + file + "' --top 0", dir);
    CHECK(top.exit_code == 2);
    CHECK(run_shardscope("plan", dir).exit_code == 2);
}

TEST_CASE("--show planner --action planner.apply=2 renders; a row that does not exist exits 2") {
    const auto dir = scratch_dir("plan-window");
    const auto file = small_scenario_file(dir).string();
    const auto png = (dir / "planner.png").string();
    // (That apply changes the scenario is the widget tests' business; here: the action runs and renders.)
    const auto r = run_shardscope("--config '" + file + "' --show planner --action planner.apply=2 --size 1280x800 "
                                  "--screenshot '" + png + "'",
                                  dir);
    REQUIRE(r.exit_code == 0);
    CHECK(std::filesystem::file_size(png) > 10000);
    const auto bad = run_shardscope("--config '" + file + "' --show planner --action planner.apply=99 --screenshot '" +
                                        png + "'",
                                    dir);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("planner.apply: \"99\" is not a whole number from 1 to 24") != std::string::npos);
}

TEST_CASE("plan --threads: one thread and three rank alike; a bad count exits 2") {
    const auto dir = scratch_dir("plan-threads");
    const auto file = small_scenario_file(dir).string();
    const auto one = run_shardscope("plan --config '" + file + "' --top 5 --format json --threads 1", dir);
    const auto three = run_shardscope("plan --config '" + file + "' --top 5 --format json --threads 3", dir);
    REQUIRE(one.exit_code == 0);
    REQUIRE(three.exit_code == 0);
    CHECK(nlohmann::json::parse(one.out)["ranking"] == nlohmann::json::parse(three.out)["ranking"]);
    const auto bad = run_shardscope("plan --config '" + file + "' --threads -1", dir);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err == "plan: --threads must be a whole number from 0 (every core) to 1024, got '-1'\n");
}

TEST_CASE("bench prints every speed figure as a table with units, cold start included under a display") {
    // Times vary; the test checks the rows are there with a time in a unit, never the time itself.
    const auto dir = scratch_dir("bench");
    const auto r = run_shardscope("bench --skip-planner --frames 3", dir);
    REQUIRE(r.exit_code == 0);
    const std::string rows[] = {"Device mesh panel, 64 GPUs, per frame", "Device mesh panel, 16,384 GPUs, per frame",
                                "Device mesh panel, 131,072 GPUs, per frame",
                                "Pipeline timeline, 64 stages x 1,024 micro-batches",
                                "app frame, all 11 panels open (headless), mean", "cold start to first frame"};
    const std::regex timed(R"(\s[0-9.]+ (us|ms|s)\s)");
    for (const std::string& what : rows) {
        CAPTURE(what);
        const auto at = r.out.find(what);
        REQUIRE(at != std::string::npos);
        const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
        CHECK(std::regex_search(line, timed));
    }
    CHECK(r.out.find("planner:") == std::string::npos);  // --skip-planner
    const auto bad = run_shardscope("bench --frames 0", dir);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err == "bench: --frames must be a whole number from 1 to 100000, got '0'\n");
}

TEST_CASE("every plan row applied as documented gives its own figures back through report, exactly") {
    // Two ways a row is applied: its whole scenario (`scenario`) as a file, and its parallel and
    // training fields over the planned scenario. Both must price as the row says: the same step,
    // memory and MFU, to the last bit JSON carries. Llama 3 405B's layout plans pipelines whose split
    // counts the embedding and the loss (a field the row once left out).
    const auto dir = scratch_dir("plan-rows-apply");
    // Llama 3 70B on 8 GPUs fits only with the optimizer offloaded: its rows carry training.offload.
    const std::vector<std::string> configs = {small_scenario_file(dir).string(),
                                              SHARDSCOPE_SOURCE_DIR "/examples/llama3-405b-16k-h100.json",
                                              SHARDSCOPE_SOURCE_DIR "/examples/llama3-70b-8xh100-offload.json"};
    int rows = 0;
    for (const std::string& config : configs) {
        CAPTURE(config);
        const auto plan = run_shardscope("plan --config '" + config + "' --format json --top 8 --threads 1", dir);
        REQUIRE(plan.exit_code == 0);
        const auto ranking = nlohmann::json::parse(plan.out)["ranking"];
        std::ifstream in(config);
        const nlohmann::json base = nlohmann::json::parse(in);
        for (const auto& row : ranking) {
            CAPTURE(row["layout"]);
            if (config.find("offload") != std::string::npos) CHECK(row["training"]["offload"] == "optimizer");
            const auto whole = dir / "row.json";
            std::ofstream(whole) << row["scenario"].dump(2);
            nlohmann::json merged = base;
            for (const char* part : {"parallel", "training"})
                for (const auto& [key, value] : row[part].items()) merged[part][key] = value;
            const auto fields = dir / "merged.json";
            std::ofstream(fields) << merged.dump(2);
            for (const auto& file : {whole, fields}) {
                const auto r = run_shardscope("report --config '" + file.string() + "'", dir);
                REQUIRE(r.exit_code == 0);
                const auto report = nlohmann::json::parse(r.out);
                CHECK(report["time_s"]["step"].get<double>() == row["time_s"]["step"].get<double>());
                CHECK(report["memory_bytes"]["total"].get<double>() == row["memory_bytes"].get<double>());
                CHECK(report["throughput"]["mfu"] == row["mfu"]);
            }
            ++rows;
        }
    }
    CHECK(rows == 24);
}
