#include "widgets/memory/memory_panel.hpp"

#include "widgets/kit/shown_figures.hpp"
#include "widgets/kit/number_field.hpp"

#include "core/export/table_csv.hpp"
#include "core/model/op_recompute.hpp"
#include "core/planner/planner.hpp"
#include "core/scenario/units.hpp"
#include "widgets/kit/flow.hpp"
#include "widgets/kit/glossary_terms.hpp"
#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/scroll_anchor.hpp"
#include "widgets/kit/tooltip.hpp"
#include "widgets/shell/copy_out.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>


#include <array>
#include <functional>
#include <iterator>
#include <optional>
#include <string_view>
#include <limits>

#include <algorithm>
#include <cstdlib>

namespace shardscope::ui {

namespace {

constexpr ImU32 kRed = IM_COL32(240, 80, 80, 255);
constexpr ImU32 kGreen = IM_COL32(110, 200, 120, 255);
constexpr ImU32 kCapacityLine = IM_COL32(255, 205, 70, 255);
constexpr float kWideLayout = 1000.0f;  // below this width the sections stack in one column
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const char* const kZeroLabels[] = {"0  (DDP: nothing sharded)", "1  (optimizer state)", "2  (+ gradients)",
                                   "3  (+ weights: FSDP)"};

void section_title(const char* text) {
    ImGui::Spacing();
    ImGui::TextUnformatted(text);
    ImGui::Separator();
}

template <typename Enum, size_t N>
int index_of(const std::array<Enum, N>& values, Enum v) {
    for (size_t i = 0; i < N; ++i)
        if (values[i] == v) return static_cast<int>(i);
    return 0;
}

// A combo whose entries note their rectangles as `key_prefix/NAME` (for lessons and tests); the index
// picked this frame, when it differs from `now`.
std::optional<int> keyed_combo(const char* label, float width, int now, const std::vector<std::string>& labels,
                               const std::string& key_prefix, const std::vector<std::string>& names) {
    std::optional<int> picked;
    ImGui::SetNextItemWidth(width);
    if (ImGui::BeginCombo(label, labels[static_cast<std::size_t>(now)].c_str())) {
        for (std::size_t i = 0; i < labels.size(); ++i) {
            if (ImGui::Selectable(labels[i].c_str(), static_cast<int>(i) == now) && static_cast<int>(i) != now)
                picked = static_cast<int>(i);
            note_last_item(key_prefix + "/" + names[i]);
        }
        ImGui::EndCombo();
    }
    note_last_item(key_prefix);
    return picked;
}

struct Rect {
    ImVec2 min, max;
    [[nodiscard]] bool overlaps(const Rect& o) const {
        return min.x < o.max.x && o.min.x < max.x && min.y < o.max.y && o.min.y < max.y;
    }
};

// The GPU's memory line label, on the line when there is room: above it at its right end, else below
// it, else at the left end; the first place that covers no bar and no total. The legend names the
// line in any case.
void draw_capacity_label(ImVec2 line_start, ImVec2 line_end, float plot_top, float plot_bottom, const std::string& label,
                         const std::vector<Rect>& taken) {
    constexpr float kMargin = 8.0f;
    const ImVec2 size = ImGui::CalcTextSize(label.c_str());
    const float right = line_end.x - size.x - 6.0f, left = line_start.x + 6.0f;
    const float above = line_end.y - size.y - 3.0f, below = line_end.y + 3.0f;
    const ImVec2 places[] = {{right, above}, {right, below}, {left, above}, {left, below}};
    for (const ImVec2& p : places) {
        const Rect r{ImVec2(p.x - kMargin, p.y - kMargin), ImVec2(p.x + size.x + kMargin, p.y + size.y + kMargin)};
        const bool inside = p.y >= plot_top && p.y + size.y <= plot_bottom;
        if (!inside || std::any_of(taken.begin(), taken.end(), [&](const Rect& t) { return t.overlaps(r); })) continue;
        ImDrawList* draw = ImGui::GetWindowDrawList();
        draw->AddRectFilled(ImVec2(p.x - 3.0f, p.y - 1.0f), ImVec2(p.x + size.x + 3.0f, p.y + size.y + 1.0f),
                            ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f), 3.0f);
        draw->AddText(p, kCapacityLine, label.c_str());
        note_rect("memory/chart/capacity_label", ItemRect{p.x, p.y, p.x + size.x, p.y + size.y});
        return;
    }
}

// The memory parts' legend, then the GPU's memory line.
void memory_legend(const std::string& capacity_label) {
    std::vector<plot::LegendEntry> entries;
    for (palette::MemoryPart part : kMemoryParts)
        entries.push_back({palette::memory_part_name(part), palette::memory_part_colour(part)});
    plot::legend(entries);
    const float h = ImGui::GetTextLineHeight();
    // On the legend's line when it fits there (in the column's cell, in the wide layout), else on its own.
    flow(h * 1.4f + 4.0f + ImGui::CalcTextSize(capacity_label.c_str()).x, 14.0f);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddLine(ImVec2(p.x, p.y + h * 0.5f), ImVec2(p.x + h * 1.4f, p.y + h * 0.5f), kCapacityLine, 2.0f);
    ImGui::Dummy(ImVec2(h * 1.4f, h));
    ImGui::SameLine(0, 4.0f);
    ImGui::TextUnformatted(capacity_label.c_str());
}

// Places the next checkbox as a wrapping row does: on this line where it fits whole, else on the next.
void flow_checkbox(const char* label) {
    const ImGuiStyle& style = ImGui::GetStyle();
    flow(ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(label).x, style.ItemSpacing.x);
}

}  // namespace

MemoryPanel::MemoryPanel(Placement placement, bool open) : Panel("memory", "Memory and cost", placement, open) {
    declare_actions();
}

const MemoryView& MemoryPanel::view(const AppState& state) {
    if (!has_view_ || view_.version != state.version()) {
        view_ = build_memory_view(state);
        has_view_ = true;
    }
    return view_;
}

