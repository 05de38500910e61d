// `shardscope validate [--format text|json] [--scenario NAME]`: the built-in suite of published training runs
// (core/model/validation_suite.hpp), published vs predicted TFLOP/s per GPU and fraction of peak, with the
// error of each row, on the shipped cluster presets. Exit 0 when it ran (the table is the result, not
// a pass/fail gate), 1 when a shipped preset cannot be read. --scenario prints one row's scenario as a
// scenario file, so a person can open exactly what the row priced (and change it).

#include "app/cli.hpp"
#include "app/command_input.hpp"
#include "app/commands.hpp"
#include "core/model/validation_suite.hpp"

#include <iostream>
#include <optional>

namespace {

constexpr const char* kUsage =
    "usage: shardscope validate [--format text|json] [--scenario NAME]\n"
    "  Prices published training runs (Megatron-LM, MT-NLG, Llama 3, Korthikanti et al., torchtitan,\n"
    "  fms-fsdp, NeMo, DeepSeek-V3) with the shipped cluster presets and defaults, what a user gets, and\n"
    "  sets each beside its published TFLOP/s per GPU and share of peak. Rows whose source was read while\n"
    "  the model's constants were chosen are marked in-sample. --format: text (the default) or json.\n"
    "  --scenario NAME prints the scenario file of the row named NAME (as the table names it; spaces\n"
    "  count once), to open with `shardscope report --config FILE` or in the window";

// Row names line up columns with runs of spaces; a person types one.
std::string squeezed(const std::string& name) {
    std::string out;
    for (char c : name)
        if (!(c == ' ' && (out.empty() || out.back() == ' '))) out.push_back(c);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

int print_row_scenario(const std::vector<shardscope::PublishedRun>& runs, const std::string& wanted) {
    for (const auto& run : runs)
        if (squeezed(run.name) == squeezed(wanted)) {
            std::cout << shardscope::scenario_to_json(run.scenario);
            return 0;
        }
    std::cerr << "validate: --scenario: no row is named '" << wanted << "'; the rows are:\n";
    for (const auto& run : runs) std::cerr << "  " << squeezed(run.name) << "\n";
    return 2;
}

int run_validate(const std::vector<std::string>& args) {
    std::string format = "text";
    std::string scenario_of;
    CLI::App parser;
    shardscope::app::configure_parser(parser);
    parser.add_option("--format", format);
    parser.add_option("--scenario", scenario_of);
    if (const auto exit = shardscope::app::parse_arguments(parser, args, "validate", kUsage))
        return *exit;
    if (format != "text" && format != "json") {
        std::cerr << "validate: --format must be text or json, got '" << format << "'\n";
        return 2;
    }
    // The rows run on the presets a user gets, not on constants of their own.
    const auto a100 = shardscope::app::shipped_cluster("dgx-a100-80gb.json", "validate");
    const auto h100 = shardscope::app::shipped_cluster("dgx-h100.json", "validate");
    if (!a100 || !h100) return 1;
    if (!scenario_of.empty()) return print_row_scenario(shardscope::published_runs({*a100, *h100}), scenario_of);
    const auto rows = shardscope::run_validation_suite({*a100, *h100});
    std::cout << (format == "json" ? shardscope::validation_table_json(rows)
                                   : shardscope::validation_table_text(rows));
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(validate, "compare the cost model with published training runs", &run_validate);
