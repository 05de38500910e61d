#include "widgets/teaching/lesson_panel.hpp"

#include "widgets/kit/shown_figures.hpp"
#include "widgets/kit/number_field.hpp"

#include "core/scenario/units.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/shell/keys.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>

#include <cstdio>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace shardscope::ui {

namespace {

// Enter on the main keyboard or the keypad.
bool enter_pressed() {
    return ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false) ||
           ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_KeyPadEnter), false);
}

const ImVec4 kRight(0.35f, 0.85f, 0.45f, 1.0f);
const ImVec4 kWrong(1.0f, 0.45f, 0.40f, 1.0f);
const ImVec4 kAccent(1.0f, 0.75f, 0.10f, 1.0f);  // the highlight outline's amber
constexpr float kLessonColumn = 0.32f;            // the lesson panel's share of the width in a lesson

// Where the panels of a step go: the lesson on the left, the others filling the rest (one: all of
// it; two: stacked; more: a grid of two columns, an odd last one spanning the bottom row).
std::vector<Placement> placements_beside_lesson(size_t count) {
    std::vector<Placement> out;
    const float x0 = kLessonColumn, w = 1.0f - kLessonColumn;
    if (count <= 2) {
        for (size_t i = 0; i < count; ++i)
            out.push_back(Placement{x0, float(i) / float(count), w, 1.0f / float(count)});
        return out;
    }
    // A grid of two columns; with an odd count the last panel takes the whole bottom row (timelines
    // and tables like the width).
    const size_t rows = (count + 1) / 2;
    for (size_t i = 0; i < count; ++i) {
        const bool alone = count % 2 == 1 && i + 1 == count;
        out.push_back(Placement{x0 + (alone ? 0.0f : float(i % 2) * w / 2), float(i / 2) / float(rows), alone ? w : w / 2,
                                1.0f / float(rows)});
    }
    return out;
}

std::string step_label(int step, size_t count) {
    return "Step " + std::to_string(step + 1) + " of " + std::to_string(count);
}

}  // namespace

LessonPanel::LessonPanel(PanelRegistry& registry, Placement placement)
    : Panel("lesson", "Lesson", placement, false), registry_(registry) {
    declare_actions();
}

void LessonPanel::set_lessons(LessonSet lessons) {
    lessons_ = std::move(lessons.lessons);
    load_errors_ = std::move(lessons.errors);
    reached_.assign(lessons_.size(), 0);
    lesson_ = -1;
    step_ = 0;
    answer_.reset();
    given_.reset();
}

const Lesson* LessonPanel::current_lesson() const {
    return lesson_ >= 0 && lesson_ < int(lessons_.size()) ? &lessons_[size_t(lesson_)] : nullptr;
}

const LessonStep* LessonPanel::current_step() const {
    const Lesson* l = current_lesson();
    return l ? &l->steps[size_t(step_)] : nullptr;
}

std::string LessonPanel::open_lesson(AppState& state, const std::string& id, int step) {
    if (std::string why = lesson_step_error(lessons_, id, step); !why.empty()) return why;
    const auto found = std::find_if(lessons_.begin(), lessons_.end(), [&](const Lesson& l) { return l.id == id; });
    const bool from_outside = lesson_ < 0;
    // The learner has a scenario of their own: edits, or a file opened (not the untouched default).
    const bool had_own = state.edited() || !state.ui.current_file.empty();
    if (from_outside) panels_shown_.clear();  // come from the free layout: every panel starts afresh
    if (from_outside && !before_lessons_) before_lessons_ = state.scenario();
    const Scenario before = state.scenario();
    lesson_ = static_cast<int>(found - lessons_.begin());
    open = true;  // a lesson runs in its window (closing the window ends it: follow)
    enter_step(state, step - 1, Entry::fresh);
    // A lesson entered from elsewhere (the list, a glossary link) borrows the learner's scenario: say
    // how to get it back, since the panels now show the lesson's.
    if (from_outside && had_own && state.scenario() != before)
        state.ui.status = "Lesson \"" + found->title + "\" set its own scenario; yours comes back with \"Back to your "
                          "scenario\" in the lesson list, or Ctrl+Z";
    return {};
}

std::map<std::string, int> LessonPanel::progress() const {
    std::map<std::string, int> out;
    for (size_t i = 0; i < lessons_.size(); ++i)
        if (reached_[i] > 0) out[lessons_[i].id] = reached_[i];
    return out;
}

