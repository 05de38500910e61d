// One palette: the dims and the memory parts are told apart by colour, and every panel that colours a
// dim or a memory part takes that colour from widgets/kit/palette.hpp, so tp is one colour everywhere.
#include "panel_harness.hpp"
#include "widgets/kit/palette.hpp"
#include "widgets/memory/memory_panel.hpp"
#include "widgets/mesh/mesh_panel.hpp"
#include "widgets/planner/planner_panel.hpp"
#include "widgets/strategy/strategy_panel.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <set>

using namespace shardscope;
namespace palette = shardscope::ui::palette;

namespace {

// Straight-line distance between two colours in RGB (0..441): a floor on how far apart they look.
double rgb_distance(ImU32 a, ImU32 b) {
    const ImVec4 x = ImGui::ColorConvertU32ToFloat4(a), y = ImGui::ColorConvertU32ToFloat4(b);
    return 255.0 * std::sqrt((x.x - y.x) * (x.x - y.x) + (x.y - y.y) * (x.y - y.y) + (x.z - y.z) * (x.z - y.z));
}

}  // namespace

TEST_CASE("palette: the six dims have six colours, far apart; so do the memory parts, and no part wears a dim's") {
    for (size_t i = 0; i < kAllDims.size(); ++i)
        for (size_t j = i + 1; j < kAllDims.size(); ++j) {
            INFO(to_string(kAllDims[i]) << " vs " << to_string(kAllDims[j]));
            CHECK(rgb_distance(palette::dim_colour(kAllDims[i]), palette::dim_colour(kAllDims[j])) > 60);
        }
    for (size_t i = 0; i < palette::kAllMemoryParts.size(); ++i)
        for (size_t j = i + 1; j < palette::kAllMemoryParts.size(); ++j) {
            INFO(palette::memory_part_name(palette::kAllMemoryParts[i])
                 << " vs " << palette::memory_part_name(palette::kAllMemoryParts[j]));
            CHECK(rgb_distance(palette::memory_part_colour(palette::kAllMemoryParts[i]),
                               palette::memory_part_colour(palette::kAllMemoryParts[j])) > 40);
        }
    for (Dim d : kAllDims)
        for (palette::MemoryPart p : palette::kAllMemoryParts) {
            INFO(to_string(d) << " vs " << palette::memory_part_name(p));
            CHECK(rgb_distance(palette::dim_colour(d), palette::memory_part_colour(p)) > 40);
        }
    // The step bar's other parts are not a dim's either.
    for (Dim d : kAllDims)
        for (ImU32 c : {palette::compute_colour(), palette::bubble_colour(), palette::other_comm_colour()})
            CHECK(rgb_distance(palette::dim_colour(d), c) > 40);
}

TEST_CASE("palette: a dim has one colour by any of its names: the Dim, its key, its strategy key") {
    for (Dim d : kAllDims) {
        CHECK(palette::dim_colour(std::string(to_string(d))) == palette::dim_colour(d));
        CHECK(palette::dim_colour(*strategy_from_key(strategy_key(d))) == palette::dim_colour(d));
    }
    CHECK_FALSE(palette::dim_colour("compute").has_value());
    // The strategies' teaching names land on their dims' colours.
    CHECK(palette::dim_colour(*strategy_from_key("dp")) == palette::dim_colour(Dim::dp_replicate));
    CHECK(palette::dim_colour(*strategy_from_key("fsdp")) == palette::dim_colour(Dim::dp_shard));
    CHECK(palette::dim_colour(*strategy_from_key("sp")) == palette::dim_colour(Dim::cp));
    CHECK(palette::dim_colour(Dim::tp, 0.5f) == palette::with_alpha(palette::dim_colour(Dim::tp), 0.5f));
}

TEST_CASE("mesh panel: the canvas records' dim colours are the palette's") {
    test::PanelHarness<ui::MeshPanel> h;
    h.act("dim", "tp");
    h.frames(2);
    const ui::mesh::GridRecords& r = h.panel.records();
    CHECK(r.dim == Dim::tp);
    for (Dim d : kAllDims) CHECK(r.dim_colours[dim_index(d)] == palette::dim_colour(d));
}

TEST_CASE("memory panel: each dim's exposed communication is its palette colour; each part is the palette's") {
    test::PanelHarness<ui::MemoryPanel> h;  // the default scenario: tp 2, dp_shard 8, dp_replicate 2, pp 2
    h.frames(2);
    const ui::MemoryView& v = h.panel.view(h.state);
    std::set<std::string> dims;
    for (const ui::StepSegmentRecord& s : v.step) {
        INFO(s.name);
        if (s.name == "compute") CHECK(s.colour == palette::compute_colour());
        else if (s.name == "bubble (busiest stage idle)") CHECK(s.colour == palette::bubble_colour());
        else if (!s.dim.empty()) {
            REQUIRE(palette::dim_colour(s.dim).has_value());
            CHECK(s.colour == *palette::dim_colour(s.dim));
            dims.insert(s.dim);
        }
    }
    REQUIRE(dims.count("tp") == 1);
    for (const ui::StepSegmentRecord& s : v.step)
        if (s.dim == "tp") CHECK(s.colour == palette::dim_colour(Dim::tp));
    REQUIRE(!v.bars.empty());
    for (const ui::MemoryBarRecord& b : v.bars) {
        REQUIRE(b.stack.segments.size() == std::size(ui::kMemoryParts));
        for (size_t i = 0; i < b.stack.segments.size(); ++i) {
            CHECK(b.stack.segments[i].name == palette::memory_part_name(ui::kMemoryParts[i]));
            CHECK(b.stack.segments[i].colour == palette::memory_part_colour(ui::kMemoryParts[i]));
        }
    }
}

TEST_CASE("strategy explorer: each toggle is drawn in its dim's palette colour") {
    test::ImGuiFixture f;
    ui::AppState state;
    ui::StrategyPanel panel{"strategy", "Strategy explorer", ui::Placement{}, true};
    REQUIRE(panel.act(state, "reset", "") == "");  // one GPU per copy: a small picture
    REQUIRE(panel.act(state, "tp", "2") == "");
    f.frames(2, [&] {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(1600, 1000));
        ImGui::Begin("strategy test");
        panel.draw(state);
        ImGui::End();
    });
    CHECK(panel.toggle_colour(Dim::tp) == palette::dim_colour(Dim::tp));
    for (Dim s : kStrategyOrder) CHECK(panel.toggle_colour(s) == palette::dim_colour(s));
}

TEST_CASE("planner panel: each dim of a row's mesh is written in its palette colour") {
    test::PanelHarness<ui::PlannerPanel> h{test::small_dense()};
    h.act("wait", "1");
    const ui::PlannerView& v = h.panel.view();
    REQUIRE(!v.rows.empty());
    bool saw_other_than_tp = false;
    for (const ui::PlannerRow& row : v.rows) {
        REQUIRE(!row.mesh_tokens.empty());
        CHECK(row.mesh_tokens.front().dim == Dim::tp);
        std::string joined;
        for (const ui::MeshToken& t : row.mesh_tokens) {
            CHECK(t.colour == palette::dim_colour(t.dim));
            joined += (joined.empty() ? "" : " \xc2\xb7 ") + t.text;
            saw_other_than_tp |= t.dim != Dim::tp;
        }
        CHECK(joined == row.mesh);
    }
    CHECK(saw_other_than_tp);
}
