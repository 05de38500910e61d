#pragma once
// What the printing subcommands (report, plan) share: the --format check and the --config scenario,
// with the same messages and exit codes everywhere, the window's included: 2 for a bad argument or an
// input file that cannot be read or is rejected (README, "Exit codes").

#include "core/scenario/scenario.hpp"

#include <optional>
#include <string>

namespace shardscope::app {

// --format must be json or text; --config FILE is required, read and parsed as a scenario. The
// scenario, or nullopt after printing why to stderr (a rejected scenario as "FILE: field: rule");
// exit_code then says what the command should return.
std::optional<Scenario> scenario_argument(const std::string& command, const std::string& config,
                                          const std::string& format, const char* usage, int& exit_code);

}  // namespace shardscope::app
