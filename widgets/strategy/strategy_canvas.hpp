#pragma once
// The Strategy explorer's picture, in two passes: layout turns core's Ownership (who holds which
// piece) into small draw records with canvas-local rectangles and colours; paint draws them with the
// window's ImDrawList. Tests assert on the records, never on pixels.

#include "core/strategy/ownership.hpp"

#include <imgui.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {

// One piece of core's Ownership as drawn.
struct PieceRect {
    ImVec2 min, max;        // canvas-local
    size_t piece = 0;       // index into Ownership::pieces
    int colour_gpu = -1;    // the GPU whose colour fills it; -1 when it is on every GPU (neutral grey)
    ImU32 fill = 0;
    bool hatched = false;   // the same bytes sit on more than one GPU
};

struct TextRecord {
    ImVec2 pos;
    std::string text;
    ImU32 colour = 0;
    float size = 0;  // font size in pixels; 0 = the current font's
};

struct LineRecord {
    ImVec2 a, b;
    ImU32 colour = 0;
    float thickness = 1;
};

struct GpuChip {
    ImVec2 min, max;
    int64_t rank = 0;
    ImU32 fill = 0;
    std::string name;    // "GPU 3"
    std::string coords;  // "tp1 pp0 dp1" (only the dims that are on)
};

struct StrategyDrawing {
    float width = 0, height = 0;
    std::vector<GpuChip> chips;
    std::vector<PieceRect> pieces;
    std::vector<PieceRect> swatches;  // the legend's samples (piece is unused)
    ImVec2 summary_at{0, 0};          // where the focused GPU's "holds" summary is written
    bool summary_is_table = false;    // the per-GPU table below is drawn instead of the summary
    std::vector<GpuChip> held_rows;   // "what each GPU holds" rows (up to 16 GPUs): hover targets
    std::vector<LineRecord> lines;
    std::vector<TextRecord> texts;
};

// The fill of a piece that every GPU holds (no single owner to colour it by).
inline constexpr ImU32 kEveryGpuFill = IM_COL32(112, 118, 130, 255);

// Lays out the whole picture for a canvas `width` pixels wide (the height follows).
[[nodiscard]] StrategyDrawing layout_strategy_drawing(const Ownership& own, const Scenario& s, float width);

// Paints at `origin` (screen). `focus_gpu`: dim every piece that GPU does not hold. `hovered_piece`:
// outline the chips of the GPUs that hold it.
void paint_strategy_drawing(const StrategyDrawing& d, const Ownership& own, ImDrawList* list, ImVec2 origin,
                            std::optional<int64_t> focus_gpu, const PieceRect* hovered_piece = nullptr);

// The record under a canvas-local point, if any.
[[nodiscard]] const PieceRect* piece_at(const StrategyDrawing& d, ImVec2 local);
[[nodiscard]] const GpuChip* chip_at(const StrategyDrawing& d, ImVec2 local);

// The hover read-out of one piece: what it is, who holds it, its size, the collective that touches it.
[[nodiscard]] std::string describe_piece(const Ownership& own, const Scenario& s, const Piece& p);
// The coordinates of one explorer GPU in the dims that are on, e.g. "tp1 pp0 fsdp1".
// A GPU's coordinate in every split dim: the explorer's short keys on its chips ("tp0 fsdp1"), or the
// mesh dims' own names elsewhere ("tp 0, dp_shard 1"), as the Device mesh and the report name them.
enum class CoordNames { chip, mesh };
[[nodiscard]] std::string gpu_coords_text(const Ownership& own, int64_t rank, CoordNames names = CoordNames::chip);

}  // namespace shardscope::ui
