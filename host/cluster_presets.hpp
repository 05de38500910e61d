#pragma once
// Reads the shipped cluster and model presets (assets/clusters, assets/models) through core's strict
// preset reader and hands them to the Device mesh and Scenario panels: widgets never read files.

#include "widgets/shell/panel.hpp"

#include <string>
#include <vector>

namespace shardscope::host {

// Every file that could not be read or parsed, one line each (the rest still load).
std::vector<std::string> load_cluster_presets(ui::PanelRegistry& registry, const std::string& data_dir);
// The same for the model presets (assets/models/*.json), for the Scenario panel's list.
std::vector<std::string> load_model_presets(ui::PanelRegistry& registry, const std::string& data_dir);

}  // namespace shardscope::host
