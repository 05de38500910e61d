#include "imgui_fixture.hpp"
#include "widgets/kit/plot.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace shardscope::ui::plot;
using shardscope::test::ImGuiFixture;

TEST_CASE("nice ticks step by 1, 2 or 5 times a power of ten") {
    // 0..100 in at most 6 ticks: a step of 20 (raw step 20 = 2 x 10).
    CHECK(nice_ticks(0, 100, 6) == std::vector<double>{0, 20, 40, 60, 80, 100});
    // 0..1 in at most 3 ticks: raw step 0.5 -> 0.5.
    CHECK(nice_ticks(0, 1, 3) == std::vector<double>{0, 0.5, 1});
    // 3..17 with up to 8 ticks: raw 2 -> 2, starting at the first multiple inside: 4.
    CHECK(nice_ticks(3, 17, 8) == std::vector<double>{4, 6, 8, 10, 12, 14, 16});
    // 30..92 in at most 4: raw 20.7 -> 50 would leave one tick (50); 20 gives three.
    CHECK(nice_ticks(30, 92, 4) == std::vector<double>{40, 60, 80});
    // 62..84 in at most 2: raw 22 -> 50 has no multiple inside (the axis had no ticks); 10 gives two.
    CHECK(nice_ticks(62, 84, 2) == std::vector<double>{70, 80});
}

TEST_CASE("log ticks are the powers of ten inside the range") {
    CHECK(nice_ticks(64, 4.0e9, 12, Scale::log10) == std::vector<double>{1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9});
    // Too many decades for the ticks allowed: every other one.
    CHECK(nice_ticks(1, 1e8, 5, Scale::log10) == std::vector<double>{1, 1e2, 1e4, 1e6, 1e8});
}

TEST_CASE("an axis in GiB ticks on whole GiB, not on round byte counts") {
    const double gib = 1024.0 * 1024.0 * 1024.0;
    Axis a("memory per GPU", 40 * gib, 100 * gib);
    // In bytes (42.9e9 .. 107.4e9) the ticks fall on round byte counts: 55.9, 74.5 and 93.1 GiB.
    CHECK(axis_ticks(a, 4) == std::vector<double>{6e10, 8e10, 1e11});
    a.unit = gib;
    // In GiB: 40..100 in at most 4 ticks, a step of 20 GiB.
    CHECK(axis_ticks(a, 4) == std::vector<double>{40 * gib, 60 * gib, 80 * gib, 100 * gib});
}

TEST_CASE("a chart maps data corners to its plotting area and draws into the window") {
    ImGuiFixture f;
    ImVec2 origin, top_right;
    int vertices_before = 0, vertices_after = 0;
    f.frames(2, [&] {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(600, 400));
        ImGui::Begin("chart");
        vertices_before = ImGui::GetWindowDrawList()->VtxBuffer.Size;
        Chart c("c", ImVec2(500, 300), Axis{"x", 0, 10}, Axis{"y", 0, 100});
        c.line(Series{"s", IM_COL32(255, 0, 0, 255), {0, 10}, {0, 100}});
        c.stacked_bars({BarStack{"a", {{"w", 10, IM_COL32(1, 2, 3, 255)}}}});
        origin = c.to_screen(0, 0);
        top_right = c.to_screen(10, 100);
        c.end();
        vertices_after = ImGui::GetWindowDrawList()->VtxBuffer.Size;
        ImGui::End();
    });
    CHECK(vertices_after > vertices_before);
    CHECK(top_right.x > origin.x);
    CHECK(top_right.y < origin.y);  // screen y grows downwards
    CHECK(top_right.x - origin.x > 300);
}

TEST_CASE("a narrow chart's labels never overlap: the capacity line's label steps below the y axis's") {
    // As the planner draws its scatter in a 250 px tile (a 1024 px window with four panels): the
    // capacity line's label sat on "step time", and the memory axis had no ticks at all.
    ImGuiFixture f;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    std::vector<Chart::DrawnLabel> labels;
    f.frames(2, [&] {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(260, 300));
        ImGui::Begin("narrow chart");
        Axis memory("memory per GPU", 62 * gib, 84 * gib, Scale::linear,
                    [gib](double v) { return std::to_string(static_cast<int>(v / gib)) + ".0 GiB"; });
        memory.unit = gib;
        Chart c("c", ImVec2(-1, 140), memory, Axis{"step time", 3.6, 4.0});
        c.vertical_line(79.6 * gib, IM_COL32(255, 0, 0, 255), "GPU memory");
        c.end();
        labels = c.labels();
        ImGui::End();
    });
    CAPTURE(labels.size());
    int x_ticks = 0;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (labels[i].text.find(" GiB") != std::string::npos) ++x_ticks;
        for (std::size_t j = i + 1; j < labels.size(); ++j) {
            CAPTURE(labels[i].text);
            CAPTURE(labels[j].text);
            const bool apart = labels[i].max.x <= labels[j].min.x || labels[j].max.x <= labels[i].min.x ||
                               labels[i].max.y <= labels[j].min.y || labels[j].max.y <= labels[i].min.y;
            CHECK(apart);
        }
    }
    CHECK(x_ticks >= 2);
}

TEST_CASE("a short chart's step-time ticks never touch") {
    ImGuiFixture f;
    std::vector<Chart::DrawnLabel> labels;
    f.frames(2, [&] {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(400, 300));
        ImGui::Begin("short chart");
        Chart c("c", ImVec2(-1, 110), Axis{"x", 0, 10}, Axis{"step time", 3.66, 3.97});
        c.end();
        labels = c.labels();
        ImGui::End();
    });
    std::vector<float> tick_tops;
    for (const Chart::DrawnLabel& l : labels)
        if (l.text.rfind("3.", 0) == 0) tick_tops.push_back(l.min.y);
    std::sort(tick_tops.begin(), tick_tops.end());
    REQUIRE(tick_tops.size() >= 2);
    const float line = ImGui::GetTextLineHeight();
    for (std::size_t i = 1; i < tick_tops.size(); ++i) CHECK(tick_tops[i] - tick_tops[i - 1] >= 1.2f * line);
}