void MemoryPanel::apply(AppState& state, const Scenario& candidate) {
    const Scenario before = state.scenario();
    const bool fitted = state.report().fits;
    control_error_ = state.try_apply(candidate);
    refused_at_version_ = state.version();
    controls_anchor_.hold();
    // Every control says what it changed; ZeRO stage 0 and the fix name theirs in more words. A refusal
    // is said there too, so the line never still reports an earlier change.
    if (!control_error_.empty()) state.ui.status = "Not applied: " + control_error_;
    else if (!(before == state.scenario()))
        state.ui.status = "Changed: " + scenario_changes(before, state.scenario()) + edit_outcome(state, fitted);
}

// What the status line adds to a change: how to undo it, and the verdict when the edit turned it (the
// verdict may have scrolled out of sight above the controls, which stay under the mouse).
std::string MemoryPanel::edit_outcome(const AppState& state, bool fitted_before) {
    const Report& r = state.report();
    std::string out = " (Ctrl+Z undoes it)";
    if (r.fits != fitted_before)
        out += std::string(r.fits ? ". Now fits: " : ". Now does not fit: ") + format_memory(r.memory.total()) + " of " +
               format_memory(r.gpu_memory_bytes) + " on the most loaded GPU";
    return out;
}

// The ZeRO stage, by combo or action: stage 0 folds the shards into replicas and back, and the status
// line names what moved with it, the stage first.
void MemoryPanel::apply_zero(AppState& state, int zero) {
    const Scenario before = state.scenario();
    const bool fitted = state.report().fits;
    apply(state, with_zero_stage(before, zero));
    std::vector<KnobChange> changes = data_parallel_changes(before, state.scenario());
    if (control_error_.empty() && !changes.empty()) {
        changes.insert(changes.begin(), KnobChange{"zero", std::to_string(before.parallel.zero), std::to_string(zero)});
        state.ui.status = "Changed: " + changes_text(changes) + edit_outcome(state, fitted);
    }
}

void MemoryPanel::refuse_typed(AppState& state, const std::string& why) {
    control_error_ = why;
    refused_at_version_ = state.version();
    state.ui.status = "Not applied: " + why;
}

void MemoryPanel::declare_actions() {
    // Each edit goes through core's validation; a rejected one shows "Not applied" and is returned.
    const auto edit = [this](AppState& state, const std::function<void(Scenario&)>& change) {
        Scenario c = state.scenario();
        change(c);
        apply(state, c);
        return control_error_;
    };
    actions_.integer("zero", "ZeRO stage (0 turns sharding off)", 0, 3, [this](AppState& state, const ActionValue& v) {
        apply_zero(state, static_cast<int>(v.integer));
        return control_error_;
    });
    actions_.choice("recompute", "which activations are recomputed in the backward pass", names_of(kAllRecomputes),
                    [edit](AppState& state, const ActionValue& v) {
                        return edit(state, [&](Scenario& c) { c.training.recompute = *recompute_from_string(v.text); });
                    });
    actions_.choice("precision", "the bytes per parameter for weights, gradients and optimizer state", names_of(kAllPrecisions),
                    [edit](AppState& state, const ActionValue& v) {
                        return edit(state, [&](Scenario& c) { c.training.precision = *precision_from_string(v.text); });
                    });
    {
        std::vector<std::string> impls{"auto"};
        for (ZeroImpl z : kAllZeroImpls) impls.emplace_back(to_string(z));
        actions_.choice("zero_impl", "who runs ZeRO-3 (auto: the stack's own)", impls,
                        [edit](AppState& state, const ActionValue& v) {
                            return edit(state, [&](Scenario& c) { c.parallel.zero_impl = zero_impl_from_string(v.text); });
                        });
    }
    actions_.choice("kernels", "how the element-wise work runs: eager (PyTorch op by op) or fused (Megatron-LM, Transformer Engine)",
                    {"eager", "fused"}, [edit](AppState& state, const ActionValue& v) {
                        return edit(state, [&](Scenario& c) { c.training.fused_kernels = v.text == "fused"; });
                    });
    actions_.text("recompute_modules", "NAME[+NAME]",
                  "what selective recompute re-runs on the fused stack: core_attn, layernorm, mla_up_proj, moe_act "
                  "joined by +, or none",
                  [edit](AppState& state, const ActionValue& v) {
                      const std::optional<RecomputeModules> mods = recompute_modules_from_text(v.text);
                      if (!mods) return "\"" + v.text + "\": name core_attn, layernorm, mla_up_proj or moe_act, joined by +, or none";
                      return edit(state, [&](Scenario& c) { c.training.recompute_modules = *mods; });
                  });
    // A switch of Megatron-LM's, refused with core's rule where it does not apply.
    const auto training_switch = [&](const char* name, const char* what, bool TrainingSpec::*field,
                                     std::string (*refusal)(const TrainingSpec&)) {
        actions_.on_off(name, what, [edit, field, refusal](AppState& state, const ActionValue& v) {
            TrainingSpec t = state.scenario().training;
            t.*field = v.on;
            if (std::string e = refusal(t); !e.empty()) return e;
            return edit(state, [&](Scenario& c) { c.training = t; });
        });
    };
    training_switch("fp8_activation_input", "the activation function's input kept in FP8 (precision fp8 only)",
                    &TrainingSpec::activation_func_fp8_input_store, &fp8_activation_input_error);
    training_switch("fp8_params", "the blocks' weights kept and gathered in FP8 alone (precision fp8, fused kernels)",
                    &TrainingSpec::fp8_param_gather, &fp8_param_gather_error);
    training_switch("grad_reduce_in_bf16", "gradients accumulated and reduced in bf16 (precision megatron-bf16 or fp8)",
                    &TrainingSpec::grad_reduce_in_bf16, &grad_reduce_in_bf16_error);
    actions_.choice("adam_moments", "the dtype of Adam's two moments", {"fp32", "bf16"},
                    [edit](AppState& state, const ActionValue& v) {
                        return edit(state, [&](Scenario& c) { c.training.bf16_adam_moments = v.text == "bf16"; });
                    });
    actions_.choice("recompute_method", "under recompute full: uniform groups of n blocks, or the first n blocks a stage",
                    {"uniform", "block"}, [edit](AppState& state, const ActionValue& v) {
                        return edit(state, [&](Scenario& c) { c.training.recompute_method = *recompute_method_from_string(v.text); });
                    });
    actions_.integer("recompute_num_layers", "under recompute full: n, the group size or the blocks re-run a stage", 1,
                     std::numeric_limits<int32_t>::max(), [edit](AppState& state, const ActionValue& v) {
                         return edit(state, [&](Scenario& c) { c.training.recompute_num_layers = v.integer; });
                     });
    actions_.integer("micro_batch", "sequences per micro-batch", 1, std::numeric_limits<int32_t>::max(),
                     [edit](AppState& state, const ActionValue& v) {
                         return edit(state, [&](Scenario& c) { c.training.micro_batch = v.integer; });
                     });
    actions_.trigger("apply_fix", "apply the fastest change that makes the scenario fit", [this](AppState& state, const ActionValue&) {
        const MemoryView& v = view(state);
        if (!v.advice.found) return v.fits ? std::string("the scenario already fits") : v.advice_line;
        const FitAdvice advice = v.advice;
        apply_fix(state, advice);
        return control_error_;
    });
}

