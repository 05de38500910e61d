#include "widgets/shell/ui_probe.hpp"

#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/shown_figures.hpp"

#include <imgui.h>
#include <imgui_internal.h>
#include <nlohmann/json.hpp>

namespace shardscope::ui {

std::string ui_probe_json(const PanelRegistry& registry, const AppState& state) {
    using Json = nlohmann::ordered_json;
    Json j;
    j["frame"] = ImGui::GetFrameCount();
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    j["viewport"] = {vp->Size.x, vp->Size.y};
    j["font_px"] = ImGui::GetFontSize();
    j["highlighted"] = registry.highlighted();
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    Json windows = Json::array();
    for (const auto& panel : registry.panels()) {
        if (!panel->open) continue;
        const ImGuiWindow* w = ImGui::FindWindowByName(panel->window_name().c_str());
        if (!w || !w->WasActive) continue;
        int z = 0;
        for (int i = 0; i < g.Windows.Size; ++i)
            if (g.Windows[i] == w) z = i;
        windows.push_back({{"id", panel->id()}, {"x", w->Pos.x}, {"y", w->Pos.y}, {"w", w->Size.x},
                           {"h", w->Size.y}, {"z", z}, {"collapsed", w->Collapsed}, {"state", panel->probe_state()}});
    }
    j["windows"] = std::move(windows);
    Json items = Json::object();
    for (const auto& [key, r] : current_item_rects()) items[key] = {r.x0, r.y0, r.x1, r.y1};
    j["items"] = std::move(items);
    // Core's figures as the panels drew them this frame: a test types what a person would read.
    Json shown = Json::array();
    for (const ShownFigure& f : current_shown_figures())
        shown.push_back({{"panel", f.panel}, {"quantity", f.quantity}, {"text", f.text}});
    j["shown"] = std::move(shown);
    j["scenario"] = Json::parse(scenario_to_json(state.scenario()));
    j["status"] = state.ui.status;
    j["copied"] = state.ui.last_copied;
    j["error"] = state.ui.error_message;
    // The text field being typed in, if any, and what it holds: a test sees its keys arrive.
    if (g.ActiveId != 0 && g.InputTextState.ID == g.ActiveId) j["typing"] = std::string(g.InputTextState.TextA.Data ? g.InputTextState.TextA.Data : "");
    return j.dump() + "\n";
}

}  // namespace shardscope::ui
