#pragma once
// Dear ImGui 1.86 samples key state once per frame (io.KeysDown), so a tap whose press and release
// both arrive during one slow frame is never seen: F12 or Ctrl+Q would be lost on a busy machine.
// This key callback stands in front of the GLFW backend's and holds releases back until a frame has
// seen the presses before them.

struct GLFWwindow;

namespace shardscope::host {

// After ImGui_ImplGlfw_InitForOpenGL(window, true): routes key events through the latch.
void install_key_latch(GLFWwindow* window);
// After each frame's ImGui::Render(): hands the held-back releases to ImGui for the next frame.
void release_latched_keys(GLFWwindow* window);

}  // namespace shardscope::host
