#include "widgets/pipeline/pipeline_panel.hpp"

#include "widgets/kit/shown_figures.hpp"
#include "widgets/kit/number_field.hpp"

#include "widgets/kit/flow.hpp"
#include "widgets/kit/tooltip.hpp"

#include "core/model/pipeline_scenario.hpp"
#include "core/scenario/units.hpp"
#include "widgets/kit/glossary_terms.hpp"
#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // SetItemUsingMouseWheel

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace shardscope::ui {

namespace {

constexpr Schedule kSchedules[] = {Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved_1f1b,
                                   Schedule::zb_h1, Schedule::zb_h2, Schedule::dualpipe};
constexpr int kMaxStagesControl = 512;
constexpr int kMaxMicrobatchesControl = 1 << 16;  // the simulator's own limit
constexpr int kMaxVirtualControl = 16;
constexpr double kMaxStageMilliseconds = 1e6;  // a thousand seconds per micro-batch and stage
constexpr float kStageTableWidth = 330.0f;

bool same_costs(const std::vector<StageCost>& a, const std::vector<StageCost>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].f != b[i].f || a[i].b != b[i].b || a[i].w != b[i].w) return false;
    return true;
}

bool same_geometry(const TimelineGeometry& a, const TimelineGeometry& b) {
    return a.x0 == b.x0 && a.x1 == b.x1 && a.label_x0 == b.label_x0 && a.y0 == b.y0 && a.row_height == b.row_height &&
           a.row_gap == b.row_gap && a.lane_header == b.lane_header && a.lane_gap == b.lane_gap &&
           a.char_width == b.char_width && a.arrows == b.arrows && a.max_arrows == b.max_arrows;
}

bool same_spec(const PipelineSpec& a, const PipelineSpec& b) {
    return a.schedule == b.schedule && a.stages == b.stages && a.microbatches == b.microbatches &&
           a.virtual_stages == b.virtual_stages && a.p2p_time == b.p2p_time && same_costs(a.costs, b.costs);
}

// The core's closed form reads one stage's cost; with unequal stages the first is as good as any and
// the read-out says the figure assumes equal stages.
StageCost first_stage_cost(const PipelineSpec& spec) {
    return spec.costs.empty() ? StageCost{} : spec.costs.front();
}

bool stages_equal(const PipelineSpec& spec) {
    for (const StageCost& c : spec.costs)
        if (c.f != spec.costs.front().f || c.b != spec.costs.front().b || c.w != spec.costs.front().w) return false;
    return true;
}

float labelled_width(const char* label, float item_width) {
    return ImGui::CalcTextSize(label).x + ImGui::GetStyle().ItemSpacing.x + item_width;
}

float button_width(const char* label) {
    return ImGui::CalcTextSize(label).x + 2.0f * ImGui::GetStyle().FramePadding.x;
}

float checkbox_width(const char* label) {
    return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

}  // namespace

const char* schedule_display_name(Schedule s) noexcept {
    switch (s) {
        case Schedule::gpipe: return "GPipe";
        case Schedule::one_f_one_b: return "1F1B";
        case Schedule::interleaved_1f1b: return "Interleaved 1F1B";
        case Schedule::zb_h1: return "ZB-H1";
        case Schedule::zb_h2: return "ZB-H2";
        case Schedule::dualpipe: return "DualPipe";
    }
    return "";
}

PipelinePanel::PipelinePanel(Placement placement, bool open)
    : Panel("pipeline", "Pipeline timeline", placement, open) {
    declare_actions();
}

std::vector<StageCost> PipelinePanel::stage_costs() const {
    const PipelineControls& c = controls_;
    if (!c.scenario_costs.empty() && static_cast<int>(c.scenario_costs.size()) == c.stages) return c.scenario_costs;
    const StageCost base{c.f_ms * 1e-3, c.b_ms * 1e-3, c.w_ms * 1e-3};
    if (c.first_stage_extra == 0 && c.last_stage_extra == 0) return {base};
    std::vector<StageCost> costs(static_cast<std::size_t>(std::max(1, c.stages)), base);
    const auto scaled = [](StageCost s, double extra) {
        const double k = 1.0 + extra;
        return StageCost{s.f * k, s.b * k, s.w * k};
    };
    costs.front() = scaled(costs.front(), c.first_stage_extra);
    // With one stage the same GPU carries both ends.
    costs.back() = scaled(costs.back(), c.last_stage_extra);
    return costs;
}

PipelineSpec PipelinePanel::spec_for(Schedule schedule) const {
    PipelineSpec spec;
    spec.schedule = schedule;
    spec.stages = controls_.stages;
    spec.microbatches = controls_.microbatches;
    spec.virtual_stages = schedule == Schedule::interleaved_1f1b ? controls_.virtual_stages : 1;
    spec.costs = stage_costs();
    spec.p2p_time = controls_.p2p_ms * 1e-3;
    return spec;
}

void PipelinePanel::update_simulation(const AppState& state) {
    const bool scenario_changed = scenario_version_ != state.version();
    scenario_version_ = state.version();
    // While the costs come from the scenario, the timeline follows it (an edit, undo, a lesson step).
    if (scenario_changed && !controls_.scenario_costs.empty()) take_from_scenario(state);
    bool any_resimulated = false;
    for (int lane = 0; lane < lane_count(); ++lane) {
        Lane& l = lanes_[lane];
        const PipelineSpec wanted = spec_for(lane == 0 ? controls_.schedule : controls_.compare_schedule);
        const bool resimulate = !l.simulated || !same_spec(wanted, l.spec);
        if (resimulate) {
            const auto t0 = std::chrono::steady_clock::now();
            l.spec = wanted;
            l.timeline = simulate_pipeline(l.spec);
            l.simulated = true;
            l.target_searched = -1;
            simulation_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            any_resimulated = true;
            ++generation_;
        }
        // Activation bytes read the scenario's model cut into this timeline's stages.
        if (resimulate || scenario_changed) l.activation_bytes = activation_bytes_per_stage(state.scenario(), l.timeline);
        // A search simulates the schedule some twenty times: once per spec and target, not per frame.
        if (l.target_searched != controls_.bubble_target) {
            l.microbatches_for_target = min_microbatches_for_simulated_bubble(l.spec, controls_.bubble_target);
            l.target_searched = controls_.bubble_target;
        }
    }
    // A new timeline has a new length: show all of it.
    if (any_resimulated) view_.reset();
}

