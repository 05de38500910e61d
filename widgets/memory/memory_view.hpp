#pragma once
// The Memory and cost panel's draw records: what it paints, built once per scenario version from
// core's Report (memory_bars, step_parts) and core's fit advice. Plain data, so the headless tests
// assert on it instead of on pixels. Every figure here is core's; this file only picks colours and
// formats with core/scenario/units.hpp.

#include "core/model/cost_breakdown.hpp"
#include "core/model/fit_advisor.hpp"
#include "widgets/kit/palette.hpp"
#include "widgets/kit/plot.hpp"
#include "widgets/shell/app_state.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {

// The six memory parts core reports, bottom to top of a bar (names and colours: the palette's). The
// runtime's reserve sits on top, where the headroom would otherwise seem to start.
inline constexpr palette::MemoryPart kMemoryParts[] = {palette::MemoryPart::params,      palette::MemoryPart::grads,
                                                       palette::MemoryPart::optimizer,   palette::MemoryPart::activations,
                                                       palette::MemoryPart::other,       palette::MemoryPart::reserved};
inline constexpr int kMemoryPartCount = 6;

struct MemoryBarRecord {
    plot::BarStack stack;    // label, one segment per part (bytes), highlight = does not fit
    int64_t stage = 0;
    bool most_loaded = false;
    bool fits = false;
    double total_bytes = 0;
    double model_state_bytes = 0;   // weights + gradients + optimizer state, core's MemoryBreakdown::model_state
    bool activations_known = true;  // false for a count-only model (its segment is 0, shown "n/a")
    std::string total_text;  // "181 GiB (243.5%)": the share is of the GPU's memory
    std::string total_short; // "181 GiB": above a bar too narrow for the share
    std::string other_detail; // what "other" holds, a line each (the table's tooltip); "" when unknown
};

struct StepSegmentRecord {
    std::string name;        // "compute", "tp comm", "bubble"
    std::string dim;         // the dim of a communication part ("tp"), "" otherwise
    double seconds = 0;
    double fraction = 0;     // of the step
    ImU32 colour = 0;
    std::string time_text;   // "4.06 s"
    std::string share_text;  // "91.0%"
    // "of it, 25.0 ms is compute slowed beside it" and, for a dim's communication, its link and calls
    // per step (core's StepPart::calls), a line each; "" when neither applies.
    std::string detail;
};

// One operation of the busiest GPU's compute (core's ComputeOp), as its row of the bar list.
struct ComputeOpRecord {
    std::string name;        // "routed experts"
    double fraction = 0;     // of the step's compute: the bar's length
    ImU32 colour = 0;        // by kind: GEMMs, attention, element-wise, optimizer
    std::string time_text;   // "3.54 s"
    std::string share_text;  // "29.3%"
    std::string bound;       // "flops", "hbm", "launch"
    std::string detail;      // kind, what bounds it, and the recomputation in it (the tooltip)
    bool moe_part = false;
};

struct FigureRecord {
    std::string label;
    std::string value;
    std::string meaning;  // what the figure counts, shown when hovered ("" when the label says it all)
    std::vector<std::string> quantities;  // the lesson quantities the value shows (core's names)
};

struct MemoryView {
    unsigned long version = 0;
    std::string setup_line;              // model, GPUs and layout in one line
    std::vector<MemoryBarRecord> bars;
    double capacity_bytes = 0;
    std::string capacity_label;          // "H100 SXM: 74.5 GiB"
    bool fits = false;
    std::string fit_line;                // the verdict for the most loaded GPU
    std::string host_line;               // an offloaded optimizer on the host; "" without offload
    bool host_fits = true;
    FitAdvice advice;                    // core's fix (needed/found say whether there is one)
    std::optional<MemoryBarRecord> fix_preview;  // the most loaded GPU once the fix is applied
    std::string advice_line;             // what the fix does, or why there is none
    std::vector<StepSegmentRecord> step;
    std::string step_title;              // "Where a 4.46 s step goes"
    std::vector<ComputeOpRecord> compute_ops;  // longest first; empty for a count-only model
    std::string compute_title;           // "Where the 4.06 s of compute goes"
    std::string moe_line;                // core's moe_summary; "" without MoE blocks
    std::vector<FigureRecord> figures;   // step time, tokens/s, TFLOP/s, MFU...
    std::vector<FigureRecord> run;       // the scenario's run block: days, goodput, GPU-hours, cost, energy
    std::vector<std::string> notes;
    std::vector<std::string> conventions;  // core's one line each: FLOP numerator, attention kernel, reserve
};

// Records for the current scenario; runs core's fit advice when the scenario does not fit.
[[nodiscard]] MemoryView build_memory_view(const AppState& state);

// An operation's colour by its kind (core's StepOpKind names: gemm, attention, element-wise, optimizer).
[[nodiscard]] ImU32 compute_op_colour(const std::string& kind);

// A step part's colour: its dim's for communication, else the palette's compute or bubble colour.
[[nodiscard]] ImU32 step_part_colour(const StepPart& part);

}  // namespace shardscope::ui
