#pragma once
// The real app in a real window, driven as a person drives it: xdotool moves the mouse, clicks and
// types into the window (XTEST events, through the X server, GLFW and ImGui like any other input),
// and the app's --ui-probe file says where each window and named widget was drawn in the last frame
// and what scenario the clicks produced. Needs a display (scripts/test runs the suite under Xvfb).

#include "app_runner.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>
#include <utility>
#include <thread>

namespace shardscope::test {

// A shell command's standard output (trailing newline removed).
inline std::string shell_output(const std::string& cmd) {
    std::string out;
    if (FILE* p = popen(cmd.c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, p)) out += buf;
        pclose(p);
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
}

class LiveApp {
public:
    // Starts shardscope ARGS at WxH in the background, in a scratch folder of its own; `imgui_ini`,
    // when given, is the layout file the app finds in its config folder. The user has started the app
    // before (the first-run welcome was answered) unless `first_run`.
    // `config_files` (name, text) are written into its config folder first.
    LiveApp(const std::string& name, const std::string& args, int width = 1600, int height = 1000,
            const std::string& imgui_ini = "", bool first_run = false,
            const std::vector<std::pair<std::string, std::string>>& config_files = {})
        : dir_(scratch_dir(name)), probe_path_(dir_ / "probe.json") {
        std::filesystem::create_directories(config_dir());
        for (const auto& [file, text] : config_files) std::ofstream(config_dir() / file, std::ios::binary) << text;
        if (!imgui_ini.empty()) std::ofstream(config_dir() / "imgui.ini", std::ios::binary) << imgui_ini;
        if (!first_run) std::ofstream(config_dir() / "welcomed") << "answered\n";
        const std::string cmd = "cd '" + dir_.string() + "' && XDG_CONFIG_HOME='" + (dir_ / "config").string() +
                                "' '" SHARDSCOPE_EXE "' --size " + std::to_string(width) + "x" +
                                std::to_string(height) + " --ui-probe '" + probe_path_.string() + "' " + args +
                                " > out.txt 2> err.txt & echo $!";
        pid_ = shell_output(cmd);
        wid_ = shell_output("timeout 30 xdotool search --sync --onlyvisible --pid " + pid_ + " 2>/dev/null | head -1");
        if (!wid_.empty()) wait_frames(3);
    }
    ~LiveApp() {
        if (!pid_.empty()) std::system(("kill " + pid_ + " 2>/dev/null; sleep 0.2; kill -9 " + pid_ + " 2>/dev/null").c_str());
    }
    LiveApp(const LiveApp&) = delete;
    LiveApp& operator=(const LiveApp&) = delete;

