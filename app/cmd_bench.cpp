// `shardscope bench [--frames N] [--skip-planner]`: the speed figures (planner, panels, cold start) as one table with units.
// - planner: the cases of bench/planner_cases.hpp (Llama 3 405B on 16,384 and 131,072 H100s, and with
//   every mesh order; DeepSeek-V3 on 2,048 H800s), on one thread and on every core (best of 5 runs, 3
//   for the slow ones): total time beside its goal, candidates enumerated per second and candidates
//   costed by the full cost model;
// --frames N sets how many frames each frame figure is the median or mean of (default 120).
// - the Device mesh panel's CPU time per frame at 64, 16,384 and 131,072 GPUs and the Pipeline
//   timeline's at 64 stages x 1,024 micro-batches (bench/panel_timings.hpp, as mesh_bench and
//   pipeline_bench time them);
// - the whole app's CPU time per frame with every panel open, headless ImGui (no GL, no window): the
//   mean and the worst of N frames after a few warm-up frames (the planner's first search is among
//   the warm-up frames);
// - cold start to the first frame: this executable started afresh with --frames 1 --screenshot, timed
//   to its exit, when there is a display (run it under xvfb-run on a machine without one).
// Build Release to quote these (Debug is several times slower). Nothing asserts a time.

#include "app/cli.hpp"
#include "app/command_input.hpp"
#include "app/commands.hpp"
#include "host/file_io.hpp"
#include "bench/panel_timings.hpp"
#include "bench/planner_cases.hpp"
#include "core/scenario/units.hpp"
#include "widgets/shell/app_state.hpp"
#include "widgets/ui_frame.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace {

using namespace shardscope;
using Clock = std::chrono::steady_clock;

constexpr const char* kUsage =
    "usage: shardscope bench [--frames N] [--skip-planner]\n"
    "  Prints the speed figures as one table with units: the planner's search on one thread and on every\n"
    "  core, the whole app's frame with every panel open (headless), the Device mesh and Pipeline timeline\n"
    "  panels, and, with a display, the cold start to the first frame.\n"
    "  --frames N: frames each frame figure is taken over (120), --skip-planner: leave the planner out";

void row(const std::string& what, const std::string& figure, const std::string& detail) {
    std::printf("%-70s %12s   %s\n", what.c_str(), figure.c_str(), detail.c_str());
}

void bench_planner() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    for (const bench::PlannerCase& c : bench::planner_cases(app::shipped_cluster("dgx-h100.json", "bench"))) {
        const bench::PlannerTiming t = bench::time_planner(c, 1);  // best of c.runs: the least disturbed
        const double per_s = static_cast<double>(t.stats.candidates) / t.seconds;
        row("planner: " + c.name + ", total, 1 thread", format_seconds(t.seconds),
            "goal " + c.goal + "; " + format_count(static_cast<double>(t.stats.candidates)) + " candidates, " +
                format_count(static_cast<double>(t.stats.costed)) + " costed in full");
        row("planner: " + c.name + ", candidates/s, 1 thread", format_count(per_s) + "/s",
            format_count(static_cast<double>(t.stats.costed) / t.seconds) + " full cost-model runs/s");
        if (cores > 1) {
            const bench::PlannerTiming all = bench::time_planner(c, 0);
            row("planner: " + c.name + ", total, " + std::to_string(cores) + " threads", format_seconds(all.seconds),
                "the first pass (flooring every layout) on every core");
        }
    }
}

void bench_panels(int frames) {
    for (const bench::MeshCase& c : bench::mesh_cases()) {
        const bench::MeshTiming t = bench::time_mesh_panel(c.scenario, 10, frames);
        row("Device mesh panel, " + c.gpus + " GPUs, per frame", format_seconds(t.panel_us * 1e-6),
            "median of " + std::to_string(frames) + "; whole frame " + format_seconds(t.frame_us * 1e-6) + ", " +
                std::to_string(t.cells) + " cells (" + t.level + ")");
    }
    const bench::FrameStats timeline = bench::time_timeline_64x1024(frames);
    row("Pipeline timeline, 64 stages x 1,024 micro-batches", format_seconds(timeline.median_ms * 1e-3),
        "median of " + std::to_string(frames) + ", 1F1B, whole step redrawn each frame; worst " +
            format_seconds(timeline.worst_ms * 1e-3));
}

