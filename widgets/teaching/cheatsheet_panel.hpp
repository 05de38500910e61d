#pragma once
// The Cheat sheet panel: the strategy table (what each strategy splits, what it sends, what it
// costs, when to reach for it). Clicking a row loads a small scenario that shows the strategy and
// points at the panel that shows it best.
//
// Two passes: build_rows() measures each row's wrapped height for the current column widths
// (CheatRowLayout, what tests read), draw() paints the table with one full-row selectable per row.

#include "core/teaching/cheatsheet.hpp"
#include "widgets/shell/panel.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {

struct CheatRowLayout {
    std::vector<std::string> cells;   // strategy, splits, communication, cost, reach for it when
    float height = 0;                 // the tallest wrapped cell
    bool loaded = false;              // this row's scenario is the current one
};

class CheatSheetPanel final : public Panel {
public:
    CheatSheetPanel(PanelRegistry& registry, Placement placement);

    void set_sheet(std::optional<CheatSheet> sheet, std::string error);
    [[nodiscard]] const std::optional<CheatSheet>& sheet() const noexcept { return sheet_; }

    void draw(AppState& state) override;

    // Loads row `index` (0-based): its scenario becomes current; its panel opens, outlined. "" or why not.
    std::string load_row(AppState& state, size_t index);
    [[nodiscard]] std::vector<CheatRowLayout> build_rows(const AppState& state, const std::vector<float>& widths,
                                                         float line_height) const;
    [[nodiscard]] const std::vector<CheatRowLayout>& last_rows() const noexcept { return rows_; }

private:
    void declare_actions();
    PanelRegistry& registry_;
    std::optional<CheatSheet> sheet_;
    std::string error_;
    int loaded_ = -1;
    std::vector<CheatRowLayout> rows_;
};

}  // namespace shardscope::ui