double PipelinePanel::full_span() const {
    double span = 0;
    for (int lane = 0; lane < lane_count(); ++lane)
        if (lanes_[lane].timeline.ok()) span = std::max(span, lanes_[lane].timeline.makespan);
    return span > 0 ? span : 1e-3;
}

TimeWindow PipelinePanel::time_window() const {
    if (view_) return *view_;
    // A little air after the last op so the final block does not touch the edge.
    return TimeWindow{0, full_span() * 1.01};
}

void PipelinePanel::set_time_window(TimeWindow w) {
    const double full = full_span() * 1.01;
    // Never zoom below a millionth of the run: doubles keep their precision and blocks stay finite.
    const double span = std::clamp(w.span(), full * 1e-6, full);
    const double t0 = std::clamp(w.t0, 0.0, full - span);
    view_ = TimeWindow{t0, t0 + span};
}

void PipelinePanel::take_from_scenario(const AppState& state) {
    const PipelineSpec& spec = state.report().pipeline;
    PipelineControls& c = controls_;
    c.schedule = spec.schedule;
    c.stages = spec.stages;
    c.microbatches = spec.microbatches;
    if (spec.schedule == Schedule::interleaved_1f1b) c.virtual_stages = spec.virtual_stages;
    c.p2p_ms = spec.p2p_time * 1e3;
    const EditableStageCosts costs = editable_stage_costs(spec);
    c.scenario_costs = costs.per_stage;
    // The number fields show a typical middle stage and the ends as extra fractions of it.
    c.f_ms = costs.typical.f * 1e3;
    c.b_ms = costs.typical.b * 1e3;
    c.w_ms = costs.typical.w * 1e3;
    c.first_stage_extra = costs.first_extra;
    c.last_stage_extra = costs.last_extra;
}

void PipelinePanel::reset_view(AppState&) { controls_.compare = false; }

void PipelinePanel::declare_actions() {
    PipelineControls& c = controls_;
    // Every change but a zoom re-simulates. One to what the scenario sets (its schedule, stages,
    // micro-batches, chunks, stage costs, p2p time) makes the timeline an example, no longer the
    // scenario's own; a comparison, the arrows or the bubble target leave it the scenario's.
    const auto then_simulate = [this](AppState& state) {
        update_simulation(state);
        return std::string();
    };
    const auto leave_scenario = [this, then_simulate](AppState& state) {
        controls_.scenario_costs.clear();
        return then_simulate(state);
    };
    std::vector<std::string> schedules = names_of(kAllSchedules);
    actions_.choice("schedule", "the schedule simulated", schedules, [&c, leave_scenario](AppState& state, const ActionValue& v) {
        c.schedule = *schedule_from_string(v.text);
        return leave_scenario(state);
    });
    schedules.push_back("none");
    actions_.choice("compare", "a second schedule drawn beside the first (none: off)", schedules,
                    [&c, then_simulate](AppState& state, const ActionValue& v) {
                        c.compare = v.text != "none";
                        if (c.compare) c.compare_schedule = *schedule_from_string(v.text);
                        return then_simulate(state);
                    });
    actions_.integer("stages", "pipeline stages", 1, kMaxStagesControl, [&c, leave_scenario](AppState& state, const ActionValue& v) {
        c.stages = static_cast<int>(v.integer);
        return leave_scenario(state);
    });
    actions_.integer("microbatches", "micro-batches per step", 1, kMaxMicrobatchesControl,
                     [&c, leave_scenario](AppState& state, const ActionValue& v) {
                         c.microbatches = static_cast<int>(v.integer);
                         return leave_scenario(state);
                     });
    actions_.integer("virtual", "chunks per stage (more than 1 picks interleaved 1F1B)", 1, kMaxVirtualControl,
                     [&c, leave_scenario](AppState& state, const ActionValue& v) {
                         c.virtual_stages = static_cast<int>(v.integer);
                         if (c.virtual_stages > 1) c.schedule = Schedule::interleaved_1f1b;
                         return leave_scenario(state);
                     });
    const struct {
        const char* name;
        const char* help;
        double PipelineControls::*field;
    } times[] = {{"f", "forward time of one micro-batch on one stage, ms", &PipelineControls::f_ms},
                 {"b", "backward (input gradients) time, ms", &PipelineControls::b_ms},
                 {"w", "weight-gradient time, ms", &PipelineControls::w_ms},
                 {"p2p", "time to send activations to the next stage, ms", &PipelineControls::p2p_ms}};
    for (const auto& t : times) {
        actions_.number(t.name, t.help, 0, kMaxStageMilliseconds,
                        [&c, field = t.field, leave_scenario](AppState& state, const ActionValue& v) {
                            c.*field = v.number;
                            return leave_scenario(state);
                        });
    }
    actions_.number("first_extra", "extra work on the first stage (embedding), % of a stage", 0, 1000,
                    [&c, leave_scenario](AppState& state, const ActionValue& v) {
                        c.first_stage_extra = v.number / 100.0;
                        return leave_scenario(state);
                    });
    actions_.number("last_extra", "extra work on the last stage (output layer and loss), % of a stage", 0, 1000,
                    [&c, leave_scenario](AppState& state, const ActionValue& v) {
                        c.last_stage_extra = v.number / 100.0;
                        return leave_scenario(state);
                    });
    actions_.number("target", "the bubble share to aim for, %", 0, 100, [&c, then_simulate](AppState& state, const ActionValue& v) {
        c.bubble_target = v.number / 100.0;
        return then_simulate(state);
    });
    actions_.on_off("arrows", "arrows for sends between stages", [&c, then_simulate](AppState& state, const ActionValue& v) {
        c.arrows = v.on;
        return then_simulate(state);
    });
    actions_.trigger("from_scenario", "take stages, micro-batches, schedule and costs from the scenario",
                     [this, then_simulate](AppState& state, const ActionValue&) {
                         take_from_scenario(state);
                         return then_simulate(state);
                     });
    actions_.trigger("use_schedule", "the scenario trains with the schedule drawn (and its chunks per stage)",
                     [this, then_simulate](AppState& state, const ActionValue&) {
                         if (std::string rule = use_schedule_in_scenario(state); !rule.empty()) return rule;
                         return then_simulate(state);
                     });
    actions_.text("zoom", "A,B with 0 <= A < B <= 1, or fit", "show fractions A to B of the longest makespan; fit: all of it",
                  [this](AppState& state, const ActionValue& v) { return zoom_to(state, v.text); });
}

