#include "app/command_input.hpp"

#include "app/file_io.hpp"

#include <iostream>

namespace shardscope::app {
namespace {

std::optional<std::string> read_config_argument(const std::string& command, const std::string& config,
                                                const char* usage, int& exit_code) {
    if (config.empty()) {
        std::cerr << command << ": --config FILE is required\n" << usage << "\n";
        exit_code = 2;
        return std::nullopt;
    }
    std::string error;
    auto text = read_text_file(config, error);
    if (!text) {
        std::cerr << command << ": " << error << "\n";
        exit_code = 2;  // input the command cannot take, as the window exits for --config
    }
    return text;
}

bool is_known_format(const std::string& command, const std::string& format) {
    if (format == "json" || format == "text") return true;
    std::cerr << command << ": --format must be json or text, got '" << format << "'\n";
    return false;
}

}  // namespace

std::optional<Scenario> scenario_argument(const std::string& command, const std::string& config,
                                          const std::string& format, const char* usage, int& exit_code) {
    if (!is_known_format(command, format)) {
        exit_code = 2;
        return std::nullopt;
    }
    const auto text = read_config_argument(command, config, usage, exit_code);
    if (!text) return std::nullopt;
    ScenarioLoad load = parse_scenario(*text);
    if (!load.ok()) {
        std::cerr << config << ": " << load.error << "\n";
        exit_code = 2;
        return std::nullopt;
    }
    return std::move(load.scenario);
}

}  // namespace shardscope::app
