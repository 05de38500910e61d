#include "host/imgui_settings.hpp"

#include "host/file_io.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // IMGUI_TABLE_MAX_COLUMNS

#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <system_error>

namespace shardscope::host {

namespace {

constexpr int64_t kMaxColumns = IMGUI_TABLE_MAX_COLUMNS;

// A whole decimal number at the start of `text` (ImGui reads these with sscanf's %d), or nothing.
bool leading_int(std::string_view text, int64_t& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end != text.data();
}

// The column count of a `[Table][0xID,N]` section name as ImGui parses it; -1 when ImGui would not
// take the name as a table (it then skips the section), INT64_MIN when N is too long to be a number.
int64_t table_columns(std::string_view name) {
    if (name.substr(0, 2) != "0x") return -1;
    const std::size_t comma = name.find(',');
    if (comma == std::string_view::npos || comma < 3 || comma > 10) return -1;
    uint32_t id = 0;
    const auto [end, ec] = std::from_chars(name.data() + 2, name.data() + comma, id, 16);
    if (ec != std::errc() || end != name.data() + comma) return -1;
    int64_t columns = 0;
    const std::string_view count = name.substr(comma + 1);
    const auto [count_end, count_ec] = std::from_chars(count.data(), count.data() + count.size(), columns);
    if (count_ec == std::errc::result_out_of_range) return INT64_MIN;
    return count_end == count.data() ? -1 : columns;
}

// The value after `key` in a column line (" Order=3"), when present, must index a column.
std::string column_value_problem(std::string_view line, std::string_view key, int64_t columns) {
    const std::size_t at = line.find(key);
    if (at == std::string_view::npos) return {};
    int64_t v = 0;
    if (leading_int(line.substr(at + key.size()), v) && v >= 0 && v < columns) return {};
    return std::string(key) + " must name one of the table's " + std::to_string(columns) + " columns";
}

std::string column_line_problem(std::string_view line, int64_t columns) {
    constexpr std::string_view kColumn = "Column ";
    if (line.substr(0, kColumn.size()) != kColumn) return {};
    int64_t index = 0;
    if (!leading_int(line.substr(kColumn.size()), index)) return {};  // ImGui skips it too
    if (index < 0 || index >= columns)
        return "the column must be one of the table's " + std::to_string(columns) + " columns";
    if (auto e = column_value_problem(line, "Order=", columns); !e.empty()) return e;
    return column_value_problem(line, "Sort=", columns);
}

}  // namespace

std::string imgui_settings_problem(std::string_view text) {
    int64_t table_columns_now = 0;  // 0: not inside a table section ImGui takes
    int line_number = 0;
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        ++line_number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        std::string rule;
        if (line.size() >= 2 && line.front() == '[' && line.back() == ']') {
            const std::size_t split = line.find("][");
            table_columns_now = 0;
            if (split == std::string_view::npos || line.substr(1, split - 1) != "Table") continue;
            const int64_t columns = table_columns(line.substr(split + 2, line.size() - split - 3));
            if (columns == -1) continue;
            if (columns < 1 || columns > kMaxColumns)
                rule = "a table has 1 to " + std::to_string(kMaxColumns) + " columns";
            table_columns_now = columns;
        } else if (table_columns_now > 0) {
            rule = column_line_problem(line, table_columns_now);
        }
        if (!rule.empty()) return "line " + std::to_string(line_number) + ": " + std::string(line) + ": " + rule;
    }
    return {};
}

ImGuiSettingsCheck set_aside_broken_imgui_settings(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return {};
    std::string problem;
    if (fs::file_size(path, ec) > kMaxImGuiSettingsBytes) {
        problem = "larger than " + std::to_string(kMaxImGuiSettingsBytes >> 20) + " MiB";
    } else {
        std::string error;
        const auto text = read_text_file(path, error);
        problem = text ? imgui_settings_problem(*text) : error;
    }
    if (problem.empty()) return {};
    const std::string aside = path + ".bad";
    fs::rename(path, aside, ec);
    if (ec)
        return {path + ": " + problem + "; could not set it aside (" + ec.message() + "), so the layout is not read or saved",
                false};
    return {path + ": " + problem + "; set aside as " + aside + ", starting with the default layout", true};
}

std::string imgui_settings_file_name(float content_scale) {
    const int quarters = static_cast<int>(std::lround(content_scale * 4.0f));
    if (quarters <= 4) return "imgui.ini";
    std::string scale = std::to_string(quarters / 4);
    if (quarters % 4 != 0) scale += quarters % 4 == 2 ? ".5" : quarters % 4 == 1 ? ".25" : ".75";
    return "imgui-" + scale + "x.ini";
}

}  // namespace shardscope::host
