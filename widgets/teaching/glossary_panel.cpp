#include "widgets/teaching/glossary_panel.hpp"

#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstring>

namespace shardscope::ui {

namespace {
const ImVec4 kTermColour(0.45f, 0.75f, 1.0f, 1.0f);
const ImVec4 kGroupColour(1.0f, 0.75f, 0.10f, 1.0f);
constexpr float kListShare = 0.28f;     // the term list's share of the panel width, at least
constexpr float kListMaxShare = 0.45f;  // and at most, however long the longest term
constexpr float kReadingWidthEm = 48.0f;  // definitions wrap at a comfortable line length

// The first sentence of a definition: a one-line preview next to a cross-link.
std::string first_sentence(const std::string& text) {
    const size_t end = text.find(". ");
    return end == std::string::npos ? text : text.substr(0, end + 1);
}

// Cuts text at a word boundary so it fits in `width` pixels, ending in "..." when cut.
std::string fit_to_width(const std::string& text, float width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
    std::string cut = text;
    while (!cut.empty() && ImGui::CalcTextSize((cut + "...").c_str()).x > width) {
        const size_t space = cut.find_last_of(' ');
        cut.resize(space == std::string::npos ? 0 : space);
    }
    return cut.empty() ? std::string() : cut + "...";
}
}  // namespace

GlossaryPanel::GlossaryPanel(PanelRegistry& registry, Placement placement)
    : Panel("glossary", "Glossary", placement, false), registry_(registry) {
    declare_actions();
}

bool GlossaryPanel::select(const std::string& term) {
    const Glossary* g = shared_glossary();
    const GlossaryEntry* e = g ? g->find(term) : nullptr;
    if (!e) return false;
    selected_ = int(e - g->entries().data());
    scroll_to_selected_ = true;
    // A cross-link to a term the filter hides clears the filter, so the term shows in the list.
    const std::vector<size_t> hits = g->search(search_.data());
    if (std::find(hits.begin(), hits.end(), size_t(selected_)) == hits.end()) {
        search_[0] = '\0';
        search_set_outside_ = true;
    }
    if (!group_.empty() && e->group != group_) group_.clear();
    return true;
}

void GlossaryPanel::follow_link(const std::string& term) {
    const Visit here{selected_, search_, group_};
    if (select(term)) back_.push_back(here);
}

void GlossaryPanel::go_back() {
    if (back_.empty()) return;
    const Visit v = back_.back();
    back_.pop_back();
    selected_ = v.selected;
    search_ = v.search;
    group_ = v.group;
    search_set_outside_ = true;
    scroll_to_selected_ = true;
}

void GlossaryPanel::set_search(const std::string& text) {
    std::snprintf(search_.data(), search_.size(), "%s", text.c_str());
    search_set_outside_ = true;
    selected_ = -1;  // a new search shows its own best match
}

void GlossaryPanel::declare_actions() {
    actions_.text("term", "a glossary term", "show this term", [this](AppState&, const ActionValue& v) {
        return select(v.text) ? std::string() : "\"" + v.text + "\" is not in the glossary";
    });
    actions_.text("search", "any text", "filter the terms by this text", [this](AppState&, const ActionValue& v) {
        set_search(v.text);
        return std::string();
    });
    actions_.text("group", "a glossary group, or nothing for all", "show only this group of terms", [this](AppState&, const ActionValue& v) {
        const Glossary* g = shared_glossary();
        const auto groups = g ? g->groups() : std::vector<std::string>{};
        if (!v.text.empty() && std::find(groups.begin(), groups.end(), v.text) == groups.end())
            return "\"" + v.text + "\" is not a glossary group";
        group_ = v.text;
        return std::string();
    });
}

GlossaryView GlossaryPanel::build_view() const {
    GlossaryView v;
    const Glossary* g = shared_glossary();
    if (!g) return v;
    v.total = g->size();
    const std::vector<size_t> hits = g->search(search_.data());
    for (const std::string& group : g->groups()) {
        if (!group_.empty() && group != group_) continue;
        GlossaryGroupRows rows{group, {}};
        for (size_t i : hits)
            if (g->entries()[i].group == group) rows.entries.push_back(i);
        // Alphabetical inside a group, so a term is easy to find by eye.
        std::sort(rows.entries.begin(), rows.entries.end(), [g](size_t a, size_t b) {
            return normalise_term(g->entries()[a].term) < normalise_term(g->entries()[b].term);
        });
        v.matches += rows.entries.size();
        if (!rows.entries.empty()) v.groups.push_back(std::move(rows));
    }
    v.selected = selected_;
    if (v.selected < 0 && !v.groups.empty()) {
        // A search that names a term (or an alias) shows that term, wherever its group sorts.
        const GlossaryEntry* exact = search_[0] != '\0' ? g->find(search_.data()) : nullptr;
        const auto index = exact ? static_cast<size_t>(exact - g->entries().data()) : hits.size();
        const bool listed = exact && std::find(hits.begin(), hits.end(), index) != hits.end();
        v.selected = listed ? int(index) : int(v.groups.front().entries.front());
    }
    return v;
}

void GlossaryPanel::draw(AppState& state) {
    const Glossary* g = shared_glossary();
    if (!g) {
        ImGui::TextDisabled("The glossary (assets/glossary.json) was not loaded.");
        return;
    }
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    // Opened to look something up: typing goes straight into the search. A search set from outside
    // (a lesson, a link) while the field has the keyboard would be overwritten by the field's own copy
    // of its text, so the field lets go first.
    if (search_set_outside_ && ImGui::GetActiveID() == ImGui::GetID("##search")) ImGui::ClearActiveID();
    search_set_outside_ = false;
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    if (ImGui::InputTextWithHint("##search", "Search terms and definitions", search_.data(), search_.size()))
        selected_ = -1;  // a new search shows its own best match
    note_last_item("glossary/search");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##group", group_.empty() ? "All groups" : group_.c_str())) {
        if (ImGui::Selectable("All groups", group_.empty())) group_.clear();
        for (const std::string& group : g->groups())
            if (ImGui::Selectable(group.c_str(), group == group_)) group_ = group;
        ImGui::EndCombo();
    }
    view_ = build_view();
    ImGui::TextDisabled("%zu of %zu terms", view_.matches, view_.total);
    ImGui::Separator();
    draw_list(view_);
    ImGui::SameLine();
    draw_entry(view_);
    if (open_request_) {
        // The Lesson panel's own actions: it opens, lays out its step's panels and says why not.
        const LessonMention m = *open_request_;
        open_request_.reset();
        std::string why = registry_.run_action(state, "lesson.open=" + m.lesson_id);
        if (why.empty() && m.step > 1) why = registry_.run_action(state, "lesson.step=" + std::to_string(m.step));
        if (!why.empty()) state.ui.status = why;
    }
}

