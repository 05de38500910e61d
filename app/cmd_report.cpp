// `shardscope report --config FILE [--model FILE [--seq-len N]] [--format json|text]`: the cost of one
// scenario (DESIGN.md, "The report"); --model replaces its model with a preset or a Hugging Face config.json
// (without --config, in the default scenario). Exit 0 with the report on stdout; 2 with the reason on
// stderr for bad arguments or a scenario or model file that cannot be read or is rejected.

#include "app/command_input.hpp"
#include "app/commands.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/report.hpp"

#include <iostream>

namespace {

constexpr const char* kUsage = "usage: shardscope report --config FILE [--model FILE [--seq-len N]] [--format json|text]";

int run_report(const std::vector<std::string>& args) {
    std::string config;
    std::string format = "json";
    shardscope::app::ModelArgument model;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool has_value = i + 1 < args.size();
        if (a == "--config" && has_value) {
            config = args[++i];
        } else if (a == "--format" && has_value) {
            format = args[++i];
        } else if (std::string model_error; shardscope::app::take_model_flag(args, i, model, model_error)) {
            if (!model_error.empty()) {
                std::cerr << "report: " << model_error << "\n";
                return 2;
            }
        } else if (a == "--help" || a == "-h") {
            std::cout << kUsage << "\n";
            return 0;
        } else {
            std::cerr << "report: unexpected argument '" << a << "'\n" << kUsage << "\n";
            return 2;
        }
    }
    int exit_code = 0;
    const auto scenario = shardscope::app::scenario_argument("report", config, format, kUsage, exit_code, model);
    if (!scenario) return exit_code;
    const shardscope::Report report = shardscope::build_report(*scenario);
    std::cout << (format == "json" ? shardscope::report_to_json(report) : shardscope::report_to_text(report));
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(report, "print the cost of one scenario: report --config FILE [--format json|text]", &run_report);
