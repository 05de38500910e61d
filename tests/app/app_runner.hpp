#pragma once
// Runs the real shardscope executable (under the Xvfb display scripts/test provides) and captures
// its exit code, stdout and stderr.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace shardscope::test {

struct RunResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline std::filesystem::path scratch_dir(const std::string& name) {
    // The process id keeps two test runs on one machine (two build folders, say) out of each other's way.
    const auto dir = std::filesystem::temp_directory_path() /
                     ("shardscope-test-" + name + "-" + std::to_string(static_cast<long>(getpid())));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

// args are passed to the shell as written: quote paths that may hold spaces. env: more VAR=value
// assignments for the process, e.g. "LD_DEBUG=files".
inline RunResult run_shardscope(const std::string& args, const std::filesystem::path& dir, const std::string& env = {}) {
    const auto out = dir / "stdout.txt";
    const auto err = dir / "stderr.txt";
    // XDG_CONFIG_HOME points into the scratch folder so tests never touch the user's settings.
    const std::string cmd = "XDG_CONFIG_HOME='" + (dir / "config").string() + "' " + env + " '" SHARDSCOPE_EXE "' " +
                            args + " > '" + out.string() + "' 2> '" + err.string() + "'";
    const int status = std::system(cmd.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

}  // namespace shardscope::test
