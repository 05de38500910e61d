#include "widgets/planner/planner_panel.hpp"

#include "widgets/kit/background_job.hpp"

#include "core/export/table_csv.hpp"
#include "core/scenario/units.hpp"
#include "widgets/shell/copy_out.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/plot.hpp"
#include "widgets/kit/tooltip.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace shardscope::ui {

// One search, on a worker thread (the browser page: a slice per frame, inside the job's waits). The
// scenario is copied in; the result is read only once the job has finished. The job is the last
// member: it is stopped and joined before the rest goes.
struct PlannerPanel::Search {
    PlanProgress progress;
    PlanSearch search;
    PlanResult result;
    BackgroundJob job;

    Search(const Scenario& scenario, const PlanOptions& options)
        : search(scenario, options, &progress),
          job(BackgroundJob::SlicedWork([this](const std::atomic<bool>&, BackgroundJob::Clock::time_point deadline) {
              if (!search.advance(deadline)) return false;
              result = search.take();
              return true;
          })) {}
    // The planner reads its own cancel flag, checked between candidates.
    ~Search() { progress.cancel = true; }
    Search(const Search&) = delete;
    Search& operator=(const Search&) = delete;
};

namespace {

// How long one frame waits for a search before showing progress instead (about a 60 Hz frame), and
// how long the very first search may hold the first frame so the panel never opens empty.
constexpr auto kFrameWait = std::chrono::milliseconds(12);
constexpr auto kFirstWait = std::chrono::seconds(5);
constexpr int kTopK = 24;  // rows in the table: distinct meshes, so the k-th is well off the best

constexpr ImU32 kBest = IM_COL32(255, 205, 70, 255);
constexpr ImU32 kFront = IM_COL32(90, 170, 255, 255);
constexpr ImU32 kOther = IM_COL32(150, 150, 160, 110);
constexpr ImU32 kSelected = IM_COL32(240, 90, 200, 255);
constexpr ImU32 kCapacity = IM_COL32(240, 80, 80, 200);

const char* const kObjectiveLabels[] = {"step time (fastest first)", "MFU (highest first)",
                                        "memory per GPU (smallest first)"};
constexpr PlanObjective kObjectives[] = {PlanObjective::step, PlanObjective::mfu, PlanObjective::memory};

// Sortable columns, by their user id; the Apply buttons sit in one more column right after the rank so
// that they stay in view however wide a mesh's text makes the table. The figures a layout is ranked
// by come first: a narrow tile shows them before it scrolls (a new user saw only "tp 1 · dp_re...").
enum Column { kRank, kStep, kMfu, kMemory, kMesh, kZero, kMicroBatch, kSchedule, kRecompute, kHeadroom, kColumns };
constexpr int kApplyColumn = 1;
// Where each sortable column is drawn (the Apply column shifts the rest right by one).
constexpr int drawn_at(int column) { return column == kRank ? 0 : column + 1; }

// The row's value in a column, for sorting (text columns compare their text).
bool row_less(const PlannerRow& a, const PlannerRow& b, int column) {
    switch (column) {
        case kMesh:
            return std::tie(a.tp, a.cp, a.pp, a.dp_shard, a.dp_replicate, a.ep) <
                   std::tie(b.tp, b.cp, b.pp, b.dp_shard, b.dp_replicate, b.ep);
        case kZero: return a.zero < b.zero;
        case kMicroBatch: return a.micro_batch < b.micro_batch;
        case kSchedule: return a.schedule < b.schedule;
        case kRecompute: return a.recompute < b.recompute;
        case kStep: return a.step_s < b.step_s;
        case kMfu: return a.mfu < b.mfu;
        case kMemory: return a.memory_bytes < b.memory_bytes;
        case kHeadroom: return a.headroom_bytes < b.headroom_bytes;
        default: return a.rank < b.rank;
    }
}

}  // namespace

PlannerPanel::PlannerPanel(Placement placement, bool open) : Panel("planner", "Planner", placement, open) {
    options_.top_k = kTopK;
    options_.keep_costed = true;
    // Forty rows of one mesh with forty interleaving depths teach little: show distinct meshes.
    options_.one_per_mesh = true;
    declare_actions();
}

PlannerPanel::~PlannerPanel() = default;