std::string PipelinePanel::zoom_to(AppState& state, const std::string& value) {
    update_simulation(state);
    if (value == "fit") {
        fit_time_window();
        return {};
    }
    const std::vector<std::string> parts = split_list(value);
    ActionSpec fraction{"zoom", ActionType::number, "", 0, 1, {}, {}, {}};
    ActionValue a, b;
    if (parts.size() != 2 || !parse_action_value(fraction, parts[0], a).empty() ||
        !parse_action_value(fraction, parts[1], b).empty() || b.number <= a.number)
        return "\"" + value + "\" is not A,B with 0 <= A < B <= 1 (fractions of the longest makespan), or fit";
    const double full = full_span() * 1.01;
    set_time_window(TimeWindow{a.number * full, b.number * full});
    return {};
}

// ---- Drawing ------------------------------------------------------------------------------------

void PipelinePanel::draw(AppState& state) {
    draw_controls(state);
    update_simulation(state);
    draw_source_line(state);
    draw_readout();
    ImGui::Separator();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // The legend wraps in a narrow tile: reserve what it took last frame.
    const float legend_h = std::max(legend_height_, ImGui::GetFrameHeightWithSpacing());
    // A short tile would squeeze the rows to slivers (two lanes of 4 stages in 30 px): the rows keep
    // a label's height, up to 24 of them, and the window scrolls to the legend instead.
    const float body_h = std::max({120.0f, avail.y - legend_h, readable_canvas_height()});
    const float wanted_table_w = lane_count() == 2 ? kStageTableWidth + 190.0f : kStageTableWidth;
    const float table_w = avail.x > 1100.0f ? wanted_table_w : 0.0f;
    draw_canvas(avail.x - table_w - (table_w > 0 ? ImGui::GetStyle().ItemSpacing.x : 0.0f), body_h);
    if (table_w > 0) {
        ImGui::SameLine();
        draw_stage_table(table_w, body_h);
    }
    draw_legend();
}

namespace {
// What a schedule is first compared with when the other lane shows the same: the zero-bubble
// split for 1F1B (the comparison the lessons draw), else plain 1F1B, the baseline the others improve on.
Schedule comparison_partner(Schedule s) noexcept { return s == Schedule::one_f_one_b ? Schedule::zb_h1 : Schedule::one_f_one_b; }
}  // namespace

