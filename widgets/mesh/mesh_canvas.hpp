#pragma once
// The Device mesh panel's canvas: nodes as boxes, GPUs as cells, the cells of one group sharing a
// colour, groups that cross a node boundary hatched and joined by arcs.
//
// Two passes. build: what is visible becomes small draw records (GpuCell, NodeBox, LodCell,
// CrossLink), rebuilt only when the scenario version, the dim, the view or the canvas size changes.
// paint: the records go to the window's draw list, plus the hover and selection highlights.
//
// Scale: a frame never visits every GPU. Records cover only what is on screen, and past the point
// where a GPU cell would be a few pixels wide the canvas switches level of detail: one cell per node,
// then one cell per block of b x b nodes, coloured by the share of their GPUs whose group stays inside
// the node (core's NodeIntraShare, built once per scenario version and dim). Zoomed out, a 131,072-GPU
// mesh paints about as many rectangles as a 64-GPU one.

#include "core/mesh/mesh_groups.hpp"

#include <imgui.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui::mesh {

enum class Level { gpus, nodes, blocks };
[[nodiscard]] const char* to_string(Level level) noexcept;

// Where nodes and GPUs sit, in layout units: a GPU cell is 1 x 1. Nodes fill rows of node_cols boxes;
// inside a box, GPUs fill rows of gpu_cols cells under a header strip for the node's name.
struct GridLayout {
    int64_t nodes = 1;
    int64_t gpus_per_node = 1;
    int64_t node_cols = 1, node_rows = 1;
    int64_t gpu_cols = 1, gpu_rows = 1;
    float node_w = 1, node_h = 1;    // one node's box
    float pitch_x = 1, pitch_y = 1;  // box plus the gap to the next

    [[nodiscard]] float width() const noexcept { return static_cast<float>(node_cols) * pitch_x; }
    [[nodiscard]] float height() const noexcept { return static_cast<float>(node_rows) * pitch_y; }
    [[nodiscard]] ImVec2 node_min(int64_t node) const noexcept;
    [[nodiscard]] ImVec2 gpu_min(int64_t rank) const noexcept;
    [[nodiscard]] ImVec2 gpu_centre(int64_t rank) const noexcept;
    // The node box or GPU cell under a layout point; -1 when the point is in a gap or outside.
    [[nodiscard]] int64_t node_at(ImVec2 p) const noexcept;
    [[nodiscard]] int64_t rank_at(ImVec2 p) const noexcept;
};

// Lays nodes out to fill a canvas of this shape (picks the number of node columns that gives the
// largest cells).
[[nodiscard]] GridLayout make_layout(int64_t nodes, int64_t gpus_per_node, ImVec2 canvas);

// screen = canvas origin + pan + layout point * zoom (zoom is pixels per layout unit = per GPU cell).
struct View {
    float zoom = 1;
    ImVec2 pan{0, 0};
};
[[nodiscard]] View fit_view(const GridLayout& layout, ImVec2 canvas);

// Draw records: positions relative to the canvas origin.
struct GpuCell {
    ImVec2 min, max;
    int64_t rank = 0;
    int64_t node = 0;
    GroupIds groups{};       // its group in every dim (the picked dim's decides the colour)
    bool intra = true;       // its group in the picked dim stays inside the node (fast)
    bool leftover = false;   // a leftover GPU: an extra dp_replicate replica
};
struct NodeBox {
    ImVec2 min, max;
    int64_t node = 0;
};
// One node (Level::nodes) or a block of b x b node boxes (Level::blocks) shown as a single cell.
struct LodCell {
    ImVec2 min, max;
    int64_t first_node = 0;   // top-left node of the block
    int64_t nodes = 0;        // nodes inside (fewer at the right and bottom edges)
    double intra_share = 1;   // share of those nodes' GPUs whose group stays inside the node
};
// A link between consecutive members of a group that crosses a node boundary.
struct CrossLink {
    ImVec2 from, to;
    int64_t group = 0;
};

struct GridRecords {
    Level level = Level::gpus;
    Dim dim = Dim::tp;
    int64_t dim_size = 1;
    int64_t block_side = 1;  // b: nodes per block side at Level::blocks
    // Each dim's colour (by group_dim_index), from the palette: the pips that mark the focused GPU's
    // groups in the other dims.
    std::array<ImU32, kAllDims.size()> dim_colours{};
    std::vector<NodeBox> nodes;
    std::vector<GpuCell> gpus;
    std::vector<LodCell> cells;
    std::vector<CrossLink> links;
    bool links_truncated = false;
};

