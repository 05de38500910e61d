// Saves and reads at the edges: a save keeps the file's mode, writes through a symbolic link, and
// clears the temporary files a crashed save left; a read refuses folders, devices, oversized files
// and absurd names with a message; the window and the subcommands exit with the same codes.
#include "host/file_io.hpp"
#include "app_runner.hpp"

#include "core/scenario/scenario.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <chrono>
#include <thread>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace shardscope;
using namespace shardscope::test;
namespace fs = std::filesystem;

namespace {

// The process id of a child that has already exited: a save that crashed had such an id.
long finished_process_id() {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    int status = 0;
    waitpid(child, &status, 0);
    return static_cast<long>(child);
}

unsigned mode_of(const fs::path& p) {
    struct stat st {};
    REQUIRE(stat(p.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("a save keeps the file's mode and writes through a symbolic link to the file it names") {
    const auto dir = scratch_dir("save-mode-link");
    const fs::path real = dir / "real.json";
    std::ofstream(real) << "old";
    REQUIRE(chmod(real.c_str(), 0600) == 0);
    CHECK(host::write_file_atomically(real.string(), "new") == "");
    CHECK(slurp(real) == "new");
    CHECK(mode_of(real) == 0600);

    const fs::path link = dir / "link.json";
    fs::create_symlink("real.json", link);
    CHECK(host::write_file_atomically(link.string(), "through the link") == "");
    CHECK(fs::is_symlink(link));
    CHECK(slurp(real) == "through the link");
    CHECK(mode_of(real) == 0600);
}

TEST_CASE("a save removes the temporary files of earlier saves whose process is gone, and only those") {
    const auto dir = scratch_dir("save-stale");
    const std::string gone = std::to_string(finished_process_id());
    const std::string alive = std::to_string(static_cast<long>(getppid()));
    for (const std::string& name : {"x.json.tmp-" + gone, "x.json.tmp-" + alive, std::string("x.json.tmp-notes"), "y.json.tmp-" + gone})
        std::ofstream(dir / name) << "half a file";
    CHECK(host::write_file_atomically((dir / "x.json").string(), "whole") == "");
    CHECK_FALSE(fs::exists(dir / ("x.json.tmp-" + gone)));
    CHECK(fs::exists(dir / ("x.json.tmp-" + alive)));  // a save still running elsewhere
    CHECK(fs::exists(dir / "x.json.tmp-notes"));          // not a name a save gives
    CHECK(fs::exists(dir / ("y.json.tmp-" + gone)));      // another file's
    CHECK(slurp(dir / "x.json") == "whole");
    // The save's own temporary file is gone after it.
    int left = 0;
    for (const auto& e : fs::directory_iterator(dir)) left += e.path().filename().string().rfind("x.json.tmp-", 0) == 0;
    CHECK(left == 2);
}

TEST_CASE("a read refuses folders, devices, oversized files and overlong names, saying which") {
    const auto dir = scratch_dir("read-limits");
    std::string error;
    CHECK_FALSE(host::read_text_file(dir.string(), error));
    CHECK(error == dir.string() + ": is a folder, not a file");
    CHECK_FALSE(host::read_text_file("/dev/zero", error));
    CHECK(error == "/dev/zero: is a device or other special file, not a regular file");
    CHECK_FALSE(host::read_text_file((dir / "missing.json").string(), error));
    CHECK(error == (dir / "missing.json").string() + ": cannot open for reading (No such file or directory)");
    const fs::path big = dir / "big.json";
    std::ofstream(big).close();
    fs::resize_file(big, host::kMaxInputBytes + 1);
    CHECK_FALSE(host::read_text_file(big.string(), error));
    CHECK(error == big.string() + ": 16777217 bytes is more than the 16 MiB a file may be");
    fs::resize_file(big, host::kMaxInputBytes);
    CHECK(host::read_text_file(big.string(), error)->size() == host::kMaxInputBytes);
    const std::string long_name(5000, 'a');
    CHECK_FALSE(host::read_text_file(long_name, error));
    CHECK(error == std::string(80, 'a') + "... (5000 bytes): the name is longer than the 4096 bytes a path may be");
    CHECK(host::write_file_atomically(long_name, "x") == error);
}

TEST_CASE("the window and the subcommands exit 2, with the reason, for an input file they cannot take") {
    const auto dir = scratch_dir("exit-codes");
    const std::string missing = (dir / "missing.json").string();
    for (const std::string command : {"report --config ", "plan --config ", "--screenshot x.png --config "}) {
        CAPTURE(command);
        const RunResult gone = run_shardscope(command + "'" + missing + "'", dir);
        CHECK(gone.exit_code == 2);
        CHECK(gone.err.find(missing + ": cannot open for reading (No such file or directory)") != std::string::npos);
        const RunResult folder = run_shardscope(command + "'" + dir.string() + "'", dir);
        CHECK(folder.exit_code == 2);
        CHECK(folder.err.find(dir.string() + ": is a folder, not a file") != std::string::npos);
        const RunResult device = run_shardscope(command + "/dev/zero", dir);
        CHECK(device.exit_code == 2);
        CHECK(device.err.find("/dev/zero: is a device or other special file, not a regular file") != std::string::npos);
        // A file that is read but rejected: named the same way, then the field and the rule.
        const fs::path rejected = dir / "rejected.json";
        std::ofstream(rejected) << R"({"parallel": {"tp": 3}})";
        const RunResult bad = run_shardscope(command + "'" + rejected.string() + "'", dir);
        CHECK(bad.exit_code == 2);
        CHECK(bad.err.find(rejected.string() + ": schema: is required") != std::string::npos);
    }
}

TEST_CASE("a save flushes the new file to disk before it takes the old one's name") {
    const fs::path dir = scratch_dir("fsync");
    if (std::system("strace -o /dev/null true > /dev/null 2>&1") != 0) {
        MESSAGE("strace cannot trace here (no ptrace): the order of fsync and rename is not checked");
        return;
    }
    const fs::path saved = dir / "saved.json";
    const fs::path trace = dir / "trace.txt";
    const std::string cmd = "XDG_CONFIG_HOME='" + (dir / "config").string() + "' strace -f -qq -e trace=openat,fsync,rename,renameat,renameat2 -o '" +
                            trace.string() + "' '" SHARDSCOPE_EXE "' --config examples/llama3-8b-64xh100.json --save-as '" +
                            saved.string() + "' --frames 1 --screenshot '" + (dir / "shot.png").string() + "' > /dev/null 2>&1";
    REQUIRE(std::system(("cd '" SHARDSCOPE_SOURCE_DIR "' && " + cmd).c_str()) == 0);
    REQUIRE(fs::exists(saved));
    // The trace, line by line: the temporary file is opened as some descriptor N, fsync(N) succeeds,
    // and only then is it renamed onto saved.json.
    std::istringstream lines(slurp(trace));
    std::string temp_fd;
    bool synced = false, renamed_after_sync = false, renamed = false;
    for (std::string line; std::getline(lines, line);) {
        if (line.find("openat(") != std::string::npos && line.find(saved.string() + ".tmp") != std::string::npos) {
            const auto eq = line.rfind("= ");
            if (eq != std::string::npos) temp_fd = line.substr(eq + 2);
        }
        if (!temp_fd.empty() && line.find("fsync(" + temp_fd + ")") != std::string::npos &&
            line.find("= 0") != std::string::npos)
            synced = true;
        if (line.find("rename") != std::string::npos && line.find(saved.string() + "\")") != std::string::npos) {
            renamed = true;
            renamed_after_sync = synced;
        }
    }
    CAPTURE(slurp(trace));
    CHECK_FALSE(temp_fd.empty());
    CHECK(renamed);
    CHECK(renamed_after_sync);
}

// A reader on the other end of a named pipe, as `cat` in a shell's pipeline would be: everything
// written until the writer closes ends up in `into`.
std::thread drain(const fs::path& fifo, std::string& into) {
    return std::thread([fifo, &into] {
        std::ifstream in(fifo, std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        into = ss.str();
    });
}

TEST_CASE("an output that is a pipe is written into, never replaced by a file, and a folder is refused") {
    const auto dir = scratch_dir("special-output");
    const auto fifo = dir / "pipe";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::string got;
    std::thread reader = drain(fifo, got);
    const std::string error = host::write_file_atomically(fifo.string(), "through the pipe");
    reader.join();
    CHECK(error == "");
    CHECK(got == "through the pipe");
    struct stat st {};
    REQUIRE(::stat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    // No temporary file beside it: the pipe is all the folder holds.
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);

    CHECK(host::write_file_atomically(dir.string(), "x") == dir.string() + ": is a folder, not a file");

    // The same through the command line: export -o into a pipe a reader drains.
    const auto sink = dir / "sink";
    REQUIRE(::mkfifo(sink.c_str(), 0600) == 0);
    std::string exported;
    std::thread sink_reader = drain(sink, exported);
    const RunResult r = run_shardscope("export --config '" SHARDSCOPE_SOURCE_DIR "/examples/llama3-8b-64xh100.json' --to torchtitan -o '" +
                                           sink.string() + "'",
                                       dir);
    sink_reader.join();
    CHECK(r.exit_code == 0);
    CHECK(exported.find("config.parallelism = ParallelismConfig(") != std::string::npos);
    REQUIRE(::stat(sink.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("a binary rebuilt while it runs is named by its path, not the kernel's \"(deleted)\" mark") {
    // /proc/self/exe of a process whose file was replaced reads "/usr/bin/shardscope (deleted)": the
    // Measure panel's ranks would be launched at that name and fail.
    CHECK(host::path_without_deleted_mark("/work/build/app/shardscope (deleted)") == "/work/build/app/shardscope");
    CHECK(host::path_without_deleted_mark("/usr/bin/shardscope") == "/usr/bin/shardscope");
    CHECK(host::path_without_deleted_mark(" (deleted)") == " (deleted)");  // nothing before the mark: left alone
    CHECK(host::executable_path().find(" (deleted)") == std::string::npos);
    CHECK(std::filesystem::exists(host::executable_path()));
}

TEST_CASE("saving into a pipe no program reads is refused with the reason, not a save that waits forever") {
    const auto dir = scratch_dir("file-io-fifo-no-reader");
    const auto fifo = dir / "nobody";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // The writer gives a reader 5 s to open the pipe, then says why nothing was written.
    const std::string error = host::write_file_atomically(fifo.string(), "nobody reads this");
    CHECK(error == fifo.string() + ": a pipe no program reads (none opened it within 5 s); nothing was written");
    // A reader that comes a moment late still gets everything.
    std::string got;
    std::thread late([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        std::ifstream in(fifo, std::ios::binary);
        got.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    });
    CHECK(host::write_file_atomically(fifo.string(), "read late") == "");
    late.join();
    CHECK(got == "read late");
}
