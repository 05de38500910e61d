#include "app/window.hpp"

#include "app/cluster_presets.hpp"
#include "app/file_io.hpp"
#include "app/imgui_settings.hpp"
#include "app/key_latch.hpp"
#include "app/paint_frame.hpp"
#include "app/scenario_files.hpp"
#include "app/screenshot.hpp"
#include "app/system_font.hpp"
#include "app/teaching_files.hpp"
#include "widgets/teaching/lesson_panel.hpp"
#include "widgets/shell/style.hpp"
#include "widgets/shell/ui_probe.hpp"
#include "widgets/ui_frame.hpp"

#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <nlohmann/json.hpp>
#include <stb/stb_image.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
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
    const std::string path = data_dir() + "/assets/icons/shardscope.png";
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
    if (std::string error = save_framebuffer_png(path, w, h); !error.empty()) state.show_error("Screenshot failed", error);
    else state.ui.status = "Screenshot saved to " + std::filesystem::absolute(path).string();
}

// Ctrl+Q, File > Quit and the close button all ask to quit; with unsaved edits the question comes
// first and the window stays until it is answered.
void quit_when_nothing_is_lost(ui::AppState& state, GLFWwindow* window) {
    if (g_close_clicked) {
        g_close_clicked = false;
        state.requests.quit = true;
    }
    if (!state.requests.quit) return;
    state.requests.quit = false;
    if (state.may_discard_edits({ui::DiscardAction::quit, {}})) glfwSetWindowShouldClose(window, GLFW_TRUE);
}

// The file's name and the unsaved mark in the title bar, set only when they change.
void show_title(const ui::AppState& state, GLFWwindow* window, std::string& shown) {
    std::string title = ui::window_title(state);
    if (title == shown) return;
    shown = std::move(title);
    glfwSetWindowTitle(window, shown.c_str());
}

struct Window {
    GLFWwindow* handle = nullptr;
    ~Window() {
        if (handle) glfwDestroyWindow(handle);
        glfwTerminate();
    }
};

}  // namespace

