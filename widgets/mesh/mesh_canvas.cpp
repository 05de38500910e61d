#include "widgets/mesh/mesh_canvas.hpp"

#include "core/scenario/units.hpp"
#include "widgets/kit/palette.hpp"
#include "widgets/kit/plot.hpp"

#include <imgui_internal.h>  // SetItemUsingMouseWheel

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shardscope::ui::mesh {

namespace {

// Layout units (a GPU cell is 1).
constexpr float kCellGap = 0.14f;    // between GPU cells
constexpr float kNodePad = 0.30f;    // inside a node box, around the cells
constexpr float kNodeHeader = 0.75f; // strip for "node N" above the cells
constexpr float kNodeGap = 0.55f;    // between node boxes

// Level of detail, in pixels.
constexpr float kMinCellPx = 8.0f;    // smaller GPU cells become one cell per node,
constexpr float kMaxGpuCells = 8000;  // as do more GPUs in view than this (vertices and build time)
constexpr float kMinTilePx = 16.0f;   // smaller node cells merge into blocks of b x b nodes
constexpr int64_t kMaxLodCells = 1500; // blocks grow until no more than this many are in view
constexpr float kMaxZoom = 160.0f;    // a GPU cell at most this many pixels wide
constexpr size_t kMaxLinks = 1500;    // arcs drawn per frame at most (each is a few dozen vertices)

constexpr ImU32 kCanvasBg = IM_COL32(22, 24, 29, 255);
constexpr ImU32 kCanvasBorder = IM_COL32(70, 76, 88, 255);
constexpr ImU32 kNodeFill = IM_COL32(38, 42, 51, 255);
constexpr ImU32 kNodeBorder = IM_COL32(92, 100, 118, 255);
constexpr ImU32 kNodeLabel = IM_COL32(180, 188, 204, 255);
constexpr ImU32 kNeutral = IM_COL32(112, 118, 130, 255);
constexpr ImU32 kFocusOutline = IM_COL32(255, 255, 255, 255);
constexpr ImU32 kHatch = IM_COL32(20, 20, 24, 120);

ImVec2 add(ImVec2 a, ImVec2 b) { return ImVec2(a.x + b.x, a.y + b.y); }
ImVec2 sub(ImVec2 a, ImVec2 b) { return ImVec2(a.x - b.x, a.y - b.y); }
ImVec2 scale(ImVec2 a, float s) { return ImVec2(a.x * s, a.y * s); }

ImU32 lerp_colour(ImU32 a, ImU32 b, float t) {
    const ImVec4 ca = ImGui::ColorConvertU32ToFloat4(a), cb = ImGui::ColorConvertU32ToFloat4(b);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(ca.x + (cb.x - ca.x) * t, ca.y + (cb.y - ca.y) * t,
                                                 ca.z + (cb.z - ca.z) * t, ca.w + (cb.w - ca.w) * t));
}

// Dark text on light fills, light text on dark ones.
ImU32 text_on(ImU32 fill) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(fill);
    const float luma = (0.299f * c.x + 0.587f * c.y + 0.114f * c.z) * c.w + 0.15f * (1.0f - c.w);
    return luma > 0.45f ? IM_COL32(18, 18, 22, 255) : IM_COL32(235, 238, 244, 255);
}

// 45-degree stripes clipped to a rectangle: "slow" reads at a glance without hiding the colour.
void hatch(ImDrawList* draw, ImVec2 min, ImVec2 max, float spacing, ImU32 colour) {
    const float w = max.x - min.x, h = max.y - min.y;
    for (float c = spacing; c < w + h; c += spacing) {
        // The line x + y = c in cell coordinates, clipped to [0,w] x [0,h].
        const ImVec2 a(min.x + std::max(0.0f, c - h), min.y + std::min(c, h));
        const ImVec2 b(min.x + std::min(c, w), min.y + std::max(0.0f, c - w));
        draw->AddLine(a, b, colour, 1.0f);
    }
}