void PipelinePanel::draw_controls(AppState& state) {
    PipelineControls& c = controls_;
    const float combo_w = ImGui::CalcTextSize("Interleaved 1F1B").x + ImGui::GetFrameHeight() + 16.0f;
    const auto schedule_combo = [&](const char* id, Schedule& s) {
        ImGui::SetNextItemWidth(combo_w);
        if (!ImGui::BeginCombo(id, schedule_display_name(s))) return;
        for (Schedule option : kSchedules) {
            if (ImGui::Selectable(schedule_display_name(option), option == s)) s = option;
            note_last_item(std::string("pipeline") + id + "/" + std::string(to_string(option)));
        }
        ImGui::EndCombo();
    };
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Schedule");
    ImGui::SameLine();
    const Schedule shown = c.schedule;
    schedule_combo("##schedule", c.schedule);
    if (c.schedule != shown) c.scenario_costs.clear();
    note_last_item("pipeline/schedule");
    glossary_tooltip_for_last_item(glossary_term(c.schedule));
    flow(checkbox_width("Compare with") + ImGui::GetStyle().ItemSpacing.x + combo_w);
    if (ImGui::Checkbox("Compare with", &c.compare) && c.compare && c.compare_schedule == c.schedule)
        c.compare_schedule = comparison_partner(c.schedule);
    note_last_item("pipeline/compare");
    ImGui::SameLine();
    ImGui::BeginDisabled(!c.compare);
    schedule_combo("##compare", c.compare_schedule);
    glossary_tooltip_for_last_item(glossary_term(c.compare_schedule));
    ImGui::EndDisabled();

    constexpr float kIntWidth = 95.0f;
    // The text as typed until the field is left, then read whole; a number outside the drawing's range
    // is refused by name (ImGui's InputInt kept the digits of "1e3" and cut 16384 to 512 unseen).
    const auto int_field = [&](const char* label, const char* id, int& v, int lo, int hi, const char* tip) {
        flow(labelled_width(label, kIntWidth));
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(label);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
        ImGui::SameLine();
        const float button = ImGui::GetFrameHeight();
        const float gap = ImGui::GetStyle().ItemInnerSpacing.x;
        ImGui::SetNextItemWidth(kIntWidth - 2.0f * (button + gap));
        bool changed = false;
        const std::optional<WholeNumberRead> typed = whole_number_field(id, texts_[label], v);
        note_last_item(std::string("pipeline/") + label);
        if (typed && !typed->value) {
            input_refusal_ = std::string(label) + ": " + typed->error;
        } else if (typed && (*typed->value < lo || *typed->value > hi)) {
            input_refusal_ = std::string(label) + ": " + std::to_string(*typed->value) + " is outside " +
                             std::to_string(lo) + " to " + std::to_string(hi) + ", what this timeline draws";
        } else if (typed) {
            v = static_cast<int>(*typed->value);
            input_refusal_.clear();
            changed = true;
        }
        ImGui::PushID(id);
        ImGui::SameLine(0, gap);
        if (ImGui::Button("-", ImVec2(button, 0)) && v > lo) {
            --v;
            changed = true;
        }
        ImGui::SameLine(0, gap);
        if (ImGui::Button("+", ImVec2(button, 0)) && v < hi) {
            ++v;
            changed = true;
        }
        ImGui::PopID();
        return changed;
    };
    if (int_field("p", "##p", c.stages, 1, kMaxStagesControl, "Pipeline stages (devices)")) c.scenario_costs.clear();
    if (int_field("m", "##m", c.microbatches, 1, kMaxMicrobatchesControl, "Micro-batches per step"))
        c.scenario_costs.clear();
    ImGui::BeginDisabled(c.schedule != Schedule::interleaved_1f1b &&
                         !(c.compare && c.compare_schedule == Schedule::interleaved_1f1b));
    if (int_field("v", "##v", c.virtual_stages, 1, kMaxVirtualControl, "Model chunks per device (interleaved 1F1B)"))
        c.scenario_costs.clear();
    ImGui::EndDisabled();

    flow(button_width("From scenario") + ImGui::GetStyle().ItemSpacing.x + button_width("Fit"));
    // A scenario without a pipeline has none to draw: the button says so rather than doing nothing.
    const bool has_pipeline = state.report().pipeline.stages > 1;
    ImGui::BeginDisabled(!has_pipeline);
    if (ImGui::Button("From scenario")) take_from_scenario(state);
    ImGui::EndDisabled();
    note_last_item("pipeline/from_scenario");
    wrapped_tooltip_for_last_item(has_pipeline ? "Schedule, p, m, v, per-stage F/B/W and p2p time of the current scenario, "
                                                 "from core's cost model (compute per micro-batch on one GPU of each stage)"
                                               : "The scenario has no pipeline (pp 1): turn on PP in the Strategy "
                                                 "explorer, then this draws its own.");
    ImGui::SameLine();
    if (ImGui::Button("Fit")) fit_time_window();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show the whole step (or double-click the timeline)");
    flow(checkbox_width("Send/recv arrows"));
    ImGui::Checkbox("Send/recv arrows", &c.arrows);
    if (!input_refusal_.empty()) {
        text_wrapped_coloured(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "Not applied: " + input_refusal_);
        note_last_item("pipeline/refusal");
    }
    draw_cost_controls();
}

void PipelinePanel::draw_cost_controls() {
    PipelineControls& c = controls_;
    bool costs_edited = false;
    constexpr float kNumberWidth = 80.0f;
    const auto ms_field = [&](const char* label, const char* id, double& v, const char* tip, bool first) {
        if (!first) flow(labelled_width(label, kNumberWidth));
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(label);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(kNumberWidth);
        const bool changed = ImGui::InputDouble(id, &v, 0, 0, "%.3f");
        v = std::max(v, 0.0);
        return changed;
    };
    costs_edited |= ms_field("F ms", "##f", c.f_ms, "Forward of one micro-batch on one stage", true);
    // Why B and W often read equal: a schedule that runs them as one op only has their sum.
    costs_edited |= ms_field("B ms", "##b", c.b_ms,
                             "Backward for the inputs (sent upstream).\nFrom a scenario whose schedule runs B and W "
                             "as one op (1F1B, interleaved, GPipe)\nthe cost model gives only their sum, split here "
                             "in half: those schedules read\nonly the sum. Set B and W yourself for the zero-bubble "
                             "schedules.",
                             false);
    costs_edited |= ms_field("W ms", "##w", c.w_ms,
                             "Backward for the weights (local). 1F1B and GPipe run B+W as one op,\nso from their "
                             "scenario B and W are the backward split in half.",
                             false);
    const auto percent_field = [&](const char* label, const char* id, double& fraction, const char* tip) {
        flow(labelled_width(label, kNumberWidth));
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(label);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(kNumberWidth);
        double percent = fraction * 100.0;
        const bool changed = ImGui::InputDouble(id, &percent, 0, 0, "%.0f%%");
        if (changed) fraction = std::max(percent, 0.0) / 100.0;
        return changed;
    };
    costs_edited |= percent_field("First stage +", "##first", c.first_stage_extra,
                                  "Extra work on stage 0 (e.g. the embedding), as a share of a middle stage");
    costs_edited |= percent_field("Last stage +", "##last", c.last_stage_extra,
                                  "Extra work on the last stage (output layer and loss)");
    costs_edited |= ms_field("p2p ms", "##p2p", c.p2p_ms, "Time for one activation or gradient to reach the next stage", false);
    if (costs_edited) c.scenario_costs.clear();
    if (!c.scenario_costs.empty()) {
        const char* note = "per-stage costs from the scenario";
        flow(ImGui::CalcTextSize(note).x);
        ImGui::TextColored(ImVec4(0.45f, 0.8f, 1.0f, 1.0f), "%s", note);
    }
}

std::string PipelinePanel::lane_title(int lane) const {
    const Lane& l = lanes_[lane];
    std::string title = schedule_display_name(l.spec.schedule);
    if (l.spec.schedule == Schedule::interleaved_1f1b) title += " (v = " + std::to_string(l.spec.virtual_stages) + ")";
    if (!l.timeline.ok()) return title + ":";
    return title + "   makespan " + format_seconds(l.timeline.makespan) + ", bubble (idle share) " +
           format_percent(l.timeline.bubble_fraction);
}

