// `shardscope export --config FILE --to megatron|torchtitan|deepspeed|nccl-tests [--model FILE
// [--seq-len N]] [-o OUT]`: the scenario written for the framework that runs it
// (core/export/framework_export.hpp). What has no equivalent there goes to stderr as well as into the
// text's comments. Exit 0; 2 with the reason on stderr for bad arguments or a rejected scenario.

#include "app/command_input.hpp"
#include "app/commands.hpp"
#include "app/file_io.hpp"
#include "core/export/framework_export.hpp"

#include <iostream>

namespace {

using namespace shardscope;

constexpr const char* kUsage =
    "usage: shardscope export --config FILE --to megatron|torchtitan|deepspeed|nccl-tests\n"
    "                         [--model FILE [--seq-len N]] [-o OUT]";

int run_export(const std::vector<std::string>& args) {
    std::string config, out_path;
    std::optional<ExportTarget> target;
    app::ModelArgument model;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool has_value = i + 1 < args.size();
        if (a == "--config" && has_value) {
            config = args[++i];
        } else if (a == "--to" && has_value) {
            target = export_target_from_string(args[++i]);
            if (!target) {
                std::cerr << "export: --to must be megatron, torchtitan, deepspeed or nccl-tests, got '" << args[i] << "'\n";
                return 2;
            }
        } else if ((a == "-o" || a == "--output") && has_value) {
            out_path = args[++i];
        } else if (std::string model_error; app::take_model_flag(args, i, model, model_error)) {
            if (!model_error.empty()) {
                std::cerr << "export: " << model_error << "\n";
                return 2;
            }
        } else if (a == "--help" || a == "-h") {
            std::cout << kUsage << "\n";
            return 0;
        } else {
            std::cerr << "export: unexpected argument '" << a << "'\n" << kUsage << "\n";
            return 2;
        }
    }
    if (!target) {
        std::cerr << "export: --to is required\n" << kUsage << "\n";
        return 2;
    }
    int exit_code = 0;
    const auto scenario = app::scenario_argument("export", config, "text", kUsage, exit_code, model);
    if (!scenario) return exit_code;
    const FrameworkExport e = export_scenario(*scenario, *target);
    for (const std::string& w : e.warnings) std::cerr << "export: " << w << "\n";
    if (out_path.empty()) {
        std::cout << e.text;
        return 0;
    }
    if (std::string error = app::write_file_atomically(out_path, e.text); !error.empty()) {
        std::cerr << "export: " << error << "\n";
        return 1;
    }
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(export, "write the scenario for Megatron-LM, TorchTitan, DeepSpeed or nccl-tests: export --config FILE "
                           "--to megatron|torchtitan|deepspeed|nccl-tests",
                   &run_export);