int run_window(const Options& options) {
    glfwSetErrorCallback(&on_glfw_error);
    if (!glfwInit()) {
        std::fprintf(stderr,
                     "shardscope: no display to open a window on. On a headless machine run it under Xvfb, e.g.\n"
                     "  xvfb-run -a -s '-screen 0 1920x1200x24' shardscope --screenshot shardscope.png\n");
        return 1;
    }
    Window window;
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_FALSE);
    const bool headless_capture = !options.screenshot.empty();
    // A screenshot is the same on every machine: scale 1.
    float scale = headless_capture ? 1.0f : monitor_content_scale();
    int width, height;
    window_size_for(options, scale, width, height);
    window.handle = glfwCreateWindow(width, height, "Shardscope", nullptr, nullptr);
    if (!window.handle) {
        std::fprintf(stderr, "shardscope: could not create an OpenGL 3.3 core window\n");
        return 1;
    }
    glfwMakeContextCurrent(window.handle);
    if (!gladLoadGL(glfwGetProcAddress)) {
        std::fprintf(stderr, "shardscope: could not load OpenGL functions\n");
        return 1;
    }
    glfwSwapInterval(headless_capture ? 0 : 1);
    glfwSetDropCallback(window.handle, &on_drop);
    glfwSetWindowCloseCallback(window.handle, &on_close_clicked);
    set_window_icon(window.handle);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    // Layout persists in the user's config folder, never the working directory; a screenshot run
    // uses the default layout so it is the same on every machine.
    const std::string ini_path = headless_capture ? std::string() : config_dir().empty() ? std::string()
                                                                   : config_dir() + "/" + imgui_settings_file_name(scale);
    // ImGui reads the file unchecked: a broken one is set aside before it can crash every start.
    const ImGuiSettingsCheck ini_check = ini_path.empty() ? ImGuiSettingsCheck{} : set_aside_broken_imgui_settings(ini_path);
    if (!ini_check.message.empty()) std::fprintf(stderr, "shardscope: %s\n", ini_check.message.c_str());
    io.IniFilename = ini_path.empty() || !ini_check.readable ? nullptr : ini_path.c_str();
    load_fonts(scale);
    ui::apply_style(scale);
    if (!headless_capture) glfwSetWindowContentScaleCallback(window.handle, &on_content_scale);
    ImGui_ImplGlfw_InitForOpenGL(window.handle, true);
    install_key_latch(window.handle);
    ImGui_ImplOpenGL3_Init("#version 330 core");

    ui::AppState state;
    ui::AppUi ui_root;
    fill_library_versions(state);
    if (!ini_check.message.empty()) state.ui.status = ini_check.message;
    state.ui.recent_files = load_recent_files();
    state.ui.remember_user_files = !headless_capture;
    state.ui.requested_lesson = options.lesson;
    // A plain first start offers the lessons; one asked for a file, lesson or panel already knows
    // where it is going.
    state.ui.show_welcome = !headless_capture && options.config.empty() && !options.link_scenario &&
                            options.model.empty() && options.lesson.empty() &&
                            options.show.empty() && options.actions.empty() && !welcome_answered_before();
    state.ui.requested_step = options.step;
    if (!options.config.empty() && !open_scenario_file(state, options.config)) {
        // As `report` says it: the file, then its field and rule.
        const std::string& why = state.ui.error_message;
        const bool names_file = why.rfind(options.config, 0) == 0;
        std::fprintf(stderr, "shardscope: %s%s\n", names_file ? "" : (options.config + ": ").c_str(), why.c_str());
        return 2;
    }
    if (options.link_scenario) {
        state.open_document(*options.link_scenario, "");
        state.ui.status = "Opened the scenario in the link";
    }
    // Without --seq-len a person is asked the length to train a Hugging Face config at; a screenshot
    // run keeps the scenario's.
    const bool imported = options.model.empty() ||
                          (options.seq_len || headless_capture ? import_model_file(state, options.model, options.seq_len)
                                                               : begin_model_import(state, options.model));
    if (!imported) {
        std::fprintf(stderr, "shardscope: %s: %s\n", options.model.c_str(), state.ui.error_message.c_str());
        return 2;
    }

    // Lessons, glossary, cheat sheet and presets: a broken file is reported and the rest still load;
    // a missing data folder is said once, not once per file.
    const std::string missing_data = missing_data_message();
    if (!missing_data.empty()) std::fprintf(stderr, "shardscope: %s\n", missing_data.c_str());
    else
        for (const std::string& error : load_teaching_files(ui_root.registry(), data_dir()))
            std::fprintf(stderr, "shardscope: %s\n", error.c_str());
    // Progress from earlier runs; a screenshot run neither reads nor writes the user's state.
    auto* lessons = dynamic_cast<ui::LessonPanel*>(ui_root.registry().find("lesson"));
    if (lessons && !headless_capture) lessons->restore_progress(load_lesson_progress());
    unsigned long saved_progress = lessons ? lessons->progress_version() : 0;
    if (std::string error = open_requested_lesson(ui_root.registry(), state); !error.empty()) {
        std::fprintf(stderr, "shardscope: --lesson: %s\n", error.c_str());
        return 2;
    }
    // A lesson step brings its own scenario; a link's, when it has one, is what was on screen.
    if (options.link_scenario && !options.lesson.empty()) {
        state.open_document(*options.link_scenario, "");
    }
    if (missing_data.empty()) {
        for (const std::string& error : load_cluster_presets(ui_root.registry(), data_dir()))
            std::fprintf(stderr, "shardscope: %s\n", error.c_str());
        for (const std::string& error : load_model_presets(ui_root.registry(), data_dir()))
            std::fprintf(stderr, "shardscope: %s\n", error.c_str());
    }
    if (!options.show.empty()) {
        if (const auto unknown = ui_root.registry().show_only(options.show); !unknown.empty()) {
            std::fprintf(stderr, "shardscope: --show: \"%s\" is not a panel id (panels: %s)\n", unknown.front().c_str(),
                         ui_root.registry().id_list().c_str());
            return 2;
        }
    }
    for (const std::string& action : options.actions) {
        if (std::string error = ui_root.registry().run_action(state, action); !error.empty()) {
            std::fprintf(stderr, "shardscope: --action %s\n", error.c_str());
            return 2;
        }
    }
    // Saved after the lesson step and the actions set the scenario up: what is saved is what shows.
    if (!options.save_as.empty() && !save_scenario_file(state, options.save_as)) {
        std::fprintf(stderr, "shardscope: %s\n", state.ui.error_message.c_str());
        return 1;
    }

    int exit_code = 0;
    std::string shown_title = "Shardscope";
    const double start = glfwGetTime();
    int settle_frames = kSettleFrames;
    // A requested screenshot is taken from the next frame (0: this coming one), not the frame of the
    // request: the menu whose item asked for it is drawn in that frame and has closed by the next.
    int screenshot_in_frames = -1;
    for (int frame = 0; !glfwWindowShouldClose(window.handle); ++frame) {
        wait_or_poll(headless_capture ? 0.0 : ui_root.frame_wait_seconds(), settle_frames);
        if (g_new_content_scale > 0 && g_new_content_scale != scale) {
            scale = g_new_content_scale;
            rescale_fonts_and_style(scale);
        }
        g_new_content_scale = 0;
        open_dropped_files(state);
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        ui_root.draw_frame(state, static_cast<float>(glfwGetTime() - start));
        // A layout read from imgui.ini is placed on the first frame; one whose panels cover each other
        // (saved during a lesson, say) or leave part of the window empty (saved with a panel open
        // that does not open at start) is tiled again before anyone sees it twice.
        if (frame == 1 && io.IniFilename && options.show.empty() && options.lesson.empty())
            (void)ui_root.registry().tile_unless_tiled();
        // Tests that drive this window with xdotool read where things are from here.
        if (!options.ui_probe.empty()) (void)write_file_atomically(options.ui_probe, ui::ui_probe_json(ui_root.registry(), state));
        ImGui::Render();
        release_latched_keys(window.handle);
        int fb_w, fb_h;
        glfwGetFramebufferSize(window.handle, &fb_w, &fb_h);
        paint_frame(fb_w, fb_h);

        if (headless_capture && frame + 1 >= options.frames) {
            const std::string error = save_framebuffer_png(options.screenshot, fb_w, fb_h);
            if (!error.empty()) std::fprintf(stderr, "shardscope: %s\n", error.c_str());
            else std::printf("wrote %s (%dx%d)\n", options.screenshot.c_str(), fb_w, fb_h);
            exit_code = error.empty() ? 0 : 1;
            break;
        }
        if (screenshot_in_frames == 0)
            take_screenshot(state, window.handle, timestamped_screenshot_path(std::filesystem::current_path().string()));
        if (screenshot_in_frames >= 0) --screenshot_in_frames;
        if (state.requests.screenshot) {
            state.requests.screenshot = false;
            screenshot_in_frames = 0;
            glfwPostEmptyEvent();  // the next frame comes now, not at the next input
        }
        glfwSwapBuffers(window.handle);
        handle_file_requests(state);
        if (state.ui.welcome_answered) {
            state.ui.welcome_answered = false;
            remember_welcome_answered();
        }
        if (lessons && !headless_capture && lessons->progress_version() != saved_progress) {
            saved_progress = lessons->progress_version();
            save_lesson_progress(lessons->progress());
        }
        quit_when_nothing_is_lost(state, window.handle);
        show_title(state, window.handle, shown_title);
    }

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    return exit_code;
}

}  // namespace shardscope::app
