// The Strategy explorer in the real window: `--show strategy` with a scenario of several strategies
// renders the panel (its GPUs' colours are on screen), and a refused action exits with core's rule.
#include "app_runner.hpp"

#include <doctest/doctest.h>
#include <stb/stb_image.h>

#include <set>

using namespace shardscope::test;

namespace {

// The distinct RGB colours of a PNG (and its size).
struct Colours {
    int width = 0, height = 0;
    std::set<unsigned> rgb;
};

Colours colours_of(const std::filesystem::path& path) {
    Colours c;
    int channels = 0;
    unsigned char* data = stbi_load(path.string().c_str(), &c.width, &c.height, &channels, 3);
    REQUIRE_MESSAGE(data != nullptr, "not a readable PNG: " << path);
    for (long i = 0; i < long(c.width) * c.height; ++i) {
        const unsigned char* px = data + i * 3;
        c.rgb.insert(unsigned(px[0]) << 16 | unsigned(px[1]) << 8 | px[2]);
    }
    stbi_image_free(data);
    return c;
}

}  // namespace

TEST_CASE("--show strategy draws TP 2 x PP 2 x ZeRO-1 over 8 GPUs, each GPU in its own colour") {
    const auto dir = scratch_dir("strategy-window");
    const auto png = dir / "strategy.png";
    const std::string config = std::string(SHARDSCOPE_SOURCE_DIR) + "/docs/strategy.json";
    const RunResult r = run_shardscope("--size 1600x1000 --show strategy --config '" + config + "' --screenshot '" +
                                           png.string() + "'",
                                       dir);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const Colours c = colours_of(png);
    CHECK(c.width == 1600);
    CHECK(c.height == 1000);
    CHECK(c.rgb.size() > 100);
    // plot::categorical_colour of GPUs 0, 1 and 7 fill the chips and the pieces only they hold.
    CHECK(c.rgb.count(78u << 16 | 121u << 8 | 167u) == 1);
    CHECK(c.rgb.count(242u << 16 | 142u << 8 | 43u) == 1);
    CHECK(c.rgb.count(255u << 16 | 157u << 8 | 167u) == 1);
}

TEST_CASE("a strategy action the scenario refuses exits 2 with core's rule") {
    const auto dir = scratch_dir("strategy-refused");
    const RunResult r = run_shardscope("--show strategy --action strategy.ep=2 --screenshot '" +
                                           (dir / "x.png").string() + "'",
                                       dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("parallel.ep") != std::string::npos);
}
