#include "host/teaching_files.hpp"

#include "host/file_io.hpp"
#include "widgets/teaching/lesson_panel.hpp"
#include "widgets/teaching/teaching_content.hpp"

#include <filesystem>

namespace shardscope::host {

namespace fs = std::filesystem;

namespace {

// lessons/*.json under data_dir as (name, text) pairs; what cannot be read is reported in `errors`.
std::vector<std::pair<std::string, std::string>> lesson_files(const std::string& data_dir,
                                                              std::vector<std::string>& errors) {
    std::vector<std::pair<std::string, std::string>> files;
    std::error_code ec;
    const fs::path lessons = fs::path(data_dir) / "lessons";
    for (const auto& entry : fs::directory_iterator(lessons, ec)) {
        if (entry.path().extension() != ".json") continue;
        std::string error;
        if (auto text = read_text_file(entry.path().string(), error))
            files.emplace_back("lessons/" + entry.path().filename().string(), std::move(*text));
        else
            errors.push_back(error);
    }
    if (ec) errors.push_back(lessons.string() + ": " + ec.message());
    return files;
}

}  // namespace

std::vector<Lesson> shipped_lessons(const std::string& data_dir) {
    std::vector<std::string> unread;  // a lesson that cannot be read is simply not among them
    return load_lessons(lesson_files(data_dir, unread)).lessons;
}

std::vector<std::string> load_teaching_files(ui::PanelRegistry& registry, const std::string& data_dir) {
    std::vector<std::string> errors;
    ui::TeachingTexts texts;
    // Reports a file that cannot be read once, here, and returns the reason ("" when read).
    const auto read = [&](const fs::path& path, std::string& into) {
        std::string error;
        if (auto text = read_text_file(path.string(), error)) into = std::move(*text);
        else errors.push_back(error);
        return error;
    };
    texts.lesson_files = lesson_files(data_dir, errors);
    texts.glossary_file = "assets/glossary.json";
    texts.glossary_read_error = read(fs::path(data_dir) / texts.glossary_file, texts.glossary_text);
    texts.cheatsheet_file = "assets/cheatsheet.json";
    texts.cheatsheet_read_error = read(fs::path(data_dir) / texts.cheatsheet_file, texts.cheatsheet_text);
    const std::vector<std::string> parse_errors = ui::install_teaching_content(registry, texts);
    errors.insert(errors.end(), parse_errors.begin(), parse_errors.end());
    return errors;
}

std::string open_requested_lesson(ui::PanelRegistry& registry, ui::AppState& state) {
    if (state.ui.requested_lesson.empty()) return {};
    auto* panel = dynamic_cast<ui::LessonPanel*>(registry.find("lesson"));
    if (!panel) return "the lesson panel is missing";
    panel->open = true;
    return panel->open_lesson(state, state.ui.requested_lesson, state.ui.requested_step);
}

}  // namespace shardscope::host
