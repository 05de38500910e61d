// The Device mesh panel's editor: the cluster and factor inputs, the order list, the draft that holds an
// edit core refused, and the actions. What it shows of the mesh is mesh_viewer.cpp.
#include "widgets/mesh/mesh_panel.hpp"

#include "widgets/kit/shown_figures.hpp"
#include "widgets/kit/number_field.hpp"

#include "widgets/mesh/mesh_text.hpp"

#include "core/scenario/units.hpp"
#include "widgets/kit/glossary_terms.hpp"
#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/palette.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace shardscope::ui {

namespace {

using namespace mesh_text;

constexpr float kControlsWidth = 300.0f;
constexpr float kWideLayout = 760.0f;   // narrower windows put the controls above the canvas
constexpr const char* kOrderPayload = "SHARDSCOPE_MESH_ORDER";
const ImVec4 kErrorColour{1.0f, 0.45f, 0.40f, 1.0f};

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
    // Halving never goes below 1; a typed 0 is left for core's validation to refuse by name.
    if (changed) value = std::max<int64_t>(1, value);
    return changed;
}

// A whole-number field: the text as typed until the field is left (Enter, Tab or a click), then read
// whole (ImGui's InputInt applied every keystroke, "16" as 1 first, and kept the digits of "1e3").
// True when `value` is to be applied: a number typed and left, or a step button; text that is no
// whole number leaves `value` and says why in `refusal`.
bool int_field(const char* label, const char* id, int64_t& value, float label_width, WholeNumberText& text,
               std::string& refusal, ImVec4 label_colour = ImVec4(0.86f, 0.88f, 0.92f, 1.0f)) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(label_colour, "%s", label);
    ImGui::SameLine(label_width);
    ImGui::SetNextItemWidth(72);
    const std::optional<WholeNumberRead> typed = whole_number_field(id, text, value);
    note_last_item(std::string("mesh/field/") + (id + 2));
    bool changed = false;
    if (typed && typed->value) {
        value = *typed->value;
        changed = true;
    } else if (typed) {
        refusal = std::string(label) + ": " + typed->error;
    }
    changed |= step_buttons(id, value);
    return changed;
}

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
    draft_.cluster.name = cluster_name_after_edit(state.scenario().cluster, draft_.cluster, presets_);
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
    leave_unsplit_dim(state.mesh());
}

void MeshPanel::leave_unsplit_dim(const DeviceMesh& mesh) {
    if (dim_summary(mesh, dim_).size > 1) return;
    for (Dim d : kAllDims)
        if (dim_summary(mesh, d).size > 1) {
            dim_ = d;
            return;
        }
}

std::string MeshPanel::probe_state() const {
    return "colours " + std::string(to_string(dim_)) + " (size " + std::to_string(dim_size_) + ")";
}

