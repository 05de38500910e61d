// `shardscope report --config FILE [--model FILE [--seq-len N]] [--format json|text|csv] [--trace OUT.json]`:
// the cost of one scenario (docs/design.md, "The report"); --model replaces its model with a preset or a
// Hugging Face config.json (without --config, in the default scenario); --trace also writes the simulated
// step as a Chrome trace (core/export/step_trace.hpp); --trace - puts the trace alone on stdout. Exit 0 with the report on stdout; 2 with the reason
// on stderr for bad arguments, a scenario or model file that cannot be read or is rejected, or a step
// with no times to trace; 1 when the trace cannot be written.

#include "app/cli.hpp"
#include "app/command_input.hpp"
#include "app/commands.hpp"
#include "host/file_io.hpp"
#include "core/export/step_trace.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/report.hpp"

#include "core/export/table_csv.hpp"

#include <iostream>

namespace {

constexpr const char* kUsage = "usage: shardscope report --config FILE [--model FILE [--seq-len N]] [--format json|text|csv]\n"
    "                         [--trace OUT.json]\n"
    "  Prices one scenario: memory per GPU, what each mesh dim sends and how much of it stays exposed,\n"
    "  the step (compute, exposed communication, pipeline bubble), throughput and MFU, with notes that\n"
    "  name the conventions (FLOP numerator, attention kernel, runtime reserve).\n"
    "  --config FILE: the scenario (- reads standard input), --model FILE: a model preset or Hugging Face\n"
    "  config.json in place of the scenario's model, --seq-len N: its sequence length, --format: json\n"
    "  (the default, shardscope.report/1: bytes and seconds), text (GiB and readable times) or csv (the\n"
    "  busiest GPU's compute by operation, one row each, longest first, seconds per step), --trace\n"
    "  OUT.json: also write the simulated step as a Chrome trace (chrome://tracing or Perfetto; - writes\n"
    "  the trace alone to standard output, in place of the report)";

int run_report(const std::vector<std::string>& args) {
    std::string config, trace_path;
    std::string format = "json";
    shardscope::app::ModelFlags model_flags;
    CLI::App parser;
    shardscope::app::configure_parser(parser);
    parser.add_option("--config", config);
    parser.add_option("--format", format);
    parser.add_option("--trace", trace_path);
    shardscope::app::add_model_flags(parser, model_flags);
    if (const auto exit = shardscope::app::parse_arguments(parser, args, "report", kUsage)) return *exit;
    std::string model_error;
    const auto model = shardscope::app::model_argument(model_flags, model_error, config == "-");
    if (!model) {
        std::cerr << "report: " << model_error << "\n";
        return 2;
    }
    const bool csv = format == "csv";
    if (!csv && format != "json" && format != "text") {
        std::cerr << "report: --format must be json, text or csv, got '" << format << "'\n";
        return 2;
    }
    int exit_code = 0;
    const auto scenario = shardscope::app::scenario_argument("report", config, csv ? "text" : format, kUsage, exit_code, *model);
    if (!scenario) return exit_code;
    const shardscope::Report report = shardscope::build_report(*scenario);
    if (!trace_path.empty()) {
        const shardscope::StepTrace trace = shardscope::step_trace(report);
        if (!trace.ok()) {
            std::cerr << "report: --trace: " << trace.error << "\n";
            return 2;
        }
        if (!trace.note.empty()) std::cerr << "report: --trace: " << trace.note << "\n";
        if (std::string error = shardscope::host::write_output(trace_path, trace.json); !error.empty()) {
            std::cerr << "report: --trace: " << error << "\n";
            return 1;
        }
        // Standard output holds one document: with --trace - it is the trace, and the report is not
        // printed after it (a reader of the trace would take two documents as one broken one).
        if (trace_path == shardscope::host::kStandardStream) return 0;
    }
    if (csv) {
        if (!report.breakdown) {
            std::cerr << "report: --format csv: " << "a model given as a parameter count has no operations to break down\n";
            return 2;
        }
        std::cout << shardscope::breakdown_csv(report);
        return 0;
    }
    std::cout << (format == "json" ? shardscope::report_to_json(report) : shardscope::report_to_text(report));
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(report, "print the cost of one scenario: memory, step time, MFU", &run_report);
