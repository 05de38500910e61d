#include "host/file_io.hpp"

#include "core/scenario/json_reader.hpp"

#include <array>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace shardscope::host {

namespace {

// A name too long to be a path is cut short in messages: a 1 GiB argument must not come back whole.
std::string shown_name(const std::string& path) {
    constexpr std::size_t kShown = 80;
    return path.size() <= kMaxPathBytes ? path : path.substr(0, kShown) + "... (" + std::to_string(path.size()) + " bytes)";
}

// "" when `path` names something a file can be read from or written to, else why not.
std::string path_name_problem(const std::string& path) {
    if (path.empty()) return "(empty name): names no file";
    if (path.size() > kMaxPathBytes)
        return shown_name(path) + ": the name is longer than the " + std::to_string(kMaxPathBytes) + " bytes a path may be";
    return {};
}

std::string errno_text() { return std::strerror(errno); }

// The file a path finally names, through any chain of symbolic links (40 at most, as the kernel's).
fs::path through_links(fs::path p) {
    std::error_code ec;
    for (int hop = 0; hop < 40 && fs::is_symlink(p, ec); ++hop) {
        const fs::path to = fs::read_symlink(p, ec);
        if (ec) break;
        p = to.is_absolute() ? to : p.parent_path() / to;
    }
    return p;
}

bool process_is_gone(long pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH; }

// Temporary files of earlier saves of `target` (NAME.tmp-PID) whose process is gone: a crash mid-save
// left them, and nothing else would ever remove them.
void remove_stale_temporaries(const fs::path& target) {
    const std::string prefix = target.filename().string() + ".tmp-";
    std::error_code ec;
    const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string digits = name.substr(prefix.size());
        if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
        std::error_code ignored;
        if (process_is_gone(std::stol(digits))) fs::remove(entry.path(), ignored);
    }
}

// Writes every byte and flushes it to the disk; "" or why not.
std::string write_all(int fd, const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return "write failed (" + errno_text() + ")";
        done += static_cast<std::size_t>(n);
    }
    return {};
}

std::string write_and_sync(int fd, const std::string& bytes) {
    if (std::string error = write_all(fd, bytes); !error.empty()) return error;
    if (::fsync(fd) != 0) return "write failed (" + errno_text() + ")";
    return {};
}

// A device, pipe or socket named as the output (/dev/null, a FIFO, /dev/fd/N from a shell's >(...))
// is written into as it is: renaming a file over it would replace the device or leave the pipe's
// reader waiting forever.
// A pipe's writer waits for a reader; one that never comes is an error after kPipeReaderWait, not a
// save that hangs forever.
constexpr auto kPipeReaderWait = std::chrono::seconds(5);

// Opens a FIFO for writing once a reader has it open, or -1 with errno ENXIO when none came in time.
int open_pipe_when_read(const std::string& path) {
    const auto give_up = std::chrono::steady_clock::now() + kPipeReaderWait;
    for (;;) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            // Read at the other end: from here writes wait for the reader as a pipe's writes do.
            (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            return fd;
        }
        if (errno != ENXIO || std::chrono::steady_clock::now() >= give_up) return -1;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

std::string write_into_special_file(const std::string& path, const std::string& bytes) {
    struct stat st {};
    const bool fifo = ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
    const int fd = fifo ? open_pipe_when_read(path) : ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 && fifo && errno == ENXIO)
        return path + ": a pipe no program reads (none opened it within 5 s); nothing was written";
    if (fd < 0) return path + ": cannot open for writing (" + errno_text() + ")";
    std::string error = write_all(fd, bytes);
    if (::close(fd) != 0 && error.empty()) error = "write failed (" + errno_text() + ")";
    return error.empty() ? error : path + ": " + error;
}

// After a rename the new name lives in the folder's entries: flushed too, or a crash can lose it.
void sync_folder(const fs::path& folder) {
    const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)::fsync(fd);  // some file systems refuse a folder's fsync; the rename stands either way
    ::close(fd);
}

}  // namespace

namespace {

// The stream's bytes up to kMaxInputBytes; nullopt with `error` naming `name` past that or on a failed read.
std::optional<std::string> read_bounded(std::istream& in, const std::string& name, std::string& error) {
    // Read a block at a time and stop one block past the limit: a file that grew since stat(), or a
    // pipe, is still caught, and a small file costs no buffer the size of the limit (zeroing one was
    // a tenth of a planner run).
    std::string text;
    std::array<char, 1 << 16> block{};
    while (text.size() <= kMaxInputBytes) {
        in.read(block.data(), static_cast<std::streamsize>(block.size()));
        text.append(block.data(), static_cast<std::size_t>(in.gcount()));
        if (!in) break;
    }
    if (in.bad()) {
        error = name + ": read failed";
        return std::nullopt;
    }
    if (text.size() > kMaxInputBytes) {
        error = name + ": more than the " + std::to_string(kMaxInputBytes >> 20) + " MiB a file may be";
        return std::nullopt;
    }
    return text;
}

}  // namespace

std::optional<std::string> read_text_file(const std::string& path, std::string& error) {
    if (path == kStandardStream) return read_bounded(std::cin, "standard input", error);
    if (error = path_name_problem(path); !error.empty()) return std::nullopt;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        error = path + ": cannot open for reading (" + errno_text() + ")";
        return std::nullopt;
    }
    if (S_ISDIR(st.st_mode)) {
        error = path + ": is a folder, not a file";
        return std::nullopt;
    }
    if (!S_ISREG(st.st_mode)) {
        error = path + ": is a device or other special file, not a regular file";
        return std::nullopt;
    }
    if (static_cast<std::size_t>(st.st_size) > kMaxInputBytes) {
        error = path + ": " + std::to_string(st.st_size) + " bytes is more than the " +
                std::to_string(kMaxInputBytes >> 20) + " MiB a file may be";
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open for reading (" + errno_text() + ")";
        return std::nullopt;
    }
    return read_bounded(in, path, error);
}