void MeshPanel::declare_actions() {
    std::vector<std::string> dims;
    for (Dim d : kAllDims) dims.emplace_back(to_string(d));
    actions_.choice("dim", "the dim whose groups the canvas colours", dims, [this](AppState& state, const ActionValue& v) {
        dim_ = *dim_from_string(v.text);
        viewed_version_ = state.version();  // asked for by name: kept even at size 1
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
    actions_.integer("nodes", "nodes in the cluster", 1, kNoUpperCount, [this](AppState& state, const ActionValue& v) {
        sync_draft(state);
        return set_cluster_shape(state, v.integer, draft_.cluster.gpus_per_node);
    });
    actions_.integer("gpus_per_node", "GPUs in each node", 1, kNoUpperCount, [this](AppState& state, const ActionValue& v) {
        sync_draft(state);
        return set_cluster_shape(state, draft_.cluster.nodes, v.integer);
    });
    for (Dim d : kAllDims)
        actions_.integer(std::string(to_string(d)), "the " + std::string(to_string(d)) + " factor", 1, kNoUpperCount,
                         [this, d](AppState& state, const ActionValue& v) { return set_factor(state, d, v.integer); });
}

// ---- controls ------------------------------------------------------------------------------------

void MeshPanel::draw(AppState& state) {
    sync_draft(state);
    if (selected_ >= state.mesh().world_size()) selected_ = -1;
    // A new layout (the planner's Apply, a lesson, Undo, a file) may leave the coloured dim at size 1;
    // a person who picks a size-1 dim by hand keeps it until the scenario changes.
    if (state.version() != viewed_version_) {
        viewed_version_ = state.version();
        leave_unsplit_dim(state.mesh());
    }
    dim_size_ = dim_summary(state.mesh(), dim_).size;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (avail.x >= kWideLayout) {
        ImGui::BeginChild("mesh_controls", ImVec2(kControlsWidth, 0), false);
        draw_controls(state);
        ImGui::EndChild();
        ImGui::SameLine();
    } else {
        const bool unfolded = ImGui::CollapsingHeader("Cluster, factors and order");
        note_last_item("mesh/controls");
        if (unfolded) {
            draw_controls(state);
        } else if (!draft_error_.empty()) {
            // The controls are folded away: the rule still has to be seen.
            ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
            text_wrapped(draft_error_);
            ImGui::PopStyleColor();
            note_last_item("mesh/error");
        }
    }
    // As tall as the tile leaves, or as the view needs (the tile then scrolls). It never scrolls itself:
    // the wheel over the mesh zooms it, and elsewhere scrolls the tile.
    const float view_h = std::max({ImGui::GetContentRegionAvail().y, 320.0f, least_view_height_});
    ImGui::BeginChild("mesh_view", ImVec2(0, view_h), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    draw_view(state);
    ImGui::EndChild();
}

void MeshPanel::draw_controls(AppState& state) {
    draw_cluster_inputs(state);
    ImGui::Spacing();
    draw_factor_inputs(state);
    // Under the factors it is about, not below the order list where a short tile would scroll it away.
    draw_draft_error(state);
    ImGui::Spacing();
    draw_order_list(state);
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
        text_wrapped(draft_.cluster.name);
    }
    const float label_w = 112.0f;
    int64_t nodes = draft_.cluster.nodes, gpn = draft_.cluster.gpus_per_node;
    if (int_field("Nodes", "##nodes", nodes, label_w, texts_["nodes"], draft_error_)) set_cluster_shape(state, nodes, gpn);
    if (int_field("GPUs / node", "##gpus_per_node", gpn, label_w, texts_["gpus_per_node"], draft_error_))
        set_cluster_shape(state, nodes, gpn);
    ImGui::TextColored(kMutedColour, "%s GPUs  ·  %s", number(draft_.cluster.gpu_count()).c_str(),
                       draft_.cluster.gpu.name.c_str());
    if (draft_.cluster.gpu_count() == state.mesh().world_size())
        note_shown("mesh.world_size", number(draft_.cluster.gpu_count()) + " GPUs");
    ImGui::TextColored(kMutedColour, "in node %s  ·  across %s",
                       format_bandwidth(draft_.cluster.intra_node.bytes_per_s()).c_str(),
                       format_bandwidth(draft_.cluster.inter_node.bytes_per_s()).c_str());
}

void MeshPanel::draw_factor_inputs(AppState& state) {
    ImGui::TextColored(kMutedColour, "FACTORS");
    ImGui::Separator();
    const float label_w = 112.0f;
    const DeviceMesh& mesh = state.mesh();
    for (Dim d : kAllDims) {
        int64_t v = draft_.parallel.factor(d);
        if (int_field(name_of(d).c_str(), ("##" + name_of(d)).c_str(), v, label_w, texts_[name_of(d)], draft_error_,
                      colour_of(d)))
            set_factor(state, d, v);
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
    text_wrapped(draft_error_);
    ImGui::PopStyleColor();
    note_last_item("mesh/error");
    ImGui::TextColored(kMutedColour, "The canvas shows the last valid mesh.");
    if (ImGui::Button("Revert to the valid mesh")) {
        draft_ = state.scenario();
        draft_error_.clear();
    }
}

}  // namespace shardscope::ui
