#include "widgets/shell/file_browser.hpp"

#include "widgets/kit/item_rects.hpp"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace shardscope::ui {

namespace {
constexpr const char* kPopupName = "Choose a file###file_browser";

void close_dialog(AppState& state) {
    state.ui.file_dialog = FileDialogMode::none;
    ImGui::CloseCurrentPopup();
}

bool is_json(const fs::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext == ".json";
}
}  // namespace

void FileBrowser::list(const std::string& dir) {
    listed_dir_ = dir;
    entries_.clear();
    list_error_.clear();
    std::error_code ec;
    for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec)) {
        const bool is_dir = it->is_directory(ec);
        const std::string name = it->path().filename().string();
        if (name.empty() || name[0] == '.') continue;
        if (is_dir || is_json(it->path())) entries_.push_back({name, is_dir});
    }
    if (ec) list_error_ = "cannot list " + dir + ": " + ec.message();
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        return a.is_dir != b.is_dir ? a.is_dir : a.name < b.name;
    });
}

std::string resolve_typed_path(const std::string& dir, const std::string& typed, const std::string& home) {
    std::string t = typed;
    const auto first = t.find_first_not_of(" \t\r\n");
    const auto last = t.find_last_not_of(" \t\r\n");
    t = first == std::string::npos ? std::string() : t.substr(first, last - first + 1);
    // A path pasted from a shell often comes quoted.
    if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front()) t = t.substr(1, t.size() - 2);
    if (!home.empty() && (t == "~" || t.rfind("~/", 0) == 0)) t = home + t.substr(1);
    fs::path p(t);
    if (p.is_relative()) p = fs::path(dir) / p;
    return p.lexically_normal().string();
}

void FileBrowser::choose(AppState& state, const std::string& path) {
    switch (state.ui.file_dialog) {
        case FileDialogMode::open: state.requests.open_path = path; break;
        case FileDialogMode::save: state.requests.save_path = path; break;
        case FileDialogMode::import_model: state.requests.import_path = path; break;
        case FileDialogMode::export_trace: state.requests.trace_path = path; break;
        case FileDialogMode::none: break;
    }
    close_dialog(state);
}

namespace {
bool writes(FileDialogMode mode) { return mode == FileDialogMode::save || mode == FileDialogMode::export_trace; }

const char* heading(FileDialogMode mode) {
    switch (mode) {
        case FileDialogMode::save: return "Save scenario as (*.json)";
        case FileDialogMode::import_model: return "Import a model: a model preset or a Hugging Face config.json";
        case FileDialogMode::export_trace: return "Export the simulated step as a Chrome trace (*.json): Perfetto opens it";
        default: return "Open scenario (*.json)";
    }
}

// The name the box offers when the dialog opens in `mode`.
const char* suggested_name(FileDialogMode mode) {
    switch (mode) {
        case FileDialogMode::export_trace: return "shardscope-trace.json";
        case FileDialogMode::import_model: return "config.json";
        case FileDialogMode::save: return "scenario.json";
        default: return "";  // opening names a file that is there, not one the app makes up
    }
}
}  // namespace

void FileBrowser::take_typed(AppState& state, const std::string& typed, bool saving) {
    std::error_code ec;
    // A folder typed or pasted is opened in the browser, as a double-click on it would.
    if (fs::is_directory(typed, ec)) {
        state.ui.file_dialog_dir = typed;
        list(typed);
        if (!saving) name_[0] = '\0';
        confirm_replace_.clear();
        refocus_name_ = true;
        return;
    }
    // A name saved without an extension gets .json, so the browser, which lists *.json, shows it next
    // time.
    const std::string path = saving && fs::path(typed).extension().empty() ? typed + ".json" : typed;
    // The name kept for the next dialog is the file's real name, so File > Open offers a file that is
    // there.
    if (path != typed) {
        const std::string kept = std::string(name_) + ".json";
        std::snprintf(name_, sizeof name_, "%s", kept.c_str());
    }
    // Writing over a file asks first: the same name saved twice in a row replaces it.
    if (saving && fs::exists(path, ec) && confirm_replace_ != path) {
        confirm_replace_ = path;
        refocus_name_ = true;
        return;
    }
    choose(state, path);
}

