#pragma once
// What the printing subcommands (report, plan) share: the --config file and the --format check, with
// the same messages and exit codes everywhere (2 for a bad argument, 1 for an unreadable file).

#include <optional>
#include <string>

namespace shardscope::app {

// The text of the --config file, or nullopt after printing why to stderr; exit_code then says what
// the command should return.
std::optional<std::string> read_config_argument(const std::string& command, const std::string& config,
                                                const char* usage, int& exit_code);
// True for "json" and "text"; otherwise prints the rule and returns false (exit 2).
bool is_known_format(const std::string& command, const std::string& format);

}  // namespace shardscope::app
