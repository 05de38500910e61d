#include "widgets/pipeline/pipeline_canvas.hpp"

#include "core/scenario/units.hpp"
#include "widgets/kit/plot.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace shardscope::ui {

namespace {

// Events narrower than this many pixels may merge with their narrow neighbours into one block.
constexpr float kMergePx = 2.0f;
// Narrow events closer than this (in pixels) count as one busy run: a bubble of under a pixel is
// invisible anyway.
constexpr float kMergeGapPx = 1.0f;

char kind_letter(OpKind k) noexcept {
    switch (k) {
        case OpKind::forward: return 'F';
        case OpKind::backward_input: return 'B';
        case OpKind::backward_weight: return 'W';
        case OpKind::backward: return 'B';
    }
    return '?';
}

bool timeline_ok(const TimelineLane& lane) noexcept {
    return lane.spec && lane.timeline && lane.timeline->ok() && lane.timeline->stages > 0;
}

bool is_interleaved(const PipelineSpec& spec) noexcept {
    return spec.schedule == Schedule::interleaved_1f1b && spec.virtual_stages > 1;
}

// The row (within its lane) an event of (stage, chunk) sits on.
int row_of(const PipelineSpec& spec, int stage, int chunk) noexcept {
    return is_interleaved(spec) ? stage * spec.virtual_stages + chunk : stage;
}

// The chunk whose output an op consumed from `from_stage`: interleaved chunks walk the path position
// k = chunk * p + stage, forward from k - 1, backward from k + 1.
int producer_chunk(const PipelineSpec& spec, const PipelineEvent& e) noexcept {
    if (!is_interleaved(spec)) return 0;
    const int k = e.chunk * spec.stages + e.stage;
    const int producer = e.kind == OpKind::forward ? k - 1 : k + 1;
    return std::clamp(producer / spec.stages, 0, spec.virtual_stages - 1);
}

struct Mapper {
    TimeWindow w;
    float x0, x1;
    [[nodiscard]] float x(double t) const noexcept {
        return x0 + static_cast<float>((t - w.t0) / w.span()) * (x1 - x0);
    }
    [[nodiscard]] double t(float x) const noexcept {
        return w.t0 + static_cast<double>((x - x0) / (x1 - x0)) * w.span();
    }
};

// Per row: the block a following narrow event may extend.
struct OpenRun {
    int block = -1;
    bool narrow = false;
};

// "F12" when it fits the block, else "12" (the shade still tells the kind), else nothing.
std::string fitting_label(OpKind kind, int microbatch, float width, const TimelineGeometry& g) {
    if (g.row_height < 10.0f) return {};
    std::string number = std::to_string(microbatch);
    const auto fits = [&](const std::string& text) {
        return static_cast<float>(text.size()) * g.char_width + 2.0f <= width;
    };
    std::string full = kind_letter(kind) + number;
    if (fits(full)) return full;
    if (fits(number)) return number;
    return {};
}

void add_rows(const TimelineLane& lane, int lane_index, float y0, const TimelineGeometry& g,
              std::vector<TimelineRow>& rows) {
    const PipelineSpec& spec = *lane.spec;
    const int per_stage = rows_per_stage(spec);
    const float pitch = g.row_height + g.row_gap;
    for (int stage = 0; stage < lane.timeline->stages; ++stage)
        for (int chunk = 0; chunk < per_stage; ++chunk) {
            TimelineRow r;
            r.lane = lane_index;
            r.stage = stage;
            r.chunk = chunk;
            r.y0 = y0 + static_cast<float>(row_of(spec, stage, chunk)) * pitch;
            r.y1 = r.y0 + g.row_height;
            r.label = "S" + std::to_string(stage) + (per_stage > 1 ? " c" + std::to_string(chunk) : "");
            rows.push_back(std::move(r));
        }
}

// Blocks (and arrows) of one lane's events inside the window.
void add_blocks(const TimelineLane& lane, int lane_index, std::size_t first_row, const Mapper& map,
                const TimelineGeometry& g, TimelineRecords& out) {
    const PipelineSpec& spec = *lane.spec;
    const PipelineTimeline& t = *lane.timeline;
    const int per_stage = rows_per_stage(spec);
    std::vector<OpenRun> open(static_cast<std::size_t>(per_stage));
    for (int stage = 0; stage < t.stages; ++stage) {
        const auto& row_events = t.events[static_cast<std::size_t>(stage)];
        std::fill(open.begin(), open.end(), OpenRun{});
        // A stage runs one op at a time, so ends are sorted as starts are: binary search the first op
        // that ends inside the window.
        auto it = std::lower_bound(row_events.begin(), row_events.end(), out.window.t0,
                                   [](const PipelineEvent& e, double t0) { return e.end < t0; });
        double idle_from = it == row_events.begin() ? 0.0 : std::prev(it)->end;
        const auto add_idle = [&](double from, double to) {
            if (per_stage == 1 || map.x(to) - map.x(from) < kMergeGapPx) return;
            const std::size_t top = first_row + static_cast<std::size_t>(row_of(spec, stage, 0));
            out.idle.push_back(TimelineIdle{lane_index, stage, std::max(map.x(from), map.x0), std::min(map.x(to), map.x1),
                                            out.rows[top].y0, out.rows[top + static_cast<std::size_t>(per_stage) - 1].y1});
        };
        for (; it != row_events.end() && it->start <= out.window.t1; ++it) {
            const PipelineEvent& e = *it;
            add_idle(idle_from, e.start);
            idle_from = e.end;
            ++out.events_visited;
            const int chunk = per_stage > 1 ? e.chunk : 0;
            const std::size_t row = first_row + static_cast<std::size_t>(row_of(spec, stage, chunk));
            const TimelineRow& r = out.rows[row];
            const float x0 = map.x(e.start), x1 = map.x(e.end);
            const bool narrow = x1 - x0 < kMergePx;
            OpenRun& run = open[static_cast<std::size_t>(chunk)];
            if (narrow && run.block >= 0 && run.narrow &&
                x0 - out.blocks[static_cast<std::size_t>(run.block)].x1 < kMergeGapPx) {
                TimelineBlock& b = out.blocks[static_cast<std::size_t>(run.block)];
                b.x1 = std::max(b.x1, x1);
                ++b.merged;
                if (per_stage == 1) {
                    // Level of detail: every following op that ends inside this pixel column is narrow
                    // and touches the run, so it merges too: one comparison each, no mapping or record.
                    // (Interleaved rows share one event list per stage: they take the plain path.)
                    const double column_end = map.t(std::floor(b.x1) + 1.0f);
                    auto jump = std::next(it);
                    while (jump != row_events.end() && jump->end < column_end) ++jump;
                    const auto skipped = std::distance(std::next(it), jump);
                    if (skipped > 0) {
                        b.merged += static_cast<int>(skipped);
                        out.events_visited += static_cast<std::size_t>(skipped);
                        b.x1 = std::max(b.x1, map.x(std::prev(jump)->end));
                        if (g.arrows) out.arrows_capped = true;  // ops under a pixel: far too dense for arrows
                        it = std::prev(jump);
                        idle_from = it->end;
                    }
                }
            } else {
                TimelineBlock b;
                b.lane = lane_index;
                b.row = static_cast<int>(row);
                b.stage = stage;
                b.chunk = e.chunk;
                b.microbatch = e.microbatch;
                b.kind = e.kind;
                b.x0 = x0;
                b.x1 = x1;
                b.y0 = r.y0;
                b.y1 = r.y1;
                b.event = static_cast<std::size_t>(it - row_events.begin());
                b.label = fitting_label(e.kind, e.microbatch, x1 - x0, g);
                run.block = static_cast<int>(out.blocks.size());
                out.blocks.push_back(std::move(b));
            }
            run.narrow = narrow;
            if (g.arrows && e.from_stage >= 0 && e.from_stage != stage && !out.arrows_capped && !narrow) {
                const TimelineRow& from_row =
                    out.rows[first_row + static_cast<std::size_t>(row_of(spec, e.from_stage, producer_chunk(spec, e)))];
                // From the producer's end (mid-row) to where the consumer could start: the slant is
                // the p2p time, and an arrow that lands before its block starts shows a busy stage.
                TimelineArrow a;
                a.lane = lane_index;
                a.from = ImVec2(map.x(e.input_ready - spec.p2p_time), (from_row.y0 + from_row.y1) * 0.5f);
                a.to = ImVec2(map.x(e.input_ready), (r.y0 + r.y1) * 0.5f);
                out.arrows.push_back(a);
                if (out.arrows.size() > g.max_arrows) {
                    out.arrows.clear();
                    out.arrows_capped = true;
                }
            }
        }
        add_idle(idle_from, it != row_events.end() ? it->start : t.makespan);
    }
}

}  // namespace

