#pragma once
// Lessons: step-through walkthroughs that drive the panels. One JSON file per lesson in
// lessons/; this header is the value types, the strict loader and the quiz arithmetic. No I/O: the
// app reads the files and hands their text in.
//
// File format (every key is checked; unknown keys are an error):
//   { "schema": "shardscope.lesson/1", "id": "data-parallel", "title": "...", "summary": "...",
//     "steps": [ { "title": "...",
//                  "body": "Text with glossary links: [[all-reduce]] or [[all-reduce|summed]].",
//                  "scenario": { "parallel": { "dp_shard": 8 } },       // partial scenario, optional
//                  "panels": ["mesh", "collective"], "highlight": "collective",   // optional
//                  "actions": ["collective.step=3"],                     // PANEL.ACTION=VALUE, optional
//                  "check": { ... },                                     // optional
//                  "claims": ["report.fits == 1"] } ] }                  // optional, lesson_text.hpp
//
// A body or an explanation quotes a figure by name, {{report.memory.total_gib}}, filled from the
// step's scenario when the step is shown; a claim states a comparison the text makes, and the lesson
// test fails when it stops holding (lesson_text.hpp has both grammars). A sentence never writes a
// figure the model computes by hand.
//
// A step without "panels" and "highlight" keeps those of the step before it.
// The scenario of step k is default_scenario() with the changes of steps 1..k merged in, in order
// (JSON merge patch: objects merge, everything else replaces), checked by the scenario loader and
// validate_scenario. The loader computes it, so a step whose scenario breaks a rule is a load error.
//
// A check never carries its answer: it names a core quantity (lesson_quantities()) evaluated on the
// step's scenario.
//   number: { "kind": "number", "question": "...", "quantity": "report.memory.total_gib",
//             "tolerance": 0.05 (relative, default 0.05), "absolute_tolerance": 0 (default) }
//   choice by range: { "kind": "choice", "question": "...", "quantity": "report.fits",
//             "options": [ { "text": "Yes", "min": 1 }, { "text": "No", "max": 1 } ] }
//             the right option is the one whose [min, max) holds the quantity's value
//   choice by comparison: { "kind": "choice", "question": "...", "pick": "largest" | "smallest",
//             "options": [ { "text": "TP", "quantity": "report.dims.tp.time_s" }, ... ] }
//   Both kinds take an optional "explain": text shown once answered.

#include "core/mesh/mesh.hpp"
#include "core/model/report.hpp"
#include "core/scenario/scenario.hpp"
#include "core/teaching/lesson_text.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

inline constexpr std::string_view kLessonSchema = "shardscope.lesson/1";

// A piece of a step's body: plain text, or a glossary link (term set) shown as `text`.
struct BodySpan {
    std::string text;
    std::string term;  // "" for plain text
    [[nodiscard]] bool is_link() const noexcept { return !term.empty(); }
};

// Splits "a [[b]] c [[d|e]]" into spans; "[[" without a closing "]]" stays plain text.
[[nodiscard]] std::vector<BodySpan> split_glossary_links(std::string_view body);
// The terms a body links to, in order of appearance.
[[nodiscard]] std::vector<std::string> glossary_links(std::string_view body);

enum class CheckKind { number, choice };
enum class ChoiceRule { range, largest, smallest };

struct ChoiceOption {
    std::string text;
    std::optional<double> min;  // range rule: inclusive lower bound
    std::optional<double> max;  // range rule: exclusive upper bound
    std::string quantity;       // comparison rules: the quantity this option stands for
};

struct LessonCheck {
    CheckKind kind = CheckKind::number;
    std::string question;
    std::string explain;
    std::string quantity;            // number and range-choice checks
    double tolerance = 0.05;         // number: relative
    double absolute_tolerance = 0;   // number: for answers near zero
    ChoiceRule rule = ChoiceRule::range;
    std::vector<ChoiceOption> options;
};

struct LessonStep {
    std::string title;
    std::string body;
    std::string scenario_changes;    // the partial scenario as compact JSON text; "" when none
    Scenario scenario;               // default_scenario() + the changes of every step up to this one
    std::vector<std::string> panels;
    std::string highlight;
    std::vector<std::string> actions;
    std::optional<LessonCheck> check;
    std::vector<LessonClaim> claims;  // what the text compares, checked by verify_lesson_claims
};

struct Lesson {
    std::string id;
    std::string title;
    std::string summary;
    std::string file;                // where it was loaded from, for messages
    std::vector<LessonStep> steps;
};

struct LessonLoad {
    std::optional<Lesson> lesson;
    std::string error;               // "FILE: FIELD: RULE"
    [[nodiscard]] bool ok() const noexcept { return lesson.has_value(); }
};

// Limits on a lesson's length: long enough to teach one idea, short enough to finish.
inline constexpr size_t kMinLessonSteps = 1;
inline constexpr size_t kMaxLessonSteps = 20;

