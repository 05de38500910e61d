#include "imgui_fixture.hpp"
#include "widgets/strategy/strategy_canvas.hpp"
#include "widgets/strategy/strategy_panel.hpp"

#include <doctest/doctest.h>

#include <set>

using namespace shardscope;
using shardscope::test::ImGuiFixture;

namespace {

// The panel alone in a large window, as `--show strategy` lays it out.
struct Harness {
    ImGuiFixture f{1600, 1000};
    ui::AppState state;
    ui::StrategyPanel panel{"strategy", "Strategy explorer", ui::Placement{}, true};

    Harness() {
        REQUIRE(panel.act(state, "reset", "") == "");  // one GPU per copy: nothing split
        frame();
    }
    std::function<void()> draw() {
        return [this] {
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(ImVec2(1600, 1000));
            ImGui::Begin("strategy test");
            panel.draw(state);
            ImGui::End();
        };
    }
    void frame() { f.frame(draw()); }
    std::string act(const std::string& action, const std::string& value) {
        const std::string r = panel.act(state, action, value);
        frame();
        return r;
    }

    // The draw records of one kind and state, in record order.
    std::vector<const ui::PieceRect*> rects(PieceKind kind, PieceState state_kind) const {
        std::vector<const ui::PieceRect*> out;
        for (const ui::PieceRect& r : panel.drawing().pieces) {
            const Piece& p = panel.ownership().pieces[r.piece];
            if (p.kind == kind && p.state == state_kind) out.push_back(&r);
        }
        return out;
    }
    const Piece& piece(const ui::PieceRect* r) const { return panel.ownership().pieces[r->piece]; }
};

}  // namespace

TEST_CASE("toggling TP re-colours the attention heads: half on GPU 0, half on GPU 1") {
    Harness h;
    // Llama 3 8B, one GPU: every weight piece is GPU 0's colour, nothing hatched.
    auto heads = h.rects(PieceKind::attention, PieceState::weights);
    REQUIRE(heads.size() == 8 * 8);  // 8 layer rows x 8 head cells
    for (const ui::PieceRect* r : heads) {
        CHECK(r->colour_gpu == 0);
        CHECK_FALSE(r->hatched);
    }

    REQUIRE(h.act("toggle", "tp") == "");
    CHECK(h.state.scenario().parallel.tp == 2);
    heads = h.rects(PieceKind::attention, PieceState::weights);
    REQUIRE(heads.size() == 8 * 8);
    std::set<int> colours;
    for (const ui::PieceRect* r : heads) {
        // 32 heads in 8 cells: cells 0-3 are heads 0-15 (GPU 0), cells 4-7 heads 16-31 (GPU 1).
        CHECK(r->colour_gpu == (h.piece(r).cell < 4 ? 0 : 1));
        CHECK_FALSE(r->hatched);
        colours.insert(r->colour_gpu);
    }
    CHECK(colours == std::set<int>{0, 1});
    // MLP columns are cut the same way; the batch is read by both TP ranks: grey and hatched.
    for (const ui::PieceRect* r : h.rects(PieceKind::mlp_in, PieceState::weights))
        CHECK(r->colour_gpu == (h.piece(r).cell < 4 ? 0 : 1));
    for (const ui::PieceRect* r : h.rects(PieceKind::batch, PieceState::data)) {
        CHECK(r->colour_gpu == -1);
        CHECK(r->hatched);
    }
    // Turning it off again gives the single-GPU picture back.
    REQUIRE(h.act("toggle", "tp") == "");
    for (const ui::PieceRect* r : h.rects(PieceKind::attention, PieceState::weights)) CHECK(r->colour_gpu == 0);
}

TEST_CASE("DP alone: every weight piece is hatched grey, the batch rows are coloured per GPU") {
    Harness h;
    REQUIRE(h.act("dp", "2") == "");
    for (PieceKind kind : {PieceKind::attention, PieceKind::mlp_in, PieceKind::mlp_out, PieceKind::embedding}) {
        for (PieceState st : {PieceState::weights, PieceState::grads, PieceState::optimizer}) {
            for (const ui::PieceRect* r : h.rects(kind, st)) {
                CHECK(r->hatched);
                CHECK(r->colour_gpu == -1);
                CHECK(r->fill == ui::kEveryGpuFill);
            }
        }
    }
    // 256 sequences in 8 rows: rows 0-3 on GPU 0, rows 4-7 on GPU 1, each on one GPU only.
    for (const ui::PieceRect* r : h.rects(PieceKind::batch, PieceState::data)) {
        CHECK(r->colour_gpu == (h.piece(r).row < 4 ? 0 : 1));
        CHECK_FALSE(r->hatched);
    }
}

