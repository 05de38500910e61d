#include "widgets/mesh/mesh_panel.hpp"

#include "core/scenario/units.hpp"
#include "widgets/kit/glossary_terms.hpp"
#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/palette.hpp"
#include "widgets/shell/item_rects.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace shardscope::ui {

namespace {

constexpr float kControlsWidth = 300.0f;
constexpr float kWideLayout = 760.0f;   // narrower windows put the controls above the canvas
constexpr float kWideStrip = 720.0f;    // narrower views show the focus table without the legend beside it
constexpr const char* kOrderPayload = "SHARDSCOPE_MESH_ORDER";
const ImVec4 kErrorColour{1.0f, 0.45f, 0.40f, 1.0f};
const ImVec4 kMutedColour{0.62f, 0.65f, 0.72f, 1.0f};

std::string name_of(Dim d) { return std::string(to_string(d)); }
// Exact counts with thousands separators: "16,384" (sizes and strides must not round to "16.4k").
std::string number(int64_t v) {
    std::string digits = std::to_string(v < 0 ? -v : v);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
    return v < 0 ? "-" + digits : digits;
}

ImVec4 colour_of(Dim d) { return ImGui::ColorConvertU32ToFloat4(palette::dim_colour(d)); }


// Beyond any cluster: what a typed count may be before core's rules judge it.
constexpr int64_t kMaxClusterCount = int64_t{1} << 30;

// Halve / double buttons beside an integer input: factors are nearly always powers of two.
bool step_buttons(const char* id, int64_t& value) {
    bool changed = false;
    ImGui::PushID(id);
    ImGui::SameLine(0, 4);
    if (ImGui::Button("-", ImVec2(ImGui::GetFrameHeight(), 0))) {
        value = value % 2 == 0 ? value / 2 : value - 1;
        changed = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Halve");
    ImGui::SameLine(0, 4);
    if (ImGui::Button("+", ImVec2(ImGui::GetFrameHeight(), 0))) {
        value *= 2;
        changed = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Double");
    ImGui::PopID();
    value = std::max<int64_t>(1, value);
    return changed;
}

// An integer field for an int64_t value (ImGui's InputInt takes int).
bool int_field(const char* label, const char* id, int64_t& value, float label_width,
               ImVec4 label_colour = ImVec4(0.86f, 0.88f, 0.92f, 1.0f)) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(label_colour, "%s", label);
    ImGui::SameLine(label_width);
    int v = static_cast<int>(std::min<int64_t>(value, 1 << 30));
    ImGui::SetNextItemWidth(72);
    bool changed = ImGui::InputInt(id, &v, 0, 0);
    note_last_item(std::string("mesh/field/") + (id + 2));
    if (changed) value = std::max(1, v);
    changed |= step_buttons(id, value);
    return changed;
}

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
        case DimLinks::mixed: return "mixed (" + number(s.intra_groups) + " intra, " + number(s.inter_groups) + " inter)";
    }
    return "-";
}

const DimCost* find_dim_cost(const Report& report, Dim d) {
    for (const DimCost& c : report.dims)
        if (c.name == to_string(d)) return &c;
    return nullptr;
}

void coloured_dim_label(Dim d) {
    ImGui::TextColored(colour_of(d), "%s", name_of(d).c_str());
}

// A table row: one line of text and the cell padding above and below it.
float table_row_height() { return ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y; }

// Title line, header row and six dim rows inside a bordered child.
float focus_strip_height() {
    return ImGui::GetTextLineHeightWithSpacing() + 7 * table_row_height() + 2 * ImGui::GetStyle().WindowPadding.y + 4;
}

// Header and six rows (the five mesh dims and ep).
float data_table_height() { return 7 * table_row_height() + 3; }

}  // namespace

MeshPanel::MeshPanel(Placement placement, bool open) : Panel("mesh", "Device mesh", placement, open) {
    declare_actions();
}

// ---- draft ---------------------------------------------------------------------------------------

void MeshPanel::sync_draft(const AppState& state) {
    // Undo, a loaded file or another panel changed the scenario: the draft follows it.
    if (state.version() == draft_version_) return;
    draft_ = state.scenario();
    draft_version_ = state.version();
    draft_error_.clear();
}

