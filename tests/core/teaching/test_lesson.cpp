// Lessons (core/teaching/lesson.hpp): the shipped files load and every check's answer comes from core; the
// loader's rules with their exact messages; merge, links, quantities and grading worked by hand.
//
// The default scenario (core/scenario/scenario.cpp): Llama 3 8B (32 layers, 32 heads, 8 kv heads, seq 8192) on
// 8 nodes x 8 GPUs = 64, tp 2, pp 2, dp_shard 8, dp_replicate 2, zero 3, global_batch 256.
#include "core/model/cost_model.hpp"
#include "core/model/params.hpp"
#include "core/scenario/presets.hpp"
#include "core/teaching/glossary.hpp"
#include "core/teaching/lesson.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <regex>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>
#include <string>

using namespace shardscope;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::pair<std::string, std::string>> shipped_lesson_files() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : fs::directory_iterator(fs::path(SHARDSCOPE_SOURCE_DIR) / "lessons"))
        if (e.path().extension() == ".json") out.emplace_back("lessons/" + e.path().filename().string(), read_file(e.path()));
    return out;
}

// A one-step lesson around `step` (JSON text of the step object).
std::string lesson_with_step(const std::string& step) {
    return R"({"schema": "shardscope.lesson/1", "id": "t", "title": "T", "summary": "S", "steps": [)" + step + "]}";
}

std::string load_error(const std::string& text) {
    const LessonLoad l = parse_lesson(text, "lessons/t.json");
    CHECK_FALSE(l.ok());
    return l.error;
}

}  // namespace

TEST_CASE("every shipped lesson loads, has 5 to 12 steps, and core answers every check") {
    const LessonSet set = load_lessons(shipped_lesson_files());
    for (const std::string& e : set.errors) FAIL_CHECK(e);
    REQUIRE(set.lessons.size() >= 9);
    const char* required[] = {"why-split", "data-parallel", "fsdp-zero", "tensor-parallel", "pipeline-parallel",
                              "expert-parallel", "context-parallel", "device-mesh", "decision-tree"};
    for (const char* id : required)
        CHECK_MESSAGE(std::any_of(set.lessons.begin(), set.lessons.end(), [&](const Lesson& l) { return l.id == id; }), id);
    int checks = 0;
    for (const Lesson& lesson : set.lessons) {
        CAPTURE(lesson.file);
        CHECK(lesson.steps.size() >= 5);
        CHECK(lesson.steps.size() <= 12);
        for (const std::string& e : verify_lesson_checks(lesson)) FAIL_CHECK(e);
        for (const LessonStep& step : lesson.steps) {
            CHECK(validate_scenario(step.scenario).empty());
            if (!step.check) continue;
            ++checks;
            const CheckAnswer a = answer_check(*step.check, step.scenario);
            CHECK_MESSAGE(a.ok(), step.title);
            if (step.check->kind == CheckKind::choice) CHECK(a.correct_option >= 0);
            else CHECK(number_answer_is_right(*step.check, a.value, a.value));
        }
    }
    CHECK(checks >= 40);
}

TEST_CASE("every [[link]] in the shipped lessons names a glossary term, and the glossary has over 80") {
    const GlossaryLoad g = parse_glossary(read_file(fs::path(SHARDSCOPE_SOURCE_DIR) / "assets/glossary.json"),
                                          "assets/glossary.json");
    REQUIRE_MESSAGE(g.ok(), g.error);
    CHECK(g.glossary->size() > 80);
    for (const Lesson& lesson : load_lessons(shipped_lesson_files()).lessons)
        for (size_t k = 0; k < lesson.steps.size(); ++k)
            for (const std::string& term : glossary_links(lesson.steps[k].body))
                CHECK_MESSAGE(g.glossary->find(term) != nullptr, lesson.file << " step " << k + 1 << ": [[" << term << "]]");
}