// One row of the read-out table: every figure comes from the simulated timeline or core's closed forms.
// One figure of one schedule's read-out: column 0 the schedule, 1 makespan, 2 and 3 the bubble
// simulated and by formula, 4 and 5 the activation peak, 6 the micro-batches for the bubble target.
void PipelinePanel::draw_readout_cell(int lane, int column) {
    const Lane& l = lanes_[lane];
    const PipelineSpec& spec = l.spec;
    const PipelineTimeline& t = l.timeline;
    if (column == 0) {
        ImGui::TextUnformatted(schedule_display_name(spec.schedule));
        if (parameter_copies(spec.schedule) > 1) {
            ImGui::SameLine();
            ImGui::TextDisabled("x%d weights", parameter_copies(spec.schedule));
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("DualPipe keeps two copies of the parameters (one per direction)");
        }
        return;
    }
    if (!t.ok()) {
        // The reason goes under the table (a long line here would widen the column).
        if (column == 1) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "rejected");
        return;
    }
    const auto peak = std::max_element(t.peak_activation_microbatches.begin(), t.peak_activation_microbatches.end());
    const std::size_t peak_stage = static_cast<std::size_t>(peak - t.peak_activation_microbatches.begin());
    switch (column) {
        case 1: ImGui::TextUnformatted(format_seconds(t.makespan).c_str()); break;
        case 2:
            ImGui::TextUnformatted(format_percent(t.bubble_fraction).c_str());
            // The first lane drawn from the scenario is the scenario's own bubble.
            if (lane == 0 && following_scenario()) note_shown("report.bubble_fraction", format_percent(t.bubble_fraction));
            break;
        case 3: {
            const double closed = closed_form_bubble_fraction(spec.schedule, spec.stages, spec.microbatches,
                                                              spec.virtual_stages, first_stage_cost(spec));
            const bool exact = stages_equal(spec) && spec.p2p_time == 0;
            ImGui::Text("%s%s", format_percent(closed).c_str(), exact ? "" : "*");
            ImGui::SameLine();
            ImGui::TextDisabled("%s", closed_form_bubble_text(spec.schedule));
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s", exact ? "Closed form of the schedule's source, as a share of the step"
                                              : "* The closed form assumes equal stages (stage 0's costs) and no p2p time;\n"
                                                "the measured figure includes the imbalance and the communication");
            break;
        }
        case 4:
            ImGui::Text("%.4g on stage %zu", *peak, peak_stage);
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("Micro-batches whose activations stage %zu holds at once, at its peak", peak_stage);
            break;
        case 5:
            ImGui::TextUnformatted(l.activation_bytes.empty() ? "n/a" : format_memory(l.activation_bytes[peak_stage]).c_str());
            if (l.activation_bytes.empty() && ImGui::IsItemHovered())
                ImGui::SetTooltip("Needs the scenario's architecture and no more stages than it has layers");
            break;
        case 6: {
            // The simulated schedule's answer first (it sees unequal stages and p2p time), the closed form's beside it.
            const int simulated = l.microbatches_for_target;
            const int closed_form = min_microbatches_for_bubble(spec, controls_.bubble_target);
            if (simulated > 0) ImGui::Text("%d", simulated);
            else ImGui::TextDisabled("none");
            note_last_item("pipeline/readout/m/" + std::to_string(lane));
            ImGui::SameLine();
            if (closed_form > 0) ImGui::TextDisabled("(closed form %d)", closed_form);
            else ImGui::TextDisabled("(closed form: none)");
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("Fewest micro-batches whose simulated bubble (this schedule, these stage costs and p2p\n"
                                  "time) is under the target; \"none\" when unequal stages keep the others idle longer\n"
                                  "than that at any count. The closed form assumes equal stages and no p2p time.");
            break;
        }
        default: break;
    }
}

std::string PipelinePanel::probe_state() const {
    const PipelineControls& c = controls_;
    return std::string(following_scenario() ? "scenario" : "example") + ": " + to_string(c.schedule).data() + ", p " +
           std::to_string(c.stages) + ", m " + std::to_string(c.microbatches) +
           (c.compare ? ", compared with " + std::string(to_string(c.compare_schedule)) : "");
}

std::string PipelinePanel::source_line(const AppState& state) const {
    const PipelineSpec& own = state.report().pipeline;
    if (following_scenario())
        return "The scenario's pipeline: " + std::to_string(own.stages) + " stages, " + std::to_string(own.microbatches) +
               " micro-batches, stage times from the cost model.";
    if (own.stages <= 1) return "An example pipeline: the scenario has none (pp 1). Turn on PP to draw its own.";
    return "An example, not the scenario (which runs " + std::to_string(own.stages) + " stages and " +
           std::to_string(own.microbatches) + " micro-batches): From scenario draws its own.";
}

std::string PipelinePanel::drawn_schedule_name() const {
    std::string name = schedule_display_name(controls_.schedule);
    if (controls_.schedule == Schedule::interleaved_1f1b) name += " (v " + std::to_string(controls_.virtual_stages) + ")";
    return name;
}

bool PipelinePanel::schedule_differs_from_scenario(const AppState& state) const {
    const TrainingSpec& t = state.scenario().training;
    if (state.scenario().parallel.pp <= 1) return false;
    if (controls_.schedule != t.schedule) return true;
    return t.schedule == Schedule::interleaved_1f1b && controls_.virtual_stages != t.virtual_stages;
}

