#pragma once
// Our small plotting module (Debian has no ImPlot): axes with ticks and units, lines, stacked bars,
// reference lines, a legend and a hover read-out, all drawn with the window's ImDrawList. Every panel
// that plots uses this; the figures come from core, the module only maps them to pixels.

#include <imgui.h>

#include <functional>
#include <string>
#include <vector>

namespace shardscope::ui::plot {

enum class Scale { linear, log10 };

using Formatter = std::function<std::string(double)>;

struct Axis {
    Axis() = default;
    Axis(std::string label_, double min_, double max_, Scale scale_ = Scale::linear, Formatter format_ = {})
        : label(std::move(label_)), min(min_), max(max_), scale(scale_), format(std::move(format_)) {}
    std::string label;
    double min = 0, max = 1;
    Scale scale = Scale::linear;
    Formatter format;  // tick labels; plain numbers when empty
    double unit = 1;   // ticks fall on nice multiples of this (2^30 for a GiB axis: 40 GiB, not 46.6)
};

struct Series {
    Series() = default;
    Series(std::string name_, ImU32 colour_, std::vector<double> x_, std::vector<double> y_, bool markers_ = false,
           bool dashed_ = false)
        : name(std::move(name_)), colour(colour_), x(std::move(x_)), y(std::move(y_)), markers(markers_), dashed(dashed_) {}
    std::string name;
    ImU32 colour = IM_COL32(90, 170, 255, 255);
    std::vector<double> x, y;
    bool markers = false;
    bool dashed = false;
};

struct Segment {
    std::string name;   // e.g. "weights"
    double value = 0;
    ImU32 colour = 0;
};

struct BarStack {
    std::string label;  // category under the bar
    std::vector<Segment> segments;
    bool highlight = false;  // drawn with a red outline (e.g. does not fit)
    // Drawn instead when `label` is wider than the bar's slot (the hover still names it in full);
    // empty: `label`, clipped to the slot.
    std::string short_label{};
};

struct LegendEntry {
    std::string name;
    ImU32 colour;
};

// "Nice" tick positions (1, 2, 5 x 10^k) covering [min, max] with at most max_ticks ticks; on a log
// axis, the powers of ten inside the range.
[[nodiscard]] std::vector<double> nice_ticks(double min, double max, int max_ticks, Scale scale = Scale::linear);
// nice_ticks of an axis counted in its unit, returned in the axis's own values.
[[nodiscard]] std::vector<double> axis_ticks(const Axis& a, int max_ticks);

// A chart occupying `size` (negative width = fill) at the cursor. Draw series between begin and end.
class Chart {
public:
    Chart(const char* id, ImVec2 size, Axis x, Axis y);
    void line(const Series& s);
    void stacked_bars(const std::vector<BarStack>& bars);  // x is the bar index: Axis x from -0.5 to n-0.5
    void horizontal_line(double y, ImU32 colour, const std::string& label);
    void vertical_line(double x, ImU32 colour, const std::string& label);
    // `id` (when not -1) names the point for clicked_id().
    void point(double x, double y, ImU32 colour, float radius, const std::string& hover_text, int id = -1);
    // Ends the chart: draws the hover read-out of the nearest item under the mouse.
    void end();

    [[nodiscard]] ImVec2 to_screen(double x, double y) const;
    // Every text the chart drew (tick and axis labels, lines' labels) and where, for tests to check
    // that none overlaps another.
    struct DrawnLabel {
        std::string text;
        ImVec2 min, max;
    };
    [[nodiscard]] const std::vector<DrawnLabel>& labels() const noexcept { return labels_; }
    [[nodiscard]] bool hovered() const noexcept { return hovered_; }
    // After the points are drawn: the id of the point under the mouse when the chart was clicked this
    // frame, else -1.
    [[nodiscard]] int clicked_id() const noexcept { return clicked_ ? hover_id_ : -1; }

private:
    [[nodiscard]] float map(const Axis& a, double v, float lo, float hi) const;
    void draw_axes();
    void offer_hover(ImVec2 at, const std::string& text, int id = -1);
    void put_text(ImVec2 at, ImU32 colour, const std::string& text);

    Axis x_, y_;
    ImVec2 frame_min_, frame_max_;  // whole widget
    ImVec2 min_, max_;              // plotting area inside the axes
    ImDrawList* draw_ = nullptr;
    bool hovered_ = false;
    bool clicked_ = false;
    int hover_id_ = -1;
    float best_hover_distance_ = 1e9f;
    std::string hover_text_;
    float y_label_right_ = 0;  // where the y axis's label ends
    std::vector<DrawnLabel> labels_;
};

void legend(const std::vector<LegendEntry>& entries);

// Distinct, colour-blind-friendly colours for groups / ranks / micro-batches (cycles past 12).
[[nodiscard]] ImU32 categorical_colour(int index, float alpha = 1.0f);

}  // namespace shardscope::ui::plot
