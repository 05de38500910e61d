// --lesson ID [--step K] in the real window: it opens there (screenshots capture that step), and a
// wrong id or step exits 2 with a message.
#include "app_runner.hpp"

#include <doctest/doctest.h>
#include <stb/stb_image.h>

using namespace shardscope::test;

namespace {
// Pixels of the amber outline a lesson puts around the panel it points at (widgets/shell/panel.cpp).
long amber_pixels(const std::filesystem::path& path, int& width, int& height) {
    int channels = 0;
    unsigned char* data = stbi_load(path.string().c_str(), &width, &height, &channels, 3);
    REQUIRE_MESSAGE(data != nullptr, "not a readable PNG: " << path);
    long n = 0;
    for (long i = 0; i < long(width) * height; ++i) {
        const unsigned char* px = data + i * 3;
        if (px[0] > 150 && px[1] > 100 && px[1] < 200 && px[2] < 60 && px[0] > px[1] + 30) ++n;
    }
    stbi_image_free(data);
    return n;
}
}  // namespace

TEST_CASE("--lesson ID --step K with --screenshot captures that step with its panel outlined") {
    const auto dir = scratch_dir("lesson");
    const auto png = dir / "lesson.png";
    const RunResult r = run_shardscope("--size 1200x800 --lesson why-split --step 3 --screenshot '" + png.string() + "'", dir);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    int w = 0, h = 0;
    const long amber = amber_pixels(png, w, h);
    CHECK(w == 1200);
    CHECK(h == 800);
    // The outline is at least 2 px around a panel of about 800 x 780 px.
    CHECK(amber > 3000);
}

TEST_CASE("an unknown lesson or step exits 2 and says what exists") {
    const auto dir = scratch_dir("lesson-bad");
    RunResult r = run_shardscope("--lesson nope --screenshot '" + (dir / "x.png").string() + "'", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("shardscope: --lesson: \"nope\" is not a lesson (lessons: why-split, data-parallel", 0) == 0);
    r = run_shardscope("--lesson why-split --step 99 --screenshot '" + (dir / "x.png").string() + "'", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "shardscope: --lesson: lesson \"why-split\" has steps 1 to 9, not 99\n");
}

TEST_CASE("--save-as alone saves and exits: no window, no display, the user's progress untouched") {
    const auto dir = scratch_dir("lesson-save-only");
    const auto saved = dir / "step.json";
    const RunResult r = run_shardscope("--lesson why-split --step 1 --action memory.zero=3 --save-as '" + saved.string() + "'",
                                       dir, "DISPLAY= WAYLAND_DISPLAY=");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.out.find("saved " + saved.string()) != std::string::npos);
    const std::string text = slurp(saved);
    CHECK(text.find("\"Llama 3 70B\"") != std::string::npos);  // the step's scenario
    CHECK(text.find("\"zero\": 3") != std::string::npos);        // and the action after it
    CHECK_FALSE(std::filesystem::exists(dir / "config" / "shardscope" / "lesson-progress.json"));
    // A refused start still refuses, naming what was wrong.
    const RunResult bad = run_shardscope("--lesson no-such-lesson --save-as '" + saved.string() + "'", dir,
                                         "DISPLAY= WAYLAND_DISPLAY=");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("no-such-lesson") != std::string::npos);
}

TEST_CASE("--save-as with --lesson saves the step's scenario, not the default one") {
    const auto dir = scratch_dir("lesson-save");
    const auto saved = dir / "step.json";
    const auto png = dir / "step.png";
    const RunResult r = run_shardscope("--size 800x600 --lesson why-split --step 1 --save-as '" + saved.string() +
                                           "' --screenshot '" + png.string() + "'",
                                       dir);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    // why-split step 1 puts Llama 3 70B on a single H100.
    const std::string text = slurp(saved);
    CHECK(text.find("\"Llama 3 70B\"") != std::string::npos);
    CHECK(text.find("\"nodes\": 1,") != std::string::npos);
    CHECK(text.find("\"gpus_per_node\": 1,") != std::string::npos);
}
