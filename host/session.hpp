#pragma once
// One run of the app, on the desktop or in a browser page: the start-up order, written once, and the
// work after each frame. What the two do their own way (where a line for the person goes, where the
// first-run answer and lesson progress are kept, the title, quitting) is the Platform's.

#include "core/scenario/scenario.hpp"
#include "widgets/shell/app_state.hpp"
#include "widgets/ui_frame.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {
class LessonPanel;
}

namespace shardscope::host {

class Platform {
public:
    virtual ~Platform() = default;
    // A line worth telling but no dialog: a shipped file that could not be read, a layout set aside.
    virtual void warn(const std::string& message) = 0;
    // A start-up request that cannot be carried out. True: the app stops there (the desktop exits
    // with the code start() returns); false: it goes on without it (the page shows a dialog).
    virtual bool refuse_start(const std::string& message) = 0;
    // The first-run welcome is asked once per user; lesson progress outlasts the run. By default both
    // live in the user's config folder (host/file_io.hpp).
    virtual bool welcome_answered_before();
    virtual void remember_welcome_answered();
    virtual std::map<std::string, int> load_lesson_progress();
    virtual void save_lesson_progress(const std::map<std::string, int>& reached);
    // The window's or the page's title.
    virtual void show_title(const std::string& title) = 0;
    // Asked only once nothing unsaved would be lost.
    virtual void quit() = 0;
};

// What a start asks for, from the desktop's command line or the page's link.
struct StartOptions {
    std::string config;                     // a scenario file to open
    std::optional<Scenario> link_scenario;  // the scenario a link carries
    std::string model;                      // a model preset or Hugging Face config.json to import
    std::optional<int64_t> seq_len;         // the length to train the imported model at
    std::string lesson;                     // a lesson to open, at `step` (1-based)
    int step = 1;
    std::string lesson_source = "--lesson";  // how a refused lesson request is named
    std::vector<std::string> show;           // open only these panels, side by side
    std::vector<std::string> actions;        // panel actions, ID.NAME=VALUE, in order
    std::string save_as;                     // save the scenario as set up here
    // A screenshot run: the same on every machine, so it reads and writes none of the user's state
    // and asks nothing.
    bool capture = false;
    // False where the start already has something to say (a link that could not be read).
    bool may_welcome = true;
};

class Session {
public:
    explicit Session(Platform& platform);

    // Opens what the options ask for, in one order: the scenario, the link's scenario, the model, the
    // shipped lessons, glossary and presets, the user's lesson progress, the lesson, the panels, the
    // actions, the save. nullopt: the app runs; else the exit code of a start the platform stopped.
    [[nodiscard]] std::optional<int> start(const StartOptions& options);
    // After each drawn frame: the widgets' file requests, the welcome's answer, lesson progress, a
    // quit, the title.
    void after_frame();

    ui::AppState state;
    ui::AppUi ui;
    [[nodiscard]] ui::LessonPanel* lessons() const { return lessons_; }

private:
    std::optional<int> refuse(const std::string& message, int exit_code);
    [[nodiscard]] bool opened_requested_documents(const StartOptions& options);
    void load_shipped_data();
    [[nodiscard]] bool showed_requested_panels(const StartOptions& options);

    Platform& platform_;
    ui::LessonPanel* lessons_ = nullptr;
    bool keeps_user_state_ = true;
    unsigned long saved_progress_ = 0;
    std::string shown_title_;
    std::optional<int> refused_;
};

}  // namespace shardscope::host
