#pragma once
// Dear ImGui 1.86 reads keys by the backend's own codes (io.KeysDown[]). The GLFW backend uses GLFW's
// codes, which are ASCII for letters; widgets cannot include GLFW, so the few codes we need live here.
namespace shardscope::ui::keys {
constexpr int kN = 'N';
constexpr int kO = 'O';
constexpr int kQ = 'Q';
constexpr int kS = 'S';
constexpr int kY = 'Y';
constexpr int kZ = 'Z';
constexpr int kF12 = 301;    // GLFW_KEY_F12
constexpr int kRight = 262;  // GLFW_KEY_RIGHT
constexpr int kLeft = 263;   // GLFW_KEY_LEFT
constexpr int kHome = 268;   // GLFW_KEY_HOME
constexpr int kEnd = 269;    // GLFW_KEY_END
}  // namespace shardscope::ui::keys
