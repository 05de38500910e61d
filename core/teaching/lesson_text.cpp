#include "core/teaching/lesson_text.hpp"

#include "core/model/cost_model.hpp"
#include "core/scenario/units.hpp"
#include "core/teaching/lesson.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace shardscope {

namespace {

constexpr std::string_view kPrevious = "previous:";
constexpr std::string_view kStep = "step";
// "About" in a lesson's sentence: near enough that a reader would not call one larger.
constexpr double kAboutTolerance = 0.05;

// The whole of `text` as a finite number, or nothing.
std::optional<double> number_in(std::string_view text) {
    if (text.empty()) return std::nullopt;
    const std::string s(text);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::vector<std::string_view> tokens_of(std::string_view text) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && text[i] == ' ') ++i;
        const size_t start = i;
        while (i < text.size() && text[i] != ' ') ++i;
        if (i > start) out.push_back(text.substr(start, i - start));
    }
    return out;
}

std::optional<ClaimOp> op_of(std::string_view t) {
    if (t == "<") return ClaimOp::less;
    if (t == "<=") return ClaimOp::less_equal;
    if (t == ">") return ClaimOp::greater;
    if (t == ">=") return ClaimOp::greater_equal;
    if (t == "==") return ClaimOp::equal;
    if (t == "!=") return ClaimOp::not_equal;
    if (t == "~=") return ClaimOp::about;
    return std::nullopt;
}

// One side: a number, a reference, or a number times a reference (either way round).
std::string read_side(const std::vector<std::string_view>& t, size_t at, ClaimSide& side) {
    const auto read_term = [&](std::string_view term) -> std::string {
        if (const auto n = number_in(term)) {
            side.factor *= *n;
            return {};
        }
        if (side.ref) return "\"" + std::string(term) + "\": a side multiplies at most one figure";
        FigureRefParse p = parse_figure_ref(term, at);
        if (!p.ref) return p.error;
        side.ref = std::move(p.ref);
        return {};
    };
    if (t.size() == 1) return read_term(t[0]);
    if (t.size() == 3 && t[1] == "*") {
        if (std::string e = read_term(t[0]); !e.empty()) return e;
        return read_term(t[2]);
    }
    return "each side is a figure, a number, or NUMBER * FIGURE";
}

}  // namespace

size_t FigureRef::step_read(size_t at) const noexcept {
    if (absolute_step) return *absolute_step;
    return static_cast<size_t>(static_cast<long long>(at) + step_offset);
}

FigureRefParse parse_figure_ref(std::string_view text, size_t at) {
    FigureRefParse out;
    FigureRef ref;
    std::string_view name = text;
    if (name.substr(0, kPrevious.size()) == kPrevious) {
        if (at == 0) {
            out.error = "\"" + std::string(text) + "\": the first step has no previous step";
            return out;
        }
        ref.step_offset = -1;
        name.remove_prefix(kPrevious.size());
    } else if (const size_t colon = name.find(':'); colon != std::string_view::npos) {
        const std::string_view prefix = name.substr(0, colon);
        const auto n = prefix.substr(0, kStep.size()) == kStep ? number_in(prefix.substr(kStep.size())) : std::nullopt;
        if (!n || *n < 1 || *n != std::floor(*n) || *n > double(at + 1)) {
            out.error = "\"" + std::string(text) + "\": a figure is read on previous: or stepN: (N from 1 to this step, " +
                        std::to_string(at + 1) + ")";
            return out;
        }
        ref.absolute_step = static_cast<size_t>(*n) - 1;
        name.remove_prefix(colon + 1);
    }
    if (!find_quantity(name)) {
        out.error = "\"" + std::string(name) + "\" is not a known quantity (see lesson_quantities())";
        return out;
    }
    ref.quantity = std::string(name);
    out.ref = std::move(ref);
    return out;
}

std::string_view to_string(ClaimOp op) noexcept {
    switch (op) {
        case ClaimOp::less: return "<";
        case ClaimOp::less_equal: return "<=";
        case ClaimOp::greater: return ">";
        case ClaimOp::greater_equal: return ">=";
        case ClaimOp::equal: return "==";
        case ClaimOp::not_equal: return "!=";
        case ClaimOp::about: return "~=";
    }
    return "?";
}

ClaimParse parse_claim(std::string_view text, size_t at) {
    ClaimParse out;
    const std::vector<std::string_view> t = tokens_of(text);
    size_t op_at = t.size();
    for (size_t i = 0; i < t.size(); ++i) {
        if (!op_of(t[i])) continue;
        if (op_at != t.size()) {
            out.error = "has two comparisons; a claim is SIDE OP SIDE";
            return out;
        }
        op_at = i;
    }
    if (op_at == t.size()) {
        out.error = "has no comparison (one of < <= > >= == != ~=)";
        return out;
    }
    LessonClaim c;
    c.text = std::string(text);
    c.op = *op_of(t[op_at]);
    const std::vector<std::string_view> left(t.begin(), t.begin() + long(op_at));
    const std::vector<std::string_view> right(t.begin() + long(op_at) + 1, t.end());
    for (auto [side_tokens, side] : {std::pair{&left, &c.left}, std::pair{&right, &c.right}}) {
        if (std::string e = read_side(*side_tokens, at, *side); !e.empty()) {
            out.error = e;
            return out;
        }
    }
    if (!c.left.ref && !c.right.ref) {
        out.error = "compares two numbers; a claim reads at least one figure";
        return out;
    }
    out.claim = std::move(c);
    return out;
}

