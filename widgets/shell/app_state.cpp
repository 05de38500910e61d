#include "widgets/shell/app_state.hpp"

#include "core/model/cost_model.hpp"
#include "core/planner/planner.hpp"

#include <algorithm>
#include <filesystem>

namespace shardscope::ui {

namespace {
constexpr size_t kMaxRecentFiles = 8;
}

AppState::AppState(Scenario initial) : scenario_(initial), history_(std::move(initial)), documents_(1) { mark_saved(); }

void AppState::set(const Scenario& s) {
    if (s == scenario_) return;
    scenario_ = s;
    ++version_;
}

std::string AppState::try_apply(const Scenario& candidate) {
    std::string rule = validate_scenario(candidate);
    if (!rule.empty()) return rule;
    set(candidate);
    pending_commit_ = true;
    return {};
}

std::string AppState::apply_step(const Scenario& candidate) {
    std::string rule = validate_scenario(candidate);
    if (!rule.empty()) return rule;
    end_frame(false);  // an earlier gesture still open is its own step
    set(candidate);
    history_.commit(candidate);
    return {};
}

void AppState::replace(const Scenario& loaded) {
    set(loaded);
    history_.commit(loaded);
    pending_commit_ = false;
}

void AppState::open_document(const Scenario& loaded, const std::string& file) {
    end_frame(false);  // an edit still open belongs to the document before
    set(loaded);
    documents_.push_back(Document{file, scenario_json()});
    history_.commit(loaded, documents_.size() - 1);
    ui.current_file = file;
}

void AppState::set_current_file(const std::string& path) {
    documents_[history_.tag()].file = path;
    ui.current_file = path;
}

void AppState::follow_document(size_t before, const char* what) {
    const Document& now = documents_[history_.tag()];
    ui.current_file = now.file;
    if (history_.tag() == before) return;
    ui.status = std::string(what) + ": back to " + (now.file.empty() ? std::string("the untitled scenario") : now.file);
}

void AppState::end_frame(bool any_widget_active) {
    if (pending_commit_ && !any_widget_active) {
        history_.commit(scenario_);
        pending_commit_ = false;
    }
}

void AppState::retire_stale_status() {
    if (ui.status != status_shown_ || status_renewed_) {
        status_shown_ = ui.status;
        status_version_ = version_;
        status_renewed_ = false;
        return;
    }
    if (!ui.status.empty() && version_ != status_version_) {
        ui.status.clear();
        status_shown_.clear();
    }
}

void AppState::undo() {
    end_frame(false);
    if (!history_.can_undo()) return;
    const size_t before = history_.tag();
    const Scenario undone = scenario_;
    set(history_.undo());
    ui.status = "Undone: " + scenario_changes(undone, scenario_) + " (Ctrl+Shift+Z or Ctrl+Y redoes it)";
    follow_document(before, "Undone (Ctrl+Shift+Z or Ctrl+Y redoes it)");
    status_renewed_ = true;
}

void AppState::redo() {
    end_frame(false);
    if (!history_.can_redo()) return;
    const size_t before = history_.tag();
    const Scenario was = scenario_;
    set(history_.redo());
    ui.status = "Redone: " + scenario_changes(was, scenario_);
    follow_document(before, "Redone");
    status_renewed_ = true;
}

const Report& AppState::report() const {
    if (!report_ || report_version_ != version_) {
        // The shared mesh, so an edit builds it once for the report and every panel.
        report_ = std::make_shared<const Report>(build_report(scenario_, count_params(scenario_.model), mesh()));
        report_version_ = version_;
    }
    return *report_;
}

const DeviceMesh& AppState::mesh() const {
    if (!mesh_ || mesh_version_ != version_) {
        mesh_ = std::make_shared<const DeviceMesh>(DeviceMesh::build(scenario_.cluster, scenario_.parallel));
        mesh_version_ = version_;
    }
    return *mesh_;
}

const FitAdvice& AppState::fit_advice() const {
    if (!fit_advice_ || fit_advice_version_ != version_) {
        fit_advice_ = std::make_shared<const FitAdvice>(report().fits ? FitAdvice{} : advise_fit(scenario_));
        fit_advice_version_ = version_;
    }
    return *fit_advice_;
}

const std::string& AppState::scenario_json() const {
    if (scenario_json_version_ != version_) {
        scenario_json_ = scenario_to_json(scenario_);
        scenario_json_version_ = version_;
    }
    return scenario_json_;
}

bool AppState::scenario_is(const Scenario& other) const {
    if (compared_ != &other) {
        compared_json_ = scenario_to_json(other);
        compared_ = &other;
    }
    return scenario_json() == compared_json_;
}

bool AppState::edited() const { return scenario_json() != documents_[history_.tag()].saved_json; }

void AppState::mark_saved() { documents_[history_.tag()].saved_json = scenario_json(); }

void AppState::go_ahead(const DiscardQuestion& action) {
    ui.discard_confirmed = true;
    if (action.action == DiscardAction::quit) requests.quit = true;
    else if (action.action == DiscardAction::new_scenario) requests.new_scenario = true;
    else requests.open_path = action.path;
}

bool AppState::may_discard_edits(const DiscardQuestion& action) {
    if (ui.discard_confirmed || !edited()) {
        ui.discard_confirmed = false;
        return true;
    }
    ui.discard_question = action;
    return false;
}

void AppState::remember_recent(const std::string& given) {
    // Canonical (absolute, links resolved), so a recent file opens from any folder and is listed once,
    // however it was reached. Standard input has no name to come back to.
    if (given == "-") return;
    std::error_code ec;
    std::filesystem::path canonical = std::filesystem::absolute(given, ec);
    if (!ec) canonical = std::filesystem::weakly_canonical(canonical, ec);
    const std::string path = ec ? given : canonical.string();
    auto& r = ui.recent_files;
    r.erase(std::remove(r.begin(), r.end(), path), r.end());
    r.insert(r.begin(), path);
    if (r.size() > kMaxRecentFiles) r.resize(kMaxRecentFiles);
}

void AppState::show_error(std::string title, std::string message) {
    // The status line keeps a trace once the dialog is closed (it said "Saved ..." after a refused open).
    ui.status = title + (message.empty() ? std::string() : ": " + message.substr(0, message.find('\n')));
    ui.error_title = std::move(title);
    ui.error_message = std::move(message);
}

void save_or_save_as(AppState& state, bool as) {
    if (as || state.ui.current_file.empty()) state.ui.file_dialog = FileDialogMode::save;
    else state.requests.save_path = state.ui.current_file;
}

std::string window_title(const AppState& state) {
    const std::string& file = state.ui.current_file;
    if (file.empty() && !state.edited()) return "Shardscope";
    const std::string name = file.empty() ? "Untitled" : std::filesystem::path(file).filename().string();
    return (state.edited() ? "*" : "") + name + " \u2014 Shardscope";
}

}  // namespace shardscope::ui
