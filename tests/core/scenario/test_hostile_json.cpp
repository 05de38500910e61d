// Hostile JSON against every loader: numbers beyond a double's range (`4e410`, nlohmann's exception
// 406), integers beyond int64, nesting deep enough to overflow a recursive walk, and exceptions of the
// JSON library itself. Each must come back as the loader's usual "field: rule" message, never as an
// exception, and one bad data file must not stop the others loading.
//
// The default scenario (core/scenario/scenario.cpp) has tp 2 and order [tp, cp, dp_shard, dp_replicate, pp].
#include "core/measure/measure.hpp"
#include "core/scenario/json_reader.hpp"
#include "core/scenario/presets.hpp"
#include "core/scenario/scenario.hpp"
#include "core/teaching/cheatsheet.hpp"
#include "core/teaching/glossary.hpp"
#include "core/teaching/lesson.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <utility>

using namespace shardscope;
using Json = nlohmann::json;

namespace {

const std::string kBeyondDouble = " is beyond the range of a number (about 1.8e308)";

// The default scenario as text, with the value at `patch`'s "@" written as `raw` (text no JSON
// library would produce, such as 1e400).
std::string scenario_text_with(Json patch, const std::string& raw) {
    Json doc = Json::parse(scenario_to_json(default_scenario()));
    doc.merge_patch(patch);
    std::string text = doc.dump();
    const std::string marker = "\"@\"";
    text.replace(text.find(marker), marker.size(), raw);
    return text;
}

// The error of the default scenario with parallel.tp written as `raw`.
std::string tp_error(const std::string& raw) { return parse_scenario(scenario_text_with({{"parallel", {{"tp", "@"}}}}, raw)).error; }

std::string nested_arrays(int depth) { return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']'); }

// {"a": {"a": ... {"a": 1} ... }} with `depth` objects.
std::string nested_objects(int depth) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += "{\"a\": ";
    text += "1";
    text += std::string(static_cast<size_t>(depth), '}');
    return text;
}

std::string lesson_with_step(const std::string& step) {
    return R"({"schema": "shardscope.lesson/1", "id": "t", "title": "T", "summary": "S", "steps": [)" + step + "]}";
}

}  // namespace

TEST_CASE("a number beyond a double's range is a rule of its field, in a scenario") {
    // nlohmann throws out_of_range 406 for these; the fuzzer's smallest case is the 5-byte document.
    CHECK(parse_scenario("4e410").error == "(document): 4e410" + kBeyondDouble);
    CHECK(tp_error("1e400") ==
          "parallel.tp: 1e400" + kBeyondDouble);
    CHECK(parse_scenario(scenario_text_with({{"cluster", {{"gpu", {{"peak_tflops", "@"}}}}}}, "-2e308")).error ==
          "cluster.gpu.peak_tflops: -2e308" + kBeyondDouble);
    // Inside a list the index is named: order[2] is dp_shard's place.
    // A thousand-digit number is quoted by its first 40 characters.
    CHECK(tp_error("1" + std::string(999, '0')) == "parallel.tp: 1" + std::string(39, '0') + "..." + kBeyondDouble);
    Json order = Json::array({"tp", "cp", "@", "dp_replicate", "pp"});
    CHECK(parse_scenario(scenario_text_with({{"parallel", {{"order", order}}}}, "1e999")).error ==
          "parallel.order[2]: 1e999" + kBeyondDouble);
}

TEST_CASE("integers beyond int64 are rejected as such, never wrapped") {
    const std::string beyond_int64 = " is beyond the range of a 64-bit integer (at most 9223372036854775807)";
    const std::pair<std::string, std::string> cases[] = {
        // 2^64 - 1 fits nlohmann's unsigned type; read as int64 it would wrap to -1.
        {"18446744073709551615", "parallel.tp: 18446744073709551615" + beyond_int64},
        // 2^63 is the first unsigned value past int64.
        {"9223372036854775808", "parallel.tp: 9223372036854775808" + beyond_int64},
        // Past 2^64 the parser keeps a double; past 2^53 a double is no exact count.
        {"99999999999999999999", "parallel.tp: must be a whole number below 9e15"},
        {"1e20", "parallel.tp: must be a whole number below 9e15"},
        // int64's own extremes are read exactly and judged by the field's rule.
        {"-9223372036854775808", "parallel.tp: -9223372036854775808 must be a positive integer"},
        {"9223372036854775807", "parallel.tp: 9223372036854775807 exceeds the limit of 1048576"},
    };
    for (const auto& [raw, message] : cases) {
        CAPTURE(raw);
        CHECK(tp_error(raw) == message);
    }
}