int rows_per_stage(const PipelineSpec& spec) noexcept { return is_interleaved(spec) ? spec.virtual_stages : 1; }

int total_rows(const std::vector<TimelineLane>& lanes) noexcept {
    int rows = 0;
    for (const TimelineLane& lane : lanes)
        if (timeline_ok(lane)) rows += lane.timeline->stages * rows_per_stage(*lane.spec);
    return rows;
}

float timeline_height(const std::vector<TimelineLane>& lanes, const TimelineGeometry& g) noexcept {
    if (lanes.empty()) return 0;
    const float lanes_n = static_cast<float>(lanes.size());
    return lanes_n * g.lane_header + (lanes_n - 1) * g.lane_gap +
           static_cast<float>(total_rows(lanes)) * (g.row_height + g.row_gap);
}

TimelineRecords build_timeline_records(const std::vector<TimelineLane>& lanes, TimeWindow window,
                                       const TimelineGeometry& g) {
    TimelineRecords out;
    if (!(window.span() > 0)) window.t1 = window.t0 + 1e-12;
    out.window = window;
    const Mapper map{window, g.x0, g.x1};
    float y = g.y0;
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        const TimelineLane& lane = lanes[i];
        const int lane_index = static_cast<int>(i);
        TimelineLaneRect rect;
        rect.lane = lane_index;
        rect.header_y0 = y;
        rect.y0 = y + g.lane_header;
        rect.y1 = rect.y0;
        rect.busy_x1 = g.x0;
        if (timeline_ok(lane)) {
            const std::size_t first_row = out.rows.size();
            add_rows(lane, lane_index, rect.y0, g, out.rows);
            rect.y1 = rect.y0 + static_cast<float>(out.rows.size() - first_row) * (g.row_height + g.row_gap);
            rect.busy_x1 = std::clamp(map.x(lane.timeline->makespan), g.x0, g.x1);
            rect.idle_from_records = rows_per_stage(*lane.spec) > 1;
            add_blocks(lane, lane_index, first_row, map, g, out);
        }
        out.lanes.push_back(rect);
        y = rect.y1 + g.lane_gap;
    }
    if (out.arrows_capped) out.arrows.clear();
    out.height = lanes.empty() ? 0 : y - g.lane_gap - g.y0;
    return out;
}

