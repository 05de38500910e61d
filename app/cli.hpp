#pragma once
// Every command line of Shardscope is read by CLI11 (Debian's libcli11-dev), so all of them follow the
// GNU/POSIX conventions alike: `--opt value` and `--opt=value`, glued short options (`-b8`), `-h` and
// `--help` (usage on stdout, exit 0), the last of a repeated option winning, and one shape of error
// ("CMD: what was wrong", then the usage, on stderr, exit 2). Values are taken as text and checked by
// the command itself, whose messages name the flag and the rule.

#include "app/command_input.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace shardscope::app {

// A parser for `shardscope NAME` (or the window when NAME is empty) with those conventions set.
void configure_parser(CLI::App& parser);

// Parses args (what follows the command's name). nullopt: parsed, go on; otherwise the exit code,
// after printing the usage (help asked: 0) or the error and the usage (2). `who` prefixes errors.
std::optional<int> parse_arguments(CLI::App& parser, const std::vector<std::string>& args, const std::string& who,
                                   const std::string& usage);

// While a DeclaredFlags is alive, parse_arguments (and the window's option parser) record the flags
// their parser declares, parse nothing and stop the command (exit 0): `shardscope completions` is made
// from the parsers themselves this way, so a flag added to a command is completed with no second list.
struct DeclaredFlags {
    DeclaredFlags();
    ~DeclaredFlags();
    DeclaredFlags(const DeclaredFlags&) = delete;
    DeclaredFlags& operator=(const DeclaredFlags&) = delete;
    std::vector<std::string> flags;  // "--config", "-o", ... as declared
};
// True, with the parser's flags recorded, when a DeclaredFlags is alive: the caller stops there.
[[nodiscard]] bool record_declared_flags(const CLI::App& parser);

// "these arguments were not expected: a b" in the order they were typed, and for a lone *.json given
// to a command that reads --config FILE, where the file goes.
[[nodiscard]] std::string unexpected_arguments_message(const std::vector<std::string>& extras, bool takes_config);
[[nodiscard]] bool takes_config(const CLI::App& parser);

// --model FILE and --seq-len N, as text until model_argument() checks them.
struct ModelFlags {
    std::string file, seq_len;
};
void add_model_flags(CLI::App& parser, ModelFlags& flags);
// The model the flags name, or nullopt with `error` naming the flag and its rule. Standard input is
// read once: `--model -` is refused when the scenario comes from it too.
std::optional<ModelArgument> model_argument(const ModelFlags& flags, std::string& error, bool read_from_stdin_elsewhere);

}  // namespace shardscope::app
