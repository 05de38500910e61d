#include "widgets/kit/shown_figures.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>

namespace shardscope::ui {

namespace {

struct Noted {
    ShownFigure figure;
    int frame = 0;
};

std::vector<Noted>& noted() {
    static std::vector<Noted> all;
    return all;
}

// "Memory and cost###memory" -> "memory"; a window without "###" is its own id.
std::string panel_of_current_window() {
    const ImGuiWindow* w = ImGui::GetCurrentWindowRead();
    if (!w) return {};
    const std::string name = w->RootWindow ? w->RootWindow->Name : w->Name;
    const size_t hashes = name.find("###");
    return hashes == std::string::npos ? name : name.substr(hashes + 3);
}

int latest_frame() { return ImGui::GetCurrentContext() ? ImGui::GetFrameCount() : 0; }

}  // namespace

void note_shown(const std::string& quantity, const std::string& text) {
    const int frame = latest_frame();
    auto& all = noted();
    // Older notes go: the list holds what this frame and the one before drew.
    all.erase(std::remove_if(all.begin(), all.end(), [frame](const Noted& n) { return n.frame < frame - 1 || n.frame > frame; }),
              all.end());
    const std::string panel = panel_of_current_window();
    for (Noted& n : all)
        if (n.frame == frame && n.figure.panel == panel && n.figure.quantity == quantity) {
            n.figure.text = text;
            return;
        }
    all.push_back(Noted{ShownFigure{panel, quantity, text}, frame});
}

namespace {

std::vector<ShownFigure> shown_in_frame(int frame) {
    std::vector<ShownFigure> out;
    for (const Noted& n : noted())
        if (n.frame == frame) out.push_back(n.figure);
    return out;
}

}  // namespace

std::vector<ShownFigure> current_shown_figures() { return shown_in_frame(latest_frame()); }

std::vector<ShownFigure> previous_frame_shown_figures() { return shown_in_frame(latest_frame() - 1); }

}  // namespace shardscope::ui
