// Quoted figures and claims in a lesson's text (core/teaching/lesson_text.hpp): the grammar, the
// loader's messages, and values worked by hand on the default scenario (Llama 3 8B: 32 heads; 8 nodes x
// 8 H100 = 64 GPUs, tp 2, pp 2, dp_shard 8, dp_replicate 2, 1F1B, global_batch 256, micro_batch 1; the
// DGX H100 links: NVLink 370 GB/s, one 48 GB/s NIC per GPU, 8 a node).
#include "core/teaching/lesson.hpp"
#include "core/teaching/lesson_text.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace shardscope;

namespace {

// Step 1 is the default scenario; step 2 sets tp 4 (dp_shard 4 keeps the 64 GPUs): 32 heads over 4 = 8.
// Each step's text is its body and any further fields, written as JSON.
std::string two_step_lesson(const std::string& first, const std::string& second) {
    const auto step = [](const std::string& fields) {
        return fields.find("\"body\"") == std::string::npos ? R"("body": "b")" + fields : fields.substr(2);
    };
    return R"({"schema": "shardscope.lesson/1", "id": "t", "title": "T", "summary": "S", "steps": [)"
           R"({"title": "a", )" + step(first) + R"(},)"
           R"({"title": "c", "scenario": {"parallel": {"tp": 4, "dp_shard": 4}}, )" + step(second) + "}]}";
}

Lesson load(const std::string& text) {
    LessonLoad l = parse_lesson(text, "lessons/t.json");
    INFO(l.error);
    REQUIRE(l.ok());
    return *l.lesson;
}

std::string load_error(const std::string& text) {
    const LessonLoad l = parse_lesson(text, "lessons/t.json");
    CHECK_FALSE(l.ok());
    return l.error;
}

}  // namespace

TEST_CASE("a figure reference reads this step, the previous one, or step N up to this one") {
    const FigureRefParse here = parse_figure_ref("report.fits", 2);
    REQUIRE(here.ref);
    CHECK(here.ref->step_read(2) == 2);
    const FigureRefParse before = parse_figure_ref("previous:report.fits", 2);
    REQUIRE(before.ref);
    CHECK(before.ref->step_read(2) == 1);
    const FigureRefParse first = parse_figure_ref("step1:mesh.nodes", 2);
    REQUIRE(first.ref);
    CHECK(first.ref->step_read(2) == 0);
    CHECK(first.ref->quantity == "mesh.nodes");

    CHECK(parse_figure_ref("previous:report.fits", 0).error == "\"previous:report.fits\": the first step has no previous step");
    CHECK(parse_figure_ref("step4:report.fits", 2).error ==
          "\"step4:report.fits\": a figure is read on previous: or stepN: (N from 1 to this step, 3)");
    CHECK(parse_figure_ref("later:report.fits", 2).error ==
          "\"later:report.fits\": a figure is read on previous: or stepN: (N from 1 to this step, 3)");
    CHECK(parse_figure_ref("report.fitz", 0).error == "\"report.fitz\" is not a known quantity (see lesson_quantities())");
}

TEST_CASE("a claim is SIDE OP SIDE, a side a figure, a number or a number times a figure") {
    const ClaimParse c = parse_claim("report.time.step_s < 0.5 * previous:report.time.step_s", 1);
    REQUIRE(c.claim);
    CHECK(c.claim->op == ClaimOp::less);
    CHECK(c.claim->left.factor == 1);
    CHECK(c.claim->left.ref->quantity == "report.time.step_s");
    CHECK(c.claim->right.factor == 0.5);
    CHECK(c.claim->right.ref->step_offset == -1);
    const ClaimParse flipped = parse_claim("report.fits * 3 >= 2", 0);
    REQUIRE(flipped.claim);
    CHECK(flipped.claim->left.factor == 3);
    CHECK_FALSE(flipped.claim->right.ref);
    CHECK(flipped.claim->right.factor == 2);

    CHECK(parse_claim("report.fits", 0).error == "has no comparison (one of < <= > >= == != ~=)");
    CHECK(parse_claim("report.fits < 1 < 2", 0).error == "has two comparisons; a claim is SIDE OP SIDE");
    CHECK(parse_claim("1 < 2", 0).error == "compares two numbers; a claim reads at least one figure");
    CHECK(parse_claim("report.fits + 1 == 2", 0).error == "each side is a figure, a number, or NUMBER * FIGURE");
    CHECK(parse_claim("report.fits * mesh.nodes == 2", 0).error == "\"mesh.nodes\": a side multiplies at most one figure");
}

TEST_CASE("claim comparisons, and about as within 5% of the right side") {
    CHECK(claim_op_holds(1, ClaimOp::less, 2));
    CHECK_FALSE(claim_op_holds(2, ClaimOp::less, 2));
    CHECK(claim_op_holds(2, ClaimOp::less_equal, 2));
    CHECK(claim_op_holds(3, ClaimOp::greater, 2));
    CHECK(claim_op_holds(2, ClaimOp::greater_equal, 2));
    CHECK(claim_op_holds(2, ClaimOp::equal, 2));
    CHECK(claim_op_holds(2, ClaimOp::not_equal, 3));
    CHECK(claim_op_holds(1.04, ClaimOp::about, 1.0));
    CHECK(claim_op_holds(0.96, ClaimOp::about, 1.0));
    CHECK_FALSE(claim_op_holds(1.06, ClaimOp::about, 1.0));
}

