// The glossary behind the panels' controls: every term the panels name is in the shipped glossary, and
// hovering a control shows its term's definition.
#include "widgets/kit/glossary_terms.hpp"
#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/ui_frame.hpp"

#include "imgui_fixture.hpp"

#include <imgui_internal.h>

#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

using namespace shardscope;
using shardscope::test::ImGuiFixture;

namespace {

Glossary shipped_glossary() {
    std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/glossary.json");
    std::stringstream text;
    text << in.rdbuf();
    GlossaryLoad load = parse_glossary(text.str(), "assets/glossary.json");
    REQUIRE_MESSAGE(load.ok(), load.error);
    return *load.glossary;
}

}  // namespace

TEST_CASE("every term the panels name is in the shipped glossary") {
    const Glossary g = shipped_glossary();
    const std::vector<std::string_view> used = ui::all_glossary_terms_used();
    CHECK(used.size() >= 40);
    for (std::string_view term : used) {
        CAPTURE(term);
        CHECK(g.find(term) != nullptr);
    }
    // Spot checks that the map points where a reader expects.
    CHECK(g.find(ui::glossary_term(Dim::dp_shard))->term == "FSDP");
    CHECK(g.find(ui::glossary_term(Dim::dp_replicate))->term == "Data parallel");
    CHECK(g.find(ui::glossary_term(Schedule::zb_h2))->term == "Zero bubble");
    CHECK(g.find(ui::glossary_term(StepAlgorithm::double_binary_tree))->term == "Tree algorithm");
    CHECK(g.find(ui::zero_stage_term(2))->term == "ZeRO-2");
}

namespace {

// The tile of a panel's item: the window whose name ends in "###" and the item key's first part.
ImGuiWindow* tile_of(const std::string& item) {
    const std::string suffix = "###" + item.substr(0, item.find('/'));
    for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
        const std::string name = w->Name;
        if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
            return w;
    }
    return nullptr;
}

// Wheels the item's tile down, as a person would, until the item shows inside it.
void scroll_into_view(test::ImGuiFixture& f, const std::string& item, const std::function<void()>& draw) {
    for (int turn = 0; turn < 20; ++turn) {
        const auto rect = ui::find_item_rect(item);
        if (!rect) return;
        ImGuiWindow* w = tile_of(item);
        if (!w || rect->y1 <= w->InnerClipRect.Max.y) return;
        f.move_mouse(w->InnerClipRect.GetCenter().x, w->InnerClipRect.GetCenter().y);
        ImGui::GetIO().MouseWheel = -1.0f;
        f.frames(1, draw);
        ImGui::GetIO().MouseWheel = 0.0f;
        f.frames(1, draw);
    }
}

}  // namespace

TEST_CASE("hovering a panel's control shows the definition of the term it names") {
    ImGuiFixture f(1920, 1200);
    ui::set_shared_glossary(std::make_shared<const Glossary>(shipped_glossary()));
    ui::AppState state;  // the default scenario: Llama 3 8B, tp 2, pp 2, 1F1B, selective recompute
    ui::AppUi app;
    const auto draw = [&] { app.draw_frame(state, f.seconds()); };
    f.frames(3, draw);
    const std::pair<const char*, const char*> hovers[] = {
        {"strategy/toggle/tp", "Tensor parallel"},   {"strategy/toggle/fsdp", "FSDP"},
        {"mesh/dim/pp", "Pipeline parallel"},         {"mesh/dim/dp_shard", "FSDP"},
        {"memory/recompute", "Activation recomputation"}, {"memory/zero", "ZeRO-3"},
        {"pipeline/schedule", "1F1B"},                {"collective/collective", "All-reduce"},
        {"collective/algorithm", "Ring algorithm"},
    };
    for (const auto& [item, term] : hovers) {
        const std::string name = item;
        CAPTURE(name);
        scroll_into_view(f, item, draw);
        const auto rect = ui::find_item_rect(item);
        REQUIRE(rect.has_value());
        f.move_mouse(rect->centre_x(), rect->centre_y());
        f.frames(2, draw);
        CHECK(ui::last_tooltip_term() == term);
    }
    ui::set_shared_glossary(nullptr);
}
