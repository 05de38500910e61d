// `shardscope export --config FILE --to megatron|torchtitan|torchtitan-toml|deepspeed|nccl-tests [--model FILE
// [--seq-len N]] [-o OUT]`: the scenario written for the framework that runs it
// (core/export/framework_export.hpp). What has no equivalent there goes to stderr as well as into the
// text's comments. Exit 0; 2 with the reason on stderr for bad arguments or a rejected scenario.

#include "app/cli.hpp"
#include "app/command_input.hpp"
#include "app/commands.hpp"
#include "host/file_io.hpp"
#include "core/export/framework_export.hpp"

#include <iostream>

namespace {

using namespace shardscope;

constexpr const char* kUsage =
    "usage: shardscope export --config FILE --to megatron|torchtitan|torchtitan-toml|deepspeed|nccl-tests\n"
    "                         [--model FILE [--seq-len N]] [-o OUT]\n"
    "  Writes the scenario's layout for a framework to run (--to): Megatron-LM's command-line flags, a\n"
    "  TorchTitan config (a Python module, as today's TorchTitan runs them; torchtitan-toml: the job TOML\n"
    "  of its releases up to 0.2.2), a DeepSpeed config (JSON), or the nccl-tests command lines that time\n"
    "  each collective the step makes at its message size. What the target cannot express, or runs\n"
    "  differently from what Shardscope priced, is said on standard error, a line each.\n"
    "  --config FILE: the scenario (- reads standard input), --model FILE and --seq-len N as for report,\n"
    "  -o OUT: the file to write (standard output when absent or -)";

int run_export(const std::vector<std::string>& args) {
    std::string config, out_path, target_name;
    app::ModelFlags model_flags;
    CLI::App parser;
    app::configure_parser(parser);
    parser.add_option("--config", config);
    parser.add_option("--to", target_name);
    parser.add_option("-o,--output", out_path);
    app::add_model_flags(parser, model_flags);
    if (const auto exit = app::parse_arguments(parser, args, "export", kUsage)) return *exit;
    if (target_name.empty()) {
        std::cerr << "export: --to is required\n" << kUsage << "\n";
        return 2;
    }
    const std::optional<ExportTarget> target = export_target_from_string(target_name);
    if (!target) {
        std::cerr << "export: --to must be megatron, torchtitan, torchtitan-toml, deepspeed or nccl-tests, got '" << target_name
                  << "'\n";
        return 2;
    }
    std::string model_error;
    const auto model = app::model_argument(model_flags, model_error, config == "-");
    if (!model) {
        std::cerr << "export: " << model_error << "\n";
        return 2;
    }
    int exit_code = 0;
    const auto scenario = app::scenario_argument("export", config, "text", kUsage, exit_code, *model);
    if (!scenario) return exit_code;
    const FrameworkExport e = export_scenario(*scenario, *target);
    if (!e.refused.empty()) {
        std::cerr << "export: " << e.refused << "\n";
        return 2;
    }
    for (const std::string& w : e.warnings) std::cerr << "export: " << w << "\n";
    if (std::string error = host::write_output(out_path.empty() ? "-" : out_path, e.text); !error.empty()) {
        std::cerr << "export: " << error << "\n";
        return 1;
    }
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(export, "write the scenario for Megatron-LM, TorchTitan, DeepSpeed or nccl-tests", &run_export);