bool claim_op_holds(double left, ClaimOp op, double right) noexcept {
    switch (op) {
        case ClaimOp::less: return left < right;
        case ClaimOp::less_equal: return left <= right;
        case ClaimOp::greater: return left > right;
        case ClaimOp::greater_equal: return left >= right;
        case ClaimOp::equal: return left == right;
        case ClaimOp::not_equal: return left != right;
        case ClaimOp::about: return std::fabs(left - right) <= kAboutTolerance * std::fabs(right);
    }
    return false;
}

QuotedFigures quoted_figures(std::string_view text, size_t at) {
    QuotedFigures out;
    for (size_t open = text.find("{{"); open != std::string_view::npos; open = text.find("{{", open + 2)) {
        const size_t close = text.find("}}", open + 2);
        if (close == std::string_view::npos) {
            out.error = "a {{ without }}";
            return out;
        }
        FigureRefParse p = parse_figure_ref(text.substr(open + 2, close - open - 2), at);
        if (!p.ref) {
            out.error = "{{" + std::string(text.substr(open + 2, close - open - 2)) + "}}: " + p.error;
            return out;
        }
        out.refs.push_back(std::move(*p.ref));
        open = close;
    }
    return out;
}

std::string format_figure(std::string_view quantity, double value) {
    if (is_share_quantity(quantity)) return format_percent(value);
    return format_quantity(quantity, value);
}

// ---- Figures, priced per step -------------------------------------------------------------------

struct LessonFigures::Priced {
    Report report;
    DeviceMesh mesh;
};

LessonFigures::LessonFigures(const Lesson& lesson) : lesson_(lesson) {}
LessonFigures::~LessonFigures() = default;

const LessonFigures::Priced& LessonFigures::priced(size_t step) {
    auto& slot = priced_[step];
    if (!slot) {
        const Scenario& s = lesson_.steps[step].scenario;
        slot = std::make_unique<Priced>(Priced{build_report(s), DeviceMesh::build(s.cluster, s.parallel)});
    }
    return *slot;
}

LessonFigures::Value LessonFigures::value(const FigureRef& ref, size_t at) {
    const size_t step = ref.step_read(at);
    if (step >= lesson_.steps.size()) return {std::nullopt, "the lesson has no step " + std::to_string(step + 1)};
    const Priced& p = priced(step);
    const QuantityValue v = evaluate_quantity(ref.quantity, lesson_.steps[step].scenario, p.report, p.mesh);
    return {v.value, v.error};
}

std::string fill_quoted_figures(std::string_view text, size_t at, LessonFigures& figures) {
    std::string out;
    size_t i = 0;
    for (size_t open = text.find("{{"); open != std::string_view::npos; open = text.find("{{", i)) {
        const size_t close = text.find("}}", open + 2);
        if (close == std::string_view::npos) break;
        out.append(text.substr(i, open - i));
        const FigureRefParse p = parse_figure_ref(text.substr(open + 2, close - open - 2), at);
        const auto v = p.ref ? figures.value(*p.ref, at) : LessonFigures::Value{};
        out += v.value ? format_figure(p.ref->quantity, *v.value) : "n/a";
        i = close + 2;
    }
    out.append(text.substr(i));
    return out;
}

namespace {

std::string side_text(const ClaimSide& side) {
    std::string s;
    if (side.ref) {
        if (side.ref->absolute_step) s = "step" + std::to_string(*side.ref->absolute_step + 1) + ":";
        else if (side.ref->step_offset == -1) s = std::string(kPrevious);
        s += side.ref->quantity;
    }
    return s;
}

}  // namespace

std::vector<std::string> verify_lesson_claims(const Lesson& lesson) {
    std::vector<std::string> errors;
    LessonFigures figures(lesson);
    for (size_t k = 0; k < lesson.steps.size(); ++k) {
        const std::vector<LessonClaim>& claims = lesson.steps[k].claims;
        for (size_t i = 0; i < claims.size(); ++i) {
            const LessonClaim& c = claims[i];
            const std::string where = lesson.file + ": steps[" + std::to_string(k) + "].claims[" + std::to_string(i) + "]: ";
            double values[2] = {0, 0};
            std::string readings;
            bool evaluated = true;
            for (int side = 0; side < 2; ++side) {
                const ClaimSide& s = side == 0 ? c.left : c.right;
                values[side] = s.factor;
                if (!s.ref) continue;
                const LessonFigures::Value v = figures.value(*s.ref, k);
                if (!v.value) {
                    errors.push_back(where + side_text(s) + ": " + v.error);
                    evaluated = false;
                    break;
                }
                values[side] *= *v.value;
                readings += (readings.empty() ? "" : ", ") + side_text(s) + " = " + format_figure(s.ref->quantity, *v.value);
            }
            if (evaluated && !claim_op_holds(values[0], c.op, values[1]))
                errors.push_back(where + "\"" + c.text + "\" does not hold: " + readings);
        }
    }
    return errors;
}

}  // namespace shardscope
