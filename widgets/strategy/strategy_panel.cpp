#include "widgets/strategy/strategy_panel.hpp"

#include "widgets/kit/flow.hpp"

#include "core/scenario/units.hpp"
#include "widgets/kit/glossary_terms.hpp"
#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/palette.hpp"
#include "widgets/kit/plot.hpp"
#include "widgets/kit/tooltip.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>

#include <cstdio>

#include <algorithm>
#include <charconv>

namespace shardscope::ui {

namespace {

const ImVec4 kErrorColour{1.0f, 0.45f, 0.42f, 1.0f};

// The scenario field a strategy's count edits, shown under its toggle.
const char* factor_field(Dim s) {
    switch (s) {
        case Dim::dp_replicate: return "dp_replicate";
        case Dim::dp_shard: return "dp_shard";
        case Dim::tp: return "tp";
        case Dim::pp: return "pp";
        case Dim::ep: return "ep";
        case Dim::cp: return "cp";
    }
    return "";
}

void table_text(const std::string& s) { ImGui::TextUnformatted(s.c_str()); }

}  // namespace

// ---- state -------------------------------------------------------------------------------------

void StrategyPanel::refresh(const AppState& state, float width) {
    if (built_version_ != state.version()) {
        const Scenario& s = state.scenario();
        ownership_ = build_ownership(s);
        held_.clear();
        for (int64_t r = 0; r < ownership_.gpus && ownership_.unavailable.empty(); ++r)
            held_.push_back(ownership_.held_bytes(r));
        prices_ = price_strategies(s, state.report());
        saved_vs_plain_ = memory_saved_vs_plain_dp(s, state.report());
        built_width_ = -1;
        built_version_ = state.version();
        if (pinned_gpu_ && *pinned_gpu_ >= ownership_.gpus) pinned_gpu_.reset();
    }
    if (built_width_ != width) {
        drawing_ = layout_strategy_drawing(ownership_, state.scenario(), width);
        built_width_ = width;
    }
}

std::string StrategyPanel::apply(AppState& state, const Scenario& candidate) {
    error_ = state.try_apply(candidate);
    error_version_ = state.version();
    return error_;
}

std::string StrategyPanel::set_factor(AppState& state, Dim s, int64_t factor) {
    if (factor < 1) return "a GPU count must be at least 1";
    const std::string rule = apply(state, with_strategy_factor(state.scenario(), s, factor));
    if (rule.empty() && factor > 1) remembered_[dim_index(s)] = factor;
    return rule;
}

void StrategyPanel::declare_actions() {
    // The teaching keys first, then every other name core reads as a strategy.
    std::vector<std::string> keys;
    for (Dim d : kStrategyOrder) keys.emplace_back(strategy_key(d));
    for (const char* alias : {"dp_shard", "dp_replicate", "zero", "ddp", "sp", "sp_cp"}) keys.emplace_back(alias);
    actions_.choice("toggle", "turn a strategy on (at its last factor) or off", keys, [this](AppState& state, const ActionValue& v) {
        const Dim s = *strategy_from_key(v.text);
        const bool on = strategy_on(state.scenario().parallel, s);
        return set_factor(state, s, on ? 1 : remembered_[dim_index(s)]);
    });
    for (Dim d : kStrategyOrder)
        actions_.integer(std::string(strategy_key(d)), std::string(strategy_label(d)) + " factor (1 turns it off)", 1, kNoUpperCount,
                         [this, d](AppState& state, const ActionValue& v) { return set_factor(state, d, v.integer); });
    actions_.integer("zero", "ZeRO stage (0: plain data parallel)", 0, 3, [this](AppState& state, const ActionValue& v) {
        if (v.integer == 0) return set_factor(state, Dim::dp_shard, 1);
        Scenario c = state.scenario();
        c.parallel.zero = static_cast<int>(v.integer);
        if (c.parallel.dp_shard <= 1) c.parallel.dp_shard = remembered_[dim_index(Dim::dp_shard)];
        return apply(state, c);
    });
    actions_.on_off("sp", "sequence parallelism in the TP group", [this](AppState& state, const ActionValue& v) {
        Scenario c = state.scenario();
        c.parallel.sequence_parallel = v.on;
        return apply(state, c);
    });
    actions_.rank("gpu", "focus one GPU (none: every GPU)", [this](AppState&, const ActionValue& v) {
        if (v.integer < 0) pinned_gpu_.reset();
        else pinned_gpu_ = v.integer;
        return std::string();
    });
    actions_.on_off("data", "show what each GPU holds as data", [this](AppState&, const ActionValue& v) {
        show_data_ = v.on;
        return std::string();
    });
    actions_.trigger("reset", "every strategy off: one GPU's worth of work per copy", [this](AppState& state, const ActionValue&) {
        Scenario c = state.scenario();
        for (Dim s : kStrategyOrder) c = with_strategy_factor(c, s, 1);
        return apply(state, c);
    });
}

// ---- drawing -----------------------------------------------------------------------------------

void StrategyPanel::draw(AppState& state) {
    draw_toggles(state);
    draw_summary(state);
    ImGui::Spacing();
    // "Show as data" swaps the picture for the strategy table; the records stay current either way.
    refresh(state, std::max(320.0f, ImGui::GetContentRegionAvail().x));
    if (show_data_) draw_data_table(state);
    else draw_canvas(state);
    ImGui::Spacing();
    draw_price(state);
}

void StrategyPanel::draw_toggle(AppState& state, Dim s) {
    const ParallelSpec& p = state.scenario().parallel;
    const std::string key = std::string(strategy_key(s));
    ImGui::PushID(key.c_str());
    bool on = strategy_on(p, s);
    const int64_t factor = strategy_factor(p, s);
    const ImU32 colour = palette::dim_colour(s);
    toggle_colours_[dim_index(s)] = colour;
    // A control that core would refuse is greyed, and says why when hovered.
    const std::string toggle_refusal = factor_refusal(state.scenario(), s, on ? 1 : remembered_[dim_index(s)]);
    ImGui::BeginDisabled(!toggle_refusal.empty());
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colour));
    const bool clicked = ImGui::Checkbox(std::string(strategy_label(s)).c_str(), &on);
    ImGui::PopStyleColor();
    ImGui::EndDisabled();
    if (clicked) act(state, "toggle", key);
    note_last_item("strategy/toggle/" + key);
    if (!toggle_refusal.empty()) wrapped_tooltip_for_last_item(toggle_refusal);
    else glossary_tooltip_for_last_item(glossary_term(s));

    const auto step_button = [&](const char* label, int64_t to, const std::string& item) {
        const std::string refusal = to == factor ? "already 1 GPU" : factor_refusal(state.scenario(), s, to);
        ImGui::BeginDisabled(!refusal.empty());
        const bool pressed = ImGui::SmallButton(label);
        ImGui::EndDisabled();
        if (pressed) set_factor(state, s, to);
        note_last_item(item);
        if (!refusal.empty()) wrapped_tooltip_for_last_item(refusal);
    };
    step_button("-", std::max<int64_t>(1, factor / 2), "strategy/less/" + key);
    ImGui::SameLine();
    ImGui::Text("%lld GPU%s", static_cast<long long>(factor), factor == 1 ? "" : "s");
    ImGui::SameLine();
    step_button("+", factor * 2, "strategy/more/" + key);
    // FSDP's third line is its ZeRO stage (the field, dp_shard, is in the count's tooltip).
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::dim_colour(s, 0.7f)), "%s",
                       s == Dim::dp_shard ? "ZeRO" : factor_field(s));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("parallel.%s", factor_field(s));
    if (s == Dim::dp_shard) {
        for (int z = 1; z <= 3; ++z) {
            ImGui::SameLine(0, z == 1 ? -1.0f : 2.0f);
            const std::string label = std::to_string(z);
            if (ImGui::RadioButton(label.c_str(), on && p.zero == z)) act(state, "zero", std::to_string(z));
            note_last_item("strategy/zero/" + label);
            glossary_tooltip_for_last_item(zero_stage_term(z));
        }
    }
    if (s == Dim::tp) {
        ImGui::SameLine();
        bool sp = p.sequence_parallel;
        if (ImGui::Checkbox("SP", &sp)) act(state, "sp", sp ? "on" : "off");
        glossary_tooltip_for_last_item(terms::kSequenceParallel);
    }
    ImGui::PopID();
}

