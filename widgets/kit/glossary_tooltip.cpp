#include "widgets/kit/glossary_tooltip.hpp"

#include <imgui.h>

#include <algorithm>

namespace shardscope::ui {

namespace {

// Read-only after start: the app loads the glossary once and every panel reads it.
std::shared_ptr<const Glossary>& glossary_slot() {
    static std::shared_ptr<const Glossary> slot;
    return slot;
}

const ImVec4 kLinkColour(0.45f, 0.75f, 1.0f, 1.0f);
constexpr float kTooltipWidthEm = 28.0f;  // tooltip text wraps at about 28 font sizes

std::string& last_term_slot() {
    static std::string slot;
    return slot;
}

void draw_definition_tooltip(const std::string& term) {
    last_term_slot() = term;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * kTooltipWidthEm);
    const Glossary* g = shared_glossary();
    const GlossaryEntry* e = g ? g->find(term) : nullptr;
    if (!e) {
        ImGui::TextDisabled("\"%s\" is not in the glossary.", term.c_str());
    } else {
        ImGui::TextColored(kLinkColour, "%s", e->term.c_str());
        ImGui::SameLine();
        ImGui::TextDisabled("(%s)", e->group.c_str());
        ImGui::TextUnformatted(e->definition.c_str());
        if (!e->see_also.empty()) {
            std::string see = "See also: ";
            for (size_t i = 0; i < e->see_also.size(); ++i) see += (i ? ", " : "") + e->see_also[i];
            ImGui::TextDisabled("%s", see.c_str());
        }
    }
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

}  // namespace

void set_shared_glossary(std::shared_ptr<const Glossary> glossary) { glossary_slot() = std::move(glossary); }
const Glossary* shared_glossary() { return glossary_slot().get(); }

void glossary_tooltip_for_last_item(std::string_view term) {
    if (ImGui::IsItemHovered()) draw_definition_tooltip(std::string(term));
}

const std::string& last_tooltip_term() { return last_term_slot(); }

bool glossary_term_label(const std::string& shown, const std::string& term) {
    ImGui::TextColored(kLinkColour, "%s", shown.c_str());
    const bool hovered = ImGui::IsItemHovered();
    if (hovered) {
        const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
        ImGui::GetWindowDrawList()->AddLine(ImVec2(min.x, max.y), max, ImGui::GetColorU32(kLinkColour));
        draw_definition_tooltip(term);
    }
    return hovered && ImGui::IsMouseClicked(0);
}

void glossary_help_marker(const std::string& term) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    glossary_tooltip_for_last_item(term);
}

std::vector<std::string> TextFlowLayout::linked_terms() const {
    std::vector<std::string> out;
    std::string previous;
    for (const FlowWord& w : words) {
        if (!w.term.empty() && w.term != previous) out.push_back(w.term);
        previous = w.term;
    }
    return out;
}

namespace {

// Splits text into words that keep their trailing spaces, and "\n" as words of their own.
std::vector<std::string> split_words(const std::string& text) {
    std::vector<std::string> words;
    std::string current;
    for (char c : text) {
        if (c == '\n') {
            if (!current.empty()) words.push_back(current);
            words.emplace_back("\n");
            current.clear();
        } else if (c == ' ') {
            current.push_back(c);
            words.push_back(current);
            current.clear();
        } else {
            current.push_back(c);
        }
    }
    if (!current.empty()) words.push_back(current);
    return words;
}

}  // namespace

TextFlowLayout layout_text_flow(const std::vector<BodySpan>& spans, float wrap_width, float line_height,
                                const std::function<float(const std::string&)>& measure) {
    TextFlowLayout layout;
    float x = 0, y = 0;
    for (const BodySpan& span : spans) {
        for (const std::string& word : split_words(span.text)) {
            if (word == "\n") {
                x = 0;
                y += line_height;
                continue;
            }
            const float w = measure(word);
            // A word's trailing space may hang past the edge; only its letters must fit.
            std::string letters = word;
            while (!letters.empty() && letters.back() == ' ') letters.pop_back();
            if (x > 0 && x + measure(letters) > wrap_width) {
                x = 0;
                y += line_height;
            }
            if (x == 0 && word == " ") continue;  // no space at the start of a line
            layout.words.push_back(FlowWord{word, span.term, x, y, w});
            x += w;
        }
    }
    layout.height = layout.words.empty() && y == 0 ? 0 : y + line_height;
    return layout;
}

std::string draw_text_flow(const TextFlowLayout& layout) {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 text_colour = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 link_colour = ImGui::GetColorU32(kLinkColour);
    const float font = ImGui::GetFontSize();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const bool window_hovered = ImGui::IsWindowHovered();
    std::string hovered_term, clicked;
    for (size_t i = 0; i < layout.words.size(); ++i) {
        const FlowWord& w = layout.words[i];
        const ImVec2 p(origin.x + w.x, origin.y + w.y);
        const bool link = !w.term.empty();
        dl->AddText(p, link ? link_colour : text_colour, w.text.c_str());
        if (!link) continue;
        // One underline under a link of several words: the space goes under it too, unless the link
        // ends here or wraps to the next line.
        const bool continues = i + 1 < layout.words.size() && layout.words[i + 1].term == w.term &&
                               layout.words[i + 1].y == w.y;
        std::string letters = w.text;
        if (!continues)
            while (!letters.empty() && letters.back() == ' ') letters.pop_back();
        const float underline_w = continues ? w.width : ImGui::CalcTextSize(letters.c_str()).x;
        dl->AddLine(ImVec2(p.x, p.y + font), ImVec2(p.x + underline_w, p.y + font), link_colour);
        const bool over = window_hovered && mouse.x >= p.x && mouse.x < p.x + w.width && mouse.y >= p.y &&
                          mouse.y < p.y + font + 2;
        if (over) hovered_term = w.term;
    }
    ImGui::Dummy(ImVec2(std::max(1.0f, ImGui::GetContentRegionAvail().x), layout.height));
    if (!hovered_term.empty()) {
        draw_definition_tooltip(hovered_term);
        if (ImGui::IsMouseClicked(0)) clicked = hovered_term;
    }
    return clicked;
}

}  // namespace shardscope::ui