void LessonPanel::restore_progress(const std::map<std::string, int>& reached) {
    for (size_t i = 0; i < lessons_.size(); ++i) {
        const auto it = reached.find(lessons_[i].id);
        if (it == reached.end()) continue;
        reached_[i] = std::max(reached_[i], std::clamp(it->second, 0, int(lessons_[i].steps.size())));
    }
}

std::string LessonPanel::probe_state() const {
    const Lesson* l = current_lesson();
    if (!l) {
        // The list says how far each started lesson got, as its progress bars do.
        std::string list = "lesson list";
        for (size_t i = 0; i < lessons_.size(); ++i)
            if (reached_[i] > 0)
                list += " | " + lessons_[i].id + " " + std::to_string(reached_[i]) + " of " +
                        std::to_string(lessons_[i].steps.size());
        return list;
    }
    return "lesson " + l->id + " step " + std::to_string(step_ + 1) + " of " + std::to_string(l->steps.size());
}

void LessonPanel::next(AppState& state) {
    const Lesson* l = current_lesson();
    if (l && step_ + 1 < int(l->steps.size())) enter_step(state, step_ + 1, Entry::forward);
}

void LessonPanel::back(AppState& state) {
    if (current_lesson() && step_ > 0) enter_step(state, step_ - 1, Entry::fresh);
}

void LessonPanel::follow(AppState& state) {
    if (lesson_ < 0) return;
    const std::string title = lessons_[size_t(lesson_)].title;
    if (!open) {
        close_lesson();
        state.ui.status = "Lesson \"" + title + "\" closed with its window; Help > Lessons offers it again";
    } else if (state.document() != document_) {
        close_lesson();
        state.ui.status += std::string(state.ui.status.empty() ? "" : "; ") + "lesson \"" + title +
                           "\" closed: its scenario was replaced (Help > Lessons offers it again)";
    }
}

void LessonPanel::close_lesson() {
    lesson_ = -1;
    panels_shown_.clear();
    step_ = 0;
    answer_.reset();
    given_.reset();
    action_notes_.clear();
    registry_.set_highlight("");
}

std::string LessonPanel::restore_scenario_before_lessons(AppState& state) {
    if (!before_lessons_) return "no lesson has changed the scenario";
    if (lesson_ >= 0) return "a lesson is open: close it first";
    std::string rule = state.try_apply(*before_lessons_);
    if (!rule.empty()) return rule;
    before_lessons_.reset();
    state.ui.status = "Back to your scenario from before the lessons (Ctrl+Z undoes it)";
    return {};
}

void LessonPanel::reset_to_step_scenario(AppState& state) {
    if (const LessonStep* s = current_step()) state.try_apply(s->scenario);
}

// A lesson's own scenario is no work of the learner's: from a state with nothing unsaved it becomes an
// untitled scenario with nothing unsaved (the file it replaced is untouched on disk), so quitting does
// not ask and Ctrl+S asks where rather than writing a lesson over that file. Edits the learner had
// before stay unsaved, and so the question still guards them.
void LessonPanel::adopt_lesson_scenario(AppState& state) {
    if (!state.edited()) return;
    state.set_current_file("");
    state.mark_saved();
}

void LessonPanel::enter_step(AppState& state, int step, Entry how) {
    step_ = step;
    if (step + 1 > reached_[size_t(lesson_)]) {
        reached_[size_t(lesson_)] = step + 1;
        ++progress_version_;
    }
    const LessonStep& s = lessons_[size_t(lesson_)].steps[size_t(step)];
    action_notes_.clear();
    // Going forward merges the step's changes into what the learner has (their own edits stay); going
    // back or jumping in loads the step's own scenario, as a merge cannot be undone.
    Scenario target = s.scenario;
    if (how == Entry::forward) {
        if (s.scenario_changes.empty()) target = state.scenario();
        else if (ScenarioLoad merged = merge_scenario(state.scenario(), s.scenario_changes); merged.ok())
            target = *merged.scenario;
    }
    const bool nothing_unsaved = !state.edited();
    if (std::string rule = state.try_apply(target); !rule.empty() && state.try_apply(s.scenario).empty())
        action_notes_.push_back("Your edits clash with this step (" + rule + "); loaded the step's scenario.");
    if (nothing_unsaved) adopt_lesson_scenario(state);
    document_ = state.document();
    apply_panels(s);
    for (const std::string& id : s.panels) {
        Panel* p = registry_.find(id);
        if (!p) continue;
        p->reset_view(state);
        // Scrolled by the learner during the last step, a panel stays as it is; come from outside the
        // lesson (or from another of its tiles' sets), it starts at its top.
        if (std::find(panels_shown_.begin(), panels_shown_.end(), id) == panels_shown_.end()) p->scroll_to_top();
    }
    if (!s.panels.empty()) panels_shown_ = s.panels;
    for (const std::string& a : s.actions)
        if (std::string why = registry_.run_action(state, a); !why.empty()) action_notes_.push_back(a + ": " + why);
    compute_answer(s);
}

