#pragma once
// The Memory and cost panel's figures, read off a Report: which GPUs get a memory bar, and the step
// time cut into compute, each dim's exposed communication and the pipeline bubble, with the shares the
// panel prints. Nothing new is modelled here; the panel only lays these out.

#include "core/model/report.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// One GPU kind whose memory differs: every GPU of a pipeline stage holds the same, so a kind is a stage.
struct MemoryBar {
    int64_t stage = 0;
    std::string role;           // "every GPU" (pp = 1), "first", "middle", "last"
    bool most_loaded = false;   // the stage the report's memory figures describe
    MemoryBreakdown bytes;
    double total_bytes = 0;
    double fraction_of_gpu = 0; // total / the GPU's memory
    bool fits = false;
    std::vector<std::string> other_parts;  // what `other` holds, a line each (describe_other_memory)
};

// Every stage up to 4 of them; beyond, the first, middle (stage pp/2) and last stage, plus the most
// loaded one when it is none of those. A stage holding exactly what an earlier pick holds is left out
// (it is not a different kind).
// One bar ("every GPU") when pp = 1.
[[nodiscard]] std::vector<MemoryBar> memory_bars(const Report& r);

// A bar for any breakdown against a GPU of `capacity_bytes` (e.g. the most loaded GPU after a fix).
[[nodiscard]] MemoryBar memory_bar(const MemoryBreakdown& bytes, double capacity_bytes, std::string role);

enum class StepPartKind { compute, communication, bubble };

struct StepPart {
    std::string name;      // "compute", "tp comm", ..., "bubble"
    std::string dim;       // the mesh dim of a communication part ("" otherwise)
    StepPartKind kind = StepPartKind::compute;
    double seconds = 0;
    double fraction = 0;   // of the step
    double contention_s = 0;  // of `seconds`: compute slowed while the dim's collectives ran beside it
    // A communication part's collectives: "inter link; per step 1,448 x all-gather of 866 MiB, ..."
    // (the dim's calls and their mean message, as the report lists them); "" otherwise.
    std::string calls;
};

// compute, then each dim's exposed communication (dims that expose none are left out), then the
// bubble (when there is one); they add up to the step. Empty when the report has no times (count-only
// model). Exposed communication the dims do not account for is listed as "other comm".
[[nodiscard]] std::vector<StepPart> step_parts(const Report& r);

// One operation of the busiest GPU's compute over the step (the report's breakdown), longest first.
struct ComputeOp {
    std::string name;        // "routed experts"
    std::string kind;        // gemm, attention, element-wise, optimizer
    std::string bound;       // flops, hbm, launch
    double seconds = 0;      // per step, recomputation included
    double recompute_s = 0;
    double fraction = 0;     // of the step's compute
    bool moe_part = false;   // one of an MoE block's parts (is_moe_part)
};
[[nodiscard]] std::vector<ComputeOp> compute_ops(const Report& r);

// What bounds an operation, in words: "FLOPs (the tensor cores)", "HBM bandwidth", "kernel launches".
[[nodiscard]] std::string bound_meaning(std::string_view bound);

// An MoE block as the busiest GPU runs it, in one sentence: tokens per expert, the experts' GEMM rate,
// the mixture's share of compute, the all-to-all. "" without MoE blocks.
[[nodiscard]] std::string moe_summary(const Report& r);

}  // namespace shardscope
