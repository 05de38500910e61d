#pragma once
// The pipeline timeline in two passes, as Tracy draws its zones:
//   1. build_timeline_records: simulated events -> small draw records for the visible time window
//      (no ImGui calls; the tests read these). Each row is binary-searched to the window, and runs of
//      events narrower than a pixel collapse into one block, so 64 stages x 1,024 micro-batches give
//      a few thousand records whatever the zoom.
//   2. paint_timeline: records -> the window's ImDrawList.
// Several simulated schedules ("lanes") stack on one shared time axis for comparison.

#include "core/pipeline/pipeline.hpp"

#include <imgui.h>

#include <cstddef>
#include <string>
#include <vector>

namespace shardscope::ui {

// The slice of time on screen, in seconds.
struct TimeWindow {
    double t0 = 0, t1 = 1;
    [[nodiscard]] double span() const noexcept { return t1 - t0; }
};

// One simulated schedule on the shared axis. Both pointers must outlive the records.
struct TimelineLane {
    std::string title;
    const PipelineSpec* spec = nullptr;
    const PipelineTimeline* timeline = nullptr;
};

// Where the records go on screen.
struct TimelineGeometry {
    float x0 = 0, x1 = 1000;  // screen x of window.t0 and window.t1
    float label_x0 = 0;       // left edge of the row-label gutter (lane titles start here too)
    float y0 = 0;             // top of the first lane's title strip
    float row_height = 20;
    float row_gap = 2;
    float lane_header = 22;   // title strip above each lane's rows
    float lane_gap = 12;
    float char_width = 7;     // digit width of the smallest label font: labels only go in blocks that hold them
    bool arrows = false;      // send/recv arrows between rows
    std::size_t max_arrows = 3000;  // beyond this many the view is too dense to read them: none drawn
};

struct TimelineLaneRect {
    int lane = 0;
    float header_y0 = 0;      // title strip
    float y0 = 0, y1 = 0;     // its rows
    float busy_x1 = 0;        // screen x of the lane's makespan (clamped to the plot): idle is hatched up to it
    // Interleaved lanes: a stage's chunk rows share one device, so idle time is the stage's own gaps
    // (TimelineRecords::idle) rather than everything a row's blocks leave uncovered.
    bool idle_from_records = false;
};

// A stretch of time when a device runs nothing, across all of its chunk rows.
struct TimelineIdle {
    int lane = 0, stage = 0;
    float x0 = 0, x1 = 0, y0 = 0, y1 = 0;
};

struct TimelineRow {
    int lane = 0, stage = 0, chunk = 0;
    float y0 = 0, y1 = 0;
    std::string label;        // "S3", or "S3 c1" for a virtual chunk
};

struct TimelineBlock {
    int lane = 0, row = 0, stage = 0, chunk = 0, microbatch = 0;
    OpKind kind = OpKind::forward;
    float x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    std::size_t event = 0;    // index in timeline.events[stage] of the (first) event drawn
    int merged = 1;           // events drawn as this block: > 1 when they were too narrow to tell apart
    std::string label;        // "F3", "B3", "W3" when it fits, else empty
};

// A send (producer end) -> recv (input ready) pair between two rows.
struct TimelineArrow {
    int lane = 0;
    ImVec2 from, to;
};

struct TimelineRecords {
    TimeWindow window;
    float height = 0;         // pixels from geometry.y0 to the bottom of the last lane
    std::vector<TimelineLaneRect> lanes;
    std::vector<TimelineRow> rows;
    std::vector<TimelineBlock> blocks;
    std::vector<TimelineArrow> arrows;
    std::vector<TimelineIdle> idle;  // interleaved lanes only
    bool arrows_capped = false;      // arrows were asked for but the window holds too many
    std::size_t events_visited = 0;  // events inside the window (what culling saved shows here)
};

// Rows one stage takes: v for interleaved 1F1B, else 1 (DualPipe's two directions share a row).
[[nodiscard]] int rows_per_stage(const PipelineSpec& spec) noexcept;
// Rows over all lanes (a lane whose timeline failed takes none).
[[nodiscard]] int total_rows(const std::vector<TimelineLane>& lanes) noexcept;
// Pixels the lanes take at a given row height.
[[nodiscard]] float timeline_height(const std::vector<TimelineLane>& lanes, const TimelineGeometry& g) noexcept;

[[nodiscard]] TimelineRecords build_timeline_records(const std::vector<TimelineLane>& lanes, TimeWindow window,
                                                     const TimelineGeometry& g);

// The block under a screen point, or nullptr.
[[nodiscard]] const TimelineBlock* block_at(const TimelineRecords& records, ImVec2 point) noexcept;

// Hover text: stage, chunk, micro-batch, kind, start, end, and what the op waited for (its input's
// producer and arrival, or the stage being busy).
[[nodiscard]] std::string describe_event(const PipelineSpec& spec, const PipelineEvent& e);

// Long name of an op kind: "forward", "backward (inputs)", "backward (weights)", "backward".
[[nodiscard]] const char* op_kind_name(OpKind k) noexcept;

// Fill colour of a block: hue by micro-batch, shade by kind (F full, B dark, W light).
[[nodiscard]] ImU32 block_colour(int microbatch, OpKind kind) noexcept;
[[nodiscard]] ImU32 merged_block_colour() noexcept;

// Paints records: lane strips with titles, hatched idle time up to each makespan, blocks and labels,
// arrows, row labels in the gutter left of geometry.x0, and the time axis under the last lane.
// `hovered` (may be null) is outlined along with the other ops of its micro-batch.
void paint_timeline(ImDrawList* draw, const TimelineRecords& records, const std::vector<TimelineLane>& lanes,
                    const TimelineGeometry& g, const TimelineBlock* hovered);

}  // namespace shardscope::ui