std::string PipelinePanel::use_schedule_in_scenario(AppState& state) {
    Scenario candidate = state.scenario();
    candidate.training.schedule = controls_.schedule;
    candidate.training.virtual_stages = controls_.schedule == Schedule::interleaved_1f1b ? controls_.virtual_stages : 1;
    use_schedule_error_ = state.apply_step(candidate);
    if (!use_schedule_error_.empty()) return use_schedule_error_;
    state.ui.status = "The scenario now trains with " + drawn_schedule_name() + " (Ctrl+Z undoes it)";
    take_from_scenario(state);
    return {};
}

void PipelinePanel::draw_source_line(AppState& state) {
    const std::string line = source_line(state);
    if (following_scenario()) {
        text_wrapped_disabled(line);
        note_shown("report.microbatches", std::to_string(state.report().pipeline.microbatches) + " micro-batches");
    } else text_wrapped_coloured(ImVec4(1.0f, 0.75f, 0.3f, 1.0f), line);
    if (following_scenario() || !schedule_differs_from_scenario(state)) {
        use_schedule_error_.clear();
        return;
    }
    // The example's schedule can become the scenario's: the cost model, the memory and the planner's
    // comparison then price it.
    const std::string label = "Use " + drawn_schedule_name() + " in the scenario";
    if (ImGui::Button(label.c_str())) (void)use_schedule_in_scenario(state);
    note_last_item("pipeline/use_schedule");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The scenario keeps its own %lld stages and micro-batches and trains with this schedule;\n"
                          "Memory and cost and the planner price it. Ctrl+Z undoes it.",
                          static_cast<long long>(state.scenario().parallel.pp));
    if (!use_schedule_error_.empty())
        text_wrapped_coloured(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "Not taken: " + use_schedule_error_);
}

namespace {
// The read-out's headings and what each figure is, said on hover: which bubble, counted how.
struct ReadoutColumn {
    const char* name;
    const char* meaning;
};
std::vector<ReadoutColumn> readout_columns(const std::string& target) {
    return {
        {"Schedule", "The pipeline schedule of this row (the second row: the one compared with it)."},
        {"Makespan", "One step of the simulated pipeline: from the first forward on stage 0 to the last\n"
                     "op on any stage, p2p time included."},
        {"Bubble: idle share", "The step bubble, simulated: idle time summed over all stages within the\n"
                               "makespan, divided by stages x makespan. It sees unequal stages and p2p time."},
        {"Bubble: closed form", "The step bubble by the schedule's formula (its source's, shown beside the\n"
                                "figure), as a share of the step; equal stages and no p2p time assumed."},
        {"Peak in flight", "The most micro-batches whose activations one stage holds at once (forward\n"
                           "done, weight gradient not yet), and the stage where that peak is."},
        {"Activations at peak", "That stage's activation memory at its peak (GiB), from the scenario's model."},
        {target.c_str(), "m: micro-batches per step. The fewest that bring the simulated step bubble under\n"
                         "the target (set below), with the closed form's answer beside it."},
    };
}

// The widest text each figure's cell holds, for the wide table's width.
constexpr const char* kReadoutSamples[] = {"Interleaved 1F1B", "00.0 ms", "00.0%", "00.0%* (p-1)/(m+p-1)/v",
                                           "0000 on stage 00", "000 GiB", "0000 (closed form 0000)"};

void heading(const ReadoutColumn& c, const std::string& key) {
    ImGui::TableHeader(c.name);
    note_last_item(key);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", c.meaning);
}
}  // namespace

float PipelinePanel::readout_wide_width(const std::string& target) const {
    const std::vector<ReadoutColumn> columns = readout_columns(target);
    const ImGuiStyle& style = ImGui::GetStyle();
    float width = 0;
    for (std::size_t i = 0; i < columns.size(); ++i)
        width += std::max(ImGui::CalcTextSize(columns[i].name).x, ImGui::CalcTextSize(kReadoutSamples[i]).x) +
                 2.0f * style.CellPadding.x + 1.0f;
    return 1.1f * width;  // room for a closed form longer than the sample
}

void PipelinePanel::draw_readout_wide(const std::string& target) {
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
    const std::vector<ReadoutColumn> columns = readout_columns(target);
    if (!ImGui::BeginTable("readout", static_cast<int>(columns.size()), flags)) return;
    for (const ReadoutColumn& c : columns) ImGui::TableSetupColumn(c.name);
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (std::size_t i = 0; i < columns.size(); ++i) {
        ImGui::TableSetColumnIndex(static_cast<int>(i));
        heading(columns[i], "pipeline/heading/" + std::to_string(i));
    }
    for (int lane = 0; lane < lane_count(); ++lane) {
        ImGui::TableNextRow();
        for (int column = 0; column < static_cast<int>(columns.size()); ++column) {
            ImGui::TableNextColumn();
            draw_readout_cell(lane, column);
        }
    }
    ImGui::EndTable();
}

void PipelinePanel::draw_readout_stacked(const std::string& target) {
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
    const std::vector<ReadoutColumn> columns = readout_columns(target);
    if (!ImGui::BeginTable("readout", 1 + lane_count(), flags)) return;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        ImGui::TableNextRow(i == 0 ? ImGuiTableRowFlags_Headers : 0);
        ImGui::TableNextColumn();
        heading(columns[i], "pipeline/heading/" + std::to_string(i));
        for (int lane = 0; lane < lane_count(); ++lane) {
            ImGui::TableNextColumn();
            draw_readout_cell(lane, static_cast<int>(i));
        }
    }
    ImGui::EndTable();
}