TEST_CASE("a step's scenario is the default with every change so far merged in") {
    const LessonLoad l = parse_lesson(R"({"schema": "shardscope.lesson/1", "id": "m", "title": "T", "summary": "S",
        "steps": [ {"title": "a", "body": "b", "scenario": {"parallel": {"tp": 4, "dp_shard": 4}},
                    "panels": ["mesh", "memory"], "highlight": "mesh"},
                   {"title": "a", "body": "b"},
                   {"title": "a", "body": "b", "scenario": {"training": {"global_batch": 512}}} ]})",
                                      "lessons/m.json");
    REQUIRE_MESSAGE(l.ok(), l.error);
    const auto& s = l.lesson->steps;
    // Step 1: tp 2 -> 4 and dp_shard 8 -> 4 keep 4*2*4*2 = 64 GPUs.
    CHECK(s[0].scenario.parallel.tp == 4);
    CHECK(s[0].scenario.parallel.dp_shard == 4);
    CHECK(s[0].scenario.parallel.pp == 2);  // untouched
    CHECK(s[1].scenario == s[0].scenario);  // no changes: same scenario
    CHECK(s[1].scenario_changes.empty());
    CHECK(s[1].panels == std::vector<std::string>{"mesh", "memory"});  // kept from step 1
    CHECK(s[2].highlight == "mesh");
    CHECK(s[2].scenario.parallel.tp == 4);  // earlier changes carry on
    CHECK(s[2].scenario.training.global_batch == 512);
}

TEST_CASE("merge_scenario keeps what the patch does not name and refuses what breaks a rule") {
    const ScenarioLoad ok = merge_scenario(default_scenario(), R"({"cluster": {"nodes": 4}, "parallel": {"dp_replicate": 1}})");
    REQUIRE(ok.ok());
    CHECK(ok.scenario->cluster.nodes == 4);
    CHECK(ok.scenario->cluster.gpus_per_node == 8);
    CHECK(ok.scenario->model.name == "Llama 3 8B");
    const ScenarioLoad bad = merge_scenario(default_scenario(), R"({"parallel": {"tpp": 2}})");
    CHECK(bad.error == "parallel.tpp: unknown field");
    CHECK(merge_scenario(default_scenario(), "[1]").error == "(document): must be an object");
}