// Gpu columns inside a node: a divisor of gpus_per_node giving a box about twice as wide as tall.
int64_t gpu_columns_for(int64_t gpus_per_node) {
    int64_t best = gpus_per_node;
    double best_score = 1e9;
    for (int64_t cols = gpus_per_node; cols >= 1; --cols) {
        if (gpus_per_node % cols != 0) continue;
        const double rows = static_cast<double>(gpus_per_node / cols);
        const double score = std::fabs(std::log(static_cast<double>(cols) / rows / 2.0));
        if (score < best_score - 1e-9) {
            best_score = score;
            best = cols;
        }
    }
    return best;
}

}  // namespace

const char* to_string(Level level) noexcept {
    switch (level) {
        case Level::gpus: return "GPUs";
        case Level::nodes: return "nodes";
        case Level::blocks: return "blocks of nodes";
    }
    return "GPUs";
}

ImVec2 GridLayout::node_min(int64_t node) const noexcept {
    return ImVec2(static_cast<float>(node % node_cols) * pitch_x, static_cast<float>(node / node_cols) * pitch_y);
}

ImVec2 GridLayout::gpu_min(int64_t rank) const noexcept {
    const int64_t slot = rank % gpus_per_node;
    const ImVec2 n = node_min(rank / gpus_per_node);
    return ImVec2(n.x + kNodePad + static_cast<float>(slot % gpu_cols) * (1.0f + kCellGap),
                  n.y + kNodeHeader + static_cast<float>(slot / gpu_cols) * (1.0f + kCellGap));
}

ImVec2 GridLayout::gpu_centre(int64_t rank) const noexcept { return add(gpu_min(rank), ImVec2(0.5f, 0.5f)); }

int64_t GridLayout::node_at(ImVec2 p) const noexcept {
    if (p.x < 0 || p.y < 0) return -1;
    const auto col = static_cast<int64_t>(p.x / pitch_x), row = static_cast<int64_t>(p.y / pitch_y);
    if (col >= node_cols || row >= node_rows) return -1;
    if (p.x - static_cast<float>(col) * pitch_x > node_w || p.y - static_cast<float>(row) * pitch_y > node_h) return -1;
    const int64_t node = row * node_cols + col;
    return node < nodes ? node : -1;
}

int64_t GridLayout::rank_at(ImVec2 p) const noexcept {
    const int64_t node = node_at(p);
    if (node < 0) return -1;
    const ImVec2 local = sub(sub(p, node_min(node)), ImVec2(kNodePad, kNodeHeader));
    if (local.x < 0 || local.y < 0) return -1;
    const float pitch = 1.0f + kCellGap;
    const auto col = static_cast<int64_t>(local.x / pitch), row = static_cast<int64_t>(local.y / pitch);
    if (col >= gpu_cols || row >= gpu_rows) return -1;
    if (local.x - static_cast<float>(col) * pitch > 1.0f || local.y - static_cast<float>(row) * pitch > 1.0f) return -1;
    const int64_t slot = row * gpu_cols + col;
    return slot < gpus_per_node ? node * gpus_per_node + slot : -1;
}

GridLayout make_layout(int64_t nodes, int64_t gpus_per_node, ImVec2 canvas) {
    GridLayout l;
    l.nodes = std::max<int64_t>(1, nodes);
    l.gpus_per_node = std::max<int64_t>(1, gpus_per_node);
    l.gpu_cols = gpu_columns_for(l.gpus_per_node);
    l.gpu_rows = (l.gpus_per_node + l.gpu_cols - 1) / l.gpu_cols;
    l.node_w = 2 * kNodePad + static_cast<float>(l.gpu_cols) + static_cast<float>(l.gpu_cols - 1) * kCellGap;
    l.node_h = kNodeHeader + kNodePad + static_cast<float>(l.gpu_rows) + static_cast<float>(l.gpu_rows - 1) * kCellGap;
    l.pitch_x = l.node_w + kNodeGap;
    l.pitch_y = l.node_h + kNodeGap;
    // The column count giving the largest zoom; among equals, the fewest empty slots.
    const float w = std::max(canvas.x, 1.0f), h = std::max(canvas.y, 1.0f);
    float best_zoom = -1;
    for (int64_t cols = 1; cols <= l.nodes; ++cols) {
        const int64_t rows = (l.nodes + cols - 1) / cols;
        const float zoom = std::min(w / (static_cast<float>(cols) * l.pitch_x), h / (static_cast<float>(rows) * l.pitch_y));
        if (zoom > best_zoom * 1.0001f) {
            best_zoom = zoom;
            l.node_cols = cols;
            l.node_rows = rows;
        }
        if (static_cast<float>(cols) * l.pitch_x * zoom > w * 4) break;  // far too wide from here on
    }
    return l;
}

