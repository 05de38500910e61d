// `shardscope convert --model FILE [--seq-len N] [--config FILE] [-o OUT.json]`: a model preset or a
// Hugging Face config.json turned into a scenario file with no window (the window's --model ...
// --save-as needs a display): the model in the scenario given (or the default one), every rule
// checked. Exit 0; 2 with the reason on stderr for bad arguments or a file that cannot be read or is
// rejected; 1 when the output cannot be written.

#include "app/cli.hpp"
#include "app/command_input.hpp"
#include "app/commands.hpp"
#include "host/file_io.hpp"

#include <iostream>

namespace {

using namespace shardscope;

constexpr const char* kUsage =
    "usage: shardscope convert --model FILE [--seq-len N] [--config FILE] [-o OUT.json]\n"
    "  Writes a scenario file whose model is --model FILE (a Shardscope model preset or a Hugging Face\n"
    "  config.json) and whose cluster, layout and training are --config FILE's scenario (- reads\n"
    "  standard input), or the default scenario's without it. --seq-len N: the length to train at (a config's\n"
    "  max_position_embeddings is a context window, not a training length; without it the scenario's\n"
    "  own), -o OUT.json: the file to write (standard output when absent or -). Needs no display.";

int run_convert(const std::vector<std::string>& args) {
    std::string config, out_path;
    app::ModelFlags model_flags;
    CLI::App parser;
    app::configure_parser(parser);
    parser.add_option("--config", config);
    parser.add_option("-o,--output", out_path);
    app::add_model_flags(parser, model_flags);
    if (const auto exit = app::parse_arguments(parser, args, "convert", kUsage)) return *exit;
    std::string model_error;
    const auto model = app::model_argument(model_flags, model_error, config == "-");
    if (!model) {
        std::cerr << "convert: " << model_error << "\n";
        return 2;
    }
    if (!model->given()) {
        std::cerr << "convert: --model is required\n" << kUsage << "\n";
        return 2;
    }
    int exit_code = 0;
    const auto scenario = app::scenario_argument("convert", config, "json", kUsage, exit_code, *model);
    if (!scenario) return exit_code;
    if (std::string error = host::write_output(out_path.empty() ? "-" : out_path, scenario_to_json(*scenario));
        !error.empty()) {
        std::cerr << "convert: " << error << "\n";
        return 1;
    }
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(convert, "turn a model preset or Hugging Face config.json into a scenario file", &run_convert);
