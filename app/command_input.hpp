#pragma once
// What the printing subcommands (report, plan, export) share: the --format check, the --config scenario
// and the --model / --seq-len override, with the same messages and exit codes everywhere, the window's
// included: 2 for a bad argument or an input file that cannot be read or is rejected (docs/cli.md,
// "Exit codes").

#include "core/scenario/scenario.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::app {

// --model FILE (a Shardscope model preset or a Hugging Face config.json) and --seq-len N.
struct ModelArgument {
    std::string file;
    std::optional<int64_t> seq_len;
    [[nodiscard]] bool given() const noexcept { return !file.empty(); }
};

// The scenario `model` describes after reading its file: the model replaced, the rest kept, every rule
// checked again. nullopt with the reason in `error` ("FILE: field: rule"); `notes` says which sequence
// length was used and what the file held that Shardscope does not price.
std::optional<Scenario> with_model(const Scenario& base, const ModelArgument& model, std::string& error,
                                   std::vector<std::string>& notes);

// --format must be json or text; --config FILE (or, with --model, the default scenario) is read and
// parsed as a scenario, then --model replaces its model. The scenario, or nullopt after printing why
// to stderr (a rejected scenario as "FILE: field: rule"); exit_code then says what the command should
// return. The model's notes go to stderr, so stdout stays the report alone.
std::optional<Scenario> scenario_argument(const std::string& command, const std::string& config,
                                          const std::string& format, const char* usage, int& exit_code,
                                          const ModelArgument& model = {});

// A cluster preset shipped in assets/clusters/ (`file`, e.g. "dgx-h100.json"), or nullopt after
// printing why to stderr under `command`'s name: the published rows, and the planner benchmark built
// on one, run on the presets a user gets.
std::optional<ClusterSpec> shipped_cluster(const std::string& file, const std::string& command);

}  // namespace shardscope::app
