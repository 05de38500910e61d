#include "widgets/teaching/cheatsheet_panel.hpp"

#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/item_rects.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>

namespace shardscope::ui {

namespace {

constexpr int kColumns = 5;
constexpr float kMinWidthInEms = 62.0f;  // the narrowest column then holds "reduce-scatter" whole
constexpr std::array<const char*, kColumns> kHeaders = {"Strategy", "Splits", "Communicates", "Costs",
                                                        "Reach for it when"};
// Shares of the table width: the strategy name is short, the prose columns get the rest.
constexpr std::array<float, kColumns> kShares = {0.14f, 0.21f, 0.21f, 0.20f, 0.24f};
const ImVec4 kStrategyColour(0.45f, 0.75f, 1.0f, 1.0f);
constexpr float kTableShare = 0.42f;  // the table's share of the height once a row's panel opens below

std::vector<std::string> cells_of(const CheatSheetRow& r) {
    return {r.strategy, r.splits, r.communication, r.cost, r.reach_for_it_when};
}

}  // namespace

CheatSheetPanel::CheatSheetPanel(PanelRegistry& registry, Placement placement)
    : Panel("cheatsheet", "Cheat sheet", placement, false), registry_(registry) {
    declare_actions();
}

void CheatSheetPanel::set_sheet(std::optional<CheatSheet> sheet, std::string error) {
    sheet_ = std::move(sheet);
    error_ = std::move(error);
    loaded_ = -1;
}

std::string CheatSheetPanel::load_row(AppState& state, size_t index) {
    if (!sheet_ || index >= sheet_->rows.size()) return "the cheat sheet has no row " + std::to_string(index + 1);
    const CheatSheetRow& row = sheet_->rows[index];
    if (std::string rule = state.try_apply(row.scenario); !rule.empty()) return rule;
    loaded_ = int(index);
    // The table on top, the panel that shows the strategy below it, outlined.
    if (Panel* p = registry_.find(row.panel); p && registry_.show_only({id(), row.panel}).empty()) {
        p->reset_view(state);
        p->show_scenario(state);  // the example just loaded, not a drawing of the panel's own
        p->scroll_to_top();
        set_placement(Placement{0, 0, 1, kTableShare});
        p->set_placement(Placement{0, kTableShare, 1, 1 - kTableShare});
        registry_.set_highlight(row.panel);
    }
    state.ui.status = "Cheat sheet: loaded the " + row.strategy + " example";
    return {};
}

void CheatSheetPanel::declare_actions() {
    actions_.text("row", "a row number from 1, or a row's strategy", "show the row's example", [this](AppState& state, const ActionValue& v) {
        if (!sheet_) return std::string("the cheat sheet was not loaded");
        for (size_t i = 0; i < sheet_->rows.size(); ++i)
            if (sheet_->rows[i].strategy == v.text || std::to_string(i + 1) == v.text) return load_row(state, i);
        return "\"" + v.text + "\" is neither a row number nor a strategy of the cheat sheet";
    });
}

std::vector<CheatRowLayout> CheatSheetPanel::build_rows(const AppState& state, const std::vector<float>& widths,
                                                        float line_height) const {
    std::vector<CheatRowLayout> out;
    if (!sheet_) return out;
    for (size_t i = 0; i < sheet_->rows.size(); ++i) {
        CheatRowLayout row;
        row.cells = cells_of(sheet_->rows[i]);
        row.height = line_height;
        for (size_t c = 0; c < row.cells.size() && c < widths.size(); ++c)
            row.height = std::max(row.height, ImGui::CalcTextSize(row.cells[c].c_str(), nullptr, false, widths[c]).y);
        row.loaded = int(i) == loaded_ && state.scenario_is(sheet_->rows[i].scenario);
        out.push_back(std::move(row));
    }
    return out;
}

void CheatSheetPanel::draw(AppState& state) {
    if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "Not loaded: %s", error_.c_str());
    if (!sheet_) return;
    ImGui::TextDisabled("Click a row to load a small scenario that shows the strategy.");
    const ImGuiStyle& style = ImGui::GetStyle();
    // Below a readable width the table keeps that width and scrolls sideways: a column narrower than a
    // word would break words in half.
    const float avail = ImGui::GetContentRegionAvail().x;
    const float table_w = std::max(avail, ImGui::GetFontSize() * kMinWidthInEms);
    std::vector<float> text_widths;
    for (float share : kShares) text_widths.push_back(table_w * share - style.CellPadding.x * 2 - 2);
    rows_ = build_rows(state, text_widths, ImGui::GetTextLineHeight());

    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_BordersOuter |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                  (table_w > avail ? ImGuiTableFlags_ScrollX : 0);
    if (!ImGui::BeginTable("cheatsheet", kColumns, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (int c = 0; c < kColumns; ++c)
        ImGui::TableSetupColumn(kHeaders[size_t(c)], ImGuiTableColumnFlags_WidthFixed, text_widths[size_t(c)]);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < rows_.size(); ++i) {
        const CheatRowLayout& row = rows_[i];
        ImGui::TableNextRow(0, row.height + style.CellPadding.y * 2);
        ImGui::TableNextColumn();
        ImGui::PushID(int(i));
        // One selectable as tall as the row under the text: the whole row is the click target.
        const ImVec2 at = ImGui::GetCursorPos();
        const ImGuiSelectableFlags sel = ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap;
        if (ImGui::Selectable("##row", row.loaded, sel, ImVec2(0, row.height))) load_row(state, i);
        note_last_item("cheatsheet/row/" + std::to_string(i + 1));
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Load the %s example", row.cells[0].c_str());
        ImGui::SetCursorPos(at);
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + text_widths[0]);
        ImGui::TextColored(kStrategyColour, "%s", row.cells[0].c_str());
        ImGui::PopTextWrapPos();
        for (int c = 1; c < kColumns; ++c) {
            ImGui::TableNextColumn();
            ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + text_widths[size_t(c)]);
            ImGui::TextUnformatted(row.cells[size_t(c)].c_str());
            ImGui::PopTextWrapPos();
        }
        ImGui::PopID();
    }
    ImGui::EndTable();
}

}  // namespace shardscope::ui
