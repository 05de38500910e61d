#pragma once
// The app's only disk access: whole text files in, atomic writes out, the user's config folder.

#include <optional>
#include <string>
#include <vector>

namespace shardscope::app {

// The file's bytes, or nullopt with `error` saying why.
std::optional<std::string> read_text_file(const std::string& path, std::string& error);
// Writes to PATH.tmp-XXXX in the same folder, then renames over path, so a crash never leaves half a
// file. Returns "" on success, else the reason.
std::string write_file_atomically(const std::string& path, const std::string& bytes);
// $XDG_CONFIG_HOME/shardscope (or ~/.config/shardscope), created on demand; "" when unavailable.
std::string config_dir();
// A folder of shipped data (assets/, lessons/): next to the executable's parent when installed,
// else the source tree the binary was built from.
std::string data_dir();

std::vector<std::string> load_recent_files();
void save_recent_files(const std::vector<std::string>& paths);

}  // namespace shardscope::app