std::string MeshPanel::apply_draft(AppState& state) {
    draft_error_ = state.try_apply(draft_);
    if (draft_error_.empty()) draft_version_ = state.version();
    return draft_error_;
}

std::string MeshPanel::set_factor(AppState& state, Dim d, int64_t value) {
    sync_draft(state);
    draft_.parallel.factor(d) = value;
    return apply_draft(state);
}

std::string MeshPanel::set_cluster_shape(AppState& state, int64_t nodes, int64_t gpus_per_node) {
    sync_draft(state);
    draft_.cluster.nodes = nodes;
    draft_.cluster.gpus_per_node = gpus_per_node;
    return apply_draft(state);
}

std::string MeshPanel::set_cluster(AppState& state, const ClusterSpec& cluster) {
    sync_draft(state);
    draft_.cluster = cluster;
    return apply_draft(state);
}

std::string MeshPanel::move_in_order(AppState& state, size_t from, size_t to) {
    sync_draft(state);
    auto& order = draft_.parallel.order;
    if (from >= order.size() || to >= order.size() || from == to) return draft_error_;
    const Dim moved = order[from];
    order.erase(order.begin() + static_cast<std::ptrdiff_t>(from));
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(to), moved);
    return apply_draft(state);
}

// ---- actions -------------------------------------------------------------------------------------

void MeshPanel::reset_view(AppState& state) {
    selected_ = -1;
    // A dim of size 1 has no groups to colour: open on the first dim that splits something.
    const DeviceMesh& mesh = state.mesh();
    if (dim_summary(mesh, dim_).size > 1) return;
    for (Dim d : kAllDims)
        if (dim_summary(mesh, d).size > 1) {
            dim_ = d;
            return;
        }
}

void MeshPanel::declare_actions() {
    std::vector<std::string> dims;
    for (Dim d : kAllDims) dims.emplace_back(to_string(d));
    actions_.choice("dim", "the dim whose groups the canvas colours", dims, [this](AppState&, const ActionValue& v) {
        dim_ = *dim_from_string(v.text);
        return std::string();
    });
    actions_.rank("select", "focus one GPU (none: no focus)", [this](AppState& state, const ActionValue& v) {
        if (v.integer >= state.mesh().world_size())
            return "\"" + v.text + "\" is not a GPU rank (0 to " + number(state.mesh().world_size() - 1) + ")";
        selected_ = v.integer;
        return std::string();
    });
    actions_.on_off("data", "the table of every dim's groups, links and traffic", [this](AppState&, const ActionValue& v) {
        show_data_ = v.on;
        return std::string();
    });
    // A change core rejects stays on screen as a draft with core's message (as typed in the panel),
    // and the action reports it, so `--action` exits 2 as the strategy panel's does.
    actions_.text("cluster", "a cluster preset's name", "the cluster preset of this name (its own node count)", [this](AppState& state, const ActionValue& v) {
        for (const ClusterPreset& preset : presets_)
            if (preset.cluster.name == v.text) return set_cluster(state, preset.cluster);
        return "no cluster preset named \"" + v.text + "\"";
    });
    actions_.number("zoom", "zoom the canvas by this factor around its centre", 0.001, 1000,
                    [this](AppState&, const ActionValue& v) {
                        // The canvas takes its size on the next frame: apply it then.
                        pending_zoom_ *= static_cast<float>(v.number);
                        return std::string();
                    });
    actions_.trigger("fit", "fit the whole mesh in the canvas", [this](AppState&, const ActionValue&) {
        grid_.request_fit();
        return std::string();
    });
    actions_.text("order", "the five mesh dims, e.g. tp,cp,dp_shard,dp_replicate,pp", "the mesh order, innermost first", [this](AppState& state, const ActionValue& v) {
        std::vector<Dim> order;
        for (const std::string& item : split_list(v.text)) {
            const auto d = mesh_dim_from_string(item);
            if (!d) return "\"" + item + "\" is not a mesh dim (tp, cp, dp_shard, dp_replicate, pp)";
            order.push_back(*d);
        }
        sync_draft(state);
        draft_.parallel.order = order;
        return apply_draft(state);
    });
    actions_.integer("nodes", "nodes in the cluster", 1, kMaxClusterCount, [this](AppState& state, const ActionValue& v) {
        sync_draft(state);
        return set_cluster_shape(state, v.integer, draft_.cluster.gpus_per_node);
    });
    actions_.integer("gpus_per_node", "GPUs in each node", 1, kMaxClusterCount, [this](AppState& state, const ActionValue& v) {
        sync_draft(state);
        return set_cluster_shape(state, draft_.cluster.nodes, v.integer);
    });
    for (Dim d : kAllDims)
        actions_.integer(std::string(to_string(d)), "the " + std::string(to_string(d)) + " factor", 1, kMaxClusterCount,
                         [this, d](AppState& state, const ActionValue& v) { return set_factor(state, d, v.integer); });
}