bool PlannerPanel::searching() const noexcept { return search_ && !search_->job.finished(); }

std::string PlannerPanel::probe_state() const {
    if (searching() || !has_result_) return "searching";
    constexpr std::size_t kRowsSaid = 3;
    std::string out;
    for (std::size_t i = 0; i < std::min(kRowsSaid, view_.rows.size()); ++i) {
        const PlannerRow& r = view_.rows[i];
        if (!out.empty()) out += "\n";
        out += "#" + std::to_string(r.rank) + " " + r.mesh + ", zero " + std::to_string(r.zero) + ", mb " +
               std::to_string(r.micro_batch) + (r.schedule.empty() ? "" : ", " + r.schedule) + ", recompute " +
               r.recompute + ": " + r.step_text + ", " + r.mfu_text;
    }
    return out + "\nselected #" + std::to_string(selected_rank_);
}

void PlannerPanel::start_search(const Scenario& key_scenario) {
    search_.reset();  // cancels and joins a search still running for an older scenario
    search_ = std::make_unique<Search>(key_scenario, options_);
}

void PlannerPanel::take_result(bool block) {
    if (!search_) return;
    if (!search_->job.finished()) {
        if (!block) return;
        search_->job.wait();
    }
    ranked_ = search_->result.ranked;
    view_ = build_planner_view(search_->result);
    last_search_s_ = search_->result.stats.seconds;
    has_result_ = true;
    search_.reset();
    selected_rank_ = view_.rows.empty() ? 0 : 1;
    resort();
}

void PlannerPanel::update(const AppState& state, bool block) {
    if (state.version() != seen_version_) {
        seen_version_ = state.version();
        const Scenario key = planning_key(state.scenario());
        if (!has_result_ && !search_) options_changed_ = true;
        if (key != planned_key_) {
            planned_key_ = key;
            options_changed_ = true;
        }
    }
    if (options_changed_) {
        options_changed_ = false;
        // Plan from the current scenario: its own knobs do not change the ranking (planning_key).
        start_search(state.scenario());
    }
    if (!search_) return;
    if (block) {
        take_result(true);
        return;
    }
    // Wait up to one frame (longer for the first result), then leave it running behind a progress bar.
    const auto wait = has_result_ ? kFrameWait : kFirstWait;
    search_->job.wait_for(wait);
    take_result(false);
}

std::string PlannerPanel::apply_rank(AppState& state, int rank) {
    if (rank < 1 || rank > static_cast<int>(ranked_.size()))
        return "no row ranked " + std::to_string(rank) + " (" + std::to_string(ranked_.size()) + " rows)";
    const Scenario before = state.scenario();
    apply_error_ = state.try_apply(ranked_[static_cast<std::size_t>(rank - 1)].scenario);
    if (!apply_error_.empty()) return apply_error_;
    selected_rank_ = rank;
    // Every knob it turned, the ones the table's visible columns do not show too (a split, ZeRO).
    const std::string changes = scenario_changes(before, state.scenario(), 8);
    state.ui.status = "Applied the planner's #" + std::to_string(rank) + " layout" +
                      (changes.empty() ? std::string() : ": " + changes) + " (Ctrl+Z undoes it)";
    return apply_error_;
}

void PlannerPanel::sort_by(int column, bool ascending) {
    sort_column_ = std::clamp(column, 0, kColumns - 1);
    sort_ascending_ = ascending;
    resort();
}

void PlannerPanel::resort() {
    row_order_.resize(view_.rows.size());
    for (std::size_t i = 0; i < row_order_.size(); ++i) row_order_[i] = static_cast<int>(i);
    std::stable_sort(row_order_.begin(), row_order_.end(), [&](int a, int b) {
        const PlannerRow& ra = view_.rows[static_cast<std::size_t>(a)];
        const PlannerRow& rb = view_.rows[static_cast<std::size_t>(b)];
        return sort_ascending_ ? row_less(ra, rb, sort_column_) : row_less(rb, ra, sort_column_);
    });
}

