#include "app/mpirun_measurer.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace shardscope::app {

namespace {

[[nodiscard]] std::string byte_flag(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f", bytes);
    return text;
}

[[nodiscard]] std::string number_flag(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

// Runs a command and returns what it printed on stdout (at most a few KiB), or nullopt.
[[nodiscard]] std::optional<std::string> output_of(const std::string& command) {
    FILE* p = popen(command.c_str(), "r");
    if (!p) return std::nullopt;
    std::string out;
    std::array<char, 512> buf{};
    while (out.size() < 8192 && std::fgets(buf.data(), static_cast<int>(buf.size()), p)) out += buf.data();
    if (pclose(p) != 0) return std::nullopt;
    return out;
}

// The last lines of what the ranks said on stderr: the reason a job failed, in their words.
[[nodiscard]] std::string tail_of(const std::string& text, std::size_t limit = 600) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    return t.size() > limit ? "..." + t.substr(t.size() - limit) : t;
}

struct Child {
    pid_t pid = -1;
    int out = -1;
    int err = -1;
    std::string error;
};

// posix_spawn with stdout and stderr on pipes, in a process group of its own so that cancelling can
// end mpirun and every rank it started with one signal.
Child spawn(const std::vector<std::string>& args) {
    Child c;
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    if (pipe(out) != 0 || pipe(err) != 0) {
        c.error = std::string("cannot make a pipe: ") + std::strerror(errno);
        return c;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addclose(&actions, err[0]);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int rc = posix_spawn(&c.pid, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(out[1]);
    close(err[1]);
    if (rc != 0) {
        close(out[0]);
        close(err[0]);
        c.pid = -1;
        c.error = "cannot start " + args.front() + ": " + std::strerror(rc);
        return c;
    }
    c.out = out[0];
    c.err = err[0];
    return c;
}

class MpirunMeasurer final : public Measurer {
public:
    explicit MpirunMeasurer(std::string exe) : exe_(std::move(exe)) {}

    std::string name() const override { return kCpuMeasureBackend; }

    BackendStatus status() override {
        BackendStatus s;
        s.unit = "CPU rank";
        s.animator_algorithms = true;
        s.devices = kDefaultCpuRanks;
        s.device_names.push_back("CPU rank");
        mpirun_ = find_mpirun();
        if (mpirun_.empty()) {
            s.message = "The CPU backend is built in, but mpirun is not on PATH: install an MPI's launcher "
                        "(Debian: openmpi-bin) to time collectives between local processes.";
            return s;
        }
        const std::optional<std::string> version = output_of("'" + mpirun_ + "' --version 2>&1");
        open_mpi_ = version && (version->find("Open MPI") != std::string::npos ||
                                version->find("OpenRTE") != std::string::npos);
        s.ready = true;
        s.launcher = mpirun_ + (open_mpi_ ? std::string(" --oversubscribe") + (geteuid() == 0 ? " --allow-run-as-root" : "") : "");
        s.executable = exe_;
        s.message = "collectives between local MPI processes, started with " + mpirun_ + " (ranks: how many; 0 means " +
                    std::to_string(kDefaultCpuRanks) +
                    "). They share this machine's cores with the window: the command under Sweep, run from a shell, "
                    "measures without it. Shared memory, not NVLink: the figures teach the method, not a GPU's speed.";
        return s;
    }

    MeasureResult measure(const SweepSpec& spec, const MeasureProgress& progress) override {
        const int ranks = spec.gpus > 0 ? spec.gpus : kDefaultCpuRanks;
        MeasureResult result = begin_measure_result(name(), spec, ranks, LinkClass::intra);
        if (std::string e = validate_sweep(spec); !e.empty()) {
            result.error = e;
            return result;
        }
        if (mpirun_.empty()) mpirun_ = find_mpirun();
        if (mpirun_.empty()) {
            result.error = "mpirun is not on PATH (Debian: openmpi-bin)";
            return result;
        }
        const std::size_t total = sweep_sizes(spec, ranks).size();
        Child child = spawn(mpirun_arguments(mpirun_, open_mpi_, geteuid() == 0, exe_, spec, ranks));
        if (child.pid < 0) {
            result.error = child.error;
            return result;
        }
        std::string out_buffer, err_text;
        std::optional<MeasureResult> final;
        bool cancelled = false;
        std::vector<TimingRow> rows;
        pollfd fds[2] = {{child.out, POLLIN, 0}, {child.err, POLLIN, 0}};
        int open_pipes = 2;
        while (open_pipes > 0) {
            // A short timeout, so a cancel is seen within a tenth of a second even while a size runs.
            const int ready = poll(fds, 2, 100);
            if (!cancelled && progress && !progress(rows.size(), total, nullptr)) {
                cancelled = true;
                kill(-child.pid, SIGTERM);
            }
            if (ready <= 0) continue;
            for (pollfd& p : fds) {
                if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
                char buf[4096];
                const ssize_t n = read(p.fd, buf, sizeof buf);
                if (n <= 0) {
                    close(p.fd);
                    p.fd = -1;
                    --open_pipes;
                    continue;
                }
                if (p.fd == child.err) {
                    err_text.append(buf, static_cast<std::size_t>(n));
                    continue;
                }
                out_buffer.append(buf, static_cast<std::size_t>(n));
                std::size_t eol;
                while ((eol = out_buffer.find('\n')) != std::string::npos) {
                    const std::string line = out_buffer.substr(0, eol);
                    out_buffer.erase(0, eol + 1);
                    if (cancelled) continue;  // what the ranks print while they are being ended
                    if (const auto row = parse_measure_row_line(line)) {
                        rows.push_back(*row);
                        if (!cancelled && progress && !progress(rows.size(), total, &rows.back())) {
                            cancelled = true;
                            kill(-child.pid, SIGTERM);
                        }
                    } else if (MeasureResultLoad loaded = parse_measure_result(line); loaded.ok()) {
                        final = std::move(loaded.result);
                    }
                }
            }
        }
        int status = 0;
        while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (final) {
            result = std::move(*final);
        } else {
            result.rows = rows;
        }
        result.cancelled = cancelled;
        if (cancelled) return result;
        if (!final && result.error.empty()) {
            const std::string said = tail_of(err_text);
            result.error = said.empty() ? "mpirun ended (status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                                              ") without a result"
                                        : said;
        }
        return result;
    }

    SingleGpuResult measure_single_gpu(const std::vector<GemmShape>&, double, int, int, const MeasureProgress&) override {
        SingleGpuResult r;
        r.backend = name();
        r.error = "the CPU backend measures collectives between MPI processes, and has no GPU to time GEMMs or HBM on";
        return r;
    }

private:
    std::string exe_;
    std::string mpirun_;
    bool open_mpi_ = true;
};

}  // namespace

std::vector<std::string> mpirun_arguments(const std::string& mpirun, bool open_mpi, bool as_root, const std::string& exe,
                                          const SweepSpec& spec, int ranks) {
    std::vector<std::string> a = {mpirun};
    if (open_mpi) {
        a.push_back("--oversubscribe");
        if (as_root) a.push_back("--allow-run-as-root");
    }
    a.insert(a.end(), {"-np", std::to_string(ranks), exe, "measure", "--backend", "cpu", "--format", "jsonl", "--collective",
                       std::string(measure_op_name(spec.op)), "-b", byte_flag(spec.min_bytes), "-e",
                       byte_flag(spec.max_bytes), "-f", number_flag(spec.factor), "-n", std::to_string(spec.iters),
                       "-w", std::to_string(spec.warmup)});
    if (spec.check) a.push_back("--check");
    if (spec.algorithm) a.insert(a.end(), {"--algorithm", measure_algorithm_name(spec.algorithm)});
    if (spec.ranks_per_node > 0) a.insert(a.end(), {"--ranks-per-node", std::to_string(spec.ranks_per_node)});
    return a;
}

std::string find_mpirun() {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        const std::string candidate = (dir.empty() ? "." : dir) + "/mpirun";
        struct stat st{};
        if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return "";
}

std::unique_ptr<Measurer> make_mpirun_measurer(std::string exe) { return std::make_unique<MpirunMeasurer>(std::move(exe)); }

}  // namespace shardscope::app
