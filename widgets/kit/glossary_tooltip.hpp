#pragma once
// Glossary definitions anywhere in the UI: the glossary the app loaded at start is shared here so any
// panel can show a term's definition on hover, and lesson bodies can flow text with inline links.
//
// Text flow is drawn in two passes: layout_text_flow() turns body spans into positioned words (plain
// or linked: the records tests read), draw_text_flow() paints them and shows a link's definition.

#include "core/teaching/glossary.hpp"
#include "core/teaching/lesson.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope::ui {

// The glossary every tooltip reads (nullptr until the app or a test sets it).
void set_shared_glossary(std::shared_ptr<const Glossary> glossary);
[[nodiscard]] const Glossary* shared_glossary();

// When the last item is hovered, a tooltip with the term's definition (or "not in the glossary").
void glossary_tooltip_for_last_item(std::string_view term);
// The term whose definition tooltip was drawn last ("" before any): what a hover showed, for tests.
[[nodiscard]] const std::string& last_tooltip_term();
// A term drawn as a link-coloured label with the definition on hover; true when clicked.
bool glossary_term_label(const std::string& shown, const std::string& term);
// A small "(?)" after the last item that explains a term on hover: for labels in other panels.
void glossary_help_marker(const std::string& term);

// One word (with its trailing space) placed in the text flow, relative to the flow's top-left corner.
struct FlowWord {
    std::string text;
    std::string term;   // glossary term when the word is part of a link
    float x = 0, y = 0, width = 0;
};

struct TextFlowLayout {
    std::vector<FlowWord> words;
    float height = 0;
    [[nodiscard]] std::vector<std::string> linked_terms() const;  // in order, one per link word run
};

// Lays out spans into lines no wider than wrap_width; "\n" starts a new line, "\n\n" a paragraph.
// measure(text) gives a word's width; line_height the distance between lines.
[[nodiscard]] TextFlowLayout layout_text_flow(const std::vector<BodySpan>& spans, float wrap_width, float line_height,
                                              const std::function<float(const std::string&)>& measure);
// Paints a layout at the cursor with ImGui's current font and reserves its space. Returns the term of
// a link clicked this frame ("" otherwise).
std::string draw_text_flow(const TextFlowLayout& layout);

}  // namespace shardscope::ui
