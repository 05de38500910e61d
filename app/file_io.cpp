#include "app/file_io.hpp"

#include "core/scenario/json_reader.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace shardscope::app {

std::optional<std::string> read_text_file(const std::string& path, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open for reading";
        return std::nullopt;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) {
        error = path + ": read failed";
        return std::nullopt;
    }
    return ss.str();
}

std::string write_file_atomically(const std::string& path, const std::string& bytes) {
    std::random_device rd;
    const fs::path target(path);
    const fs::path tmp = target.string() + ".tmp-" + std::to_string(rd() % 1000000);
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return path + ": cannot write in that folder";
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.flush();
        if (!out) {
            std::error_code ignored;
            fs::remove(tmp, ignored);
            return path + ": write failed (disk full?)";
        }
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        return path + ": cannot replace the file: " + ec.message();
    }
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

std::string data_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (const fs::path& candidate : {exe.parent_path().parent_path() / "share" / "shardscope",
                                          exe.parent_path().parent_path()})
            if (fs::exists(candidate / "assets", ec)) return candidate.string();
    }
    return SHARDSCOPE_SOURCE_DIR;
}

namespace {
fs::path recent_file_path() {
    const std::string dir = config_dir();
    return dir.empty() ? fs::path() : fs::path(dir) / "recent.json";
}
}  // namespace

std::vector<std::string> load_recent_files() {
    const fs::path p = recent_file_path();
    std::string error;
    if (p.empty()) return {};
    const auto text = read_text_file(p.string(), error);
    if (!text) return {};
    // Read by the same rules as every other file (bounded nesting, numbers in range); a broken list
    // is no list.
    json_read::Json j;
    if (!json_read::first_error([&] { j = json_read::parse_document(*text); }).empty()) return {};
    std::vector<std::string> out;
    if (j.is_array())
        for (const auto& item : j)
            if (item.is_string()) out.push_back(item.get<std::string>());
    return out;
}

void save_recent_files(const std::vector<std::string>& paths) {
    const fs::path p = recent_file_path();
    if (!p.empty()) (void)write_file_atomically(p.string(), nlohmann::json(paths).dump(2) + "\n");
}

}  // namespace shardscope::app
