#include "host/key_latch.hpp"

#include <GLFW/glfw3.h>
#include <imgui_impl_glfw.h>

#include <vector>

namespace shardscope::host {

namespace {

struct HeldRelease {
    int key, scancode, mods;
};

std::vector<int> g_pressed_this_frame;     // keys pressed since the last frame began
std::vector<HeldRelease> g_held_releases;  // their releases, waiting for the next frame

void on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
    // While any press is unseen, every release waits, in order: Ctrl+Q tapped within one frame must
    // show Ctrl still down in the frame that first sees Q.
    if (action == GLFW_RELEASE && !g_pressed_this_frame.empty()) {
        g_held_releases.push_back({key, scancode, mods});
        return;
    }
    if (action == GLFW_PRESS) g_pressed_this_frame.push_back(key);
    ImGui_ImplGlfw_KeyCallback(window, key, scancode, action, mods);
}

}  // namespace

void install_key_latch(GLFWwindow* window) { glfwSetKeyCallback(window, &on_key); }

void release_latched_keys(GLFWwindow* window) {
    g_pressed_this_frame.clear();
    for (const HeldRelease& r : g_held_releases) ImGui_ImplGlfw_KeyCallback(window, r.key, r.scancode, GLFW_RELEASE, r.mods);
    g_held_releases.clear();
}

}  // namespace shardscope::host
