#pragma once
// Panel actions, declared as data: each panel lists the actions it takes (`--action ID.NAME=VALUE`,
// lesson steps, cheat-sheet rows), each with a typed value. One parser reads every value (whole
// numbers, numbers, sizes, on/off, a choice among named values, a GPU rank), so a bad value is refused
// the same way everywhere, with what is allowed; `--action list` prints the tables.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope::ui {

class AppState;

enum class ActionType {
    trigger,  // no value: "" or "1" (a lesson or the command line must say something)
    integer,  // a whole number in [min, max]
    number,   // a number in [min, max]
    bytes,    // a size in bytes in [min, max]: 512, 64KiB, 1 GiB, 2MB
    on_off,   // on/off, 1/0, true/false, yes/no
    choice,   // one of `choices`
    rank,     // a GPU rank (a whole number from 0) or none (-1)
    text,     // any text: a path, a glossary term, a preset's name
};

// An upper bound no cluster reaches: counts typed up to it are judged by core's rules, and the list
// of actions says "N or more" for them.
inline constexpr int64_t kNoUpperCount = int64_t{1} << 30;

// A value read by its action's type: `text` always, and the typed reading that applies.
struct ActionValue {
    std::string text;
    int64_t integer = 0;  // integer, rank (-1 for none)
    double number = 0;    // number, bytes, integer
    bool on = false;      // on_off
};

// Does the action with the parsed value: "" when done, else why not (without the PANEL.NAME prefix).
using ActionRun = std::function<std::string(AppState&, const ActionValue&)>;

struct ActionSpec {
    std::string name;
    ActionType type = ActionType::trigger;
    std::string help;                  // what it does, for `--action list`
    double min = 0, max = 0;           // integer, number, bytes: inclusive bounds
    std::vector<std::string> choices;  // choice: the allowed values
    ActionRun run;
    std::string value_words;  // text: what the text names ("a lesson id")
};

// The value rule of a spec in words: "a whole number from 2 to 64", "on or off", "one of a, b, c".
[[nodiscard]] std::string describe_values(const ActionSpec& spec);
// Reads `text` by the spec's type into `out`: "" or the rule it breaks, naming the value.
[[nodiscard]] std::string parse_action_value(const ActionSpec& spec, const std::string& text, ActionValue& out);

class ActionTable {
public:
    void add(ActionSpec spec);
    void trigger(std::string name, std::string help, ActionRun run);
    void integer(std::string name, std::string help, int64_t min, int64_t max, ActionRun run);
    void number(std::string name, std::string help, double min, double max, ActionRun run);
    void bytes(std::string name, std::string help, double min, double max, ActionRun run);
    void on_off(std::string name, std::string help, ActionRun run);
    void choice(std::string name, std::string help, std::vector<std::string> choices, ActionRun run);
    void rank(std::string name, std::string help, ActionRun run);
    void text(std::string name, std::string value_words, std::string help, ActionRun run);

    [[nodiscard]] const ActionSpec* find(std::string_view name) const noexcept;
    [[nodiscard]] const std::vector<ActionSpec>& specs() const noexcept { return specs_; }
    // Parses and runs `name`: "" when done, else "PANEL.NAME: why" (or the unknown name with the list).
    [[nodiscard]] std::string run(const std::string& panel_id, AppState& state, const std::string& name,
                                  const std::string& value) const;

private:
    std::vector<ActionSpec> specs_;
};

// The names of every value of an enum, by its to_string: the choices of a choice action.
template <typename Names>
[[nodiscard]] std::vector<std::string> names_of(const Names& values) {
    std::vector<std::string> out;
    for (const auto& v : values) out.emplace_back(to_string(v));
    return out;
}

// Splits a comma-separated list ("tp,cp,pp"): the mesh order and similar list values.
[[nodiscard]] std::vector<std::string> split_list(const std::string& text);

}  // namespace shardscope::ui