const TimelineBlock* block_at(const TimelineRecords& records, ImVec2 p) noexcept {
    for (const TimelineBlock& b : records.blocks) {
        // Thin blocks get a pixel of slack either side so they can still be hovered.
        const float slack = b.x1 - b.x0 < 3.0f ? 1.0f : 0.0f;
        if (p.x >= b.x0 - slack && p.x <= b.x1 + slack && p.y >= b.y0 && p.y <= b.y1) return &b;
    }
    return nullptr;
}

const char* op_kind_name(OpKind k) noexcept {
    switch (k) {
        case OpKind::forward: return "forward (F)";
        case OpKind::backward_input: return "backward for inputs (B)";
        case OpKind::backward_weight: return "backward for weights (W)";
        case OpKind::backward: return "full backward (B+W)";
    }
    return "";
}

std::string describe_event(const PipelineSpec& spec, const PipelineEvent& e) {
    std::string s = "Stage " + std::to_string(e.stage);
    if (is_interleaved(spec)) s += ", chunk " + std::to_string(e.chunk);
    if (spec.schedule == Schedule::dualpipe) s += e.chunk == 0 ? ", direction 0 (forward path 0 -> p-1)"
                                                               : ", direction 1 (forward path p-1 -> 0)";
    s += "\nMicro-batch " + std::to_string(e.microbatch) + ", " + op_kind_name(e.kind);
    s += "\nStart " + format_seconds(e.start) + ", end " + format_seconds(e.end) + " (" +
         format_seconds(e.end - e.start) + ")";
    // What it waited for: its input (from a neighbour or its own earlier op), or the stage itself.
    std::string input;
    if (e.from_stage >= 0) {
        const char* what = e.kind == OpKind::forward ? "activation" : "gradient";
        input = std::string(what) + " from stage " + std::to_string(e.from_stage) + ", arrived " +
                format_seconds(e.input_ready);
    } else if (e.kind == OpKind::backward_weight) {
        input = "its own B on this stage, done " + format_seconds(e.input_ready);
    } else if (e.kind == OpKind::forward) {
        input = "nothing: it reads the batch";
    } else {
        input = "its own forward (the loss is computed here), done " + format_seconds(e.input_ready);
    }
    s += "\nInput: " + input;
    const double waited_for_stage = e.start - e.input_ready;
    if (waited_for_stage > 1e-12 * std::max(1.0, e.end))
        s += "\nThen waited " + format_seconds(waited_for_stage) + " for the stage to finish its previous op";
    return s;
}