TEST_CASE("glossary links: [[term]] and [[term|shown text]]") {
    const auto spans = split_glossary_links("An [[all-reduce]] sums; [[FSDP|sharding]] saves. [[broken");
    REQUIRE(spans.size() == 5);
    CHECK(spans[0].text == "An ");
    CHECK_FALSE(spans[0].is_link());
    CHECK(spans[1].term == "all-reduce");
    CHECK(spans[1].text == "all-reduce");
    CHECK(spans[2].text == " sums; ");
    CHECK(spans[3].term == "FSDP");
    CHECK(spans[3].text == "sharding");
    CHECK(spans[4].text == " saves. [[broken");  // no closing brackets: plain text
    CHECK(glossary_links("x [[a]] y [[b|c]]") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("quantities on the default scenario, worked by hand") {
    const Scenario s = default_scenario();
    const Report r = build_report(s);
    const DeviceMesh m = DeviceMesh::build(s.cluster, s.parallel);
    const auto value = [&](const char* name) { return evaluate_quantity(name, s, r, m).value.value_or(-1); };
    CHECK(value("memory.state_bytes_per_param") == 16);   // mixed-bf16: 2 + 2 + 12
    CHECK(value("mesh.world_size") == 64);                // 8 nodes x 8
    CHECK(value("mesh.groups.tp") == 32);                 // 64 / tp 2
    CHECK(value("mesh.groups.dp_shard") == 8);            // 64 / 8
    CHECK(value("mesh.inter_groups.tp") == 0);            // tp first: ranks 2k, 2k+1 share a node
    CHECK(value("model.heads_per_tp_rank") == 16);        // 32 heads / tp 2
    CHECK(value("model.layers_per_stage") == 16);         // 32 layers / pp 2
    CHECK(value("report.microbatches") == 16);            // 256 / (1 * 8 * 2)
    CHECK(value("training.tokens_per_step") == 256.0 * 8192);
    CHECK(value("report.fits") == (r.fits ? 1 : 0));
    CHECK(value("report.memory.total_gib") == doctest::Approx(r.memory.total() / 1073741824.0));
    CHECK(value("scenario.link_ratio") == doctest::Approx(370.0 / 48));  // NCCL's busbw: NVLink 4 / NDR
    CHECK(evaluate_quantity("report.nope", s, r, m).error == "\"report.nope\" is not a known quantity");
    CHECK(evaluate_quantity("model.experts_per_ep_rank", s, r, m).error == "the model has no experts");
}

TEST_CASE("choice checks: the range that holds the value, or the largest / smallest option") {
    const Scenario s = default_scenario();
    LessonCheck range;
    range.kind = CheckKind::choice;
    range.quantity = "mesh.groups.tp";  // 32
    range.options = {{"few", std::nullopt, 10.0, ""}, {"some", 10.0, 40.0, ""}, {"many", 40.0, std::nullopt, ""}};
    CheckAnswer a = answer_check(range, s);
    CHECK(a.ok());
    CHECK(a.value == 32);
    CHECK(a.correct_option == 1);

    range.options[2].min = 30.0;  // 32 now falls in two ranges
    a = answer_check(range, s);
    CHECK(a.error == "mesh.groups.tp = 32.000000 falls in 2 options' ranges; it must fall in exactly one");

    LessonCheck compare;
    compare.kind = CheckKind::choice;
    compare.rule = ChoiceRule::largest;
    // tp groups 32, dp_shard groups 8, pp groups 32 / 2... pp: 64 / 2 = 32 as well; use dp_replicate: 64 / 2 = 32.
    compare.options = {{"tp", {}, {}, "mesh.groups.dp_shard"}, {"tokens", {}, {}, "training.tokens_per_step"}};
    a = answer_check(compare, s);
    CHECK(a.correct_option == 1);                     // 2,097,152 tokens > 8 groups
    compare.rule = ChoiceRule::smallest;
    CHECK(answer_check(compare, s).correct_option == 0);
    compare.options[1].quantity = "mesh.groups.dp_shard";
    CHECK(answer_check(compare, s).error == "two options tie for the smallest value; the question has no single answer");
}

TEST_CASE("number answers are graded with a relative tolerance and an absolute floor") {
    LessonCheck c;
    c.tolerance = 0.05;
    CHECK(number_answer_is_right(c, 100, 105));
    CHECK(number_answer_is_right(c, 100, 95));
    CHECK_FALSE(number_answer_is_right(c, 100, 105.5));
    CHECK_FALSE(number_answer_is_right(c, 0, 0.001));  // 5% of zero is zero
    c.absolute_tolerance = 0.002;
    CHECK(number_answer_is_right(c, 0, 0.001));
}

TEST_CASE("a share the panels show as a percentage may be typed as one") {
    LessonCheck c;
    c.tolerance = 0.05;
    c.quantity = "report.bubble_fraction";
    // The Pipeline timeline shows 33.1%; 0.331 and 33.1 are both right, 3.31 is not.
    CHECK(number_answer_is_right(c, 0.331, 0.331));
    CHECK(number_answer_is_right(c, 0.331, 33.1));
    CHECK_FALSE(number_answer_is_right(c, 0.331, 3.31));
    CHECK_FALSE(number_answer_is_right(c, 0.331, 40));
    // Not for a quantity that is no share: 33.1 GiB is not 0.331 GiB.
    c.quantity = "report.memory.total_gib";
    CHECK_FALSE(number_answer_is_right(c, 0.331, 33.1));
}

TEST_CASE("format_quantity uses the shared unit helpers") {
    // GiB, as every panel shows memory: what a student reads off a bar is what the quiz expects.
    CHECK(format_quantity("report.memory.total_gib", 79.6) == "79.6 GiB");
    CHECK(format_quantity("report.bubble_fraction", 0.25) == "0.25 (25.0%)");
    CHECK(format_quantity("report.fits", 1) == "yes");
    CHECK(format_quantity("mesh.groups.tp", 32) == "32 groups");
}

TEST_CASE("broken lessons are reported with file, field and rule") {
    CHECK(load_error("{") .rfind("lessons/t.json: (document): not valid JSON: ", 0) == 0);
    CHECK(load_error(R"({"schema": "shardscope.lesson/2"})") ==
          "lessons/t.json: schema: must be \"shardscope.lesson/1\", got \"shardscope.lesson/2\"");
    CHECK(load_error(R"({"schema": "shardscope.lesson/1", "id": "t", "title": "T", "summary": "S", "steps": []})") ==
          "lessons/t.json: steps: has 0 steps; a lesson has 1 to 20");
    CHECK(load_error(lesson_with_step(R"({"title": "a"})")) == "lessons/t.json: steps[0].body: is required");
    CHECK(load_error(lesson_with_step(R"({"title": "a", "body": "b", "pannels": []})")) ==
          "lessons/t.json: steps[0].pannels: unknown field");
    CHECK(load_error(lesson_with_step(R"({"title": "a", "body": "b", "scenario": {"parallel": {"tp": 3}}})")) ==
          "lessons/t.json: steps[0].scenario.parallel: tp*cp*pp*dp_shard*dp_replicate = 3*1*2*8*2 = 96 GPUs a copy, which "
          "does not divide the 64 GPUs of the cluster (8 x 8): the cluster needs a multiple of 96 GPUs, or the layout "
          "fewer");  // 96 GPUs asked of 64
    CHECK(load_error(lesson_with_step(R"({"title": "a", "body": "b", "scenario": 5})")) ==
          "lessons/t.json: steps[0].scenario: must be an object (a partial scenario)");
    CHECK(load_error(lesson_with_step(R"({"title": "a", "body": "b", "actions": ["mesh.dim"]})")) ==
          "lessons/t.json: steps[0].actions[0]: \"mesh.dim\" must be written PANEL.ACTION=VALUE, e.g. mesh.dim=dp_shard");
    CHECK(load_error(lesson_with_step(R"({"title": "a", "body": "see [[|x]]"})")) ==
          "lessons/t.json: steps[0].body: a glossary link [[term|text]] has an empty part");
    CHECK(load_error(lesson_with_step(
              R"({"title": "a", "body": "b", "check": {"kind": "number", "question": "q", "quantity": "report.memory.totl_gb"}})")) ==
          "lessons/t.json: steps[0].check.quantity: \"report.memory.totl_gb\" is not a known quantity (see lesson_quantities())");
    CHECK(load_error(lesson_with_step(
              R"({"title": "a", "body": "b", "check": {"kind": "number", "question": "q", "quantity": "report.fits", "answer": 1}})")) ==
          "lessons/t.json: steps[0].check.answer: unknown field");
    CHECK(load_error(lesson_with_step(
              R"({"title": "a", "body": "b", "check": {"kind": "choice", "question": "q", "quantity": "report.fits",
                  "options": [{"text": "yes", "min": 1}]}})")) ==
          "lessons/t.json: steps[0].check.options: a choice needs at least two options");
    CHECK(load_error(lesson_with_step(
              R"({"title": "a", "body": "b", "check": {"kind": "choice", "question": "q", "quantity": "report.fits",
                  "options": [{"text": "yes"}, {"text": "no", "max": 1}]}})")) ==
          "lessons/t.json: steps[0].check.options[0]: a range option needs \"min\", \"max\" or both");
    CHECK(load_error(lesson_with_step(
              R"({"title": "a", "body": "b", "check": {"kind": "quiz", "question": "q"}})")) ==
          "lessons/t.json: steps[0].check.kind: \"quiz\" is not one of number, choice");
}