[[nodiscard]] LessonLoad parse_lesson(std::string_view json_text, const std::string& file);

// Several files at once: every good lesson, sorted by file name, and one error per bad file (a
// duplicate id rejects the later file). A broken file never stops the others.
struct LessonSet {
    std::vector<Lesson> lessons;
    std::vector<std::string> errors;
};
[[nodiscard]] LessonSet load_lessons(std::vector<std::pair<std::string, std::string>> files_and_texts);

// Whether lesson `id` is among `lessons` and has step `step` (1-based): "" when it does, else why not,
// naming the lessons there are or the steps it has. The app's --lesson and `shardscope link` ask it.
[[nodiscard]] std::string lesson_step_error(const std::vector<Lesson>& lessons, const std::string& id, int step);

// `base` with a partial scenario (JSON object text) merged in, through the scenario loader and
// validate_scenario: all or nothing, errors as the scenario loader words them.
[[nodiscard]] ScenarioLoad merge_scenario(const Scenario& base, std::string_view partial_json);

// The changes of a step in words, one per value that differs from `before`: "parallel.dp_shard = 8",
// "training.schedule = 1f1b". A model given whole reads "model = Llama 3 70B". Lessons spell out
// whole blocks for clarity; only what really changed is worth showing.
[[nodiscard]] std::vector<std::string> describe_scenario_changes(const Scenario& before, std::string_view changes_json);

// ---- Quantities a check may name -------------------------------------------------------------------

struct QuantityInfo {
    std::string name;     // e.g. "report.memory.total_gib"
    std::string unit;     // shown next to the answer box: "GiB", "s", "", "%"...
    std::string meaning;  // one line for the panel and for errors
};
// Every name a check may use. Per-dim names are listed for tp, cp, dp_shard, dp_replicate, pp, ep.
[[nodiscard]] const std::vector<QuantityInfo>& lesson_quantities();
[[nodiscard]] const QuantityInfo* find_quantity(std::string_view name);

struct QuantityValue {
    std::optional<double> value;
    std::string error;    // why there is no value (unknown name, a count-only model has no FLOPs...)
};
// The value as the panels show it, with core/scenario/units.hpp: "141 GB (131 GiB)", "3.40 ms", "18.2%".
[[nodiscard]] std::string format_quantity(std::string_view name, double value);
// A share of one (0..1) that the panels show as a percentage: MFU, the bubble, the overlap slowdown.
[[nodiscard]] bool is_share_quantity(std::string_view name) noexcept;

// For a quantity a learner works out by hand rather than reads off a panel (heads per TP rank, bytes
// of state per parameter...), the inputs as the quiz shows them: "heads = 64, tp = 8"; nullopt for
// a quantity some panel shows.
[[nodiscard]] std::optional<std::string> hand_calculation_inputs(std::string_view name, const Scenario& s);

[[nodiscard]] QuantityValue evaluate_quantity(std::string_view name, const Scenario& s, const Report& r,
                                              const DeviceMesh& mesh);

struct CheckAnswer {
    double value = 0;                   // number / range-choice: the quantity's value
    std::vector<double> option_values;  // comparison choice: each option's value
    int correct_option = -1;            // choice: index of the right option
    std::string error;                  // "" when the answer could be computed
    [[nodiscard]] bool ok() const noexcept { return error.empty(); }
};
[[nodiscard]] CheckAnswer answer_check(const LessonCheck& check, const Scenario& s, const Report& r,
                                       const DeviceMesh& mesh);
// Builds the report and mesh itself (the lesson test and the CLI).
[[nodiscard]] CheckAnswer answer_check(const LessonCheck& check, const Scenario& s);
// Is `typed` within the check's tolerance of the computed value?
[[nodiscard]] bool number_answer_is_right(const LessonCheck& check, double computed, double typed) noexcept;

// The figure a panel drew for quantity `name` ("698 ms", "65.8 GiB", "512 MiB", "18.2%", "1,024",
// "131k"), read back in the quantity's own unit (s, GiB, a fraction...); nullopt when the text holds
// no number in a unit it can be converted from ("yes", "< 0.001 GiB").
[[nodiscard]] std::optional<double> number_in_shown_text(std::string_view name, std::string_view text);
// Right against core's value, or against the figure as a panel of the step shows it (its rounding):
// a learner who types what the outlined panel says is never told "not quite".
[[nodiscard]] bool number_answer_is_right(const LessonCheck& check, double computed, double typed,
                                          const std::vector<std::string>& shown_texts);

// Every rule that needs the scenario computed: each check has exactly one right answer. Errors are
// "FILE: steps[K].check: RULE".
[[nodiscard]] std::vector<std::string> verify_lesson_checks(const Lesson& lesson);

}  // namespace shardscope