// Starts this executable afresh for one frame and a screenshot, and times it to its exit.
void bench_cold_start() {
    if (std::getenv("DISPLAY") == nullptr && std::getenv("WAYLAND_DISPLAY") == nullptr) {
        row("cold start to first frame", "skipped", "no display: run `xvfb-run -a shardscope bench`");
        return;
    }
    const std::string self = shardscope::host::executable_path();
    if (self.empty()) {
        row("cold start to first frame", "skipped", "cannot find this executable (/proc/self/exe)");
        return;
    }
    const std::string png = "/tmp/shardscope-cold-start-" + std::to_string(getpid()) + ".png";
    std::vector<std::string> args = {self, "--frames", "1", "--size", "1280x800", "--screenshot", png};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const auto start = Clock::now();
    pid_t child = 0;
    int status = 0;
    posix_spawn_file_actions_t quiet;  // the child's "wrote ..." line would break the table
    posix_spawn_file_actions_init(&quiet);
    posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    const bool started = posix_spawn(&child, self.c_str(), &quiet, nullptr, argv.data(), environ) == 0;
    posix_spawn_file_actions_destroy(&quiet);
    if (!started || waitpid(child, &status, 0) < 0) {
        row("cold start to first frame", "failed", "could not start " + std::string(self));
        return;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::remove(png.c_str());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        row("cold start to first frame", "failed", "the app exited with status " + std::to_string(WEXITSTATUS(status)));
        return;
    }
    row("cold start to first frame", format_seconds(seconds),
        "process start to exit: window, fonts, first frame, 1280x800 PNG written");
}

// CPU seconds (user + system) a process has used so far, from /proc/PID/stat; negative when unreadable.
double process_cpu_seconds(pid_t pid) {
    std::FILE* f = std::fopen(("/proc/" + std::to_string(static_cast<long>(pid)) + "/stat").c_str(), "r");
    if (!f) return -1;
    char buf[2048];
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    // Fields after the command name, which ends with the last ')': state is field 3, utime 14, stime 15.
    const char* p = std::strrchr(buf, ')');
    if (!p) return -1;
    unsigned long utime = 0, stime = 0;
    if (std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2) return -1;
    return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// The real window left alone: what it costs a core once it has settled (no input, nothing moving).
void bench_idle_window(const std::string& what, const std::vector<std::string>& extra) {
    const std::string label = "idle window, " + what;
    if (std::getenv("DISPLAY") == nullptr && std::getenv("WAYLAND_DISPLAY") == nullptr) {
        row(label, "skipped", "no display: run `xvfb-run -a shardscope bench`");
        return;
    }
    const std::string self = shardscope::host::executable_path();
    const std::string config = "/tmp/shardscope-idle-" + std::to_string(getpid());
    std::vector<std::string> args = {self, "--size", "1600x1000"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // Its own config folder: no welcome answered before, no saved layout, nothing of the user's.
    std::vector<std::string> env_text = {"XDG_CONFIG_HOME=" + config};
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, "XDG_CONFIG_HOME=", 16) != 0) env_text.emplace_back(*e);
    std::vector<char*> env;
    for (std::string& e : env_text) env.push_back(e.data());
    env.push_back(nullptr);
    pid_t child = 0;
    posix_spawn_file_actions_t quiet;
    posix_spawn_file_actions_init(&quiet);
    posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&quiet, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    const bool started = posix_spawn(&child, self.c_str(), &quiet, nullptr, argv.data(), env.data()) == 0;
    posix_spawn_file_actions_destroy(&quiet);
    if (!started) {
        row(label, "failed", "could not start " + self);
        return;
    }
    // Past the start and a lesson outline's three pulses (4.7 s), then 10 s left alone.
    std::this_thread::sleep_for(std::chrono::seconds(6));
    const double before = process_cpu_seconds(child);
    std::this_thread::sleep_for(std::chrono::seconds(10));
    const double after = process_cpu_seconds(child);
    kill(child, SIGTERM);
    int status = 0;
    waitpid(child, &status, 0);
    if (before < 0 || after < 0) {
        row(label, "failed", "could not read the window's CPU time (/proc)");
        return;
    }
    row(label, format_seconds(after - before) + " CPU / 10 s", "user + system time of the window process, after a 6 s settle");
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
    std::string frames_text = "120";
    bool skip_planner = false;
    CLI::App parser;
    shardscope::app::configure_parser(parser);
    parser.add_option("--frames", frames_text);
    parser.add_flag("--skip-planner", skip_planner);
    if (const auto exit = shardscope::app::parse_arguments(parser, args, "bench", kUsage)) return *exit;
    char* end = nullptr;
    const long n = std::strtol(frames_text.c_str(), &end, 10);
    if (*end != '\0' || n < 1 || n > 100000) {
        std::cerr << "bench: --frames must be a whole number from 1 to 100000, got '" << frames_text << "'\n";
        return 2;
    }
    const int frames = static_cast<int>(n);
    const bool planner = !skip_planner;
    std::printf("%-70s %12s   %s\n", "what", "figure", "detail");
    if (planner) bench_planner();
    bench_panels(frames);
    bench_frames(frames);
    bench_cold_start();
    bench_idle_window("default view", {});
    bench_idle_window("a lesson step", {"--lesson", "pipeline-parallel", "--step", "3"});
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(bench, "print benchmark figures: planner, panels, frame time, cold start", &run_bench);
