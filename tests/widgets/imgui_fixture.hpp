#pragma once
// Headless Dear ImGui: a context with a built font atlas and a display size, frames run with
// NewFrame/Render and no GL at all. Input goes through the 1.86 IO fields (MousePos, MouseDown, KeysDown).

#include "widgets/kit/item_rects.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <functional>
#include <string>

namespace shardscope::test {

class ImGuiFixture {
public:
    explicit ImGuiFixture(float width = 1600, float height = 1000) {
        IMGUI_CHECKVERSION();
        ImGui::CreateContext();
        // A new context counts its frames from the start again: an earlier test's rectangles would
        // pass for this frame's.
        ui::forget_item_rects();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;  // tests never read or write a layout file
        io.DisplaySize = ImVec2(width, height);
        io.DeltaTime = 1.0f / 60.0f;
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the atlas; no texture upload needed
        for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = k;  // identity: tests press ImGui codes
    }
    ~ImGuiFixture() { ImGui::DestroyContext(); }
    ImGuiFixture(const ImGuiFixture&) = delete;
    ImGuiFixture& operator=(const ImGuiFixture&) = delete;

    // One frame: NewFrame, draw, Render.
    void frame(const std::function<void()>& draw) {
        ImGui::NewFrame();
        draw();
        ImGui::Render();
        time_ += ImGui::GetIO().DeltaTime;
    }
    void frames(int n, const std::function<void()>& draw) {
        for (int i = 0; i < n; ++i) frame(draw);
    }
    // n frames of `draw` inside a window `title` at the origin, `size` large (a panel in a tile).
    void frames_in_window(int n, const char* title, ImVec2 size, const std::function<void()>& draw) {
        frames(n, [&] {
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(size);
            ImGui::Begin(title);
            draw();
            ImGui::End();
        });
    }

    void move_mouse(float x, float y) { ImGui::GetIO().MousePos = ImVec2(x, y); }
    // Press on one frame, release on the next: what ImGui needs to see a click.
    void click(float x, float y, const std::function<void()>& draw) {
        move_mouse(x, y);
        frame(draw);
        ImGui::GetIO().MouseDown[0] = true;
        frame(draw);
        ImGui::GetIO().MouseDown[0] = false;
        frame(draw);
    }
    // Clicks the centre of a rectangle the widgets noted under key; false when none was drawn.
    bool click_item(const std::string& key, const std::function<void()>& draw) {
        const auto rect = ui::find_item_rect(key);
        if (!rect) return false;
        click(rect->centre_x(), rect->centre_y(), draw);
        return true;
    }
    void press_key(int key, bool ctrl, bool shift, const std::function<void()>& draw) {
        ImGuiIO& io = ImGui::GetIO();
        io.KeyCtrl = ctrl;
        io.KeyShift = shift;
        io.KeysDown[key] = true;
        frame(draw);
        io.KeysDown[key] = false;
        frame(draw);
        io.KeyCtrl = io.KeyShift = false;
    }

    // Vertices a window emitted in the last frame (0 when it was not drawn).
    [[nodiscard]] static int vertices_of(const std::string& window_name) {
        ImGuiWindow* w = ImGui::FindWindowByName(window_name.c_str());
        if (!w || !w->WasActive || w->Hidden) return 0;
        return w->DrawList->VtxBuffer.Size;
    }
    [[nodiscard]] float seconds() const noexcept { return time_; }

private:
    float time_ = 0;
};

}  // namespace shardscope::test
