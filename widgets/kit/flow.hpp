#pragma once
// Rows of widgets that wrap: a narrow tile keeps every widget reachable and no label clipped.

namespace shardscope::ui {

// Call before the next widget (or group) of a row with its width: it goes on the same line, `spacing`
// after the last item, when it fits in the window's content region, else it starts a new line.
void flow(float next_width, float spacing = 16.0f);

}  // namespace shardscope::ui
