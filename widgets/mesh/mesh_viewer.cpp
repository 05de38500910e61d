// The Device mesh panel's viewer: the canvas with its toolbar, the summary line, the focused GPU's
// groups, the legend and the data table. The editor (controls, draft, actions) is mesh_panel.cpp.
#include "widgets/mesh/mesh_panel.hpp"

#include "widgets/kit/shown_figures.hpp"

#include "widgets/kit/flow.hpp"

#include "widgets/mesh/mesh_text.hpp"

#include "core/export/table_csv.hpp"
#include "core/scenario/units.hpp"
#include "widgets/kit/glossary_terms.hpp"
#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/palette.hpp"
#include "widgets/shell/copy_out.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace shardscope::ui {

namespace {

using namespace mesh_text;

constexpr float kWideStrip = 720.0f;  // narrower views show the focus table without the legend beside it
constexpr float kMinCanvasHeight = 140.0f;  // the least the mesh drawing gets, however short the tile

// "0, 2, 4, 6" or "0, 2, 4 ... 126 (64 GPUs)": the first members and the last.
std::string members_text(const DeviceMesh& mesh, Dim d, int64_t group) {
    const int64_t size = group_size(mesh, d);
    std::ostringstream os;
    const int64_t shown = size <= 6 ? size : 3;
    for (int64_t i = 0; i < shown; ++i) os << (i ? ", " : "") << group_member(mesh, d, group, i);
    if (shown < size) os << " ... " << group_member(mesh, d, group, size - 1) << "  (" << size << " GPUs)";
    return os.str();
}

std::string links_text(const DimSummary& s) {
    switch (s.links) {
        case DimLinks::none: return "-";
        case DimLinks::intra: return "intra-node";
        case DimLinks::inter: return "inter-node";
        case DimLinks::mixed:
            return "mixed (" + number(s.intra_groups) + " intra, " + number(s.inter_groups) + " inter)";
    }
    return "-";
}

const DimCost* find_dim_cost(const Report& report, Dim d) { return shardscope::find_dim_cost(report, to_string(d)); }

// What the summary line and the data table say of one dim, as the lesson quantities that name it.
void note_dim_cost(const std::string& dim, const DimCost& cost) {
    const std::string prefix = "report.dims." + dim + ".";
    note_shown(prefix + "bytes_per_step_gib", format_bytes(cost.bytes_per_step));
    note_shown(prefix + "time_s", format_seconds(cost.time_s));
}

void note_dim_layout(const std::string& dim, const DimSummary& s, const std::string& links) {
    note_shown("mesh.groups." + dim, number(s.groups));
    note_shown("mesh.size." + dim, number(s.size));
    // The groups and links cells read together: "inter-node" beside 8 groups is 8 spanning nodes.
    const std::string inter = number(s.inter_groups) + " of " + number(s.groups) + " span nodes (" + links + ")";
    const std::string intra = number(s.intra_groups) + " of " + number(s.groups) + " inside a node (" + links + ")";
    note_shown("mesh.inter_groups." + dim, inter);
    note_shown("mesh.intra_groups." + dim, intra);
    note_shown("report.dims." + dim + ".inter", links);
}

void coloured_dim_label(Dim d) { ImGui::TextColored(colour_of(d), "%s", name_of(d).c_str()); }

// A table row: one line of text and the cell padding above and below it.
float table_row_height() { return ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y; }

// Title line, header row and six dim rows inside a bordered child.
float focus_strip_height() {
    return ImGui::GetTextLineHeightWithSpacing() + 7 * table_row_height() + 2 * ImGui::GetStyle().WindowPadding.y + 4;
}

// Header and six rows (the five mesh dims and ep).
float data_table_height() { return 7 * table_row_height() + 3; }

}  // namespace