TEST_CASE("a broken lesson file does not stop the others, and a duplicate id is refused") {
    const std::string good = lesson_with_step(R"({"title": "a", "body": "b"})");
    const LessonSet set = load_lessons({{"lessons/b.json", "{}"}, {"lessons/a.json", good}, {"lessons/c.json", good}});
    REQUIRE(set.lessons.size() == 1);
    CHECK(set.lessons[0].file == "lessons/a.json");
    REQUIRE(set.errors.size() == 2);
    CHECK(set.errors[0] == "lessons/b.json: schema: is required");
    CHECK(set.errors[1] == "lessons/c.json: id: \"t\" is already used by another lesson");
}

TEST_CASE("a check whose ranges miss the value is caught by verify_lesson_checks") {
    const LessonLoad l = parse_lesson(lesson_with_step(R"({"title": "a", "body": "b", "check": {"kind": "choice",
        "question": "q", "quantity": "mesh.groups.tp", "options": [{"text": "few", "max": 10}, {"text": "lots", "min": 100}]}})"),
                                      "lessons/t.json");
    REQUIRE(l.ok());
    const auto errors = verify_lesson_checks(*l.lesson);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0] == "lessons/t.json: steps[0].check: mesh.groups.tp = 32.000000 falls in 0 options' ranges; it must fall in exactly one");
}

