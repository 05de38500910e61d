#pragma once
// A small in-app file browser (Debian has no file-dialog library): folders, a *.json filter and the
// recent files. It only picks a path; the app reads or writes the file.

#include "widgets/shell/app_state.hpp"

#include <string>
#include <vector>

namespace shardscope::ui {

// The file a name typed in the browser means: trimmed (and unquoted), "~/" under `home`, an absolute
// path as it is, a relative one inside `dir`; normalised ("a/./b/../c" -> "a/c").
[[nodiscard]] std::string resolve_typed_path(const std::string& dir, const std::string& typed, const std::string& home);

class FileBrowser {
public:
    // Draws the modal while state.ui.file_dialog is open; a chosen path becomes a request.
    void draw(AppState& state);

private:
    struct Entry {
        std::string name;
        bool is_dir = false;
    };
    void list(const std::string& dir);
    void choose(AppState& state, const std::string& path);
    // What a typed or pasted name does: opens a folder, asks before replacing a file, else chooses it.
    void take_typed(AppState& state, const std::string& path, bool saving);

    std::string listed_dir_;
    std::vector<Entry> entries_;
    std::string list_error_;
    char name_[256] = "scenario.json";
    bool was_open_ = false;
    std::string confirm_replace_;  // the existing file a save was asked to replace, pending a second Save
    bool refocus_name_ = false;    // the name box takes the keyboard on the next frame
};

}  // namespace shardscope::ui