View fit_view(const GridLayout& layout, ImVec2 canvas) {
    const float content_w = layout.width() - kNodeGap, content_h = layout.height() - kNodeGap;
    const float margin = 8.0f;
    View v;
    v.zoom = std::max(1e-4f, std::min((canvas.x - 2 * margin) / content_w, (canvas.y - 2 * margin) / content_h));
    v.pan = ImVec2((canvas.x - content_w * v.zoom) * 0.5f, (canvas.y - content_h * v.zoom) * 0.5f);
    return v;
}

ImU32 share_colour(double intra_share) noexcept {
    // Through amber so a half-and-half block is neither colour.
    constexpr ImU32 kMiddle = IM_COL32(222, 180, 74, 255);
    const ImU32 slow = palette::link_colour(LinkClass::inter), fast = palette::link_colour(LinkClass::intra);
    const float t = static_cast<float>(std::clamp(intra_share, 0.0, 1.0));
    return t < 0.5f ? lerp_colour(slow, kMiddle, t * 2) : lerp_colour(kMiddle, fast, (t - 0.5f) * 2);
}

ImU32 group_colour(int64_t group, int64_t dim_size, float alpha) noexcept {
    if (dim_size <= 1) return (kNeutral & ~IM_COL32_A_MASK) | (static_cast<ImU32>(alpha * 255) << IM_COL32_A_SHIFT);
    return plot::categorical_colour(static_cast<int>(group % 36), alpha);
}

ImVec2 MeshGrid::to_canvas(ImVec2 p) const noexcept { return add(view_.pan, scale(p, view_.zoom)); }
ImVec2 MeshGrid::to_layout(ImVec2 c) const noexcept { return scale(sub(c, view_.pan), 1.0f / view_.zoom); }

ImVec2 MeshGrid::screen_centre_of(int64_t rank) const noexcept {
    return add(origin_, to_canvas(layout_.gpu_centre(rank)));
}

bool MeshGrid::node_visible(int64_t node) const noexcept {
    const int64_t row = node / layout_.node_cols, col = node % layout_.node_cols;
    return row >= visible_rows_[0] && row <= visible_rows_[1] && col >= visible_cols_[0] && col <= visible_cols_[1];
}

void MeshGrid::draw(const DeviceMesh& mesh, unsigned long version, Dim dim, ImVec2 size, int64_t& selected) {
    size = ImVec2(std::max(size.x, 40.0f), std::max(size.y, 40.0f));
    origin_ = ImGui::GetCursorScreenPos();
    const bool pressed = ImGui::InvisibleButton(
        "mesh_canvas", size, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight | ImGuiButtonFlags_MouseButtonMiddle);
    const bool hovered = ImGui::IsItemHovered();
    // The wheel zooms the mesh; the panel scrolls only when the mouse is elsewhere.
    if (hovered) ImGui::SetItemUsingMouseWheel();
    refresh_layout(mesh, size);
    refresh_share(mesh, version, dim);
    handle_input(mesh, pressed, hovered, selected);

    const bool stale = records_version_ != version || records_.dim != dim || records_zoom_ != view_.zoom ||
                       records_pan_.x != view_.pan.x || records_pan_.y != view_.pan.y || records_size_.x != size.x ||
                       records_size_.y != size.y;
    if (stale) {
        build_records(mesh, dim);
        records_version_ = version;
        records_zoom_ = view_.zoom;
        records_pan_ = view_.pan;
        records_size_ = size;
        holds_group_stale_ = true;
    }
    refresh_group_blocks(mesh, selected);
    find_hovered(hovered);

    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(origin_, add(origin_, size), kCanvasBg, 4.0f);
    draw->PushClipRect(origin_, add(origin_, size), true);
    paint(draw, mesh, selected);
    draw->PopClipRect();
    draw->AddRect(origin_, add(origin_, size), kCanvasBorder, 4.0f);
    if (hovered && !ImGui::IsItemActive()) show_tooltip(mesh, dim);
}