ImU32 block_colour(int microbatch, OpKind kind) noexcept {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(plot::categorical_colour(microbatch));
    switch (kind) {
        case OpKind::forward: return ImGui::ColorConvertFloat4ToU32(c);
        case OpKind::backward_input:
        case OpKind::backward:
            return ImGui::ColorConvertFloat4ToU32(ImVec4(c.x * 0.62f, c.y * 0.62f, c.z * 0.62f, 1.0f));
        case OpKind::backward_weight: {
            // Towards white: the same hue, clearly a third kind of op.
            const float k = 0.5f;
            return ImGui::ColorConvertFloat4ToU32(
                ImVec4(c.x + (1 - c.x) * k, c.y + (1 - c.y) * k, c.z + (1 - c.z) * k, 1.0f));
        }
    }
    return 0;
}

ImU32 merged_block_colour() noexcept { return IM_COL32(132, 146, 166, 255); }

namespace {

constexpr ImU32 kBubbleFill = IM_COL32(150, 60, 60, 45);
constexpr ImU32 kBubbleHatch = IM_COL32(215, 95, 95, 110);
constexpr ImU32 kArrow = IM_COL32(255, 240, 200, 235);
constexpr float kHatchSpacing = 7.0f;
constexpr float kSmallLabelScale = 0.8f;

int max_time_ticks(const TimelineGeometry& g) noexcept { return std::max(2, static_cast<int>((g.x1 - g.x0) / 110.0f)); }

// Diagonal hatching over a rectangle: what idle time looks like.
void hatch(ImDrawList* draw, ImVec2 a, ImVec2 b) {
    if (b.x <= a.x || b.y <= a.y) return;
    draw->AddRectFilled(a, b, kBubbleFill);
    draw->PushClipRect(a, b, true);
    const float h = b.y - a.y;
    // Anchor lines to absolute x so they do not crawl while the view pans vertically.
    const float start = std::floor((a.x - h) / kHatchSpacing) * kHatchSpacing;
    for (float x = start; x < b.x; x += kHatchSpacing) draw->AddLine(ImVec2(x, b.y), ImVec2(x + h, a.y), kBubbleHatch);
    draw->PopClipRect();
}

ImU32 label_colour(OpKind kind) noexcept {
    return kind == OpKind::backward_weight || kind == OpKind::forward ? IM_COL32(20, 20, 24, 255)
                                                                      : IM_COL32(250, 250, 250, 255);
}

void paint_arrow(ImDrawList* draw, ImVec2 from, ImVec2 to) {
    // A dark halo under the line keeps it readable over any block colour.
    draw->AddLine(from, to, IM_COL32(0, 0, 0, 160), 3.0f);
    draw->AddLine(from, to, kArrow, 1.3f);
    const float dx = to.x - from.x, dy = to.y - from.y;
    const float len = std::sqrt(dx * dx + dy * dy);
    if (len < 4.0f) return;
    const float ux = dx / len, uy = dy / len, head = 6.0f;
    draw->AddTriangleFilled(to, ImVec2(to.x - ux * head - uy * head * 0.6f, to.y - uy * head + ux * head * 0.6f),
                            ImVec2(to.x - ux * head + uy * head * 0.6f, to.y - uy * head - ux * head * 0.6f), kArrow);
}

// Vertical grid lines at the time ticks, under the blocks.
void paint_grid(ImDrawList* draw, const TimelineRecords& r, const TimelineGeometry& g, float top, float bottom) {
    const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border, 0.45f);
    const Mapper map{r.window, g.x0, g.x1};
    for (double t : plot::nice_ticks(r.window.t0, r.window.t1, max_time_ticks(g)))
        draw->AddLine(ImVec2(map.x(t), top), ImVec2(map.x(t), bottom), grid);
}

