#pragma once
// Memory and cost: per GPU kind (first / middle / last pipeline stage) a stacked bar of
// weights, gradients, optimizer state, activations and other against the GPU's memory, red when it
// does not fit, with core's fastest fix and a button to apply it; quick controls for what moves
// memory (ZeRO stage, recompute, precision, micro-batch); the step time cut into compute, each dim's
// exposed communication and the bubble; throughput and MFU; the report's notes.
//
// Two passes: build_memory_view (memory_view.hpp) turns the report into records once per scenario
// version; draw() only paints them.

#include "widgets/memory/memory_view.hpp"
#include "widgets/kit/number_field.hpp"
#include "widgets/kit/scroll_anchor.hpp"
#include "widgets/shell/panel.hpp"

namespace shardscope::ui {

class MemoryPanel final : public Panel {
public:
    MemoryPanel(Placement placement, bool open);

    void draw(AppState& state) override;

    // The records for the current scenario (rebuilt when its version changed).
    const MemoryView& view(const AppState& state);
    // What it shows, as shown: the fit line, then one "label: value" line per figure (step time, MFU...).
    [[nodiscard]] std::string probe_state() const override;
    // Why the last control edit was refused ("" when it was applied).
    [[nodiscard]] const std::string& control_error() const noexcept { return control_error_; }

private:
    void declare_actions();
    void draw_memory_section(AppState& state, float chart_height);
    void draw_memory_chart(float height);
    void draw_memory_table();
    void draw_model_state_row(const std::vector<const MemoryBarRecord*>& bars);
    void draw_fit(AppState& state);
    void draw_controls(AppState& state);
    void draw_micro_batch_control(AppState& state, float field);
    void draw_step_section();
    void draw_step_bar();
    void draw_compute_section(AppState& state);
    void draw_offload_switch(AppState& state);
    void draw_megatron_switch(AppState& state, const char* label, const char* item, bool applies, bool TrainingSpec::*field,
                         const char* on_tip, const char* off_tip);
    void draw_figures();
    void draw_figure_table(const char* id, const std::vector<FigureRecord>& figures);
    void draw_notes();
    // Core's fix made the scenario, and the status line says what it changed.
    void apply_fix(AppState& state, const FitAdvice& advice);
    void apply(AppState& state, const Scenario& candidate);
    void apply_zero(AppState& state, int zero);
    void draw_zero_impl_control(AppState& state, float field);
    void draw_recompute_method(AppState& state, float field);
    void draw_kernels_control(AppState& state, float field);
    void draw_recompute_modules(AppState& state);
    void draw_precision_controls(AppState& state, float field);
    // Text typed that is no number: refused by name, shown until the scenario next changes.
    void refuse_typed(AppState& state, const std::string& why);
    [[nodiscard]] static std::string edit_outcome(const AppState& state, bool fitted_before);

    MemoryView view_;
    bool has_view_ = false;
    std::string control_error_;
    unsigned long refused_at_version_ = 0;  // the scenario's version when control_error_ was set
    ScrollAnchor controls_anchor_;          // keeps "What moves memory" under the mouse after an edit
    WholeNumberText micro_batch_text_{};  // the micro-batch as typed
    WholeNumberText recompute_layers_text_{};  // recompute_num_layers as typed
};

}  // namespace shardscope::ui
