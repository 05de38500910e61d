#pragma once
// A tooltip of prose: wrapped at a readable width, so a long explanation never runs off the screen.

#include <string>

namespace shardscope::ui {

// Shows `text` as a tooltip now, wrapped at `width_em` font heights.
void wrapped_tooltip(const std::string& text, float width_em = 30.0f);
// The same, when the last item is hovered (also when it is disabled: a greyed control says why).
void wrapped_tooltip_for_last_item(const std::string& text, float width_em = 30.0f);

}  // namespace shardscope::ui
