#include "host/cluster_presets.hpp"

#include "host/file_io.hpp"
#include "core/scenario/presets.hpp"
#include "widgets/mesh/mesh_panel.hpp"
#include "widgets/scenario/scenario_panel.hpp"

#include <algorithm>
#include <filesystem>

namespace shardscope::host {

namespace {

// Every *.json of the folder in name order, or the folder's error.
std::vector<std::filesystem::path> json_files(const std::filesystem::path& dir, std::vector<std::string>& errors) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
    if (ec) errors.push_back(dir.string() + ": " + ec.message());
    std::sort(files.begin(), files.end());  // a stable menu order, whatever the file system's
    return files;
}

// Every preset file of the folder that `parse` accepts, in name order; the rest as errors.
template <typename Preset, typename Parse>
std::vector<Preset> read_presets(const std::filesystem::path& dir, Parse parse, std::vector<std::string>& errors) {
    std::vector<Preset> presets;
    for (const auto& path : json_files(dir, errors)) {
        std::string error;
        const auto text = read_text_file(path.string(), error);
        if (!text) {
            errors.push_back(error);
            continue;
        }
        auto load = parse(*text);
        if (!load.ok()) errors.push_back(path.string() + ": " + load.error);
        else presets.push_back(std::move(*load.preset));
    }
    return presets;
}

}  // namespace

std::vector<std::string> load_model_presets(ui::PanelRegistry& registry, const std::string& data_dir) {
    std::vector<std::string> errors;
    auto* panel = dynamic_cast<ui::ScenarioPanel*>(registry.find("scenario"));
    if (!panel) return errors;
    auto presets = read_presets<ModelPreset>(std::filesystem::path(data_dir) / std::string(kModelPresetDir),
                                             parse_model_preset, errors);
    // A count-only preset has no fields for the panel to edit.
    presets.erase(std::remove_if(presets.begin(), presets.end(),
                                 [](const ModelPreset& p) { return !p.model.has_architecture(); }),
                  presets.end());
    panel->set_model_presets(std::move(presets));
    return errors;
}

std::vector<std::string> load_cluster_presets(ui::PanelRegistry& registry, const std::string& data_dir) {
    std::vector<std::string> errors;
    const std::vector<ClusterPreset> presets = read_presets<ClusterPreset>(
        std::filesystem::path(data_dir) / std::string(kClusterPresetDir), parse_cluster_preset, errors);
    // The Device mesh offers them; both it and the Scenario panel name an edited cluster by them.
    if (auto* mesh = dynamic_cast<ui::MeshPanel*>(registry.find("mesh"))) mesh->set_cluster_presets(presets);
    if (auto* scenario = dynamic_cast<ui::ScenarioPanel*>(registry.find("scenario"))) scenario->set_cluster_presets(presets);
    return errors;
}

}  // namespace shardscope::host