std::string write_output(const std::string& path, const std::string& bytes) {
    if (path != kStandardStream) return write_file_atomically(path, bytes);
    // A failed write to standard output is reported once, by main, when the command ends.
    std::cout << bytes << std::flush;
    return {};
}

std::string write_file_atomically(const std::string& path, const std::string& bytes) {
    if (std::string e = path_name_problem(path); !e.empty()) return e;
    if (struct stat existing {}; ::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
        if (S_ISDIR(existing.st_mode)) return path + ": is a folder, not a file";
        return write_into_special_file(path, bytes);
    }
    // Saving over a symbolic link writes the file it points to; the link stays.
    const fs::path target = through_links(path);
    remove_stale_temporaries(target);
    const fs::path tmp = target.string() + ".tmp-" + std::to_string(static_cast<long>(::getpid()));
    struct stat st {};
    const bool replacing = ::stat(target.c_str(), &st) == 0;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return path + ": cannot write in that folder (" + errno_text() + ")";
    std::string error = write_and_sync(fd, bytes);
    // The file keeps the mode it had (a private 0600 file stays private).
    if (error.empty() && replacing && ::fchmod(fd, st.st_mode & 07777) != 0) error = "cannot keep its mode (" + errno_text() + ")";
    if (::close(fd) != 0 && error.empty()) error = "write failed (" + errno_text() + ")";
    std::error_code ec;
    if (error.empty()) fs::rename(tmp, target, ec);
    if (!error.empty() || ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        return path + ": " + (error.empty() ? "cannot replace the file: " + ec.message() : error);
    }
    sync_folder(target.parent_path());
    return {};
}

std::string config_dir() {
    fs::path base;
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home) base = fs::path(home) / ".config";
    else return {};
    const fs::path dir = base / "shardscope";
    std::error_code ec;
    fs::create_directories(dir, ec);
    return ec ? std::string() : dir.string();
}

std::string executable_path() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : path_without_deleted_mark(exe.string());
}

std::string path_without_deleted_mark(std::string path) {
    static constexpr std::string_view kMark = " (deleted)";
    if (path.size() > kMark.size() && path.compare(path.size() - kMark.size(), kMark.size(), kMark) == 0)
        path.erase(path.size() - kMark.size());
    return path;
}

std::string executable_dir() {
    const std::string exe = executable_path();
    return exe.empty() ? std::string(".") : fs::path(exe).parent_path().string();
}

std::string data_dir() {
    return (fs::path(executable_dir()) / SHARDSCOPE_DATA_DIR_FROM_BIN).lexically_normal().string();
}

std::string missing_data_message() {
    std::error_code ec;
    const std::string dir = data_dir();
    if (fs::is_directory(fs::path(dir) / "assets", ec) && fs::is_directory(fs::path(dir) / "lessons", ec)) return {};
    return "the shipped data folder " + dir + " (assets/ and lessons/) is missing, so the lessons, glossary, cheat "
           "sheet and presets are unavailable: reinstall Shardscope (cmake --install puts them beside bin/)";
}

namespace {

// A file of the app's own in the config folder ("" where there is none).
fs::path config_file(const char* name) {
    const std::string dir = config_dir();
    return dir.empty() ? fs::path() : fs::path(dir) / name;
}

// A config file's JSON, read by the same rules as every other file (bounded nesting, numbers in
// range); a missing or broken file is null, and its reader falls back to nothing kept.
json_read::Json read_config_json(const fs::path& p) {
    std::string error;
    if (p.empty()) return nullptr;
    const auto text = read_text_file(p.string(), error);
    if (!text) return nullptr;
    json_read::Json j;
    if (!json_read::first_error([&] { j = json_read::parse_document(*text); }).empty()) return nullptr;
    return j;
}

fs::path recent_file_path() { return config_file("recent.json"); }
fs::path welcome_marker_path() { return config_file("welcomed"); }
}  // namespace

std::string lesson_progress_file() { return config_file("lesson-progress.json").string(); }

std::vector<std::string> load_recent_files() {
    const json_read::Json j = read_config_json(recent_file_path());
    std::vector<std::string> out;
    if (j.is_array())
        for (const auto& item : j)
            if (item.is_string()) out.push_back(item.get<std::string>());
    return out;
}

bool welcome_answered_before() {
    const fs::path p = welcome_marker_path();
    std::error_code ec;
    return p.empty() || fs::exists(p, ec);
}

void remember_welcome_answered() {
    const fs::path p = welcome_marker_path();
    if (!p.empty()) (void)write_file_atomically(p.string(), "The first-run welcome was answered.\n");
}

std::map<std::string, int> load_lesson_progress() {
    const json_read::Json j = read_config_json(lesson_progress_file());
    std::map<std::string, int> out;
    if (j.is_object())
        for (const auto& [id, step] : j.items())
            if (step.is_number_integer() && step.get<long long>() > 0 && step.get<long long>() < 100000)
                out[id] = static_cast<int>(step.get<long long>());
    return out;
}

void save_lesson_progress(const std::map<std::string, int>& reached) {
    const std::string p = lesson_progress_file();
    if (!p.empty()) (void)write_file_atomically(p, nlohmann::json(reached).dump(2) + "\n");
}

void save_recent_files(const std::vector<std::string>& paths) {
    const fs::path p = recent_file_path();
    if (!p.empty()) (void)write_file_atomically(p.string(), nlohmann::json(paths).dump(2) + "\n");
}

}  // namespace shardscope::host
