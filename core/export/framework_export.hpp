#pragma once
// A scenario written out for the frameworks that run it: Megatron-LM command-line flags, a TorchTitan
// Python config (or, for its releases up to 0.2.2, a job TOML), a DeepSpeed ds_config.json, and the
// nccl-tests commands that time each mesh dim's collectives at the sizes the layout sends. Flag and key
// names are those of a pinned commit of each, named in the output and kept under tests/frameworks/
// (Megatron-LM's megatron/training/arguments.py, TorchTitan's torchtitan/config/configs.py,
// DeepSpeed's configuration docs, nccl-tests' binaries). Where the layout has no equivalent in a
// framework, no flag is guessed: a warning says so, as a comment line in the text (not in JSON, which
// has none) and in `warnings` for the caller to print.

#include "core/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

enum class ExportTarget { megatron, torchtitan, torchtitan_toml, deepspeed, nccl_tests };

[[nodiscard]] std::string_view to_string(ExportTarget t) noexcept;  // "megatron", "torchtitan", ..., "nccl-tests"
[[nodiscard]] std::optional<ExportTarget> export_target_from_string(std::string_view s) noexcept;
[[nodiscard]] const std::vector<ExportTarget>& export_targets();

struct FrameworkExport {
    std::string text;                   // ready to paste or save, ending in a newline
    std::vector<std::string> warnings;  // what has no equivalent there, one line each
    std::string refused;                // why nothing could be written for this target ("" when text is)
};

// The scenario must be valid (validate_scenario).
[[nodiscard]] FrameworkExport export_scenario(const Scenario& s, ExportTarget target);

}  // namespace shardscope
