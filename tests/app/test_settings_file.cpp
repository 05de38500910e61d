// The user's imgui.ini is checked before Dear ImGui 1.86 reads it: one line such as
// `[Table][0x00000000,-5]` used to crash the app at every start. A broken file is set aside as
// imgui.ini.bad with a message and the app starts with the default layout.
#include "host/imgui_settings.hpp"
#include "live_app.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

using namespace shardscope;
using namespace shardscope::test;

namespace {

// What ImGui 1.86 writes itself: a window, and a sortable, reorderable 3-column table.
const std::string kGoodSettings =
    "[Window][Memory and cost]\r\nPos=0,19\r\nSize=800,600\r\nCollapsed=0\r\n\r\n"
    "[Table][0x5F1A2B3C,3]\nRefScale=15\nColumn 0  Width=120 Sort=0v\nColumn 1  Weight=1.0000 Order=2\n"
    "Column 2  Visible=0 Order=1\n";

std::string problem_of(const std::string& text) { return host::imgui_settings_problem(text); }

}  // namespace

TEST_CASE("the settings check passes what ImGui writes and names the line ImGui 1.86 would crash on") {
    CHECK(problem_of(kGoodSettings) == "");
    CHECK(problem_of("") == "");
    CHECK(problem_of("[Table][0x00000000,-5]\n") == "line 1: [Table][0x00000000,-5]: a table has 1 to 64 columns");
    CHECK(problem_of(kGoodSettings + "[Table][0x00000001,65]") ==
          "line 11: [Table][0x00000001,65]: a table has 1 to 64 columns");
    CHECK(problem_of("[Table][0x00000001,99999999999999999999]") ==
          "line 1: [Table][0x00000001,99999999999999999999]: a table has 1 to 64 columns");
    // Inside a 3-column table every column index, display order and sort order names a column 0-2.
    const std::string table = "[Table][0x00000002,3]\n";
    CHECK(problem_of(table + "Column 3  Width=10\n") ==
          "line 2: Column 3  Width=10: the column must be one of the table's 3 columns");
    CHECK(problem_of(table + "Column 1  Order=-1\n") ==
          "line 2: Column 1  Order=-1: Order= must name one of the table's 3 columns");
    CHECK(problem_of(table + "Column 0  Width=5 Sort=64^\n") ==
          "line 2: Column 0  Width=5 Sort=64^: Sort= must name one of the table's 3 columns");
    // What ImGui skips is harmless: sections of other types, names it does not take as a table.
    CHECK(problem_of("[Docking][Data]\nColumn 99 Order=99\n") == "");
    CHECK(problem_of("[Table][notanid,5]\nColumn 99\n") == "");
    // A new section ends the table's column lines.
    CHECK(problem_of(table + "[Window][X]\nColumn 7\n") == "");
}

TEST_CASE("a settings file that would crash ImGui is set aside, and the app starts with the default layout") {
    const std::string bad = "[Window][Memory and cost]\nPos=0,19\n\n[Table][0x00000000,-5]\nColumn 0  Width=1\n";
    LiveApp app("bad-imgui-ini", "", 1280, 800, bad);
    REQUIRE_MESSAGE(app.ok(), app.err());  // a window drew three frames: no crash
    const std::filesystem::path ini = app.config_dir() / "imgui.ini";
    CHECK(app.err().find("shardscope: " + ini.string() +
                         ": line 4: [Table][0x00000000,-5]: a table has 1 to 64 columns; set aside as " + ini.string() +
                         ".bad, starting with the default layout") != std::string::npos);
    CHECK(slurp(app.config_dir() / "imgui.ini.bad") == bad);
}

TEST_CASE("a good settings file is left where it is") {
    LiveApp app("good-imgui-ini", "", 1280, 800, kGoodSettings);
    REQUIRE_MESSAGE(app.ok(), app.err());
    CHECK_FALSE(std::filesystem::exists(app.config_dir() / "imgui.ini.bad"));
    CHECK(app.err().find("imgui.ini") == std::string::npos);
}

TEST_CASE("each content scale keeps a layout file of its own, named by the scale to the nearest quarter") {
    CHECK(host::imgui_settings_file_name(1.0f) == "imgui.ini");
    CHECK(host::imgui_settings_file_name(0.9f) == "imgui.ini");  // below 1x the app draws at 1x
    CHECK(host::imgui_settings_file_name(2.0f) == "imgui-2x.ini");
    CHECK(host::imgui_settings_file_name(1.5f) == "imgui-1.5x.ini");
    CHECK(host::imgui_settings_file_name(1.24f) == "imgui-1.25x.ini");
    CHECK(host::imgui_settings_file_name(2.8f) == "imgui-2.75x.ini");
}
