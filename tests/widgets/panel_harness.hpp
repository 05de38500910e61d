#pragma once
// One panel drawn alone in a full-size window, the way the registry draws it, with the end-of-frame
// history commit the app makes.

#include "imgui_fixture.hpp"
#include "widgets/shell/app_state.hpp"
#include "widgets/shell/panel.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <string>

namespace shardscope::test {

template <typename PanelT>
struct PanelHarness {
    ImGuiFixture fixture;
    ui::AppState state;
    PanelT panel{ui::Placement{}, true};

    PanelHarness() = default;
    explicit PanelHarness(Scenario s) : state(std::move(s)) {}

    std::function<void()> draw_fn() {
        return [this] {
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(ImVec2(1600, 1000));
            ImGui::Begin((panel.id() + "-test").c_str());
            panel.draw(state);
            ImGui::End();
            state.end_frame(ImGui::IsAnyItemActive());
        };
    }
    void frames(int n) { fixture.frames(n, draw_fn()); }
    bool click(const std::string& key) { return fixture.click_item(key, draw_fn()); }
    void act(const std::string& action, const std::string& value) {
        REQUIRE(panel.act(state, action, value) == "");
    }
};

}  // namespace shardscope::test