void MemoryPanel::draw(AppState& state) {
    const MemoryView& v = view(state);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped(v.setup_line);
    ImGui::PopStyleColor();
    const float width = ImGui::GetContentRegionAvail().x;
    if (width < kWideLayout) {
        draw_memory_section(state, 260.0f);
        draw_controls(state);
        draw_step_section();
        draw_compute_section(state);
        draw_figures();
        draw_notes();
        return;
    }
    // Wide: memory on the left; what changes it and what the step costs on the right.
    if (!ImGui::BeginTable("##memory_layout", 2, ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp))
        return;
    ImGui::TableSetupColumn("memory", ImGuiTableColumnFlags_WidthStretch, 1.15f);
    ImGui::TableSetupColumn("cost", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    // The chart takes what the fix, legend and table leave of the column.
    const float rows = 12.0f + static_cast<float>(view_.advice.needed ? 2 : 0);
    draw_memory_section(state, std::max(280.0f, ImGui::GetContentRegionAvail().y - rows * ImGui::GetFrameHeightWithSpacing()));
    ImGui::TableSetColumnIndex(1);
    draw_controls(state);
    draw_step_section();
    draw_compute_section(state);
    draw_figures();
    draw_notes();
    ImGui::EndTable();
}

void MemoryPanel::draw_memory_section(AppState& state, float chart_height) {
    section_title("Memory per GPU");
    draw_fit(state);
    draw_memory_chart(chart_height);
    memory_legend(view_.capacity_label);
    draw_memory_table();
    if (ImGui::SmallButton("Copy as CSV")) copy_csv(state, memory_csv(state.report()), "memory table (every stage)");
    note_last_item("memory/csv");
}

// The axis runs in whole binary units (GiB, or TiB past one) so its ticks land on round numbers;
// the records keep bytes, only the painting is scaled. With a fix on offer, a faded last bar shows the
// most loaded GPU after it.
void MemoryPanel::draw_memory_chart(float height) {
    const MemoryView& v = view_;
    std::vector<const MemoryBarRecord*> bars;
    for (const MemoryBarRecord& b : v.bars) bars.push_back(&b);
    const MemoryBarRecord* preview = v.fix_preview ? &*v.fix_preview : nullptr;
    if (preview) bars.push_back(preview);
    double top = v.capacity_bytes;
    for (const MemoryBarRecord* b : bars) top = std::max(top, b->total_bytes);
    const double unit = top >= 1024.0 * kGiB ? 1024.0 * kGiB : top >= kGiB ? kGiB : 1024.0 * 1024.0;
    const double axis_top = top / unit * 1.12;  // head room for the totals printed above the bars
    const auto bytes = [unit](double u) { return format_memory(u * unit); };
    const auto no_label = [](double) { return std::string(); };
    const double n = static_cast<double>(bars.size());
    plot::Chart chart("##memory_chart", ImVec2(-1.0f, height), plot::Axis("", -0.5, n - 0.5, plot::Scale::linear, no_label),
                      plot::Axis("", 0, axis_top, plot::Scale::linear, bytes));
    std::vector<plot::BarStack> stacks;
    for (const MemoryBarRecord* b : bars) {
        stacks.push_back(b->stack);
        for (plot::Segment& seg : stacks.back().segments) {
            seg.value /= unit;
            if (b == preview) seg.colour = (seg.colour & 0x00FFFFFFu) | (150u << IM_COL32_A_SHIFT);
        }
    }
    chart.stacked_bars(stacks);
    chart.horizontal_line(v.capacity_bytes / unit, kCapacityLine, "");
    ImDrawList* draw = ImGui::GetWindowDrawList();
    if (v.fix_preview)  // the after-fix bar is not a stage: a thin rule sets it apart
        chart.vertical_line(static_cast<double>(v.bars.size()) - 0.5, ImGui::GetColorU32(ImGuiCol_TextDisabled), "");
    // Each bar's total above it, red when it does not fit. What is drawn is kept so that the
    // capacity label can find a free place.
    std::vector<Rect> taken;
    std::vector<Rect> totals;  // the totals drawn so far
    const float x_left = chart.to_screen(-0.5, 0).x, x_right = chart.to_screen(n - 0.5, 0).x;
    const float half = std::min((x_right - x_left) / static_cast<float>(bars.size()) * 0.32f, 60.0f) + 2.0f;
    const float slot = (x_right - x_left) / static_cast<float>(bars.size());
    const float line_y = chart.to_screen(0, v.capacity_bytes / unit).y;
    note_rect("memory/chart/capacity_line", ItemRect{x_left, line_y, x_right, line_y});
    for (size_t i = 0; i < bars.size(); ++i) {
        const MemoryBarRecord& b = *bars[i];
        const ImVec2 at = chart.to_screen(static_cast<double>(i), b.total_bytes / unit);
        const ImVec2 bottom = chart.to_screen(static_cast<double>(i), 0);
        // Neighbouring totals must not run into each other: the share goes first when room is short.
        const std::string& text = ImGui::CalcTextSize(b.total_text.c_str()).x + 6.0f <= slot ? b.total_text : b.total_short;
        const ImVec2 size = ImGui::CalcTextSize(text.c_str());
        ImVec2 text_at(at.x - size.x * 0.5f, at.y - size.y - 4.0f);
        const float top = chart.to_screen(0, axis_top).y;
        // A total just under the GPU's memory line would be struck through by it: lift it over the line.
        const auto clear_of_line = [&] {
            if (text_at.y - 2.0f < line_y && line_y < text_at.y + size.y + 2.0f) text_at.y = line_y - size.y - 4.0f;
        };
        clear_of_line();
        // Even the short total wider than the slot runs into its neighbour's: a line above it (below
        // it when that would leave the chart).
        for (const Rect& other : totals) {
            const bool overlaps = text_at.x < other.max.x + 2.0f && other.min.x < text_at.x + size.x + 2.0f &&
                                  text_at.y < other.max.y + 2.0f && other.min.y < text_at.y + size.y + 2.0f;
            if (!overlaps) continue;
            text_at.y = other.min.y - size.y - 2.0f >= top ? other.min.y - size.y - 2.0f : other.max.y + 2.0f;
            clear_of_line();
        }
        text_at.y = std::max(text_at.y, top);
        totals.push_back(Rect{text_at, ImVec2(text_at.x + size.x, text_at.y + size.y)});
        draw->AddText(text_at, b.fits ? kGreen : kRed, text.c_str());
        note_rect("memory/chart/total/" + std::to_string(i), ItemRect{text_at.x, text_at.y, text_at.x + size.x, text_at.y + size.y});
        taken.push_back(Rect{text_at, ImVec2(text_at.x + size.x, text_at.y + size.y)});
        taken.push_back(Rect{ImVec2(at.x - half, at.y - 2.0f), ImVec2(at.x + half, bottom.y)});
    }
    draw_capacity_label(chart.to_screen(-0.5, v.capacity_bytes / unit), chart.to_screen(n - 0.5, v.capacity_bytes / unit),
                        chart.to_screen(0, axis_top).y, chart.to_screen(0, 0).y, v.capacity_label, taken);
    chart.end();
    note_last_item("memory/chart");
}

namespace {

// The lesson quantity each row of the memory table shows, in kMemoryParts' order (none for the
// runtime's parts, which no quantity names).
constexpr const char* kPartQuantities[kMemoryPartCount] = {"report.memory.params_gib", "report.memory.grads_gib",
                                                           "report.memory.optimizer_gib", "report.memory.activations_gib",
                                                           nullptr, nullptr};

// The column the report's figures are of: the most loaded GPU (the only bar without a pipeline; the
// fix's preview is never it).
bool describes_report(const MemoryBarRecord& b) { return b.most_loaded; }

}  // namespace

// Weights, gradients and optimizer state together: what ZeRO shards, read without adding three rows.
void MemoryPanel::draw_model_state_row(const std::vector<const MemoryBarRecord*>& bars) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextDisabled("model state (first three)");
    for (size_t i = 0; i < bars.size(); ++i) {
        ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
        const std::string text = format_memory(bars[i]->model_state_bytes);
        ImGui::TextDisabled("%s", text.c_str());
        if (describes_report(*bars[i])) note_shown("report.memory.model_state_gib", text);
    }
}

