#include "widgets/shell/panel.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

Panel& PanelRegistry::add(std::unique_ptr<Panel> panel) {
    panels_.push_back(std::move(panel));
    return *panels_.back();
}

Panel* PanelRegistry::find(const std::string& id) const {
    for (const auto& p : panels_)
        if (p->id() == id) return p.get();
    return nullptr;
}

namespace {

void place_window(const Placement& p, bool force) {
    // Below the main menu bar, computed here: 1.86 updates the viewport's work area a frame late, which
    // would put first-frame windows over the menu bar. Above the status line's strip, so a message
    // never covers the bottom of a panel.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float menu_height = ImGui::GetFrameHeight();
    const float status_height = ImGui::GetFrameHeight();
    const ImVec2 origin(vp->Pos.x, vp->Pos.y + menu_height);
    const ImVec2 size(vp->Size.x, vp->Size.y - menu_height - status_height);
    const ImGuiCond cond = force ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
    ImGui::SetNextWindowPos(ImVec2(origin.x + p.x * size.x, origin.y + p.y * size.y), cond);
    ImGui::SetNextWindowSize(ImVec2(p.w * size.x, p.h * size.y), cond);
}

// A slow pulse draws the eye without flashing: three of them (sin(4t): 1.57 s each), then still at
// full strength.
constexpr float kPulseRate = 4.0f;
constexpr float kPulsingSeconds = 3.0f * 2.0f * 3.14159265f / kPulseRate;

void outline_current_window(float seconds_shown) {
    const float pulse = seconds_shown < kPulsingSeconds ? 0.5f + 0.5f * std::sin(seconds_shown * kPulseRate) : 1.0f;
    const ImVec2 min = ImGui::GetWindowPos();
    const ImVec2 max(min.x + ImGui::GetWindowWidth(), min.y + ImGui::GetWindowHeight());
    const ImU32 colour = ImGui::GetColorU32(ImVec4(1.0f, 0.75f, 0.1f, 0.45f + 0.55f * pulse));
    // On the panel's own draw list, inside its edge: a window floating above the panel covers the
    // outline as it covers the panel (the foreground list would draw it across that window).
    const float thickness = 2.0f + 2.0f * pulse;
    const float inset = thickness * 0.5f;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(min, max, false);
    draw->AddRect(ImVec2(min.x + inset, min.y + inset), ImVec2(max.x - inset, max.y - inset), colour, 4.0f, 0, thickness);
    draw->PopClipRect();
}

// n tiles over the work area: a near-square grid, the last row's tiles widened to fill it.
std::vector<Placement> grid_tiles(size_t n) {
    std::vector<Placement> out;
    if (n == 0) return out;
    const size_t cols = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
    const size_t rows = (n + cols - 1) / cols;
    for (size_t i = 0; i < n; ++i) {
        const size_t row = i / cols;
        const size_t in_row = row + 1 == rows ? n - row * cols : cols;
        const float w = 1.0f / static_cast<float>(in_row);
        out.push_back(Placement{static_cast<float>(i % cols) * w, static_cast<float>(row) / static_cast<float>(rows), w,
                                1.0f / static_cast<float>(rows)});
    }
    return out;
}

}  // namespace

void PanelRegistry::open_tiled(const std::string& id) {
    Panel* panel = find(id);
    if (!panel) return;
    if (panel->open) {
        ImGui::SetWindowFocus(panel->window_name().c_str());
        return;
    }
    panel->open = true;
    // The panel just asked for is what the person wants to read: it takes the right part of the window
    // at full height, and the others share the rest in a grid. Next to one other panel it takes 45%;
    // next to a grid of c columns it is one column more, as wide as each of them, so the others are
    // not squeezed to slivers (seven others once got 187 px each of a 1024 px window).
    std::vector<Panel*> others;
    for (const auto& p : panels_)
        if (p->open && p.get() != panel) others.push_back(p.get());
    if (others.empty()) {
        panel->set_placement(Placement{0, 0, 1, 1});
    } else {
        const float columns = std::ceil(std::sqrt(static_cast<float>(others.size())));
        const float opened_share = std::min(0.45f, 1.0f / (columns + 1.0f));
        const std::vector<Placement> tiles = grid_tiles(others.size());
        for (size_t i = 0; i < others.size(); ++i) {
            Placement t = tiles[i];
            t.x *= 1.0f - opened_share;
            t.w *= 1.0f - opened_share;
            others[i]->set_placement(t);
        }
        panel->set_placement(Placement{1.0f - opened_share, 0, opened_share, 1});
    }
    reset_layout();
}

