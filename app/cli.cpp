#include "app/cli.hpp"

#include "core/scenario/model_import.hpp"

#include <cstdlib>
#include <iostream>

namespace shardscope::app {

namespace {
DeclaredFlags* g_declared = nullptr;  // the one alive, if any (the completions command, one thread)
}  // namespace

DeclaredFlags::DeclaredFlags() { g_declared = this; }
DeclaredFlags::~DeclaredFlags() { g_declared = nullptr; }

bool record_declared_flags(const CLI::App& parser) {
    if (!g_declared) return false;
    for (const CLI::Option* option : parser.get_options()) {
        for (const std::string& name : option->get_lnames()) g_declared->flags.push_back("--" + name);
        for (const std::string& name : option->get_snames()) g_declared->flags.push_back("-" + name);
    }
    return true;
}

void configure_parser(CLI::App& parser) {
    parser.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

std::optional<int> parse_arguments(CLI::App& parser, const std::vector<std::string>& args, const std::string& who,
                                   const std::string& usage) {
    if (record_declared_flags(parser)) return 0;
    // CLI11 takes the arguments last first.
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
        parser.parse(reversed);
        return std::nullopt;
    } catch (const CLI::CallForHelp&) {
        std::cout << usage << "\n";
        return 0;
    } catch (const CLI::ExtrasError&) {
        std::cerr << who << ": " << unexpected_arguments_message(parser.remaining(), takes_config(parser)) << "\n" << usage << "\n";
        return 2;
    } catch (const CLI::ParseError& e) {
        std::cerr << who << ": " << e.what() << "\n" << usage << "\n";
        return 2;
    }
}

bool takes_config(const CLI::App& parser) { return parser.get_option_no_throw("--config") != nullptr; }

std::string unexpected_arguments_message(const std::vector<std::string>& extras, bool takes_config) {
    std::string listed;
    for (const std::string& a : extras) listed += (listed.empty() ? "" : " ") + a;
    std::string message = std::string(extras.size() == 1 ? "this argument was" : "these arguments were") +
                          " not expected: " + listed;
    // A scenario file given bare, where the command reads it after --config.
    if (takes_config && extras.size() == 1 && extras.front().size() > 5 &&
        extras.front().compare(extras.front().size() - 5, 5, ".json") == 0)
        message += " (a scenario file goes after --config: --config " + extras.front() + ")";
    return message;
}

void add_model_flags(CLI::App& parser, ModelFlags& flags) {
    parser.add_option("--model", flags.file, "a model preset or a Hugging Face config.json");
    parser.add_option("--seq-len", flags.seq_len, "the training sequence length for --model");
}

std::optional<ModelArgument> model_argument(const ModelFlags& flags, std::string& error, bool read_from_stdin_elsewhere) {
    ModelArgument model;
    model.file = flags.file;
    if (flags.file == "-" && read_from_stdin_elsewhere) {
        error = "--config - and --model - would both read standard input: give one of them a file";
        return std::nullopt;
    }
    if (flags.seq_len.empty()) return model;
    char* end = nullptr;
    const long long n = std::strtoll(flags.seq_len.c_str(), &end, 10);
    if (*end != '\0' || n < 1 || n > kMaxSeqLen) {
        error = "--seq-len must be a whole number from 1 to " + std::to_string(kMaxSeqLen) + ", got '" + flags.seq_len + "'";
        return std::nullopt;
    }
    if (flags.file.empty()) {
        error = "--seq-len goes with --model FILE";
        return std::nullopt;
    }
    model.seq_len = n;
    return model;
}

}  // namespace shardscope::app