void StrategyPanel::draw_toggles(AppState& state) {
    // As many columns (6, 3, 2 or 1: whole rows of the six strategies) as the widest cell allows:
    // FSDP's, with its three ZeRO radio buttons (a tile of 146 px cut them off at two columns).
    const ImGuiStyle& style = ImGui::GetStyle();
    const float radio = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize("3").x + 2.0f;
    const float cell = ImGui::CalcTextSize("ZeRO").x + style.ItemSpacing.x + 3.0f * radio + 2.0f * style.CellPadding.x + 8.0f;
    const float avail = ImGui::GetContentRegionAvail().x;
    const int columns = avail >= 6.0f * cell ? 6 : avail >= 3.0f * cell ? 3 : avail >= 2.0f * cell ? 2 : 1;
    const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchSame;
    if (ImGui::BeginTable("##strategy_toggles", columns, flags)) {
        for (Dim s : kStrategyOrder) {
            ImGui::TableNextColumn();
            draw_toggle(state, s);
        }
        ImGui::EndTable();
    }
    if (ImGui::Button("Reset to one GPU")) act(state, "reset", "");
    note_last_item("strategy/reset");
    ImGui::SameLine();
    ImGui::Checkbox("Show as data", &show_data_);
    note_last_item("strategy/show_data");
    if (!error_.empty() && error_version_ == state.version()) {
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
        text_wrapped("Not applied: " + error_);
        ImGui::PopStyleColor();
    }
}