TEST_CASE("the text's figures are filled from the step they name") {
    const Lesson lesson = load(two_step_lesson(
        "", R"(, "body": "{{model.heads_per_tp_rank}} now, {{previous:model.heads_per_tp_rank}} before, {{step1:mesh.world_size}} in all")"));
    LessonFigures figures(lesson);
    CHECK(fill_quoted_figures(lesson.steps[1].body, 1, figures) == "8 heads now, 16 heads before, 64 GPUs in all");
    CHECK(fill_quoted_figures("no figures {here}", 1, figures) == "no figures {here}");
}

TEST_CASE("a figure as a sentence quotes it") {
    CHECK(format_figure("report.mfu", 0.412) == "41.2%");
    CHECK(format_figure("pipeline.closed_form_bubble", 1.0 / 17.0) == "5.9%");
    CHECK(format_figure("report.memory.total_gib", 79.6) == "79.6 GiB");
    CHECK(format_figure("report.fits", 1) == "yes");
    CHECK(format_figure("scenario.intra_gbps", 370) == "370 GB/s");
    CHECK(format_figure("scenario.peak_tflops", 989) == "989 TFLOP/s");
}

TEST_CASE("the quantities lessons quote, worked by hand on the default scenario") {
    const Lesson lesson = load(two_step_lesson("", ""));
    LessonFigures figures(lesson);
    const auto value = [&](const char* name) {
        const auto v = figures.value(*parse_figure_ref(name, 0).ref, 0);
        REQUIRE(v.value);
        return *v.value;
    };
    CHECK(value("scenario.peak_tflops") == 989);           // H100 SXM dense BF16 (datasheet)
    CHECK(value("scenario.intra_gbps") == 370);
    CHECK(value("scenario.inter_gbps") == 48);
    CHECK(value("scenario.node_inter_gbps") == 8 * 48);    // 8 NICs a node
    CHECK(value("model.overlap_slowdown") == doctest::Approx(0.159));
    // 256 sequences over dp_shard 8 x dp_replicate 2 = 16 micro-batches of one; 1F1B on 2 stages:
    // (p-1)/(m+p-1) = 1/17.
    CHECK(value("report.microbatches") == 16);
    CHECK(value("pipeline.closed_form_bubble") == doctest::Approx(1.0 / 17.0));
    // The whole model's state: every parameter at 16 bytes (mixed precision with Adam).
    CHECK(value("memory.whole_model_state_gib") == doctest::Approx(value("report.params_total") * 16 / (1024.0 * 1024 * 1024)));
}

TEST_CASE("claims are evaluated on the steps they name, with the figures in the message") {
    const Lesson lesson = load(two_step_lesson(
        "", R"(, "claims": ["model.heads_per_tp_rank == 0.5 * previous:model.heads_per_tp_rank",
                            "model.heads_per_tp_rank > previous:model.heads_per_tp_rank",
                            "step1:mesh.world_size ~= 64"])"));
    REQUIRE(lesson.steps[1].claims.size() == 3);
    const std::vector<std::string> errors = verify_lesson_claims(lesson);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0] == "lessons/t.json: steps[1].claims[1]: \"model.heads_per_tp_rank > previous:model.heads_per_tp_rank\" "
                       "does not hold: model.heads_per_tp_rank = 8 heads, previous:model.heads_per_tp_rank = 16 heads");
}

TEST_CASE("a claim on a figure the step has none of is reported, not taken as false") {
    // The default model is dense: it has no experts per EP rank.
    const Lesson lesson = load(two_step_lesson(R"(, "claims": ["model.experts_per_ep_rank > 1"])", ""));
    const std::vector<std::string> errors = verify_lesson_claims(lesson);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0] == "lessons/t.json: steps[0].claims[0]: model.experts_per_ep_rank: the model has no experts");
}

TEST_CASE("broken figures and claims are load errors naming the field") {
    CHECK(load_error(two_step_lesson(R"(, "body": "see {{report.fitz}}")", "")) ==
          "lessons/t.json: steps[0].body: {{report.fitz}}: \"report.fitz\" is not a known quantity (see lesson_quantities())");
    CHECK(load_error(two_step_lesson(R"(, "body": "see {{report.fits")", "")) == "lessons/t.json: steps[0].body: a {{ without }}");
    CHECK(load_error(two_step_lesson(R"(, "body": "{{previous:report.fits}}")", "")) ==
          "lessons/t.json: steps[0].body: {{previous:report.fits}}: \"previous:report.fits\": the first step has no previous step");
    CHECK(load_error(two_step_lesson(
              "", R"(, "check": {"kind": "number", "question": "q", "quantity": "report.fits", "explain": "{{mesh.nodez}}"})")) ==
          "lessons/t.json: steps[1].check.explain: {{mesh.nodez}}: \"mesh.nodez\" is not a known quantity (see lesson_quantities())");
    CHECK(load_error(two_step_lesson(R"(, "claims": ["report.fits"])", "")) ==
          "lessons/t.json: steps[0].claims[0]: \"report.fits\" has no comparison (one of < <= > >= == != ~=)");
    CHECK(load_error(two_step_lesson(R"(, "claims": "report.fits == 1")", "")).rfind("lessons/t.json: steps[0].claims: ", 0) == 0);
}
