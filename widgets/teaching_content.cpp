#include "widgets/teaching_content.hpp"

#include "core/cheatsheet.hpp"
#include "core/glossary.hpp"
#include "core/lesson.hpp"
#include "widgets/cheatsheet_panel.hpp"
#include "widgets/glossary_tooltip.hpp"
#include "widgets/lesson_panel.hpp"

#include <memory>

namespace shardscope::ui {

std::vector<std::string> install_teaching_content(PanelRegistry& registry, const TeachingTexts& texts) {
    std::vector<std::string> errors;
    GlossaryLoad glossary = parse_glossary(texts.glossary_text, texts.glossary_file);
    if (glossary.ok()) set_shared_glossary(std::make_shared<const Glossary>(std::move(*glossary.glossary)));
    else errors.push_back(glossary.error);

    LessonSet lessons = load_lessons(texts.lesson_files);
    errors.insert(errors.end(), lessons.errors.begin(), lessons.errors.end());
    if (auto* panel = dynamic_cast<LessonPanel*>(registry.find("lesson"))) panel->set_lessons(std::move(lessons));

    CheatSheetLoad sheet = parse_cheatsheet(texts.cheatsheet_text, texts.cheatsheet_file);
    if (!sheet.ok()) errors.push_back(sheet.error);
    if (auto* panel = dynamic_cast<CheatSheetPanel*>(registry.find("cheatsheet")))
        panel->set_sheet(std::move(sheet.sheet), sheet.error);
    return errors;
}

}  // namespace shardscope::ui
