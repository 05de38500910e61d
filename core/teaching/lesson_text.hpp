#pragma once
// Lesson text that cannot drift from the model it teaches. A step's body and a check's explanation
// quote figures by name, `{{report.memory.total_gib}}`, filled from the step's own scenario when the
// step is shown; a step's comparisons are written as claims, `report.time.step_s < previous:report.time.step_s`,
// that the lesson test evaluates. When the cost model changes, the quoted figures follow it and a
// claim that no longer holds fails a test instead of misleading a student.
//
// A figure reference is a quantity name (lesson_quantities()), optionally prefixed by the step it is
// read on: `previous:` (the step before) or `stepN:` (step N of the lesson, from 1, not after this one).
//
// A claim is `SIDE OP SIDE`, tokens separated by spaces, where
//   SIDE is a reference, a number, or `NUMBER * REFERENCE` / `REFERENCE * NUMBER`;
//   OP is one of  <  <=  >  >=  ==  !=  ~=   (`~=`: within 5% of the right side).
// e.g. "report.fits == 1", "report.dims.tp.time_s > 2 * step8:report.dims.tp.time_s",
//      "report.memory.model_state_gib > 2 * report.gpu_memory_gib".

#include "core/mesh/mesh.hpp"
#include "core/model/report.hpp"
#include "core/scenario/scenario.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct LessonStep;
struct Lesson;

// A quantity read on one step: `step_offset` 0 is the step itself, -1 the one before; `absolute_step`
// (0-based) when written stepN:.
struct FigureRef {
    std::string quantity;
    std::optional<size_t> absolute_step;
    int step_offset = 0;
    // The 0-based step this reference reads, from the step `at` it is written on.
    [[nodiscard]] size_t step_read(size_t at) const noexcept;
};

// Reads "previous:report.fits", "step3:mesh.nodes" or "report.fits" written on step `at` (0-based):
// the reference, or why it is not one.
struct FigureRefParse {
    std::optional<FigureRef> ref;
    std::string error;
};
[[nodiscard]] FigureRefParse parse_figure_ref(std::string_view text, size_t at);

enum class ClaimOp { less, less_equal, greater, greater_equal, equal, not_equal, about };
[[nodiscard]] std::string_view to_string(ClaimOp op) noexcept;

// One side of a claim: factor x (the reference's value, or 1 when it has none).
struct ClaimSide {
    double factor = 1;
    std::optional<FigureRef> ref;
};

struct LessonClaim {
    std::string text;  // as written, for messages
    ClaimSide left;
    ClaimOp op = ClaimOp::equal;
    ClaimSide right;
};

struct ClaimParse {
    std::optional<LessonClaim> claim;
    std::string error;
};
// Parses a claim written on step `at` (0-based).
[[nodiscard]] ClaimParse parse_claim(std::string_view text, size_t at);
// Whether `left OP right` holds (`about`: within 5% of the right side).
[[nodiscard]] bool claim_op_holds(double left, ClaimOp op, double right) noexcept;

// The `{{...}}` references in a text, in order: an error names the first bad one ("{{report.fitz}}
// is not a known quantity", "a {{ without }}"). Written on step `at`.
struct QuotedFigures {
    std::vector<FigureRef> refs;
    std::string error;
};
[[nodiscard]] QuotedFigures quoted_figures(std::string_view text, size_t at);

// A figure as a sentence quotes it: memory in GiB ("79.6 GiB"), seconds ("354 ms"), shares as
// percentages ("18.2%"), yes/no for flags, otherwise as the panels print the quantity.
[[nodiscard]] std::string format_figure(std::string_view quantity, double value);

// Every step's scenario priced once, on demand: the figures a lesson's text and claims read.
class LessonFigures {
public:
    explicit LessonFigures(const Lesson& lesson);
    ~LessonFigures();
    LessonFigures(const LessonFigures&) = delete;
    LessonFigures& operator=(const LessonFigures&) = delete;

    // The value of `ref` written on step `at`; no value (and why) when the quantity has none there.
    struct Value {
        std::optional<double> value;
        std::string error;
    };
    [[nodiscard]] Value value(const FigureRef& ref, size_t at);

private:
    struct Priced;
    const Priced& priced(size_t step);
    const Lesson& lesson_;
    std::map<size_t, std::unique_ptr<Priced>> priced_;
};

// `text` with each {{...}} replaced by its figure on step `at`; a figure with no value reads "n/a".
[[nodiscard]] std::string fill_quoted_figures(std::string_view text, size_t at, LessonFigures& figures);

// Every claim of every step evaluated: one message per claim that fails or cannot be evaluated,
// "FILE: steps[K].claims[I]: "TEXT" does not hold: report.time.step_s = 0.354 s, previous:... = 0.698 s".
[[nodiscard]] std::vector<std::string> verify_lesson_claims(const Lesson& lesson);

}  // namespace shardscope
