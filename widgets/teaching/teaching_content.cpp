#include "widgets/teaching/teaching_content.hpp"

#include "core/teaching/cheatsheet.hpp"
#include "core/teaching/glossary.hpp"
#include "core/teaching/lesson.hpp"
#include "widgets/teaching/cheatsheet_panel.hpp"
#include "widgets/teaching/glossary_panel.hpp"
#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/teaching/lesson_panel.hpp"

#include <algorithm>
#include <map>
#include <memory>

namespace shardscope::ui {

namespace {
// Which lessons link to each term (by the glossary's spelling), each lesson once at its first step
// that does, in lesson order.
std::map<std::string, std::vector<LessonMention>> lesson_mentions(const Glossary& glossary, const std::vector<Lesson>& lessons) {
    std::map<std::string, std::vector<LessonMention>> out;
    for (const Lesson& lesson : lessons)
        for (size_t k = 0; k < lesson.steps.size(); ++k)
            for (const std::string& term : glossary_links(lesson.steps[k].body)) {
                const GlossaryEntry* e = glossary.find(term);
                if (!e) continue;
                auto& mentions = out[e->term];
                if (std::find(mentions.begin(), mentions.end(), lesson.title) == mentions.end())
                    mentions.push_back({lesson.id, lesson.title, static_cast<int>(k) + 1});
            }
    return out;
}
}  // namespace

std::vector<std::string> install_teaching_content(PanelRegistry& registry, const TeachingTexts& texts) {
    std::vector<std::string> errors;
    if (texts.glossary_read_error.empty()) {
        GlossaryLoad glossary = parse_glossary(texts.glossary_text, texts.glossary_file);
        if (glossary.ok()) set_shared_glossary(std::make_shared<const Glossary>(std::move(*glossary.glossary)));
        else errors.push_back(glossary.error);
        errors.insert(errors.end(), glossary.skipped.begin(), glossary.skipped.end());
    }

    LessonSet lessons = load_lessons(texts.lesson_files);
    errors.insert(errors.end(), lessons.errors.begin(), lessons.errors.end());
    if (auto* panel = dynamic_cast<GlossaryPanel*>(registry.find("glossary")); panel && shared_glossary())
        panel->set_lesson_mentions(lesson_mentions(*shared_glossary(), lessons.lessons));
    if (auto* panel = dynamic_cast<LessonPanel*>(registry.find("lesson"))) panel->set_lessons(std::move(lessons));

    CheatSheetLoad sheet;
    if (texts.cheatsheet_read_error.empty()) {
        sheet = parse_cheatsheet(texts.cheatsheet_text, texts.cheatsheet_file);
        if (!sheet.ok()) errors.push_back(sheet.error);
    } else {
        sheet.error = texts.cheatsheet_read_error;
    }
    if (auto* panel = dynamic_cast<CheatSheetPanel*>(registry.find("cheatsheet")))
        panel->set_sheet(std::move(sheet.sheet), sheet.error);
    return errors;
}

}  // namespace shardscope::ui
