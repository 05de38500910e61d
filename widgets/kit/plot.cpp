#include "widgets/kit/plot.hpp"

#include "widgets/kit/flow.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shardscope::ui::plot {

namespace {

std::string plain_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

double transform(const Axis& a, double v) {
    if (a.scale == Scale::log10) return std::log10(std::max(v, 1e-300));
    return v;
}

constexpr float kHoverRadius = 12.0f;

}  // namespace

std::vector<double> axis_ticks(const Axis& a, int max_ticks) {
    const double unit = a.unit > 0 ? a.unit : 1.0;
    std::vector<double> ticks = nice_ticks(a.min / unit, a.max / unit, max_ticks, a.scale);
    for (double& t : ticks) t *= unit;
    return ticks;
}

std::vector<double> nice_ticks(double min, double max, int max_ticks, Scale scale) {
    std::vector<double> ticks;
    if (!(max > min) || max_ticks < 2) return ticks;
    if (scale == Scale::log10) {
        const int lo = static_cast<int>(std::ceil(std::log10(min) - 1e-9));
        const int hi = static_cast<int>(std::floor(std::log10(max) + 1e-9));
        const int count = hi - lo + 1;
        const int stride = std::max(1, (count + max_ticks - 1) / max_ticks);
        for (int e = lo; e <= hi; e += stride) ticks.push_back(std::pow(10.0, e));
        return ticks;
    }
    const double raw = (max - min) / (max_ticks - 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const auto ticks_with = [&](double step) {
        return std::floor(max / step + 1e-9) - std::ceil(min / step - 1e-9) + 1.0;
    };
    // The finest 1-2-5 step whose multiples inside the range are no more than allowed. The first step
    // at least `raw` can leave one tick or none when the range sits between its multiples (62..84 GiB
    // in two ticks: 50 has none inside, 10 gives 70 and 80).
    double step = 10.0 * magnitude;
    for (double m : {0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0}) {
        if (ticks_with(m * magnitude) <= max_ticks) {
            step = m * magnitude;
            break;
        }
    }
    const double first = std::ceil(min / step - 1e-9) * step;
    for (double t = first; t <= max + step * 1e-9; t += step) ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
    return ticks;
}

Chart::Chart(const char* id, ImVec2 size, Axis x, Axis y) : x_(std::move(x)), y_(std::move(y)) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (size.x <= 0) size.x = std::max(avail.x + size.x, 50.0f);
    if (size.y <= 0) size.y = std::max(avail.y + size.y, 50.0f);
    frame_min_ = ImGui::GetCursorScreenPos();
    frame_max_ = ImVec2(frame_min_.x + size.x, frame_min_.y + size.y);
    clicked_ = ImGui::InvisibleButton(id, size);
    hovered_ = ImGui::IsItemHovered();
    draw_ = ImGui::GetWindowDrawList();
    const float text_h = ImGui::GetTextLineHeight();
    // Room for tick labels on the left and below, and the axis labels.
    min_ = ImVec2(frame_min_.x + ImGui::CalcTextSize("0000.0 GiB").x, frame_min_.y + text_h * 0.5f);
    max_ = ImVec2(frame_max_.x - 8.0f, frame_max_.y - text_h * 2.4f);
    draw_axes();
}

void Chart::put_text(ImVec2 at, ImU32 colour, const std::string& text) {
    draw_->AddText(at, colour, text.c_str());
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    labels_.push_back({text, at, ImVec2(at.x + size.x, at.y + size.y)});
}

float Chart::map(const Axis& a, double v, float lo, float hi) const {
    const double t0 = transform(a, a.min), t1 = transform(a, a.max);
    const double t = t1 > t0 ? (transform(a, v) - t0) / (t1 - t0) : 0.0;
    return lo + static_cast<float>(t) * (hi - lo);
}

ImVec2 Chart::to_screen(double x, double y) const {
    return ImVec2(map(x_, x, min_.x, max_.x), map(y_, y, max_.y, min_.y));
}

