// pipeline_bench: the Pipeline timeline panel's frame time at 64 stages x 1,024 micro-batches, headless
// (ImGui without GL: building draw records and filling the draw list, which is the panel's CPU cost).
// The simulation runs once per change of the controls and is timed apart (wall time). Frame times are
// the thread's CPU time. Build Release to quote.
//
//   pipeline_bench [frames]     (default 120)

#include "bench/panel_timings.hpp"

#include <cstdio>
#include <cstdlib>

using namespace shardscope;
using bench::time_timeline_frames;

namespace {

void print(const char* what, const bench::FrameStats& s, const ui::PipelinePanel& panel) {
    std::printf("%-46s median %7.3f ms  worst %7.3f ms  %6zu ops in view  %6zu blocks  %7d vertices\n", what,
                s.median_ms, s.worst_ms, panel.records().events_visited, panel.records().blocks.size(), s.vertices);
}

}  // namespace

int main(int argc, char** argv) {
    const int frames = argc > 1 ? std::max(1, std::atoi(argv[1])) : 120;
    bench::HeadlessImGui context;
    ui::AppState state;
    ui::PipelinePanel panel(ui::Placement{}, true);
    panel.act(state, "stages", "64");
    panel.act(state, "microbatches", "1024");
    const double sim_1f1b = panel.last_simulation_seconds() * 1e3;
    std::printf("pipeline_bench: 64 stages x 1,024 micro-batches, 1600 x 1000, %d frames per case\n", frames);
    std::printf("simulation (once per change of the controls): 1F1B %.1f ms, %zu events\n", sim_1f1b,
                panel.timeline(0).event_count());

    bench::timeline_frame(panel, state);  // first frame: layout and fonts settle
    print("1F1B, whole step (records cached)", time_timeline_frames(panel, state, frames, {}), panel);

    // The records are cached while nothing changes; nudging the window rebuilds them every frame.
    const double full = panel.time_window().span();
    print("1F1B, whole step, records rebuilt per frame", time_timeline_frames(panel, state, frames, [&](int i) {
              panel.set_time_window(ui::TimeWindow{0, full * (1.0 - 0.001 * (i % 2))});
          }),
          panel);

    panel.set_time_window(ui::TimeWindow{0.4 * panel.timeline(0).makespan, 0.42 * panel.timeline(0).makespan});
    print("1F1B, zoomed to 2% of the step", time_timeline_frames(panel, state, frames, {}), panel);

    panel.fit_time_window();
    panel.act(state, "compare", "zb-h1");
    std::printf("simulation: ZB-H1 %.1f ms, %zu events\n", panel.last_simulation_seconds() * 1e3,
                panel.timeline(1).event_count());
    bench::timeline_frame(panel, state);
    print("1F1B vs ZB-H1 stacked, whole step (cached)", time_timeline_frames(panel, state, frames, {}), panel);

    // Panning every frame: the records are rebuilt for a new window each time.
    const double makespan = panel.timeline(0).makespan;
    print("1F1B vs ZB-H1, panning a 10% window", time_timeline_frames(panel, state, frames, [&](int i) {
              const double t0 = makespan * 0.9 * static_cast<double>(i % 60) / 60.0;
              panel.set_time_window(ui::TimeWindow{t0, t0 + makespan * 0.1});
          }),
          panel);

    panel.act(state, "arrows", "on");
    panel.set_time_window(ui::TimeWindow{0.5 * makespan, 0.505 * makespan});
    print("1F1B vs ZB-H1, arrows on, zoomed to 0.5%", time_timeline_frames(panel, state, frames, {}), panel);

    // Interleaved rows (v = 2: 128 rows, 262,144 ops) take the plain path, no pixel-column skipping.
    panel.act(state, "compare", "none");
    panel.act(state, "arrows", "off");
    panel.act(state, "virtual", "2");
    std::printf("simulation: interleaved 1F1B v = 2 %.1f ms, %zu events\n", panel.last_simulation_seconds() * 1e3,
                panel.timeline(0).event_count());
    bench::timeline_frame(panel, state);
    const double full_interleaved = panel.time_window().span();
    print("interleaved v=2, whole step, rebuilt per frame", time_timeline_frames(panel, state, frames, [&](int i) {
              panel.set_time_window(ui::TimeWindow{0, full_interleaved * (1.0 - 0.001 * (i % 2))});
          }),
          panel);

    return 0;
}
