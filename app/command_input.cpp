#include "app/command_input.hpp"

#include "host/file_io.hpp"
#include "core/scenario/model_import.hpp"
#include "core/scenario/presets.hpp"

#include <cstdlib>
#include <iostream>

namespace shardscope::app {
namespace {

std::optional<std::string> read_config_argument(const std::string& command, const std::string& config,
                                                const char* usage, int& exit_code) {
    if (config.empty()) {
        std::cerr << command << ": --config FILE (or --model FILE) is required\n" << usage << "\n";
        exit_code = 2;
        return std::nullopt;
    }
    std::string error;
    auto text = host::read_text_file(config, error);
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

std::optional<Scenario> with_model(const Scenario& base, const ModelArgument& model, std::string& error,
                                   std::vector<std::string>& notes) {
    std::string read_error;
    const auto text = host::read_text_file(model.file, read_error);
    if (!text) {
        error = read_error;
        return std::nullopt;
    }
    ModelImport im = import_model(*text, model.seq_len, model_name_from_path(model.file));
    if (!im.ok()) {
        error = model.file + ": " + im.error;
        return std::nullopt;
    }
    Scenario s = base;
    s.model = std::move(*im.model);
    if (const std::string rule = validate_scenario(s); !rule.empty()) {
        error = "with the model from " + model.file + ": " + rule;
        return std::nullopt;
    }
    notes = std::move(im.notes);
    return s;
}

std::optional<Scenario> scenario_argument(const std::string& command, const std::string& config,
                                          const std::string& format, const char* usage, int& exit_code,
                                          const ModelArgument& model) {
    if (!is_known_format(command, format)) {
        exit_code = 2;
        return std::nullopt;
    }
    if (model.seq_len && !model.given()) {
        std::cerr << command << ": --seq-len goes with --model FILE\n" << usage << "\n";
        exit_code = 2;
        return std::nullopt;
    }
    Scenario base = default_scenario();
    if (!config.empty() || !model.given()) {
        const auto text = read_config_argument(command, config, usage, exit_code);
        if (!text) return std::nullopt;
        ScenarioLoad load = parse_scenario(*text);
        if (!load.ok()) {
            std::cerr << config << ": " << load.error << "\n";
            exit_code = 2;
            return std::nullopt;
        }
        base = std::move(*load.scenario);
    }
    if (!model.given()) return base;
    std::string error;
    std::vector<std::string> notes;
    auto s = with_model(base, model, error, notes);
    if (!s) {
        std::cerr << command << ": " << error << "\n";
        exit_code = 2;
        return std::nullopt;
    }
    for (const std::string& n : notes) std::cerr << command << ": " << model.file << ": " << n << "\n";
    return s;
}

std::optional<ClusterSpec> shipped_cluster(const std::string& file, const std::string& command) {
    const std::string path = host::data_dir() + "/assets/clusters/" + file;
    std::string error;
    const auto text = host::read_text_file(path, error);
    if (!text) {
        std::cerr << command << ": cannot read " << path << ": " << error << "\n";
        return std::nullopt;
    }
    const ClusterPresetLoad load = parse_cluster_preset(*text);
    if (!load.ok()) {
        std::cerr << command << ": " << path << ": " << load.error << "\n";
        return std::nullopt;
    }
    return load.preset->cluster;
}

}  // namespace shardscope::app
