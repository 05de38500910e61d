#include "host/paint_frame.hpp"

#include "host/gl.hpp"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

namespace shardscope::host {

void paint_frame(int fb_w, int fb_h) {
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.09f, 0.10f, 0.12f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace shardscope::host
