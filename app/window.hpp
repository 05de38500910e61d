#pragma once
#include "app/options.hpp"

namespace shardscope::app {
// Opens the window and runs until closed; with --screenshot renders, saves and returns.
// Returns the process exit code.
int run_window(const Options& options);
}  // namespace shardscope::app