TEST_CASE("ZeRO-3 shards the weights: each cell is cut in dp_shard slices, one GPU each") {
    Harness h;
    REQUIRE(h.act("zero", "3") == "");  // from one GPU: FSDP comes on with its remembered 2 GPUs
    CHECK(h.state.scenario().parallel.dp_shard == 2);
    CHECK(h.state.scenario().parallel.zero == 3);
    const auto weights = h.rects(PieceKind::attention, PieceState::weights);
    REQUIRE(weights.size() == 8 * 8 * 2);
    for (const ui::PieceRect* r : weights) {
        CHECK(h.piece(r).slices == 2);
        CHECK(r->colour_gpu == h.piece(r).slice);
        CHECK_FALSE(r->hatched);
    }
    // The two slices of a cell sit side by side and share its width.
    const ui::PieceRect* a = weights[0];
    const ui::PieceRect* b = weights[1];
    CHECK(h.piece(a).cell == h.piece(b).cell);
    CHECK(b->min.x == doctest::Approx(a->max.x));
    CHECK(b->max.x - b->min.x == doctest::Approx(a->max.x - a->min.x));

    // ZeRO-1 keeps the weights whole (copied on both, hatched) and shards only the optimizer state.
    REQUIRE(h.act("zero", "1") == "");
    for (const ui::PieceRect* r : h.rects(PieceKind::attention, PieceState::weights)) {
        CHECK(r->hatched);
        CHECK(h.piece(r).slices == 1);
    }
    for (const ui::PieceRect* r : h.rects(PieceKind::attention, PieceState::optimizer)) CHECK_FALSE(r->hatched);
}

TEST_CASE("an invalid count is refused with core's rule, inline, and the scenario stays") {
    Harness h;
    const Scenario before = h.state.scenario();
    const std::string rule = h.act("ep", "2");  // Llama 3 8B is dense
    CHECK(rule.find("strategy.ep: parallel.ep") == 0);
    CHECK(rule == "strategy.ep: " + h.panel.last_error());
    CHECK(h.state.scenario() == before);
    CHECK(h.act("tp", "3").find("strategy.tp: parallel") == 0);  // 3 does not divide 32 heads nor 64 GPUs
    CHECK(h.act("toggle", "nonsense") ==
          "strategy.toggle: \"nonsense\" is not one of dp, fsdp, tp, pp, ep, cp, dp_shard, dp_replicate, zero, ddp, sp, sp_cp");
    CHECK(h.act("bogus", "1").rfind("panel strategy has no action \"bogus\" (its actions: toggle, dp, fsdp, ", 0) == 0);
}

TEST_CASE("clicking the TP checkbox toggles TP; the price lists it from the report") {
    Harness h;
    // One GPU per copy on 64 GPUs: the only price is the 64 copies' data parallelism.
    REQUIRE(h.panel.prices().size() == 1);
    CHECK(h.panel.prices()[0].strategy == Dim::dp_replicate);
    CHECK(h.panel.prices()[0].leftover_copies == 64);
    REQUIRE(h.f.click_item("strategy/toggle/tp", h.draw()));
    CHECK(h.state.scenario().parallel.tp == 2);
    h.frame();
    REQUIRE(h.panel.prices().size() == 2);
    CHECK(h.panel.prices()[0].leftover_copies == 32);
    CHECK(h.panel.prices()[1].strategy == Dim::tp);
    CHECK(h.panel.prices()[1].dim == "tp");
    CHECK(h.panel.prices()[1].bytes_per_step > 0);
    // "+" doubles the count.
    REQUIRE(h.f.click_item("strategy/more/tp", h.draw()));
    CHECK(h.state.scenario().parallel.tp == 4);
}

TEST_CASE("focusing a GPU and showing the table as data") {
    Harness h;
    REQUIRE(h.act("tp", "2") == "");
    REQUIRE(h.act("gpu", "1") == "");
    CHECK(h.panel.focused_gpu() == 1);
    CHECK(h.act("gpu", "x") != "");
    REQUIRE(h.act("gpu", "none") == "");
    CHECK_FALSE(h.panel.focused_gpu());
    REQUIRE(h.act("data", "on") == "");
    CHECK(h.panel.showing_data());
    // Two GPUs, two chips, coloured by their rank.
    REQUIRE(h.panel.drawing().chips.size() == 2);
    CHECK(h.panel.drawing().chips[1].name == "GPU 1");
    CHECK(h.panel.drawing().chips[1].coords == "tp1");
}

TEST_CASE("hovering a piece names its owner, size and collective") {
    Harness h;
    REQUIRE(h.act("tp", "2") == "");
    const auto canvas = ui::find_item_rect("strategy/canvas");
    REQUIRE(canvas);
    const ui::PieceRect* r = h.rects(PieceKind::attention, PieceState::weights).back();
    const std::string text = ui::describe_piece(h.panel.ownership(), h.state.scenario(), h.piece(r));
    CHECK(text.find("heads 28-31 of 32") != std::string::npos);
    CHECK(text.find("GPU 1 only") != std::string::npos);
    CHECK(text.find("TP all-reduce") != std::string::npos);
    // The canvas answers the mouse at that piece (the tooltip is ImGui's; the lookup is ours).
    const ImVec2 local((r->min.x + r->max.x) / 2, (r->min.y + r->max.y) / 2);
    CHECK(ui::piece_at(h.panel.drawing(), local) == r);
    h.f.move_mouse(canvas->x0 + local.x, canvas->y0 + local.y);
    h.frame();
    h.frame();
    CHECK(ImGuiFixture::vertices_of("strategy test") > 0);
}