TEST_CASE("a step's changes in words: only what differs from the scenario before") {
    // The default has tp 2, order tp, cp, dp_shard, dp_replicate, pp and schedule 1f1b.
    const Scenario d = default_scenario();
    CHECK(describe_scenario_changes(d, R"({"parallel": {"tp": 4, "pp": 2, "order": ["pp", "tp", "cp", "dp_shard", "dp_replicate"]},
                                           "training": {"schedule": "gpipe"}})") ==
          std::vector<std::string>{"parallel.tp = 4", "parallel.order = pp, tp, cp, dp_shard, dp_replicate",
                                   "training.schedule = gpipe"});
    CHECK(describe_scenario_changes(d, R"({"model": {"name": "Llama 3 70B", "layers": 80}, "cluster": {"nodes": 4}})") ==
          std::vector<std::string>{"model = Llama 3 70B", "cluster.nodes = 4"});
    CHECK(describe_scenario_changes(d, R"({"cluster": {"nodes": 8}})").empty());  // already 8
    CHECK(describe_scenario_changes(d, "").empty());
}

TEST_CASE("a figure as a panel drew it is read back in its quantity's unit") {
    CHECK(number_in_shown_text("report.memory.total_gib", "65.8 GiB") == doctest::Approx(65.8));
    CHECK(number_in_shown_text("report.memory.total_gib", "512 MiB") == doctest::Approx(0.5));
    CHECK(number_in_shown_text("report.memory.total_gib", "1.50 TiB") == doctest::Approx(1536));
    CHECK(number_in_shown_text("report.memory.total_gib", "1,230 GiB") == doctest::Approx(1230));
    CHECK_FALSE(number_in_shown_text("report.memory.total_gib", "< 0.001 GiB"));
    CHECK_FALSE(number_in_shown_text("report.memory.total_gib", "65.8 GB"));  // not a unit it is asked in
    CHECK(number_in_shown_text("report.time.step_s", "698 ms") == doctest::Approx(0.698));
    CHECK(number_in_shown_text("report.time.step_s", "1.56 s") == doctest::Approx(1.56));
    CHECK(number_in_shown_text("report.time.step_s", "12.0 us") == doctest::Approx(12e-6));
    CHECK(number_in_shown_text("report.time.step_s", "2.50 min") == doctest::Approx(150));
    CHECK(number_in_shown_text("report.mfu", "41.3%") == doctest::Approx(0.413));
    CHECK(number_in_shown_text("report.params_active_b", "37.0 billion") == doctest::Approx(37.0));
    CHECK(number_in_shown_text("report.microbatches", "16 micro-batches") == doctest::Approx(16));
    CHECK(number_in_shown_text("mesh.groups.tp", "1,024") == doctest::Approx(1024));
    CHECK(number_in_shown_text("mesh.inter_groups.tp", "8 of 32 span nodes (mixed (24 intra, 8 inter))") ==
          doctest::Approx(8));
    CHECK_FALSE(number_in_shown_text("report.fits", "yes"));
    CHECK_FALSE(number_in_shown_text("no.such.quantity", "3 GiB"));
}

