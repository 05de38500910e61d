// The browser page's entry point: the desktop's session (host/session.hpp: every panel, lesson and
// dialog, started in the same order) on a WebGL2 canvas that fills the page. What differs from
// app/window.cpp is only what a browser does its own way: the page's size and devicePixelRatio, files
// through the browser's picker, drops and downloads, the clipboard, local storage, and the address
// bar, which follows what is on screen (core/scenario/share_link.hpp).
#include "host/file_io.hpp"
#include "host/gl.hpp"
#include "host/key_latch.hpp"
#include "host/paint_frame.hpp"
#include "host/scenario_files.hpp"
#include "host/screenshot.hpp"
#include "host/session.hpp"
#include "host/teaching_files.hpp"
#include "core/scenario/share_link.hpp"
#include "widgets/shell/style.hpp"
#include "widgets/shell/ui_probe.hpp"
#include "widgets/teaching/lesson_panel.hpp"
#include "widgets/ui_frame.hpp"

#include <emscripten.h>
#include <emscripten/html5.h>
#define GLFW_INCLUDE_ES3
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

// ---- The page's side ------------------------------------------------------------------------------

// The page's address, as the browser shows it.
EM_JS(char*, js_page_address, (), { return allocateUTF8(location.href); });
// The address bar says what is on screen. A new lesson step is a new entry in the tab's history (so
// the browser's Back goes to the step before); any other change rewrites the current one.
EM_JS(void, js_show_address, (const char* url, int new_entry), {
    const u = UTF8ToString(url);
    if (location.href === u) return;
    if (new_entry) history.pushState(null, "", u);
    else history.replaceState(null, "", u);
});
EM_JS(void, js_set_title, (const char* title), { document.title = UTF8ToString(title); });
// The canvas's size in CSS pixels (the page lays it out) and the device pixels per CSS pixel.
EM_JS(double, js_pixel_ratio, (), { return window.devicePixelRatio || 1; });
EM_JS(int, js_page_width, (), { return Math.max(1, Math.floor(window.innerWidth)); });
EM_JS(int, js_page_height, (), { return Math.max(1, Math.floor(window.innerHeight)); });
// Device pixels w x h shown over css_w x css_h CSS pixels. Emscripten's glfwSetWindowSize would ask for
// fullscreen instead when the size equals the screen's (a page as big as the screen, a kiosk), so the
// canvas is sized here and GLFW's record of the window kept with it.
EM_JS(void, js_size_canvas, (int w, int h, int css_w, int css_h), {
    Browser.setCanvasSize(w, h);
    if (GLFW.active) {
        GLFW.active.width = w;
        GLFW.active.height = h;
    }
    const c = Module["canvas"];
    c.style.width = css_w + "px";
    c.style.height = css_h + "px";
});
// Asks the browser's file picker for one file, copies it into the page's file system under
// /home/web_user/picked/ and hands its path back to shardscope_file_picked.
EM_JS(void, js_pick_file, (int purpose, const char* accept), {
    const input = document.createElement("input");
    input.type = "file";
    input.accept = UTF8ToString(accept);
    input.onchange = async () => {
        const file = input.files && input.files[0];
        if (!file) return;
        const dir = "/home/web_user/picked";
        FS.mkdirTree(dir);
        const path = dir + "/" + file.name.split("/").join("_");
        FS.writeFile(path, new Uint8Array(await file.arrayBuffer()));
        ccall("shardscope_file_picked", null, ["string", "number"], [path, purpose]);
    };
    input.click();
});
// Hands a file the app wrote to the browser as a download named `name`.
EM_JS(void, js_download, (const char* path, const char* name, const char* mime), {
    const data = FS.readFile(UTF8ToString(path));
    const url = URL.createObjectURL(new Blob([data], {type: UTF8ToString(mime)}));
    const a = document.createElement("a");
    a.href = url;
    a.download = UTF8ToString(name);
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    Module.downloads = (Module.downloads || []).concat([UTF8ToString(name)]);
});
// The first-run welcome, asked once per browser (its local storage), as the desktop asks once per user.
EM_JS(int, js_welcome_answered_before, (), {
    try { return localStorage.getItem("shardscope.welcome-answered") ? 1 : 0; } catch (e) { return 0; }
});
EM_JS(void, js_remember_welcome_answered, (), {
    try { localStorage.setItem("shardscope.welcome-answered", "1"); } catch (e) {}
});
// The page's one lasting store of its own: how far this browser got in each lesson.
EM_JS(char*, js_stored_text, (const char* key), {
    try {
        const text = localStorage.getItem(UTF8ToString(key));
        return text === null ? 0 : allocateUTF8(text);
    } catch (e) { return 0; }
});
EM_JS(void, js_store_text, (const char* key, const char* text), {
    try { localStorage.setItem(UTF8ToString(key), UTF8ToString(text)); } catch (e) {}
});
EM_JS(void, js_copy_text, (const char* text), {
    const t = UTF8ToString(text);
    Module.copiedText = t;
    if (navigator.clipboard) navigator.clipboard.writeText(t).catch(() => {});
});
// The loading screen goes once the first frame is drawn; tests wait on framesDrawn.
EM_JS(void, js_frame_drawn, (int frames), {
    Module.framesDrawn = frames;
    if (frames === 1 && Module.onFirstFrame) Module.onFirstFrame();
});