void LessonPanel::apply_panels(const LessonStep& step) {
    registry_.set_highlight(step.highlight);
    if (step.panels.empty()) return;
    std::vector<std::string> ids{id()};
    ids.insert(ids.end(), step.panels.begin(), step.panels.end());
    if (!registry_.show_only(ids).empty()) return;  // unknown ids: the lesson test reports them
    set_placement(Placement{0, 0, kLessonColumn, 1});
    const std::vector<Placement> tiles = placements_beside_lesson(step.panels.size());
    for (size_t i = 0; i < step.panels.size(); ++i) registry_.find(step.panels[i])->set_placement(tiles[i]);
}

void LessonPanel::compute_answer(const LessonStep& step) {
    answer_.reset();
    given_.reset();
    misses_ = 0;
    typed_ = NumberText{};
    typed_refusal_.clear();
    if (step.check) answer_ = answer_check(*step.check, step.scenario);
    // The text quotes the step's own figures, priced once as the step opens.
    LessonFigures figures(*current_lesson());
    body_ = fill_quoted_figures(step.body, size_t(step_), figures);
    explain_ = step.check ? fill_quoted_figures(step.check->explain, size_t(step_), figures) : std::string();
}

void LessonPanel::check_typed() {
    const NumberRead typed = read_number(typed_.data());
    if (typed.value) answer(*typed.value);
    else typed_refusal_ = typed.error;  // not an answer: no miss counted
}

void LessonPanel::answer(double value) {
    const LessonStep* s = current_step();
    if (!s || !s->check || !answer_ || !answer_->ok()) return;
    given_ = value;
    typed_refusal_.clear();
    // An answer from act() shows in the box too.
    if (s->check->kind == CheckKind::number) std::snprintf(typed_.data(), typed_.size(), "%.6g", value);
    const bool right = s->check->kind == CheckKind::number ? typed_is_right(*s->check, value)
                                                          : int(value) == answer_->correct_option;
    if (!right) ++misses_;
}

void LessonPanel::declare_actions() {
    actions_.text("open", "a lesson id, e.g. why-split", "open the lesson at its first step", [this](AppState& state, const ActionValue& v) {
        return open_lesson(state, v.text, 1);
    });
    actions_.trigger("restore", "after the lessons, load the scenario from before the first one",
                     [this](AppState& state, const ActionValue&) { return restore_scenario_before_lessons(state); });
    actions_.trigger("close", "close the lesson", [this](AppState&, const ActionValue&) {
        close_lesson();
        return std::string();
    });
    // The rest act on the open lesson.
    const auto in_lesson = [this](std::function<std::string(AppState&, const ActionValue&)> run) {
        return [this, run](AppState& state, const ActionValue& v) {
            if (!current_lesson()) return std::string("no lesson is open (lesson.open=ID first)");
            return run(state, v);
        };
    };
    actions_.trigger("next", "the next step", in_lesson([this](AppState& state, const ActionValue&) {
        next(state);
        return std::string();
    }));
    actions_.trigger("back", "the step before", in_lesson([this](AppState& state, const ActionValue&) {
        back(state);
        return std::string();
    }));
    actions_.trigger("reset", "the step's own scenario again", in_lesson([this](AppState& state, const ActionValue&) {
        reset_to_step_scenario(state);
        return std::string();
    }));
    actions_.integer("step", "go to this step of the open lesson", 1, std::numeric_limits<int>::max(),
                     in_lesson([this](AppState& state, const ActionValue& v) {
                         return open_lesson(state, current_lesson()->id, static_cast<int>(v.integer));
                     }));
    actions_.number("answer", "answer the step's question (a number, or the option's number from 1)",
                    -std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
                    in_lesson([this](AppState&, const ActionValue& v) -> std::string {
                        const LessonStep* s = current_step();
                        if (!s->check) return "this step has no question";
                        if (s->check->kind != CheckKind::choice) return answer(v.number), std::string();
                        if (v.number < 1 || v.number > double(s->check->options.size()) || v.number != std::floor(v.number))
                            return "pick an option from 1 to " + std::to_string(s->check->options.size());
                        answer(v.number - 1);
                        return {};
                    }));
}

