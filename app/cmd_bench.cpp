// `shardscope bench [--frames N] [--skip-planner]`: the figures of issue 8 as one table with units.
// - planner: Llama 3 405B on 16,384 and on 131,072 H100s, every knob searched, on one thread and on
//   every core (best of 5 runs): total time, candidates enumerated per second and candidates costed
//   by the full cost model;
// - the whole app's CPU time per frame with every panel open, headless ImGui (no GL, no window): the
//   mean and the worst of N frames after a few warm-up frames (the planner's first search is among
//   the warm-up frames).
// Build Release to quote these (Debug is several times slower). Nothing asserts a time.

#include "app/commands.hpp"
#include "bench/planner_cases.hpp"
#include "core/units.hpp"
#include "widgets/app_state.hpp"
#include "widgets/ui_frame.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

namespace {

using namespace shardscope;
using Clock = std::chrono::steady_clock;

constexpr const char* kUsage = "usage: shardscope bench [--frames N] [--skip-planner]";

void row(const std::string& what, const std::string& figure, const std::string& detail) {
    std::printf("%-52s %14s   %s\n", what.c_str(), figure.c_str(), detail.c_str());
}

void bench_planner() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    for (const bench::PlannerCase& c : bench::planner_cases()) {
        const bench::PlannerTiming t = bench::time_planner(c.scenario, 5, 1);  // best of 5: the least disturbed
        const double per_s = static_cast<double>(t.stats.candidates) / t.seconds;
        row("planner: " + c.name + ", total, 1 thread", format_seconds(t.seconds),
            format_count(static_cast<double>(t.stats.candidates)) + " candidates, " +
                format_count(static_cast<double>(t.stats.costed)) + " costed in full");
        row("planner: " + c.name + ", candidates/s, 1 thread", format_count(per_s) + "/s",
            format_count(static_cast<double>(t.stats.costed) / t.seconds) + " full cost-model runs/s");
        if (cores > 1) {
            const bench::PlannerTiming all = bench::time_planner(c.scenario, 5, 0);
            row("planner: " + c.name + ", total, " + std::to_string(cores) + " threads", format_seconds(all.seconds),
                "the first pass (flooring every layout) on every core");
        }
    }
}

// Headless frames of the whole UI: a context with a built font atlas and no renderer.
void bench_frames(int frames) {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1920, 1080);
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    {
        ui::AppState state;
        ui::AppUi app;
        std::vector<std::string> ids;
        for (const auto& p : app.registry().panels()) ids.push_back(p->id());
        app.registry().show_only(ids);
        const auto frame = [&](float t) {
            ImGui::NewFrame();
            app.draw_frame(state, t);
            ImGui::Render();
        };
        constexpr int kWarmUp = 10;
        for (int i = 0; i < kWarmUp; ++i) frame(static_cast<float>(i) / 60.0f);
        double total = 0, worst = 0;
        for (int i = 0; i < frames; ++i) {
            const auto start = Clock::now();
            frame(static_cast<float>(kWarmUp + i) / 60.0f);
            const double dt = std::chrono::duration<double>(Clock::now() - start).count();
            total += dt;
            worst = std::max(worst, dt);
        }
        row("app frame, all " + std::to_string(ids.size()) + " panels open (headless), mean",
            format_seconds(total / frames), std::to_string(frames) + " frames at 1920x1080, " + state.scenario().model.name);
        row("app frame, all panels open (headless), worst", format_seconds(worst), "");
    }
    ImGui::DestroyContext();
}

int run_bench(const std::vector<std::string>& args) {
    int frames = 120;
    bool planner = true;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--frames" && i + 1 < args.size()) {
            frames = std::atoi(args[++i].c_str());
            if (frames < 1) {
                std::cerr << "bench: --frames must be a positive whole number\n";
                return 2;
            }
        } else if (args[i] == "--skip-planner") {
            planner = false;
        } else if (args[i] == "--help" || args[i] == "-h") {
            std::cout << kUsage << "\n";
            return 0;
        } else {
            std::cerr << "bench: unexpected argument '" << args[i] << "'\n" << kUsage << "\n";
            return 2;
        }
    }
    std::printf("%-52s %14s   %s\n", "what", "figure", "detail");
    if (planner) bench_planner();
    bench_frames(frames);
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(bench, "print benchmark figures (planner, frame time): bench [--frames N] [--skip-planner]",
                   &run_bench);
