#include "widgets/shell/copy_out.hpp"

#include <imgui.h>

#include <algorithm>
#include <cctype>

namespace shardscope::ui {

std::string framework_label(ExportTarget t) {
    switch (t) {
        case ExportTarget::megatron: return "Megatron-LM";
        case ExportTarget::torchtitan: return "TorchTitan";
        case ExportTarget::torchtitan_toml: return "TorchTitan 0.2.2";
        case ExportTarget::deepspeed: return "DeepSpeed";
        case ExportTarget::nccl_tests: return "nccl-tests";
    }
    return "";
}

namespace {
void copy_text(AppState& state, std::string text) {
    ImGui::SetClipboardText(text.c_str());
    state.ui.last_copied = std::move(text);
}
}  // namespace

void copy_scenario_as(AppState& state, const Scenario& s, ExportTarget target, const std::string& whose) {
    const FrameworkExport e = export_scenario(s, target);
    if (!e.refused.empty()) {
        state.ui.status = "Not copied as " + framework_label(target) + ": " + e.refused;
        return;
    }
    copy_text(state, e.text);
    const char* what = target == ExportTarget::deepspeed   ? "ds_config.json"
                       : target == ExportTarget::torchtitan ? "Python config"
                       : target == ExportTarget::torchtitan_toml ? "job TOML"
                       : target == ExportTarget::nccl_tests ? "commands"
                                                            : "flags";
    std::string status = "Copied " + whose + " as " + framework_label(target) + " " + what + " to the clipboard";
    // Every note, a line each: what the framework needs set elsewhere is not in the copied text (a JSON
    // file has no comments), so the status line is where it is read.
    if (!e.warnings.empty()) {
        status += ", with " + std::to_string(e.warnings.size()) + " note" + (e.warnings.size() == 1 ? "" : "s") + ":";
        for (const std::string& note : e.warnings) status += "\n  - " + note;
    }
    state.ui.status = std::move(status);
}

void copy_csv(AppState& state, const std::string& csv, const std::string& table) {
    const auto lines = std::count(csv.begin(), csv.end(), '\n');
    const long rows = std::max<long>(0, static_cast<long>(lines) - 1);  // less the header
    copy_text(state, csv);
    const std::string what = "the " + table + " as CSV (" + std::to_string(rows) + " row" + (rows == 1 ? "" : "s") + ")";
    if (state.ui.host_file_dialogs) {
        state.requests.download = TextDownload{csv_file_name(table), csv};
        state.ui.status = "Downloaded " + what + " as " + state.requests.download->name + ", also on the clipboard";
        return;
    }
    state.ui.status = "Copied " + what + " to the clipboard";
}

std::string csv_file_name(const std::string& table) {
    std::string name = "shardscope";
    bool gap = true;
    for (char c : table) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            if (gap) name.push_back('-');
            name.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
            gap = false;
        } else if (c != '\'') {
            gap = true;
        }
    }
    return name + ".csv";
}

}  // namespace shardscope::ui