void MeshPanel::draw_view(AppState& state) {
    const DeviceMesh& mesh = state.mesh();
    draw_toolbar(mesh);
    draw_summary(state);
    const float width = ImGui::GetContentRegionAvail().x;
    const float strip_h = focus_strip_height();
    const bool narrow = width < kWideStrip;
    // The data table and, under it, its Copy as CSV button.
    const float table_h =
        show_data_ ? data_table_height() + ImGui::GetStyle().ItemSpacing.y + ImGui::GetFrameHeightWithSpacing() : 0.0f;
    const char* key_line = grid_.records().level == mesh::Level::gpus
                               ? "plain: group inside a node (fast)  \xc2\xb7  hatched + arcs: spans nodes (slow)"
                               : "colour: share of groups inside a node, orange 0% to green 100%";
    const float key_h = narrow ? ImGui::CalcTextSize(key_line, nullptr, false, width).y + ImGui::GetStyle().ItemSpacing.y
                               : 0.0f;
    const float canvas_h = std::max(kMinCanvasHeight, ImGui::GetContentRegionAvail().y - strip_h - table_h - key_h -
                                                          2 * ImGui::GetStyle().ItemSpacing.y);
    grid_.draw(mesh, state.version(), dim_, ImVec2(width, canvas_h), selected_);
    if (pending_zoom_ != 1.0f) {
        grid_.zoom_by(pending_zoom_);
        pending_zoom_ = 1.0f;
    }
    note_last_item("mesh/canvas");
    if (narrow) {
        // Wrapped: the narrowest tile (1280 x 720, three across) is narrower than the line.
        ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
        text_wrapped(key_line);
        ImGui::PopStyleColor();
    }
    if (show_data_) {
        draw_data_table(state);
        if (ImGui::SmallButton("Copy as CSV")) copy_csv(state, mesh_csv(state.mesh(), state.report()), "mesh table");
        note_last_item("mesh/csv");
    }
    // Side by side when there is room; a narrow window keeps the focus table and a one-line key.
    if (!narrow) {
        const float left_w = width * 0.56f;
        draw_focus_info(mesh, left_w, strip_h);
        ImGui::SameLine();
        draw_legend(mesh, width - left_w - ImGui::GetStyle().ItemSpacing.x, strip_h);
    } else {
        draw_focus_info(mesh, width, strip_h);
    }
    // What the view needs with the smallest canvas: the panel grows its view to that and scrolls,
    // rather than cut the data table and the GPU details off below a view that cannot scroll.
    least_view_height_ = ImGui::GetCursorPosY() - canvas_h + kMinCanvasHeight + ImGui::GetStyle().WindowPadding.y;
}

void MeshPanel::draw_toolbar(const DeviceMesh& mesh) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(kMutedColour, "Colour groups of");
    for (Dim d : kAllDims) {
        const bool active = d == dim_;
        const int64_t size = group_size(mesh, d);
        const std::string label = name_of(d) + " " + number(size);
        flow(ImGui::CalcTextSize(label.c_str()).x + 2.0f * ImGui::GetStyle().FramePadding.x,
             ImGui::GetStyle().ItemSpacing.x);
        ImVec4 c = colour_of(d);
        ImGui::PushStyleColor(ImGuiCol_Button, active ? c : ImVec4(c.x, c.y, c.z, 0.16f));
        ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(c.x, c.y, c.z, active ? 1.0f : 0.35f));
        ImGui::PushStyleColor(ImGuiCol_Text, active ? ImVec4(0.07f, 0.07f, 0.09f, 1) : (size > 1 ? c : kMutedColour));
        if (ImGui::Button(label.c_str())) dim_ = d;
        ImGui::PopStyleColor(3);
        note_last_item("mesh/dim/" + name_of(d));
        glossary_tooltip_for_last_item(glossary_term(d));
    }
    const float right = ImGui::GetWindowContentRegionMax().x;
    const float buttons_w = ImGui::CalcTextSize("Show as data").x + ImGui::GetFrameHeight() * 4 +
                            ImGui::CalcTextSize("Fit").x + ImGui::GetStyle().ItemSpacing.x * 5 + 12;
    // The view buttons sit at the right end of the row, or on a row of their own when it is full.
    ImGui::SameLine();
    if (ImGui::GetCursorPosX() + buttons_w > right + 12) ImGui::NewLine();
    else ImGui::SameLine(right - buttons_w);
    if (ImGui::Button("-##zoom_out")) grid_.zoom_by(1.0f / 1.5f);
    ImGui::SameLine(0, 2);
    if (ImGui::Button("+##zoom_in")) grid_.zoom_by(1.5f);
    ImGui::SameLine(0, 2);
    if (ImGui::Button("Fit")) grid_.request_fit();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show the whole mesh (or double-click the canvas)");
    ImGui::SameLine();
    ImGui::Checkbox("Show as data", &show_data_);
    note_last_item("mesh/show_data");
}

