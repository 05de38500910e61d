// The Device mesh panel in the real window: `--show mesh` paints the picked dim's group colours, the
// 131,072-GPU scenario paints blocks of nodes in the "all groups span nodes" colour, and a bad action
// exits 2 naming it.
#include "app_runner.hpp"

#include <doctest/doctest.h>
#include <stb/stb_image.h>

#include <set>

using namespace shardscope::test;

namespace {

struct Picture {
    int width = 0, height = 0;
    std::set<unsigned> rgb;  // distinct colours
};

Picture picture_of(const std::filesystem::path& path) {
    Picture p;
    int channels = 0;
    unsigned char* data = stbi_load(path.string().c_str(), &p.width, &p.height, &channels, 3);
    REQUIRE_MESSAGE(data != nullptr, "not a readable PNG: " << path);
    for (long i = 0; i < long(p.width) * p.height; ++i) {
        const unsigned char* px = data + i * 3;
        p.rgb.insert(unsigned(px[0]) << 16 | unsigned(px[1]) << 8 | px[2]);
    }
    stbi_image_free(data);
    return p;
}

constexpr unsigned rgb(unsigned r, unsigned g, unsigned b) { return r << 16 | g << 8 | b; }

}  // namespace

TEST_CASE("--show mesh colours the default scenario's dp_shard groups") {
    const auto dir = scratch_dir("mesh-window");
    const auto png = dir / "mesh.png";
    const RunResult r = run_shardscope("--size 1600x1000 --show mesh --action mesh.dim=dp_shard --action mesh.select=13 "
                                       "--screenshot '" + png.string() + "'",
                                       dir);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const Picture p = picture_of(png);
    CHECK(p.width == 1600);
    CHECK(p.height == 1000);
    CHECK(p.rgb.size() > 100);
    // Eight dp_shard groups: plot::categorical_colour 0 (group 0) and 1 (group 1) fill their cells.
    CHECK(p.rgb.count(rgb(78, 121, 167)) == 1);
    CHECK(p.rgb.count(rgb(242, 142, 43)) == 1);
}

TEST_CASE("131,072 GPUs draw as blocks of nodes, all in the 'groups span nodes' colour for pp") {
    const auto dir = scratch_dir("mesh-131k");
    const auto png = dir / "mesh.png";
    const std::string config = std::string(SHARDSCOPE_SOURCE_DIR) + "/docs/mesh-131k.json";
    const RunResult r = run_shardscope("--size 1600x1000 --show mesh --config '" + config +
                                           "' --action mesh.dim=pp --screenshot '" + png.string() + "'",
                                       dir);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(picture_of(png).rgb.count(rgb(236, 112, 64)) == 1);  // palette::link_colour(inter): a share of 0
}

TEST_CASE("a mesh action with a bad value exits 2 and names it") {
    const auto dir = scratch_dir("mesh-bad-action");
    const RunResult r = run_shardscope("--show mesh --action mesh.dim=dp --screenshot '" + (dir / "x.png").string() + "'", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("mesh.dim") != std::string::npos);
    // A factor core rejects: 3 does not divide the default model's 32 heads (nor 64 GPUs), so no
    // screenshot of a mesh that was never applied.
    const RunResult factor = run_shardscope("--show mesh --action mesh.tp=3 --screenshot '" + (dir / "y.png").string() + "'", dir);
    CHECK(factor.exit_code == 2);
    CHECK(factor.err.find("mesh.tp: parallel") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "y.png"));
}