void MeshGrid::refresh_layout(const DeviceMesh& mesh, ImVec2 size) {
    if (layout_.nodes != mesh.node_count() || layout_.gpus_per_node != mesh.gpus_per_node() ||
        size.x != canvas_size_.x || size.y != canvas_size_.y) {
        layout_ = make_layout(mesh.node_count(), mesh.gpus_per_node(), size);
        canvas_size_ = size;
        fit_requested_ = true;
    }
    if (fit_requested_) {
        view_ = fit_view(layout_, canvas_size_);
        fit_zoom_ = view_.zoom;
        fit_requested_ = false;
    }
}

void MeshGrid::refresh_share(const DeviceMesh& mesh, unsigned long version, Dim dim) {
    // Only the coarse levels need it, but building it once per version and dim (one pass over the
    // ranks) is what keeps every later frame free of per-GPU work.
    if (share_version_ == version && share_dim_ == dim) return;
    share_ = NodeIntraShare::build(mesh, dim);
    share_version_ = version;
    share_dim_ = dim;
}

void MeshGrid::zoom_around(ImVec2 canvas_point, float factor) noexcept {
    const float zoom = std::clamp(view_.zoom * factor, fit_zoom_ * 0.5f, std::max(kMaxZoom, fit_zoom_));
    const ImVec2 anchor = to_layout(canvas_point);
    view_.zoom = zoom;
    view_.pan = sub(canvas_point, scale(anchor, zoom));
}

void MeshGrid::zoom_by(float factor) noexcept { zoom_around(scale(canvas_size_, 0.5f), factor); }

void MeshGrid::handle_input(const DeviceMesh& mesh, bool pressed, bool hovered, int64_t& selected) {
    const ImGuiIO& io = ImGui::GetIO();
    const ImVec2 mouse = sub(io.MousePos, origin_);
    if (hovered && io.MouseWheel != 0.0f) zoom_around(mouse, std::pow(1.2f, io.MouseWheel));
    if (ImGui::IsItemActive()) {
        for (int button = 0; button < 3; ++button)
            if (ImGui::IsMouseDragging(button, 3.0f)) view_.pan = add(view_.pan, io.MouseDelta);
    }
    if (hovered && ImGui::IsMouseDoubleClicked(0)) {
        fit_requested_ = true;
        return;
    }
    // A click that did not drag selects the GPU under it; on a coarse level it zooms into the block.
    if (pressed && io.MouseDragMaxDistanceSqr[0] < 9.0f) {
        int64_t block_side = 1;
        if (level_for(view_.zoom, block_side) == Level::gpus) {
            const int64_t rank = layout_.rank_at(to_layout(mouse));
            selected = rank < mesh.world_size() ? rank : -1;
        } else {
            zoom_around(mouse, 4.0f);
        }
    }
}

Level MeshGrid::level_for(float zoom, int64_t& block_side) const noexcept {
    block_side = 1;
    const float view_cols = std::min(canvas_size_.x / (layout_.pitch_x * zoom) + 1, static_cast<float>(layout_.node_cols));
    const float view_rows = std::min(canvas_size_.y / (layout_.pitch_y * zoom) + 1, static_cast<float>(layout_.node_rows));
    const float gpus_in_view = view_cols * view_rows * static_cast<float>(layout_.gpus_per_node);
    if (zoom >= kMinCellPx && gpus_in_view <= kMaxGpuCells) return Level::gpus;
    // Blocks of b x b nodes: wide enough to see, and few enough that painting stays cheap whatever
    // the cluster's size.
    const float tile = std::min(layout_.pitch_x, layout_.pitch_y) * zoom;
    const auto in_view = [&](int64_t b) {
        const float side = static_cast<float>(b);
        return std::ceil(view_cols / side) * std::ceil(view_rows / side);
    };
    while (tile * static_cast<float>(block_side) < kMinTilePx || in_view(block_side) > static_cast<float>(kMaxLodCells))
        block_side *= 2;
    return block_side == 1 ? Level::nodes : Level::blocks;
}

