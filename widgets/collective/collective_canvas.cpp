#include "widgets/collective/collective_canvas.hpp"

#include "widgets/kit/palette.hpp"
#include "widgets/kit/plot.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace shardscope::ui {

namespace {

constexpr float kMargin = 10.0f;       // canvas edge to the nearest card
constexpr float kHeader = 18.0f;       // a card's title line ("GPU 3"), when the card is wide enough
constexpr float kHeaderMinWidth = 40.0f;
constexpr float kCardPad = 3.0f;       // card border to its cells
constexpr float kCardGap = 8.0f;       // least space between two cards
constexpr float kMaxCardWidth = 200.0f;
constexpr float kNodeLabel = 20.0f;    // a node box's title line
constexpr float kPi = 3.14159265f;

[[nodiscard]] ImVec2 add(ImVec2 a, ImVec2 b) noexcept { return ImVec2(a.x + b.x, a.y + b.y); }
[[nodiscard]] ImVec2 sub(ImVec2 a, ImVec2 b) noexcept { return ImVec2(a.x - b.x, a.y - b.y); }
[[nodiscard]] ImVec2 scale(ImVec2 a, float s) noexcept { return ImVec2(a.x * s, a.y * s); }
[[nodiscard]] float length(ImVec2 a) noexcept { return std::sqrt(a.x * a.x + a.y * a.y); }

[[nodiscard]] Rect centred(ImVec2 c, float w, float h) noexcept {
    return Rect{ImVec2(c.x - w * 0.5f, c.y - h * 0.5f), ImVec2(c.x + w * 0.5f, c.y + h * 0.5f)};
}

[[nodiscard]] bool has_header(float card_width) noexcept { return card_width >= kHeaderMinWidth; }

// How the cells of one buffer are arranged inside a card of a given width: one row when each cell
// can be at least 7 px wide (tall cells show a reduction's fill best), else a square-ish grid.
struct CellGrid {
    int cols = 1;
    int rows = 1;
    float cells_height = 0;
};

[[nodiscard]] CellGrid cell_grid(float card_width, int slots) noexcept {
    const float inner = std::max(card_width - 2 * kCardPad, 1.0f);
    CellGrid g;
    if (inner / static_cast<float>(slots) >= 7.0f) {
        g.cols = slots;
        g.rows = 1;
        g.cells_height = std::clamp(card_width * 0.42f, 20.0f, 84.0f);
        return g;
    }
    g.cols = static_cast<int>(std::ceil(std::sqrt(static_cast<float>(slots))));
    g.rows = (slots + g.cols - 1) / g.cols;
    g.cells_height = inner / static_cast<float>(g.cols) * static_cast<float>(g.rows);
    return g;
}

[[nodiscard]] float card_height(float card_width, int slots) noexcept {
    return (has_header(card_width) ? kHeader : 0.0f) + cell_grid(card_width, slots).cells_height + 2 * kCardPad;
}

// --- Ring: cards on an ellipse, rank 0 at the top, clockwise -------------------------------------

[[nodiscard]] float ring_angle(int rank, int n) noexcept;

[[nodiscard]] std::vector<ImVec2> ellipse_centres(int n, ImVec2 size, float w, float h) {
    const ImVec2 c(size.x * 0.5f, size.y * 0.5f);
    const float rx = std::max(size.x * 0.5f - w * 0.5f - kMargin, 0.0f);
    const float ry = std::max(size.y * 0.5f - h * 0.5f - kMargin, 0.0f);
    std::vector<ImVec2> centres;
    for (int r = 0; r < n; ++r) {
        const float angle = ring_angle(r, n);
        centres.emplace_back(c.x + rx * std::cos(angle), c.y + ry * std::sin(angle));
    }
    return centres;
}

// Cards of this size on the ellipse leave every neighbouring pair apart (in x or in y).
[[nodiscard]] bool ring_fits(int n, ImVec2 size, float w, float h) {
    if (w + 2 * kMargin > size.x || h + 2 * kMargin > size.y) return false;
    const auto centres = ellipse_centres(n, size, w, h);
    for (int i = 0; i < n && n > 1; ++i) {
        const ImVec2 a = centres[static_cast<size_t>(i)], b = centres[static_cast<size_t>((i + 1) % n)];
        if (std::fabs(a.x - b.x) < w + kCardGap && std::fabs(a.y - b.y) < h + kCardGap) return false;
    }
    return true;
}

[[nodiscard]] float ring_angle(int rank, int n) noexcept {
    return -kPi * 0.5f + 2.0f * kPi * static_cast<float>(rank) / static_cast<float>(n);
}

// One arc per node, inside the ring of cards, so that which GPUs share a node reads at a glance.
void add_node_arcs(CollectiveScene& scene, int per_node) {
    const int n = scene.ranks;
    if (per_node >= n || scene.cards.empty()) return;
    const float w = scene.cards.front().rect.width(), h = scene.cards.front().rect.height();
    scene.arc_centre = scale(scene.size, 0.5f);
    scene.arc_radii = ImVec2(scene.size.x * 0.5f - kMargin - w - 12.0f, scene.size.y * 0.5f - kMargin - h - 12.0f);
    if (scene.arc_radii.x < 30.0f || scene.arc_radii.y < 30.0f) return;
    const float pitch = 2.0f * kPi / static_cast<float>(n);
    for (int first = 0, node = 0; first < n; first += per_node, ++node) {
        const int last = std::min(n, first + per_node) - 1;
        scene.node_arcs.push_back(
            NodeArc{node, ring_angle(first, n) - pitch * 0.4f, ring_angle(last, n) + pitch * 0.4f});
    }
}

[[nodiscard]] std::vector<Rect> layout_ring(int n, int slots, ImVec2 size) {
    float w = kMaxCardWidth;
    while (w > 12.0f && !ring_fits(n, size, w, card_height(w, slots))) w -= 2.0f;
    const float h = card_height(w, slots);
    std::vector<Rect> rects;
    for (ImVec2 c : ellipse_centres(n, size, w, h)) rects.push_back(centred(c, w, h));
    return rects;
}

// --- Snake: the ring folded into rows, so 64 cards still have room for their cells ----------------
// Row 0 runs left to right, row 1 right to left, and so on: ring neighbours stay side by side (or
// one above the other at the row ends). With an even number of rows the ring closes up the left
// edge, so a margin there leaves room for that last arrow's bow.

constexpr float kSnakeLeft = 46.0f;

[[nodiscard]] std::vector<Rect> layout_snake(int n, int slots, ImVec2 size) {
    const float width = size.x - kSnakeLeft - kMargin, height = size.y - 2 * kMargin;
    float best_w = 0, best_score = 0;
    int best_cols = 1;
    for (int cols = 2; cols <= n; ++cols) {
        const int rows = (n + cols - 1) / cols;
        float w = std::min(kMaxCardWidth, width / static_cast<float>(cols) - kCardGap * 2);
        while (w > 12.0f && static_cast<float>(rows) * (card_height(w, slots) + kCardGap * 3) > height) w -= 2.0f;
        // Prefer full rows and an even number of them: the ring then closes straight up the left edge.
        const bool closes_on_edge = rows % 2 == 0 && n % cols == 0;
        const float score = w * (closes_on_edge ? 1.0f : 0.8f);
        if (score > best_score) {
            best_score = score;
            best_w = w;
            best_cols = cols;
        }
    }
    const int rows = (n + best_cols - 1) / best_cols;
    const float h = card_height(best_w, slots);
    const float column = width / static_cast<float>(best_cols), row = height / static_cast<float>(rows);
    std::vector<Rect> rects;
    for (int r = 0; r < n; ++r) {
        const int y = r / best_cols;
        const int x = y % 2 == 0 ? r % best_cols : best_cols - 1 - r % best_cols;
        rects.push_back(centred(ImVec2(kSnakeLeft + (static_cast<float>(x) + 0.5f) * column,
                                       kMargin + (static_cast<float>(y) + 0.5f) * row),
                                best_w, h));
    }
    return rects;
}

// --- Tree: one row per depth, leaves spread evenly, a parent above the middle of its children -----

[[nodiscard]] std::vector<Rect> layout_tree(const std::vector<int>& parent, int slots, ImVec2 size) {
    const int n = static_cast<int>(parent.size());
    std::vector<std::vector<int>> children(static_cast<size_t>(n));
    int root = 0;
    for (int r = 0; r < n; ++r) {
        if (parent[static_cast<size_t>(r)] < 0) root = r;
        else children[static_cast<size_t>(parent[static_cast<size_t>(r)])].push_back(r);
    }
    std::vector<int> depth(static_cast<size_t>(n), 0);
    std::vector<float> slot_x(static_cast<size_t>(n), 0);
    int leaves = 0;
    int max_depth = 0;
    // Iterative post-order walk: leaves take the next slot, parents sit over their children.
    std::vector<std::pair<int, size_t>> stack{{root, 0}};
    while (!stack.empty()) {
        auto& [rank, next] = stack.back();
        const auto& kids = children[static_cast<size_t>(rank)];
        if (next < kids.size()) {
            const int child = kids[next++];
            depth[static_cast<size_t>(child)] = depth[static_cast<size_t>(rank)] + 1;
            max_depth = std::max(max_depth, depth[static_cast<size_t>(child)]);
            stack.emplace_back(child, 0);
            continue;
        }
        if (kids.empty()) slot_x[static_cast<size_t>(rank)] = static_cast<float>(leaves++);
        else slot_x[static_cast<size_t>(rank)] =
                 0.5f * (slot_x[static_cast<size_t>(kids.front())] + slot_x[static_cast<size_t>(kids.back())]);
        stack.pop_back();
    }
    const float column = (size.x - 2 * kMargin) / static_cast<float>(std::max(leaves, 1));
    const float row = (size.y - 2 * kMargin) / static_cast<float>(max_depth + 1);
    float w = std::min(kMaxCardWidth, column - kCardGap);
    while (w > 12.0f && card_height(w, slots) > row * 0.62f) w -= 2.0f;  // leave room for the arrows
    const float h = card_height(w, slots);
    std::vector<Rect> rects(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
        const ImVec2 c(kMargin + (slot_x[static_cast<size_t>(r)] + 0.5f) * column,
                       kMargin + (static_cast<float>(depth[static_cast<size_t>(r)]) + 0.5f) * row);
        rects[static_cast<size_t>(r)] = centred(c, w, h);
    }
    return rects;
}

// --- Nodes: a grid of node boxes, each a grid of its GPUs ----------------------------------------

struct NodeGrid {
    int cols = 1, rows = 1;    // node boxes
    int gcols = 1, grows = 1;  // GPUs inside a box
    float card_w = 0;
};

[[nodiscard]] NodeGrid best_node_grid(int nodes, int per_node, int slots, ImVec2 size) {
    NodeGrid best;
    for (int cols = 1; cols <= nodes; ++cols) {
        const int rows = (nodes + cols - 1) / cols;
        const float box_w = (size.x - kMargin) / static_cast<float>(cols) - kMargin;
        const float box_h = (size.y - kMargin) / static_cast<float>(rows) - kMargin;
        for (int gcols = 1; gcols <= per_node; ++gcols) {
            const int grows = (per_node + gcols - 1) / gcols;
            float w = std::min(kMaxCardWidth, (box_w - kCardGap) / static_cast<float>(gcols) - kCardGap);
            const float room = box_h - kNodeLabel - kCardGap;
            // Rows of cards need space between them for the arrows that join them.
            while (w > 12.0f && static_cast<float>(grows) * (card_height(w, slots) + 3 * kCardGap) > room) w -= 2.0f;
            if (w > best.card_w) best = NodeGrid{cols, rows, gcols, grows, w};
        }
    }
    return best;
}

[[nodiscard]] std::vector<Rect> layout_nodes(int n, int per_node, int slots, ImVec2 size, std::vector<CollectiveNodeBox>& boxes) {
    const int nodes = (n + per_node - 1) / per_node;
    const NodeGrid g = best_node_grid(nodes, per_node, slots, size);
    const float box_w = (size.x - kMargin) / static_cast<float>(g.cols) - kMargin;
    const float box_h = (size.y - kMargin) / static_cast<float>(g.rows) - kMargin;
    const float w = g.card_w, h = card_height(w, slots);
    std::vector<Rect> rects(static_cast<size_t>(n));
    for (int node = 0; node < nodes; ++node) {
        const ImVec2 box_min(kMargin + static_cast<float>(node % g.cols) * (box_w + kMargin),
                             kMargin + static_cast<float>(node / g.cols) * (box_h + kMargin));
        boxes.push_back(CollectiveNodeBox{node, Rect{box_min, ImVec2(box_min.x + box_w, box_min.y + box_h)}});
        const float cell_w = box_w / static_cast<float>(g.gcols);
        const float cell_h = (box_h - kNodeLabel) / static_cast<float>(g.grows);
        for (int local = 0; local < per_node && node * per_node + local < n; ++local) {
            const ImVec2 c(box_min.x + (static_cast<float>(local % g.gcols) + 0.5f) * cell_w,
                           box_min.y + kNodeLabel + (static_cast<float>(local / g.gcols) + 0.5f) * cell_h);
            rects[static_cast<size_t>(node * per_node + local)] = centred(c, w, h);
        }
    }
    return rects;
}

// --- Records -------------------------------------------------------------------------------------

[[nodiscard]] std::vector<int> ranks_in(const std::vector<bool>& bits) {
    std::vector<int> ranks;
    for (size_t r = 0; r < bits.size(); ++r)
        if (bits[r]) ranks.push_back(static_cast<int>(r));
    return ranks;
}

[[nodiscard]] bool is_reduction(Collective c) noexcept {
    return c == Collective::all_reduce || c == Collective::reduce_scatter || c == Collective::reduce;
}

void place_cells(RankCard& card, const RankBuffer& buffer, int ranks, bool reduction) {
    const float w = card.rect.width();
    const CellGrid g = cell_grid(w, static_cast<int>(buffer.size()));
    const float top = card.rect.min.y + (has_header(w) ? kHeader : 0.0f) + kCardPad;
    card.cells_area = Rect{ImVec2(card.rect.min.x + kCardPad, top),
                           ImVec2(card.rect.max.x - kCardPad, top + g.cells_height)};
    const float cw = card.cells_area.width() / static_cast<float>(g.cols);
    const float ch = g.cells_height / static_cast<float>(g.rows);
    for (size_t s = 0; s < buffer.size(); ++s) {
        const int col = static_cast<int>(s) % g.cols, row = static_cast<int>(s) / g.cols;
        ChunkCell cell;
        cell.slot = static_cast<int>(s);
        cell.chunk = buffer[s].chunk;
        cell.contributors = ranks_in(buffer[s].contributors);
        cell.complete = reduction && cell.chunk >= 0 && static_cast<int>(cell.contributors.size()) == ranks;
        const ImVec2 min(card.cells_area.min.x + static_cast<float>(col) * cw,
                         card.cells_area.min.y + static_cast<float>(row) * ch);
        cell.rect = Rect{min, ImVec2(min.x + cw, min.y + ch)};
        card.cells.push_back(std::move(cell));
    }
}

// Where the ray from a card's centre towards `toward` leaves the card, plus a small gap.
[[nodiscard]] ImVec2 exit_point(const Rect& r, ImVec2 toward) {
    const ImVec2 c = r.centre();
    const ImVec2 d = sub(toward, c);
    const float hw = r.width() * 0.5f + 3.0f, hh = r.height() * 0.5f + 3.0f;
    const float tx = std::fabs(d.x) > 1e-4f ? hw / std::fabs(d.x) : 1e9f;
    const float ty = std::fabs(d.y) > 1e-4f ? hh / std::fabs(d.y) : 1e9f;
    const float t = std::min({tx, ty, 1.0f});
    return add(c, scale(d, t));
}

// A curve bowing to the left of its direction: opposite transfers between two cards stay apart,
// and on the ring (clockwise) neighbours' arrows bow outwards, away from the middle. A long chord
// across the ring (all-to-all, trees drawn on the ring) bows towards the middle instead, so it does
// not run over the cards on its way; a slight left offset still keeps opposite chords apart.
[[nodiscard]] TransferArrow arrow_between(const Rect& a, const Rect& b, std::optional<ImVec2> bow_towards) {
    TransferArrow arrow;
    const ImVec2 ca = a.centre(), cb = b.centre();
    const ImVec2 d = sub(cb, ca);
    const float len = std::max(length(d), 1.0f);
    const ImVec2 left(d.y / len, -d.x / len);
    const ImVec2 mid = scale(add(ca, cb), 0.5f);
    if (bow_towards) arrow.control = add(add(mid, scale(sub(*bow_towards, mid), 0.3f)), scale(left, len * 0.06f));
    else arrow.control = add(mid, scale(left, std::min(len * 0.2f, 70.0f)));
    arrow.from = exit_point(a, arrow.control);
    arrow.to = exit_point(b, arrow.control);
    return arrow;
}

[[nodiscard]] std::vector<int> payload_of(const Transfer& t, const std::vector<RankBuffer>& before) {
    if (t.src_slot == kInputSlot) return {t.src};  // all-to-all: the sender's own input
    return ranks_in(before[static_cast<size_t>(t.src)][static_cast<size_t>(t.src_slot)].contributors);
}

void add_arrows(CollectiveScene& scene, const SceneInput& in) {
    const SteppedCollective& sc = *in.collective;
    if (in.arrows_step < 0 || in.arrows_step >= sc.step_count() || !in.before) return;
    for (const Transfer& t : sc.transfers(in.arrows_step)) {
        const int hop = (t.dst - t.src + sc.ranks()) % sc.ranks();
        const bool around = scene.layout == SceneLayout::ring || scene.layout == SceneLayout::snake;
        const bool chord = around && hop != 1 && hop != sc.ranks() - 1;
        const Rect& from = scene.cards[static_cast<size_t>(t.src)].rect;
        const Rect& to = scene.cards[static_cast<size_t>(t.dst)].rect;
        TransferArrow arrow = chord ? arrow_between(from, to, scale(scene.size, 0.5f)) : arrow_between(from, to, std::nullopt);
        arrow.src = t.src;
        arrow.dst = t.dst;
        arrow.chunk = t.chunk;
        arrow.count = t.count;
        arrow.op = t.op;
        arrow.link = t.link;
        arrow.tree = t.tree;
        arrow.payload = payload_of(t, *in.before);
        scene.arrows.push_back(std::move(arrow));
        for (int i = 0; i < t.count; ++i) {
            if (t.src_slot != kInputSlot) scene.cards[static_cast<size_t>(t.src)].cells[static_cast<size_t>(t.src_slot + i)].sending = true;
            scene.cards[static_cast<size_t>(t.dst)].cells[static_cast<size_t>(t.dst_slot + i)].receiving = true;
        }
    }
}

// Beyond this many ranks an ellipse leaves each card too little room for its cells.
constexpr int kMaxRanksOnEllipse = 24;

[[nodiscard]] SceneLayout layout_for(StepAlgorithm a, int ranks) noexcept {
    switch (a) {
        case StepAlgorithm::tree: return SceneLayout::tree;
        case StepAlgorithm::hierarchical: return SceneLayout::nodes;
        default: return ranks > kMaxRanksOnEllipse ? SceneLayout::snake : SceneLayout::ring;
    }
}

// --- Painting ------------------------------------------------------------------------------------

constexpr ImU32 kCardFill = IM_COL32(30, 34, 42, 255);
constexpr ImU32 kEmptyCell = IM_COL32(58, 62, 72, 255);
constexpr ImU32 kFullSum = IM_COL32(255, 214, 90, 255);
constexpr ImU32 kReceiving = IM_COL32(255, 255, 255, 230);

// A chunk's contents: for a reduction, one band per rank summed, stacked from the bottom, so the
// height says how far the sum has got and the colours say whose data is in it; for a copy, the
// colour of the rank it came from.
void paint_contents(ImDrawList* draw, ImVec2 min, ImVec2 max, const std::vector<int>& contributors, int ranks,
                    bool reduction) {
    if (contributors.empty()) return;
    if (!reduction) {
        draw->AddRectFilled(min, max, plot::categorical_colour(contributors.front()));
        return;
    }
    const float band = (max.y - min.y) / static_cast<float>(std::max(ranks, 1));
    if (band < 1.5f) {
        // Too small for a band per rank: the height alone tells how far the sum has got.
        const bool complete = static_cast<int>(contributors.size()) == ranks;
        const float top = max.y - band * static_cast<float>(contributors.size());
        draw->AddRectFilled(ImVec2(min.x, std::round(top)), max, complete ? kFullSum : IM_COL32(175, 185, 205, 255));
        return;
    }
    float y = max.y;
    for (int r : contributors) {
        const float top = y - band;
        draw->AddRectFilled(ImVec2(min.x, std::round(top)), ImVec2(max.x, std::round(y)), plot::categorical_colour(r));
        y = top;
    }
}

void paint_cell(ImDrawList* draw, ImVec2 o, const ChunkCell& cell, const CollectiveScene& scene, bool show_index) {
    const ImVec2 min = add(o, ImVec2(cell.rect.min.x + 1, cell.rect.min.y + 1));
    const ImVec2 max = add(o, ImVec2(cell.rect.max.x - 1, cell.rect.max.y - 1));
    draw->AddRectFilled(min, max, kEmptyCell);
    if (cell.chunk >= 0) paint_contents(draw, min, max, cell.contributors, scene.ranks, scene.reduction);
    if (show_index && cell.chunk >= 0) {
        const std::string label = std::to_string(cell.chunk);
        const ImVec2 sz = ImGui::CalcTextSize(label.c_str());
        // A dark shadow keeps the number readable over a full stack of colours.
        const ImVec2 at((min.x + max.x - sz.x) * 0.5f, min.y);
        draw->AddText(ImVec2(at.x + 1, at.y + 1), IM_COL32(0, 0, 0, 200), label.c_str());
        draw->AddText(at, IM_COL32(255, 255, 255, 190), label.c_str());
    }
    if (cell.complete) draw->AddRect(min, max, kFullSum, 0, 0, 2.0f);
    const bool landed = scene.flight >= 1.0f;
    if (cell.receiving && landed) draw->AddRect(ImVec2(min.x - 1, min.y - 1), ImVec2(max.x + 1, max.y + 1), kReceiving, 0, 0, 2.0f);
}

void paint_card(ImDrawList* draw, ImVec2 o, const RankCard& card, const CollectiveScene& scene) {
    const ImVec2 min = add(o, card.rect.min), max = add(o, card.rect.max);
    const ImU32 own = plot::categorical_colour(card.rank);
    draw->AddRectFilled(min, max, kCardFill, 4.0f);
    draw->AddRect(min, max, own, 4.0f, 0, 2.0f);
    if (has_header(card.rect.width())) {
        std::string title = "GPU " + std::to_string(card.rank);
        const std::string with_node = title + "  n" + std::to_string(card.node);
        if (ImGui::CalcTextSize(with_node.c_str()).x < card.rect.width() - 10) title = with_node;
        else if (ImGui::CalcTextSize(title.c_str()).x > card.rect.width() - 8) title = std::to_string(card.rank);
        draw->AddText(ImVec2(min.x + 5, min.y + 2), own, title.c_str());
    }
    const float cell_w = card.cells.empty() ? 0 : card.cells.front().rect.width();
    const float cell_h = card.cells.empty() ? 0 : card.cells.front().rect.height();
    const bool show_index = cell_w >= ImGui::CalcTextSize("00").x + 2 && cell_h >= 30;
    for (const ChunkCell& cell : card.cells) paint_cell(draw, o, cell, scene, show_index);
}

void paint_node_box(ImDrawList* draw, ImVec2 o, const CollectiveNodeBox& box) {
    const ImVec2 min = add(o, box.rect.min), max = add(o, box.rect.max);
    draw->AddRectFilled(min, max, IM_COL32(60, 70, 90, 60), 6.0f);
    draw->AddRect(min, max, IM_COL32(120, 135, 160, 160), 6.0f, 0, 1.5f);
    const std::string label = "node " + std::to_string(box.node);
    draw->AddText(ImVec2(min.x + 8, min.y + 3), ImGui::GetColorU32(ImGuiCol_TextDisabled), label.c_str());
}

[[nodiscard]] float ease(float t) noexcept { return t * t * (3.0f - 2.0f * t); }

void paint_curve(ImDrawList* draw, ImVec2 o, const TransferArrow& a, ImU32 colour, float thickness, bool dashed) {
    constexpr int kSegments = 24;
    for (int i = 0; i < kSegments; ++i) {
        if (dashed && i % 2 == 1) continue;
        const float t0 = static_cast<float>(i) / kSegments, t1 = static_cast<float>(i + 1) / kSegments;
        draw->AddLine(add(o, a.at(t0)), add(o, a.at(t1)), colour, thickness);
    }
    // Head: a triangle along the curve's last direction.
    const ImVec2 tip = add(o, a.to);
    const ImVec2 d = sub(a.to, a.at(0.9f));
    const float len = std::max(length(d), 1e-3f);
    const ImVec2 u = scale(d, 1.0f / len), n(-u.y, u.x);
    const float size = 5.0f + thickness * 2.0f;
    draw->AddTriangleFilled(tip, add(sub(tip, scale(u, size)), scale(n, size * 0.55f)),
                            sub(sub(tip, scale(u, size)), scale(n, size * 0.55f)), colour);
}

// The data a transfer carries, drawn as a small chip: in flight it rides the curve, at rest it sits
// half-way so the step's traffic can still be read.
void paint_packet(ImDrawList* draw, ImVec2 o, const TransferArrow& a, const CollectiveScene& scene, float chip) {
    const float t = scene.flight >= 1.0f ? 0.5f : ease(scene.flight);
    const ImVec2 c = add(o, a.at(t));
    const ImVec2 min(c.x - chip * 0.5f, c.y - chip * 0.5f), max(c.x + chip * 0.5f, c.y + chip * 0.5f);
    draw->AddRectFilled(ImVec2(min.x - 1, min.y - 1), ImVec2(max.x + 1, max.y + 1), IM_COL32(15, 17, 22, 255));
    draw->AddRectFilled(min, max, kEmptyCell);
    paint_contents(draw, min, max, a.payload, scene.ranks, scene.reduction);
    draw->AddRect(ImVec2(min.x - 1, min.y - 1), ImVec2(max.x + 1, max.y + 1), palette::link_colour(a.link), 0, 0, 1.5f);
}

}  // namespace