void paint_time_axis(ImDrawList* draw, const TimelineRecords& r, const TimelineGeometry& g, float bottom) {
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const Mapper map{r.window, g.x0, g.x1};
    for (double t : plot::nice_ticks(r.window.t0, r.window.t1, max_time_ticks(g))) {
        const float x = map.x(t);
        draw->AddLine(ImVec2(x, bottom), ImVec2(x, bottom + 4.0f), text);
        const std::string label = format_seconds(t);
        const ImVec2 sz = ImGui::CalcTextSize(label.c_str());
        const float lx = std::clamp(x - sz.x * 0.5f, g.x0, g.x1 - sz.x);
        draw->AddText(ImVec2(lx, bottom + 4.0f), text, label.c_str());
    }
    draw->AddLine(ImVec2(g.x0, bottom), ImVec2(g.x1, bottom), ImGui::GetColorU32(ImGuiCol_Border));
}

void paint_row_labels(ImDrawList* draw, const TimelineRecords& r, const TimelineGeometry& g) {
    const float text_h = ImGui::GetTextLineHeight();
    const float pitch = g.row_height + g.row_gap;
    // With thin rows only every k-th label fits; stage boundaries are what matter most.
    const int step = std::max(1, static_cast<int>(std::ceil(text_h / pitch)));
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    int index_in_lane = 0, lane = -1;
    for (const TimelineRow& row : r.rows) {
        if (row.lane != lane) {
            lane = row.lane;
            index_in_lane = 0;
        }
        if (index_in_lane++ % step != 0) continue;
        const ImVec2 sz = ImGui::CalcTextSize(row.label.c_str());
        const float y = std::max(row.y0, (row.y0 + row.y1 - sz.y) * 0.5f - (step > 1 ? 0.0f : 0.0f));
        draw->AddText(ImVec2(g.x0 - sz.x - 6.0f, y), text, row.label.c_str());
    }
}

void paint_blocks(ImDrawList* draw, const TimelineRecords& r, const TimelineGeometry& g) {
    const ImU32 edge = IM_COL32(0, 0, 0, 110);
    for (const TimelineBlock& b : r.blocks) {
        // At least a pixel wide so a lone thin op stays visible.
        const float x1 = std::max(b.x1, b.x0 + 1.0f);
        const ImU32 fill = b.merged > 1 ? merged_block_colour() : block_colour(b.microbatch, b.kind);
        draw->AddRectFilled(ImVec2(b.x0, b.y0), ImVec2(x1, b.y1), fill);
        if (x1 - b.x0 >= 8.0f && g.row_height >= 6.0f) draw->AddRect(ImVec2(b.x0, b.y0), ImVec2(x1, b.y1), edge);
        if (b.label.empty()) continue;
        // The UI font when it fits, else a size smaller (records only keep labels that fit that).
        ImFont* font = ImGui::GetFont();
        float size = ImGui::GetFontSize();
        ImVec2 sz = font->CalcTextSizeA(size, FLT_MAX, 0.0f, b.label.c_str());
        if (sz.x + 2.0f > x1 - b.x0) {
            size *= kSmallLabelScale;
            sz = font->CalcTextSizeA(size, FLT_MAX, 0.0f, b.label.c_str());
        }
        if (sz.x + 1.0f > x1 - b.x0 || sz.y > b.y1 - b.y0 + 2.0f) continue;
        const float cx = (b.x0 + x1) * 0.5f, cy = (b.y0 + b.y1) * 0.5f;
        const bool number_only = b.label.front() >= '0' && b.label.front() <= '9';
        if (number_only && b.y1 - b.y0 >= 2.0f * sz.y) {
            // A narrow block in a tall row: the kind letter above the micro-batch number.
            const char letter[2] = {kind_letter(b.kind), '\0'};
            const ImVec2 lsz = font->CalcTextSizeA(size, FLT_MAX, 0.0f, letter);
            draw->AddText(font, size, ImVec2(cx - lsz.x * 0.5f, cy - lsz.y), label_colour(b.kind), letter);
            draw->AddText(font, size, ImVec2(cx - sz.x * 0.5f, cy), label_colour(b.kind), b.label.c_str());
            continue;
        }
        draw->AddText(font, size, ImVec2(cx - sz.x * 0.5f, cy - sz.y * 0.5f), label_colour(b.kind), b.label.c_str());
    }
}