void StrategyPanel::draw_summary(const AppState& state) {
    const ParallelSpec& p = state.scenario().parallel;
    ImGui::Separator();
    ImGui::Text("%lld GPU%s per copy of the layout", static_cast<long long>(p.product()), p.product() == 1 ? "" : "s");
    // The factors, each in its dim's colour: "= tp 2 x dp_shard 2 x pp 2".
    // Each "x dim n" stays whole; one that does not fit starts the next line.
    const auto token = [](const char* before, ImU32 colour, const std::string& text) {
        flow(ImGui::CalcTextSize(before).x + ImGui::CalcTextSize(text.c_str()).x, 0.0f);
        ImGui::TextUnformatted(before);
        ImGui::SameLine(0, 0);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colour), "%s", text.c_str());
    };
    bool first = true;
    for (Dim d : kMeshDims) {
        if (p.factor(d) <= 1) continue;
        token(first ? " = " : " x ", palette::dim_colour(d),
              std::string(to_string(d)) + " " + std::to_string(p.factor(d)));
        first = false;
    }
    if (p.ep > 1) {
        token(" (", palette::dim_colour(Dim::ep), "ep " + std::to_string(p.ep));
        ImGui::SameLine(0, 0);
        ImGui::TextUnformatted(" inside dp_shard x cp)");
    }
    char cluster[160];
    std::snprintf(cluster, sizeof cluster, "  |  cluster: %lld GPUs, %s",
                  static_cast<long long>(state.scenario().cluster.gpu_count()), state.scenario().cluster.name.c_str());
    flow(ImGui::CalcTextSize(cluster).x, 0.0f);
    ImGui::TextDisabled("%s", cluster);
}

void StrategyPanel::draw_canvas(const AppState& state) {
    const float width = std::max(320.0f, ImGui::GetContentRegionAvail().x);
    refresh(state, width);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("strategy_canvas", ImVec2(width, std::max(1.0f, drawing_.height)));
    note_last_item("strategy/canvas");
    const bool hovered = ImGui::IsItemHovered();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const ImVec2 local(mouse.x - origin.x, mouse.y - origin.y);

    std::optional<int64_t> focus = pinned_gpu_;
    const PieceRect* hovered_piece = nullptr;
    if (hovered) {
        if (const GpuChip* chip = chip_at(drawing_, local)) {
            focus = chip->rank;
            if (ImGui::IsItemClicked()) pinned_gpu_ = pinned_gpu_ == chip->rank ? std::nullopt : std::optional(chip->rank);
        } else if (const PieceRect* r = piece_at(drawing_, local)) {
            hovered_piece = r;
            const std::string text = describe_piece(ownership_, state.scenario(), ownership_.pieces[r->piece]);
            wrapped_tooltip(text, 34.0f);
        }
    }
    paint_strategy_drawing(drawing_, ownership_, ImGui::GetWindowDrawList(), origin, focus, hovered_piece);
}