ImVec2 TransferArrow::at(float t) const noexcept {
    const float u = 1.0f - t;
    return ImVec2(u * u * from.x + 2 * u * t * control.x + t * t * to.x,
                  u * u * from.y + 2 * u * t * control.y + t * t * to.y);
}

CollectiveScene build_scene(const SceneInput& in) {
    CollectiveScene scene;
    if (!in.collective) return scene;
    const SteppedCollective& sc = *in.collective;
    const StepConfig& config = sc.config();
    scene.layout = layout_for(config.algorithm, sc.ranks());
    scene.size = in.size;
    scene.ranks = sc.ranks();
    scene.steps_done = sc.current_step();
    scene.step_count = sc.step_count();
    scene.flight = std::clamp(in.flight, 0.0f, 1.0f);
    scene.reduction = is_reduction(config.collective);

    std::vector<Rect> rects;
    switch (scene.layout) {
        case SceneLayout::ring: rects = layout_ring(sc.ranks(), sc.slot_count(), in.size); break;
        case SceneLayout::snake: rects = layout_snake(sc.ranks(), sc.slot_count(), in.size); break;
        case SceneLayout::tree: rects = layout_tree(sc.tree_parents(0), sc.slot_count(), in.size); break;
        case SceneLayout::nodes: rects = layout_nodes(sc.ranks(), config.gpus_per_node, sc.slot_count(), in.size, scene.nodes); break;
    }
    for (int r = 0; r < sc.ranks(); ++r) {
        RankCard card;
        card.rank = r;
        card.node = sc.node_of(r);
        card.rect = rects[static_cast<size_t>(r)];
        place_cells(card, sc.buffers()[static_cast<size_t>(r)], sc.ranks(), scene.reduction);
        scene.cards.push_back(std::move(card));
    }
    if (scene.layout == SceneLayout::ring) add_node_arcs(scene, config.gpus_per_node);
    scene.arrows_step = in.arrows_step >= 0 && in.arrows_step < sc.step_count() ? in.arrows_step : -1;
    add_arrows(scene, in);
    return scene;
}