namespace {

using namespace shardscope;

constexpr const char* kFontFile = "/fonts/DejaVuSans.ttf";
constexpr const char* kDownloads = "/tmp/downloads";
constexpr const char* kProgressKey = "shardscope.lesson-progress";

enum class Picked { scenario = 1, model = 2 };

// The page's side of a session: lines for the person in the browser's console, a start request that
// cannot be carried out in the error dialog (the page opens as it would without it), the first-run
// answer and lesson progress in the browser's local storage, the tab's title. A tab is closed, not quit.
class WebPlatform final : public host::Platform {
public:
    void warn(const std::string& message) override;
    bool refuse_start(const std::string& message) override;
    bool welcome_answered_before() override { return js_welcome_answered_before() != 0; }
    void remember_welcome_answered() override { js_remember_welcome_answered(); }
    std::map<std::string, int> load_lesson_progress() override;
    void save_lesson_progress(const std::map<std::string, int>& reached) override;
    void show_title(const std::string& title) override { js_set_title(title.c_str()); }
    void quit() override {}
};

struct WebApp {
    GLFWwindow* window = nullptr;
    WebPlatform platform;
    host::Session session{platform};
    ui::AppState& state = session.state;
    ui::AppUi& ui = session.ui;
    ui::LessonPanel* lessons = nullptr;
    float scale = 0;  // devicePixelRatio the fonts and style were built for
    int css_w = 0, css_h = 0;
    int frames = 0;
    double start = 0;
    std::string page_base;  // the address without query or fragment
    std::string shown_address;
    std::string address_key;  // what shown_address was made from: scenario version, lesson and step
    std::string shown_place;  // lesson_place() when shown_address was made
    std::string probe;  // ui_probe_json as last asked for by the page's tests
    std::vector<std::string> dropped;
    // Idle, the page draws only when input arrives or AppUi's wait runs out (as the desktop window
    // does): a page left open in a tab should not keep a core busy. After input it draws a few frames
    // so that ImGui settles (hover, a widget's release).
    int settle_frames = 3;
    double last_drawn_s = 0;
    // Milliseconds each drawn frame took, the last kFrameTimes of them (Module.frameMs()).
    std::vector<double> frame_ms;
};

constexpr int kSettleFrames = 3;
constexpr std::size_t kFrameTimes = 120;

WebApp* g_app = nullptr;

void WebPlatform::warn(const std::string& message) { std::fprintf(stderr, "%s\n", message.c_str()); }

bool WebPlatform::refuse_start(const std::string& message) {
    g_app->state.show_error("This link could not be opened", message);
    return false;
}

// Lesson progress goes through the desktop's own file and reader (host/file_io.cpp), mirrored in the
// browser's local storage so that it outlasts the page.
std::map<std::string, int> WebPlatform::load_lesson_progress() {
    if (char* text = js_stored_text(kProgressKey)) {
        (void)host::write_file_atomically(host::lesson_progress_file(), text);
        std::free(text);
    }
    return host::load_lesson_progress();
}

void WebPlatform::save_lesson_progress(const std::map<std::string, int>& reached) {
    host::save_lesson_progress(reached);
    std::string error;
    if (const auto text = host::read_text_file(host::lesson_progress_file(), error)) js_store_text(kProgressKey, text->c_str());
}

void load_fonts(float scale) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    if (io.Fonts->AddFontFromFileTTF(kFontFile, ui::kBaseFontPixels * scale)) return;
    ImFontConfig config;
    config.SizePixels = 13.0f * scale;
    io.Fonts->AddFontDefault(&config);
}

