#include "app/window.hpp"

#include "app/system_font.hpp"
#include "host/file_io.hpp"
#include "host/gl.hpp"
#include "host/imgui_settings.hpp"
#include "host/key_latch.hpp"
#include "host/paint_frame.hpp"
#include "host/screenshot.hpp"
#include "host/session.hpp"
#include "widgets/shell/style.hpp"
#include "widgets/shell/ui_probe.hpp"
#include "widgets/ui_frame.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <nlohmann/json.hpp>
#include <stb/stb_image.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace shardscope::app {

namespace {

// Idle, the window sleeps until input arrives (or AppUi's wait runs out) instead of redrawing:
// under software GL continuous frames cost more than a core. After input it draws a few frames so
// that ImGui settles (hover, a widget's release).
constexpr int kSettleFrames = 3;

void wait_or_poll(double wait_seconds, int& settle_frames) {
    if (wait_seconds <= 0 || settle_frames > 0) {
        glfwPollEvents();
        if (settle_frames > 0) --settle_frames;
        return;
    }
    const double before = glfwGetTime();
    glfwWaitEventsTimeout(wait_seconds);
    // Woken early: an event came in, so settle on it.
    if (glfwGetTime() - before < wait_seconds * 0.9) settle_frames = kSettleFrames;
}

}  // namespace