// ---- controls ------------------------------------------------------------------------------------

void MeshPanel::draw(AppState& state) {
    sync_draft(state);
    if (selected_ >= state.mesh().world_size()) selected_ = -1;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (avail.x >= kWideLayout) {
        ImGui::BeginChild("mesh_controls", ImVec2(kControlsWidth, 0), false);
        draw_controls(state);
        ImGui::EndChild();
        ImGui::SameLine();
    } else if (ImGui::CollapsingHeader("Cluster, factors and order")) {
        draw_controls(state);
    } else if (!draft_error_.empty()) {
        // The controls are folded away: the rule still has to be seen.
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
        ImGui::TextWrapped("%s", draft_error_.c_str());
        ImGui::PopStyleColor();
        note_last_item("mesh/error");
    }
    ImGui::BeginChild("mesh_view", ImVec2(0, std::max(ImGui::GetContentRegionAvail().y, 320.0f)), false,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    draw_view(state);
    ImGui::EndChild();
}

void MeshPanel::draw_controls(AppState& state) {
    draw_cluster_inputs(state);
    ImGui::Spacing();
    draw_factor_inputs(state);
    ImGui::Spacing();
    draw_order_list(state);
    draw_draft_error(state);
}

void MeshPanel::draw_cluster_inputs(AppState& state) {
    ImGui::TextColored(kMutedColour, "CLUSTER");
    ImGui::Separator();
    if (!presets_.empty()) {
        ImGui::SetNextItemWidth(-1);
        if (ImGui::BeginCombo("##cluster_preset", draft_.cluster.name.c_str())) {
            for (const ClusterPreset& preset : presets_) {
                const ClusterSpec& c = preset.cluster;
                if (ImGui::Selectable(c.name.c_str(), c.name == draft_.cluster.name)) set_cluster(state, c);
                if (ImGui::IsItemHovered()) {
                    ImGui::BeginTooltip();
                    ImGui::Text("%s x %s GPUs per node, %s", number(c.nodes).c_str(), number(c.gpus_per_node).c_str(),
                                c.gpu.name.c_str());
                    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
                    ImGui::TextColored(kMutedColour, "%s", preset.source.c_str());
                    ImGui::PopTextWrapPos();
                    ImGui::EndTooltip();
                }
            }
            ImGui::EndCombo();
        }
        note_last_item("mesh/preset");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Cluster preset: GPU, links and node size (then set the node count)");
    } else {
        ImGui::TextWrapped("%s", draft_.cluster.name.c_str());
    }
    const float label_w = 112.0f;
    int64_t nodes = draft_.cluster.nodes, gpn = draft_.cluster.gpus_per_node;
    if (int_field("Nodes", "##nodes", nodes, label_w)) set_cluster_shape(state, nodes, gpn);
    if (int_field("GPUs / node", "##gpus_per_node", gpn, label_w)) set_cluster_shape(state, nodes, gpn);
    ImGui::TextColored(kMutedColour, "%s GPUs  ·  %s", number(draft_.cluster.gpu_count()).c_str(),
                       draft_.cluster.gpu.name.c_str());
    ImGui::TextColored(kMutedColour, "in node %s  ·  across %s",
                       format_bandwidth(draft_.cluster.intra_node.bandwidth_gbps * 1e9).c_str(),
                       format_bandwidth(draft_.cluster.inter_node.bandwidth_gbps * 1e9).c_str());
}

void MeshPanel::draw_factor_inputs(AppState& state) {
    ImGui::TextColored(kMutedColour, "FACTORS");
    ImGui::Separator();
    const float label_w = 112.0f;
    const DeviceMesh& mesh = state.mesh();
    for (Dim d : kAllDims) {
        int64_t v = draft_.parallel.factor(d);
        if (int_field(name_of(d).c_str(), ("##" + name_of(d)).c_str(), v, label_w, colour_of(d))) set_factor(state, d, v);
        if (d == Dim::dp_replicate && mesh.leftover_factor() > 1 && draft_error_.empty()) {
            ImGui::SameLine();
            ImGui::TextColored(kMutedColour, "-> %lld", static_cast<long long>(mesh.effective().dp_replicate));
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("Leftover GPUs multiply dp_replicate by %lld", static_cast<long long>(mesh.leftover_factor()));
        }
    }
    ImGui::TextColored(kMutedColour, "product %s of %s GPUs", number(draft_.parallel.product()).c_str(),
                       number(draft_.cluster.gpu_count()).c_str());
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("tp x cp x dp_shard x dp_replicate x pp must divide the GPU count;\n"
                          "ep borrows from cp x dp_shard and must divide it.");
}

void MeshPanel::draw_order_list(AppState& state) {
    ImGui::TextColored(kMutedColour, "ORDER  (innermost first, drag to reorder)");
    ImGui::Separator();
    const DeviceMesh& mesh = state.mesh();
    auto& order = draft_.parallel.order;
    std::optional<std::pair<size_t, size_t>> move;
    for (size_t i = 0; i < order.size(); ++i) {
        const Dim d = order[i];
        ImGui::PushID(static_cast<int>(i));
        ImGui::AlignTextToFramePadding();
        ImGui::TextColored(kMutedColour, "%zu", i + 1);
        ImGui::SameLine(24);
        ImGui::PushStyleColor(ImGuiCol_Text, colour_of(d));
        ImGui::Selectable(("::  " + name_of(d)).c_str(), false, 0, ImVec2(118, ImGui::GetFrameHeight()));
        ImGui::PopStyleColor();
        note_last_item("mesh/order/" + name_of(d));
        if (ImGui::BeginDragDropSource()) {
            ImGui::SetDragDropPayload(kOrderPayload, &i, sizeof i);
            ImGui::Text("move %s", name_of(d).c_str());
            ImGui::EndDragDropSource();
        }
        if (ImGui::BeginDragDropTarget()) {
            if (const ImGuiPayload* p = ImGui::AcceptDragDropPayload(kOrderPayload))
                move = std::make_pair(*static_cast<const size_t*>(p->Data), i);
            ImGui::EndDragDropTarget();
        }
        ImGui::SameLine(150);
        // Strides are the last valid mesh's; a draft that breaks a rule has none yet.
        if (draft_error_.empty()) ImGui::TextColored(kMutedColour, "stride %s", number(mesh.stride(d)).c_str());
        ImGui::SameLine(kControlsWidth - 2 * ImGui::GetFrameHeight() - 12);
        if (ImGui::ArrowButton("up", ImGuiDir_Up) && i > 0) move = std::make_pair(i, i - 1);
        note_last_item("mesh/order/" + name_of(d) + "/up");
        ImGui::SameLine(0, 4);
        if (ImGui::ArrowButton("down", ImGuiDir_Down) && i + 1 < order.size()) move = std::make_pair(i, i + 1);
        note_last_item("mesh/order/" + name_of(d) + "/down");
        ImGui::PopID();
    }
    if (move) move_in_order(state, move->first, move->second);
}

void MeshPanel::draw_draft_error(AppState& state) {
    if (draft_error_.empty()) return;
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
    ImGui::TextWrapped("%s", draft_error_.c_str());
    ImGui::PopStyleColor();
    note_last_item("mesh/error");
    ImGui::TextColored(kMutedColour, "The canvas shows the last valid mesh.");
    if (ImGui::Button("Revert to the valid mesh")) {
        draft_ = state.scenario();
        draft_error_.clear();
    }
}

// ---- view ----------------------------------------------------------------------------------------

void MeshPanel::draw_view(AppState& state) {
    const DeviceMesh& mesh = state.mesh();
    draw_toolbar(mesh);
    draw_summary(state);
    const float width = ImGui::GetContentRegionAvail().x;
    const float strip_h = focus_strip_height();
    const bool narrow = width < kWideStrip;
    const float table_h = show_data_ ? data_table_height() + ImGui::GetStyle().ItemSpacing.y : 0.0f;
    const float key_h = narrow ? ImGui::GetTextLineHeightWithSpacing() : 0.0f;
    const float canvas_h =
        std::max(140.0f, ImGui::GetContentRegionAvail().y - strip_h - table_h - key_h - 2 * ImGui::GetStyle().ItemSpacing.y);
    grid_.draw(mesh, state.version(), dim_, ImVec2(width, canvas_h), selected_);
    if (pending_zoom_ != 1.0f) {
        grid_.zoom_by(pending_zoom_);
        pending_zoom_ = 1.0f;
    }
    note_last_item("mesh/canvas");
    if (narrow) {
        ImGui::TextColored(kMutedColour, grid_.records().level == mesh::Level::gpus
                                             ? "plain: group inside a node (fast)  ·  hatched + arcs: spans nodes (slow)"
                                             : "colour: share of groups inside a node, orange 0%% to green 100%%");
    }
    if (show_data_) draw_data_table(state);
    // Side by side when there is room; a narrow window keeps the focus table and a one-line key.
    if (!narrow) {
        const float left_w = width * 0.56f;
        draw_focus_info(mesh, left_w, strip_h);
        ImGui::SameLine();
        draw_legend(mesh, width - left_w - ImGui::GetStyle().ItemSpacing.x, strip_h);
    } else {
        draw_focus_info(mesh, width, strip_h);
    }
}

void MeshPanel::draw_toolbar(const DeviceMesh& mesh) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(kMutedColour, "Colour groups of");
    for (Dim d : kAllDims) {
        ImGui::SameLine();
        const bool active = d == dim_;
        const int64_t size = group_size(mesh, d);
        ImVec4 c = colour_of(d);
        ImGui::PushStyleColor(ImGuiCol_Button, active ? c : ImVec4(c.x, c.y, c.z, 0.16f));
        ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(c.x, c.y, c.z, active ? 1.0f : 0.35f));
        ImGui::PushStyleColor(ImGuiCol_Text, active ? ImVec4(0.07f, 0.07f, 0.09f, 1) : (size > 1 ? c : kMutedColour));
        const std::string label = name_of(d) + " " + number(size);
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
        ImGui::TextWrapped("is 1: every GPU is its own group, so %s sends nothing. Pick a dim with a factor above 1.",
                           name.c_str());
    } else {
        std::string where;
        switch (sum.links) {
            case DimLinks::intra:
                where = "Every group sits inside one node: fast (" + format_bandwidth(s.cluster.intra_node.bandwidth_gbps * 1e9) + " per GPU).";
                break;
            case DimLinks::inter:
                where = "Every group spans nodes: slow (" + format_bandwidth(s.cluster.inter_node.bandwidth_gbps * 1e9) + " per GPU across the network).";
                break;
            case DimLinks::mixed:
                where = number(sum.intra_groups) + " groups sit inside a node (fast), " + number(sum.inter_groups) +
                        " span nodes (slow, bounded by the network).";
                break;
            case DimLinks::none: break;
        }
        std::string talk;
        if (const DimCost* cost = find_dim_cost(state.report(), dim_); cost && !cost->collective.empty()) {
            talk = " They talk by " + cost->collective + ": " + format_bytes(cost->bytes_per_step) + " per GPU per step, " +
                   format_seconds(cost->time_s) + ".";
        }
        ImGui::TextWrapped("%s groups of %s GPUs (stride %s). %s%s", number(sum.groups).c_str(), number(sum.size).c_str(),
                           number(sum.stride).c_str(), where.c_str(), talk.c_str());
    }
    if (mesh.is_hsdp()) {
        ImGui::TextColored(ImVec4(0.45f, 0.85f, 0.65f, 1), "HSDP");
        note_last_item("mesh/hsdp");
        badges_.push_back("HSDP");
        ImGui::SameLine(0, 6);
        ImGui::TextWrapped("dp_shard shards the model inside each node and dp_replicate copies it across nodes: the heavy "
                           "shard traffic stays on the fast link, only the gradient sync crosses nodes.");
    }
    if (mesh.leftover_factor() > 1) {
        ImGui::TextColored(kMutedColour, "Leftover");
        note_last_item("mesh/leftover");
        badges_.push_back("leftover");
        ImGui::SameLine(0, 6);
        ImGui::TextWrapped("%s GPUs are not needed by the factors; they become extra data-parallel replicas (faded): "
                           "dp_replicate %lld -> %lld.",
                           format_count(static_cast<double>(leftover_gpu_count(mesh))).c_str(),
                           static_cast<long long>(mesh.effective().dp_replicate - mesh.extra_replicas()),
                           static_cast<long long>(mesh.effective().dp_replicate));
    }
}

