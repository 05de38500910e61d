#pragma once
// The Lesson panel: the list of lessons with progress, one step at a time (Next / Back and
// the Left / Right keys), the body with hoverable glossary links, the quiz with feedback, and "reset
// to this step's scenario". Entering a step applies its scenario, opens its panels, highlights one and
// runs its actions, all through the PanelRegistry the panel was made with.
//
// Drawing is two passes: build_view() turns the current lesson and step into LessonView (plain
// records the tests read), then draw() paints it.

#include "core/teaching/lesson.hpp"
#include "widgets/kit/glossary_tooltip.hpp"
#include "widgets/kit/number_field.hpp"
#include "widgets/shell/panel.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {

// What the panel shows this frame.
struct LessonListRow {
    std::string id;
    std::string title;
    int steps = 0;
    int reached = 0;           // furthest step seen (0 = not started)
    bool current = false;
};

struct QuizView {
    std::string question;
    std::string work_out;               // a hand calculation's inputs ("heads = 64, tp = 8"); "" when a panel shows it
    bool is_number = true;
    std::string unit;
    std::vector<std::string> options;   // choice checks
    bool answered = false;
    bool right = false;
    bool revealed = false;              // the right answer is shown: answered right, or missed twice
    std::string feedback;               // after answering: what core computes and why
    std::string error;                  // core could not compute the answer
};

struct LessonView {
    std::vector<LessonListRow> list;
    std::vector<std::string> load_errors;
    bool has_lesson = false;
    std::string lesson_title;
    std::string step_label;             // "Step 3 of 9"
    std::string step_title;
    std::vector<BodySpan> body;
    std::vector<std::string> panels;    // what the step opened
    std::string highlight;
    std::vector<std::string> action_notes;  // actions a panel could not run (e.g. not built yet)
    std::vector<std::string> changes;       // what this step set in the scenario, in words
    std::vector<std::string> step_titles;   // the lesson's outline
    std::optional<QuizView> quiz;
    bool can_back = false, can_next = false;
    bool scenario_changed_by_user = false;  // the current scenario differs from the step's
};

class LessonPanel final : public Panel {
public:
    LessonPanel(PanelRegistry& registry, Placement placement);

    void set_lessons(LessonSet lessons);
    [[nodiscard]] const std::vector<Lesson>& lessons() const noexcept { return lessons_; }

    void draw(AppState& state) override;
    // A lesson ends when its window is closed (its outline with it), and when the scenario it runs on
    // is replaced from outside (New, Open, a link, or undo across one): a step never sits over a
    // scenario that is not its own. Progress is kept, and the list offers the lesson again.
    void follow(AppState& state) override;
    // The step runs over the document now current: a link that brings a lesson step and the scenario
    // that was on screen with it opens that scenario after the step, which must not end the lesson.
    void stay_over_current_scenario(const AppState& state) noexcept { document_ = state.document(); }

    // Opens lesson `id` at step `step` (1-based) with that step's own scenario. "" or why not.
    std::string open_lesson(AppState& state, const std::string& id, int step);
    void next(AppState& state);
    void back(AppState& state);
    void reset_to_step_scenario(AppState& state);
    // After the lessons: the scenario from before the first one, as one undo step ("" when loaded).
    std::string restore_scenario_before_lessons(AppState& state);
    // Back to the list (the Finish button on the last step); progress is kept.
    void close_lesson();
    // Grades an answer: a number for number checks, an option index (0-based) for choices.
    void answer(double value);

    [[nodiscard]] const Lesson* current_lesson() const;
    [[nodiscard]] const LessonStep* current_step() const;
    [[nodiscard]] int step_index() const noexcept { return step_; }          // 0-based
    [[nodiscard]] std::string probe_state() const override;
    [[nodiscard]] LessonView build_view(const AppState& state) const;
    [[nodiscard]] const LessonView& last_view() const noexcept { return view_; }
    // How far the learner got in each lesson they started (id -> furthest step, 1-based), for the app
    // to keep between runs, and a count that moves whenever it grows.
    [[nodiscard]] std::map<std::string, int> progress() const;
    [[nodiscard]] unsigned long progress_version() const noexcept { return progress_version_; }
    // Progress kept from an earlier run: unknown lessons are ignored, steps clamped to the lesson's.
    void restore_progress(const std::map<std::string, int>& reached);
    [[nodiscard]] const std::vector<std::string>& action_notes() const noexcept { return action_notes_; }
    // The body as last laid out (item rect "lesson/body" is where it was drawn).
    [[nodiscard]] const TextFlowLayout& body_layout() const noexcept { return flow_; }

private:
    void declare_actions();
    enum class Entry { fresh, forward };
    static void adopt_lesson_scenario(AppState& state);
    void enter_step(AppState& state, int step, Entry how);
    void apply_panels(const LessonStep& step);
    void compute_answer(const LessonStep& step);
    void read_shown_figures();
    [[nodiscard]] bool typed_is_right(const LessonCheck& check, double typed) const;
    void handle_keys(AppState& state);
    void draw_list(AppState& state, const LessonView& v);
    void draw_step(AppState& state, const LessonView& v);
    void draw_quiz(const QuizView& q);
    void draw_outline(AppState& state, const LessonView& v);

    PanelRegistry& registry_;
    std::vector<Lesson> lessons_;
    std::vector<std::string> load_errors_;
    std::vector<int> reached_;          // per lesson, furthest step seen (1-based; 0 = not started)
    int lesson_ = -1;
    size_t document_ = 0;  // AppState::document() while the lesson runs
    unsigned long progress_version_ = 0;
    // The scenario the learner had before the first lesson began; the list offers it back after.
    std::optional<Scenario> before_lessons_;
    int step_ = 0;
    std::vector<std::string> action_notes_;
    std::vector<std::string> panels_shown_;  // the panels the lesson's current layout shows
    std::optional<CheckAnswer> answer_;  // core's answer for the current step's check
    std::string body_;                   // the step's body with its quoted figures filled in
    std::string explain_;                // the check's explanation, likewise
    std::optional<double> given_;        // what the learner answered
    std::vector<std::string> shown_texts_;  // the check's figure as the step's panels drew it last frame
    int misses_ = 0;                     // wrong answers on this step: the second reveals the answer
    NumberText typed_{};          // the answer box's text, as typed
    std::string typed_refusal_;   // why the text typed is no number
    void check_typed();
    TextFlowLayout flow_;
    float flow_width_ = -1;
    std::string flow_key_;
    LessonView view_;
};

}  // namespace shardscope::ui