void MeshPanel::draw_summary(const AppState& state) {
    const DeviceMesh& mesh = state.mesh();
    const Scenario& s = state.scenario();
    const DimSummary& sum = dim_summary(mesh, dim_);
    const std::string name = name_of(dim_);
    badges_.clear();
    coloured_dim_label(dim_);
    ImGui::SameLine(0, 6);
    if (sum.size <= 1) {
        text_wrapped_f("is 1: every GPU is its own group, so %s sends nothing. Pick a dim with a factor above 1.",
                           name.c_str());
    } else {
        std::string where;
        switch (sum.links) {
            case DimLinks::intra:
                where = "Every group sits inside one node: fast (" +
                        format_bandwidth(s.cluster.intra_node.bytes_per_s()) + " per GPU).";
                break;
            case DimLinks::inter:
                where = "Every group spans nodes: slow (" +
                        format_bandwidth(s.cluster.inter_node.bytes_per_s()) + " per GPU across the network).";
                break;
            case DimLinks::mixed:
                where = number(sum.intra_groups) + " groups sit inside a node (fast), " + number(sum.inter_groups) +
                        " span nodes (slow, bounded by the network).";
                break;
            case DimLinks::none: break;
        }
        std::string talk;
        if (const DimCost* cost = find_dim_cost(state.report(), dim_); cost && !cost->collective.empty()) {
            // The time on the wire and the part the step waits for (the Memory panel's "comm" figure) are
            // two quantities: both named, so the two panels never seem to disagree.
            const bool all_exposed = cost->exposed_s >= 0.999 * cost->time_s;
            talk = " They talk by " + cost->collective + ": " + format_bytes(cost->bytes_per_step) +
                   " per GPU per step, " + format_seconds(cost->time_s) + " of transfers, " +
                   (all_exposed ? std::string("all of it exposed (the step waits for it).")
                                : format_seconds(cost->exposed_s) + " of it exposed (the rest hides under compute).");
        }
        if (const DimCost* cost = find_dim_cost(state.report(), dim_)) note_dim_cost(name, *cost);
        note_dim_layout(name, sum, links_text(sum));
        const std::string groups = sum.groups == 1 ? "1 group" : number(sum.groups) + " groups";
        text_wrapped_f("%s of %s GPU%s (stride %s). %s%s", groups.c_str(), number(sum.size).c_str(),
                           sum.size == 1 ? "" : "s", number(sum.stride).c_str(), where.c_str(), talk.c_str());
    }
    if (mesh.is_hsdp()) {
        ImGui::TextColored(ImVec4(0.45f, 0.85f, 0.65f, 1), "HSDP");
        note_shown("mesh.hsdp", "HSDP");
        note_last_item("mesh/hsdp");
        badges_.push_back("HSDP");
        ImGui::SameLine(0, 6);
        text_wrapped_f(
            "dp_shard shards the model inside each node and dp_replicate copies it across nodes: the heavy "
            "shard traffic stays on the fast link, only the gradient sync crosses nodes.");
    }
    if (mesh.leftover_factor() > 1) {
        ImGui::TextColored(kMutedColour, "Leftover");
        note_last_item("mesh/leftover");
        badges_.push_back("leftover");
        ImGui::SameLine(0, 6);
        const std::string extra = number(mesh.extra_replicas()) + " extra replica" + (mesh.extra_replicas() == 1 ? "" : "s");
        note_shown("mesh.extra_replicas", extra);
        text_wrapped_f(
            "%s GPUs are not needed by the factors; they become extra data-parallel replicas (faded): "
            "dp_replicate %lld -> %lld, %s.",
            format_count(static_cast<double>(leftover_gpu_count(mesh))).c_str(),
            static_cast<long long>(mesh.effective().dp_replicate - mesh.extra_replicas()),
            static_cast<long long>(mesh.effective().dp_replicate), extra.c_str());
    }
}