class MeshGrid {
public:
    // Draws the canvas at the cursor, `size` pixels. A click (not a drag) on a GPU selects it into
    // `selected` (-1: none); the wheel zooms around the mouse, a drag pans, a double click fits.
    void draw(const DeviceMesh& mesh, unsigned long version, Dim dim, ImVec2 size, int64_t& selected);

    [[nodiscard]] const GridRecords& records() const noexcept { return records_; }
    [[nodiscard]] const GridLayout& layout() const noexcept { return layout_; }
    [[nodiscard]] const View& view() const noexcept { return view_; }
    [[nodiscard]] int64_t hovered_rank() const noexcept { return hovered_rank_; }
    // How many times the draw records were built (tests check that still frames reuse them).
    [[nodiscard]] size_t record_builds() const noexcept { return record_builds_; }
    // The GPU whose groups are highlighted: the hovered one, else the selected one.
    [[nodiscard]] int64_t focus_rank(int64_t selected) const noexcept {
        return hovered_rank_ >= 0 ? hovered_rank_ : selected;
    }
    // Next draw shows the whole mesh again.
    void request_fit() noexcept { fit_requested_ = true; }
    // Zooms by `factor` around the canvas centre (tests and the +/- buttons).
    void zoom_by(float factor) noexcept;
    // Screen position of a GPU's centre in the last frame (tests click it).
    [[nodiscard]] ImVec2 screen_centre_of(int64_t rank) const noexcept;

private:
    void refresh_layout(const DeviceMesh& mesh, ImVec2 size);
    void refresh_share(const DeviceMesh& mesh, unsigned long version, Dim dim);
    void handle_input(const DeviceMesh& mesh, bool pressed, bool hovered, int64_t& selected);
    void zoom_around(ImVec2 canvas_point, float factor) noexcept;
    [[nodiscard]] Level level_for(float zoom, int64_t& block_side) const noexcept;
    void build_records(const DeviceMesh& mesh, Dim dim);
    void build_gpu_records(const DeviceMesh& mesh, Dim dim);
    void build_lod_records();
    void add_cross_links(const DeviceMesh& mesh, Dim dim, const GpuCell& cell);
    void paint(ImDrawList* draw, const DeviceMesh& mesh, int64_t selected) const;
    void paint_gpu_level(ImDrawList* draw, const DeviceMesh& mesh, int64_t selected) const;
    void paint_lod_level(ImDrawList* draw, const DeviceMesh& mesh, int64_t selected) const;
    void refresh_group_blocks(const DeviceMesh& mesh, int64_t selected);
    void show_tooltip(const DeviceMesh& mesh, Dim dim) const;
    [[nodiscard]] bool block_holds_group(const DeviceMesh& mesh, const LodCell& cell, int64_t group) const noexcept;
    void find_hovered(bool hovered);
    [[nodiscard]] ImVec2 to_canvas(ImVec2 layout_point) const noexcept;
    [[nodiscard]] ImVec2 to_layout(ImVec2 canvas_point) const noexcept;
    [[nodiscard]] bool node_visible(int64_t node) const noexcept;

    GridLayout layout_;
    View view_;
    float fit_zoom_ = 1;
    ImVec2 canvas_size_{0, 0};
    ImVec2 origin_{0, 0};
    bool fit_requested_ = true;

    // Caches, keyed by what they depend on.
    NodeIntraShare share_;
    unsigned long share_version_ = 0;
    Dim share_dim_ = Dim::tp;
    GridRecords records_;
    unsigned long records_version_ = 0;
    float records_zoom_ = -1;
    ImVec2 records_pan_{0, 0};
    ImVec2 records_size_{0, 0};

    // Which coarse cells hold a member of the selected GPU's group: per records and selection, not
    // per frame.
    std::vector<bool> holds_group_;
    int64_t holds_group_rank_ = -1;
    bool holds_group_stale_ = true;

    size_t record_builds_ = 0;
    int64_t hovered_rank_ = -1;
    int hovered_cell_ = -1;  // index into records_.cells at the coarse levels
    int64_t visible_rows_[2] = {0, -1};  // node rows and columns covered by the records
    int64_t visible_cols_[2] = {0, -1};
};

// The colour a share of intra-node groups maps to at the coarse levels: 0 = all slow, 1 = all fast
// (the palette's inter-node and intra-node link colours, through amber).
[[nodiscard]] ImU32 share_colour(double intra_share) noexcept;
// The colour of group `group` when a dim is picked (a dim of size 1 has no groups: neutral grey).
[[nodiscard]] ImU32 group_colour(int64_t group, int64_t dim_size, float alpha = 1.0f) noexcept;
// The dims' own colours, and those of fast and slow links, are the palette's (widgets/kit/palette.hpp).

}  // namespace shardscope::ui::mesh