// The canvas fills the page at the device's own pixels: ImGui draws in device pixels, its fonts and
// sizes scaled by devicePixelRatio (as the desktop scales by the monitor's content scale).
// True when the size or ratio changed.
bool fit_canvas_to_page(WebApp& app) {
    const int css_w = js_page_width(), css_h = js_page_height();
    const float ratio = std::clamp(static_cast<float>(js_pixel_ratio()), 1.0f, 4.0f);
    if (css_w == app.css_w && css_h == app.css_h && ratio == app.scale) return false;
    app.css_w = css_w;
    app.css_h = css_h;
    js_size_canvas(static_cast<int>(std::lround(css_w * ratio)), static_cast<int>(std::lround(css_h * ratio)), css_w, css_h);
    if (ratio == app.scale) return true;
    app.scale = ratio;
    load_fonts(ratio);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    ImGui::GetStyle() = ImGuiStyle();
    ui::apply_style(ratio);
    return true;
}

std::string without_query_or_fragment(const std::string& url) {
    return url.substr(0, std::min(url.find('?'), url.find('#')));
}

// What the address bar says: the open lesson and its step, and the scenario when it is not the one
// the page starts with (or the lesson step's own).
std::string current_address(const WebApp& app) {
    ShareLink link;
    const Lesson* lesson = app.lessons ? app.lessons->current_lesson() : nullptr;
    if (lesson && app.lessons->open) {
        link.lesson = lesson->id;
        link.step = app.lessons->step_index() + 1;
    }
    const LessonStep* step = lesson ? app.lessons->current_step() : nullptr;
    const Scenario& shown = app.state.scenario();
    const bool step_scenario = step && shown == step->scenario;
    if (!step_scenario && shown != default_scenario()) link.scenario = shown;
    return share_link(app.page_base, link);
}

// The open lesson and step, "" when none: what decides a new history entry.
std::string lesson_place(const WebApp& app) {
    const Lesson* lesson = app.lessons ? app.lessons->current_lesson() : nullptr;
    if (!lesson || !app.lessons->open) return {};
    return lesson->id + "|" + std::to_string(app.lessons->step_index());
}

// Made again only when the scenario, the lesson or its step changed: it serialises the scenario.
void show_address(WebApp& app) {
    std::string place = lesson_place(app);
    std::string key = std::to_string(app.state.version()) + "|" + place;
    if (key == app.address_key) return;
    app.address_key = std::move(key);
    const bool new_place = place != app.shown_place;
    app.shown_place = std::move(place);
    if (std::string address = current_address(app); address != app.shown_address) {
        app.shown_address = std::move(address);
        js_show_address(app.shown_address.c_str(), new_place ? 1 : 0);
    }
}

// A Save or an export: written into the page's file system as the desktop writes a file, then handed
// to the browser as a download.
void download(const std::string& path, const char* mime) {
    js_download(path.c_str(), std::filesystem::path(path).filename().c_str(), mime);
}

std::string download_path(const std::string& name) {
    std::filesystem::create_directories(kDownloads);
    return std::string(kDownloads) + "/" + name;
}

std::string scenario_file_name(const ui::AppState& state) {
    const std::string current = std::filesystem::path(state.ui.current_file).filename().string();
    return current.empty() ? "shardscope-scenario.json" : current;
}

// Every save is a download: the page has no file of the person's to write back to.
void save_as_download(ui::AppState& state, const std::string& name) {
    const std::string path = download_path(name);
    if (!host::save_scenario_file(state, path)) {
        state.ui.after_save.reset();
        return;
    }
    download(path, "application/json");
    state.ui.status = "Downloaded the scenario as " + name;
}