void MemoryPanel::draw_memory_table() {
    const MemoryView& v = view_;
    std::vector<const MemoryBarRecord*> bars;
    for (const MemoryBarRecord& b : v.bars) bars.push_back(&b);
    const MemoryBarRecord* preview = v.fix_preview ? &*v.fix_preview : nullptr;
    if (preview) bars.push_back(preview);
    const int columns = 1 + static_cast<int>(bars.size());
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame;
    if (!ImGui::BeginTable("##memory_table", columns, flags)) return;
    ImGui::TableSetupColumn("part");
    for (const MemoryBarRecord* b : bars) {
        std::string heading = b->stack.label;
        // The stage's role is printed under its bar; the narrow column keeps "stage N".
        if (const auto cut = heading.find('\n'); cut != std::string::npos) heading.resize(cut);
        if (b->most_loaded && v.bars.size() > 1 && b != preview) heading += " *";
        ImGui::TableSetupColumn(heading.c_str());
    }
    ImGui::TableHeadersRow();
    for (int part = 0; part < kMemoryPartCount; ++part) {
        const palette::MemoryPart kind = kMemoryParts[part];
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::memory_part_colour(kind)), "%s",
                           palette::memory_part_name(kind));
        for (size_t i = 0; i < bars.size(); ++i) {
            ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
            if (kind == palette::MemoryPart::activations && !bars[i]->activations_known)
                ImGui::TextDisabled("n/a (no architecture)");
            else {
                const std::string text = format_memory(bars[i]->stack.segments[static_cast<size_t>(part)].value);
                ImGui::TextUnformatted(text.c_str());
                if (describes_report(*bars[i]) && kPartQuantities[part]) note_shown(kPartQuantities[part], text);
            }
            if (kind == palette::MemoryPart::other && !bars[i]->other_detail.empty()) {
                note_last_item("memory/table/other/" + std::to_string(i));
                wrapped_tooltip_for_last_item(bars[i]->other_detail);
            }
        }
    }
    draw_model_state_row(bars);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted("total");
    for (size_t i = 0; i < bars.size(); ++i) {
        ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
        const MemoryBarRecord& b = *bars[i];
        const bool room = ImGui::CalcTextSize(b.total_text.c_str()).x <= ImGui::GetContentRegionAvail().x;
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(b.fits ? kGreen : kRed), "%s",
                           room ? b.total_text.c_str() : b.total_short.c_str());
        if (describes_report(b)) note_shown("report.memory.total_gib", b.total_short);
    }
    ImGui::EndTable();
    if (v.bars.size() > 1) ImGui::TextDisabled("* the most loaded GPU, the one the report describes");
}

