#pragma once
// Lessons, glossary and cheat sheet arrive as text (the app reads the files, tests read the source
// tree) and are parsed by core, then handed to the panels that show them.

#include "widgets/shell/panel.hpp"

#include <string>
#include <utility>
#include <vector>

namespace shardscope::ui {

struct TeachingTexts {
    std::vector<std::pair<std::string, std::string>> lesson_files;  // (file name, text)
    std::string glossary_file, glossary_text;
    std::string cheatsheet_file, cheatsheet_text;
    // Why a file could not be read at all, which whoever read it has already reported: its text is
    // then not parsed (an empty text is no news), and the cheat sheet panel shows the reason.
    std::string glossary_read_error, cheatsheet_read_error;
};

// Parses everything and gives it to the lesson, glossary and cheat sheet panels (and to the shared
// glossary every tooltip reads). Returns every load error, one line each; what loaded is installed.
std::vector<std::string> install_teaching_content(PanelRegistry& registry, const TeachingTexts& texts);

}  // namespace shardscope::ui