void PlannerPanel::declare_actions() {
    actions_.choice("objective", "what the ranking optimises", {"step", "mfu", "memory"}, [this](AppState& state, const ActionValue& v) {
        const PlanObjective o = *plan_objective_from_string(v.text);
        if (options_.objective != o) options_changed_ = true;
        options_.objective = o;
        update(state, true);
        return std::string();
    });
    actions_.integer("apply", "make the row of this rank the scenario", 1, kTopK, [this](AppState& state, const ActionValue& v) {
        update(state, true);
        return apply_rank(state, static_cast<int>(v.integer));
    });
    actions_.integer("select", "select the row of this rank", 1, kTopK, [this](AppState& state, const ActionValue& v) {
        update(state, true);
        if (v.integer > static_cast<int64_t>(view_.rows.size()))
            return "no row ranked " + v.text + " (" + std::to_string(view_.rows.size()) + " rows)";
        selected_rank_ = static_cast<int>(v.integer);
        return std::string();
    });
    const struct {
        const char* name;
        const char* help;
        bool PlanOptions::*option;
    } switches[] = {{"all_orders", "search every mesh order, not only the usual one", &PlanOptions::all_orders},
                    {"per_mesh", "show one row per mesh (its best schedule)", &PlanOptions::one_per_mesh}};
    const struct {
        const char* name;
        const char* help;
        bool PlanFilters::*filter;
    } filters[] = {{"tp_in_node", "only layouts whose TP group stays in a node", &PlanFilters::tp_within_node},
                   {"no_pp", "only layouts without pipeline parallelism", &PlanFilters::no_pp},
                   {"zero_max_1", "only layouts with ZeRO stage 0 or 1", &PlanFilters::zero_at_most_1}};
    const auto set_option = [this](AppState& state, bool& option, bool on) {
        if (option != on) options_changed_ = true;
        option = on;
        update(state, true);
        return std::string();
    };
    for (const auto& f : filters)
        actions_.on_off(f.name, f.help, [this, set_option, filter = f.filter](AppState& state, const ActionValue& v) {
            return set_option(state, options_.filters.*filter, v.on);
        });
    for (const auto& o : switches)
        actions_.on_off(o.name, o.help, [this, set_option, option = o.option](AppState& state, const ActionValue& v) {
            return set_option(state, options_.*option, v.on);
        });
    actions_.trigger("wait", "finish the search before going on (for scripts and lessons)", [this](AppState& state, const ActionValue&) {
        update(state, true);
        return std::string();
    });
}

// ---- Drawing ----------------------------------------------------------------------------------------

void PlannerPanel::draw(AppState& state) {
    update(state, false);
    draw_controls();
    draw_progress(state);
    if (!has_result_) return;

    const float explanation_h = ImGui::GetTextLineHeightWithSpacing() * 3.4f;
    const float body_h = std::max(200.0f, ImGui::GetContentRegionAvail().y - explanation_h);
    const float width = ImGui::GetContentRegionAvail().x;
    if (width > 1100.0f) {
        // Wide: the table on the left, the scatter on the right.
        const float table_w = width * 0.665f;
        ImGui::BeginChild("##planner_table_side", ImVec2(table_w, body_h), false);
        draw_table(state, body_h);
        ImGui::EndChild();
        ImGui::SameLine();
        ImGui::BeginChild("##planner_scatter_side", ImVec2(0, body_h), false);
        draw_scatter(body_h);
        ImGui::EndChild();
    } else {
        draw_table(state, body_h * 0.55f);
        draw_scatter(body_h * 0.45f);
    }
    draw_explanation();
}

