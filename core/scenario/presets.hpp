#pragma once
// Model and cluster presets (assets/models/*.json, assets/clusters/*.json). A preset file is read by
// the same strict reader as a scenario's "model" / "cluster" object, so a preset can never hold a
// field a scenario would reject. Core reads no files: the caller hands over the text.
//
// File layout:
//   { "schema": "shardscope.model-preset/1",   "source": "where every figure comes from", "model": {...} }
//   { "schema": "shardscope.cluster-preset/1", "source": "...",                          "cluster": {...} }

#include "core/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct ModelPreset {
    ModelSpec model;
    std::string source;  // citation of every figure, shown beside the preset
};

struct ClusterPreset {
    ClusterSpec cluster;
    std::string source;
};

// Either a valid preset or an error naming the field path and the rule (as parse_scenario does).
struct ModelPresetLoad {
    std::optional<ModelPreset> preset;
    std::string error;
    [[nodiscard]] bool ok() const noexcept { return preset.has_value(); }
};

struct ClusterPresetLoad {
    std::optional<ClusterPreset> preset;
    std::string error;
    [[nodiscard]] bool ok() const noexcept { return preset.has_value(); }
};

[[nodiscard]] ModelPresetLoad parse_model_preset(std::string_view json_text);

// The name `edited` should carry after a hand edit of `before` (it still has the name it had): its
// own when the edit left the shape as it was (the training length is not shape), else a preset's name
// when the shape is that preset's at any training length, else the name it came from marked
// " (edited)", so 48 layers are never shown as "Llama 3 8B".
[[nodiscard]] std::string model_name_after_edit(const ModelSpec& before, const ModelSpec& edited,
                                                const std::vector<ModelPreset>& presets);
// The name `edited` should carry after a hand edit of `before`, as for models: its own when only the
// node count changed (presets are named by their node, not by how many there are), else a preset's
// name whose node is the edited one, else the name it came from marked " (edited)", so 4 GPUs a node
// are never shown as "DGX H100, 8 per node".
[[nodiscard]] std::string cluster_name_after_edit(const ClusterSpec& before, const ClusterSpec& edited,
                                                  const std::vector<ClusterPreset>& presets);
[[nodiscard]] ClusterPresetLoad parse_cluster_preset(std::string_view json_text);

// Where the app looks for preset files, relative to the data directory (the source tree's root).
inline constexpr std::string_view kModelPresetDir = "assets/models";
inline constexpr std::string_view kClusterPresetDir = "assets/clusters";

}  // namespace shardscope