// The step and phase in large type in the ring's empty middle, where the eye rests between arrows.
void paint_centre_title(const CollectiveScene& scene, ImDrawList* draw, ImVec2 origin) {
    // Below 4 ranks the arrows run through the middle: no title there.
    if (scene.layout != SceneLayout::ring || scene.centre_title.empty() || scene.ranks < 4) return;
    // The free space: inside the ring of cards, roughly the ellipse through their inner edges.
    const float card_w = scene.cards.front().rect.width(), card_h = scene.cards.front().rect.height();
    const float free_w = scene.size.x - 2 * (card_w + kMargin) - 40.0f;
    const float free_h = scene.size.y - 2 * (card_h + kMargin) - 40.0f;
    ImFont* font = ImGui::GetFont();
    const float big = ImGui::GetFontSize() * 2.0f, small = ImGui::GetFontSize() * 1.15f;
    const ImVec2 title = font->CalcTextSizeA(big, 1e9f, 0, scene.centre_title.c_str());
    const ImVec2 sub_size = font->CalcTextSizeA(small, 1e9f, 0, scene.centre_subtitle.c_str());
    if (title.x > free_w || sub_size.x > free_w || title.y + sub_size.y > free_h) return;
    const ImVec2 c = add(origin, scale(scene.size, 0.5f));
    const float top = c.y - (title.y + sub_size.y + 4) * 0.5f;
    draw->AddText(font, big, ImVec2(c.x - title.x * 0.5f, top), IM_COL32(235, 238, 245, 235), scene.centre_title.c_str());
    draw->AddText(font, small, ImVec2(c.x - sub_size.x * 0.5f, top + title.y + 4), IM_COL32(170, 178, 195, 235),
                  scene.centre_subtitle.c_str());
}