    [[nodiscard]] bool ok() const { return !wid_.empty(); }
    // The X window's id, for xdotool queries of its own (its title, say).
    [[nodiscard]] const std::string& window_id() const { return wid_; }
    // The folder the app runs in (F12's screenshots land here).
    [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
    // The app's own config folder ($XDG_CONFIG_HOME/shardscope).
    [[nodiscard]] std::filesystem::path config_dir() const { return dir_ / "config" / "shardscope"; }
    [[nodiscard]] std::string err() const { return slurp(dir_ / "err.txt"); }

    // The last frame's probe (an empty object before the first).
    nlohmann::json probe() const {
        const std::string text = slurp(probe_path_);
        auto j = nlohmann::json::parse(text, nullptr, false);
        return j.is_discarded() ? nlohmann::json::object() : j;
    }
    // Waits until `n` more frames were drawn (at most 30 s); returns the newest probe.
    nlohmann::json wait_frames(int n) const {
        const long start = frame_of(probe());
        for (int i = 0; i < 3000; ++i) {
            const nlohmann::json j = probe();
            if (frame_of(j) >= start + n) return j;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return probe();
    }
    // Waits until the probe names `key` among the widgets drawn (at most 30 s).
    bool wait_for_item(const std::string& key) const {
        for (int i = 0; i < 300; ++i) {
            if (probe()["items"].contains(key)) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return false;
    }

    // Moves the mouse to the centre of the widget drawn under `key`, lets a frame see the hover,
    // clicks, and waits for the click to take effect. False when no such widget was drawn.
    bool click(const std::string& key) {
        const nlohmann::json j = probe();
        if (!j["items"].contains(key)) return false;
        const auto& r = j["items"][key];
        const int x = static_cast<int>((r[0].get<double>() + r[2].get<double>()) / 2);
        const int y = static_cast<int>((r[1].get<double>() + r[3].get<double>()) / 2);
        return click_at(x, y);
    }
    // Opens the menu bar's `menu` and clicks its `item` ("View", "pipeline": menu/View/pipeline).
    bool choose(const std::string& menu, const std::string& item) {
        return click("menu/" + menu) && wait_for_item("menu/" + menu + "/" + item) && click("menu/" + menu + "/" + item);
    }
    bool click_at(int x, int y) {
        move_to(x, y);
        xdo("click 1");
        wait_frames(4);
        return true;
    }
    // Moves the mouse to (x, y) in the window without clicking and lets frames see it there.
    void move_to(int x, int y) {
        xdo("mousemove --window " + wid_ + " " + std::to_string(x) + " " + std::to_string(y));
        wait_frames(2);
    }
    // Moves the mouse over the widget drawn under `key` and waits for frames to see the hover.
    bool hover(const std::string& key) {
        const nlohmann::json j = probe();
        if (!j["items"].contains(key)) return false;
        const auto& r = j["items"][key];
        xdo("mousemove --window " + wid_ + " " + std::to_string(static_cast<int>((r[0].get<double>() + r[2].get<double>()) / 2)) +
            " " + std::to_string(static_cast<int>((r[1].get<double>() + r[3].get<double>()) / 2)));
        wait_frames(4);
        return true;
    }
    // Whether the app's process has ended, waiting up to `seconds` (generous: it returns as soon as the
    // process ends, and a loaded machine may take seconds to tear a window down).
    bool exited_within(int seconds) const {
        for (int i = 0; i < seconds * 10; ++i) {
            // Gone, or a zombie nobody has reaped yet: either way it has exited.
            const std::string stat = slurp("/proc/" + pid_ + "/stat");
            const auto paren = stat.rfind(')');
            if (stat.empty() || (paren != std::string::npos && stat.compare(paren + 1, 2, " Z") == 0)) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return false;
    }
    void key(const std::string& keys) {
        xdo("key --window " + wid_ + " " + keys);
        wait_frames(4);
    }
    void type(const std::string& text) {
        xdo("type --window " + wid_ + " --delay 20 '" + text + "'");
        wait_frames(4);
    }
    // Clicks the field drawn under `key`, replaces its text with `text` and leaves it with Enter; the
    // probe once the edit took effect. An empty object when no such field was drawn.
    nlohmann::json type_into(const std::string& key, const std::string& text) {
        if (!click(key)) return nlohmann::json::object();
        this->key("ctrl+a");
        type(text);
        this->key("Return");
        return wait_frames(4);
    }
    void resize(int width, int height) {
        xdo("windowsize --sync " + wid_ + " " + std::to_string(width) + " " + std::to_string(height));
        wait_frames(6);
    }

private:
    static long frame_of(const nlohmann::json& j) { return j.contains("frame") ? j["frame"].get<long>() : -1; }
    void xdo(const std::string& args) const { std::system(("xdotool " + args + " >/dev/null 2>&1").c_str()); }

    std::filesystem::path dir_;
    std::filesystem::path probe_path_;
    std::string pid_;
    std::string wid_;
};

// The area two windows of a probe share.
inline double overlap_area(const nlohmann::json& a, const nlohmann::json& b) {
    const double x0 = std::max(a["x"].get<double>(), b["x"].get<double>());
    const double y0 = std::max(a["y"].get<double>(), b["y"].get<double>());
    const double x1 = std::min(a["x"].get<double>() + a["w"].get<double>(), b["x"].get<double>() + b["w"].get<double>());
    const double y1 = std::min(a["y"].get<double>() + a["h"].get<double>(), b["y"].get<double>() + b["h"].get<double>());
    return x1 > x0 && y1 > y0 ? (x1 - x0) * (y1 - y0) : 0.0;
}

}  // namespace shardscope::test
