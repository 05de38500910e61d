#pragma once
// Strategy explorer ("what gets split, and what it costs to stitch back"): toggles for DP, FSDP/ZeRO,
// TP, PP, EP and SP/CP with a GPU count each (edits the scenario's parallel block through
// AppState::try_apply, core's rule shown inline when refused), the model as the GPUs hold it (core's
// Ownership laid out by strategy_canvas), the price of each strategy from the Report, and the
// strategy table "as data". Each strategy's name is written in its dim's palette colour (the pieces
// of the picture are coloured by GPU instead).

#include "core/strategy/ownership.hpp"
#include "core/strategy/strategy_price.hpp"
#include "widgets/shell/panel.hpp"
#include "widgets/strategy/strategy_canvas.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {

class StrategyPanel : public Panel {
public:
    StrategyPanel(std::string id, std::string title, Placement placement, bool open_by_default)
        : Panel(std::move(id), std::move(title), placement, open_by_default) {
        declare_actions();
    }

    void draw(AppState& state) override;

    // What the last draw built, for tests and lessons.
    [[nodiscard]] const Ownership& ownership() const noexcept { return ownership_; }
    [[nodiscard]] const StrategyDrawing& drawing() const noexcept { return drawing_; }
    [[nodiscard]] const std::vector<StrategyPrice>& prices() const noexcept { return prices_; }
    [[nodiscard]] const std::string& last_error() const noexcept { return error_; }
    [[nodiscard]] std::optional<int64_t> focused_gpu() const noexcept { return pinned_gpu_; }
    [[nodiscard]] bool showing_data() const noexcept { return show_data_; }
    // The colour each strategy's toggle was last drawn in: its dim's, from the palette (0 before a draw).
    [[nodiscard]] ImU32 toggle_colour(Dim s) const noexcept { return toggle_colours_[dim_index(s)]; }

    // Brings the cached ownership, drawing and prices up to date with the scenario (draw calls it).
    void refresh(const AppState& state, float width);

private:
    void declare_actions();
    std::string apply(AppState& state, const Scenario& candidate);
    std::string set_factor(AppState& state, Dim s, int64_t factor);
    void draw_toggles(AppState& state);
    void draw_toggle(AppState& state, Dim s);
    void draw_summary(const AppState& state);
    void draw_canvas(const AppState& state);
    void draw_price(const AppState& state);
    void draw_data_table(const AppState& state);
    void draw_held_table();

    Ownership ownership_;
    std::vector<Ownership::Held> held_;  // per GPU, for the "as data" table
    StrategyDrawing drawing_;
    std::vector<StrategyPrice> prices_;
    std::optional<double> saved_vs_plain_;
    unsigned long built_version_ = 0;
    float built_width_ = -1;
    std::string error_;
    unsigned long error_version_ = 0;
    std::optional<int64_t> pinned_gpu_;
    bool show_data_ = false;
    std::array<ImU32, kStrategyOrder.size()> toggle_colours_{};
    // The count each strategy comes back with when toggled on again.
    std::array<int64_t, kStrategyOrder.size()> remembered_{2, 2, 2, 2, 2, 2};
};

}  // namespace shardscope::ui
