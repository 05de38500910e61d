#pragma once
// Pipeline timeline: one row per stage (per virtual chunk with v > 1), time left to right,
// each op a block coloured by micro-batch and labelled F/B/W, idle time hatched as bubble. Controls
// for the schedule, p, m, v, F/B/W costs, stage imbalance and p2p time, or all of them "from scenario";
// a read-out of makespan, measured vs closed-form bubble, peak in-flight and activation memory per
// stage, and the micro-batches needed for a bubble target; a second schedule stacked on the same time
// axis to compare. Every figure comes from core's simulator (core/pipeline/pipeline.hpp); this file only lays
// out controls and hands the timeline to pipeline_canvas.hpp's two drawing passes.

#include "core/pipeline/pipeline.hpp"
#include "widgets/kit/number_field.hpp"
#include "widgets/shell/panel.hpp"
#include "widgets/pipeline/pipeline_canvas.hpp"

#include <optional>
#include <map>
#include <string>
#include <vector>

namespace shardscope::ui {

// What the user set. Costs are in milliseconds here (seconds in the PipelineSpec).
struct PipelineControls {
    Schedule schedule = Schedule::one_f_one_b;
    bool compare = false;
    Schedule compare_schedule = Schedule::zb_h1;
    int stages = 4;
    int microbatches = 8;
    int virtual_stages = 2;         // read by interleaved 1F1B only
    double f_ms = 1, b_ms = 1, w_ms = 1;
    double first_stage_extra = 0;   // fraction added to stage 0's costs (e.g. the embedding)
    double last_stage_extra = 0;    // fraction added to the last stage's (output layer and loss)
    double p2p_ms = 0;
    // Exact per-stage costs (seconds) taken "from scenario"; cleared by any edit of the costs or p.
    // While set, a change of the scenario takes everything from it again.
    std::vector<StageCost> scenario_costs;
    bool arrows = false;            // send/recv arrows between rows
    double bubble_target = 0.05;    // for "micro-batches needed for a bubble under ..."
};

class PipelinePanel final : public Panel {
public:
    PipelinePanel(Placement placement, bool open);

    void draw(AppState& state) override;
    // schedule=NAME, compare=NAME|none, stages=N, microbatches=N, virtual=N, f|b|w|p2p=MS,
    // first_extra|last_extra=PERCENT, target=PERCENT, arrows=on|off, from_scenario=1, zoom=A,B (fractions
    // of the longest makespan; "fit" for all of it).
    void reset_view(AppState& state) override;
    void show_scenario(AppState& state) override { take_from_scenario(state); }

    // For tests and the bench.
    [[nodiscard]] PipelineControls& controls() noexcept { return controls_; }
    // The spec a lane runs (0 = the schedule, 1 = the comparison) as the controls say now.
    [[nodiscard]] PipelineSpec spec_for(Schedule schedule) const;
    // Simulates when the controls changed since the last call (draw calls it too).
    void update_simulation(const AppState& state);
    [[nodiscard]] const PipelineTimeline& timeline(int lane) const { return lanes_[static_cast<std::size_t>(lane)].timeline; }
    [[nodiscard]] const PipelineSpec& spec(int lane) const { return lanes_[static_cast<std::size_t>(lane)].spec; }
    [[nodiscard]] int lane_count() const noexcept { return controls_.compare ? 2 : 1; }
    // The fewest micro-batches whose simulated bubble is under the target, for a lane's schedule
    // (core's min_microbatches_for_simulated_bubble; 0 when none does).
    [[nodiscard]] int microbatches_for_target(int lane) const {
        return lanes_[static_cast<std::size_t>(lane)].microbatches_for_target;
    }
    [[nodiscard]] const TimelineRecords& records() const noexcept { return records_; }
    // True while the timeline draws the scenario's own pipeline (From scenario, until a control changes
    // p or a stage cost); false while it draws the panel's example.
    [[nodiscard]] bool following_scenario() const noexcept { return !controls_.scenario_costs.empty(); }
    // The schedule drawn as a person reads it: "ZB-H1", "Interleaved 1F1B (v 2)".
    [[nodiscard]] std::string drawn_schedule_name() const;
    // Why the last "Use ... in the scenario" was refused ("" when it was not).
    [[nodiscard]] const std::string& use_schedule_error() const noexcept { return use_schedule_error_; }
    [[nodiscard]] std::string probe_state() const override;
    // The line above the readout saying which of the two the timeline shows.
    [[nodiscard]] std::string source_line(const AppState& state) const;
    // The block under the mouse in the last frame, if any (its tooltip was shown).
    [[nodiscard]] const std::optional<TimelineBlock>& hovered_block() const noexcept { return hovered_; }
    // Pixels of the plot between the window's t0 and t1, as last drawn.
    [[nodiscard]] float plot_width() const noexcept { return geometry_.x1 - geometry_.x0; }
    [[nodiscard]] TimeWindow time_window() const;
    void set_time_window(TimeWindow w);
    void fit_time_window() { view_.reset(); }
    // Seconds the last simulation took (the bench prints it apart from frame time).
    [[nodiscard]] double last_simulation_seconds() const noexcept { return simulation_seconds_; }

private:
    void declare_actions();
    std::string zoom_to(AppState& state, const std::string& value);
    struct Lane {
        PipelineSpec spec;
        PipelineTimeline timeline;
        std::vector<double> activation_bytes;  // per stage, empty when unknown
        bool simulated = false;
        // Micro-batches the simulated schedule needs for the bubble target (0: none reaches it), and
        // the target it was found for (-1: not yet).
        int microbatches_for_target = 0;
        double target_searched = -1;
    };