void PanelRegistry::tile_open_panels() {
    std::vector<Panel*> open;
    for (const auto& p : panels_)
        if (p->open) open.push_back(p.get());
    const std::vector<Placement> tiles = grid_tiles(open.size());
    for (size_t i = 0; i < open.size(); ++i) open[i]->set_placement(tiles[i]);
    reset_layout();
}

std::vector<std::string> PanelRegistry::show_only(const std::vector<std::string>& ids) {
    std::vector<std::string> unknown;
    for (const std::string& id : ids)
        if (!find(id)) unknown.push_back(id);
    if (!unknown.empty() || ids.empty()) return unknown;
    const float width = 1.0f / static_cast<float>(ids.size());
    for (const auto& p : panels_) p->open = false;
    for (size_t i = 0; i < ids.size(); ++i) {
        Panel* p = find(ids[i]);
        p->open = true;
        p->set_placement(Placement{width * static_cast<float>(i), 0.0f, width, 1.0f});
    }
    reset_layout();
    return {};
}

void PanelRegistry::restore_default_layout() {
    for (const auto& p : panels_) p->restore_default_placement();
    highlighted_.clear();  // a lesson's outline goes with the lesson's layout
    reset_layout();
}

std::string PanelRegistry::id_list() const {
    std::string ids;
    for (const auto& p : panels_) ids += (ids.empty() ? "" : ", ") + p->id();
    return ids;
}

std::string PanelRegistry::run_action(AppState& state, const std::string& spec) {
    const auto dot = spec.find('.');
    const auto eq = spec.find('=');
    if (dot == std::string::npos || (eq != std::string::npos && eq < dot))
        return "\"" + spec + "\": an action is written PANEL.ACTION=VALUE, e.g. mesh.dim=dp_shard";
    const std::string id = spec.substr(0, dot);
    Panel* p = find(id);
    if (!p) return "\"" + id + "\" is not a panel id";
    p->open = true;
    // A bare PANEL.ACTION is one with no value ("no value (or 1)" in the action list); an action that
    // needs one says so.
    if (eq == std::string::npos) return p->act(state, spec.substr(dot + 1), "");
    return p->act(state, spec.substr(dot + 1, eq - dot - 1), spec.substr(eq + 1));
}

void PanelRegistry::draw_all(AppState& state, float seconds_since_start) {
    last_drawn_s_ = seconds_since_start;
    // A new window size tiles the panels over it again (the tiles are fractions of the work area).
    const ImVec2 size = ImGui::GetMainViewport()->Size;
    if (last_width_ > 0 && (size.x != last_width_ || size.y != last_height_)) reset_layout();
    last_width_ = size.x;
    last_height_ = size.y;
    // A panel closed by its own button or the View menu leaves a hole: the rest close it up, unless a
    // layout was asked for since (a lesson step or --show closes panels on purpose, with their tiles).
    // The open set is taken before the windows are drawn, so a close button clicked inside this
    // frame's windows is seen on the next.
    std::vector<std::string> open_now = open_ids();
    const bool one_closed = std::any_of(last_open_.begin(), last_open_.end(), [&](const std::string& id) {
        return std::find(open_now.begin(), open_now.end(), id) == open_now.end();
    });
    if (one_closed && layout_ == last_layout_ && !open_now.empty()) tile_open_panels();
    for (const auto& panel : panels_) panel->follow(state);
    last_open_ = std::move(open_now);
    const unsigned layout_before = layout_;

    for (const auto& panel : panels_) {
        if (!panel->open) continue;
        // Placed once per layout request: a request made while this frame's panels draw (a lesson
        // step) still reaches the panels drawn before it, on their next draw.
        // Never placed and nothing asked yet: imgui.ini (or the tile, on first start) decides.
        const bool asked = panel->placed_layout_ != 0 || layout_ > 1;
        place_window(panel->placement(), panel->placed_layout_ != layout_ && asked);
        panel->placed_layout_ = layout_;
        if (panel->scroll_to_top_) ImGui::SetNextWindowScroll(ImVec2(0.0f, 0.0f));
        panel->scroll_to_top_ = false;
        const bool visible = ImGui::Begin(panel->window_name().c_str(), &panel->open);
        if (visible) panel->draw(state);
        if (panel->id() == highlighted_) {
            if (highlight_since_s_ < 0) highlight_since_s_ = seconds_since_start;
            outline_current_window(seconds_since_start - highlight_since_s_);
        }
        ImGui::End();
    }
    // A layout asked for while drawing (a lesson step) placed the panels it left open: what it closed
    // is no hole.
    if (layout_ != layout_before) last_open_ = open_ids();
    last_layout_ = layout_;
}