void PipelinePanel::draw_readout() {
    const std::string target = "m for bubble < " + format_percent(controls_.bubble_target);
    if (ImGui::GetContentRegionAvail().x >= readout_wide_width(target)) draw_readout_wide(target);
    else draw_readout_stacked(target);
    for (int lane = 0; lane < lane_count(); ++lane)
        if (!lanes_[lane].timeline.ok())
            ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s: %s", schedule_display_name(lanes_[lane].spec.schedule),
                               lanes_[lane].timeline.error.c_str());
    if (lane_count() == 2 && lanes_[0].timeline.ok() && lanes_[1].timeline.ok()) {
        const double a = lanes_[0].timeline.makespan, b = lanes_[1].timeline.makespan;
        const char* second = schedule_display_name(lanes_[1].spec.schedule);
        const char* first = schedule_display_name(lanes_[0].spec.schedule);
        // Equal stage costs give GPipe and 1F1B the same makespan: a tie is said as one, not as "0 s less".
        if (std::fabs(a - b) <= 1e-9 * std::max(a, b))
            ImGui::Text("%s and %s take the same time", second, first);
        else
            ImGui::Text("%s takes %s %s than %s (%s of its step)", second, format_seconds(std::fabs(a - b)).c_str(),
                        b <= a ? "less" : "more", first, format_percent(std::fabs(a - b) / a).c_str());
        flow(labelled_width("Bubble target", 80.0f));
    }
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("Bubble target");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(80.0f);
    double percent = controls_.bubble_target * 100.0;
    if (ImGui::InputDouble("##target", &percent, 0, 0, "%.1f%%")) controls_.bubble_target = std::clamp(percent, 0.01, 99.0) / 100.0;
    const char* hint = "Timeline: wheel to zoom, drag to pan, double-click to fit, hover an op for its inputs";
    flow(ImGui::CalcTextSize(hint).x);
    ImGui::TextDisabled("%s", hint);
}

std::vector<TimelineLane> PipelinePanel::timeline_lanes() const {
    std::vector<TimelineLane> out;
    for (int lane = 0; lane < lane_count(); ++lane)
        out.push_back(TimelineLane{lane_title(lane), &lanes_[lane].spec, &lanes_[lane].timeline});
    return out;
}

void PipelinePanel::handle_zoom_and_pan(float x0, float x1, bool hovered, bool active) {
    const ImGuiIO& io = ImGui::GetIO();
    const float width = std::max(1.0f, x1 - x0);
    TimeWindow w = time_window();
    if (hovered && io.MouseWheel != 0.0f) {
        // Zoom about the time under the mouse so it stays put.
        const double at = std::clamp(static_cast<double>((io.MousePos.x - x0) / width), 0.0, 1.0);
        const double t_mouse = w.t0 + at * w.span();
        const double span = w.span() * std::pow(0.8, static_cast<double>(io.MouseWheel));
        set_time_window(TimeWindow{t_mouse - at * span, t_mouse - at * span + span});
    } else if (active && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f) && io.MouseDelta.x != 0.0f) {
        const double dt = -static_cast<double>(io.MouseDelta.x / width) * w.span();
        set_time_window(TimeWindow{w.t0 + dt, w.t1 + dt});
    }
    if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) fit_time_window();
}

float PipelinePanel::readable_canvas_height() const {
    const std::vector<TimelineLane> lanes = timeline_lanes();
    const float text_h = ImGui::GetTextLineHeight();
    const float rows = static_cast<float>(std::min(std::max(1, total_rows(lanes)), kReadableRows));
    const float lanes_n = static_cast<float>(lanes.size());
    // As draw_canvas lays them out: lane titles, gaps between lanes, the time axis.
    return rows * (text_h + 2.0f) + lanes_n * (text_h + 8.0f) + (lanes_n - 1.0f) * 10.0f + text_h + 12.0f;
}

void PipelinePanel::draw_canvas(float width, float height) {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##timeline", ImVec2(std::max(width, 50.0f), height));
    note_last_item("pipeline/timeline");
    const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
    ImDrawList* draw = ImGui::GetWindowDrawList();

    const std::vector<TimelineLane> lanes = timeline_lanes();
    TimelineGeometry& g = geometry_;
    const float text_h = ImGui::GetTextLineHeight();
    g.label_x0 = origin.x + 4.0f;
    g.x0 = origin.x + ImGui::CalcTextSize("S000 c00").x + 12.0f;
    g.x1 = origin.x + width - 8.0f;
    g.y0 = origin.y + 2.0f;
    g.lane_header = text_h + 8.0f;
    g.lane_gap = 10.0f;
    g.char_width = ImGui::CalcTextSize("0").x * 0.8f;  // paint_timeline falls back to a 0.8x label font
    g.arrows = controls_.arrows;
    // Rows share what is left after titles and the time axis; thin rows lose their gaps first.
    const float axis_h = text_h + 8.0f;
    const int rows = std::max(1, total_rows(lanes));
    const float lanes_n = static_cast<float>(lanes.size());
    const float for_rows = height - axis_h - 4.0f - lanes_n * g.lane_header - (lanes_n - 1) * g.lane_gap;
    const float pitch = std::clamp(for_rows / static_cast<float>(rows), 1.0f, 60.0f);
    g.row_gap = pitch >= 10.0f ? 2.0f : pitch >= 5.0f ? 1.0f : 0.0f;
    g.row_height = pitch - g.row_gap;

    // The wheel zooms the timeline; the panel scrolls only when the mouse is elsewhere.
    if (hovered) ImGui::SetItemUsingMouseWheel();
    handle_zoom_and_pan(g.x0, g.x1, hovered, active);
    const TimeWindow window = time_window();
    RecordsInputs& in = records_inputs_;
    if (in.window.t0 != window.t0 || in.window.t1 != window.t1 || !same_geometry(in.geometry, g) ||
        in.generation != generation_ || in.lanes != lane_count()) {
        records_ = build_timeline_records(lanes, window, g);
        in = RecordsInputs{window, g, generation_, lane_count()};
    }
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const TimelineBlock* hovered_block = hovered ? block_at(records_, mouse) : nullptr;
    hovered_ = hovered_block ? std::optional<TimelineBlock>(*hovered_block) : std::nullopt;
    draw->PushClipRect(origin, ImVec2(origin.x + width, origin.y + height), true);
    paint_timeline(draw, records_, lanes, g, hovered_block);
    draw->PopClipRect();

    if (records_.arrows_capped)
        draw->AddText(ImVec2(g.x1 - ImGui::CalcTextSize("zoom in to see send/recv arrows").x, origin.y + 2.0f),
                      ImGui::GetColorU32(ImGuiCol_TextDisabled), "zoom in to see send/recv arrows");
    if (hovered_block && !ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
        const Lane& l = lanes_[hovered_block->lane];
        const PipelineEvent& e = l.timeline.events[static_cast<std::size_t>(hovered_block->stage)][hovered_block->event];
        if (hovered_block->merged > 1)
            ImGui::SetTooltip("%d ops on stage %d from %s, too narrow to tell apart at this zoom:\nscroll to zoom in",
                              hovered_block->merged, hovered_block->stage, format_seconds(e.start).c_str());
        else
            ImGui::SetTooltip("%s", describe_event(l.spec, e).c_str());
    }
}