    [[nodiscard]] std::vector<StageCost> stage_costs() const;
    [[nodiscard]] double full_span() const;
    void take_from_scenario(const AppState& state);
    void draw_controls(AppState& state);
    void draw_cost_controls();
    void draw_source_line(AppState& state);
    // The timeline's height at which each row (up to kReadableRows of them) is as tall as a label.
    [[nodiscard]] float readable_canvas_height() const;
    static constexpr int kReadableRows = 24;
    // Whether the example's schedule (and chunks per stage) differs from the one the scenario trains
    // with, so it can be taken into the scenario.
    [[nodiscard]] bool schedule_differs_from_scenario(const AppState& state) const;
    // The scenario trains with the example's schedule (its chunks per stage for interleaving); the
    // rule it breaks otherwise, and the scenario stays.
    std::string use_schedule_in_scenario(AppState& state);
    void draw_readout();
    // The read-out's figures: a row per schedule in a wide tile, a row per figure (the schedules as
    // columns) in one too narrow for that, so the last figure is never out of reach.
    void draw_readout_wide(const std::string& target);
    void draw_readout_stacked(const std::string& target);
    [[nodiscard]] float readout_wide_width(const std::string& target) const;
    void draw_readout_cell(int lane, int column);
    void draw_stage_table(float width, float height);
    void draw_canvas(float width, float height);
    void handle_zoom_and_pan(float x0, float x1, bool hovered, bool active);
    void draw_legend();
    void draw_legend_entries();
    [[nodiscard]] std::vector<TimelineLane> timeline_lanes() const;
    [[nodiscard]] std::string lane_title(int lane) const;

    PipelineControls controls_;
    std::map<std::string, WholeNumberText> texts_;  // p, m and v as typed
    std::string input_refusal_;                      // why the last typed p, m or v was not taken
    Lane lanes_[2];
    unsigned long scenario_version_ = 0;
    std::optional<TimeWindow> view_;  // empty: fit the longest makespan
    TimelineRecords records_;
    TimelineGeometry geometry_;
    // Records are rebuilt only when what they depend on changed: a still view costs only painting.
    unsigned long generation_ = 0;  // bumped by every simulation
    struct RecordsInputs {
        TimeWindow window;
        TimelineGeometry geometry;
        unsigned long generation = ~0UL;
        int lanes = 0;
    } records_inputs_;
    double simulation_seconds_ = 0;
    float legend_height_ = 0;
    std::optional<TimelineBlock> hovered_;
    std::string use_schedule_error_;
};

// Display name of a schedule: "1F1B", "GPipe", "Interleaved 1F1B", "ZB-H1", "ZB-H2", "DualPipe".
[[nodiscard]] const char* schedule_display_name(Schedule s) noexcept;

}  // namespace shardscope::ui