namespace {

constexpr int kDefaultWidth = 1600;
constexpr int kDefaultHeight = 1000;

std::vector<std::string> g_dropped_paths;  // filled by GLFW's drop callback, drained each frame

void on_drop(GLFWwindow*, int count, const char** paths) {
    for (int i = 0; i < count; ++i) g_dropped_paths.emplace_back(paths[i]);
}

float g_new_content_scale = 0;  // set when the window moved to a monitor of another scale

// The scale the app draws at from GLFW's x and y content scales: the larger, from 1 to 4.
float drawing_scale(float sx, float sy) { return std::clamp(std::max(sx, sy), 1.0f, 4.0f); }

void on_content_scale(GLFWwindow*, float sx, float sy) { g_new_content_scale = drawing_scale(sx, sy); }

bool g_close_clicked = false;  // the window manager's close button, turned into a quit request

void on_close_clicked(GLFWwindow* window) {
    // Kept open until the unsaved-changes question, if any, is answered.
    glfwSetWindowShouldClose(window, GLFW_FALSE);
    g_close_clicked = true;
}

void on_glfw_error(int code, const char* description) {
    // ImGui asks for the clipboard on every Ctrl+V; an empty clipboard, or one holding no text, is
    // nothing the user needs to read about.
    if (code == GLFW_FORMAT_UNAVAILABLE) return;
    std::fprintf(stderr, "shardscope: GLFW error %d: %s\n", code, description);
}

float monitor_content_scale() {
    float sx = 1.0f, sy = 1.0f;
    if (GLFWmonitor* m = glfwGetPrimaryMonitor()) glfwGetMonitorContentScale(m, &sx, &sy);
    return drawing_scale(sx, sy);
}

// The window in pixels: --size as given, else the default scaled once by the content scale and kept
// inside the monitor's work area. (GLFW_SCALE_TO_MONITOR would scale again on X11: it stays off.)
void window_size_for(const Options& o, float scale, int& w, int& h) {
    if (o.width > 0) {
        w = o.width;
        h = o.height;
        return;
    }
    w = static_cast<int>(kDefaultWidth * scale);
    h = static_cast<int>(kDefaultHeight * scale);
    if (GLFWmonitor* m = glfwGetPrimaryMonitor()) {
        int x, y, mw, mh;
        glfwGetMonitorWorkarea(m, &x, &y, &mw, &mh);
        if (mw > 0 && mh > 0) {
            w = std::min(w, mw * 9 / 10);
            h = std::min(h, mh * 9 / 10);
        }
    }
}

// The desktop's sans-serif font at the scaled size; ImGui's 13 px bitmap font (scaled) when there is
// none, said once on stderr.
void load_fonts(float scale) {
    static std::string why_not;
    static const std::string file = sans_serif_font_file(why_not);
    ImGuiIO& io = ImGui::GetIO();
    if (!file.empty() && io.Fonts->AddFontFromFileTTF(file.c_str(), ui::kBaseFontPixels * scale)) return;
    static bool said = false;
    if (!said) {
        said = true;
        std::fprintf(stderr, "shardscope: %s; using ImGui's built-in bitmap font (install fonts-dejavu-core)\n",
                     file.empty() ? why_not.c_str() : (file + " could not be loaded").c_str());
    }
    ImFontConfig config;
    config.SizePixels = 13.0f * scale;
    io.Fonts->AddFontDefault(&config);
}

// The icon the desktop shows for the window, the one installed in the hicolor theme. Without the
// data folder (reported once elsewhere) the window keeps the desktop's default.
void set_window_icon(GLFWwindow* window) {
    const std::string path = host::data_dir() + "/assets/icons/shardscope.png";
    GLFWimage icon{};
    icon.pixels = stbi_load(path.c_str(), &icon.width, &icon.height, nullptr, 4);
    if (!icon.pixels) return;
    glfwSetWindowIcon(window, 1, &icon);
    stbi_image_free(icon.pixels);
}

// Fonts and sizes for a new content scale, between frames: the font atlas is rebuilt at the new pixel
// size and the style's sizes start again from ImGui's defaults.
void rescale_fonts_and_style(float scale) {
    ImGui::GetIO().Fonts->Clear();
    load_fonts(scale);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    ImGui::GetStyle() = ImGuiStyle();
    ui::apply_style(scale);
}

std::string glfw_version() {
    int major, minor, rev;
    glfwGetVersion(&major, &minor, &rev);
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(rev);
}

void fill_library_versions(ui::AppState& state) {
    const char* gl = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    state.ui.library_versions = {
        {"Dear ImGui", ImGui::GetVersion()},
        {"GLFW", glfw_version()},
        {"OpenGL", gl ? gl : "?"},
        {"Renderer", renderer ? renderer : "?"},
        {"nlohmann/json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR) +
                              "." + std::to_string(NLOHMANN_JSON_VERSION_PATCH)},
        {"glad", "2 (gl:core=3.3)"},
        {"stb_image_write", "libstb (Debian)"},
    };
}

void open_dropped_files(ui::AppState& state) {
    for (const std::string& path : g_dropped_paths) {
        if (std::filesystem::path(path).extension() == ".json") {
            state.requests.open_path = path;
            break;
        }
        state.show_error("Dropped file ignored", path + ": only scenario files (*.json) can be opened");
    }
    g_dropped_paths.clear();
}

void take_screenshot(ui::AppState& state, GLFWwindow* window, const std::string& path) {
    int w, h;
    glfwGetFramebufferSize(window, &w, &h);
    if (std::string error = host::save_framebuffer_png(path, w, h); !error.empty()) state.show_error("Screenshot failed", error);
    else state.ui.status = "Screenshot saved to " + std::filesystem::absolute(path).string();
}

// The desktop's side of a session: lines for the person on standard error, the title bar, the
// window's close.
class DesktopPlatform final : public host::Platform {
public:
    explicit DesktopPlatform(GLFWwindow* window) : window_(window) {}
    void warn(const std::string& message) override { std::fprintf(stderr, "shardscope: %s\n", message.c_str()); }
    bool refuse_start(const std::string& message) override {
        warn(message);
        return true;
    }
    void show_title(const std::string& title) override { glfwSetWindowTitle(window_, title.c_str()); }
    void quit() override { glfwSetWindowShouldClose(window_, GLFW_TRUE); }

private:
    GLFWwindow* window_;
};

struct Window {
    GLFWwindow* handle = nullptr;
    ~Window() {
        if (handle) glfwDestroyWindow(handle);
        glfwTerminate();
    }
};

bool start_glfw() {
    glfwSetErrorCallback(&on_glfw_error);
    if (glfwInit()) return true;
    std::fprintf(stderr,
                 "shardscope: no display to open a window on. On a headless machine run it under Xvfb, e.g.\n"
                 "  xvfb-run -a -s '-screen 0 1920x1200x24' shardscope --screenshot shardscope.png\n");
    return false;
}

// An OpenGL 3.3 core window with its GL functions loaded and its callbacks set; nullptr after saying
// why not.
GLFWwindow* open_gl_window(const Options& options, float scale) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_FALSE);
    int width, height;
    window_size_for(options, scale, width, height);
    GLFWwindow* window = glfwCreateWindow(width, height, "Shardscope", nullptr, nullptr);
    if (!window) {
        std::fprintf(stderr, "shardscope: could not create an OpenGL 3.3 core window\n");
        return nullptr;
    }
    glfwMakeContextCurrent(window);
    if (!gladLoadGL(glfwGetProcAddress)) {
        std::fprintf(stderr, "shardscope: could not load OpenGL functions\n");
        glfwDestroyWindow(window);
        return nullptr;
    }
    const bool capture = !options.screenshot.empty();
    glfwSwapInterval(capture ? 0 : 1);
    glfwSetDropCallback(window, &on_drop);
    glfwSetWindowCloseCallback(window, &on_close_clicked);
    if (!capture) glfwSetWindowContentScaleCallback(window, &on_content_scale);
    set_window_icon(window);
    return window;
}

