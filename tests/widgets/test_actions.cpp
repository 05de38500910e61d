// The declared actions: one parser for every value, and the table in docs/cli.md is the panels' own.
#include "widgets/shell/actions.hpp"
#include "widgets/panel_catalog.hpp"
#include "widgets/shell/panel.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

using namespace shardscope::ui;

namespace {

ActionSpec spec_of(ActionType type, double min = 0, double max = 0, std::vector<std::string> choices = {}) {
    ActionSpec s;
    s.name = "x";
    s.type = type;
    s.min = min;
    s.max = max;
    s.choices = std::move(choices);
    return s;
}

std::string parse(const ActionSpec& spec, const std::string& text, ActionValue& v) {
    return parse_action_value(spec, text, v);
}

}  // namespace

TEST_CASE("actions: whole numbers in range, nothing else") {
    const ActionSpec s = spec_of(ActionType::integer, 2, 64);
    ActionValue v;
    CHECK(parse(s, "64", v).empty());
    CHECK(v.integer == 64);
    CHECK(parse(s, "2", v).empty());
    CHECK(parse(s, "1", v) == "\"1\" is not a whole number from 2 to 64");
    CHECK(parse(s, "65", v) == "\"65\" is not a whole number from 2 to 64");
    for (const char* bad : {"", "8.5", "8x", " 8", "eight", "99999999999999999999"}) {
        INFO(bad);
        CHECK_FALSE(parse(s, bad, v).empty());
    }
}

TEST_CASE("actions: on/off takes four spellings each way and refuses the rest") {
    const ActionSpec s = spec_of(ActionType::on_off);
    ActionValue v;
    for (const char* on : {"on", "1", "true", "yes"}) {
        CHECK(parse(s, on, v).empty());
        CHECK(v.on);
    }
    for (const char* off : {"off", "0", "false", "no"}) {
        CHECK(parse(s, off, v).empty());
        CHECK_FALSE(v.on);
    }
    CHECK(parse(s, "garbage", v) == "\"garbage\" is not on or off (1/0, true/false, yes/no)");
}

TEST_CASE("actions: sizes, choices, ranks and numbers") {
    ActionValue v;
    const ActionSpec bytes = spec_of(ActionType::bytes, 1, 1024.0 * 1024 * 1024);
    CHECK(parse(bytes, "64KiB", v).empty());
    CHECK(v.number == 65536);
    CHECK(parse(bytes, "2GiB", v).rfind("\"2GiB\" is not a size", 0) == 0);
    const ActionSpec choice = spec_of(ActionType::choice, 0, 0, {"step", "mfu"});
    CHECK(parse(choice, "mfu", v).empty());
    CHECK(parse(choice, "MFU", v) == "\"MFU\" is not one of step, mfu");
    const ActionSpec rank = spec_of(ActionType::rank);
    CHECK(parse(rank, "none", v).empty());
    CHECK(v.integer == -1);
    CHECK(parse(rank, "13", v).empty());
    CHECK(v.integer == 13);
    CHECK_FALSE(parse(rank, "-1", v).empty());
    const ActionSpec number = spec_of(ActionType::number, 0.1, 20);
    CHECK(parse(number, "2.5", v).empty());
    CHECK(v.number == 2.5);
    CHECK(parse(number, "0.05", v) == "\"0.05\" is not a number from 0.1 to 20");
    CHECK_FALSE(parse(number, "nan", v).empty());
    const ActionSpec trigger = spec_of(ActionType::trigger);
    CHECK(parse(trigger, "", v).empty());
    CHECK(parse(trigger, "1", v).empty());
    CHECK_FALSE(parse(trigger, "now", v).empty());
}

TEST_CASE("actions: a table prefixes refusals with PANEL.NAME and runs only valid values") {
    ActionTable table;
    int runs = 0;
    table.integer("ranks", "GPUs", 2, 64, [&](AppState&, const ActionValue& v) {
        ++runs;
        return v.integer == 3 ? std::string("3 does not divide 8") : std::string();
    });
    AppState state;
    CHECK(table.run("collective", state, "ranks", "two") ==
          "collective.ranks: \"two\" is not a whole number from 2 to 64");
    CHECK(runs == 0);
    CHECK(table.run("collective", state, "ranks", "3") == "collective.ranks: 3 does not divide 8");
    CHECK(table.run("collective", state, "ranks", "8").empty());
    CHECK(runs == 2);
    CHECK(table.run("collective", state, "rank", "8") ==
          "panel collective has no action \"rank\" (its actions: ranks)");
}

TEST_CASE("actions: every panel declares its actions, and docs/cli.md lists exactly them") {
    PanelRegistry registry;
    register_default_panels(registry);
    for (const auto& panel : registry.panels()) {
        INFO(panel->id());
        CHECK_FALSE(panel->actions().specs().empty());
        for (const ActionSpec& s : panel->actions().specs()) {
            CHECK_FALSE(s.help.empty());
            CHECK(static_cast<bool>(s.run));
        }
    }
    std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR) + "/docs/cli.md");
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    const std::string guide = text.str();
    const std::string begin = "<!-- actions:begin -->\n", end = "<!-- actions:end -->";
    const auto from = guide.find(begin), to = guide.find(end);
    REQUIRE(from != std::string::npos);
    REQUIRE(to != std::string::npos);
    // When this fails: paste the output of `shardscope --action list` between the two markers in
    // docs/cli.md (section "Panel actions").
    CHECK(guide.substr(from + begin.size(), to - from - begin.size()) == action_reference(registry));
}

TEST_CASE("the window keeps drawing only while something moves: a playing animation, or slowly a lesson's outline") {
    PanelRegistry registry;
    register_default_panels(registry);
    AppState state;
    CHECK_FALSE(registry.animating());
    Panel* collective = registry.find("collective");
    REQUIRE(collective);
    collective->open = true;
    REQUIRE(collective->act(state, "play", "on").empty());
    CHECK(registry.animating());
    REQUIRE(collective->act(state, "play", "off").empty());
    CHECK_FALSE(registry.animating());
    // A closed panel's animation draws nothing.
    REQUIRE(collective->act(state, "play", "on").empty());
    collective->open = false;
    CHECK_FALSE(registry.animating());
    // A lesson's outline pulses: slow frames, not continuous ones.
    CHECK_FALSE(registry.pulsing());
    registry.set_highlight("memory");
    CHECK(registry.pulsing());
    CHECK_FALSE(registry.animating());
}

TEST_CASE("actions: a bare PANEL.ACTION runs an action that takes no value, and one that needs a value says so") {
    PanelRegistry registry;
    register_default_panels(registry);
    AppState state;
    // The list says a trigger takes "no value (or 1)": memory.apply_fix without "=1".
    CHECK(registry.run_action(state, "memory.apply_fix") == "memory.apply_fix: the scenario already fits");
    CHECK(registry.run_action(state, "memory.zero").rfind("memory.zero: ", 0) == 0);
    CHECK(registry.run_action(state, "memory") ==
          "\"memory\": an action is written PANEL.ACTION=VALUE, e.g. mesh.dim=dp_shard");
}
