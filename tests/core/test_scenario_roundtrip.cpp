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
