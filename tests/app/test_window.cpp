#include "app_runner.hpp"

#include "core/scenario/scenario.hpp"

#include <doctest/doctest.h>
#include <stb/stb_image.h>

#include <set>

using namespace shardscope;
using namespace shardscope::test;

namespace {

struct Picture {
    int width = 0, height = 0;
    int distinct_colours = 0;
    long bright_pixels = 0;  // light text on the dark theme
};

Picture inspect_png(const std::filesystem::path& path) {
    Picture p;
    int channels = 0;
    unsigned char* data = stbi_load(path.string().c_str(), &p.width, &p.height, &channels, 3);
    REQUIRE_MESSAGE(data != nullptr, "not a readable PNG: " << path);
    std::set<unsigned> colours;
    for (long i = 0; i < long(p.width) * p.height; ++i) {
        const unsigned char* px = data + i * 3;
        colours.insert(unsigned(px[0]) << 16 | unsigned(px[1]) << 8 | px[2]);
        if (px[0] > 200 && px[1] > 200 && px[2] > 200) ++p.bright_pixels;
    }
    p.distinct_colours = static_cast<int>(colours.size());
    stbi_image_free(data);
    return p;
}

}  // namespace

TEST_CASE("--screenshot writes a PNG of the window's size that shows panels and text") {
    const auto dir = scratch_dir("screenshot");
    const auto png = dir / "shot.png";
    const RunResult r = run_shardscope("--size 1280x800 --screenshot '" + png.string() + "'", dir);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const Picture p = inspect_png(png);
    CHECK(p.width == 1280);
    CHECK(p.height == 800);
    // A blank or single-colour frame has a handful of colours; antialiased text and panels have hundreds.
    CHECK(p.distinct_colours > 100);
    CHECK(p.bright_pixels > 2000);
}

TEST_CASE("a bad --config exits 2 and names the field and the rule") {
    const auto dir = scratch_dir("badconfig");
    std::string text = scenario_to_json(default_scenario());
    text.replace(text.find("\"tp\":"), 5, "\"tpp\":");
    std::ofstream(dir / "bad.json") << text;
    const RunResult r = run_shardscope("--config '" + (dir / "bad.json").string() + "' --screenshot '" +
                                           (dir / "x.png").string() + "'",
                                       dir);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find("parallel.tpp: unknown field") != std::string::npos, r.err);
    CHECK_FALSE(std::filesystem::exists(dir / "x.png"));
}

TEST_CASE("a good scenario round-trips through the app byte for byte") {
    const auto dir = scratch_dir("roundtrip");
    Scenario s = default_scenario();
    s.model.name = "round trip";
    s.parallel.tp = 4;
    s.parallel.dp_shard = 4;
    std::ofstream(dir / "in.json") << scenario_to_json(s);
    const auto first = dir / "first.json";
    const auto second = dir / "second.json";
    const RunResult a = run_shardscope("--config '" + (dir / "in.json").string() + "' --save-as '" + first.string() +
                                           "' --frames 1 --screenshot '" + (dir / "a.png").string() + "'",
                                       dir);
    REQUIRE_MESSAGE(a.exit_code == 0, a.err);
    const RunResult b = run_shardscope("--config '" + first.string() + "' --save-as '" + second.string() +
                                           "' --frames 1 --screenshot '" + (dir / "b.png").string() + "'",
                                       dir);
    REQUIRE_MESSAGE(b.exit_code == 0, b.err);
    CHECK(slurp(first) == scenario_to_json(s));
    CHECK(slurp(second) == slurp(first));
}

TEST_CASE("unknown options are refused with a clear message") {
    const auto dir = scratch_dir("options");
    const RunResult r = run_shardscope("--frobnicate", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("this argument was not expected: --frobnicate (see shardscope --help)") != std::string::npos);
    // Several, in the order they were typed (CLI11 reads them last first and listed them reversed).
    const RunResult two = run_shardscope("--frobnicate --twiddle", dir);
    CHECK(two.exit_code == 2);
    CHECK(two.err.find("these arguments were not expected: --frobnicate --twiddle") != std::string::npos);
}
