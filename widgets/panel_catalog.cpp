// The one place that knows every panel: View-menu order and the default tiling on first start.
#include "widgets/panel.hpp"
#include "widgets/placeholder_panel.hpp"

namespace shardscope::ui {

namespace {
// Top row: what people open first; bottom row: the time-based views.
constexpr Placement kTopLeft{0.00f, 0.00f, 0.33f, 0.56f};
constexpr Placement kTopMiddle{0.33f, 0.00f, 0.37f, 0.56f};
constexpr Placement kTopRight{0.70f, 0.00f, 0.30f, 0.56f};
constexpr Placement kBottomLeft{0.00f, 0.56f, 0.45f, 0.44f};
constexpr Placement kBottomRight{0.45f, 0.56f, 0.55f, 0.44f};
constexpr Placement kCentre{0.20f, 0.10f, 0.60f, 0.75f};
constexpr Placement kSideRight{0.62f, 0.04f, 0.38f, 0.90f};

void add_placeholder(PanelRegistry& r, const char* id, const char* title, Placement p, bool open,
                     const char* purpose) {
    r.add(std::make_unique<PlaceholderPanel>(id, title, p, open, purpose));
}
}  // namespace

void register_default_panels(PanelRegistry& r) {
    add_placeholder(r, "strategy", "Strategy explorer", kTopLeft, true,
                    "Toggle DP, FSDP/ZeRO, TP, PP, EP and SP/CP and see what every GPU holds and sends.");
    add_placeholder(r, "mesh", "Device mesh", kTopMiddle, true,
                    "Nodes and GPUs, a factor per axis and an order: which groups stay inside a node.");
    add_placeholder(r, "memory", "Memory and cost", kTopRight, true,
                    "Memory per GPU against its capacity, and where a training step's time goes.");
    add_placeholder(r, "collective", "Collective animator", kBottomLeft, true,
                    "Step through ring all-reduce and friends chunk by chunk.");
    add_placeholder(r, "pipeline", "Pipeline timeline", kBottomRight, true,
                    "A pipeline schedule's timeline and its bubble.");
    add_placeholder(r, "planner", "Planner", kCentre, false,
                    "Every valid layout for the model on the cluster, ranked.");
    add_placeholder(r, "cheatsheet", "Cheat sheet", kCentre, false,
                    "The strategy table: what each splits, communicates and costs.");
    add_placeholder(r, "glossary", "Glossary", kSideRight, false, "Every term, searchable.");
    add_placeholder(r, "lesson", "Lesson", kSideRight, false, "Step-through walkthroughs that drive the panels.");
    add_placeholder(r, "measure", "Measure (CUDA)", kCentre, false,
                    "Time real collectives on the local GPUs and calibrate the model.");
}

}  // namespace shardscope::ui