TEST_CASE("typing the figure at the rounding a panel shows it is right, even past the tolerance") {
    LessonCheck c;
    c.quantity = "report.time.step_s";
    c.tolerance = 0.001;
    // Core's 0.6984 s, shown as "698 ms": 0.698 is within 0.1% of either, 0.7 only of nothing.
    CHECK(number_answer_is_right(c, 0.6984, 0.698, {}));
    CHECK_FALSE(number_answer_is_right(c, 0.6984, 0.7, {}));
    CHECK_FALSE(number_answer_is_right(c, 0.6984, 0.7, {"698 ms"}));
    // A panel that rounds harder: 4.88 GiB on the mesh for core's 4.8812 with a 0.01% tolerance.
    c.quantity = "report.dims.dp_replicate.bytes_per_step_gib";
    c.tolerance = 0.0001;
    CHECK_FALSE(number_answer_is_right(c, 4.8812, 4.88, {}));
    CHECK(number_answer_is_right(c, 4.8812, 4.88, {"4.88 GiB"}));
    CHECK_FALSE(number_answer_is_right(c, 4.8812, 4.88, {"4.88 MiB"}));  // 4.88 MiB is 0.00477 GiB
}

TEST_CASE("a hand calculation names its inputs; a figure some panel shows has none") {
    Scenario s = default_scenario();
    s.model.heads = 64;
    s.parallel.tp = 8;
    CHECK(hand_calculation_inputs("model.heads_per_tp_rank", s) == std::optional<std::string>("heads = 64, tp = 8"));
    s.model.seq_len = 131072;
    s.parallel.cp = 16;
    // Whole numbers, never rounded: 131072 read as "131k" would not divide by 16 by hand.
    CHECK(hand_calculation_inputs("model.tokens_per_cp_rank", s) == std::optional<std::string>("seq_len = 131072, cp = 16"));
    const auto state = hand_calculation_inputs("memory.state_bytes_per_param", s);
    REQUIRE(state);
    CHECK(state->find("weights 2 bytes, gradients") != std::string::npos);
    CHECK_FALSE(hand_calculation_inputs("report.memory.total_gib", s));
    CHECK_FALSE(hand_calculation_inputs("mesh.groups.tp", s));
}

TEST_CASE("every claim of the shipped lessons holds on the current cost model") {
    int claims = 0;
    for (const Lesson& lesson : load_lessons(shipped_lesson_files()).lessons) {
        for (const std::string& e : verify_lesson_claims(lesson)) FAIL_CHECK(e);
        for (const LessonStep& step : lesson.steps) claims += int(step.claims.size());
    }
    CHECK(claims >= 60);
}

TEST_CASE("every figure the shipped lessons quote has a value on its step") {
    int quoted = 0;
    for (const Lesson& lesson : load_lessons(shipped_lesson_files()).lessons) {
        LessonFigures figures(lesson);
        for (size_t k = 0; k < lesson.steps.size(); ++k) {
            const LessonStep& step = lesson.steps[k];
            for (const std::string* text : {&step.body, step.check ? &step.check->explain : nullptr}) {
                if (!text) continue;
                for (const FigureRef& ref : quoted_figures(*text, k).refs) {
                    ++quoted;
                    const auto v = figures.value(ref, k);
                    CHECK_MESSAGE(v.value.has_value(), lesson.file << " step " << k + 1 << ": " << ref.quantity << ": " << v.error);
                }
            }
        }
    }
    CHECK(quoted >= 60);
}

