#include "core/teaching/cheatsheet.hpp"

#include "core/scenario/json_reader.hpp"
#include "core/teaching/lesson.hpp"

namespace shardscope {

using json_read::fail;
using json_read::FieldError;
using json_read::index_path;
using json_read::Json;
using json_read::ObjectReader;

namespace {

CheatSheetRow read_row(const Json& j, const std::string& path) {
    ObjectReader r(j, path);
    CheatSheetRow row;
    row.strategy = r.text_field("strategy");
    row.splits = r.text_field("splits");
    row.communication = r.text_field("communication");
    row.cost = r.text_field("cost");
    row.reach_for_it_when = r.text_field("reach_for_it_when");
    row.panel = r.string_or("panel", "");
    const Json& changes = r.required("scenario");
    if (!changes.is_object()) fail(r.path("scenario"), "must be an object (a partial scenario)");
    const ScenarioLoad merged = merge_scenario(default_scenario(), changes.dump());
    if (!merged.ok()) throw FieldError{r.path("scenario") + "." + merged.error};
    row.scenario = *merged.scenario;
    r.reject_unknown();
    return row;
}

}  // namespace

CheatSheetLoad parse_cheatsheet(std::string_view json_text, const std::string& file) {
    CheatSheetLoad out;
    const std::string error = json_read::first_error([&] {
        const Json doc = json_read::parse_document(json_text);
        ObjectReader r(doc, "");
        r.expect_schema(kCheatSheetSchema);
        const Json& rows = r.array_field("rows");
        r.reject_unknown();
        CheatSheet sheet;
        for (size_t i = 0; i < rows.size(); ++i) sheet.rows.push_back(read_row(rows[i], index_path("rows", i)));
        out.sheet = std::move(sheet);
    });
    if (!error.empty()) out.error = file + ": " + error;
    return out;
}

}  // namespace shardscope
