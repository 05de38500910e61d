// shardscope: the window by default; subcommands (report, plan, validate, measure, bench, export) print.
#include "app/commands.hpp"
#include "app/options.hpp"
#include "app/window.hpp"
#include "widgets/panel_catalog.hpp"
#include "widgets/shell/panel.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace shardscope::app;

// A command whose output could not be written (a full disk, a closed pipe, /dev/full) has failed,
// whatever it printed before: say so and exit 1, as the GNU tools do.
int checked_output(int exit_code) {
    std::cout.flush();
    const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
    if (!failed) return exit_code;
    // The streams remember that a write failed but not why; one more byte, on output already lost,
    // asks the system again.
    std::clearerr(stdout);
    errno = 0;
    std::fputc('\n', stdout);
    std::fflush(stdout);
    std::fprintf(stderr, "shardscope: cannot write to standard output: %s\n",
                 errno ? std::strerror(errno) : "write error");
    return exit_code == 0 ? 1 : exit_code;
}

// `shardscope help [COMMAND]`: the command's usage, as COMMAND --help prints it.
int run_help(const std::vector<std::string>& args) {
    if (args.empty()) {
        std::fputs(usage_text().c_str(), stdout);
        return 0;
    }
    const Command* command = find_command(args.front());
    if (!command || args.size() > 1) {
        std::fprintf(stderr, "shardscope: help: '%s' is not a command (see shardscope --help)\n", args.front().c_str());
        return 2;
    }
    return command->run({"--help"});
}

int run(const std::vector<std::string>& args) {
    if (!args.empty()) {
        if (args.front() == "help") return run_help(std::vector<std::string>(args.begin() + 1, args.end()));
        if (const Command* command = find_command(args.front()))
            return command->run(std::vector<std::string>(args.begin() + 1, args.end()));
    }
    std::string error;
    const auto options = parse_options(args, error);
    if (!options) {
        std::fprintf(stderr, "shardscope: %s\n", error.c_str());
        return 2;
    }
    if (options->help) {
        std::fputs(usage_text().c_str(), stdout);
        return 0;
    }
    if (options->list_actions) {
        shardscope::ui::PanelRegistry registry;
        shardscope::ui::register_default_panels(registry);
        std::fputs(shardscope::ui::action_reference(registry).c_str(), stdout);
        return 0;
    }
    if (options->version) {
        std::printf("shardscope %s\n", SHARDSCOPE_VERSION);
        return 0;
    }
    return run_window(*options);
}

}  // namespace

int main(int argc, char** argv) { return checked_output(run(std::vector<std::string>(argv + 1, argv + argc))); }