void Chart::draw_axes() {
    const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border, 0.5f);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const float text_h = ImGui::GetTextLineHeight();
    draw_->AddRectFilled(min_, max_, ImGui::GetColorU32(ImGuiCol_FrameBg, 0.35f));
    // At most six, and as many as fit with half a line between labels (a short chart fits fewer).
    const int y_ticks = std::clamp(static_cast<int>((max_.y - min_.y) / (text_h * 1.5f)), 2, 6);
    for (double t : axis_ticks(y_, y_ticks)) {
        const float y = to_screen(x_.min, t).y;
        draw_->AddLine(ImVec2(min_.x, y), ImVec2(max_.x, y), grid);
        const std::string label = y_.format ? y_.format(t) : plain_number(t);
        const ImVec2 sz = ImGui::CalcTextSize(label.c_str());
        put_text(ImVec2(min_.x - sz.x - 4.0f, y - sz.y * 0.5f), text, label);
    }
    if (!x_.format || x_.scale == Scale::log10 || x_.min != -0.5) {
        // As many ticks as labels as wide as the widest end's fit, with a gap between them.
        const auto label_of = [&](double v) { return x_.format ? x_.format(v) : plain_number(v); };
        const float widest = std::max(ImGui::CalcTextSize(label_of(x_.min).c_str()).x,
                                      ImGui::CalcTextSize(label_of(x_.max).c_str()).x);
        const int max_ticks = std::max(2, static_cast<int>((max_.x - min_.x) / (widest + 24.0f)));
        for (double t : axis_ticks(x_, max_ticks)) {
            const float x = to_screen(t, y_.min).x;
            draw_->AddLine(ImVec2(x, min_.y), ImVec2(x, max_.y), grid);
            const std::string label = x_.format ? x_.format(t) : plain_number(t);
            const ImVec2 sz = ImGui::CalcTextSize(label.c_str());
            // Centred under its line, but never past the chart's right edge.
            const float left = std::min(x - sz.x * 0.5f, frame_max_.x - sz.x);
            put_text(ImVec2(left, max_.y + 2.0f), text, label);
        }
    }
    draw_->AddRect(min_, max_, ImGui::GetColorU32(ImGuiCol_Border));
    if (!x_.label.empty()) {
        const ImVec2 sz = ImGui::CalcTextSize(x_.label.c_str());
        put_text(ImVec2((min_.x + max_.x - sz.x) * 0.5f, max_.y + text_h * 1.2f), text, x_.label);
    }
    y_label_right_ = min_.x;
    if (!y_.label.empty()) {
        put_text(ImVec2(min_.x + 4.0f, min_.y + 2.0f), text, y_.label);
        y_label_right_ = labels_.back().max.x;
    }
}

void Chart::offer_hover(ImVec2 at, const std::string& text, int id) {
    if (!hovered_) return;
    const ImVec2 m = ImGui::GetIO().MousePos;
    const float d = std::hypot(m.x - at.x, m.y - at.y);
    // A tie goes to what was drawn later, on top: a point over a line's vertex speaks for itself.
    if (d <= best_hover_distance_ && d < kHoverRadius) {
        best_hover_distance_ = d;
        hover_text_ = text;
        hover_id_ = id;
    }
}

void Chart::line(const Series& s) {
    const size_t n = std::min(s.x.size(), s.y.size());
    draw_->PushClipRect(min_, max_, true);
    for (size_t i = 0; i + 1 < n; ++i) {
        const ImVec2 a = to_screen(s.x[i], s.y[i]), b = to_screen(s.x[i + 1], s.y[i + 1]);
        if (!s.dashed) {
            draw_->AddLine(a, b, s.colour, 2.0f);
            continue;
        }
        for (float t = 0; t < 1.0f; t += 0.2f)
            draw_->AddLine(ImVec2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t),
                           ImVec2(a.x + (b.x - a.x) * (t + 0.1f), a.y + (b.y - a.y) * (t + 0.1f)), s.colour, 2.0f);
    }
    for (size_t i = 0; i < n; ++i) {
        const ImVec2 p = to_screen(s.x[i], s.y[i]);
        if (s.markers) draw_->AddCircleFilled(p, 3.0f, s.colour);
        const std::string xs = x_.format ? x_.format(s.x[i]) : plain_number(s.x[i]);
        const std::string ys = y_.format ? y_.format(s.y[i]) : plain_number(s.y[i]);
        offer_hover(p, s.name + "\n" + x_.label + ": " + xs + "\n" + y_.label + ": " + ys);
    }
    draw_->PopClipRect();
}

void Chart::stacked_bars(const std::vector<BarStack>& bars) {
    const float slot = (max_.x - min_.x) / std::max<size_t>(bars.size(), 1);
    const float half = std::min(slot * 0.32f, 60.0f);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    for (size_t i = 0; i < bars.size(); ++i) {
        const float cx = to_screen(static_cast<double>(i), 0).x;
        double base = 0;
        for (const Segment& seg : bars[i].segments) {
            if (seg.value <= 0) continue;
            const ImVec2 top = to_screen(0, base + seg.value), bottom = to_screen(0, base);
            const ImVec2 a(cx - half, std::max(top.y, min_.y)), b(cx + half, bottom.y);
            draw_->AddRectFilled(a, b, seg.colour);
            if (hovered_ && mouse.x >= a.x && mouse.x <= b.x && mouse.y >= a.y && mouse.y <= b.y) {
                hover_text_ = bars[i].label + "\n" + seg.name + ": " + (y_.format ? y_.format(seg.value) : plain_number(seg.value));
                best_hover_distance_ = 0;
            }
            base += seg.value;
        }
        if (bars[i].highlight) {
            const ImVec2 top = to_screen(0, base);
            draw_->AddRect(ImVec2(cx - half - 2, std::max(top.y, min_.y) - 2), ImVec2(cx + half + 2, max_.y),
                           IM_COL32(240, 70, 70, 255), 0, 0, 2.5f);
        }
        // Neighbouring labels must not run into each other: the short one when the full one is wider
        // than the slot, and never past the slot's edges.
        const bool fits = ImGui::CalcTextSize(bars[i].label.c_str()).x <= slot - 4.0f;
        const std::string& label = fits || bars[i].short_label.empty() ? bars[i].label : bars[i].short_label;
        const ImVec2 sz = ImGui::CalcTextSize(label.c_str());
        draw_->PushClipRect(ImVec2(cx - slot * 0.5f + 1.0f, max_.y), ImVec2(cx + slot * 0.5f - 1.0f, max_.y + 4.0f * sz.y + 4.0f),
                            true);
        put_text(ImVec2(cx - sz.x * 0.5f, max_.y + 2.0f), text, label);
        draw_->PopClipRect();
    }
}