// Layout persists in the user's config folder, never the working directory; a screenshot run uses
// the default layout so it is the same on every machine. ImGui reads the file unchecked: a broken one
// is set aside before it can crash every start. Returns what to tell the user of it.
std::string start_imgui(GLFWwindow* window, float scale, bool capture, std::string& ini_path) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    ini_path = capture || host::config_dir().empty() ? std::string()
                                                     : host::config_dir() + "/" + host::imgui_settings_file_name(scale);
    const host::ImGuiSettingsCheck check = ini_path.empty() ? host::ImGuiSettingsCheck{} : host::set_aside_broken_imgui_settings(ini_path);
    io.IniFilename = ini_path.empty() || !check.readable ? nullptr : ini_path.c_str();
    load_fonts(scale);
    ui::apply_style(scale);
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    host::install_key_latch(window);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    return check.message;
}

host::StartOptions start_options(const Options& o) {
    host::StartOptions s;
    s.config = o.config;
    s.link_scenario = o.link_scenario;
    s.model = o.model;
    s.seq_len = o.seq_len;
    s.lesson = o.lesson;
    s.step = o.step;
    s.show = o.show;
    s.actions = o.actions;
    s.save_as = o.save_as;
    s.capture = !o.screenshot.empty();
    return s;
}

// A requested screenshot is taken from the frame after the request, not the frame of it: the menu
// whose item asked is drawn in that frame and has closed by the next.
void take_requested_screenshot(ui::AppState& state, GLFWwindow* window, int& in_frames) {
    if (in_frames == 0) take_screenshot(state, window, host::timestamped_screenshot_path(std::filesystem::current_path().string()));
    if (in_frames >= 0) --in_frames;
    if (!state.requests.screenshot) return;
    state.requests.screenshot = false;
    in_frames = 0;
    glfwPostEmptyEvent();  // the next frame comes now, not at the next input
}

// Idle, the window waits for input. Tests that drive it by xdotool read it frame by frame through
// --ui-probe and wait for frames to pass: for them it keeps drawing twice a second while idle.
constexpr double kProbedIdleWaitSeconds = 0.5;

double frame_wait(const ui::AppUi& ui, const Options& options) {
    const double wait = ui.frame_wait_seconds();
    return options.ui_probe.empty() ? wait : std::min(wait, kProbedIdleWaitSeconds);
}

// --screenshot: the frame as a PNG, and the exit code.
int save_capture(const std::string& path, int fb_w, int fb_h) {
    const std::string error = host::save_framebuffer_png(path, fb_w, fb_h);
    if (!error.empty()) std::fprintf(stderr, "shardscope: %s\n", error.c_str());
    else std::printf("wrote %s (%dx%d)\n", path.c_str(), fb_w, fb_h);
    return error.empty() ? 0 : 1;
}

}  // namespace