LessonView LessonPanel::build_view(const AppState& state) const {
    LessonView v;
    v.load_errors = load_errors_;
    for (size_t i = 0; i < lessons_.size(); ++i)
        v.list.push_back(LessonListRow{lessons_[i].id, lessons_[i].title, int(lessons_[i].steps.size()), reached_[i],
                                       int(i) == lesson_});
    const Lesson* l = current_lesson();
    if (!l) return v;
    const LessonStep& s = l->steps[size_t(step_)];
    v.has_lesson = true;
    v.lesson_title = l->title;
    v.step_label = step_label(step_, l->steps.size());
    v.step_title = s.title;
    v.body = split_glossary_links(body_);
    v.panels = s.panels;
    v.highlight = s.highlight;
    v.action_notes = action_notes_;
    v.changes = describe_scenario_changes(step_ > 0 ? l->steps[size_t(step_ - 1)].scenario : default_scenario(),
                                          s.scenario_changes);
    for (const LessonStep& st : l->steps) v.step_titles.push_back(st.title);
    v.can_back = step_ > 0;
    v.can_next = step_ + 1 < int(l->steps.size());
    v.scenario_changed_by_user = !state.scenario_is(s.scenario);
    if (!s.check) return v;
    const LessonCheck& c = *s.check;
    QuizView q;
    q.question = c.question;
    q.is_number = c.kind == CheckKind::number;
    if (const QuantityInfo* info = find_quantity(c.quantity)) q.unit = info->unit;
    if (const auto inputs = hand_calculation_inputs(c.quantity, s.scenario)) q.work_out = "Work it out from " + *inputs + ".";
    for (const ChoiceOption& o : c.options) q.options.push_back(o.text);
    if (answer_ && !answer_->ok()) q.error = "Core could not compute this answer: " + answer_->error;
    if (given_ && answer_ && answer_->ok()) {
        q.answered = true;
        q.right = q.is_number ? typed_is_right(c, *given_)
                              : int(*given_) == answer_->correct_option;
        // A first miss gets a second try; the answer shows once it is right or missed twice.
        q.revealed = q.right || misses_ >= 2;
        if (!q.revealed) {
            q.feedback = q.is_number ? "Not quite. Look at the outlined panel again and try once more."
                                     : "Not quite. Have another look and pick again.";
        } else if (q.is_number) {
            q.feedback = std::string(q.right ? "Right: " : "Not quite: ") + "this step's scenario gives " +
                         format_quantity(c.quantity, answer_->value) + ".";
        } else {
            const ChoiceOption& right = c.options[size_t(answer_->correct_option)];
            q.feedback = std::string(q.right ? "Right: " : "Not quite: the answer is ") + "\"" + right.text + "\"";
            if (c.rule == ChoiceRule::range) q.feedback += " (this step's scenario gives " + format_quantity(c.quantity, answer_->value) + ")";
            else q.feedback += " (" + format_quantity(right.quantity, answer_->option_values[size_t(answer_->correct_option)]) + ")";
            q.feedback += ".";
        }
        // The explanation's glossary links read as plain words here.
        if (q.revealed && !explain_.empty()) {
            q.feedback += " ";
            for (const BodySpan& span : split_glossary_links(explain_)) q.feedback += span.text;
        }
    }
    v.quiz = q;
    return v;
}

void LessonPanel::handle_keys(AppState& state) {
    // The arrows step wherever the mouse or focus is, but never from under a text field, a menu, a
    // list or a dialog, nor when a focused panel steps with them itself (the Collective animator).
    if (ImGui::GetIO().WantTextInput || !current_lesson()) return;
    if (ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel)) return;
    if (state.ui.arrows_taken_frame >= ImGui::GetFrameCount() - 1) return;
    if (ImGui::IsKeyPressed(keys::kRight, false)) next(state);
    if (ImGui::IsKeyPressed(keys::kLeft, false)) back(state);
}

