// Keys typed into the real window with xdotool (XTEST), as a person would.
#include "app_runner.hpp"

#include <doctest/doctest.h>
#include <stb/stb_image.h>

#include <filesystem>

using namespace shardscope::test;

TEST_CASE("F12 in the real window saves a timestamped screenshot and Ctrl+Q quits") {
    const auto dir = scratch_dir("xdotool");
    // Run from the scratch folder: F12 writes into the current folder.
    const std::string script =
        "cd '" + dir.string() + "' && "
        "XDG_CONFIG_HOME='" + (dir / "config").string() + "' '" SHARDSCOPE_EXE "' --size 1024x700 & pid=$!; "
        "wid=$(timeout 20 xdotool search --sync --name '^Shardscope$' | head -1); "
        "[ -n \"$wid\" ] || { kill $pid; exit 90; }; "
        "sleep 0.5; xdotool windowfocus --sync $wid; xdotool key F12; "
        "for i in $(seq 200); do ls shardscope-*.png >/dev/null 2>&1 && break; sleep 0.1; done; "
        "sleep 0.3; xdotool key ctrl+q; "
        "for i in $(seq 200); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done; "
        "kill -0 $pid 2>/dev/null && { kill $pid; exit 91; }; wait $pid";
    const int status = std::system(("bash -c \"" + [&] {
        std::string escaped;
        for (char c : script) {
            if (c == '"' || c == '$' || c == '\\' || c == '`') escaped += '\\';
            escaped += c;
        }
        return escaped;
    }() + "\"").c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    CHECK_MESSAGE(code != 90, "the window never appeared");
    CHECK_MESSAGE(code != 91, "Ctrl+Q did not close the window");
    CHECK(code == 0);

    int shots = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("shardscope-", 0) != 0 || entry.path().extension() != ".png") continue;
        ++shots;
        int w = 0, h = 0, n = 0;
        unsigned char* px = stbi_load(entry.path().string().c_str(), &w, &h, &n, 3);
        REQUIRE(px != nullptr);
        stbi_image_free(px);
        CHECK(w == 1024);
        CHECK(h == 700);
    }
    CHECK(shots == 1);
}