// The menus ask for the desktop's file dialog; the page answers with the browser's own ways.
void answer_file_dialog(WebApp& app) {
    ui::AppState& state = app.state;
    const ui::FileDialogMode mode = state.ui.file_dialog;
    if (mode == ui::FileDialogMode::none) return;
    state.ui.file_dialog = ui::FileDialogMode::none;
    switch (mode) {
        case ui::FileDialogMode::open:
            js_pick_file(static_cast<int>(Picked::scenario), ".json,application/json");
            break;
        case ui::FileDialogMode::import_model:
            js_pick_file(static_cast<int>(Picked::model), ".json,application/json");
            break;
        case ui::FileDialogMode::save: save_as_download(state, scenario_file_name(state)); break;
        case ui::FileDialogMode::export_trace: {
            const std::string path = download_path("shardscope-trace.json");
            if (!host::export_trace_file(state, path)) break;
            download(path, "application/json");
            state.ui.status = "Downloaded the simulated step as shardscope-trace.json (open it in ui.perfetto.dev or "
                              "chrome://tracing)";
            break;
        }
        case ui::FileDialogMode::none: break;
    }
}

void open_dropped_files(WebApp& app) {
    for (const std::string& path : app.dropped) {
        if (std::filesystem::path(path).extension() == ".json") {
            app.state.requests.open_path = path;
            break;
        }
        app.state.show_error("Dropped file ignored", std::filesystem::path(path).filename().string() +
                                                         ": only scenarios and model configs (*.json) can be opened");
    }
    app.dropped.clear();
}

void on_drop(GLFWwindow*, int count, const char** paths) {
    for (int i = 0; i < count; ++i) g_app->dropped.emplace_back(paths[i]);
    g_app->settle_frames = kSettleFrames;
}

// Set before ImGui's backend installs its own, which then calls these after its work.
void on_cursor(GLFWwindow*, double, double) { g_app->settle_frames = kSettleFrames; }
void on_button(GLFWwindow*, int, int, int) { g_app->settle_frames = kSettleFrames; }
void on_scroll(GLFWwindow*, double, double) { g_app->settle_frames = kSettleFrames; }
void on_key(GLFWwindow*, int, int, int, int) { g_app->settle_frames = kSettleFrames; }
void on_char(GLFWwindow*, unsigned int) { g_app->settle_frames = kSettleFrames; }

bool may_stay_idle(WebApp& app) {
    if (app.settle_frames > 0) {
        --app.settle_frames;
        return false;
    }
    return glfwGetTime() - app.last_drawn_s < app.ui.frame_wait_seconds();
}

void take_screenshot(WebApp& app) {
    int w, h;
    glfwGetFramebufferSize(app.window, &w, &h);
    const std::string path = download_path(host::timestamped_screenshot_path(kDownloads).substr(std::string(kDownloads).size() + 1));
    if (std::string error = host::save_framebuffer_png(path, w, h); !error.empty()) {
        app.state.show_error("Screenshot failed", error);
        return;
    }
    download(path, "image/png");
    app.state.ui.status = "Downloaded the screenshot as " + std::filesystem::path(path).filename().string();
}

// The page's own folders (where picked and dropped files land, where downloads are written) mean
// nothing to the person: messages name the file alone.
void drop_page_folders(std::string& message) {
    for (const char* folder : {"/home/web_user/picked/", "/.glfw_dropped_files/", "/tmp/downloads/"})
        for (std::size_t at; (at = message.find(folder)) != std::string::npos;) message.erase(at, std::strlen(folder));
}

void set_clipboard(void*, const char* text) { js_copy_text(text); }
const char* get_clipboard(void*) {
    static std::string copied;
    copied = g_app ? g_app->state.ui.last_copied : std::string();
    return copied.c_str();
}

// What the frame's widgets asked for that the page answers its own way: file dialogs, screenshots,
// saves and downloads. The rest is the session's, as on the desktop.
void carry_out_page_requests(WebApp& app) {
    ui::AppState& state = app.state;
    // In the frame that asked, while the click that asked is fresh: a browser opens its file picker
    // only soon after a person's input.
    answer_file_dialog(app);
    if (state.requests.screenshot) {
        state.requests.screenshot = false;
        take_screenshot(app);
    }
    // Save (Ctrl+S) with a file already named saves to it on the desktop; here it downloads it again.
    if (state.requests.save_path) {
        const std::string name = std::filesystem::path(*state.requests.save_path).filename().string();
        state.requests.save_path.reset();
        save_as_download(state, name);
    }
    if (state.requests.download) {
        const ui::TextDownload file = std::move(*state.requests.download);
        state.requests.download.reset();
        const std::string path = download_path(file.name);
        if (std::string error = host::write_file_atomically(path, file.text); error.empty()) download(path, "text/csv");
        else state.show_error("Download failed", error);
    }
}