void StrategyPanel::draw_price(const AppState& state) {
    ImGui::Text("The price");
    ImGui::SameLine();
    ImGui::TextDisabled("communication per GPU on %s, from the cost model", state.scenario().cluster.name.c_str());
    if (prices_.empty()) {
        ImGui::TextDisabled("Nothing is split: one GPU does all the work and nothing is sent. Toggle a strategy above.");
    } else {
        const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
        // Narrower than the table, it scrolls sideways in a box of its own; its rows wrap to up to three
        // lines, so the box is sized for that, within the height the panel has left (less the memory
        // line below).
        constexpr float kTableEms = 62.0f;
        const ImGuiStyle& style = ImGui::GetStyle();
        const float row = 3.0f * ImGui::GetTextLineHeightWithSpacing() + 2.0f * style.CellPadding.y;
        const float wanted = static_cast<float>(prices_.size()) * row + ImGui::GetFrameHeight() + style.ScrollbarSize;
        const float left = ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeightWithSpacing();
        const bool narrow = ImGui::GetContentRegionAvail().x < kTableEms * ImGui::GetFontSize();
        const float height = narrow && left > 6.0f * ImGui::GetFontSize() ? std::min(wanted, left) : 0.0f;
        if (begin_table_at_least("##strategy_price", 8, flags, kTableEms, static_cast<int>(prices_.size()), height)) {
            const char* headers[] = {"Strategy", "Collective", "When", "Link", "Sent / GPU / step", "Time / step",
                                     "Exposed", "Memory saved / GPU"};
            const float weights[] = {1.0f, 2.0f, 2.2f, 0.7f, 1.1f, 1.0f, 1.0f, 1.3f};
            for (int i = 0; i < 8; ++i) ImGui::TableSetupColumn(headers[i], ImGuiTableColumnFlags_WidthStretch, weights[i]);
            ImGui::TableHeadersRow();
            for (const StrategyPrice& pr : prices_) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::dim_colour(pr.strategy)), "%s x%lld",
                                   std::string(strategy_label(pr.strategy)).c_str(), static_cast<long long>(pr.factor));
                if (pr.leftover_copies > 1) {
                    note_last_item("strategy/price/leftover");
                    wrapped_tooltip_for_last_item(
                        "Copies of the layout: the cluster has " + std::to_string(pr.leftover_copies) +
                        " times the GPUs one copy takes, and the copies train as data parallel, DP toggled on or not.");
                }
                ImGui::TableNextColumn();
                text_wrapped(pr.collective);
                ImGui::TableNextColumn();
                text_wrapped(pr.cadence);
                ImGui::TableNextColumn();
                table_text(pr.link);
                ImGui::TableNextColumn();
                table_text(format_bytes(pr.bytes_per_step));
                ImGui::TableNextColumn();
                table_text(format_seconds(pr.time_s));
                ImGui::TableNextColumn();
                table_text(format_seconds(pr.exposed_s));
                ImGui::TableNextColumn();
                if (pr.memory_saved) table_text(format_memory(*pr.memory_saved));
                else {
                    ImGui::TextDisabled("n/a");
                    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", pr.saved_note.c_str());
                }
            }
            ImGui::EndTable();
        }
    }
    const Report& r = state.report();
    ImGui::Text("Memory per GPU (most loaded): %s of %s", format_memory(r.memory.total()).c_str(),
                format_memory(r.gpu_memory_bytes).c_str());
    if (!r.fits) {
        ImGui::SameLine();
        ImGui::TextColored(kErrorColour, "does not fit");
    }
    if (saved_vs_plain_) {
        ImGui::SameLine();
        ImGui::TextDisabled("  |  plain DP on the same GPUs would need %s (this layout saves %s)",
                            format_memory(r.memory.total() + *saved_vs_plain_).c_str(), format_memory(*saved_vs_plain_).c_str());
    }
}

