#pragma once
// The window's command line: shardscope [--config FILE] [--model FILE [--seq-len N]] [--lesson ID] [--step K] [--frames N]
//                                       [--size WxH] [--screenshot OUT.png] [--save-as FILE.json]
//                                       [--show ID[,ID]] [--action ID.NAME=VALUE]...

#include "core/scenario/scenario.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::app {

struct Options {
    std::string config;           // scenario to open instead of the default
    std::string model;            // --model FILE: a model preset or Hugging Face config.json to import
    std::optional<int64_t> seq_len;  // --seq-len N with --model
    std::string lesson;           // lesson id to open
    int step = 1;                 // lesson step (1-based)
    int frames = 6;               // frames rendered before --screenshot captures: lets the layout settle
    int width = 0, height = 0;    // window size; 0 = from the monitor
    std::string screenshot;       // render, write this PNG, exit
    std::string save_as;          // write the (loaded) scenario here; alone (no --screenshot), then exit, no window
    std::vector<std::string> show;     // --show ID[,ID]: open only these panels, side by side
    std::vector<std::string> actions;  // --action ID.NAME=VALUE, in order (repeatable)
    std::optional<Scenario> link_scenario;  // the scenario a --link URL carries
    std::string ui_probe;         // --ui-probe FILE: each frame, the windows' and named widgets' rectangles
    bool help = false;
    bool version = false;
    bool list_actions = false;  // `--action list`: print every panel's actions and exit
};

// nullopt with `error` naming the flag and what is wrong.
std::optional<Options> parse_options(const std::vector<std::string>& args, std::string& error);
std::string usage_text();

}  // namespace shardscope::app
