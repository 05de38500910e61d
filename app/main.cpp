// shardscope: the window by default; subcommands (report, plan, validate, measure, bench) print.
#include "app/commands.hpp"
#include "app/options.hpp"
#include "app/window.hpp"
#include "widgets/shell/panel.hpp"

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    using namespace shardscope::app;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty()) {
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