void StrategyPanel::draw_data_table(const AppState& state) {
    std::vector<Dim> rows;
    for (Dim s : kStrategyOrder)
        if (strategy_on(state.scenario().parallel, s)) rows.push_back(s);
    ImGui::Text("As data");
    ImGui::SameLine();
    ImGui::TextDisabled(rows.empty() ? "(nothing toggled on: all six)" : "(the strategies toggled on)");
    if (rows.empty()) rows.assign(kStrategyOrder.begin(), kStrategyOrder.end());
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("##strategy_data", 5, flags)) {
        // The names are short and must read whole; the prose columns share the rest and wrap.
        const float name_w = std::max(ImGui::CalcTextSize("Strategy").x, ImGui::CalcTextSize("FSDP / ZeRO").x);
        ImGui::TableSetupColumn("Strategy", ImGuiTableColumnFlags_WidthFixed, name_w);
        ImGui::TableSetupColumn("Splits", ImGuiTableColumnFlags_WidthStretch, 2.0f);
        ImGui::TableSetupColumn("Communication", ImGuiTableColumnFlags_WidthStretch, 2.0f);
        ImGui::TableSetupColumn("Cost", ImGuiTableColumnFlags_WidthStretch, 2.0f);
        ImGui::TableSetupColumn("Use it when", ImGuiTableColumnFlags_WidthStretch, 1.8f);
        ImGui::TableHeadersRow();
        for (Dim s : rows) {
            const DimFacts& f = dim_facts(s, state.scenario().parallel.zero);
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::dim_colour(s)), "%s",
                               std::string(strategy_label(s)).c_str());
            for (const char* cell : {f.splits, f.communication, f.cost, f.reach_for_it_when}) {
                ImGui::TableNextColumn();
                text_wrapped(cell);
            }
        }
        ImGui::EndTable();
    }
    draw_held_table();
}

// The picture as data: every GPU of one copy, its coordinates and what it holds (core's sums).
void StrategyPanel::draw_held_table() {
    if (!ownership_.unavailable.empty()) return;
    ImGui::Spacing();
    ImGui::Text("What each GPU holds");
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("(one copy of the layout; sequences and tokens of one step)");
    ImGui::PopTextWrapPos();
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp |
                                  ImGuiTableFlags_ScrollY;
    const float rows_h = ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(std::min<int64_t>(ownership_.gpus, 16) + 1.5f);
    if (!begin_table_at_least("##strategy_held", 7, flags, 48.0f, 0, rows_h)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    const char* optimizer = ownership_.optimizer_on_host ? "Optimizer state (host)" : "Optimizer state";
    for (const char* h : {"GPU", "Coordinates", "Sequences", "Tokens", "Weights", "Gradients", optimizer})
        ImGui::TableSetupColumn(h, ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (int64_t r = 0; r < ownership_.gpus; ++r) {
        const Ownership::Held& h = held_[static_cast<size_t>(r)];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(plot::categorical_colour(static_cast<int>(r))), "GPU %lld",
                           static_cast<long long>(r));
        ImGui::TableNextColumn();
        table_text(gpu_coords_text(ownership_, r, CoordNames::mesh));
        ImGui::TableNextColumn();
        ImGui::Text("%lld-%lld", static_cast<long long>(h.seq_first), static_cast<long long>(h.seq_last - 1));
        ImGui::TableNextColumn();
        ImGui::Text("%lld-%lld", static_cast<long long>(h.token_first), static_cast<long long>(h.token_last - 1));
        for (double v : {h.weights, h.grads, h.optimizer}) {
            ImGui::TableNextColumn();
            table_text(format_memory(v));
        }
    }
    ImGui::EndTable();
}

}  // namespace shardscope::ui