void MemoryPanel::draw_fit(AppState& state) {
    const MemoryView& v = view_;
    ImGui::PushTextWrapPos(0.0f);
    text_wrapped_coloured(ImGui::ColorConvertU32ToFloat4(v.fits ? kGreen : kRed), v.fit_line);
    note_shown("report.fits", v.fit_line);
    if (!v.host_line.empty()) {
        text_wrapped_coloured(ImGui::ColorConvertU32ToFloat4(v.host_fits ? kGreen : kRed), v.host_line);
        note_last_item("memory/host");
    }
    if (v.fits) {
        ImGui::PopTextWrapPos();
        return;
    }
    text_wrapped(v.advice_line);
    ImGui::PopTextWrapPos();
    if (!v.advice.found) return;
    // The line above names every field the fix changes; the button repeats them where they fit and
    // points at the line where they would be cut off.
    const std::string full = "Apply: " + v.advice.summary();
    const bool fits = ImGui::CalcTextSize(full.c_str()).x + 2.0f * ImGui::GetStyle().FramePadding.x <=
                      ImGui::GetContentRegionAvail().x;
    const std::string label = (fits ? full : std::string("Apply the fix above")) + "###apply_fix";
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.20f, 0.45f, 0.25f, 1.0f));
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.25f, 0.55f, 0.30f, 1.0f));
    const bool clicked = ImGui::Button(label.c_str());
    ImGui::PopStyleColor(2);
    note_last_item("memory/apply_fix");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Applies core's fix to the scenario (Ctrl+Z undoes it).");
    if (clicked) apply_fix(state, v.advice);
}

void MemoryPanel::apply_fix(AppState& state, const FitAdvice& advice) {
    apply(state, advice.scenario);
    if (control_error_.empty()) state.ui.status = "Applied the fix: " + advice.summary() + " (Ctrl+Z undoes it)";
}

// A typed micro-batch is checked like any edit; - and + step to the next size that splits the global
// batch over the data-parallel ranks (core's list), greyed with the reason when there is none.
void MemoryPanel::draw_micro_batch_control(AppState& state, float field) {
    const Scenario& s = state.scenario();
    const std::vector<int64_t> sizes = valid_micro_batches(s);
    const int64_t now = s.training.micro_batch;
    const auto above = std::upper_bound(sizes.begin(), sizes.end(), now);
    const auto at_or_above = std::lower_bound(sizes.begin(), sizes.end(), now);
    const std::optional<int64_t> smaller =
        at_or_above == sizes.begin() ? std::nullopt : std::optional<int64_t>(*std::prev(at_or_above));
    const std::optional<int64_t> larger = above == sizes.end() ? std::nullopt : std::optional<int64_t>(*above);
    // Core's validation says what is wrong with a whole number (0, -3, one that does not split the batch).
    const auto set_to = [&](int64_t mb) {
        Scenario c = s;
        c.training.micro_batch = mb;
        apply(state, c);
    };
    const ImGuiStyle& style = ImGui::GetStyle();
    const float button = ImGui::GetFrameHeight();
    ImGui::SetNextItemWidth(std::max(button, field - 2.0f * (button + style.ItemInnerSpacing.x)));
    // Read whole when left: ImGui's InputInt made 2.5 a 2 and 1e3 a 13 without a word.
    const std::optional<WholeNumberRead> typed = whole_number_field("##micro_batch", micro_batch_text_, now);
    note_last_item("memory/micro_batch");
    if (typed && typed->value) set_to(*typed->value);
    else if (typed) refuse_typed(state, "micro_batch: " + typed->error);
    const std::string per_rank = std::to_string(s.training.global_batch) + " sequences over the data-parallel ranks";
    const auto step_button = [&](const char* label, const char* key, const std::optional<int64_t>& to,
                                 const char* direction) {
        ImGui::SameLine(0, style.ItemInnerSpacing.x);
        ImGui::BeginDisabled(!to);
        if (ImGui::Button(label, ImVec2(button, button)) && to) set_to(*to);
        ImGui::EndDisabled();
        note_last_item(key);
        const bool at_one = !to && now == 1 && std::string_view(direction) == "smaller";
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", to       ? ("Micro-batch " + std::to_string(*to) + ": the next " + direction +
                                                " size that splits " + per_rank)
                                                   .c_str()
                                    : at_one ? "One sequence is the smallest micro-batch there is"
                                             : ("No " + std::string(direction) + " micro-batch splits " + per_rank).c_str());
    };
    step_button("-", "memory/micro_batch/smaller", smaller, "smaller");
    step_button("+", "memory/micro_batch/larger", larger, "larger");
    ImGui::SameLine(0, style.ItemInnerSpacing.x);
    ImGui::TextUnformatted("Micro-batch (sequences)");
}

// Who runs ZeRO-3: the implementations issue their collectives differently (core/model/zero3.hpp).
void MemoryPanel::draw_zero_impl_control(AppState& state, float field) {
    const Scenario& s = state.scenario();
    const int current = s.parallel.zero_impl ? 1 + static_cast<int>(*s.parallel.zero_impl) : 0;
    std::vector<std::string> labels{"the stack's own (" +
                                    std::string(to_string(effective_zero_impl(ParallelSpec{}, s.training.fused_kernels))) +
                                    ")"};
    std::vector<std::string> keys{"auto"};
    for (ZeroImpl z : kAllZeroImpls) {
        labels.emplace_back(to_string(z));
        keys.emplace_back(to_string(z));
    }
    if (const std::optional<int> picked = keyed_combo("ZeRO-3 by", field, current, labels, "memory/zero_impl", keys)) {
        Scenario c = s;
        c.parallel.zero_impl = *picked == 0 ? std::nullopt : std::optional<ZeroImpl>(kAllZeroImpls[static_cast<std::size_t>(*picked - 1)]);
        apply(state, c);
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", "Which implementation runs ZeRO-3. FSDP1, FSDP2 and Megatron-FSDP gather a block at a time, "
                                "the next one prefetched under the compute (FSDP2 also copies in and out of flat buffers). "
                                "DeepSpeed gathers each weight matrix on its own call; DeepSpeed 0.3 (2021) put every "
                                "gather behind a device synchronize and copied once per rank. The step bar's tooltip "
                                "and the dp_shard row below list the calls.");
}

