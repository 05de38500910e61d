#pragma once
// Panel frame timings shared by the bench executables and `shardscope bench`, so both time the same
// thing: the Device mesh panel at 64, 16,384 and 131,072 GPUs and the Pipeline timeline at 64 stages x
// 1,024 micro-batches, headless ImGui (no GL: building the draw lists is the panels' CPU cost).
// Header-only: bench/ has no library of its own. Nothing here asserts a time.

#include "widgets/shell/app_state.hpp"
#include "widgets/mesh/mesh_panel.hpp"
#include "widgets/pipeline/pipeline_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

namespace shardscope::bench {

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// A headless ImGui context sized like a desktop window, with its font atlas built; destroyed with it.
class HeadlessImGui {
public:
    HeadlessImGui() {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(1600, 1000);
        io.DeltaTime = 1.0f / 60.0f;
        // As the OpenGL 3 backend does: draw lists past 65,536 vertices split into several commands.
        io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    }
    ~HeadlessImGui() { ImGui::DestroyContext(); }
    HeadlessImGui(const HeadlessImGui&) = delete;
    HeadlessImGui& operator=(const HeadlessImGui&) = delete;
};

// ---- Device mesh ------------------------------------------------------------------------------------

struct MeshCase {
    std::string gpus;  // "16,384"
    Scenario scenario;
};

// 64 GPUs: the default scenario (8 nodes x 8). The larger ones keep 8 GPUs per node, tp 8, pp 16.
inline std::vector<MeshCase> mesh_cases() {
    const auto with_nodes = [](int64_t nodes, int64_t dp_shard) {
        Scenario s = default_scenario();
        s.cluster.nodes = nodes;
        s.cluster.gpus_per_node = 8;
        s.parallel.tp = 8;
        s.parallel.pp = 16;
        s.parallel.dp_shard = dp_shard;
        s.parallel.dp_replicate = 1;
        s.training.global_batch = 2048;
        return s;
    };
    return {{"64", default_scenario()}, {"16,384", with_nodes(2048, 128)}, {"131,072", with_nodes(16384, 1024)}};
}

struct MeshTiming {
    double panel_us = 0;  // median of panel.draw alone
    double frame_us = 0;  // median of NewFrame + window + panel + Render
    std::string level;    // what the grid drew: GPUs, nodes or blocks
    std::size_t cells = 0;
};

// The panel colouring dp_shard with one GPU selected, the whole mesh in view (the fitted zoom) and the
// mouse over the canvas: the first `warmup` frames build its caches, the next `frames` are timed.
inline MeshTiming time_mesh_panel(const Scenario& scenario, int warmup = 10, int frames = 300) {
    HeadlessImGui context;
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(900, 400);
    ui::AppState state(scenario);
    ui::MeshPanel panel(ui::Placement{}, true);
    panel.act(state, "dim", "dp_shard");
    panel.act(state, "select", "13");
    using clock = std::chrono::steady_clock;
    std::vector<double> panel_us, frame_us;
    for (int i = 0; i < warmup + frames; ++i) {
        const auto frame_start = clock::now();
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(io.DisplaySize);
        ImGui::Begin("Device mesh###mesh");
        const auto panel_start = clock::now();
        panel.draw(state);
        const auto panel_end = clock::now();
        ImGui::End();
        ImGui::Render();
        state.end_frame(false);
        const auto frame_end = clock::now();
        if (i < warmup) continue;
        panel_us.push_back(std::chrono::duration<double, std::micro>(panel_end - panel_start).count());
        frame_us.push_back(std::chrono::duration<double, std::micro>(frame_end - frame_start).count());
    }
    const ui::mesh::GridRecords& r = panel.records();
    return MeshTiming{median(panel_us), median(frame_us), ui::mesh::to_string(r.level), r.gpus.size() + r.cells.size()};
}

// ---- Pipeline timeline ------------------------------------------------------------------------------

// Frame time is this thread's CPU time: on a shared machine wall time mostly measures the neighbours.
inline double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

inline void timeline_frame(ui::PipelinePanel& panel, ui::AppState& state) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin("pipeline");
    panel.draw(state);
    ImGui::End();
    ImGui::Render();
}

struct FrameStats {
    double median_ms = 0, worst_ms = 0;
    int vertices = 0;
};

// `frames` frames of the panel, `before(i)` run ahead of frame i (outside the timing).
inline FrameStats time_timeline_frames(ui::PipelinePanel& panel, ui::AppState& state, int frames,
                                       const std::function<void(int)>& before) {
    std::vector<double> ms;
    for (int i = 0; i < frames; ++i) {
        if (before) before(i);
        const double t0 = thread_cpu_ms();
        timeline_frame(panel, state);
        ms.push_back(thread_cpu_ms() - t0);
    }
    FrameStats s;
    s.median_ms = median(ms);
    s.worst_ms = *std::max_element(ms.begin(), ms.end());
    s.vertices = ImGui::GetDrawData() ? ImGui::GetDrawData()->TotalVtxCount : 0;
    return s;
}

// The timeline of 1F1B on 64 stages x 1,024 micro-batches, the whole step in view, its draw records
// rebuilt every frame (as while the window is dragged): the panel's heaviest steady case.
inline FrameStats time_timeline_64x1024(int frames = 120) {
    HeadlessImGui context;
    ui::AppState state;
    ui::PipelinePanel panel(ui::Placement{}, true);
    panel.act(state, "stages", "64");
    panel.act(state, "microbatches", "1024");
    timeline_frame(panel, state);  // first frame: layout and fonts settle
    const double full = panel.time_window().span();
    return time_timeline_frames(panel, state, frames, [&](int i) {
        panel.set_time_window(ui::TimeWindow{0, full * (1.0 - 0.001 * (i % 2))});
    });
}

}  // namespace shardscope::bench