// A run that only saves (--save-as, no --screenshot or --ui-probe) needs no window and no display:
// the session starts as the window's would (scenario, model, lesson step, actions), writes the file
// and ends. Like a screenshot run it leaves the user's recent files and lesson progress alone.
class SaveOnlyPlatform final : public host::Platform {
public:
    void warn(const std::string& message) override { std::fprintf(stderr, "shardscope: %s\n", message.c_str()); }
    bool refuse_start(const std::string& message) override {
        warn(message);
        return true;
    }
    bool welcome_answered_before() override { return true; }
    void remember_welcome_answered() override {}
    std::map<std::string, int> load_lesson_progress() override { return {}; }
    void save_lesson_progress(const std::map<std::string, int>&) override {}
    void show_title(const std::string&) override {}
    void quit() override {}
};

int run_save_only(const Options& options) {
    SaveOnlyPlatform platform;
    host::Session session(platform);
    host::StartOptions start = start_options(options);
    start.capture = true;
    if (const auto refused = session.start(start)) return *refused;
    std::printf("saved %s\n", options.save_as.c_str());
    return 0;
}

int run_window(const Options& options) {
    if (!options.save_as.empty() && options.screenshot.empty() && options.ui_probe.empty()) return run_save_only(options);
    if (!start_glfw()) return 1;
    Window window;
    const bool capture = !options.screenshot.empty();
    // A screenshot is the same on every machine: scale 1.
    float scale = capture ? 1.0f : monitor_content_scale();
    if (!(window.handle = open_gl_window(options, scale))) return 1;
    std::string ini_path;
    const std::string ini_message = start_imgui(window.handle, scale, capture, ini_path);
    if (!ini_message.empty()) std::fprintf(stderr, "shardscope: %s\n", ini_message.c_str());
    DesktopPlatform platform(window.handle);
    host::Session session(platform);
    ui::AppState& state = session.state;
    fill_library_versions(state);
    if (!ini_message.empty()) state.ui.status = ini_message;
    if (const auto refused = session.start(start_options(options))) return *refused;

    int exit_code = 0;
    const double start = glfwGetTime();
    int settle_frames = kSettleFrames;
    int screenshot_in_frames = -1;
    for (int frame = 0; !glfwWindowShouldClose(window.handle); ++frame) {
        wait_or_poll(capture ? 0.0 : frame_wait(session.ui, options), settle_frames);
        if (g_new_content_scale > 0 && g_new_content_scale != scale) rescale_fonts_and_style(scale = g_new_content_scale);
        g_new_content_scale = 0;
        open_dropped_files(state);
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        // Nor does a screenshot depend on where the display's pointer happens to rest: no hover, no tooltip.
        if (capture) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        ImGui::NewFrame();
        session.ui.draw_frame(state, static_cast<float>(glfwGetTime() - start));
        // A layout read from imgui.ini is placed on the first frame; one whose panels cover each other
        // (saved during a lesson, say) or leave part of the window empty (saved with a panel open
        // that does not open at start) is tiled again before anyone sees it twice.
        if (frame == 1 && ImGui::GetIO().IniFilename && options.show.empty() && options.lesson.empty())
            (void)session.ui.registry().tile_unless_tiled();
        // Tests that drive this window with xdotool read where things are from here.
        if (!options.ui_probe.empty())
            (void)host::write_file_atomically(options.ui_probe, ui::ui_probe_json(session.ui.registry(), state));
        ImGui::Render();
        host::release_latched_keys(window.handle);
        int fb_w, fb_h;
        glfwGetFramebufferSize(window.handle, &fb_w, &fb_h);
        host::paint_frame(fb_w, fb_h);
        if (capture && frame + 1 >= options.frames) {
            exit_code = save_capture(options.screenshot, fb_w, fb_h);
            break;
        }
        take_requested_screenshot(state, window.handle, screenshot_in_frames);
        glfwSwapBuffers(window.handle);
        if (std::exchange(g_close_clicked, false)) state.requests.quit = true;
        session.after_frame();
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    return exit_code;
}

}  // namespace shardscope::app
