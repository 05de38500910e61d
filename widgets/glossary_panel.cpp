#include "widgets/glossary_panel.hpp"

#include "widgets/glossary_tooltip.hpp"
#include "widgets/item_rects.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstring>

namespace shardscope::ui {

namespace {
const ImVec4 kTermColour(0.45f, 0.75f, 1.0f, 1.0f);
const ImVec4 kGroupColour(1.0f, 0.75f, 0.10f, 1.0f);
constexpr float kListShare = 0.38f;  // the term list's share of the panel width
}  // namespace

GlossaryPanel::GlossaryPanel(Placement placement) : Panel("glossary", "Glossary", placement, false) {}

bool GlossaryPanel::select(const std::string& term) {
    const Glossary* g = shared_glossary();
    const GlossaryEntry* e = g ? g->find(term) : nullptr;
    if (!e) return false;
    selected_ = int(e - g->entries().data());
    scroll_to_selected_ = true;
    // A cross-link to a term the filter hides clears the filter, so the term shows in the list.
    const std::vector<size_t> hits = g->search(search_.data());
    if (std::find(hits.begin(), hits.end(), size_t(selected_)) == hits.end()) search_[0] = '\0';
    if (!group_.empty() && e->group != group_) group_.clear();
    return true;
}

void GlossaryPanel::set_search(const std::string& text) {
    std::snprintf(search_.data(), search_.size(), "%s", text.c_str());
}

std::string GlossaryPanel::act(AppState& state, const std::string& action, const std::string& value) {
    if (action == "term") return select(value) ? "" : "\"" + value + "\" is not in the glossary";
    if (action == "search") return set_search(value), std::string();
    if (action == "group") {
        const Glossary* g = shared_glossary();
        const auto groups = g ? g->groups() : std::vector<std::string>{};
        if (!value.empty() && std::find(groups.begin(), groups.end(), value) == groups.end())
            return "\"" + value + "\" is not a glossary group";
        group_ = value;
        return {};
    }
    return Panel::act(state, action, value);
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
    if (v.selected < 0 && !v.groups.empty()) v.selected = int(v.groups.front().entries.front());
    return v;
}

void GlossaryPanel::draw(AppState&) {
    const Glossary* g = shared_glossary();
    if (!g) {
        ImGui::TextDisabled("The glossary (assets/glossary.json) was not loaded.");
        return;
    }
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    ImGui::InputTextWithHint("##search", "Search terms and definitions", search_.data(), search_.size());
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
}

void GlossaryPanel::draw_list(const GlossaryView& v) {
    const Glossary& g = *shared_glossary();
    ImGui::BeginChild("terms", ImVec2(ImGui::GetContentRegionAvail().x * kListShare, 0), true);
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

void GlossaryPanel::draw_entry(const GlossaryView& v) {
    const Glossary& g = *shared_glossary();
    ImGui::BeginChild("entry", ImVec2(0, 0), false);
    if (v.selected < 0) {
        ImGui::TextDisabled("Pick a term on the left.");
        ImGui::EndChild();
        return;
    }
    const GlossaryEntry& e = g.entries()[size_t(v.selected)];
    ImGui::SetWindowFontScale(1.35f);
    ImGui::TextColored(kTermColour, "%s", e.term.c_str());
    ImGui::SetWindowFontScale(1.0f);
    ImGui::TextColored(kGroupColour, "%s", e.group.c_str());
    if (!e.aliases.empty()) {
        std::string also = "Also: ";
        for (size_t i = 0; i < e.aliases.size(); ++i) also += (i ? ", " : "") + e.aliases[i];
        ImGui::SameLine();
        ImGui::TextDisabled("   %s", also.c_str());
    }
    ImGui::Separator();
    ImGui::Spacing();
    ImGui::TextWrapped("%s", e.definition.c_str());
    if (!e.see_also.empty()) {
        ImGui::Spacing();
        ImGui::TextDisabled("See also");
        for (size_t i = 0; i < e.see_also.size(); ++i) {
            const GlossaryEntry* target = g.find(e.see_also[i]);
            const std::string label = target ? target->term : e.see_also[i];
            // Wrap the buttons onto the next line when the row is full.
            const float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
            if (i > 0) {
                ImGui::SameLine();
                if (ImGui::GetCursorPosX() + w > ImGui::GetContentRegionMax().x) ImGui::NewLine();
            }
            ImGui::PushID(int(i));
            if (ImGui::SmallButton(label.c_str())) select(label);
            note_last_item("glossary/see/" + label);
            glossary_tooltip_for_last_item(label);
            ImGui::PopID();
        }
    }
    ImGui::EndChild();
}

}  // namespace shardscope::ui
