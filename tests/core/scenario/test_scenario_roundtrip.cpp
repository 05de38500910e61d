#include "core/scenario/scenario.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

TEST_CASE("the default scenario round-trips byte for byte") {
    const std::string text = scenario_to_json(default_scenario());
    const ScenarioLoad loaded = parse_scenario(text);
    REQUIRE_MESSAGE(loaded.ok(), loaded.error);
    CHECK(*loaded.scenario == default_scenario());
    CHECK(scenario_to_json(*loaded.scenario) == text);
}

TEST_CASE("an unknown field is rejected with its path") {
    std::string text = scenario_to_json(default_scenario());
    const auto at = text.find("\"tp\":");
    text.insert(at, "\"tpp\": 2, ");
    const ScenarioLoad loaded = parse_scenario(text);
    CHECK_FALSE(loaded.ok());
    CHECK(loaded.error == "parallel.tpp: unknown field");
}

TEST_CASE("model.dropout: written only when set, read back as set, and held to a boolean") {
    CHECK(scenario_to_json(default_scenario()).find("dropout") == std::string::npos);
    for (bool on : {false, true}) {
        Scenario s = default_scenario();
        s.model.dropout = on;
        const ScenarioLoad loaded = parse_scenario(scenario_to_json(s));
        REQUIRE_MESSAGE(loaded.ok(), loaded.error);
        REQUIRE(loaded.scenario->model.dropout.has_value());
        CHECK(*loaded.scenario->model.dropout == on);
        CHECK(loaded.scenario->model.uses_dropout() == on);
    }
    std::string text = scenario_to_json(default_scenario());
    text.insert(text.find("\"ffn\":"), "\"dropout\": 0.1, ");
    const ScenarioLoad bad = parse_scenario(text);
    CHECK_FALSE(bad.ok());
    CHECK(bad.error.find("model.dropout") != std::string::npos);
}