void PipelinePanel::draw_stage_table(float width, float height) {
    const Lane& l = lanes_[0];
    const bool cmp = lane_count() == 2 && lanes_[1].timeline.ok();
    const int columns = cmp ? 7 : 5;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_SizingStretchProp;
    // Per stage: idle share, peak (micro-batch, chunk) activations held as simulated and by the
    // schedule's closed form, and the bytes they take (core's activation model).
    if (!ImGui::BeginTable("stages", columns, flags, ImVec2(width, height))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Stage", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("Stage").x);
    ImGui::TableSetupColumn("Idle");
    ImGui::TableSetupColumn("Peak");
    ImGui::TableSetupColumn("Formula");
    ImGui::TableSetupColumn("Activations");
    const std::string other = schedule_display_name(lanes_[1].spec.schedule);
    if (cmp) {
        ImGui::TableSetupColumn((other + " peak").c_str());
        ImGui::TableSetupColumn((other + " act.").c_str());
    }
    ImGui::TableHeadersRow();
    if (l.timeline.ok()) {
        const PipelineSpec& spec = l.spec;
        ImGuiListClipper clipper;
        clipper.Begin(l.timeline.stages);
        while (clipper.Step())
            for (int s = clipper.DisplayStart; s < clipper.DisplayEnd; ++s) {
                const auto i = static_cast<std::size_t>(s);
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::Text("%d", s);
                ImGui::TableNextColumn();
                const double idle = l.timeline.makespan - l.timeline.busy[i];
                ImGui::TextUnformatted(format_percent(idle / l.timeline.makespan).c_str());
                ImGui::TableNextColumn();
                ImGui::Text("%d", l.timeline.peak_inflight[i]);
                ImGui::TableNextColumn();
                ImGui::Text("%d", closed_form_peak_inflight(spec.schedule, spec.stages, spec.microbatches,
                                                            spec.virtual_stages, s));
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(l.activation_bytes.empty() ? "n/a" : format_memory(l.activation_bytes[i]).c_str());
                if (cmp) {
                    const Lane& c = lanes_[1];
                    ImGui::TableNextColumn();
                    ImGui::Text("%d", c.timeline.peak_inflight[i]);
                    ImGui::TableNextColumn();
                    ImGui::TextUnformatted(c.activation_bytes.empty() ? "n/a" : format_memory(c.activation_bytes[i]).c_str());
                }
            }
    }
    ImGui::EndTable();
}

void PipelinePanel::draw_legend() {
    const float top = ImGui::GetCursorScreenPos().y;
    draw_legend_entries();
    legend_height_ = ImGui::GetCursorScreenPos().y - top;
}

void PipelinePanel::draw_legend_entries() {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float box = ImGui::GetTextLineHeight() * 0.85f;
    const auto swatch = [&](ImU32 colour, const char* name, bool hatched) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float dy = (ImGui::GetTextLineHeight() - box) * 0.5f;
        const ImVec2 a(p.x, p.y + dy), b(p.x + box * 1.6f, p.y + dy + box);
        draw->AddRectFilled(a, b, colour, 2.0f);
        if (hatched)
            for (float x = a.x - box; x < b.x; x += 5.0f) {
                draw->PushClipRect(a, b, true);
                draw->AddLine(ImVec2(x, b.y), ImVec2(x + box, a.y), IM_COL32(215, 95, 95, 200));
                draw->PopClipRect();
            }
        ImGui::Dummy(ImVec2(box * 1.6f, box));
        ImGui::SameLine(0, 5.0f);
        ImGui::TextUnformatted(name);
    };
    const auto next = [&](const char* name) { flow(box * 1.6f + 5.0f + ImGui::CalcTextSize(name).x); };
    ImGui::AlignTextToFramePadding();
    swatch(block_colour(0, OpKind::forward), "F forward", false);
    next("B backward (inputs; B+W in 1F1B)");
    swatch(block_colour(0, OpKind::backward_input), "B backward (inputs; B+W in 1F1B)", false);
    next("W backward (weights)");
    swatch(block_colour(0, OpKind::backward_weight), "W backward (weights)", false);
    next("bubble (idle)");
    swatch(IM_COL32(150, 60, 60, 60), "bubble (idle)", true);
    next("several ops under a pixel");
    swatch(merged_block_colour(), "several ops under a pixel", false);
    flow(ImGui::CalcTextSize("hue = micro-batch").x);
    ImGui::TextDisabled("hue = micro-batch");
    if (records_.events_visited > 0) {
        char text[96];
        std::snprintf(text, sizeof text, "%zu ops in view, %zu blocks drawn", records_.events_visited,
                      records_.blocks.size());
        flow(ImGui::CalcTextSize(text).x);
        ImGui::TextDisabled("%s", text);
    }
}

}  // namespace shardscope::ui
