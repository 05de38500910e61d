#pragma once
// Reads the shipped cluster presets (assets/clusters/*.json) through core's strict preset reader and
// hands them to the Device mesh panel's preset list: widgets never read files.

#include "widgets/shell/panel.hpp"

#include <string>
#include <vector>

namespace shardscope::app {

// Every file that could not be read or parsed, one line each (the rest still load).
std::vector<std::string> load_cluster_presets(ui::PanelRegistry& registry, const std::string& data_dir);

}  // namespace shardscope::app