void MeshPanel::draw_focus_info(const DeviceMesh& mesh, float width, float height) {
    ImGui::BeginChild("mesh_focus", ImVec2(width, height), true, ImGuiWindowFlags_NoScrollbar);
    const int64_t focus = grid_.focus_rank(selected_);
    if (focus < 0 || focus >= mesh.world_size()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(kMutedColour,
                           "Hover or click a GPU to see its coordinate in every dim and the members of each "
                           "of its groups.");
        ImGui::PopTextWrapPos();
        ImGui::EndChild();
        return;
    }
    ImGui::Text("GPU %lld on node %lld", static_cast<long long>(focus), static_cast<long long>(mesh.node_of(focus)));
    ImGui::SameLine();
    ImGui::TextColored(kMutedColour, focus == selected_ ? "(selected)" : "(hovered)");
    if (is_leftover_replica(mesh, focus)) {
        ImGui::SameLine();
        ImGui::TextColored(kMutedColour, "· leftover replica");
    }
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp |
                                  ImGuiTableFlags_BordersInnerH;
    if (ImGui::BeginTable("mesh_focus_table", 5, flags)) {
        ImGui::TableSetupColumn("Dim", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("dp_replicate").x + 20);
        ImGui::TableSetupColumn("Coord", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("00000 / 00000").x);
        ImGui::TableSetupColumn("Group", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("0000000").x);
        ImGui::TableSetupColumn("Members", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn("Link", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("inter-node").x);
        ImGui::TableHeadersRow();
        for (Dim d : kAllDims) {
            const int64_t size = group_size(mesh, d);
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            // The pip colour marks this dim's group members on the canvas.
            const ImVec2 p = ImGui::GetCursorScreenPos();
            const float pip = ImGui::GetTextLineHeight() * 0.6f;
            const float y = p.y + (ImGui::GetTextLineHeight() - pip) * 0.5f;
            ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + pip, y + pip),
                                                      size > 1 ? palette::dim_colour(d) : IM_COL32(80, 84, 94, 255));
            ImGui::SetCursorScreenPos(ImVec2(p.x + pip + 6, p.y));
            if (d == dim_) ImGui::TextColored(colour_of(d), "%s", name_of(d).c_str());
            else ImGui::TextUnformatted(name_of(d).c_str());
            ImGui::TableNextColumn();
            if (size <= 1) {
                ImGui::TextColored(kMutedColour, "-");
                continue;
            }
            ImGui::Text("%lld / %lld", static_cast<long long>(index_in_group(mesh, d, focus)),
                        static_cast<long long>(size));
            const int64_t group = group_of(mesh, d, focus);
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(group));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(members_text(mesh, d, group).c_str());
            ImGui::TableNextColumn();
            const bool intra = group_link(mesh, d, group) == LinkClass::intra;
            const ImU32 link = palette::link_colour(intra ? LinkClass::intra : LinkClass::inter);
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(link), "%s", intra ? "intra-node" : "inter-node");
        }
        ImGui::EndTable();
    }
    ImGui::EndChild();
}

void MeshPanel::draw_legend(const DeviceMesh& mesh, float width, float height) {
    ImGui::BeginChild("mesh_legend", ImVec2(width, height), true, ImGuiWindowFlags_NoScrollbar);
    const mesh::GridRecords& r = grid_.records();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float box = ImGui::GetTextLineHeight();
    const auto swatch = [&](ImU32 fill, bool hatched, const char* text) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        draw->AddRectFilled(p, ImVec2(p.x + box * 1.4f, p.y + box), fill, 2.0f);
        if (hatched)
            for (float x = 4; x < box * 2.4f; x += 5)
                draw->AddLine(ImVec2(p.x + std::max(0.0f, x - box), p.y + std::min(x, box)),
                              ImVec2(p.x + std::min(x, box * 1.4f), p.y + std::max(0.0f, x - box * 1.4f)),
                              IM_COL32(20, 20, 24, 140));
        ImGui::Dummy(ImVec2(box * 1.4f, box));
        ImGui::SameLine();
        ImGui::TextUnformatted(text);
    };
    if (r.level == mesh::Level::gpus) {
        ImGui::TextColored(kMutedColour, "Each cell is a GPU; each box a node.");
        const std::string one = "one colour per " + name_of(dim_) + " group";
        const ImVec2 p = ImGui::GetCursorScreenPos();
        for (int i = 0; i < 4; ++i)
            draw->AddRectFilled(ImVec2(p.x + i * box * 0.36f, p.y), ImVec2(p.x + (i + 1) * box * 0.36f, p.y + box),
                                mesh::group_colour(i, r.dim_size));
        ImGui::Dummy(ImVec2(box * 1.4f, box));
        ImGui::SameLine();
        ImGui::TextUnformatted(r.dim_size > 1 ? one.c_str() : "grey: this dim is 1, no groups");
        swatch(mesh::group_colour(1, r.dim_size), false, "plain: group inside a node (fast)");
        swatch(mesh::group_colour(1, r.dim_size), true, "hatched + arcs: group spans nodes (slow)");
        if (mesh.leftover_factor() > 1)
            swatch(mesh::group_colour(1, r.dim_size, 0.38f), false, "faded: leftover replica");
        ImGui::TextColored(kMutedColour, "White outline: same group as the GPU in focus;");
        ImGui::TextColored(kMutedColour, "small squares: its groups in the other dims.");
    } else {
        if (r.level == mesh::Level::nodes)
            ImGui::TextColored(kMutedColour, "Each cell is one node of %lld GPUs.",
                               static_cast<long long>(mesh.gpus_per_node()));
        else
            ImGui::TextColored(kMutedColour, "Each cell is a block of %lld x %lld nodes.",
                               static_cast<long long>(r.block_side), static_cast<long long>(r.block_side));
        ImGui::TextUnformatted("Colour: share of its GPUs whose group stays inside the node");
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float w = std::min(ImGui::GetContentRegionAvail().x - 8, 260.0f);
        const int steps = 32;
        for (int i = 0; i < steps; ++i)
            draw->AddRectFilled(ImVec2(p.x + w * i / steps, p.y), ImVec2(p.x + w * (i + 1) / steps + 1, p.y + box),
                                mesh::share_colour(static_cast<double>(i) / (steps - 1)));
        ImGui::Dummy(ImVec2(w, box));
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::link_colour(LinkClass::inter)),
                           "0%%: all span nodes");
        ImGui::SameLine(std::max(ImGui::GetCursorPosX() + 8, w - ImGui::CalcTextSize("100%: all inside").x + 8));
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::link_colour(LinkClass::intra)), "100%%: all inside");
        if (selected_ >= 0 && r.dim_size > 1)
            ImGui::TextColored(kMutedColour, "White outline: blocks holding GPU %lld's %s group.",
                               static_cast<long long>(selected_), name_of(dim_).c_str());
        ImGui::TextColored(kMutedColour, "Scroll to zoom in, drag to pan, double-click to fit.");
    }
    ImGui::EndChild();
}