std::vector<std::string> PanelRegistry::open_ids() const {
    std::vector<std::string> ids;
    for (const auto& p : panels_)
        if (p->open) ids.push_back(p->id());
    return ids;
}

bool PanelRegistry::tile_unless_tiled() {
    if (!open_windows_overlap() && open_windows_cover_work_area()) return false;
    tile_open_panels();
    return true;
}

bool PanelRegistry::open_windows_cover_work_area() const {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float work = vp->WorkSize.x * vp->WorkSize.y;
    float covered = 0;
    for (const auto& p : panels_) {
        if (!p->open) continue;
        const ImGuiWindow* w = ImGui::FindWindowByName(p->window_name().c_str());
        if (!w) continue;
        ImRect r(w->Pos, ImVec2(w->Pos.x + w->Size.x, w->Pos.y + w->Size.y));
        r.ClipWithFull(ImRect(vp->WorkPos, ImVec2(vp->WorkPos.x + vp->WorkSize.x, vp->WorkPos.y + vp->WorkSize.y)));
        covered += std::max(0.0f, r.GetWidth()) * std::max(0.0f, r.GetHeight());
    }
    // Tiles share edges and leave nothing over; a tenth of the window empty is a panel's missing tile.
    return work <= 0 || covered >= 0.9f * work;
}

bool PanelRegistry::open_windows_overlap() const {
    std::vector<ImRect> rects;
    for (const auto& p : panels_) {
        if (!p->open) continue;
        if (const ImGuiWindow* w = ImGui::FindWindowByName(p->window_name().c_str()))
            rects.emplace_back(w->Pos, ImVec2(w->Pos.x + w->Size.x, w->Pos.y + w->Size.y));
    }
    for (size_t i = 0; i < rects.size(); ++i)
        for (size_t j = i + 1; j < rects.size(); ++j) {
            ImRect both = rects[i];
            both.ClipWithFull(rects[j]);
            const float shared = std::max(0.0f, both.GetWidth()) * std::max(0.0f, both.GetHeight());
            const float smaller = std::min(rects[i].GetArea(), rects[j].GetArea());
            if (shared > 0.01f * smaller) return true;  // tiles may share an edge
        }
    return false;
}

bool PanelRegistry::pulsing() const {
    if (!highlighted_.empty() && (highlight_since_s_ < 0 || last_drawn_s_ - highlight_since_s_ < kPulsingSeconds))
        return true;
    for (const auto& p : panels_)
        if (p->open && p->polling()) return true;
    return false;
}

bool PanelRegistry::animating() const {
    for (const auto& p : panels_)
        if (p->open && p->animating()) return true;
    return false;
}

std::string action_reference(const PanelRegistry& registry) {
    std::string out = "| action | value | what it does |\n|---|---|---|\n";
    for (const auto& panel : registry.panels())
        for (const ActionSpec& spec : panel->actions().specs())
            out += "| `" + panel->id() + "." + spec.name + "` | " + describe_values(spec) + " | " + spec.help + " |\n";
    return out;
}

}  // namespace shardscope::ui
