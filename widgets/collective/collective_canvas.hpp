#pragma once
// The collective animator's drawing, in two passes (as Tracy draws its timeline): build_scene() turns
// a SteppedCollective's state into small draw records (rank cards with their chunk cells, node boxes,
// the arrows of one step), which the panel keeps and the tests assert on; paint_scene() only paints
// those records with the window's ImDrawList. Positions are relative to the canvas's top-left
// corner, so building needs no ImGui frame.

#include "core/collectives/collective_steps.hpp"

#include <imgui.h>

#include <string>
#include <vector>

namespace shardscope::ui {

enum class SceneLayout {
    ring,   // ranks around an ellipse, clockwise from the top: ring, pairwise and double binary tree
    snake,  // the same ring folded into rows (left to right, then back) when N is too large for an ellipse
    tree,   // one level per depth of the tree rooted at the root: tree broadcast / reduce
    nodes,  // a box per node holding its GPUs: the hierarchical all-reduce
};

struct Rect {
    ImVec2 min{0, 0}, max{0, 0};
    [[nodiscard]] ImVec2 centre() const noexcept { return ImVec2((min.x + max.x) * 0.5f, (min.y + max.y) * 0.5f); }
    [[nodiscard]] float width() const noexcept { return max.x - min.x; }
    [[nodiscard]] float height() const noexcept { return max.y - min.y; }
};

// One slot of one rank's buffer.
struct ChunkCell {
    int slot = 0;
    int chunk = -1;                 // -1: the slot holds nothing yet
    std::vector<int> contributors;  // ranks whose data the chunk already holds, ascending
    bool complete = false;          // a reduction holding every rank's contribution
    bool sending = false;           // read by one of the arrows' transfers
    bool receiving = false;         // written by one of the arrows' transfers
    Rect rect;
};

struct RankCard {
    int rank = 0;
    int node = 0;
    Rect rect;
    Rect cells_area;  // where the cells sit inside the card (below the header)
    std::vector<ChunkCell> cells;
};

struct CollectiveNodeBox {
    int node = 0;
    Rect rect;
};

// On the ring, a node is an arc just inside its GPUs' cards (angles in radians, clockwise from +x
// in screen coordinates, on the ellipse with CollectiveScene::arc_centre and arc_radii).
struct NodeArc {
    int node = 0;
    float angle_begin = 0, angle_end = 0;
};

// One transfer of the step the arrows show, as a quadratic Bezier from card to card.
struct TransferArrow {
    int src = 0;
    int dst = 0;
    int chunk = 0;
    int count = 1;
    TransferOp op = TransferOp::copy;
    LinkClass link = LinkClass::intra;
    int tree = -1;
    std::vector<int> payload;  // contributors of the data it carries (the sender's slot before the step)
    ImVec2 from{0, 0}, control{0, 0}, to{0, 0};

    [[nodiscard]] ImVec2 at(float t) const noexcept;  // point on the curve, t in 0..1
};

struct CollectiveScene {
    SceneLayout layout = SceneLayout::ring;
    ImVec2 size{0, 0};
    int ranks = 0;
    int steps_done = 0;     // the buffers drawn are the state after this many steps
    int step_count = 0;
    int arrows_step = -1;   // 0-based step whose transfers the arrows show; -1: none
    float flight = 1.0f;    // how far the packets have travelled along the arrows (1: landed)
    bool reduction = false; // cells fill by the share of ranks summed (all-reduce, reduce-scatter, reduce)
    std::vector<CollectiveNodeBox> nodes;          // nodes layout
    std::vector<NodeArc> node_arcs;      // ring layout, when the ranks span more than one node
    ImVec2 arc_centre{0, 0}, arc_radii{0, 0};
    std::vector<RankCard> cards;
    std::vector<TransferArrow> arrows;
    // Shown large in the middle of the ring (the other layouts have no empty middle); the panel
    // fills them from its read-out, e.g. "Step 5 of 14" and "reduce-scatter".
    std::string centre_title;
    std::string centre_subtitle;
};

// What the scene shows: the collective's current buffers, and the arrows of step `arrows_step`
// (0-based), whose payloads are read from `before` (the buffers before that step). While a step is
// in flight, `arrows_step` is the step about to land (current_step()) and before == buffers(); at
// rest it is the step that just landed (current_step() - 1) with flight = 1.
struct SceneInput {
    const SteppedCollective* collective = nullptr;
    const std::vector<RankBuffer>* before = nullptr;
    int arrows_step = -1;
    float flight = 1.0f;
    ImVec2 size{800, 600};
};

[[nodiscard]] CollectiveScene build_scene(const SceneInput& input);

// Paints the records at `origin` (screen position of the canvas's top-left corner).
void paint_scene(const CollectiveScene& scene, ImDrawList* draw, ImVec2 origin);

// One line under the canvas: rank colours, link styles and what a cell's height means.
void draw_scene_legend(const CollectiveScene& scene);

}  // namespace shardscope::ui
