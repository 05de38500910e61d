// The Scenario panel's fields in a wide and a narrow tile.
#include "panel_harness.hpp"
#include "widgets/scenario/scenario_panel.hpp"
#include "widgets/kit/item_rects.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

namespace {

// The panel in a window `width` px wide; the rectangles of two neighbouring fields.
std::pair<ui::ItemRect, ui::ItemRect> layers_and_hidden(float width) {
    test::ImGuiFixture f;
    ui::AppState state;
    ui::ScenarioPanel panel{ui::Placement{}, true};
    f.frames_in_window(2, "scenario test", ImVec2(width, 900), [&] { panel.draw(state); });
    const auto layers = ui::find_item_rect("scenario/field/layers");
    const auto hidden = ui::find_item_rect("scenario/field/hidden");
    REQUIRE(layers);
    REQUIRE(hidden);
    return {*layers, *hidden};
}

}  // namespace

TEST_CASE("Scenario fields: two to a row in a wide tile, one to a row in a narrow one, never cut to a few digits") {
    // 1600 px: layers and hidden side by side.
    auto [layers, hidden] = layers_and_hidden(1600);
    CHECK(layers.y0 == doctest::Approx(hidden.y0));
    CHECK(hidden.x0 > layers.x1);
    // 150 px (seven panels in a 1024 px window): one to a row, each value box wider than two to a row
    // would leave it (where 14336 read "1433").
    // 455 px (three panels in a 1600 px window): two to a row would give each label 99 px and cut
    // "expert_ffn_hidden" (about 120 px) to "expert_ffn_hidder"; one to a row.
    auto [third_layers, third_hidden] = layers_and_hidden(455);
    CHECK(third_hidden.y0 > third_layers.y1);
    auto [narrow_layers, narrow_hidden] = layers_and_hidden(150);
    CHECK(narrow_hidden.y0 > narrow_layers.y1);
    CHECK(narrow_layers.x1 - narrow_layers.x0 > 0.4f * 150);
}