void PlannerPanel::draw_controls() {
    int objective = static_cast<int>(std::find(std::begin(kObjectives), std::end(kObjectives), options_.objective) -
                                      std::begin(kObjectives));
    ImGui::SetNextItemWidth(ImGui::CalcTextSize(kObjectiveLabels[2]).x + 40.0f);
    if (ImGui::Combo("rank by", &objective, kObjectiveLabels, IM_ARRAYSIZE(kObjectiveLabels))) {
        options_.objective = kObjectives[objective];
        options_changed_ = true;  // re-planned on the next frame, behind the progress bar if slow
    }
    note_last_item("planner/objective");
    const auto checkbox = [&](const char* label, const char* key, bool& option) {
        // Beside the previous control while it fits, else on the next line: nothing clipped at the edge.
        const float width = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
        ImGui::SameLine(0, 18.0f);
        if (ImGui::GetCursorPosX() + width > ImGui::GetWindowContentRegionMax().x) ImGui::NewLine();
        if (ImGui::Checkbox(label, &option)) options_changed_ = true;
        note_last_item(key);
    };
    checkbox("best per mesh", "planner/per_mesh", options_.one_per_mesh);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("On: one row per mesh (tp, cp, pp, dp, ep), its best ZeRO, micro-batch,\n"
                          "recompute and schedule. Off: every candidate, ranked.");
    checkbox("TP inside a node only", "planner/tp_in_node", options_.filters.tp_within_node);
    checkbox("no PP", "planner/no_pp", options_.filters.no_pp);
    checkbox("ZeRO <= 1", "planner/zero_max_1", options_.filters.zero_at_most_1);
    checkbox("every mesh order", "planner/all_orders", options_.all_orders);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Off: tp innermost, then cp, dp_shard, dp_replicate, pp.\nOn: every order (slower).");
}

void PlannerPanel::draw_progress(AppState& state) {
    if (searching()) {
        const double to_cost = static_cast<double>(search_->progress.to_cost.load());
        const double costed = static_cast<double>(search_->progress.costed.load());
        const float fraction = to_cost > 0 ? static_cast<float>(costed / to_cost) : 0.0f;
        const std::string text = to_cost > 0 ? "costing layouts: " + format_count(costed) + " so far"
                                             : "enumerating layouts...";
        ImGui::ProgressBar(fraction, ImVec2(-1, 0), text.c_str());
        return;
    }
    if (!has_result_) return;
    if (ImGui::SmallButton("Copy as CSV")) copy_csv(state, plan_csv(ranked_), "planner's ranking");
    note_last_item("planner/csv");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The ranking, every row and figure, as CSV (shardscope plan --format csv)");
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped_f("%s, in %s.", view_.summary.c_str(), format_seconds(last_search_s_).c_str());
    ImGui::PopStyleColor();
    for (const std::string& note : view_.notes) ImGui::TextColored(ImVec4(1.0f, 0.75f, 0.3f, 1.0f), "%s", note.c_str());
}

void PlannerPanel::draw_table(AppState& state, float height) {
    const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit |
                                  ImGuiTableFlags_Resizable;
    if (!ImGui::BeginTable("##planner_rows", kColumns + 1, flags, ImVec2(0, height))) return;
    // The rank and its Apply stay put while a narrow tile scrolls the figures sideways.
    ImGui::TableSetupScrollFreeze(2, 1);
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_DefaultSort, 0, kRank);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_NoSort, 0, kColumns);
    ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_PreferSortAscending, 0, kStep);
    ImGui::TableSetupColumn("MFU", ImGuiTableColumnFlags_PreferSortDescending, 0, kMfu);
    ImGui::TableSetupColumn("memory/GPU", 0, 0, kMemory);
    ImGui::TableSetupColumn("mesh", 0, 0, kMesh);
    ImGui::TableSetupColumn("ZeRO", 0, 0, kZero);
    ImGui::TableSetupColumn("mb", 0, 0, kMicroBatch);
    ImGui::TableSetupColumn("schedule", 0, 0, kSchedule);
    ImGui::TableSetupColumn("recompute", 0, 0, kRecompute);
    ImGui::TableSetupColumn("headroom", ImGuiTableColumnFlags_PreferSortDescending, 0, kHeadroom);
    ImGui::TableHeadersRow();
    if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsDirty) {
        if (specs->SpecsCount > 0)
            sort_by(static_cast<int>(specs->Specs[0].ColumnUserID),
                    specs->Specs[0].SortDirection == ImGuiSortDirection_Ascending);
        specs->SpecsDirty = false;
    }
    for (int i : row_order_) draw_row(state, view_.rows[static_cast<std::size_t>(i)]);
    ImGui::EndTable();
}

