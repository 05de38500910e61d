#pragma once
// Subcommands (`shardscope report`, `plan`, `validate`, `measure`, `bench`) register themselves here
// from their own file, so adding one never touches main.cpp. They run without a window.

#include <string>
#include <vector>

namespace shardscope::app {

// args: what follows the subcommand's name. Returns the process exit code
// (0 success, 2 rejected input, 1 anything else).
using CommandFn = int (*)(const std::vector<std::string>& args);

struct Command {
    std::string name;
    std::string summary;  // one line for `shardscope --help`
    CommandFn run;
};

bool register_command(Command command);
[[nodiscard]] const std::vector<Command>& commands();
[[nodiscard]] const Command* find_command(const std::string& name);

}  // namespace shardscope::app

// Usage, at namespace scope in the command's .cpp:
//   SHARDSCOPE_COMMAND(report, "print the cost of one scenario", &run_report);
#define SHARDSCOPE_COMMAND(id, summary, fn) \
    static const bool shardscope_command_##id = ::shardscope::app::register_command({#id, summary, fn})
