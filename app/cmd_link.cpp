// `shardscope link [--config FILE] [--model FILE [--seq-len N]] [--lesson ID [--step K]] [--base URL]`:
// prints the link that opens this scenario and lesson in the browser page (scripts/web) or the desktop
// app (--link), as core/scenario/share_link.hpp writes it. Exit 0 with the link on stdout; 2 with the
// reason on stderr for bad arguments or a scenario or model file that cannot be read or is rejected.

#include "app/cli.hpp"
#include "app/command_input.hpp"
#include "app/commands.hpp"
#include "host/file_io.hpp"
#include "host/teaching_files.hpp"
#include "core/scenario/share_link.hpp"

#include <iostream>

namespace {

constexpr const char* kUsage = "usage: shardscope link [--config FILE] [--model FILE [--seq-len N]] [--lesson ID [--step K]]\n"
    "                       [--base URL]\n"
    "  Prints the link that opens this scenario (and lesson) in the browser page or, with --link, in the\n"
    "  desktop app. --config FILE: the scenario (- reads standard input), --model FILE: a model preset or\n"
    "  Hugging Face config.json in place of its model, --lesson ID / --step K: a lesson and its step\n"
    "  (1-based), --base URL: the page's address (default http://localhost:8000/, where scripts/web serves)";

int run_link(const std::vector<std::string>& args) {
    std::string config, lesson, base = "http://localhost:8000/";
    int step = 0;
    shardscope::app::ModelFlags model_flags;
    CLI::App parser;
    shardscope::app::configure_parser(parser);
    parser.add_option("--config", config);
    parser.add_option("--lesson", lesson);
    parser.add_option("--step", step)->check(CLI::Range(1, 1000));
    parser.add_option("--base", base);
    shardscope::app::add_model_flags(parser, model_flags);
    if (const auto exit = shardscope::app::parse_arguments(parser, args, "link", kUsage)) return *exit;
    if (step > 0 && lesson.empty()) {
        std::cerr << "link: --step: goes with --lesson ID\n";
        return 2;
    }
    // A link to a lesson the app would refuse is no link: the same rule as the app's --lesson.
    if (!lesson.empty()) {
        if (std::string why = shardscope::lesson_step_error(shardscope::host::shipped_lessons(shardscope::host::data_dir()),
                                                           lesson, step > 0 ? step : 1);
            !why.empty()) {
            std::cerr << "link: --lesson: " << why << "\n";
            return 2;
        }
    }
    if (base.find_first_of("?#") != std::string::npos) {
        std::cerr << "link: --base: the page's address without ? or #, e.g. https://example.org/shardscope/\n";
        return 2;
    }
    std::string model_error;
    const auto model = shardscope::app::model_argument(model_flags, model_error, config == "-");
    if (!model) {
        std::cerr << "link: " << model_error << "\n";
        return 2;
    }
    shardscope::ShareLink link{lesson, step, std::nullopt};
    if (!config.empty() || model->given()) {
        int exit_code = 0;
        link.scenario = shardscope::app::scenario_argument("link", config, "json", kUsage, exit_code, *model);
        if (!link.scenario) return exit_code;
    }
    std::cout << shardscope::share_link(base, link) << "\n";
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(link, "print the link that opens a scenario or lesson in the browser page or the app", &run_link);