void MeshGrid::build_records(const DeviceMesh& mesh, Dim dim) {
    ++record_builds_;
    records_ = GridRecords{};
    records_.dim = dim;
    records_.dim_size = group_size(mesh, dim);
    for (Dim d : kAllDims) records_.dim_colours[dim_index(d)] = palette::dim_colour(d);
    records_.level = level_for(view_.zoom, records_.block_side);
    // Node rows and columns that reach into the canvas.
    const ImVec2 lo = to_layout(ImVec2(0, 0)), hi = to_layout(canvas_size_);
    const auto first = [](float v, float pitch) { return static_cast<int64_t>(std::floor(v / pitch)); };
    visible_cols_[0] = std::max<int64_t>(0, first(lo.x, layout_.pitch_x));
    visible_cols_[1] = std::min<int64_t>(layout_.node_cols - 1, first(hi.x, layout_.pitch_x));
    visible_rows_[0] = std::max<int64_t>(0, first(lo.y, layout_.pitch_y));
    visible_rows_[1] = std::min<int64_t>(layout_.node_rows - 1, first(hi.y, layout_.pitch_y));
    if (records_.level == Level::gpus) build_gpu_records(mesh, dim);
    else build_lod_records();
}

void MeshGrid::build_gpu_records(const DeviceMesh& mesh, Dim dim) {
    const int64_t gpn = layout_.gpus_per_node;
    for (int64_t row = visible_rows_[0]; row <= visible_rows_[1]; ++row) {
        for (int64_t col = visible_cols_[0]; col <= visible_cols_[1]; ++col) {
            const int64_t node = row * layout_.node_cols + col;
            if (node >= layout_.nodes) break;
            const ImVec2 nmin = layout_.node_min(node);
            records_.nodes.push_back(
                NodeBox{to_canvas(nmin), to_canvas(add(nmin, ImVec2(layout_.node_w, layout_.node_h))), node});
            for (int64_t slot = 0; slot < gpn; ++slot) {
                const int64_t rank = node * gpn + slot;
                const ImVec2 gmin = layout_.gpu_min(rank);
                GpuCell cell;
                cell.min = to_canvas(gmin);
                cell.max = to_canvas(add(gmin, ImVec2(1, 1)));
                if (cell.max.x < 0 || cell.max.y < 0 || cell.min.x > canvas_size_.x || cell.min.y > canvas_size_.y)
                    continue;
                cell.rank = rank;
                cell.node = node;
                cell.groups = groups_of_rank(mesh, rank);
                cell.intra = rank_group_is_intra(mesh, dim, rank);
                cell.leftover = is_leftover_replica(mesh, rank);
                records_.gpus.push_back(cell);
                if (!cell.intra) add_cross_links(mesh, dim, cell);
            }
        }
    }
}

void MeshGrid::add_cross_links(const DeviceMesh& mesh, Dim dim, const GpuCell& cell) {
    if (records_.links.size() >= kMaxLinks) {
        records_.links_truncated = true;
        return;
    }
    const int64_t group = cell.groups[dim_index(dim)];
    const ImVec2 here = to_canvas(layout_.gpu_centre(cell.rank));
    // To the next member when it sits on another node; from the previous one only when that member is
    // off screen (otherwise its own cell adds the same arc).
    if (const auto next = next_member(mesh, dim, cell.rank); next && mesh.node_of(*next) != cell.node)
        records_.links.push_back(CrossLink{here, to_canvas(layout_.gpu_centre(*next)), group});
    const int64_t index = index_in_group(mesh, dim, cell.rank);
    if (index > 0) {
        const int64_t prev = group_member(mesh, dim, group, index - 1);
        if (mesh.node_of(prev) != cell.node && !node_visible(mesh.node_of(prev)))
            records_.links.push_back(CrossLink{to_canvas(layout_.gpu_centre(prev)), here, group});
    }
}

