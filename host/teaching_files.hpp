#pragma once
// Reads the shipped lessons (lessons/*.json), glossary (assets/glossary.json) and cheat sheet
// (assets/cheatsheet.json) from data_dir() and hands them to the panels; opens --lesson ID --step K.

#include "core/teaching/lesson.hpp"
#include "widgets/shell/app_state.hpp"
#include "widgets/shell/panel.hpp"

#include <string>
#include <vector>

namespace shardscope::host {

// Every file that could not be read or parsed, one line each (the rest still load).
std::vector<std::string> load_teaching_files(ui::PanelRegistry& registry, const std::string& data_dir);

// The shipped lessons as core reads them (lessons/*.json under data_dir), bad files left out.
std::vector<Lesson> shipped_lessons(const std::string& data_dir);

// --lesson ID [--step K]: opens the lesson panel there. "" or why not (unknown lesson, step out of range).
std::string open_requested_lesson(ui::PanelRegistry& registry, ui::AppState& state);

}  // namespace shardscope::host