void paint_hover(ImDrawList* draw, const TimelineRecords& r, const TimelineBlock& hovered) {
    // The hovered op's whole micro-batch, so its path through the pipeline stands out.
    for (const TimelineBlock& b : r.blocks)
        if (b.lane == hovered.lane && b.microbatch == hovered.microbatch && b.merged == 1)
            draw->AddRect(ImVec2(b.x0, b.y0), ImVec2(std::max(b.x1, b.x0 + 1.0f), b.y1), IM_COL32(255, 255, 255, 200),
                          0.0f, 0, 1.5f);
    draw->AddRect(ImVec2(hovered.x0 - 1, hovered.y0 - 1), ImVec2(std::max(hovered.x1, hovered.x0 + 1.0f) + 1, hovered.y1 + 1),
                  IM_COL32(255, 215, 0, 255), 0.0f, 0, 2.5f);
}

}  // namespace

void paint_timeline(ImDrawList* draw, const TimelineRecords& r, const std::vector<TimelineLane>& lanes,
                    const TimelineGeometry& g, const TimelineBlock* hovered) {
    const ImU32 lane_bg = ImGui::GetColorU32(ImGuiCol_FrameBg, 0.55f);
    const ImU32 gap_bg = ImGui::GetColorU32(ImGuiCol_WindowBg);
    const float bottom = g.y0 + r.height;
    const Mapper map{r.window, g.x0, g.x1};

    draw->PushClipRect(ImVec2(g.x0, g.y0), ImVec2(g.x1, bottom + 1.0f), true);
    for (const TimelineLaneRect& lane : r.lanes) {
        if (lane.y1 <= lane.y0) continue;
        draw->AddRectFilled(ImVec2(g.x0, lane.y0), ImVec2(g.x1, lane.y1), lane_bg);
        if (!lane.idle_from_records)
            hatch(draw, ImVec2(std::max(g.x0, map.x(0.0)), lane.y0), ImVec2(lane.busy_x1, lane.y1));
    }
    for (const TimelineIdle& idle : r.idle) hatch(draw, ImVec2(idle.x0, idle.y0), ImVec2(idle.x1, idle.y1));
    // Row gaps over the hatching, so rows read as separate tracks.
    if (g.row_gap >= 1.0f)
        for (const TimelineRow& row : r.rows)
            draw->AddRectFilled(ImVec2(g.x0, row.y1), ImVec2(g.x1, row.y1 + g.row_gap), gap_bg);
    paint_grid(draw, r, g, g.y0, bottom);
    paint_blocks(draw, r, g);
    if (hovered) paint_hover(draw, r, *hovered);
    for (const TimelineArrow& a : r.arrows) paint_arrow(draw, a.from, a.to);
    // Where each lane's step ends, so two stacked schedules compare at a glance.
    for (const TimelineLaneRect& lane : r.lanes)
        if (lane.y1 > lane.y0 && lane.busy_x1 > g.x0 && lane.busy_x1 < g.x1)
            draw->AddLine(ImVec2(lane.busy_x1, lane.y0 - 3.0f), ImVec2(lane.busy_x1, lane.y1 + 3.0f),
                          IM_COL32(255, 255, 255, 170), 1.5f);
    draw->PopClipRect();

    paint_time_axis(draw, r, g, bottom);
    paint_row_labels(draw, r, g);

    // Lane titles, with the error in place of the rows when a schedule rejected its spec.
    for (std::size_t i = 0; i < r.lanes.size() && i < lanes.size(); ++i) {
        const TimelineLaneRect& rect = r.lanes[i];
        const float y = rect.header_y0 + (g.lane_header - ImGui::GetTextLineHeight()) * 0.5f;
        draw->AddText(ImVec2(g.label_x0, y), ImGui::GetColorU32(ImGuiCol_Text), lanes[i].title.c_str());
        const PipelineTimeline* t = lanes[i].timeline;
        if (t && !t->ok()) {
            const float x = g.label_x0 + ImGui::CalcTextSize(lanes[i].title.c_str()).x + 12.0f;
            draw->AddText(ImVec2(x, y), IM_COL32(255, 110, 100, 255), t->error.c_str());
        }
    }
}

}  // namespace shardscope::ui
