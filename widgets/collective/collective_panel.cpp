#include "widgets/collective/collective_panel.hpp"

#include "widgets/kit/flow.hpp"

#include "core/collectives/collective_figures.hpp"
#include "core/collectives/collectives.hpp"
#include "core/scenario/units.hpp"
#include "widgets/kit/glossary_terms.hpp"
#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/shown_figures.hpp"
#include "widgets/shell/keys.hpp"
#include "widgets/kit/plot.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <cmath>
#include <cstdlib>

namespace shardscope::ui {

namespace {

constexpr int kMinRanks = 2;
constexpr int kMaxRanks = 64;  // drawn; core computes more, but 64 cards is what a canvas can show
constexpr int kMinSizeLog2 = 6;   // 64 B
constexpr int kMaxSizeLog2 = 32;  // 4 GiB
constexpr int kSpaceKey = 32;     // GLFW_KEY_SPACE (widgets cannot include GLFW; see keys.hpp)

// The collectives the animator can step, in menu order.
constexpr Collective kCollectives[] = {Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                                       Collective::broadcast,  Collective::reduce,         Collective::all_to_all};

// Named setups for act("algorithm", ...): "<algorithm>-<collective>".
struct NamedSetup {
    const char* id;
    Collective collective;
    StepAlgorithm algorithm;
};
constexpr NamedSetup kSetups[] = {
    {"ring-all-reduce", Collective::all_reduce, StepAlgorithm::ring},
    {"double-binary-tree-all-reduce", Collective::all_reduce, StepAlgorithm::double_binary_tree},
    {"tree-all-reduce", Collective::all_reduce, StepAlgorithm::double_binary_tree},
    {"hierarchical-all-reduce", Collective::all_reduce, StepAlgorithm::hierarchical},
    {"ring-reduce-scatter", Collective::reduce_scatter, StepAlgorithm::ring},
    {"ring-all-gather", Collective::all_gather, StepAlgorithm::ring},
    {"ring-broadcast", Collective::broadcast, StepAlgorithm::ring},
    {"tree-broadcast", Collective::broadcast, StepAlgorithm::tree},
    {"ring-reduce", Collective::reduce, StepAlgorithm::ring},
    {"tree-reduce", Collective::reduce, StepAlgorithm::tree},
    {"pairwise-all-to-all", Collective::all_to_all, StepAlgorithm::pairwise},
};



[[nodiscard]] std::string c_label(std::string_view s) { return std::string(s); }

// How the closed form of bytes sent per GPU is written, for the algorithms core has one for
// (closed_form_bytes_per_rank gives the figure).
[[nodiscard]] const char* formula_text(Collective c, StepAlgorithm a) {
    if (a == StepAlgorithm::hierarchical) return "2(g-1)/g \xC3\x97 S + 2(m-1)/m \xC3\x97 S/g";
    if (a != StepAlgorithm::ring && a != StepAlgorithm::pairwise) return nullptr;
    switch (c) {
        case Collective::all_reduce: return "2(N-1)/N \xC3\x97 S";
        case Collective::all_gather:
        case Collective::reduce_scatter:
        case Collective::all_to_all: return "(N-1)/N \xC3\x97 S";
        case Collective::broadcast:
        case Collective::reduce: return "S (each link of the chain carries it all)";
        case Collective::p2p: return nullptr;
    }
    return nullptr;
}

[[nodiscard]] double max_of(const std::vector<double>& v) {
    return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}

[[nodiscard]] double min_of(const std::vector<double>& v) {
    return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}

// Controls wrap in narrow windows (kit flow), two item spacings apart.
void flow_control(float next_width) { flow(next_width, ImGui::GetStyle().ItemSpacing.x * 2.0f); }

[[nodiscard]] float labelled_width(float widget, const char* label) {
    return widget + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

[[nodiscard]] ImVec2 local(ImVec2 screen, ImVec2 origin) { return ImVec2(screen.x - origin.x, screen.y - origin.y); }

[[nodiscard]] bool inside(const Rect& r, ImVec2 p) {
    return p.x >= r.min.x && p.x <= r.max.x && p.y >= r.min.y && p.y <= r.max.y;
}

[[nodiscard]] std::string rank_list(const std::vector<int>& ranks) {
    std::string s;
    for (size_t i = 0; i < ranks.size(); ++i) {
        if (i == 8 && ranks.size() > 10) return s + ", ... (" + std::to_string(ranks.size()) + " GPUs)";
        s += (i ? ", " : "") + std::to_string(ranks[i]);
    }
    return s;
}

}  // namespace

CollectivePanel::CollectivePanel(Placement placement, bool open)
    : Panel("collective", "Collective animator", placement, open) {
    config_.ranks = 8;
    config_.message_bytes = 1024.0 * 1024 * 1024;  // 1 GiB: a gradient bucket's order of magnitude
    declare_actions();
}

// --- Configuration -------------------------------------------------------------------------------

std::string CollectivePanel::apply(StepConfig candidate, bool keep_position) {
    scenario_dim_.clear();  // any setup of its own makes the animation a free demonstration again
    config_ = candidate;
    chart_stale_ = true;
    before_step_ = -1;
    error_ = check_step_config(candidate);
    if (!error_.empty()) {
        model_.reset();
        playing_ = false;
        return error_;
    }
    model_.emplace(candidate);
    const float total = static_cast<float>(model_->step_count());
    if (keep_position) {
        position_ = std::min(position_, total);
        target_ = std::min(target_, total);
    } else {
        position_ = target_ = 0;
        playing_ = false;
    }
    sync_model();
    return "";
}

void CollectivePanel::follow_scenario(const AppState& state) {
    if (state.version() == scenario_version_ && (model_ || !error_.empty())) return;
    scenario_version_ = state.version();
    const ClusterSpec& cluster = state.scenario().cluster;
    StepConfig next = config_;
    next.intra = Link::from(cluster.intra_node);
    next.inter = Link::from(cluster.inter_node);
    if (gpus_per_node_from_scenario_)
        next.gpus_per_node = static_cast<int>(std::clamp<int64_t>(cluster.gpus_per_node, 1, kMaxRanks));
    const std::string sized_from = scenario_dim_;
    apply(next, true);
    // A demonstration sized from the scenario follows it; one that no longer can goes back to free.
    if (!sized_from.empty()) (void)size_from_scenario_dim(state, sized_from);
}

std::string CollectivePanel::size_from_scenario_dim(const AppState& state, const std::string& dim) {
    const DimCost* cost = find_dim_cost(state.report(), dim);
    const CollectiveCall* call = cost ? dominant_call(*cost) : nullptr;
    if (!cost || cost->size <= 1 || !call)
        return "collective.scenario_dim: the scenario's " + dim + " is 1, so it sends nothing to animate";
    StepConfig next = config_;
    next.collective = call->op;
    const auto algos = step_algorithms_for(call->op);
    if (std::find(algos.begin(), algos.end(), next.algorithm) == algos.end()) next.algorithm = algos.front();
    next.ranks = static_cast<int>(std::clamp<int64_t>(cost->size, kMinRanks, kMaxRanks));
    next.root = std::min(next.root, next.ranks - 1);
    next.message_bytes = call->message_bytes;
    if (const std::string why = check_step_config(next); !why.empty()) return "collective.scenario_dim: " + why;
    const bool keep = next.ranks == config_.ranks && next.collective == config_.collective;
    if (std::string why = apply(next, keep); !why.empty()) return why;
    scenario_dim_ = dim;
    return {};
}

// What the demonstration stands for: one call of the dim, and the cost model's figures for all of them.
void CollectivePanel::draw_scenario_dim_line(const AppState& state) const {
    if (scenario_dim_.empty()) return;
    const DimCost* d = find_dim_cost(state.report(), scenario_dim_);
    const CollectiveCall* call = d ? dominant_call(*d) : nullptr;
    if (!call) return;
    const std::string per_step = format_bytes(d->bytes_per_step);
    const std::string time = format_seconds(d->time_s);
    std::string ranks = std::to_string(d->size) + " GPUs";
    if (d->size > kMaxRanks) ranks += " (" + std::to_string(kMaxRanks) + " drawn)";
    const std::string calls = format_count(call->calls_per_step) + (call->calls_per_step == 1 ? " call" : " such calls");
    text_wrapped_disabled("Sized from the scenario's " + d->name + ": one " + std::string(to_string(call->op)) + " of " +
                          format_bytes(call->message_bytes) + " on " + ranks + ", " + calls +
                          " per step. The cost model, every " + d->name + " call together: " + per_step +
                          " sent per GPU per step, " + time + " before overlap.");
    note_shown("report.dims." + d->name + ".bytes_per_step_gib", per_step);
    note_shown("report.dims." + d->name + ".time_s", time);
}

void CollectivePanel::sync_model() {
    if (!model_) return;
    const int done = static_cast<int>(std::floor(position_ + 1e-4f));
    if (model_->current_step() != done) model_->seek(done);
}

// --- Time ----------------------------------------------------------------------------------------

void CollectivePanel::advance(float dt) {
    if (!model_) return;
    const float total = static_cast<float>(step_total());
    if (playing_) target_ = total;
    if (position_ < target_) position_ = std::min(target_, position_ + speed_ * dt);
    if (playing_ && position_ >= total) playing_ = false;
    sync_model();
}

std::string CollectivePanel::probe_state() const {
    const int shown = static_cast<int>(std::floor(position_ + 1e-4f));
    return "step " + std::to_string(shown) + " of " + std::to_string(step_total()) + (playing_ ? ", playing" : ", paused");
}

void CollectivePanel::step_forward() {
    // While playing the target is the last step: pause one step past where the animation is. Paused,
    // repeated steps queue up from the target, so quick clicks are not lost.
    const float from = playing_ ? position_ : target_;
    playing_ = false;
    target_ = std::min(static_cast<float>(step_total()), std::floor(from + 1e-4f) + 1.0f);
}

void CollectivePanel::step_backward() {
    playing_ = false;
    seek(std::max(0.0f, std::ceil(position_ - 1e-4f) - 1.0f));
}

void CollectivePanel::seek(float position) {
    position_ = target_ = std::clamp(position, 0.0f, static_cast<float>(step_total()));
    sync_model();
}

void CollectivePanel::set_playing(bool on) {
    if (!model_) return;
    if (on && position_ >= static_cast<float>(step_total())) seek(0);  // play again from the start
    playing_ = on;
    if (!on) target_ = std::ceil(position_ - 1e-4f);  // let the packets in flight land
}

// --- Actions -------------------------------------------------------------------------------------

void CollectivePanel::reset_view(AppState&) {
    scenario_dim_.clear();
    set_playing(false);
    seek(0);
}

void CollectivePanel::declare_actions() {
    // A setup change: refuse what core cannot step, leaving everything as it was.
    const auto change_setup = [this](AppState& state, const std::function<void(StepConfig&)>& edit) {
        follow_scenario(state);
        StepConfig next = config_;
        edit(next);
        if (const std::string why = check_step_config(next); !why.empty()) return "collective." + why;
        return apply(next, false);
    };
    std::vector<std::string> setups;
    for (const NamedSetup& s : kSetups) setups.emplace_back(s.id);
    actions_.choice("algorithm", "the collective and the algorithm that runs it", setups,
                    [change_setup](AppState& state, const ActionValue& v) {
                        const NamedSetup& setup = *std::find_if(std::begin(kSetups), std::end(kSetups),
                                                                [&](const NamedSetup& s) { return v.text == s.id; });
                        return change_setup(state, [&](StepConfig& c) {
                            c.collective = setup.collective;
                            c.algorithm = setup.algorithm;
                        });
                    });
    std::vector<std::string> collectives;
    for (Collective c : kCollectives) collectives.emplace_back(to_string(c));
    actions_.choice("collective", "the collective, with the first algorithm that runs it", collectives,
                    [change_setup](AppState& state, const ActionValue& v) {
                        const Collective picked = *std::find_if(std::begin(kCollectives), std::end(kCollectives),
                                                                [&](Collective c) { return v.text == to_string(c); });
                        return change_setup(state, [&](StepConfig& c) {
                            c.collective = picked;
                            const auto algos = step_algorithms_for(picked);
                            if (std::find(algos.begin(), algos.end(), c.algorithm) == algos.end()) c.algorithm = algos.front();
                        });
                    });
    actions_.integer("ranks", "GPUs in the collective", kMinRanks, kMaxRanks, [change_setup](AppState& state, const ActionValue& v) {
        return change_setup(state, [&](StepConfig& c) {
            c.ranks = static_cast<int>(v.integer);
            c.root = std::min(c.root, c.ranks - 1);
        });
    });
    actions_.integer("gpus_per_node", "GPUs per node (the hierarchical algorithm's inner group)", 1, kMaxRanks,
                     [this, change_setup](AppState& state, const ActionValue& v) {
                         std::string why = change_setup(state, [&](StepConfig& c) { c.gpus_per_node = static_cast<int>(v.integer); });
                         if (why.empty()) gpus_per_node_from_scenario_ = false;
                         return why;
                     });
    actions_.integer("root", "the root rank of broadcast and reduce (below ranks)", 0, kMaxRanks - 1,
                     [this, change_setup](AppState& state, const ActionValue& v) {
                         follow_scenario(state);
                         if (v.integer >= config_.ranks)
                             return "\"" + v.text + "\" is not a rank of 0.." + std::to_string(config_.ranks - 1);
                         return change_setup(state, [&](StepConfig& c) { c.root = static_cast<int>(v.integer); });
                     });
    actions_.bytes("size", "bytes per rank", 1, 1024.0 * 1024 * 1024 * 1024, [change_setup](AppState& state, const ActionValue& v) {
        return change_setup(state, [&](StepConfig& c) { c.message_bytes = v.number; });
    });
    actions_.choice("scenario_dim", "size the animation from this dim of the scenario (its collective, group and message)",
                    {"tp", "cp", "dp_shard", "dp_replicate", "pp", "ep"}, [this](AppState& state, const ActionValue& v) {
                        scenario_version_ = 0;  // the links and GPUs per node first, then the dim's sizes
                        follow_scenario(state);
                        return size_from_scenario_dim(state, v.text);
                    });
    actions_.integer("step", "show the state after this many steps (0: before the first), paused", 0,
                     std::numeric_limits<int>::max(), [this](AppState& state, const ActionValue& v) -> std::string {
                         follow_scenario(state);
                         if (!model_) return error_;
                         if (v.integer > step_total())
                             return "\"" + v.text + "\" is not a step of 0.." + std::to_string(step_total());
                         playing_ = false;
                         seek(static_cast<float>(v.integer));
                         return {};
                     });
    actions_.on_off("play", "play (on) or pause (off) the animation", [this](AppState& state, const ActionValue& v) {
        follow_scenario(state);
        set_playing(v.on);
        return std::string();
    });
    actions_.number("speed", "steps per second while playing", 0.1, 20, [this](AppState& state, const ActionValue& v) {
        follow_scenario(state);
        speed_ = static_cast<float>(v.number);
        return std::string();
    });
}

// --- Records -------------------------------------------------------------------------------------

void CollectivePanel::refresh(AppState& state, ImVec2 canvas_size) {
    follow_scenario(state);
    rebuild_records(canvas_size);
}

void CollectivePanel::rebuild_records(ImVec2 canvas_size) {
    if (!model_) {
        scene_ = CollectiveScene{};
        readout_ = CollectiveReadout{};
        return;
    }
    sync_model();
    const int done = model_->current_step();
    SceneInput in;
    in.collective = &*model_;
    in.size = canvas_size;
    if (position_ > static_cast<float>(done) + 1e-4f) {
        in.arrows_step = done;  // in flight: the next step's packets leave from the buffers drawn
        in.before = &model_->buffers();
        in.flight = position_ - static_cast<float>(done);
    } else if (done > 0) {
        if (before_step_ != done - 1) {  // the buffers before the step just landed, for its payloads
            model_->step_back();
            before_ = model_->buffers();
            model_->step();
            before_step_ = done - 1;
        }
        in.arrows_step = done - 1;
        in.before = &before_;
        in.flight = 1.0f;
    }
    scene_ = build_scene(in);
    readout_ = make_readout();
    scene_.centre_title = readout_.step == 0 ? "Start" : "Step " + std::to_string(readout_.step) + " of " +
                                                             std::to_string(readout_.step_count);
    scene_.centre_subtitle = readout_.step == 0 ? "before the first step" : readout_.phase;
    if (model_->finished() && !readout_.in_flight) scene_.centre_subtitle += " - done";
}

CollectiveReadout CollectivePanel::make_readout() const {
    const SteppedCollective& m = *model_;
    CollectiveReadout r;
    const int done = m.current_step();
    r.in_flight = position_ > static_cast<float>(done) + 1e-4f;
    r.step = r.in_flight ? done + 1 : done;
    r.step_count = m.step_count();
    if (r.step >= 1) {
        const int k = r.step - 1;
        r.phase = std::string(to_string(m.phase(k)));
        r.caption = m.caption(k);
        r.bytes_this_step = max_of(m.bytes_in_step(k));
        r.step_time_s = m.step_time(k);
    } else {
        r.caption = "Before the first step: the buffers as the collective starts. Press Play or Step (or click here "
                    "and press the right arrow key) to watch the chunks move.";
    }
    r.bytes_so_far = max_of(m.bytes_sent());
    const std::vector<double> totals = m.total_bytes_sent();
    r.bytes_total = max_of(totals);
    r.same_for_every_gpu = min_of(totals) == r.bytes_total;
    r.formula_bytes = closed_form_bytes_per_rank(m.config());
    if (const char* text = formula_text(m.config().collective, m.config().algorithm); text && r.formula_bytes)
        r.formula_text = text;
    else
        r.formula_bytes.reset();
    r.elapsed_s = m.elapsed_time();
    r.total_s = m.total_time();
    r.algbw = m.algbw();
    r.busbw = m.busbw();
    r.crossover_bytes = latency_bandwidth_crossover(m);
    return r;
}

// --- Drawing -------------------------------------------------------------------------------------

void CollectivePanel::draw(AppState& state) {
    follow_scenario(state);
    draw_setup_controls(state);
    draw_transport();
    advance(ImGui::GetIO().DeltaTime);
    // The arrows are the animator's once a person clicked in it, not when it merely took the focus by
    // opening (a lesson step that opens it keeps stepping with them).
    // ImGui moves the focus to a clicked window only at the end of the click's frame: a click counts
    // even while the window is not focused yet.
    const bool focused = ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows);
    if (!focused) clicked_in_ = false;
    if (ImGui::IsWindowHovered(ImGuiHoveredFlags_RootAndChildWindows) && ImGui::IsMouseClicked(ImGuiMouseButton_Left))
        clicked_in_ = true;
    if (focused && clicked_in_ && !ImGui::IsAnyItemActive()) {
        state.ui.arrows_taken_frame = ImGui::GetFrameCount();
        if (ImGui::IsKeyPressed(keys::kRight)) step_forward();
        if (ImGui::IsKeyPressed(keys::kLeft)) step_backward();
        if (ImGui::IsKeyPressed(kSpaceKey, false)) set_playing(!playing_);
        // As |< and >| do.
        if (ImGui::IsKeyPressed(keys::kHome, false)) seek(0);
        if (ImGui::IsKeyPressed(keys::kEnd, false)) seek(static_cast<float>(step_total()));
    }
    draw_scenario_dim_line(state);
    ImGui::Separator();
    if (!model_) {
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "Cannot step this setup: %s", error_.c_str());
        scene_ = CollectiveScene{};
        readout_ = CollectiveReadout{};
        return;
    }

    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float legend_h = legend_height_;  // as tall as it came out last frame (it wraps)
    const bool wide = avail.x >= 980.0f;  // side by side; narrower windows stack and scroll
    const float side_w = wide ? std::clamp(avail.x * 0.36f, 400.0f, 580.0f) : avail.x;
    const ImVec2 canvas(wide ? avail.x - side_w - spacing : avail.x,
                        wide ? std::max(avail.y - legend_h, 200.0f)
                             : std::clamp(avail.y - legend_h, 260.0f, std::max(avail.x * 0.75f, 260.0f)));

