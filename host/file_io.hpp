#pragma once
// The app's only disk access: whole text files in, atomic writes out, the user's config folder.

#include <cstddef>
#include <optional>
#include <map>
#include <string>
#include <vector>

namespace shardscope::host {

// Limits on what the app reads: every file it takes (scenarios, presets, lessons) is a few kilobytes.
inline constexpr std::size_t kMaxInputBytes = std::size_t{16} << 20;  // 16 MiB
inline constexpr std::size_t kMaxPathBytes = 4096;                    // Linux's PATH_MAX

// "-" as a file name: standard input where a file is read, standard output where one is written.
inline constexpr const char* kStandardStream = "-";

// The file's bytes ("-": standard input's), or nullopt with `error` saying why: no such file, a folder, a device or other
// special file (never read: /dev/zero would never end), over kMaxInputBytes, or a name over
// kMaxPathBytes.
std::optional<std::string> read_text_file(const std::string& path, std::string& error);
// Writes to NAME.tmp-PID in the same folder, flushes it to the disk, renames it over the file and
// flushes the folder, so a crash never leaves half a file or loses the new name. Through a symbolic
// link it writes the file the link points to; a file it replaces keeps its mode; temporary files an
// earlier save left (their process gone) are removed first. A device, pipe or socket (/dev/null, a
// FIFO, a shell's >(...)) is written into directly, never replaced; a folder is refused. Returns ""
// on success, else the reason.
std::string write_file_atomically(const std::string& path, const std::string& bytes);
// write_file_atomically, or standard output when path is "-" (whose failure main reports on exit).
std::string write_output(const std::string& path, const std::string& bytes);
// $XDG_CONFIG_HOME/shardscope (or ~/.config/shardscope), created on demand; "" when unavailable.
std::string config_dir();
// The folder of shipped data (assets/, lessons/): share/shardscope beside the executable's folder,
// where `cmake --install` puts it and where the build tree mirrors it. Never a path compiled in, so a
// prefix moved elsewhere keeps working and an installed copy never reads a source tree.
std::string data_dir();
// "" when data_dir() holds the shipped data; else one sentence: which folder is missing and what the
// app goes without.
std::string missing_data_message();
// The running executable as the kernel names it (/proc/self/exe), "" when it does not say; and its
// folder ("." then). A binary rebuilt or upgraded while it runs is named by its path, which now holds
// the new one: what the Measure panel's ranks run and where the data is looked up.
std::string executable_path();
// `path` without the " (deleted)" the kernel appends to /proc/self/exe once the file was replaced.
std::string path_without_deleted_mark(std::string path);
std::string executable_dir();

std::vector<std::string> load_recent_files();
void save_recent_files(const std::vector<std::string>& paths);
// Whether this user has answered the first-run welcome (a marker in the config folder); false
// where there is no config folder.
bool welcome_answered_before();
void remember_welcome_answered();
// How far this user got in each lesson (lesson id -> furthest step), kept in the config folder as
// lesson-progress.json; a missing or broken file is no progress.
std::map<std::string, int> load_lesson_progress();
// Where that file is ("" where there is no config folder); the browser page mirrors it in its storage.
std::string lesson_progress_file();
void save_lesson_progress(const std::map<std::string, int>& reached);

}  // namespace shardscope::host