TEST_CASE("a step's body never quotes the figure its own question asks") {
    for (const Lesson& lesson : load_lessons(shipped_lesson_files()).lessons)
        for (size_t k = 0; k < lesson.steps.size(); ++k) {
            const LessonStep& step = lesson.steps[k];
            if (!step.check || step.check->quantity.empty()) continue;
            for (const FigureRef& ref : quoted_figures(step.body, k).refs)
                CHECK_MESSAGE(!(ref.step_read(k) == k && ref.quantity == step.check->quantity),
                              lesson.file << " step " << k + 1 << " gives away " << ref.quantity);
        }
}

// Figures the cost model computes (memory, bandwidth, FLOP rates, times, shares, ratios) are quoted, never
// typed: a typed one goes stale the next time the model changes. Sizes of the hardware ("80GB" in a GPU's
// name), bytes per parameter and the scenario's own inputs are facts and stay words.
TEST_CASE("no shipped lesson types a figure the model computes") {
    // Published figures the lessons cite beside the model's: Meta's Table 4 of "The Llama 3 Herd of
    // Models" (BF16 MFU of the 405B layouts).
    const char* cited[] = {"Meta reports 38%", "Meta reports 41%"};
    const std::regex typed_figure(R"(\d[\d,.]*\s*(GiB|MiB|TiB|KiB|GB/s|TB/s|TB\b|TFLOP/s|ms\b|us\b|%|times\b))");
    for (const Lesson& lesson : load_lessons(shipped_lesson_files()).lessons)
        for (size_t k = 0; k < lesson.steps.size(); ++k) {
            const LessonStep& step = lesson.steps[k];
            std::vector<std::string> texts{step.title, step.body};
            if (step.check) texts.insert(texts.end(), {step.check->question, step.check->explain});
            for (std::string text : texts) {
                for (const char* c : cited)
                    for (size_t at = text.find(c); at != std::string::npos; at = text.find(c)) text.erase(at, std::strlen(c));
                for (size_t open = text.find("{{"); open != std::string::npos; open = text.find("{{"))
                    text.erase(open, text.find("}}", open) + 2 - open);
                std::smatch m;
                CHECK_MESSAGE(!std::regex_search(text, m, typed_figure),
                              lesson.file << " step " << k + 1 << " types \"" << m.str() << "\": quote it as {{QUANTITY}}");
            }
        }
}

// A step's changes merge into the scenario before (JSON merge patch), so a model swapped in inherits
// every field it does not name: a lesson's model that bears a preset's name must be that preset.
TEST_CASE("every lesson model named like a model preset has the preset's parameters") {
    std::map<std::string, double> preset_params;
    for (const auto& e : fs::directory_iterator(fs::path(SHARDSCOPE_SOURCE_DIR) / kModelPresetDir)) {
        if (e.path().extension() != ".json") continue;
        const ModelPresetLoad loaded = parse_model_preset(read_file(e.path()));
        REQUIRE_MESSAGE(loaded.ok(), loaded.error);
        preset_params[loaded.preset->model.name] = count_params(loaded.preset->model).total;
    }
    int compared = 0;
    for (const Lesson& lesson : load_lessons(shipped_lesson_files()).lessons)
        for (size_t k = 0; k < lesson.steps.size(); ++k) {
            const ModelSpec& m = lesson.steps[k].scenario.model;
            const auto preset = preset_params.find(m.name);
            if (preset == preset_params.end()) continue;
            ++compared;
            CHECK_MESSAGE(count_params(m).total == doctest::Approx(preset->second).epsilon(1e-9),
                          lesson.file << " step " << k + 1 << ": " << m.name);
        }
    CHECK(compared >= 30);
}