// Megatron-LM's --recompute-method and --recompute-num-layers, under a full recompute.
void MemoryPanel::draw_recompute_method(AppState& state, float field) {
    const Scenario& s = state.scenario();
    const int now = s.training.recompute_method == RecomputeMethod::block ? 1 : 0;
    if (const std::optional<int> picked =
            keyed_combo("Recompute method", field, now, {"uniform (groups of n blocks)", "block (first n blocks a stage)"},
                        "memory/recompute_method", {"uniform", "block"})) {
        Scenario c = s;
        c.training.recompute_method = *picked == 1 ? RecomputeMethod::block : RecomputeMethod::uniform;
        apply(state, c);
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", "Uniform keeps one input per group of n blocks and re-runs the whole group in the backward "
                                "(n = 1: every block on its own). Block re-runs only the first n blocks of each stage and "
                                "keeps every activation of the rest: less compute, more memory.");
    ImGui::SetNextItemWidth(field);
    const std::optional<WholeNumberRead> typed =
        whole_number_field("##recompute_num_layers", recompute_layers_text_, s.training.recompute_num_layers);
    note_last_item("memory/recompute_num_layers");
    if (typed && typed->value) {
        Scenario c = s;
        c.training.recompute_num_layers = *typed->value;
        apply(state, c);
    } else if (typed) {
        refuse_typed(state, "recompute_num_layers: " + typed->error);
    }
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::TextUnformatted("n (recompute_num_layers)");
}

// Which stack runs the element-wise work: it decides what selective recompute means and how the
// norms, rotary and activations stream.
void MemoryPanel::draw_kernels_control(AppState& state, float field) {
    const Scenario& s = state.scenario();
    const std::optional<int> picked =
        keyed_combo("Kernels", field, s.training.fused_kernels ? 1 : 0,
                    {"PyTorch eager (op by op)", "fused (Megatron-LM / TE)"}, "memory/kernels", {"eager", "fused"});
    if (picked) {
        Scenario c = s;
        c.training.fused_kernels = *picked == 1;
        apply(state, c);
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", "Fused: Megatron-LM and Transformer Engine run each norm, rotary and activation as one "
                                "kernel, and selective recompute re-runs the modules ticked below it.\n"
                                "Eager: PyTorch op by op, as FSDP and DeepSpeed runs of Hugging Face or torchtitan "
                                "models do; selective recompute is torchtitan's op-level policy.");
}

// Megatron-LM's --recompute-modules, a box each; a module the model lacks is greyed with the reason.
void MemoryPanel::draw_recompute_modules(AppState& state) {
    const Scenario& s = state.scenario();
    // What each of core's modules does, in its order, and why it is greyed where the model lacks it.
    struct Box {
        bool applies;
        const char* what;
        const char* missing;
    };
    const std::array<Box, kRecomputeModuleNames.size()> boxes = {{
        {true, "the attention core (scores, softmax, weighted sum) re-runs", ""},
        {true, "the block's two norms re-run; their outputs are not kept", ""},
        {s.model.is_mla(), "MLA's up-projections and rotary re-run; Q, K, V and the normed latents are not kept",
         " (this model has no MLA)"},
        {s.model.is_moe(), "the routed experts' activation re-runs; its output is not kept", " (this model has no experts)"},
    }};
    ImGui::TextDisabled("Recompute modules:");
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const Box& box = boxes[i];
        const std::string name(kRecomputeModuleNames[i]);
        bool RecomputeModules::*const module = kRecomputeModuleFields[i];
        flow_checkbox(name.c_str());
        bool on = s.training.recompute_modules.*module;
        ImGui::BeginDisabled(!box.applies);
        if (ImGui::Checkbox(name.c_str(), &on)) {
            Scenario c = s;
            c.training.recompute_modules.*module = on;
            apply(state, c);
        }
        ImGui::EndDisabled();
        note_last_item("memory/recompute_module/" + name);
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s: %s%s", name.c_str(), box.what, box.applies ? "" : box.missing);
    }
}

// Precision with every choice core knows, each with its bytes per parameter as core counts them, then
// the two state savings that go with it.
void MemoryPanel::draw_precision_controls(AppState& state, float field) {
    const Scenario& s = state.scenario();
    std::vector<std::string> labels;
    for (Precision p : kAllPrecisions) {
        TrainingSpec t = s.training;
        t.precision = p;
        const StateBytesPerParam per = state_bytes_per_param(t);
        labels.push_back(std::string(to_string(p)) + " (" + format_count(per.weights) + "+" + format_count(per.grads) +
                         "+" + format_count(per.optimizer) + " B)");
    }
    std::vector<std::string> names;
    for (Precision p : kAllPrecisions) names.emplace_back(to_string(p));
    if (const std::optional<int> picked = keyed_combo("Precision", field, index_of(kAllPrecisions, s.training.precision),
                                                      labels, "memory/precision", names)) {
        Scenario c = s;
        c.training.precision = kAllPrecisions[static_cast<std::size_t>(*picked)];
        apply(state, c);
    }
    glossary_tooltip_for_last_item(terms::kPrecision);

    draw_megatron_switch(state, "FP8 activation input", "memory/fp8_activation_input", fp8_activation_input_applies(s.training),
                    &TrainingSpec::activation_func_fp8_input_store,
                    "The activation function's input (SwiGLU's gate and up) kept in FP8 for the backward, 1 byte an "
                    "element (Megatron-LM's --activation-func-fp8-input-store)",
                    "Megatron-LM's switch: only with precision fp8 and fused kernels (PyTorch's float8 keeps the "
                    "activation's input in bf16)");
    ImGui::SameLine();
    draw_megatron_switch(state, "FP8 params", "memory/fp8_params", fp8_param_gather_applies(s.training),
                    &TrainingSpec::fp8_param_gather,
                    "The blocks' weights kept and all-gathered in FP8 alone, 1 byte a weight, the FP32 master in the "
                    "optimizer (Megatron-LM's --fp8-param-gather; NeMo's FP8 recipe sets it)",
                    "Megatron-LM's switch: only with precision fp8 and fused kernels (PyTorch's float8 keeps BF16 weights)");
    ImGui::SameLine();
    bool bf16_moments = s.training.bf16_adam_moments;
    if (ImGui::Checkbox("bf16 Adam moments", &bf16_moments)) {
        Scenario c = s;
        c.training.bf16_adam_moments = bf16_moments;
        apply(state, c);
    }
    note_last_item("memory/bf16_adam_moments");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", "Adam's two moments in bf16 instead of fp32: 4 bytes a parameter fewer in the "
                                "optimizer state (Megatron-LM's --exp-avg-dtype / --exp-avg-sq-dtype bf16; "
                                "DeepSeek-V3 trained so)");
    flow_checkbox("BF16 grads");
    draw_megatron_switch(state, "BF16 grads", "memory/grad_reduce_in_bf16", grad_reduce_in_bf16_applies(s.training),
                         &TrainingSpec::grad_reduce_in_bf16,
                         "Gradients accumulated and reduced in bf16, 2 bytes a parameter instead of FP32 main "
                         "gradients, and half the data-parallel reduction's bytes (Megatron-LM's --grad-reduce-in-bf16)",
                         "Megatron-LM's switch: only with precision megatron-bf16 or fp8, whose main gradients are FP32 "
                         "(mixed-bf16 keeps 2-byte gradients already)");
    flow_checkbox("Optimizer on host");
    draw_offload_switch(state);
}