void GlossaryPanel::draw_list(const GlossaryView& v) {
    const Glossary& g = *shared_glossary();
    // Wide enough for the longest term (indent, scrollbar and padding included), within a share of the
    // panel: a narrow tile must not cut the terms short.
    float longest = 0;
    for (const GlossaryEntry& e : g.entries()) longest = std::max(longest, ImGui::CalcTextSize(e.term.c_str()).x);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float wanted = longest + style.IndentSpacing + style.ScrollbarSize + 4.0f * style.WindowPadding.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    const float width = std::clamp(wanted, avail * kListShare, avail * kListMaxShare);
    ImGui::BeginChild("terms", ImVec2(width, 0), true);
    if (v.groups.empty()) ImGui::TextDisabled("Nothing matches.");
    for (const GlossaryGroupRows& rows : v.groups) {
        ImGui::TextColored(kGroupColour, "%s", rows.group.c_str());
        ImGui::SameLine();
        ImGui::TextDisabled("%zu", rows.entries.size());
        for (size_t i : rows.entries) {
            const GlossaryEntry& e = g.entries()[i];
            ImGui::PushID(int(i));
            ImGui::Indent();
            if (ImGui::Selectable(e.term.c_str(), int(i) == v.selected)) selected_ = int(i);
            note_last_item("glossary/term/" + e.term);
            if (scroll_to_selected_ && int(i) == v.selected) ImGui::SetScrollHereY(0.3f);
            ImGui::Unindent();
            ImGui::PopID();
        }
        ImGui::Spacing();
    }
    scroll_to_selected_ = false;
    ImGui::EndChild();
}

