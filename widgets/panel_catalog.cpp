// The one place that knows every panel: View-menu order and the default tiling on first start.
#include "widgets/panel_catalog.hpp"

#include "widgets/teaching/cheatsheet_panel.hpp"
#include "widgets/collective/collective_panel.hpp"
#include "widgets/teaching/glossary_panel.hpp"
#include "widgets/teaching/lesson_panel.hpp"
#include "widgets/measure/measure_panel.hpp"
#include "widgets/memory/memory_panel.hpp"
#include "widgets/mesh/mesh_panel.hpp"
#include "widgets/pipeline/pipeline_panel.hpp"
#include "widgets/planner/planner_panel.hpp"
#include "widgets/scenario/scenario_panel.hpp"
#include "widgets/strategy/strategy_panel.hpp"

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

}  // namespace

void register_default_panels(PanelRegistry& r) {
    r.add(std::make_unique<StrategyPanel>("strategy", "Strategy explorer", kTopLeft, true));
    r.add(std::make_unique<MeshPanel>(kTopMiddle, true));
    r.add(std::make_unique<MemoryPanel>(kTopRight, true));
    r.add(std::make_unique<CollectivePanel>(kBottomLeft, true));
    r.add(std::make_unique<PipelinePanel>(kBottomRight, true));
    r.add(std::make_unique<ScenarioPanel>(kSideRight, false));
    r.add(std::make_unique<PlannerPanel>(kCentre, false));
    r.add(std::make_unique<CheatSheetPanel>(r, kCentre));
    r.add(std::make_unique<GlossaryPanel>(r, kSideRight));
    r.add(std::make_unique<LessonPanel>(r, kSideRight));
    r.add(std::make_unique<MeasurePanel>(kCentre, false));
}

}  // namespace shardscope::ui