void MeshPanel::draw_data_table(const AppState& state) {
    const DeviceMesh& mesh = state.mesh();
    const Report& report = state.report();
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp |
                                  ImGuiTableFlags_ScrollY;
    if (!begin_table_at_least("mesh_data", 7, flags, 52.0f, 0, data_table_height())) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Dim", 0, 1.0f);
    ImGui::TableSetupColumn("Factor", 0, 0.6f);
    ImGui::TableSetupColumn("Groups", 0, 0.7f);
    ImGui::TableSetupColumn("Links", 0, 1.6f);
    ImGui::TableSetupColumn("Comm", 0, 2.4f);
    ImGui::TableSetupColumn("Bytes / step", 0, 1.0f);
    ImGui::TableSetupColumn("Time / step", 0, 1.0f);
    ImGui::TableHeadersRow();
    // Rows in the mesh's order (innermost first), then ep, which borrows from cp x dp_shard.
    std::vector<Dim> rows;
    for (Dim d : mesh.effective().order) rows.push_back(d);
    rows.push_back(Dim::ep);
    for (Dim d : rows) {
        const DimSummary& s = dim_summary(mesh, d);
        const DimCost* cost = find_dim_cost(report, d);
        const bool active = s.size > 1;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        coloured_dim_label(d);
        note_last_item("mesh/data/dim/" + name_of(d));
        if (ImGui::IsItemHovered()) {
            const DimFacts& facts = dim_facts(d);
            ImGui::BeginTooltip();
            ImGui::Text("%s (%s)\nExchanges: %s\nLink: %s", name_of(d).c_str(), facts.strategy_label,
                        facts.communication, facts.link_rule);
            note_last_item("mesh/data/tip/" + name_of(d));
            ImGui::EndTooltip();
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(number(s.size).c_str());
        const auto cell = [&](const std::string& text) {
            ImGui::TableNextColumn();
            if (active) ImGui::TextUnformatted(text.c_str());
            else ImGui::TextColored(kMutedColour, "-");
        };
        cell(number(s.groups));
        cell(links_text(s));
        if (active) note_dim_layout(name_of(d), s, links_text(s));
        // The collective's name wraps in its cell rather than being cut ("... + reduce-scatter per
        // micro-batch"); hovered, it shows the calls behind it, as the report lists them.
        ImGui::TableNextColumn();
        if (active && cost) {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextUnformatted(cost->collective.c_str());
            ImGui::PopTextWrapPos();
            note_last_item("mesh/data/comm/" + name_of(d));
            if (ImGui::IsItemHovered() && !cost->calls.empty())
                ImGui::SetTooltip("Per step (mean message): %s", describe_calls(cost->calls).c_str());
        } else {
            ImGui::TextColored(kMutedColour, "-");
        }
        cell(cost ? format_bytes(cost->bytes_per_step) : "-");
        cell(cost ? format_seconds(cost->time_s) : "-");
        if (active && cost) note_dim_cost(name_of(d), *cost);
    }
    ImGui::EndTable();
    note_last_item("mesh/data_table");
}

}  // namespace shardscope::ui