void MeshPanel::draw_focus_info(const DeviceMesh& mesh, float width, float height) {
    ImGui::BeginChild("mesh_focus", ImVec2(width, height), true, ImGuiWindowFlags_NoScrollbar);
    const int64_t focus = grid_.focus_rank(selected_);
    if (focus < 0 || focus >= mesh.world_size()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(kMutedColour, "Hover or click a GPU to see its coordinate in every dim and the members of each "
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
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerH;
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
            ImGui::Text("%lld / %lld", static_cast<long long>(index_in_group(mesh, d, focus)), static_cast<long long>(size));
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
                              ImVec2(p.x + std::min(x, box * 1.4f), p.y + std::max(0.0f, x - box * 1.4f)), IM_COL32(20, 20, 24, 140));
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
        if (mesh.leftover_factor() > 1) swatch(mesh::group_colour(1, r.dim_size, 0.38f), false, "faded: leftover replica");
        ImGui::TextColored(kMutedColour, "White outline: same group as the GPU in focus;");
        ImGui::TextColored(kMutedColour, "small squares: its groups in the other dims.");
    } else {
        if (r.level == mesh::Level::nodes) ImGui::TextColored(kMutedColour, "Each cell is one node of %lld GPUs.",
                                                             static_cast<long long>(mesh.gpus_per_node()));
        else ImGui::TextColored(kMutedColour, "Each cell is a block of %lld x %lld nodes.",
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
            ImGui::TextColored(kMutedColour, "White outline: blocks holding GPU %lld's %s group.", static_cast<long long>(selected_),
                               name_of(dim_).c_str());
        ImGui::TextColored(kMutedColour, "Scroll to zoom in, drag to pan, double-click to fit.");
    }
    ImGui::EndChild();
}

void MeshPanel::draw_data_table(const AppState& state) {
    const DeviceMesh& mesh = state.mesh();
    const Report& report = state.report();
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp |
                                  ImGuiTableFlags_ScrollY;
    if (!ImGui::BeginTable("mesh_data", 7, flags, ImVec2(0, data_table_height()))) return;
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
        if (ImGui::IsItemHovered()) {
            const DimFacts& facts = dim_facts(d);
            ImGui::SetTooltip("%s (%s)\nExchanges: %s\nLink: %s", name_of(d).c_str(), facts.strategy_label,
                              facts.communication, facts.link_rule);
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
        cell(cost ? cost->collective : "-");
        cell(cost ? format_bytes(cost->bytes_per_step) : "-");
        cell(cost ? format_seconds(cost->time_s) : "-");
    }
    ImGui::EndTable();
    note_last_item("mesh/data_table");
}

}  // namespace shardscope::ui