void paint_node_arcs(const CollectiveScene& scene, ImDrawList* draw, ImVec2 origin) {
    const ImVec2 c = add(origin, scene.arc_centre);
    const ImVec2 r = scene.arc_radii;
    auto on_ellipse = [&](float angle, float inset) {
        return ImVec2(c.x + (r.x - inset) * std::cos(angle), c.y + (r.y - inset) * std::sin(angle));
    };
    for (const NodeArc& arc : scene.node_arcs) {
        const ImU32 colour = arc.node % 2 == 0 ? IM_COL32(125, 140, 170, 150) : IM_COL32(165, 150, 120, 150);
        constexpr int kSegments = 48;
        for (int i = 0; i < kSegments; ++i) {
            const float a0 = arc.angle_begin + (arc.angle_end - arc.angle_begin) * static_cast<float>(i) / kSegments;
            const float a1 = arc.angle_begin + (arc.angle_end - arc.angle_begin) * static_cast<float>(i + 1) / kSegments;
            draw->AddLine(on_ellipse(a0, 0), on_ellipse(a1, 0), colour, 4.0f);
        }
        const std::string label = "node " + std::to_string(arc.node);
        const ImVec2 sz = ImGui::CalcTextSize(label.c_str());
        const ImVec2 at = on_ellipse(0.5f * (arc.angle_begin + arc.angle_end), 16.0f + sz.y * 0.5f);
        draw->AddText(ImVec2(at.x - sz.x * 0.5f, at.y - sz.y * 0.5f), colour | IM_COL32(0, 0, 0, 255), label.c_str());
    }
}