void PlannerPanel::draw_row(AppState& state, const PlannerRow& row) {
    ImGui::PushID(row.rank);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(drawn_at(kRank));
    const std::string rank = std::to_string(row.rank);
    // The row spans every column, so the Apply button drawn over it must be allowed to take the hover
    // (ImGui 1.86: without AllowItemOverlap the Selectable keeps it and the button never clicks).
    if (ImGui::Selectable(rank.c_str(), selected_rank_ == row.rank,
                          ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap))
        selected_rank_ = row.rank;
    note_last_item("planner/row/" + rank);
    ImGui::TableSetColumnIndex(kApplyColumn);
    if (ImGui::SmallButton("Apply")) apply_rank(state, row.rank);
    note_last_item("planner/apply/" + rank);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Load this layout into the scenario (undo with Ctrl+Z)");
    ImGui::SameLine();
    draw_copy_row_menu(state, row.rank);
    const auto cell = [](int column, const std::string& text) {
        ImGui::TableSetColumnIndex(drawn_at(column));
        ImGui::TextUnformatted(text.c_str());
    };
    // The mesh, one token per dim in the dim's colour.
    ImGui::TableSetColumnIndex(drawn_at(kMesh));
    ImGui::BeginGroup();
    for (size_t i = 0; i < row.mesh_tokens.size(); ++i) {
        if (i > 0) {
            ImGui::SameLine(0, 0);
            ImGui::TextDisabled(" \xc2\xb7 ");
            ImGui::SameLine(0, 0);
        }
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(row.mesh_tokens[i].colour), "%s",
                           row.mesh_tokens[i].text.c_str());
    }
    ImGui::EndGroup();
    if (!row.tp_within_node && ImGui::IsItemHovered()) ImGui::SetTooltip("TP groups span nodes");
    if (row.alike > 0) {
        ImGui::SameLine();
        ImGui::TextDisabled("+%d alike", row.alike);
        note_last_item("planner/alike/" + rank);
        wrapped_tooltip_for_last_item(row.also, 36.0f);
    }
    cell(kZero, std::to_string(row.zero));
    cell(kMicroBatch, std::to_string(row.micro_batch));
    cell(kSchedule, row.schedule.empty() ? "-" : row.schedule);
    cell(kRecompute, row.recompute);
    cell(kStep, row.step_text);
    cell(kMfu, row.mfu_text);
    cell(kMemory, row.memory_text);
    cell(kHeadroom, row.headroom_text);
    ImGui::PopID();
}

void PlannerPanel::draw_copy_row_menu(AppState& state, int rank) {
    const std::string key = "planner/copy/" + std::to_string(rank);
    if (ImGui::SmallButton("Copy as...")) ImGui::OpenPopup("copy_row");
    note_last_item(key);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("This layout in a framework's own flags or keys, to the clipboard");
    if (!ImGui::BeginPopup("copy_row")) return;
    for (ExportTarget t : export_targets()) {
        if (ImGui::Selectable(framework_label(t).c_str()) && rank <= static_cast<int>(ranked_.size()))
            copy_scenario_as(state, ranked_[static_cast<std::size_t>(rank - 1)].scenario, t,
                             "planner row " + std::to_string(rank));
        note_last_item(key + "/" + std::string(to_string(t)));
    }
    ImGui::EndPopup();
}

