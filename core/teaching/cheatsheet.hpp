#pragma once
// The cheat sheet (assets/cheatsheet.json): one row per strategy, what it splits, what it sends, what
// it costs and when to reach for it, plus a small scenario that shows it (a partial scenario merged
// into default_scenario(), like a lesson step's).
//
// File: { "schema": "shardscope.cheatsheet/1",
//         "rows": [ { "strategy": "Data parallel (DDP)", "splits": "...", "communication": "...",
//                     "cost": "...", "reach_for_it_when": "...", "panel": "mesh",
//                     "scenario": { "parallel": { ... } } } ] }

#include "core/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

inline constexpr std::string_view kCheatSheetSchema = "shardscope.cheatsheet/1";

struct CheatSheetRow {
    std::string strategy;
    std::string splits;
    std::string communication;
    std::string cost;
    std::string reach_for_it_when;
    std::string panel;     // the panel that shows the strategy best ("" none)
    Scenario scenario;     // default_scenario() with the row's changes
};

struct CheatSheet {
    std::vector<CheatSheetRow> rows;
};

struct CheatSheetLoad {
    std::optional<CheatSheet> sheet;
    std::string error;
    [[nodiscard]] bool ok() const noexcept { return sheet.has_value(); }
};

[[nodiscard]] CheatSheetLoad parse_cheatsheet(std::string_view json_text, const std::string& file);

}  // namespace shardscope
