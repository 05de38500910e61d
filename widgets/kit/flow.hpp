#pragma once
// Rows of widgets that wrap: a narrow tile keeps every widget reachable and no label clipped.

namespace shardscope::ui {

// Call before the next widget (or group) of a row with its width: it goes on the same line, `spacing`
// after the last item, when it fits in the window's content region, else it starts a new line.
void flow(float next_width, float spacing = 16.0f);

// Begins a table (ImGui::BeginTable's `flags`) that keeps its columns `min_width_ems` font heights
// wide in all: a narrower tile scrolls it sideways rather than cutting its cells short ("3.74 Gi").
// `height` 0 sizes it for `rows` one-line rows and a scrollbar; a table that scrolls down gives its own.
bool begin_table_at_least(const char* id, int columns, int flags, float min_width_ems, int rows, float height = 0.0f);

}  // namespace shardscope::ui