void FileBrowser::draw(AppState& state) {
    if (state.ui.host_file_dialogs) return;
    const bool want_open = state.ui.file_dialog != FileDialogMode::none;
    if (want_open && !was_open_) {
        if (state.ui.file_dialog_dir.empty()) state.ui.file_dialog_dir = fs::current_path().string();
        list(state.ui.file_dialog_dir);
        // A trace, a model and a scenario are different files: a name offered for one is not kept for
        // another (a name the person typed is).
        const std::string typed = name_;
        const bool offered_before = typed == suggested_name(FileDialogMode::export_trace) ||
                                    typed == suggested_name(FileDialogMode::import_model) ||
                                    typed == suggested_name(FileDialogMode::save);
        if (offered_before) std::snprintf(name_, sizeof name_, "%s", suggested_name(state.ui.file_dialog));
        // Saving names what is saved: the scenario's own file, or the suggestion for an untitled one,
        // never the name of a file opened earlier (an untitled scenario was offered that file's name).
        if (state.ui.file_dialog == FileDialogMode::save)
            std::snprintf(name_, sizeof name_, "%s",
                          state.ui.current_file.empty() ? suggested_name(FileDialogMode::save)
                                                        : fs::path(state.ui.current_file).filename().string().c_str());
        confirm_replace_.clear();
        ImGui::OpenPopup(kPopupName);
    }
    was_open_ = want_open;
    ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 37.0f, ImGui::GetFontSize() * 28.0f), ImGuiCond_FirstUseEver);
    if (!ImGui::BeginPopupModal(kPopupName, nullptr)) return;
    // Escape cancels, as in any dialog (ImGui 1.86's modal popups do not close on it themselves).
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
        close_dialog(state);
        ImGui::EndPopup();
        return;
    }

    const bool saving = writes(state.ui.file_dialog);
    ImGui::TextUnformatted(heading(state.ui.file_dialog));
    ImGui::TextDisabled("%s", listed_dir_.c_str());
    if (ImGui::Button("Up")) {
        state.ui.file_dialog_dir = fs::path(listed_dir_).parent_path().string();
        list(state.ui.file_dialog_dir);
    }
    if (!list_error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", list_error_.c_str());

    ImGui::BeginChild("entries", ImVec2(0, -ImGui::GetFrameHeightWithSpacing() * 2.2f), true);
    std::string next_dir;
    for (const Entry& e : entries_) {
        const std::string label = (e.is_dir ? "[dir] " : "      ") + e.name;
        if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_AllowDoubleClick)) {
            const std::string full = (fs::path(listed_dir_) / e.name).string();
            if (e.is_dir) next_dir = full;
            else if (saving) std::snprintf(name_, sizeof name_, "%s", e.name.c_str());
            else if (ImGui::IsMouseDoubleClicked(0)) choose(state, full);
            else std::snprintf(name_, sizeof name_, "%s", e.name.c_str());
        }
    }
    if (state.ui.file_dialog == FileDialogMode::open && !state.ui.recent_files.empty()) {
        ImGui::Separator();
        ImGui::TextDisabled("Recent");
        for (const std::string& recent : state.ui.recent_files)
            if (ImGui::Selectable(recent.c_str())) {
                choose(state, recent);
                break;
            }
    }
    ImGui::EndChild();
    if (!next_dir.empty()) {
        state.ui.file_dialog_dir = next_dir;
        list(next_dir);
    }

    ImGui::SetNextItemWidth(-220);
    // Enter takes the typed name as the button does; an absolute or ~/ path stands on its own. A click
    // selects the suggested name, so typing a path replaces it.
    // After a folder was opened or a replace asked for, the name box keeps the keyboard: Enter again answers.
    if (refocus_name_) ImGui::SetKeyboardFocusHere();
    refocus_name_ = false;
    const bool entered = ImGui::InputText("##name", name_, sizeof name_,
                                          ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll);
    note_last_item("file/name");
    ImGui::SameLine();
    const bool pressed = ImGui::Button(saving ? "Save" : "Open");
    note_last_item("file/ok");
    if ((entered || pressed) && name_[0] != '\0') {
        const char* home = std::getenv("HOME");
        take_typed(state, resolve_typed_path(listed_dir_, name_, home ? home : ""), saving);
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) close_dialog(state);
    if (!confirm_replace_.empty()) {
        ImGui::TextColored(ImVec4(1, 0.75f, 0.3f, 1), "%s exists: Save again to replace it.",
                           fs::path(confirm_replace_).filename().string().c_str());
        note_last_item("file/replace_question");
    }
    ImGui::EndPopup();
}

}  // namespace shardscope::ui