TEST_CASE("a ZeRO-sharded piece names the block its ranges cover and says each holder keeps one slice of it") {
    Harness h;
    REQUIRE(h.act("tp", "2") == "");
    REQUIRE(h.act("fsdp", "4") == "");
    REQUIRE(h.act("zero", "3") == "");
    const ui::PieceRect* r = h.rects(PieceKind::attention, PieceState::weights).back();
    const Piece& piece = h.piece(r);
    REQUIRE(piece.slices == 4);  // the 4 FSDP ranks of one TP rank's heads
    const std::string text = ui::describe_piece(h.panel.ownership(), h.state.scenario(), piece);
    CAPTURE(text);
    CHECK(text.find("Attention, heads ") == 0);  // the block: its heads and layers, whole
    CHECK(text.find("(slice " + std::to_string(piece.slice + 1) + " of 4: each holder keeps 1/4 of it)") !=
          std::string::npos);
}

TEST_CASE("a 64-GPU layout with every cell in 16 ZeRO-3 slices stays well within 16-bit vertex indices") {
    Harness h;
    Scenario s = h.state.scenario();
    s.parallel.tp = 2;
    s.parallel.pp = 2;
    s.parallel.cp = 2;
    s.parallel.dp_shard = 8;
    s.parallel.dp_replicate = 1;
    s.parallel.zero = 3;
    REQUIRE(h.state.try_apply(s) == "");
    REQUIRE(h.act("gpu", "17") == "");  // the veil over what GPU 17 does not hold is drawn too
    REQUIRE(h.panel.ownership().gpus == 64);
    REQUIRE(h.panel.ownership().unavailable.empty());
    // 16 slices a cell: 2 head cells (one per TP rank), so a band of a group is 32 pieces.
    CHECK(h.panel.ownership().shape.head_cells == 2);
    CHECK(h.panel.drawing().pieces.size() > 2000);
    // Runs of touching records are merged when painted: well below ImGui's 65,536 vertices per window
    // (headless tests have no renderer that could split a larger list).
    CHECK(ImGuiFixture::vertices_of("strategy test") < 40000);
}

TEST_CASE("a count core would refuse is greyed: clicking it changes nothing and reports nothing") {
    Harness h;  // Llama 3 8B, dense, on 64 GPUs
    REQUIRE(h.act("tp", "8") == "");
    REQUIRE(h.act("fsdp", "8") == "");
    const Scenario before = h.state.scenario();
    // EP on a dense model, TP past what 64 GPUs hold (tp 16 x dp_shard 8 = 128), CP below 1.
    for (const char* item : {"strategy/toggle/ep", "strategy/more/ep", "strategy/more/tp", "strategy/less/cp"}) {
        CAPTURE(item);
        REQUIRE(ui::find_item_rect(item).has_value());
        h.f.click_item(item, h.draw());
        h.frame();
        CHECK(h.state.scenario() == before);
        CHECK(h.panel.last_error().empty());
    }
    // A count that fits still clicks.
    REQUIRE(h.f.click_item("strategy/less/tp", h.draw()));
    CHECK(h.state.scenario().parallel.tp == 4);
}

TEST_CASE("a GPU's coordinates: the chips' short keys, the mesh dims' own names in the table") {
    // The default scenario: tp 2 x dp_shard 8 x dp_replicate 2 x pp 2. Rank 1 is the second TP rank,
    // rank 2 the second dp_shard rank (tp is innermost, stride 1).
    const Ownership own = build_ownership(default_scenario());
    using ui::CoordNames;
    using ui::gpu_coords_text;
    CHECK(gpu_coords_text(own, 1, CoordNames::mesh) == "tp 1, dp_shard 0, dp_replicate 0, pp 0");
    CHECK(gpu_coords_text(own, 2, CoordNames::mesh) == "tp 0, dp_shard 1, dp_replicate 0, pp 0");
    CHECK(gpu_coords_text(own, 2) == "tp0 fsdp1 dp0 pp0");
}

TEST_CASE("strategy panel: in a tile too narrow for two strategies side by side, one to a row keeps ZeRO 3 in view") {
    // 180 px: two cells of FSDP's width (its three ZeRO radio buttons) do not fit; two columns put
    // ZeRO 2 and 3 past the window's edge (a new user's 146 px tile).
    ImGuiFixture f{1600, 1000};
    ui::AppState state;
    ui::StrategyPanel panel{"strategy", "Strategy explorer", ui::Placement{}, true};
    const float width = 180;
    f.frames_in_window(2, "strategy narrow", ImVec2(width, 900), [&] { panel.draw(state); });
    const auto zero3 = ui::find_item_rect("strategy/zero/3");
    REQUIRE(zero3);
    CHECK(zero3->x1 <= width);
    // One to a row: FSDP's toggle sits under DP's, not beside it.
    const auto dp = ui::find_item_rect("strategy/toggle/dp");
    const auto fsdp = ui::find_item_rect("strategy/toggle/fsdp");
    REQUIRE(dp);
    REQUIRE(fsdp);
    CHECK(fsdp->y0 > dp->y1);
}