void GlossaryPanel::draw_links(const std::vector<std::string>& terms, const char* id) {
    const Glossary& g = *shared_glossary();
    ImGui::PushID(id);
    for (size_t i = 0; i < terms.size(); ++i) {
        const GlossaryEntry* target = g.find(terms[i]);
        const std::string label = target ? target->term : terms[i];
        ImGui::PushID(int(i));
        if (ImGui::SmallButton(label.c_str())) follow_link(label);
        note_last_item(std::string("glossary/") + id + "/" + label);
        glossary_tooltip_for_last_item(label);
        if (target) {
            ImGui::SameLine();
            ImGui::TextDisabled("%s", fit_to_width(first_sentence(target->definition), ImGui::GetContentRegionAvail().x).c_str());
        }
        ImGui::PopID();
    }
    ImGui::PopID();
}

void GlossaryPanel::draw_entry(const GlossaryView& v) {
    const Glossary& g = *shared_glossary();
    ImGui::BeginChild("entry", ImVec2(0, 0), false);
    if (v.selected < 0) {
        ImGui::TextDisabled("Pick a term on the left.");
        ImGui::EndChild();
        return;
    }
    const GlossaryEntry& e = g.entries()[size_t(v.selected)];
    if (!back_.empty()) {
        // Back to the term (and the search) the last link was followed from.
        const Visit& from = back_.back();
        const std::string label = "< Back to " + (from.selected >= 0 ? g.entries()[size_t(from.selected)].term : std::string("the list"));
        if (ImGui::SmallButton(label.c_str())) go_back();
        note_last_item("glossary/back");
    }
    const float wrap = std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * kReadingWidthEm);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
    ImGui::SetWindowFontScale(1.35f);
    ImGui::TextColored(kTermColour, "%s", e.term.c_str());
    note_last_item("glossary/entry/" + e.term);  // the term shown: what tests driving the window read
    ImGui::SetWindowFontScale(1.0f);
    ImGui::TextColored(kGroupColour, "%s", e.group.c_str());
    note_last_item("glossary/group");
    if (!e.aliases.empty()) {
        std::string also = "Also: ";
        for (size_t i = 0; i < e.aliases.size(); ++i) also += (i ? ", " : "") + e.aliases[i];
        // Beside the group when the whole line fits there; else a line of its own, wrapped at spaces
        // (squeezed beside it in a narrow tile, ImGui broke "parallel-ism" mid-word).
        const float beside = ImGui::CalcTextSize(e.group.c_str()).x + ImGui::CalcTextSize(("   " + also).c_str()).x +
                             ImGui::GetStyle().ItemSpacing.x;
        if (beside <= wrap) {
            ImGui::SameLine();
            ImGui::TextDisabled("   %s", also.c_str());
        } else {
            text_wrapped_disabled(also);
        }
        note_last_item("glossary/also");
    }
    ImGui::Separator();
    ImGui::Spacing();
    ImGui::TextUnformatted(e.definition.c_str());
    ImGui::PopTextWrapPos();
    if (!e.see_also.empty()) {
        ImGui::Spacing();
        ImGui::Spacing();
        ImGui::TextColored(kGroupColour, "See also");
        draw_links(e.see_also, "see");
    }
    std::vector<std::string> back;
    for (size_t i : g.referrers(size_t(v.selected))) back.push_back(g.entries()[i].term);
    if (!back.empty()) {
        ImGui::Spacing();
        ImGui::TextColored(kGroupColour, "Linked from");
        draw_links(back, "from");
    }
    if (const auto it = mentions_.find(e.term); it != mentions_.end()) {
        ImGui::Spacing();
        ImGui::TextColored(kGroupColour, "Explained in the lessons");
        for (const LessonMention& m : it->second) {
            ImGui::Bullet();
            const std::string label = m.title + ", step " + std::to_string(m.step);
            if (ImGui::SmallButton(label.c_str())) open_request_ = m;
            note_last_item("glossary/lesson/" + m.lesson_id);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("Open the lesson at this step");
        }
    }
    ImGui::EndChild();
}

}  // namespace shardscope::ui
