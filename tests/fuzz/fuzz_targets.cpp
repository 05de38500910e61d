// libFuzzer targets, one executable each (tests/fuzz/CMakeLists.txt picks the function with
// SHARDSCOPE_FUZZ_TARGET): every loader on arbitrary bytes, and build_report on whatever the scenario
// loader accepts. A loader may refuse anything but must never crash, hang or throw; an accepted
// scenario must save and load back to itself, and its report must keep the invariants.
// Run one with scripts/fuzz TARGET SECONDS.
#include "core/measure/measure.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/report.hpp"
#include "core/scenario/presets.hpp"
#include "core/scenario/scenario.hpp"
#include "core/teaching/cheatsheet.hpp"
#include "core/teaching/glossary.hpp"
#include "core/teaching/lesson.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using shardscope::Scenario;

[[noreturn]] void broken(const std::string& what, const Scenario& s) {
    std::fprintf(stderr, "%s\n%s", what.c_str(), shardscope::scenario_to_json(s).c_str());
    std::abort();
}

void fuzz_scenario(std::string_view text) {
    const shardscope::ScenarioLoad load = shardscope::parse_scenario(text);
    if (!load.ok()) return;
    const shardscope::ScenarioLoad again = shardscope::parse_scenario(shardscope::scenario_to_json(*load.scenario));
    if (!again.ok() || *again.scenario != *load.scenario) broken("saved and loaded back, it changed: " + again.error, *load.scenario);
}

void fuzz_report(std::string_view text) {
    const shardscope::ScenarioLoad load = shardscope::parse_scenario(text);
    if (!load.ok()) return;
    const shardscope::Report r = shardscope::build_report(*load.scenario);
    if (std::string e = shardscope::report_invariant_violation(*load.scenario, r); !e.empty()) broken(e, *load.scenario);
    (void)shardscope::report_to_json(r);
    (void)shardscope::report_to_text(r);
}

void fuzz_presets(std::string_view text) {
    (void)shardscope::parse_model_preset(text);
    (void)shardscope::parse_cluster_preset(text);
}

void fuzz_lesson(std::string_view text) { (void)shardscope::parse_lesson(text, "lessons/fuzz.json"); }
void fuzz_glossary(std::string_view text) { (void)shardscope::parse_glossary(text, "assets/glossary.json"); }
void fuzz_cheatsheet(std::string_view text) { (void)shardscope::parse_cheatsheet(text, "assets/cheatsheet.json"); }
void fuzz_measure(std::string_view text) {
    (void)shardscope::parse_measure_result(text);
    (void)shardscope::parse_measure_row_line(text);  // a --format jsonl stream's row line
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    SHARDSCOPE_FUZZ_TARGET(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
