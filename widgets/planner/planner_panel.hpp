#pragma once
// Planner: every valid layout of the current model on the current cluster, searched by
// core/planner/planner.hpp and ranked by step time, MFU or memory. A sortable table of the best layouts with
// an "Apply" button per row (loads it into the scenario, so every other panel shows it), filters
// ("TP inside a node only", "no PP", "ZeRO <= 1"), and a scatter of step time against memory per GPU
// with the Pareto front.
//
// The search runs on a worker thread. It is re-run when the model, cluster or anything else the
// planner does not choose changes (planning_key), not when a row is applied. Each frame waits for it
// up to a frame's time; past that the panel keeps the last ranking and shows a progress bar.

#include "widgets/shell/panel.hpp"
#include "widgets/planner/planner_view.hpp"

#include <memory>

namespace shardscope::ui {

class PlannerPanel final : public Panel {
public:
    PlannerPanel(Placement placement, bool open);
    ~PlannerPanel() override;

    void draw(AppState& state) override;

    // Starts a search if the scenario's planning key or the options changed; with `block`, returns only
    // once a result for them is in. Called by draw(); tests call it directly.
    void update(const AppState& state, bool block);
    [[nodiscard]] const PlannerView& view() const noexcept { return view_; }
    [[nodiscard]] const PlanOptions& options() const noexcept { return options_; }
    [[nodiscard]] bool searching() const noexcept;
    [[nodiscard]] bool animating() const override { return searching(); }
    // "searching", or the first rows as ranked: "#1 MESH, zero Z, mb M, SCHEDULE, recompute R: STEP, MFU".
    [[nodiscard]] std::string probe_state() const override;
    [[nodiscard]] int selected_rank() const noexcept { return selected_rank_; }
    // Why the last apply was refused ("" when it was applied).
    [[nodiscard]] const std::string& apply_error() const noexcept { return apply_error_; }
    // The rows in the order the table shows them (its sort), as indices into view().rows.
    [[nodiscard]] const std::vector<int>& row_order() const noexcept { return row_order_; }
    // Sorts the table by a column (0 rank .. 9 headroom), as a click on its header does.
    void sort_by(int column, bool ascending);

private:
    void declare_actions();
    struct Search;

    void start_search(const Scenario& key_scenario);
    void take_result(bool block);
    std::string apply_rank(AppState& state, int rank);
    void resort();

    void draw_controls();
    void draw_progress(AppState& state);
    void draw_table(AppState& state, float height);
    void draw_row(AppState& state, const PlannerRow& row);
    void draw_copy_row_menu(AppState& state, int rank);
    void draw_scatter(float height);
    void draw_explanation();

    PlanOptions options_;
    std::unique_ptr<Search> search_;
    std::vector<PlanEntry> ranked_;     // the scenarios behind the rows
    PlannerView view_;
    bool has_result_ = false;
    bool options_changed_ = true;
    unsigned long seen_version_ = 0;
    Scenario planned_key_;
    int selected_rank_ = 1;
    std::string apply_error_;
    std::vector<int> row_order_;
    int sort_column_ = 0;
    bool sort_ascending_ = true;
    double last_search_s_ = 0;
};

}  // namespace shardscope::ui
