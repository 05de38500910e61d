#include "host/session.hpp"

#include "host/cluster_presets.hpp"
#include "host/file_io.hpp"
#include "host/scenario_files.hpp"
#include "host/teaching_files.hpp"
#include "widgets/teaching/lesson_panel.hpp"

namespace shardscope::host {

bool Platform::welcome_answered_before() { return host::welcome_answered_before(); }
void Platform::remember_welcome_answered() { host::remember_welcome_answered(); }
std::map<std::string, int> Platform::load_lesson_progress() { return host::load_lesson_progress(); }
void Platform::save_lesson_progress(const std::map<std::string, int>& reached) { host::save_lesson_progress(reached); }

Session::Session(Platform& platform) : platform_(platform) {}

std::optional<int> Session::refuse(const std::string& message, int exit_code) {
    if (platform_.refuse_start(message)) refused_ = exit_code;
    return refused_;
}

namespace {

// A plain first start offers the lessons; one asked for a file, lesson or panel already knows where
// it is going.
bool is_plain_start(const StartOptions& o) {
    return o.may_welcome && !o.capture && o.config.empty() && !o.link_scenario && o.model.empty() && o.lesson.empty() &&
           o.show.empty() && o.actions.empty();
}

}  // namespace

bool Session::opened_requested_documents(const StartOptions& options) {
    if (!options.config.empty() && !open_scenario_file(state, options.config)) {
        // As `report` says it: the file, then its field and rule.
        const std::string& why = state.ui.error_message;
        const bool names_file = why.rfind(options.config, 0) == 0;
        return !refuse((names_file ? "" : options.config + ": ") + why, 2);
    }
    if (options.link_scenario) {
        state.open_document(*options.link_scenario, "");
        state.ui.status = "Opened the scenario in the link";
    }
    // Without a length a person is asked the one to train a Hugging Face config at; a screenshot run
    // keeps the scenario's.
    const bool imported = options.model.empty() ||
                          (options.seq_len || options.capture ? import_model_file(state, options.model, options.seq_len)
                                                              : begin_model_import(state, options.model));
    if (!imported) return !refuse(options.model + ": " + state.ui.error_message, 2);
    return true;
}

// Lessons, glossary, cheat sheet and presets: a broken file is reported and the rest still load; a
// missing data folder is said once, not once per file.
void Session::load_shipped_data() {
    if (const std::string missing = missing_data_message(); !missing.empty()) {
        platform_.warn(missing);
        return;
    }
    for (const std::string& error : load_teaching_files(ui.registry(), data_dir())) platform_.warn(error);
    for (const std::string& error : load_cluster_presets(ui.registry(), data_dir())) platform_.warn(error);
    for (const std::string& error : load_model_presets(ui.registry(), data_dir())) platform_.warn(error);
}

bool Session::showed_requested_panels(const StartOptions& options) {
    if (!options.show.empty()) {
        if (const auto unknown = ui.registry().show_only(options.show); !unknown.empty())
            return !refuse("--show: \"" + unknown.front() + "\" is not a panel id (panels: " + ui.registry().id_list() + ")", 2);
    }
    for (const std::string& action : options.actions) {
        if (std::string error = ui.registry().run_action(state, action); !error.empty())
            return !refuse("--action " + error, 2);
    }
    return true;
}

std::optional<int> Session::start(const StartOptions& options) {
    keeps_user_state_ = !options.capture;
    if (state.ui.keeps_recent_files) state.ui.recent_files = load_recent_files();
    state.ui.remember_user_files = state.ui.remember_user_files && keeps_user_state_;
    state.ui.show_welcome = is_plain_start(options) && !platform_.welcome_answered_before();
    state.ui.requested_lesson = options.lesson;
    state.ui.requested_step = options.step;
    if (!opened_requested_documents(options)) return refused_;
    load_shipped_data();
    // Progress from earlier runs; a screenshot run neither reads nor writes the user's state.
    lessons_ = dynamic_cast<ui::LessonPanel*>(ui.registry().find("lesson"));
    if (lessons_ && keeps_user_state_) lessons_->restore_progress(platform_.load_lesson_progress());
    saved_progress_ = lessons_ ? lessons_->progress_version() : 0;
    if (!options.lesson.empty()) {
        if (std::string error = open_requested_lesson(ui.registry(), state); !error.empty()) {
            if (refuse(options.lesson_source + ": " + error, 2)) return refused_;
        } else if (options.link_scenario) {
            // A lesson step brings its own scenario; a link's, when it has one, is what was on screen.
            state.open_document(*options.link_scenario, "");
            if (lessons_) lessons_->stay_over_current_scenario(state);
        }
    }
    if (!showed_requested_panels(options)) return refused_;
    // Saved after the lesson step and the actions set the scenario up: what is saved is what shows.
    if (!options.save_as.empty() && !save_scenario_file(state, options.save_as)) {
        if (refuse(state.ui.error_message, 1)) return refused_;
    }
    return std::nullopt;
}

void Session::after_frame() {
    handle_file_requests(state);
    if (state.ui.welcome_answered) {
        state.ui.welcome_answered = false;
        platform_.remember_welcome_answered();
    }
    if (lessons_ && keeps_user_state_ && lessons_->progress_version() != saved_progress_) {
        saved_progress_ = lessons_->progress_version();
        platform_.save_lesson_progress(lessons_->progress());
    }
    // With unsaved edits the question comes first, and the app stays until it is answered.
    if (state.requests.quit) {
        state.requests.quit = false;
        if (state.may_discard_edits({ui::DiscardAction::quit, {}})) platform_.quit();
    }
    if (std::string title = ui::window_title(state); title != shown_title_) {
        shown_title_ = std::move(title);
        platform_.show_title(shown_title_);
    }
}

}  // namespace shardscope::host