void draw_one_frame() {
    WebApp& app = *g_app;
    glfwPollEvents();
    if (fit_canvas_to_page(app)) app.settle_frames = kSettleFrames;
    if (may_stay_idle(app)) return;
    const double started_ms = emscripten_get_now();
    app.last_drawn_s = glfwGetTime();
    open_dropped_files(app);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    // The backend takes the time between frames from a clock that may not move between two of them;
    // ImGui refuses a frame that took no time.
    ImGuiIO& io = ImGui::GetIO();
    io.DeltaTime = std::max(io.DeltaTime, 1e-4f);
    ImGui::NewFrame();
    app.ui.draw_frame(app.state, static_cast<float>(glfwGetTime() - app.start));
    ImGui::Render();
    host::release_latched_keys(app.window);
    int fb_w, fb_h;
    glfwGetFramebufferSize(app.window, &fb_w, &fb_h);
    host::paint_frame(fb_w, fb_h);
    carry_out_page_requests(app);
    app.session.after_frame();
    drop_page_folders(app.state.ui.status);
    drop_page_folders(app.state.ui.error_message);
    drop_page_folders(app.state.ui.error_title);
    show_address(app);
    if (app.frame_ms.size() == kFrameTimes) app.frame_ms.erase(app.frame_ms.begin());
    app.frame_ms.push_back(emscripten_get_now() - started_ms);
    js_frame_drawn(++app.frames);
}

constexpr const char* kLinkRefused = "This link could not be opened";

// The page opens what its link asks for: a lesson and step, a scenario, or both, through the same
// start as the desktop's. A broken link is said in the error dialog and the page opens as it would
// without it.
void start_from_page_link(WebApp& app) {
    char* raw = js_page_address();
    const std::string address = raw;
    std::free(raw);
    app.page_base = without_query_or_fragment(address);
    host::StartOptions options;
    options.lesson_source = "link: lesson";
    std::string error;
    if (const auto link = parse_share_link(address, error)) {
        options.link_scenario = link->scenario;
        options.lesson = link->lesson;
        options.step = link->step > 0 ? link->step : 1;
    } else {
        app.state.show_error(kLinkRefused, error);
        options.may_welcome = false;
    }
    (void)app.session.start(options);
    app.lessons = app.session.lessons();
}

// The tab moved to another address of this page while it runs (Back, Forward, a pasted link).
void open_link(WebApp& app, const std::string& address) {
    std::string error;
    const auto link = parse_share_link(address, error);
    if (!link) {
        app.state.show_error(kLinkRefused, error);
        return;
    }
    if (link->scenario) {
        app.state.open_document(*link->scenario, "");
        app.state.ui.status = "Opened the scenario in the link";
    }
    if (link->lesson.empty()) {
        if (app.lessons) app.lessons->close_lesson();
        return;
    }
    app.state.ui.requested_lesson = link->lesson;
    app.state.ui.requested_step = link->step > 0 ? link->step : 1;
    if (std::string why = host::open_requested_lesson(app.ui.registry(), app.state); !why.empty())
        app.state.show_error(kLinkRefused, "link: lesson: " + why);
    // A lesson step brings its own scenario; the link's, when it has one, is what was on screen.
    if (link->scenario) {
        app.state.open_document(*link->scenario, "");
        if (app.lessons) app.lessons->stay_over_current_scenario(app.state);
    }
}

}  // namespace