// The optimizer in host memory: greyed where the layout has no sharded optimizer (core's rule, shown).
void MemoryPanel::draw_offload_switch(AppState& state) {
    const Scenario& s = state.scenario();
    const std::string refused = offload_error(s.parallel, Offload::optimizer);
    bool on = s.training.offload == Offload::optimizer;
    ImGui::BeginDisabled(!refused.empty() && !on);
    if (ImGui::Checkbox("Optimizer on host", &on)) {
        Scenario c = s;
        c.training.offload = on ? Offload::optimizer : Offload::none;
        apply(state, c);
    }
    ImGui::EndDisabled();
    note_last_item("memory/offload");
    wrapped_tooltip_for_last_item(
            refused.empty() ? std::string("The optimizer's FP32 master weights and moments, and an FP32 copy of the "
                                          "gradients, kept in host memory and stepped by the CPU (DeepSpeed's "
                                          "offload_optimizer, Megatron-LM's --optimizer-cpu-offload): the GPU frees "
                                          "them, the step pays the host link and the CPU's Adam")
                            : refused);
}

// A switch of Megatron-LM's: greyed (and off) where it does not apply, each state explained on hover.
void MemoryPanel::draw_megatron_switch(AppState& state, const char* label, const char* item, bool applies,
                                  bool TrainingSpec::*field, const char* on_tip, const char* off_tip) {
    const Scenario& s = state.scenario();
    bool on = applies && s.training.*field;
    ImGui::BeginDisabled(!applies);
    if (ImGui::Checkbox(label, &on)) {
        Scenario c = s;
        c.training.*field = on;
        apply(state, c);
    }
    ImGui::EndDisabled();
    note_last_item(item);
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", applies ? on_tip : off_tip);
}

void MemoryPanel::draw_controls(AppState& state) {
    controls_anchor_.place();
    section_title("What moves memory");
    const Scenario& s = state.scenario();
    const float field = std::min(240.0f, ImGui::GetContentRegionAvail().x * 0.45f);

    const std::optional<int> picked =
        keyed_combo("ZeRO stage", field, s.parallel.zero, {std::begin(kZeroLabels), std::end(kZeroLabels)}, "memory/zero",
                    {"0", "1", "2", "3"});
    if (picked) apply_zero(state, *picked);
    glossary_tooltip_for_last_item(zero_stage_term(s.parallel.zero));

    if (s.parallel.zero == 3) draw_zero_impl_control(state, field);
    draw_kernels_control(state, field);

    std::vector<std::string> recompute_labels, recompute_names;
    for (Recompute r : kAllRecomputes) {
        recompute_labels.push_back(recompute_display_name(r, s.training));
        recompute_names.emplace_back(to_string(r));
    }
    if (const std::optional<int> picked = keyed_combo("Recompute", field, index_of(kAllRecomputes, s.training.recompute),
                                                      recompute_labels, "memory/recompute", recompute_names)) {
        Scenario c = s;
        c.training.recompute = kAllRecomputes[static_cast<std::size_t>(*picked)];
        apply(state, c);
    }
    glossary_tooltip_for_last_item(terms::kRecompute);
    if (s.training.recompute == Recompute::selective && s.training.fused_kernels) draw_recompute_modules(state);
    if (s.training.recompute == Recompute::full) draw_recompute_method(state, field);

    draw_precision_controls(state, field);
    draw_micro_batch_control(state, field);
    // A refusal stands until the scenario changes in any way (another edit, an undo, an opened file).
    if (!control_error_.empty() && state.version() == refused_at_version_) {
        ImGui::PushTextWrapPos(0.0f);
        text_wrapped_coloured(ImGui::ColorConvertU32ToFloat4(kRed), "Not applied: " + control_error_);
        note_last_item("memory/error");
        ImGui::PopTextWrapPos();
    }
}

void MemoryPanel::draw_step_section() {
    section_title(view_.step_title.c_str());
    if (view_.step.empty()) {
        ImGui::TextDisabled("No step time: the model is given as a parameter count only.");
        return;
    }
    draw_step_bar();
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("##step_table", 3, flags)) return;
    ImGui::TableSetupColumn("part", ImGuiTableColumnFlags_WidthStretch, 2.0f);
    ImGui::TableSetupColumn("time per step", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("share of step", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    for (const StepSegmentRecord& seg : view_.step) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(seg.colour), "%s", seg.name.c_str());
        if (!seg.detail.empty()) {
            // Hidden collectives still take SMs and memory bandwidth from the compute beside them.
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
            text_wrapped(seg.detail);
            ImGui::PopStyleColor();
        }
        ImGui::TableSetColumnIndex(1);
        ImGui::TextUnformatted(seg.time_text.c_str());
        if (!seg.dim.empty()) note_shown("report.dims." + seg.dim + ".exposed_s", seg.time_text);
        ImGui::TableSetColumnIndex(2);
        ImGui::TextUnformatted(seg.share_text.c_str());
    }
    ImGui::EndTable();
}