void PlannerPanel::draw_scatter(float height) {
    if (view_.points.empty()) {
        ImGui::TextDisabled("No layout fits.");
        return;
    }
    // Fit the axes to the points, and keep the GPU's capacity line in view with room for its label.
    double lo = view_.points.front().step_s, hi = lo, mem_lo = view_.gpu_memory_bytes, mem_hi = mem_lo;
    for (const PlannerPoint& p : view_.points) {
        lo = std::min(lo, p.step_s);
        hi = std::max(hi, p.step_s);
        mem_lo = std::min(mem_lo, p.memory_bytes);
        mem_hi = std::max(mem_hi, p.memory_bytes);
    }
    const double pad = std::max((hi - lo) * 0.08, hi * 0.01);
    const double mem_pad = std::max((mem_hi - mem_lo) * 0.08, mem_hi * 0.02);
    const double x_lo = std::max(0.0, mem_lo - mem_pad);
    // A quarter of the width past the capacity line: room for its label.
    const double x_hi = std::max(mem_hi + mem_pad, view_.gpu_memory_bytes + 0.25 * (view_.gpu_memory_bytes - x_lo));
    // Step times spread over more than a decade (ranking by memory costs slow layouts too) read
    // better on a log axis; a narrow spread keeps linear ticks.
    const bool wide_spread = lo > 0 && hi / lo > 8.0;
    const plot::Axis step_axis = wide_spread
                                     ? plot::Axis("step time", lo / 1.3, hi * 1.3, plot::Scale::log10, format_seconds)
                                     : plot::Axis("step time", std::max(0.0, lo - pad), hi + pad, plot::Scale::linear,
                                                  format_seconds);
    ImGui::TextUnformatted("Step time against memory per GPU, every layout costed");
    plot::legend({{"#1", kBest}, {"Pareto front", kFront}, {"selected", kSelected}, {"other costed layouts", kOther}});
    const float chart_h = std::max(120.0f, height - ImGui::GetCursorPosY() - 8.0f);
    plot::Axis memory_axis("memory per GPU", x_lo, x_hi, plot::Scale::linear, format_memory);
    memory_axis.unit = 1024.0 * 1024.0 * 1024.0;  // ticks on whole GiB, as the labels read
    plot::Chart chart("##planner_scatter", ImVec2(-1, chart_h), memory_axis, step_axis);
    chart.vertical_line(view_.gpu_memory_bytes, kCapacity, "GPU memory");
    for (const PlannerPoint& p : view_.points)
        if (!p.on_front && p.rank != 1 && p.rank != selected_rank_)
            chart.point(p.memory_bytes, p.step_s, kOther, 2.5f, p.label, p.rank > 0 ? p.rank : -1);
    plot::Series front("Pareto front", kFront, {}, {}, true);
    for (const PlannerPoint& p : view_.front) {
        front.x.push_back(p.memory_bytes);
        front.y.push_back(p.step_s);
    }
    chart.line(front);
    for (const PlannerPoint& p : view_.front) chart.point(p.memory_bytes, p.step_s, kFront, 4.0f, p.label, p.rank > 0 ? p.rank : -1);
    for (const PlannerPoint& p : view_.points) {
        if (p.rank == selected_rank_ && p.rank != 1) chart.point(p.memory_bytes, p.step_s, kSelected, 6.0f, p.label, p.rank);
        if (p.rank == 1) chart.point(p.memory_bytes, p.step_s, kBest, 7.0f, p.label, p.rank);
    }
    // Where the ranked layouts' points are, for tests that hover and click them.
    for (const PlannerPoint& p : view_.points) {
        if (p.rank <= 0) continue;
        const ImVec2 at = chart.to_screen(p.memory_bytes, p.step_s);
        note_rect("planner/point/" + std::to_string(p.rank), ItemRect{at.x - 3, at.y - 3, at.x + 3, at.y + 3});
    }
    // A ranked layout's point, clicked, selects its row, as a click on the row does.
    if (const int rank = chart.clicked_id(); rank > 0) selected_rank_ = rank;
    chart.end();
}

void PlannerPanel::draw_explanation() {
    if (view_.rows.empty()) return;
    ImGui::Separator();
    const PlannerRow& best = view_.rows.front();
    ImGui::Text("#1  %s:  step %s, MFU %s, %s per GPU", best.mesh.c_str(), best.step_text.c_str(),
                best.mfu_text.c_str(), best.memory_text.c_str());
    const int shown = selected_rank_ > 1 ? selected_rank_ : 2;
    if (shown <= static_cast<int>(view_.rows.size())) {
        const PlannerRow& row = view_.rows[static_cast<std::size_t>(shown - 1)];
        ImGui::PushTextWrapPos(0);
        text_wrapped_disabled("#" + std::to_string(shown) + " loses to #1: " + row.why_below_best);
        ImGui::PopTextWrapPos();
    }
    const int picked = selected_rank_ > 0 ? selected_rank_ : 1;
    if (picked <= static_cast<int>(view_.rows.size())) {
        const PlannerRow& row = view_.rows[static_cast<std::size_t>(picked - 1)];
        if (row.alike > 0) {
            ImGui::PushTextWrapPos(0);
            text_wrapped_disabled("#" + std::to_string(picked) + " " + row.also);
            ImGui::PopTextWrapPos();
        }
    }
    if (!apply_error_.empty()) ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.4f, 1.0f), "%s", apply_error_.c_str());
}

}  // namespace shardscope::ui