void MeshGrid::build_lod_records() {
    const int64_t b = records_.block_side;
    const int64_t C = layout_.node_cols;
    for (int64_t brow = visible_rows_[0] / b; brow <= visible_rows_[1] / b; ++brow) {
        for (int64_t bcol = visible_cols_[0] / b; bcol <= visible_cols_[1] / b; ++bcol) {
            LodCell cell;
            cell.first_node = brow * b * C + bcol * b;
            if (cell.first_node >= layout_.nodes) break;
            int64_t intra = 0;
            int64_t last_row = brow * b, last_col = bcol * b;
            // A block is b rows of b consecutive nodes: b prefix-sum look-ups, not b*b.
            for (int64_t row = brow * b; row < std::min((brow + 1) * b, layout_.node_rows); ++row) {
                const int64_t first = row * C + bcol * b;
                const int64_t count = std::min({b, C - bcol * b, layout_.nodes - first});
                if (count <= 0) break;
                cell.nodes += count;
                intra += share_.intra_gpus(first, count);
                last_row = row;
                last_col = std::max(last_col, bcol * b + count - 1);
            }
            cell.intra_share = share_.share(0, 0);
            if (cell.nodes > 0)
                cell.intra_share = static_cast<double>(intra) / static_cast<double>(cell.nodes * layout_.gpus_per_node);
            cell.min = to_canvas(layout_.node_min(cell.first_node));
            cell.max = to_canvas(ImVec2(static_cast<float>(last_col) * layout_.pitch_x + layout_.node_w,
                                        static_cast<float>(last_row) * layout_.pitch_y + layout_.node_h));
            records_.cells.push_back(cell);
        }
    }
}

void MeshGrid::find_hovered(bool hovered) {
    hovered_rank_ = -1;
    hovered_cell_ = -1;
    if (!hovered) return;
    const ImVec2 mouse = sub(ImGui::GetIO().MousePos, origin_);
    if (records_.level == Level::gpus) {
        hovered_rank_ = layout_.rank_at(to_layout(mouse));
        return;
    }
    for (size_t i = 0; i < records_.cells.size(); ++i) {
        const LodCell& c = records_.cells[i];
        if (mouse.x >= c.min.x && mouse.x <= c.max.x && mouse.y >= c.min.y && mouse.y <= c.max.y) {
            hovered_cell_ = static_cast<int>(i);
            return;
        }
    }
}

void MeshGrid::paint(ImDrawList* draw, const DeviceMesh& mesh, int64_t selected) const {
    if (records_.level == Level::gpus) paint_gpu_level(draw, mesh, selected);
    else paint_lod_level(draw, mesh, selected);
}