TEST_CASE("nesting is bounded at 64 levels before anything walks the document") {
    // 64 levels parse (and are then not a scenario); 65 are refused by the bound itself.
    CHECK(parse_scenario(nested_arrays(64)).error == "(document): must be an object");
    CHECK(parse_scenario(nested_arrays(65)).error == "(document): nested deeper than 64 levels");
    CHECK(parse_scenario(nested_objects(50000)).error == "(document): nested deeper than 64 levels");
    CHECK(merge_scenario(default_scenario(), nested_objects(50000)).error == "(document): nested deeper than 64 levels");
    CHECK(describe_scenario_changes(default_scenario(), nested_objects(50000)).empty());
}

TEST_CASE("a lesson step or a cheat-sheet row nested 50,000 deep is reported, not a crash") {
    const std::string deep_step = R"({"title": "a", "body": "b", "scenario": )" + nested_objects(50000) + "}";
    CHECK(parse_lesson(lesson_with_step(deep_step), "lessons/t.json").error ==
          "lessons/t.json: (document): nested deeper than 64 levels");
    const std::string deep_row = R"({"strategy": "S", "splits": "s", "communication": "c", "cost": "c",
                                     "reach_for_it_when": "r", "scenario": )" + nested_objects(50000) + "}";
    CHECK(parse_cheatsheet(R"({"schema": "shardscope.cheatsheet/1", "rows": [)" + deep_row + "]}", "assets/c.json").error ==
          "assets/c.json: (document): nested deeper than 64 levels");
}

TEST_CASE("one lesson with an out-of-range number is reported and the others load") {
    const std::string good = lesson_with_step(R"({"title": "a", "body": "b"})");
    const std::string bad = lesson_with_step(R"({"title": "a", "body": "b", "scenario": {"training": {"global_batch": 4e410}}})");
    const LessonSet set = load_lessons({{"lessons/a.json", good}, {"lessons/b.json", bad}});
    REQUIRE(set.lessons.size() == 1);
    CHECK(set.lessons[0].file == "lessons/a.json");
    REQUIRE(set.errors.size() == 1);
    CHECK(set.errors[0] == "lessons/b.json: steps[0].scenario.training.global_batch: 4e410" + kBeyondDouble);
}

TEST_CASE("glossary, cheat sheet, presets and measure results name the field of an out-of-range number") {
    CHECK(parse_glossary(R"({"schema": "shardscope.glossary/1", "terms": [{"term": "A", "group": 1e400}]})", "assets/g.json")
              .error == "assets/g.json: terms[0].group: 1e400" + kBeyondDouble);
    CHECK(parse_cheatsheet(R"({"schema": "shardscope.cheatsheet/1", "rows": [{"strategy": 4e410}]})", "assets/c.json").error ==
          "assets/c.json: rows[0].strategy: 4e410" + kBeyondDouble);
    CHECK(parse_cluster_preset(R"({"schema": "shardscope.cluster-preset/1", "source": "x", "cluster": {"nodes": 1e400}})")
              .error == "cluster.nodes: 1e400" + kBeyondDouble);
    CHECK(parse_model_preset(R"({"schema": "shardscope.model-preset/1", "source": "x", "model": {"layers": 18446744073709551615}})")
              .error == "model.layers: 18446744073709551615 is beyond the range of a 64-bit integer (at most 9223372036854775807)");
    CHECK(parse_measure_result(R"({"schema": "shardscope.measure/1", "ranks": 4e410})").error ==
          "ranks: 4e410" + kBeyondDouble);
    CHECK(parse_measure_result(nested_arrays(100)).error == "(document): nested deeper than 64 levels");
}

TEST_CASE("any other exception of the JSON library becomes a rule of the document") {
    const std::string error = json_read::first_error([] {
        const json_read::Json number = 1;
        (void)number.get<std::string>();  // type_error 302
    });
    CHECK(error.rfind("(document): [json.exception.type_error.302] ", 0) == 0);
    CHECK(json_read::first_error([] { json_read::fail("a.b", "must be 1"); }) == "a.b: must be 1");
    CHECK(json_read::first_error([] {}).empty());
}
