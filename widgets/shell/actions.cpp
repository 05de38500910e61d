#include "widgets/shell/actions.hpp"

#include "core/collectives/collective_figures.hpp"
#include "core/scenario/units.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace shardscope::ui {

namespace {

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

// Whole numbers as written ("16,384" would be two values in a list): digits with an optional sign.
bool read_whole(const std::string& text, int64_t& out) {
    if (text.empty()) return false;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(first, last, out);
    return ec == std::errc() && ptr == last;
}

bool read_real(const std::string& text, double& out) {
    if (text.empty()) return false;
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return *end == '\0' && std::isfinite(out);
}

std::string number_text(double v) {
    std::ostringstream os;
    if (v == std::floor(v) && std::fabs(v) < 1e15) os << static_cast<int64_t>(v);
    else os << v;
    return os.str();
}

// Bounds past these are "no bound" in words: a count no cluster reaches, any finite number.
constexpr double kUnboundedNumber = 1e300;

std::string range_text(const char* what, const ActionSpec& spec) {
    if (spec.min <= -kUnboundedNumber && spec.max >= kUnboundedNumber) return std::string("any ") + what;
    if (spec.max >= static_cast<double>(kNoUpperCount)) return std::string("a ") + what + ", " + number_text(spec.min) + " or more";
    return std::string("a ") + what + " from " + number_text(spec.min) + " to " + number_text(spec.max);
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : ", ") + items[i];
    return out;
}

}  // namespace

std::string describe_values(const ActionSpec& spec) {
    switch (spec.type) {
        case ActionType::trigger: return "no value (or 1)";
        case ActionType::integer: return range_text("whole number", spec);
        case ActionType::number: return range_text("number", spec);
        case ActionType::bytes:
            return "a size such as 512, 64KiB or 1GiB, from " + format_bytes(spec.min) + " to " +
                   format_bytes(spec.max);
        case ActionType::on_off: return "on or off (1/0, true/false, yes/no)";
        case ActionType::choice: return "one of " + joined(spec.choices);
        case ActionType::rank: return "a GPU rank (0, 1, ...) or none";
        case ActionType::text: return spec.value_words;
    }
    return "";
}

std::string parse_action_value(const ActionSpec& spec, const std::string& text, ActionValue& out) {
    out = ActionValue{};
    out.text = text;
    const std::string refused = quoted(text) + " is not " + describe_values(spec);
    switch (spec.type) {
        case ActionType::trigger:
            if (text.empty() || text == "1") return {};
            return refused;
        case ActionType::integer:
            if (!read_whole(text, out.integer) || out.integer < spec.min || out.integer > spec.max) return refused;
            out.number = static_cast<double>(out.integer);
            return {};
        case ActionType::number:
            if (!read_real(text, out.number) || out.number < spec.min || out.number > spec.max) return refused;
            return {};
        case ActionType::bytes: {
            const auto b = parse_byte_size(text);
            if (!b || *b < spec.min || *b > spec.max) return refused;
            out.number = *b;
            return {};
        }
        case ActionType::on_off:
            if (text == "on" || text == "1" || text == "true" || text == "yes") return out.on = true, std::string();
            if (text == "off" || text == "0" || text == "false" || text == "no") return out.on = false, std::string();
            return refused;
        case ActionType::choice:
            for (const std::string& c : spec.choices)
                if (c == text) return {};
            return refused;
        case ActionType::rank:
            if (text == "none") return out.integer = -1, std::string();
            if (!read_whole(text, out.integer) || out.integer < 0) return refused;
            out.number = static_cast<double>(out.integer);
            return {};
        case ActionType::text: return {};
    }
    return refused;
}

void ActionTable::add(ActionSpec spec) { specs_.push_back(std::move(spec)); }

void ActionTable::trigger(std::string name, std::string help, ActionRun run) {
    add({std::move(name), ActionType::trigger, std::move(help), 0, 0, {}, std::move(run), {}});
}
void ActionTable::integer(std::string name, std::string help, int64_t min, int64_t max, ActionRun run) {
    add({std::move(name),
         ActionType::integer,
         std::move(help),
         static_cast<double>(min),
         static_cast<double>(max),
         {},
         std::move(run), {}});
}
void ActionTable::number(std::string name, std::string help, double min, double max, ActionRun run) {
    add({std::move(name), ActionType::number, std::move(help), min, max, {}, std::move(run), {}});
}
void ActionTable::bytes(std::string name, std::string help, double min, double max, ActionRun run) {
    add({std::move(name), ActionType::bytes, std::move(help), min, max, {}, std::move(run), {}});
}
void ActionTable::on_off(std::string name, std::string help, ActionRun run) {
    add({std::move(name), ActionType::on_off, std::move(help), 0, 0, {}, std::move(run), {}});
}
void ActionTable::choice(std::string name, std::string help, std::vector<std::string> choices, ActionRun run) {
    // A value spelled the same two ways (measure's "broadcast") is listed once.
    std::vector<std::string> distinct;
    for (std::string& c : choices)
        if (std::find(distinct.begin(), distinct.end(), c) == distinct.end()) distinct.push_back(std::move(c));
    choices = std::move(distinct);
    add({std::move(name), ActionType::choice, std::move(help), 0, 0, std::move(choices), std::move(run), {}});
}
void ActionTable::rank(std::string name, std::string help, ActionRun run) {
    add({std::move(name), ActionType::rank, std::move(help), 0, 0, {}, std::move(run), {}});
}
void ActionTable::text(std::string name, std::string value_words, std::string help, ActionRun run) {
    add({std::move(name), ActionType::text, std::move(help), 0, 0, {}, std::move(run), std::move(value_words)});
}

const ActionSpec* ActionTable::find(std::string_view name) const noexcept {
    for (const ActionSpec& s : specs_)
        if (s.name == name) return &s;
    return nullptr;
}

std::string ActionTable::run(const std::string& panel_id, AppState& state, const std::string& name,
                             const std::string& value) const {
    const ActionSpec* spec = find(name);
    if (!spec) {
        std::vector<std::string> names;
        for (const ActionSpec& s : specs_) names.push_back(s.name);
        return "panel " + panel_id + " has no action " + quoted(name) +
               (names.empty() ? std::string(" (it takes none)") : " (its actions: " + joined(names) + ")");
    }
    const std::string prefix = panel_id + "." + name + ": ";
    ActionValue v;
    if (std::string why = parse_action_value(*spec, value, v); !why.empty()) return prefix + why;
    // A rule that already names one of this panel's fields ("collective.gpus_per_node: ...") stands as is.
    if (std::string why = spec->run(state, v); !why.empty())
        return why.rfind(panel_id + ".", 0) == 0 ? why : prefix + why;
    return {};
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) out.push_back(item);
    return out;
}

}  // namespace shardscope::ui