void MeshGrid::paint_gpu_level(ImDrawList* draw, const DeviceMesh& mesh, int64_t selected) const {
    const float zoom = view_.zoom;
    const size_t d = dim_index(records_.dim);
    // Rounded corners cost vertices: only on cells big enough to show them.
    const float rounding = zoom >= 24.0f ? std::min(6.0f, zoom * 0.12f) : 0.0f;
    for (const NodeBox& n : records_.nodes) {
        const ImVec2 a = add(origin_, n.min), b = add(origin_, n.max);
        draw->AddRectFilled(a, b, kNodeFill, rounding);
        draw->AddRect(a, b, kNodeBorder, rounding, 0, 1.0f);
        if (kNodeHeader * zoom >= ImGui::GetFontSize() + 2) {
            char label[32];
            std::snprintf(label, sizeof label, "node %lld", static_cast<long long>(n.node));
            const float y = a.y + (kNodeHeader * zoom - ImGui::GetFontSize()) * 0.5f + kNodePad * zoom * 0.25f;
            draw->AddText(ImVec2(a.x + kNodePad * zoom, y), kNodeLabel, label);
        }
    }

    const int64_t focus = focus_rank(selected);
    const bool has_focus = focus >= 0 && focus < mesh.world_size();
    const GroupIds focus_groups = has_focus ? groups_of_rank(mesh, focus) : GroupIds{};
    const bool show_text = zoom >= 22.0f;
    for (const GpuCell& c : records_.gpus) {
        const ImVec2 a = add(origin_, c.min), b = add(origin_, c.max);
        const ImU32 fill = group_colour(c.groups[d], records_.dim_size, c.leftover ? 0.38f : 1.0f);
        draw->AddRectFilled(a, b, fill, rounding * 0.5f);
        if (!c.intra && records_.dim_size > 1) hatch(draw, a, b, std::max(5.0f, zoom * 0.3f), kHatch);
        if (show_text) {
            char label[24];
            std::snprintf(label, sizeof label, "%lld", static_cast<long long>(c.rank));
            const ImVec2 size = ImGui::CalcTextSize(label);
            if (size.x < zoom - 4) {
                const ImVec2 at((a.x + b.x - size.x) * 0.5f, (a.y + b.y - size.y) * 0.5f);
                draw->AddText(at, text_on(fill), label);
            }
        }
        if (!has_focus) continue;
        if (c.rank == focus) {
            draw->AddRect(ImVec2(a.x - 2, a.y - 2), ImVec2(b.x + 2, b.y + 2), IM_COL32(255, 230, 120, 255), 2.0f, 0, 3.0f);
        } else if (records_.dim_size > 1 && c.groups[d] == focus_groups[d]) {
            draw->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), kFocusOutline, 2.0f, 0, 2.0f);
        }
        // A pip per other dim whose group this GPU shares with the focused one, in fixed slots.
        if (zoom < 18.0f || c.rank == focus) continue;
        const float pip = std::max(4.0f, zoom * 0.15f);
        for (size_t k = 0; k < kAllDims.size(); ++k) {
            const Dim other = kAllDims[k];
            if (k == d || group_size(mesh, other) <= 1 || c.groups[k] != focus_groups[k]) continue;
            const ImVec2 p(a.x + 3 + static_cast<float>(k) * (pip + 2.0f), b.y - pip - 3);
            draw->AddRectFilled(p, ImVec2(p.x + pip, p.y + pip), records_.dim_colours[k]);
            draw->AddRect(p, ImVec2(p.x + pip, p.y + pip), IM_COL32(0, 0, 0, 200));
        }
    }

    // Arcs bow sideways so that links along one row do not hide the cells they join.
    const int64_t focus_group = has_focus ? focus_groups[d] : -1;
    const int alpha = records_.links.size() > 300 ? 90 : 170;
    for (const CrossLink& l : records_.links) {
        const ImVec2 a = add(origin_, l.from), b = add(origin_, l.to);
        const ImVec2 delta = sub(b, a);
        const float length = std::sqrt(delta.x * delta.x + delta.y * delta.y);
        if (length < 1.0f) continue;
        const ImVec2 normal(-delta.y / length, delta.x / length);
        const float bow = std::min(length * 0.25f, 60.0f);
        const ImVec2 c1 = add(add(a, scale(delta, 0.25f)), scale(normal, bow));
        const ImVec2 c2 = add(add(a, scale(delta, 0.75f)), scale(normal, bow));
        const bool focused = l.group == focus_group;
        const ImU32 colour = focused ? IM_COL32(255, 226, 150, 255)
                                     : palette::link_colour(LinkClass::inter, static_cast<float>(alpha) / 255.0f);
        draw->AddBezierCubic(a, c1, c2, b, colour, focused ? 2.5f : 1.5f, records_.links.size() > 200 ? 8 : 0);
    }
}

bool MeshGrid::block_holds_group(const DeviceMesh& mesh, const LodCell& c, int64_t group) const noexcept {
    // A block is up to b rows of up to b consecutive nodes: one range query per row.
    const int64_t b = records_.block_side, cols = layout_.node_cols, gpn = layout_.gpus_per_node;
    const int64_t first_row = c.first_node / cols, first_col = c.first_node % cols;
    for (int64_t row = first_row; row < std::min(first_row + b, layout_.node_rows); ++row) {
        const int64_t first = row * cols + first_col;
        const int64_t end = std::min({first + b, row * cols + cols, layout_.nodes});
        if (first >= end) break;
        if (group_has_member_in(mesh, records_.dim, group, first * gpn, end * gpn)) return true;
    }
    return false;
}

void MeshGrid::refresh_group_blocks(const DeviceMesh& mesh, int64_t selected) {
    if (!holds_group_stale_ && holds_group_rank_ == selected) return;
    holds_group_stale_ = false;
    holds_group_rank_ = selected;
    holds_group_.assign(records_.cells.size(), false);
    if (selected < 0 || selected >= mesh.world_size() || records_.dim_size <= 1) return;
    const int64_t group = group_of(mesh, records_.dim, selected);
    for (size_t i = 0; i < records_.cells.size(); ++i) holds_group_[i] = block_holds_group(mesh, records_.cells[i], group);
}

