#pragma once
// Collective animator: steps through a collective chunk by chunk on N ranks, with the
// alpha-beta cost of every step on the current scenario's cluster links, and a chart of time
// against message size, ring against tree. Everything it shows comes from core/collectives/collective_steps.hpp,
// core/collectives/collectives.hpp and core/collectives/collective_figures.hpp; the panel lays it out and animates it.
//
// Its actions (`--action collective.NAME=VALUE`, lesson steps) are declared in declare_actions();
// `shardscope --action list` prints them.
//
// Time model of the animation: `position` counts steps, fractional while a step's packets are in
// flight. At rest on k (k >= 1) the arrows show step k, the one that produced the buffers drawn;
// while step k+1 is in flight the buffers are still those after k and the packets ride the arrows.

#include "core/collectives/collective_steps.hpp"
#include "widgets/collective/collective_canvas.hpp"
#include "widgets/shell/panel.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {

// The figures beside the animation, every one from core, kept so tests can read them.
struct CollectiveReadout {
    int step = 0;                   // the step the arrows show (1-based); 0 before the first
    int step_count = 0;
    bool in_flight = false;
    std::string phase;              // of the step shown; "" before the first
    double bytes_this_step = 0;     // sent by the busiest GPU in the step shown
    double bytes_so_far = 0;        // sent by the busiest GPU up to the state drawn
    double bytes_total = 0;         // sent by the busiest GPU over the whole collective
    bool same_for_every_gpu = true; // every GPU sends the same (ring, pairwise): "per GPU"
    std::optional<double> formula_bytes;  // closed form per GPU, for the algorithms that have one
    std::string formula_text;       // e.g. "2(N-1)/N x S"
    double step_time_s = 0;         // alpha-beta time of the step shown
    double elapsed_s = 0;           // up to the state drawn
    double total_s = 0;
    double algbw = 0, busbw = 0;    // bytes per second, nccl-tests' sense
    double crossover_bytes = 0;     // below: latency-bound; above: bandwidth-bound
    std::string caption;            // plain words for the step shown
};

class CollectivePanel final : public Panel {
public:
    CollectivePanel(Placement placement, bool open);

    void draw(AppState& state) override;
    void reset_view(AppState& state) override;

    // For tests and lessons: the records of the last draw and the model behind them.
    [[nodiscard]] const CollectiveScene& scene() const noexcept { return scene_; }
    [[nodiscard]] const CollectiveReadout& readout() const noexcept { return readout_; }
    [[nodiscard]] const SteppedCollective* collective() const noexcept { return model_ ? &*model_ : nullptr; }
    [[nodiscard]] const StepConfig& config() const noexcept { return config_; }
    [[nodiscard]] float position() const noexcept { return position_; }
    [[nodiscard]] bool playing() const noexcept { return playing_; }
    [[nodiscard]] bool animating() const override { return playing_; }
    [[nodiscard]] std::string probe_state() const override;
    [[nodiscard]] const std::string& error() const noexcept { return error_; }

    // Builds scene() and readout() for a canvas of this size without drawing (tests, screenshots).
    void refresh(AppState& state, ImVec2 canvas_size);

private:
    void declare_actions();
    // Configuration and model.
    std::string apply(StepConfig candidate, bool keep_position);
    void follow_scenario(const AppState& state);
    // Sizes the demonstration from one dim of the scenario: its collective, its group size (up to the
    // 64 cards drawn) and the message of its dominant call. "" when done, else why not.
    std::string size_from_scenario_dim(const AppState& state, const std::string& dim);
    void draw_scenario_dim_line(const AppState& state) const;
    void sync_model();

    // Time.
    void advance(float dt);
    void step_forward();
    void step_backward();
    void seek(float position);
    void set_playing(bool on);
    [[nodiscard]] int step_total() const noexcept { return model_ ? model_->step_count() : 0; }

    // Records.
    void rebuild_records(ImVec2 canvas_size);
    [[nodiscard]] CollectiveReadout make_readout() const;

    // Drawing.
    void draw_setup_controls(AppState& state);
    void draw_transport();
    void draw_canvas(ImVec2 size);
    void draw_card_tooltip(ImVec2 origin) const;
    void draw_readout() const;
    void draw_chart();

    StepConfig config_;
    std::optional<SteppedCollective> model_;
    std::string error_;                   // why the chosen setup cannot be stepped ("" when it can)
    unsigned long scenario_version_ = 0;  // links (and the default GPUs per node) follow the scenario
    bool gpus_per_node_from_scenario_ = true;
    std::string scenario_dim_;            // the dim the demonstration is sized from; "" for a free demo

    float position_ = 0;  // steps; fractional while a step is in flight
    float target_ = 0;    // where position_ is heading
    bool clicked_in_ = false;  // clicked since it last took the focus: Left / Right step it
    bool playing_ = false;
    float speed_ = 1.5f;  // steps per second

    std::vector<RankBuffer> before_;  // buffers before the step the arrows show
    int before_step_ = -1;            // which step before_ belongs to (-1: none cached)
    CollectiveScene scene_;
    bool pointer_moved_ = false;      // card tooltips wait for the mouse to move over the canvas
    float legend_height_ = 44.0f;     // measured each frame: the legend wraps in narrow windows
    CollectiveReadout readout_;

    std::vector<SizeTimePoint> chart_;
    bool chart_stale_ = true;
};

}  // namespace shardscope::ui