// The step's figure as its panels drew it in the frame before: the lesson is drawn before some of them.
void LessonPanel::read_shown_figures() {
    shown_texts_.clear();
    const LessonStep* s = current_step();
    if (!s || !s->check) return;
    for (const ShownFigure& f : previous_frame_shown_figures())
        if (f.quantity == s->check->quantity && std::find(s->panels.begin(), s->panels.end(), f.panel) != s->panels.end())
            shown_texts_.push_back(f.text);
}

bool LessonPanel::typed_is_right(const LessonCheck& check, double typed) const {
    return answer_ && number_answer_is_right(check, answer_->value, typed, shown_texts_);
}

void LessonPanel::draw(AppState& state) {
    read_shown_figures();
    handle_keys(state);
    view_ = build_view(state);
    const bool in_lesson = view_.has_lesson;
    ImGui::SetNextItemOpen(!in_lesson, in_lesson ? ImGuiCond_Once : ImGuiCond_Always);
    if (!in_lesson || ImGui::CollapsingHeader("All lessons")) draw_list(state, view_);
    if (in_lesson) draw_step(state, view_);
}

void LessonPanel::draw_list(AppState& state, const LessonView& v) {
    if (!v.has_lesson) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        text_wrapped("Pick a walkthrough. Each step sets up the scenario and opens the panels it talks about.");
        ImGui::PopStyleColor();
        ImGui::Spacing();
    }
    // After a lesson: the learner's own scenario is one click (and one undo step) away.
    if (!v.has_lesson && before_lessons_) {
        if (ImGui::Button("Back to your scenario from before the lessons")) restore_scenario_before_lessons(state);
        note_last_item("lesson/restore");
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("The lessons changed the scenario; this loads what you had before the first one "
                              "(Ctrl+Z undoes it)");
        ImGui::Spacing();
    }
    for (const std::string& e : v.load_errors) ImGui::TextColored(kWrong, "Not loaded: %s", e.c_str());
    if (v.list.empty()) ImGui::TextDisabled("No lessons loaded.");
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("lessons", 2, flags)) return;
    ImGui::TableSetupColumn("Lesson", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Progress", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 7);
    for (size_t i = 0; i < v.list.size(); ++i) {
        const LessonListRow& row = v.list[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushID(int(i));
        // The title is the click target; the summary sits under it, dimmed.
        const std::string label = std::to_string(i + 1) + ".  " + row.title;
        if (ImGui::Selectable(label.c_str(), row.current, ImGuiSelectableFlags_SpanAllColumns))
            open_lesson(state, row.id, std::max(1, row.reached));
        note_last_item("lesson/list/" + row.id);
        ImGui::Indent(ImGui::GetFontSize() * 1.4f);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        text_wrapped(lessons_[i].summary);
        ImGui::PopStyleColor();
        ImGui::Unindent(ImGui::GetFontSize() * 1.4f);
        ImGui::TableNextColumn();
        const float done = row.steps ? float(row.reached) / float(row.steps) : 0;
        const std::string progress = row.reached == 0 ? std::to_string(row.steps) + " steps"
                                                      : std::to_string(row.reached) + " of " + std::to_string(row.steps);
        ImGui::ProgressBar(done, ImVec2(-1, ImGui::GetTextLineHeight()), progress.c_str());
        ImGui::PopID();
    }
    ImGui::EndTable();
}

void LessonPanel::draw_step(AppState& state, const LessonView& v) {
    ImGui::Spacing();
    // "Step 6 of 9" at the right of the lesson's title, or under it where the two would touch.
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float label_w = ImGui::CalcTextSize(v.step_label.c_str()).x;
    const float avail = ImGui::GetContentRegionAvail().x;
    ImGui::TextDisabled("%s", v.lesson_title.c_str());
    note_last_item("lesson/title");
    if (ImGui::CalcTextSize(v.lesson_title.c_str()).x + 2 * spacing + label_w <= avail)
        ImGui::SameLine(avail - label_w + ImGui::GetStyle().WindowPadding.x - spacing);
    ImGui::TextColored(kAccent, "%s", v.step_label.c_str());
    note_last_item("lesson/step_label");
    const Lesson& l = *current_lesson();
    ImGui::ProgressBar(float(step_ + 1) / float(l.steps.size()), ImVec2(-1, 4), "");
    ImGui::Spacing();
    ImGui::SetWindowFontScale(1.2f);
    text_wrapped(v.step_title);
    ImGui::SetWindowFontScale(1.0f);
    ImGui::Separator();

    // The body scrolls; the buttons stay at the bottom.
    const bool offers_next_lesson = !v.can_next && lesson_ + 1 < int(lessons_.size());
    const float footer = ImGui::GetFrameHeightWithSpacing() * (offers_next_lesson ? 3 : 2) + ImGui::GetStyle().ItemSpacing.y;
    ImGui::BeginChild("step-body", ImVec2(0, -footer), false);
    const float width = ImGui::GetContentRegionAvail().x;
    const std::string key = l.id + "/" + std::to_string(step_);
    if (width != flow_width_ || key != flow_key_) {
        flow_ = layout_text_flow(v.body, width, ImGui::GetTextLineHeightWithSpacing(),
                                 [](const std::string& w) { return ImGui::CalcTextSize(w.c_str()).x; });
        flow_width_ = width;
        flow_key_ = key;
    }
    draw_text_flow(flow_);
    note_last_item("lesson/body");  // the flow's rectangle: word positions are relative to its corner
    if (!v.highlight.empty() || !v.panels.empty()) {
        ImGui::Spacing();
        const Panel* p = registry_.find(v.highlight);
        if (p) ImGui::TextColored(kAccent, "Look at: %s (outlined)", p->title().c_str());
    }
    for (const std::string& note : v.action_notes) ImGui::TextDisabled("%s", note.c_str());
    if (v.quiz) draw_quiz(*v.quiz);
    draw_outline(state, v);
    ImGui::EndChild();

    ImGui::Separator();
    // The last step points on: the next lesson in the list, one click away.
    if (offers_next_lesson) {
        const Lesson& following = lessons_[size_t(lesson_ + 1)];
        ImGui::TextDisabled("Next lesson:");
        ImGui::SameLine();
        const std::string label = following.title + " >";
        if (ImGui::Button(label.c_str())) (void)open_lesson(state, following.id, 1);
        note_last_item("lesson/next_lesson/" + following.id);
    }
    if (v.scenario_changed_by_user) ImGui::TextDisabled("You changed the scenario since this step began.");
    else ImGui::TextDisabled("Left / Right arrow keys step through.");
    // Back and Next are six characters wide, narrower where the footer is narrower than the three buttons.
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float footer_w = ImGui::GetContentRegionAvail().x;
    const char* const kResetLong = "Reset to this step's scenario###reset";
    const char* const kResetShort = "Reset step###reset";
    const auto button_width = [](const char* label) {
        return ImGui::CalcTextSize(label, nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x;
    };
    const float button_w = std::clamp((footer_w - button_width(kResetShort)) / 2 - 2 * gap, ImGui::GetFontSize() * 3.5f,
                                      ImGui::GetFontSize() * 6);
    const bool long_fits = 2 * button_w + button_width(kResetLong) + 3 * gap <= footer_w;
    ImGui::BeginDisabled(!v.can_back);
    if (ImGui::Button("< Back", ImVec2(button_w, 0))) back(state);
    note_last_item("lesson/back");
    ImGui::EndDisabled();
    ImGui::SameLine();
    // The long label where it fits between Back and Next, a short one (the same button) where it does not.
    ImGui::BeginDisabled(!v.scenario_changed_by_user);
    if (ImGui::Button(long_fits ? kResetLong : kResetShort)) reset_to_step_scenario(state);
    note_last_item("lesson/reset");
    ImGui::EndDisabled();
    if (!long_fits && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("Reset to this step's scenario");
    ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - button_w);
    if (v.can_next) {
        if (ImGui::Button("Next >", ImVec2(button_w, 0))) next(state);
        note_last_item("lesson/next");
    } else {
        const bool finish = ImGui::Button("Finish", ImVec2(button_w, 0));
        note_last_item("lesson/finish");
        if (finish) close_lesson();  // back to the list, progress kept
    }
}

void LessonPanel::draw_outline(AppState& state, const LessonView& v) {
    ImGui::Spacing();
    ImGui::Spacing();
    if (!v.changes.empty()) {
        ImGui::TextDisabled("This step set");
        for (const std::string& c : v.changes) ImGui::BulletText("%s", c.c_str());
        ImGui::Spacing();
    }
    ImGui::TextDisabled("Steps");
    const int reached = reached_[size_t(lesson_)];
    for (size_t i = 0; i < v.step_titles.size(); ++i) {
        const bool current = int(i) == step_;
        const std::string label = std::to_string(i + 1) + ".  " + v.step_titles[i];
        ImGui::PushID(int(i));
        // A step not reached yet reads greyed; hovered, on a dim row rather than the bright header
        // colour, where grey text would not read.
        const bool ahead = !current && int(i) >= reached;
        if (ahead) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
            ImGui::PushStyleColor(ImGuiCol_HeaderHovered, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
        }
        if (ImGui::Selectable(label.c_str(), current) && !current) enter_step(state, int(i), Entry::fresh);
        note_last_item("lesson/outline/" + std::to_string(i + 1));
        if (ahead) ImGui::PopStyleColor(2);
        ImGui::PopID();
    }
}

void LessonPanel::draw_quiz(const QuizView& q) {
    // A tinted box around the question: contents on channel 1, the box behind them on channel 0 once
    // their size is known.
    ImGui::Spacing();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float pad = ImGui::GetStyle().FramePadding.x * 2;
    dl->ChannelsSplit(2);
    dl->ChannelsSetCurrent(1);
    ImGui::Indent(pad);
    ImGui::BeginGroup();
    ImGui::Dummy(ImVec2(0, pad * 0.5f));
    ImGui::TextColored(kAccent, "Check yourself");
    ImGui::PushTextWrapPos(ImGui::GetContentRegionMax().x - pad);
    ImGui::TextUnformatted(q.question.c_str());
    if (!q.work_out.empty()) ImGui::TextDisabled("%s", q.work_out.c_str());
    if (!q.error.empty()) ImGui::TextColored(kWrong, "%s", q.error.c_str());
    if (q.is_number) {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
        // The box holds the text as typed, so a click on Check takes what is in it; Enter checks it too.
        // It is read whole: ImGui's InputDouble made "22,3" a 223 and marked it wrong.
        ImGui::InputText("##answer", typed_.data(), typed_.size());
        note_last_item("lesson/answer-box");
        if (ImGui::IsItemDeactivated() && enter_pressed()) check_typed();
        ImGui::SameLine();
        if (!q.unit.empty()) {
            ImGui::TextUnformatted(q.unit.c_str());
            ImGui::SameLine();
        }
        if (ImGui::Button("Check")) check_typed();
        note_last_item("lesson/check");
        if (!typed_refusal_.empty()) {
            ImGui::TextColored(kWrong, "%s", typed_refusal_.c_str());
            note_last_item("lesson/answer-refusal");
        }
    } else {
        for (size_t i = 0; i < q.options.size(); ++i) {
            const bool chosen = given_ && int(*given_) == int(i);
            const bool right = q.revealed && answer_ && answer_->correct_option == int(i);
            const bool coloured = q.answered && (chosen || right);
            if (coloured) ImGui::PushStyleColor(ImGuiCol_Text, right ? kRight : kWrong);
            if (ImGui::RadioButton(q.options[i].c_str(), chosen)) answer(double(i));
            note_last_item("lesson/option/" + std::to_string(i));
            if (coloured) ImGui::PopStyleColor();
        }
    }
    if (q.answered) {
        ImGui::PushStyleColor(ImGuiCol_Text, q.right ? kRight : kWrong);
        ImGui::TextUnformatted(q.feedback.c_str());
        ImGui::PopStyleColor();
        note_last_item(q.right ? "lesson/feedback/right" : "lesson/feedback/wrong");
    }
    ImGui::PopTextWrapPos();
    ImGui::Dummy(ImVec2(0, pad * 0.5f));
    ImGui::EndGroup();
    ImGui::Unindent(pad);
    dl->ChannelsSetCurrent(0);
    const ImVec2 min(ImGui::GetItemRectMin().x - pad, ImGui::GetItemRectMin().y);
    const ImVec2 max(ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x, ImGui::GetItemRectMax().y);
    dl->AddRectFilled(min, max, ImGui::GetColorU32(ImVec4(0.16f, 0.18f, 0.24f, 1.0f)), 4.0f);
    dl->AddRect(min, max, ImGui::GetColorU32(ImVec4(1.0f, 0.75f, 0.10f, 0.35f)), 4.0f);
    dl->ChannelsMerge();
}

}  // namespace shardscope::ui