void MeshGrid::paint_lod_level(ImDrawList* draw, const DeviceMesh& mesh, int64_t selected) const {
    const bool trivial = records_.dim_size <= 1;
    const bool has_selected = selected >= 0 && selected < mesh.world_size();
    const int64_t selected_node = has_selected ? mesh.node_of(selected) : -1;
    const int64_t b = records_.block_side, cols = layout_.node_cols;
    for (size_t i = 0; i < records_.cells.size(); ++i) {
        const LodCell& c = records_.cells[i];
        // Whole pixels and a one-pixel seam: sub-pixel gaps between tiles would shimmer unevenly.
        const ImVec2 a(std::floor(origin_.x + c.min.x), std::floor(origin_.y + c.min.y));
        const ImVec2 z(std::max(a.x + 1, std::floor(origin_.x + c.max.x) - 1), std::max(a.y + 1, std::floor(origin_.y + c.max.y) - 1));
        // Square corners: a rounded rectangle costs several times the vertices, on every tile.
        draw->AddRectFilled(a, z, trivial ? kNeutral : share_colour(c.intra_share));
        const bool holds_selected = has_selected && selected_node / cols / b == c.first_node / cols / b &&
                                    (selected_node % cols) / b == (c.first_node % cols) / b;
        if (holds_selected) {
            draw->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(z.x + 1, z.y + 1), IM_COL32(255, 230, 120, 255), 0.0f, 0, 2.5f);
        } else if (i < holds_group_.size() && holds_group_[i]) {
            // Where the selected GPU's group lives: the blocks that hold any of its members.
            draw->AddRect(a, z, kFocusOutline, 0.0f, 0, 1.5f);
        } else if (static_cast<int>(i) == hovered_cell_) {
            draw->AddRect(a, z, IM_COL32(255, 255, 255, 140), 0.0f, 0, 1.0f);
        }
    }
}

void MeshGrid::show_tooltip(const DeviceMesh& mesh, Dim dim) const {
    if (hovered_rank_ >= 0 && hovered_rank_ < mesh.world_size()) {
        const int64_t r = hovered_rank_;
        ImGui::BeginTooltip();
        ImGui::Text("GPU %lld  ·  node %lld, slot %lld", static_cast<long long>(r), static_cast<long long>(mesh.node_of(r)),
                    static_cast<long long>(r % mesh.gpus_per_node()));
        for (Dim d : kAllDims) {
            const int64_t size = group_size(mesh, d);
            if (size <= 1) continue;
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::dim_colour(d)), "%s",
                               std::string(to_string(d)).c_str());
            ImGui::SameLine(ImGui::GetFontSize() * 7);
            ImGui::Text("%lld of %lld  ·  group %lld  ·  %s", static_cast<long long>(index_in_group(mesh, d, r)),
                        static_cast<long long>(size), static_cast<long long>(group_of(mesh, d, r)),
                        rank_group_is_intra(mesh, d, r) ? "inside the node" : "spans nodes");
        }
        if (is_leftover_replica(mesh, r)) ImGui::TextDisabled("Leftover GPU: an extra dp_replicate replica");
        ImGui::TextDisabled("Click to select");
        ImGui::EndTooltip();
        return;
    }
    if (hovered_cell_ < 0) return;
    const LodCell& c = records_.cells[static_cast<size_t>(hovered_cell_)];
    ImGui::BeginTooltip();
    if (records_.level == Level::nodes) {
        ImGui::Text("node %lld  ·  GPUs %lld-%lld", static_cast<long long>(c.first_node),
                    static_cast<long long>(c.first_node * mesh.gpus_per_node()),
                    static_cast<long long>((c.first_node + 1) * mesh.gpus_per_node() - 1));
    } else {
        ImGui::Text("%lld nodes (block of %lld x %lld from node %lld)  ·  %lld GPUs", static_cast<long long>(c.nodes),
                    static_cast<long long>(records_.block_side), static_cast<long long>(records_.block_side),
                    static_cast<long long>(c.first_node), static_cast<long long>(c.nodes * mesh.gpus_per_node()));
    }
    if (records_.dim_size > 1)
        ImGui::Text("%s of their GPUs' %s groups stay inside a node", format_percent(c.intra_share).c_str(),
                    std::string(to_string(dim)).c_str());
    else
        ImGui::Text("%s is 1: no %s groups", std::string(to_string(dim)).c_str(), std::string(to_string(dim)).c_str());
    ImGui::TextDisabled("Click or scroll to zoom in");
    ImGui::EndTooltip();
}

}  // namespace shardscope::ui::mesh
