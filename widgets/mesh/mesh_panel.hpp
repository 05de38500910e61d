#pragma once
// Device mesh panel: the cluster's nodes and GPUs, a factor per dim and the order of the
// dims, and a canvas where the groups of one picked dim share a colour, fast (inside a node) or slow
// (spanning nodes). Hover or click a GPU for its coordinates and the members of each of its groups;
// "Show as data" lists every dim with its links, collective, bytes and time from core's report.
//
// Edits go to a draft scenario. A valid draft is applied at once (AppState::try_apply); an invalid one
// keeps core's message on screen while the last valid mesh stays drawn.

#include "core/scenario/presets.hpp"
#include "widgets/mesh/mesh_canvas.hpp"
#include "widgets/kit/number_field.hpp"
#include "widgets/shell/panel.hpp"

#include <map>
#include <string>
#include <vector>

namespace shardscope::ui {

class MeshPanel final : public Panel {
public:
    MeshPanel(Placement placement, bool open);

    void draw(AppState& state) override;
    void reset_view(AppState& state) override;
    // "colours tp (size 8)": the dim the canvas colours, for tests driving the real window.
    [[nodiscard]] std::string probe_state() const override;

    // Draft edits (the controls and the actions use them): applied when the whole scenario is valid; the
    // rule broken otherwise ("" when applied).
    std::string set_factor(AppState& state, Dim d, int64_t value);
    std::string set_cluster_shape(AppState& state, int64_t nodes, int64_t gpus_per_node);
    std::string set_cluster(AppState& state, const ClusterSpec& cluster);
    std::string move_in_order(AppState& state, size_t from, size_t to);
    // Presets the app read from assets/clusters/ (widgets never read files).
    void set_cluster_presets(std::vector<ClusterPreset> presets) { presets_ = std::move(presets); }

    [[nodiscard]] Dim dim() const noexcept { return dim_; }
    [[nodiscard]] int64_t selected() const noexcept { return selected_; }
    [[nodiscard]] bool showing_data() const noexcept { return show_data_; }
    [[nodiscard]] const Scenario& draft() const noexcept { return draft_; }
    [[nodiscard]] const std::string& draft_error() const noexcept { return draft_error_; }
    [[nodiscard]] const mesh::GridRecords& records() const noexcept { return grid_.records(); }
    [[nodiscard]] mesh::MeshGrid& grid() noexcept { return grid_; }
    // Named badges the summary showed last frame ("HSDP", "leftover"), for tests and lessons.
    [[nodiscard]] const std::vector<std::string>& badges() const noexcept { return badges_; }

private:
    void declare_actions();
    // A dim of size 1 has no groups to colour: move to the first dim that splits something.
    void leave_unsplit_dim(const DeviceMesh& mesh);
    void sync_draft(const AppState& state);
    std::string apply_draft(AppState& state);

    void draw_controls(AppState& state);
    void draw_cluster_inputs(AppState& state);
    void draw_factor_inputs(AppState& state);
    void draw_order_list(AppState& state);
    void draw_draft_error(AppState& state);

    void draw_view(AppState& state);
    void draw_toolbar(const DeviceMesh& mesh);
    void draw_summary(const AppState& state);
    void draw_focus_info(const DeviceMesh& mesh, float width, float height);
    void draw_legend(const DeviceMesh& mesh, float width, float height);
    void draw_data_table(const AppState& state);

    Scenario draft_;
    unsigned long draft_version_ = 0;  // the state version the draft was taken from or applied as
    std::string draft_error_;
    std::map<std::string, WholeNumberText> texts_;  // each typed field's text, as typed
    Dim dim_ = Dim::tp;
    int64_t dim_size_ = 1;               // the coloured dim's size when last drawn
    unsigned long viewed_version_ = 0;  // the state version the coloured dim was last checked against
    int64_t selected_ = -1;
    bool show_data_ = false;
    float least_view_height_ = 0;  // the view with its smallest canvas (draw_view measures it)
    float pending_zoom_ = 1.0f;  // from act("zoom"): applied once the canvas has its size
    std::vector<ClusterPreset> presets_;
    std::vector<std::string> badges_;
    mesh::MeshGrid grid_;
};

}  // namespace shardscope::ui
