#pragma once
// The one place that knows every panel.

#include "widgets/shell/panel.hpp"

namespace shardscope::ui {

// Every panel of the app, in View-menu order, with the default tiling.
void register_default_panels(PanelRegistry& registry);

}  // namespace shardscope::ui
