// Every question of every shipped lesson, answered in the real window as a student would: by reading
// the figure a panel of the step draws (the probe reports each figure as drawn), typing it with the
// keyboard in the question's unit, or clicking the right option, and pressing Next by mouse.
#include "live_app.hpp"

#include "core/teaching/lesson.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace shardscope;
using namespace shardscope::test;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::vector<Lesson> shipped_lessons() {
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& e : fs::directory_iterator(fs::path(SHARDSCOPE_SOURCE_DIR) / "lessons")) {
        if (e.path().extension() != ".json") continue;
        std::ifstream in(e.path());
        std::stringstream ss;
        ss << in.rdbuf();
        files.emplace_back("lessons/" + e.path().filename().string(), ss.str());
    }
    LessonSet set = load_lessons(std::move(files));
    REQUIRE(set.errors.empty());
    return std::move(set.lessons);
}

// What a student types for a number question: the figure the step's panels draw (the outlined one
// first), in the question's unit; for a hand calculation, what the shown inputs work out to.
std::optional<std::string> answer_to_type(const Json& probe, const LessonStep& step) {
    const LessonCheck& c = *step.check;
    if (hand_calculation_inputs(c.quantity, step.scenario)) {
        const CheckAnswer a = answer_check(c, step.scenario);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.6g", a.value);
        return std::string(buf);
    }
    std::vector<std::string> panels{step.highlight};
    panels.insert(panels.end(), step.panels.begin(), step.panels.end());
    for (const std::string& panel : panels)
        for (const Json& f : probe["shown"])
            if (f["panel"] == panel && f["quantity"] == c.quantity)
                if (const auto v = number_in_shown_text(c.quantity, f["text"].get<std::string>())) {
                    char buf[64];
                    std::snprintf(buf, sizeof buf, "%.6g", *v);
                    return std::string(buf);
                }
    return std::nullopt;
}

}  // namespace

TEST_CASE("every lesson question answered right by typing what its step's panels show, in the real window") {
    int answered = 0;
    for (const Lesson& lesson : shipped_lessons()) {
        CAPTURE(lesson.id);
        LiveApp app("answers-" + lesson.id, "--lesson " + lesson.id + " --step 1");
        REQUIRE_MESSAGE(app.ok(), "the window never appeared: " << app.err());
        for (size_t k = 0; k < lesson.steps.size(); ++k) {
            const LessonStep& step = lesson.steps[k];
            CAPTURE(k + 1);
            REQUIRE(app.wait_for_item("lesson/step_label"));
            if (step.check) {
                Json probe = app.wait_frames(3);
                if (step.check->kind == CheckKind::number) {
                    const auto typed = answer_to_type(probe, step);
                    REQUIRE_MESSAGE(typed, "no panel of the step shows " << step.check->quantity);
                    CAPTURE(*typed);
                    REQUIRE(app.click("lesson/answer-box"));
                    app.key("ctrl+a");
                    app.type(*typed);
                    app.key("Return");
                } else {
                    const CheckAnswer a = answer_check(*step.check, step.scenario);
                    REQUIRE(a.ok());
                    REQUIRE(app.click("lesson/option/" + std::to_string(a.correct_option)));
                }
                probe = app.wait_frames(4);
                CHECK(probe["items"].contains("lesson/feedback/right"));
                ++answered;
            }
            if (k + 1 < lesson.steps.size()) {
                REQUIRE(app.click("lesson/next"));
                const std::string want = "lesson " + lesson.id + " step " + std::to_string(k + 2);
                bool there = false;
                for (int tries = 0; tries < 40 && !there; ++tries) {
                    const Json frame = app.wait_frames(1);
                    for (const Json& w : frame["windows"]) there = there || w["state"].get<std::string>().rfind(want, 0) == 0;
                }
                REQUIRE_MESSAGE(there, "Next did not reach " << want);
            }
        }
    }
    CHECK(answered >= 70);
}
