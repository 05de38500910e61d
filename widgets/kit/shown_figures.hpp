#pragma once
// Which of core's named quantities (core/teaching/lesson.hpp's lesson_quantities) a panel put on the
// screen this frame, and as what text. A panel notes a figure where it draws it, so the record is
// what a person sees, not what a panel claims it could show. Lessons read it to accept an answer at
// the rounding shown, and the headless lesson test to fail a question no panel of its step answers.

#include <string>
#include <vector>

namespace shardscope::ui {

struct ShownFigure {
    std::string panel;     // the panel's id: the window's id after "###" ("memory")
    std::string quantity;  // "report.memory.total_gib"
    std::string text;      // as drawn: "65.8 GiB"
};

// Notes that the current window (its root, so child regions count for their panel) drew `quantity`
// as `text` in this frame.
void note_shown(const std::string& quantity, const std::string& text);
// Every figure noted in the latest frame of this ImGui context, in the order drawn (one per panel
// and quantity: a later note in the same frame replaces the text).
[[nodiscard]] std::vector<ShownFigure> current_shown_figures();
// The figures of the frame before the latest: a panel drawn early in a frame (the lesson) reads what
// the others drew in the whole frame before.
[[nodiscard]] std::vector<ShownFigure> previous_frame_shown_figures();

}  // namespace shardscope::ui