extern "C" {

// The browser's picker chose a file (js_pick_file).
EMSCRIPTEN_KEEPALIVE void shardscope_file_picked(const char* path, int purpose) {
    if (!g_app) return;
    if (purpose == static_cast<int>(Picked::model)) g_app->state.requests.import_path = path;
    else g_app->state.requests.open_path = path;
    g_app->settle_frames = kSettleFrames;
}

// The tab went to another address of this page: Back or Forward through lesson steps (popstate), or
// a link pasted over the current one that differs only after the '#' (hashchange, no reload).
EMSCRIPTEN_KEEPALIVE void shardscope_open_link(const char* url) {
    if (!g_app || url == g_app->shown_address) return;
    open_link(*g_app, url);
    // What the address says is on screen now: no new history entry for it.
    g_app->shown_place = lesson_place(*g_app);
    g_app->shown_address = url;
    g_app->settle_frames = kSettleFrames;
}

// Opens only these panels, side by side (ids separated by commas, as the desktop's --show); "" or the
// first unknown id.
EMSCRIPTEN_KEEPALIVE const char* shardscope_show(const char* ids) {
    static std::string unknown;
    std::vector<std::string> list;
    std::string id;
    for (const char* c = ids;; ++c) {
        if (*c == ',' || *c == 0) {
            if (!id.empty()) list.push_back(id);
            id.clear();
            if (*c == 0) break;
        } else {
            id.push_back(*c);
        }
    }
    const auto missing = g_app->ui.registry().show_only(list);
    unknown = missing.empty() ? std::string() : missing.front();
    g_app->settle_frames = kSettleFrames;
    return unknown.c_str();
}

// The mean time the last drawn frames took to build and draw, in milliseconds (the README's figure).
EMSCRIPTEN_KEEPALIVE double shardscope_frame_ms() {
    if (!g_app || g_app->frame_ms.empty()) return 0;
    double sum = 0;
    for (double ms : g_app->frame_ms) sum += ms;
    return sum / static_cast<double>(g_app->frame_ms.size());
}

// Draw every frame from now on (true), as a benchmark of frame time needs, or only on input (false).
EMSCRIPTEN_KEEPALIVE void shardscope_draw_every_frame(int yes) {
    g_app->settle_frames = yes ? std::numeric_limits<int>::max() : kSettleFrames;
    g_app->frame_ms.clear();
}

// What the tests read: each frame's windows, widget rectangles, lesson state and scenario (the
// desktop's --ui-probe, as a string).
// Read between frames: the windows and item rectangles are the last drawn frame's.
EMSCRIPTEN_KEEPALIVE const char* shardscope_probe() {
    if (!g_app) return "{}";
    g_app->probe = ui::ui_probe_json(g_app->ui.registry(), g_app->state);
    return g_app->probe.c_str();
}

}  // extern "C"

int main() {
    if (!glfwInit()) {
        std::fprintf(stderr, "shardscope: GLFW could not start\n");
        return 1;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    static WebApp app;
    g_app = &app;
    app.window = glfwCreateWindow(js_page_width(), js_page_height(), "Shardscope", nullptr, nullptr);
    if (!app.window) {
        std::fprintf(stderr, "shardscope: no WebGL2 context\n");
        return 1;
    }
    glfwMakeContextCurrent(app.window);
    glfwSetDropCallback(app.window, &on_drop);
    glfwSetCursorPosCallback(app.window, &on_cursor);
    glfwSetMouseButtonCallback(app.window, &on_button);
    glfwSetScrollCallback(app.window, &on_scroll);
    glfwSetKeyCallback(app.window, &on_key);
    glfwSetCharCallback(app.window, &on_char);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the page starts tiled every time; its state travels in links
    io.SetClipboardTextFn = &set_clipboard;
    io.GetClipboardTextFn = &get_clipboard;
    ImGui_ImplGlfw_InitForOpenGL(app.window, true);
    host::install_key_latch(app.window);  // a key tapped within one frame is not lost (Ctrl+S, F12)
    ImGui_ImplOpenGL3_Init("#version 300 es");
    fit_canvas_to_page(app);

    const char* gl = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    app.state.ui.library_versions = {{"Dear ImGui", ImGui::GetVersion()},
                                     {"Emscripten", std::to_string(__EMSCRIPTEN_major__) + "." +
                                                        std::to_string(__EMSCRIPTEN_minor__) + "." +
                                                        std::to_string(__EMSCRIPTEN_tiny__)},
                                     {"WebGL", gl ? gl : "?"}};
    app.state.ui.can_quit = false;  // its tab closes it
    app.state.ui.keeps_recent_files = false;  // what it opened lives only as long as the page
    app.state.ui.remember_user_files = false;
    app.state.ui.host_file_dialogs = true;  // answered by answer_file_dialog
    start_from_page_link(app);
    app.start = glfwGetTime();
    emscripten_set_main_loop(&draw_one_frame, 0, false);
    return 0;
}