void paint_scene(const CollectiveScene& scene, ImDrawList* draw, ImVec2 origin) {
    paint_centre_title(scene, draw, origin);
    paint_node_arcs(scene, draw, origin);
    for (const CollectiveNodeBox& box : scene.nodes) paint_node_box(draw, origin, box);
    for (const RankCard& card : scene.cards) paint_card(draw, origin, card, scene);
    const float thickness = scene.ranks > 24 ? 1.5f : 2.2f;
    for (const TransferArrow& a : scene.arrows)
        paint_curve(draw, origin, a, palette::link_colour(a.link, 0.9f), thickness, a.link == LinkClass::inter);
    // Packets on top of every curve. Small scenes get a chip per transfer at rest too.
    const float chip = scene.ranks > 24 ? 8.0f : 13.0f;
    const bool show_chips = scene.flight < 1.0f || scene.ranks <= 16;
    if (show_chips)
        for (const TransferArrow& a : scene.arrows) paint_packet(draw, origin, a, scene, chip);
}

void draw_scene_legend(const CollectiveScene& scene) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float line_h = ImGui::GetTextLineHeight();
    // The legend wraps inside the canvas's width (the group it sits in), never wider.
    const float right = ImGui::GetCursorScreenPos().x + scene.size.x;
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    auto next_fits = [&](float width) {
        if (ImGui::GetItemRectMax().x + gap + width < right) ImGui::SameLine(0, gap);
    };
    auto swatch = [&](ImU32 colour, const std::string& label) {
        next_fits(line_h + 4 + ImGui::CalcTextSize(label.c_str()).x);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float box = line_h * 0.8f, dy = (line_h - box) * 0.5f;
        draw->AddRectFilled(ImVec2(p.x, p.y + dy), ImVec2(p.x + box, p.y + dy + box), colour, 2.0f);
        ImGui::Dummy(ImVec2(box, line_h));
        ImGui::SameLine(0, 4);
        ImGui::TextUnformatted(label.c_str());
    };
    auto swatch_line = [&](LinkClass link, const char* label) {
        next_fits(34 + ImGui::CalcTextSize(label).x);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float y = p.y + line_h * 0.5f;
        const ImU32 colour = palette::link_colour(link);
        if (link == LinkClass::intra) draw->AddLine(ImVec2(p.x, y), ImVec2(p.x + 26, y), colour, 2.2f);
        else
            for (float x = 0; x < 26; x += 8) draw->AddLine(ImVec2(p.x + x, y), ImVec2(p.x + x + 4, y), colour, 2.2f);
        ImGui::Dummy(ImVec2(30, line_h));
        ImGui::SameLine(0, 4);
        ImGui::TextUnformatted(label);
    };
    auto text = [&](const char* t, const ImVec4* colour = nullptr) {
        next_fits(ImGui::CalcTextSize(t).x);
        if (colour) ImGui::TextColored(*colour, "%s", t);
        else ImGui::TextDisabled("%s", t);
    };
    ImGui::TextDisabled("Colour = GPU the data came from");
    if (scene.ranks <= 16)
        for (int r = 0; r < scene.ranks; ++r) swatch(plot::categorical_colour(r), std::to_string(r));
    swatch_line(LinkClass::intra, "intra-node link");
    swatch_line(LinkClass::inter, "inter-node link (dashed)");
    if (scene.reduction) {
        ImGui::TextDisabled("A chunk's height = share of GPUs summed into it so far;");
        const ImVec4 gold(1.0f, 0.84f, 0.35f, 1.0f);
        text("gold outline = the full sum.", &gold);
    } else {
        ImGui::TextDisabled("Each chunk is a copy of one GPU's data.");
    }
    text("White outline = written by this step.");
}

}  // namespace shardscope::ui