    ImGui::BeginGroup();
    rebuild_records(canvas);
    draw_canvas(canvas);
    const float legend_top = ImGui::GetCursorPosY();
    draw_scene_legend(scene_);
    legend_height_ = ImGui::GetCursorPosY() - legend_top;
    ImGui::EndGroup();
    // Beside the canvas the figures scroll in a column of their own; below it they are part of the
    // window, which scrolls to them (a child there would get only the height the canvas left: none).
    if (wide) {
        ImGui::SameLine(0, spacing);
        ImGui::BeginChild("##collective_side", ImVec2(side_w, avail.y), false);
    }
    draw_readout();
    note_last_item("collective/readout");
    draw_chart();
    if (wide) ImGui::EndChild();
}

void CollectivePanel::draw_setup_controls(AppState& state) {
    (void)state;
    StepConfig next = config_;
    bool changed = false;
    bool gpus_per_node_touched = false;

    ImGui::SetNextItemWidth(150);
    if (ImGui::BeginCombo("collective", c_label(to_string(next.collective)).c_str())) {
        for (Collective c : kCollectives) {
            if (ImGui::Selectable(c_label(to_string(c)).c_str(), c == next.collective) && c != next.collective) {
                next.collective = c;
                const auto algos = step_algorithms_for(c);
                if (std::find(algos.begin(), algos.end(), next.algorithm) == algos.end()) next.algorithm = algos.front();
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    note_last_item("collective/collective");
    glossary_tooltip_for_last_item(glossary_term(next.collective));

    flow_control(labelled_width(170, "algorithm"));
    ImGui::SetNextItemWidth(170);
    if (ImGui::BeginCombo("algorithm", c_label(to_string(next.algorithm)).c_str())) {
        for (StepAlgorithm a : step_algorithms_for(next.collective)) {
            if (ImGui::Selectable(c_label(to_string(a)).c_str(), a == next.algorithm) && a != next.algorithm) {
                next.algorithm = a;
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    note_last_item("collective/algorithm");
    glossary_tooltip_for_last_item(glossary_term(next.algorithm));

    flow_control(labelled_width(130, "GPUs (N)"));
    ImGui::SetNextItemWidth(130);
    // A number typed with Ctrl+click is held to the slider's range.
    changed |= ImGui::SliderInt("GPUs (N)", &next.ranks, kMinRanks, kMaxRanks, "%d", ImGuiSliderFlags_AlwaysClamp);
    note_last_item("collective/ranks");

    flow_control(labelled_width(110, "GPUs per node"));
    ImGui::SetNextItemWidth(110);
    if (ImGui::SliderInt("GPUs per node", &next.gpus_per_node, 1, kMaxRanks, "%d", ImGuiSliderFlags_AlwaysClamp)) {
        changed = gpus_per_node_touched = true;
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Decides which transfers cross nodes. Starts at the scenario's cluster (%d per node).",
                          static_cast<int>(state.scenario().cluster.gpus_per_node));
    note_last_item("collective/gpus_per_node");

    flow_control(labelled_width(140, "message size"));
    ImGui::SetNextItemWidth(140);
    int size_log2 = static_cast<int>(std::lround(std::log2(std::max(next.message_bytes, 1.0))));
    size_log2 = std::clamp(size_log2, kMinSizeLog2, kMaxSizeLog2);
    const std::string size_text = format_bytes(next.message_bytes);
    // Dragged in powers of two. Typing (Ctrl+click) is off: the slider's value is the exponent, so a
    // typed "4 KiB" became 2^4 = 16 B and "4096" a size past any number.
    if (ImGui::SliderInt("message size", &size_log2, kMinSizeLog2, kMaxSizeLog2, size_text.c_str(),
                         ImGuiSliderFlags_NoInput)) {
        next.message_bytes = std::exp2(static_cast<double>(size_log2));
        changed = true;
    }
    note_last_item("collective/size");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The message size, as nccl-tests counts it. Drag: powers of two, %s to %s.",
                          format_bytes(std::exp2(kMinSizeLog2)).c_str(), format_bytes(std::exp2(kMaxSizeLog2)).c_str());

    if (next.collective == Collective::broadcast || next.collective == Collective::reduce) {
        flow_control(labelled_width(90, "root"));
        ImGui::SetNextItemWidth(90);
        changed |= ImGui::SliderInt("root", &next.root, 0, next.ranks - 1, "%d", ImGuiSliderFlags_AlwaysClamp);
    }
    next.ranks = std::clamp(next.ranks, kMinRanks, kMaxRanks);
    next.gpus_per_node = std::clamp(next.gpus_per_node, 1, kMaxRanks);
    next.root = std::clamp(next.root, 0, next.ranks - 1);
    if (!changed) return;
    if (gpus_per_node_touched) gpus_per_node_from_scenario_ = false;
    // Only the message size changing keeps the animation where it is: the schedule is the same.
    const bool same_schedule = next.collective == config_.collective && next.algorithm == config_.algorithm &&
                               next.ranks == config_.ranks && next.gpus_per_node == config_.gpus_per_node &&
                               next.root == config_.root;
    apply(next, same_schedule);
}

void CollectivePanel::draw_transport() {
    const bool usable = model_.has_value();
    if (!usable) ImGui::BeginDisabled();
    if (ImGui::Button("|<")) seek(0);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Back to the start");
    ImGui::SameLine();
    if (ImGui::Button("< Back")) step_backward();
    note_last_item("collective/step_back");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Undo one step (left arrow)");
    ImGui::SameLine();
    if (ImGui::Button(playing_ ? "Pause###play" : "Play###play", ImVec2(64, 0))) set_playing(!playing_);
    note_last_item("collective/play");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Play or pause (space)");
    ImGui::SameLine();
    if (ImGui::Button("Step >")) step_forward();
    note_last_item("collective/step");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("One step forward (right arrow)");
    ImGui::SameLine();
    if (ImGui::Button(">|")) seek(static_cast<float>(step_total()));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Jump to the end");

    const int total = step_total();
    int shown = static_cast<int>(std::floor(position_ + 1e-4f));
    // Steps landed, not the one in flight: while a step's chunks move, the canvas names that step
    // ("Step 6 of 14") and this says 5 of 14 have landed.
    const std::string scrub_format = "%d of " + std::to_string(total) + " steps done";
    flow_control(260);
    ImGui::SetNextItemWidth(260);
    if (ImGui::SliderInt("##scrub", &shown, 0, std::max(total, 1), scrub_format.c_str())) {
        playing_ = false;
        seek(static_cast<float>(std::clamp(shown, 0, total)));
    }
    note_last_item("collective/scrub");

    flow_control(labelled_width(150, "speed"));
    ImGui::SetNextItemWidth(150);
    ImGui::SliderFloat("speed", &speed_, 0.25f, 8.0f, "%.2g steps/s", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    if (!usable) ImGui::EndDisabled();
}

void CollectivePanel::draw_canvas(ImVec2 size) {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##collective_canvas", size);
    note_last_item("collective/canvas");
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
    draw->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(20, 22, 28, 255), 4.0f);
    paint_scene(scene_, draw, origin);
    draw->PopClipRect();
    // Only once the mouse has moved: a pointer resting where the window opened (screenshots) must
    // not cover the cards with a tooltip.
    const ImVec2 delta = ImGui::GetIO().MouseDelta;
    if (ImGui::IsItemHovered() && (delta.x != 0 || delta.y != 0)) pointer_moved_ = true;
    if (ImGui::IsItemHovered() && pointer_moved_) draw_card_tooltip(origin);
}

void CollectivePanel::draw_card_tooltip(ImVec2 origin) const {
    const ImVec2 mouse = local(ImGui::GetIO().MousePos, origin);
    for (const RankCard& card : scene_.cards) {
        if (!inside(card.rect, mouse)) continue;
        const std::vector<double> sent = model_->bytes_sent();
        std::string text = "GPU " + std::to_string(card.rank) + " on node " + std::to_string(card.node) +
                           "\nsent so far: " + format_bytes(sent[static_cast<size_t>(card.rank)]);
        for (const ChunkCell& cell : card.cells) {
            if (!inside(cell.rect, mouse)) continue;
            text += "\nslot " + std::to_string(cell.slot) + ": ";
            if (cell.chunk < 0) text += "empty";
            else if (scene_.reduction)
                text += "chunk " + std::to_string(cell.chunk) + ", sum of GPUs " + rank_list(cell.contributors) + " (" +
                        std::to_string(cell.contributors.size()) + " of " + std::to_string(scene_.ranks) + ")";
            else
                text += "chunk " + std::to_string(cell.chunk) + " from GPU " + rank_list(cell.contributors);
        }
        ImGui::SetTooltip("%s", text.c_str());
        return;
    }
}

void CollectivePanel::draw_readout() const {
    const CollectiveReadout& r = readout_;
    const char* who = r.same_for_every_gpu ? "per GPU" : "busiest GPU";
    if (ImGui::BeginTable("##collective_readout", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
        ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthFixed, 150.0f);
        ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
        auto row = [](const char* label, const std::string& value) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%s", label);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(value.c_str());
        };
        std::string step = std::to_string(r.step) + " of " + std::to_string(r.step_count);
        if (!r.phase.empty()) step += "  (" + r.phase + ")";
        if (r.in_flight) step += ", moving";
        row("Step", step);
        row("This step", r.step >= 1 ? format_bytes(r.bytes_this_step) + " " + who + ", " + format_seconds(r.step_time_s)
                                     : std::string("-"));
        row("Sent so far", format_bytes(r.bytes_so_far) + " of " + format_bytes(r.bytes_total) + " " + who);
        if (r.formula_bytes)
            row("Formula", r.formula_text + " = " + format_bytes(*r.formula_bytes) + " per GPU");
        else
            row("Formula", "none: a tree's traffic depends on where a GPU sits in it");
        row("Elapsed (alpha-beta)", format_seconds(r.elapsed_s) + " of " + format_seconds(r.total_s));
        row("algbw / busbw", format_bandwidth(r.algbw) + " / " + format_bandwidth(r.busbw));
        row("Latency-bound below", format_bytes(r.crossover_bytes));
        ImGui::EndTable();
    }
    ImGui::Spacing();
    text_wrapped(r.caption);
    ImGui::Spacing();
}

void CollectivePanel::draw_chart() {
    if (chart_stale_) {
        chart_ = time_vs_message_size(config_.collective, config_.ranks, config_.gpus_per_node, config_.intra,
                                      config_.inter);
        chart_stale_ = false;
    }
    if (chart_.empty()) return;
    const bool all_to_all = config_.collective == Collective::all_to_all;
    const std::string title = "Time of one " + std::string(to_string(config_.collective)) + " on " +
                              std::to_string(config_.ranks) + " GPUs, " + std::to_string(config_.gpus_per_node) +
                              " per node, against message size";
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(title.c_str());
    ImGui::PopTextWrapPos();

    // x is log2(bytes) on a linear axis, so ticks land on 1 KiB, 1 MiB, 1 GiB rather than on powers
    // of ten: the chart is log-log all the same.
    std::vector<double> x, ring, tree, hier;
    double lo = 1e300, hi = 0;
    for (const SizeTimePoint& p : chart_) {
        x.push_back(std::log2(p.bytes));
        ring.push_back(p.ring_s);
        lo = std::min(lo, p.ring_s);
        hi = std::max(hi, p.ring_s);
        if (p.tree_s) {
            tree.push_back(*p.tree_s);
            lo = std::min(lo, *p.tree_s);
            hi = std::max(hi, *p.tree_s);
        }
        if (p.hierarchical_s) {
            hier.push_back(*p.hierarchical_s);
            lo = std::min(lo, *p.hierarchical_s);
            hi = std::max(hi, *p.hierarchical_s);
        }
    }
    const ImU32 ring_colour = plot::categorical_colour(0), tree_colour = plot::categorical_colour(1),
                hier_colour = plot::categorical_colour(4);
    std::vector<plot::LegendEntry> legend{{all_to_all ? "pairwise" : "ring", ring_colour}};
    if (!tree.empty())
        legend.push_back({config_.collective == Collective::all_reduce ? "double binary tree" : "tree", tree_colour});
    if (!hier.empty()) legend.push_back({"hierarchical", hier_colour});
    legend.push_back({"this animation", IM_COL32(255, 255, 255, 255)});
    plot::legend(legend);

    const double y_min = std::pow(10.0, std::floor(std::log10(std::max(lo, 1e-9))));
    const double y_max = std::pow(10.0, std::ceil(std::log10(std::max(hi, 1e-9))));
    plot::Axis x_axis("message size", x.front(), x.back(), plot::Scale::linear,
                      [](double v) { return format_bytes(std::exp2(v)); });
    plot::Axis y_axis("time", y_min, y_max, plot::Scale::log10, [](double v) { return format_seconds(v); });
    const float height = std::max(ImGui::GetContentRegionAvail().y - 4.0f, 220.0f);
    plot::Chart chart("##collective_chart", ImVec2(-1, height), x_axis, y_axis);
    note_last_item("collective/chart");
    chart.line(plot::Series(legend.front().name, ring_colour, x, ring));
    if (!tree.empty()) chart.line(plot::Series(legend[1].name, tree_colour, x, tree, false, true));
    if (!hier.empty()) chart.line(plot::Series("hierarchical", hier_colour, x, hier));

    // Where latency gives way to bandwidth for the algorithm animated, and the message animated.
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 muted = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const CollectiveReadout& r = readout_;
    if (r.crossover_bytes > 0) {
        const double cx = std::log2(r.crossover_bytes);
        chart.vertical_line(cx, IM_COL32(200, 200, 200, 110), "");
        const ImVec2 top = chart.to_screen(cx, y_max);
        const char* left = "latency-bound";
        const char* right = "bandwidth-bound";
        const float text_y = top.y + ImGui::GetTextLineHeight() * 1.2f;
        draw->AddText(ImVec2(top.x - ImGui::CalcTextSize(left).x - 6, text_y), muted, left);
        draw->AddText(ImVec2(top.x + 6, text_y), muted, right);
    }
    const double sx = std::log2(config_.message_bytes);
    chart.vertical_line(sx, IM_COL32(255, 255, 255, 60), "");
    chart.point(sx, r.total_s, IM_COL32(255, 255, 255, 255), 5.0f,
                "this animation (" + std::string(to_string(config_.algorithm)) + ")\nS = " +
                    format_bytes(config_.message_bytes) + "\ntime: " + format_seconds(r.total_s));
    chart.end();
}

}  // namespace shardscope::ui