// One horizontal bar, its segments as wide as their share of the step; a name inside when it fits.
void MemoryPanel::draw_step_bar() {
    const float height = ImGui::GetTextLineHeight() * 2.0f;
    const float width = std::max(60.0f, ImGui::GetContentRegionAvail().x);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##step_bar", ImVec2(width, height));
    note_last_item("memory/step_bar");
    const bool hovered = ImGui::IsItemHovered();
    const float mouse_x = ImGui::GetIO().MousePos.x;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    float x = origin.x;
    for (const StepSegmentRecord& seg : view_.step) {
        const float w = static_cast<float>(seg.fraction) * width;
        const ImVec2 a(x, origin.y), b(x + w, origin.y + height);
        draw->AddRectFilled(a, b, seg.colour);
        const std::string text = seg.name + " " + seg.share_text;
        const ImVec2 size = ImGui::CalcTextSize(text.c_str());
        if (size.x + 8.0f < w)
            draw->AddText(ImVec2(x + 4.0f, origin.y + (height - size.y) * 0.5f), IM_COL32(20, 20, 24, 255), text.c_str());
        if (hovered && mouse_x >= a.x && mouse_x < b.x)
            ImGui::SetTooltip("%s\n%s per step (%s)%s%s", seg.name.c_str(), seg.time_text.c_str(), seg.share_text.c_str(),
                              seg.detail.empty() ? "" : "\n", seg.detail.c_str());
        x += w;
    }
    draw->AddRect(origin, ImVec2(origin.x + width, origin.y + height), ImGui::GetColorU32(ImGuiCol_Border));
}

// A sorted bar list: each operation's bar as long as its share of the compute, its time and share
// beside it, what bounds it on hover. Collapsed by default: the step table above says the total.
void MemoryPanel::draw_compute_section(AppState& state) {
    if (view_.compute_ops.empty()) return;
    const bool open = ImGui::CollapsingHeader(view_.compute_title.c_str());
    note_last_item("memory/compute_ops");
    if (!open) return;
    if (!view_.moe_line.empty()) {
        text_wrapped(view_.moe_line);
        note_last_item("memory/moe_line");
    }
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("##compute_ops", 4, flags)) return;
    ImGui::TableSetupColumn("operation", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn("time per step", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableSetupColumn("bound by", ImGuiTableColumnFlags_WidthStretch, 0.7f);
    ImGui::TableHeadersRow();
    const float longest = static_cast<float>(view_.compute_ops.front().fraction);
    for (const ComputeOpRecord& op : view_.compute_ops) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(op.name.c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", op.detail.c_str());
        ImGui::TableSetColumnIndex(1);
        // Scaled to the longest so the short ones stay visible; the share is printed in the bar.
        const float full = ImGui::GetContentRegionAvail().x;
        const float w = longest > 0 ? std::max(2.0f, full * static_cast<float>(op.fraction) / longest) : 0.0f;
        const ImVec2 a = ImGui::GetCursorScreenPos();
        const float h = ImGui::GetTextLineHeight();
        ImGui::GetWindowDrawList()->AddRectFilled(a, ImVec2(a.x + w, a.y + h), op.colour);
        ImGui::Dummy(ImVec2(full, h));
        const ImVec2 text_size = ImGui::CalcTextSize(op.share_text.c_str());
        const bool inside = text_size.x + 6.0f < w;
        ImGui::GetWindowDrawList()->AddText(ImVec2(inside ? a.x + 3.0f : a.x + w + 3.0f, a.y),
                                            inside ? IM_COL32(20, 20, 24, 255) : ImGui::GetColorU32(ImGuiCol_Text),
                                            op.share_text.c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", op.detail.c_str());
        ImGui::TableSetColumnIndex(2);
        ImGui::TextUnformatted(op.time_text.c_str());
        ImGui::TableSetColumnIndex(3);
        ImGui::TextUnformatted(op.bound.c_str());
    }
    ImGui::EndTable();
    note_last_item("memory/compute_ops/shown");
    if (ImGui::SmallButton("Copy as CSV##compute_ops")) copy_csv(state, breakdown_csv(state.report()), "compute by operation");
    note_last_item("memory/compute_ops/csv");
}

std::string MemoryPanel::probe_state() const {
    if (!has_view_) return {};
    std::string out = view_.fit_line;
    for (const FigureRecord& f : view_.figures) out += "\n" + f.label + ": " + f.value;
    return out;
}

void MemoryPanel::draw_figures() {
    section_title("Throughput");
    draw_figure_table("##figures", view_.figures);
    if (view_.run.empty()) return;
    section_title("Run (the whole token budget)");
    draw_figure_table("##run", view_.run);
}

void MemoryPanel::draw_figure_table(const char* id, const std::vector<FigureRecord>& figures) {
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable(id, 2, flags)) return;
    for (const FigureRecord& f : figures) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextDisabled("%s%s", f.label.c_str(), f.meaning.empty() ? "" : " (?)");
        if (!f.meaning.empty()) {
            note_last_item("memory/figure/" + f.label);
            wrapped_tooltip_for_last_item(f.meaning);
        }
        ImGui::TableSetColumnIndex(1);
        ImGui::TextUnformatted(f.value.c_str());
        for (const std::string& q : f.quantities) note_shown(q, f.value);
    }
    ImGui::EndTable();
}

void MemoryPanel::draw_notes() {
    // BulletText does not wrap in 1.86: a bullet, then wrapped text beside it.
    const auto bullets = [](const std::vector<std::string>& lines) {
        for (const std::string& line : lines) {
            ImGui::Bullet();
            text_wrapped(line);
        }
    };
    if (!view_.notes.empty()) {
        section_title("Notes");
        bullets(view_.notes);
    }
    if (view_.conventions.empty()) return;
    const bool open = ImGui::CollapsingHeader("How these figures are counted", ImGuiTreeNodeFlags_DefaultOpen);
    note_last_item("memory/conventions");
    if (!open) return;
    bullets(view_.conventions);
    note_last_item("memory/conventions/shown");
}

}  // namespace shardscope::ui