void Chart::horizontal_line(double y, ImU32 colour, const std::string& label) {
    const float sy = to_screen(x_.min, y).y;
    if (sy < min_.y || sy > max_.y) return;
    draw_->AddLine(ImVec2(min_.x, sy), ImVec2(max_.x, sy), colour, 2.0f);
    const ImVec2 sz = ImGui::CalcTextSize(label.c_str());
    put_text(ImVec2(max_.x - sz.x - 4.0f, sy - sz.y - 1.0f), colour, label);
}

void Chart::vertical_line(double x, ImU32 colour, const std::string& label) {
    const float sx = to_screen(x, y_.min).x;
    if (sx < min_.x || sx > max_.x) return;
    draw_->AddLine(ImVec2(sx, min_.y), ImVec2(sx, max_.y), colour, 1.5f);
    // Right of the line when the label fits inside the plot, else left of it; a line below the y
    // axis's label when the two would overlap (a narrow chart puts the line near that label).
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    const float left = sx + 3.0f + w <= max_.x ? sx + 3.0f : sx - 3.0f - w;
    const bool under_y_label = left < y_label_right_ + 4.0f;
    const float top = min_.y + 2.0f + (under_y_label ? ImGui::GetTextLineHeight() + 2.0f : 0.0f);
    put_text(ImVec2(std::max(left, min_.x + 2.0f), top), colour, label);
}

void Chart::point(double x, double y, ImU32 colour, float radius, const std::string& hover_text, int id) {
    const ImVec2 p = to_screen(x, y);
    if (p.x < min_.x - 1 || p.x > max_.x + 1 || p.y < min_.y - 1 || p.y > max_.y + 1) return;
    draw_->AddCircleFilled(p, radius, colour);
    offer_hover(p, hover_text, id);
}

void Chart::end() {
    if (hovered_ && !hover_text_.empty()) ImGui::SetTooltip("%s", hover_text_.c_str());
}

void legend(const std::vector<LegendEntry>& entries) {
    const float box = ImGui::GetTextLineHeight() * 0.8f;
    for (size_t i = 0; i < entries.size(); ++i) {
        // On the line while the entry fits, else it starts the next line (never clipped at the edge).
        if (i > 0) flow(box + 4.0f + ImGui::CalcTextSize(entries[i].name.c_str()).x, 14.0f);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float dy = (ImGui::GetTextLineHeight() - box) * 0.5f;
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + dy), ImVec2(p.x + box, p.y + dy + box),
                                                  entries[i].colour, 2.0f);
        ImGui::Dummy(ImVec2(box, box));
        ImGui::SameLine(0, 4.0f);
        ImGui::TextUnformatted(entries[i].name.c_str());
    }
}

ImU32 categorical_colour(int index, float alpha) {
    // Tableau-like palette: distinct on a dark background and for common colour-vision deficiencies.
    static constexpr unsigned kPalette[][3] = {{78, 121, 167}, {242, 142, 43}, {225, 87, 89}, {118, 183, 178},
                                               {89, 161, 79},  {237, 201, 72}, {176, 122, 161}, {255, 157, 167},
                                               {156, 117, 95}, {186, 176, 172}, {64, 180, 230}, {170, 210, 90}};
    const int n = static_cast<int>(sizeof kPalette / sizeof kPalette[0]);
    const auto& c = kPalette[((index % n) + n) % n];
    // Past the palette, lighten or darken so neighbours stay distinguishable.
    const float shade = 1.0f - 0.22f * static_cast<float>((index / n) % 3);
    return IM_COL32(static_cast<int>(c[0] * shade), static_cast<int>(c[1] * shade), static_cast<int>(c[2] * shade),
                    static_cast<int>(alpha * 255));
}

}  // namespace shardscope::ui::plot
