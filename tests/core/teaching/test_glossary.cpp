// The glossary and cheat sheet loaders (core/teaching/glossary.hpp, core/teaching/cheatsheet.hpp): the shipped files,
// lookups by term and alias, search order, and broken files with exact messages.
#include "core/teaching/cheatsheet.hpp"
#include "core/teaching/glossary.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace shardscope;

namespace {
std::string read_asset(const char* name) {
    std::ifstream in(std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "assets" / name);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string glossary_error(const std::string& terms) {
    return parse_glossary(R"({"schema": "shardscope.glossary/1", "terms": )" + terms + "}", "assets/g.json").error;
}
}  // namespace

TEST_CASE("the shipped glossary loads with over 80 terms in several groups") {
    const GlossaryLoad g = parse_glossary(read_asset("glossary.json"), "assets/glossary.json");
    REQUIRE_MESSAGE(g.ok(), g.error);
    CHECK(g.skipped.empty());
    CHECK(g.glossary->size() > 80);
    CHECK(g.glossary->groups().size() >= 6);
    for (const char* term : {"all-reduce", "FSDP", "ZeRO-3", "tensor parallel", "NVLink", "BF16", "GQA", "bubble",
                             "ring attention", "HBM", "tensor core", "mixture of experts"})
        CHECK_MESSAGE(g.glossary->find(term) != nullptr, term);
}

TEST_CASE("lookups ignore case and treat spaces, hyphens and underscores alike") {
    const Glossary g({{"All-reduce", {"allreduce"}, "Collectives", "Sum everywhere.", {}},
                      {"Data parallel", {"DP", "dp_replicate"}, "Parallelism", "Copies; uses all-reduce.", {"All-reduce"}}});
    CHECK(g.find("all reduce")->term == "All-reduce");
    CHECK(g.find("ALL_REDUCE")->term == "All-reduce");
    CHECK(g.find("allreduce")->term == "All-reduce");
    CHECK(g.find("dp replicate")->term == "Data parallel");
    CHECK(g.find("reduce") == nullptr);
    CHECK(normalise_term("  Ring--Attention_x ") == "ring attention x");
    // A name match ranks before a match in a definition.
    CHECK(g.search("all-reduce") == std::vector<size_t>{0, 1});
    CHECK(g.search("copies") == std::vector<size_t>{1});
    CHECK(g.search("").size() == 2);
    CHECK(g.referrers(0) == std::vector<size_t>{1});  // Data parallel links to All-reduce
    CHECK(g.referrers(1).empty());
}

TEST_CASE("a bad glossary entry costs only itself: the rest load and each problem is named") {
    const std::string text = R"({"schema": "shardscope.glossary/1", "terms": [
        {"term": "A", "group": "G", "definition": "d", "see_also": ["B", "C"]},
        {"term": "B", "aliases": ["a"], "group": "G", "definition": "d"},
        {"term": "C", "group": "G", "definition": " "},
        {"term": "D", "group": "G", "definition": "d", "seealso": []},
        {"term": "E", "group": "G", "definition": "d", "see_also": ["A"]}]})";
    const GlossaryLoad g = parse_glossary(text, "assets/g.json");
    REQUIRE(g.ok());
    CHECK(g.error.empty());
    // A and E load; B, C and D are left out, and A's links to B and C (now absent) are dropped.
    REQUIRE(g.glossary->size() == 2);
    CHECK(g.glossary->find("A") != nullptr);
    CHECK(g.glossary->find("E")->see_also == std::vector<std::string>{"A"});
    CHECK(g.glossary->find("A")->see_also.empty());
    CHECK(g.skipped == std::vector<std::string>{
                           "assets/g.json: terms[1]: \"a\" is already the term or an alias of \"A\"; the entry is left out",
                           "assets/g.json: terms[2].definition: must not be empty; the entry is left out",
                           "assets/g.json: terms[3].seealso: unknown field; the entry is left out",
                           "assets/g.json: terms[0].see_also[0]: \"B\" is not a term of the glossary; the link is left out",
                           "assets/g.json: terms[0].see_also[1]: \"C\" is not a term of the glossary; the link is left out"});
    // A document that is no glossary is still refused whole.
    CHECK(glossary_error(R"({"oops": 1})").find("assets/g.json: ") == 0);
}

TEST_CASE("the shipped cheat sheet loads, each row with a valid scenario") {
    const CheatSheetLoad c = parse_cheatsheet(read_asset("cheatsheet.json"), "assets/cheatsheet.json");
    REQUIRE_MESSAGE(c.ok(), c.error);
    CHECK(c.sheet->rows.size() >= 6);
    for (const CheatSheetRow& row : c.sheet->rows) CHECK_MESSAGE(validate_scenario(row.scenario).empty(), row.strategy);
    // Row 1 is plain data parallel: 64 replicas, nothing sharded.
    CHECK(c.sheet->rows[0].scenario.parallel.dp_replicate == 64);
    CHECK(c.sheet->rows[0].scenario.parallel.zero == 0);
}

TEST_CASE("a broken cheat sheet row names its field") {
    const std::string row = R"({"strategy": "S", "splits": "s", "communication": "c", "cost": "c", "reach_for_it_when": "r",
                                "scenario": {"parallel": {"zero": 7}}})";
    CHECK(parse_cheatsheet(R"({"schema": "shardscope.cheatsheet/1", "rows": [)" + row + "]}", "assets/c.json").error ==
          "assets/c.json: rows[0].scenario.parallel.zero: 7 must be 0, 1, 2 or 3");
}
