#pragma once
// The report (docs/design.md, "The report"): the cost of one scenario as a plain value, its JSON text (the
// field names of docs/design.md exactly) and a human-readable text. cost_model.hpp fills it in.
//
// Units: sizes in bytes, times in seconds, per GPU unless the name says otherwise; the GPU reported is
// the most loaded one. A value that cannot be computed (FLOP-based figures for a model given only as a
// parameter count) is empty here and null in JSON, with a note saying why.

#include "core/collectives/collectives.hpp"
#include "core/scenario/units.hpp"
#include "core/model/compute.hpp"
#include "core/model/memory.hpp"
#include "core/model/run_cost.hpp"
#include "core/model/step_ops.hpp"
#include "core/pipeline/pipeline.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// One kind of collective call a dim makes: what nccl-tests would time to measure it (not in docs/design.md's
// JSON). message_bytes is S as nccl-tests counts it (all-gather: the gathered output; reduce-scatter:
// the full input; p2p: one send).
struct CollectiveCall {
    Collective op = Collective::all_reduce;
    double message_bytes = 0;
    double calls_per_step = 0;
};

// One mesh dim's communication (docs/design.md `mesh.dims[]`).
// "98 x all-gather of 1.00 GiB, 98 x reduce-scatter of 2.00 GiB": each call's message as NCCL sees it.
[[nodiscard]] std::string describe_calls(const std::vector<CollectiveCall>& calls);

struct DimCost {
    std::string name;            // tp, cp, dp_shard, dp_replicate, pp, ep
    int64_t size = 1;            // ranks per group
    int64_t groups = 0;          // groups of this dim across the world
    std::string link = "none";   // intra, inter, mixed, none (a dim of size 1)
    std::string collective;      // e.g. "all-reduce", "reduce-scatter + all-gather"
    double bytes_per_step = 0;   // bytes one GPU sends in this dim per step
    double time_s = 0;           // alpha-beta time of those collectives per step, before any overlap
    double exposed_s = 0;        // the part left on the critical path (not in docs/design.md's JSON)
    double contention_s = 0;     // of exposed_s: compute slowed while these collectives ran beside it
    std::vector<CollectiveCall> calls;  // the calls behind bytes_per_step, per GPU of the busiest stage
};

struct Report;

// The report's figures for one mesh dim ("tp", "dp_shard"...); nullptr when the report has none.
[[nodiscard]] const DimCost* find_dim_cost(const Report& report, std::string_view name);

// The call that moves the most of a dim's bytes per step (message x calls); nullptr when it has none.
// The collective animator sizes its demonstration from it.
[[nodiscard]] const CollectiveCall* dominant_call(const DimCost& dim);

// One GPU of a pipeline stage over a step, as the step trace draws it (not in docs/design.md's JSON). The
// per-micro-batch figures are the stage's whole share of layers; an interleaved op runs 1/v of them.
struct StageStepWork {
    struct Stream {
        std::string name;        // tp, cp, ep, dp_shard: the collectives of one mesh dim
        double forward_s = 0;    // per micro-batch, before overlap
        double backward_s = 0;
    };
    double forward_s = 0;        // compute of one micro-batch's forward
    double backward_s = 0;       // and of its backward (recompute included)
    std::vector<Stream> streams; // only the dims that send something per micro-batch
    // The step end, after the pipeline drains: the gradient reduction (hidden under the last backward
    // up to its compute), the compute it slows, ZeRO-1/2's all-gather of the updated weights, and the
    // optimizer step.
    double reduce_s = 0;
    double reduce_past_s = 0;    // of reduce_s, the part past the last backward
    double contention_s = 0;
    double gather_s = 0;
    double optimizer_s = 0;
    // What the step end adds after the pipeline's makespan on this stage.
    [[nodiscard]] double end_s() const noexcept { return reduce_past_s + contention_s + gather_s + optimizer_s; }
};

struct ReportTimes {
    std::optional<double> compute;       // the busiest stage's own compute over the step
    std::optional<double> exposed_comm;  // communication on that stage's critical path
    std::optional<double> bubble;        // the rest of the step: pipeline idle time
    std::optional<double> step;
};

struct ReportThroughput {
    std::optional<double> tokens_per_s;
    std::optional<double> model_tflops_per_gpu;
    std::optional<double> hardware_tflops_per_gpu;
    std::optional<double> mfu;
};

// An MoE block as the busiest GPU runs it (not in docs/design.md's JSON: the report's `moe`). Its parts'
// times are the breakdown's MoE operations (is_moe_part); the all-to-all is the ep dim's.
struct MoeFigures {
    int64_t blocks = 0;                  // MoE blocks on the busiest GPU's stage
    double tokens_per_expert = 0;        // per micro-batch, routed tokens a local expert receives
    double local_experts = 0;            // experts per EP rank
    double expert_gemm_flops_per_s = 0;  // the routed experts' GEMMs, achieved (recomputation included)
    double expert_gemm_share_of_peak = 0;  // of the training dtype's peak (MFU's denominator)
    double all_to_all_s = 0;             // the ep dim's dispatch and combine per step, before overlap
    double all_to_all_exposed_s = 0;
    double mixture_s = 0;                // the MoE parts' compute per step (is_moe_part)
    double mixture_share_of_compute = 0;
};

// The optimizer offloaded to the host (training.offload optimizer): what the host holds and what the
// busiest GPU's optimizer step costs there (the report's `host`).
struct HostOffload {
    double bytes_per_gpu = 0;     // the most loaded GPU's optimizer state and FP32 gradients on the host
    double bytes_per_node = 0;    // a node's GPUs together, each at the most loaded GPU's figure
    double capacity_bytes = 0;    // the node's system memory
    bool fits = false;
    double link_bytes_per_s = 0;  // one GPU's host link, one way
    double adam_params_per_s = 0; // one GPU's share of its node's CPU Adam
    double params = 0;            // parameters the busiest GPU's optimizer steps
    OffloadedStep step;           // the busiest GPU's, in its three parts
};

struct Report {
    int64_t world_size = 0;
    int64_t leftover_dp_replicate = 1;   // the factor leftover GPUs multiply dp_replicate by
    double params_total = 0;
    double params_active = 0;            // per token (MoE: top_k experts); not in docs/design.md's JSON
    std::vector<DimCost> dims;
    MemoryBreakdown memory;              // the most loaded GPU
    bool fits = false;                   // on the GPU, and on the host with the optimizer offloaded
    std::optional<HostOffload> host;
    std::optional<double> model_flops_per_step;
    std::optional<double> hardware_flops_per_step;
    ReportTimes time;
    // The busiest GPU's compute over the step by operation (sums to time.compute); empty for a model
    // given as a parameter count.
    std::optional<OpTimes> breakdown;
    std::optional<MoeFigures> moe;       // with MoE blocks on the busiest GPU
    int64_t microbatches = 0;
    std::optional<double> bubble_fraction;
    ReportThroughput throughput;
    // The whole run (with the scenario's `run` block and a step that has a rate): days, cost, goodput.
    std::optional<RunFigures> run;
    std::vector<std::string> notes;
    // The conventions the figures follow, one line each (FLOP numerator, attention kernel, compute
    // ceilings and their sources, bytes per parameter, capacity and reserve): also among the notes.
    std::vector<std::string> conventions;

    // For the Memory panel (not in docs/design.md's JSON): every stage, and which one is the most loaded.
    std::vector<StageMemory> stages;
    int64_t most_loaded_stage = 0;
    double gpu_memory_bytes = 0;
    // For the Pipeline timeline (not in the JSON): the pipeline the step was simulated from, exactly
    // scenario_pipeline_spec's, so "from scenario" costs the stages once, here.
    PipelineSpec pipeline;
    // Per stage, what its GPUs do in the step (empty for a model given only as a parameter count). The
    // step is the pipeline's makespan plus the longest stage end: every stage's optimizer has run.
    std::vector<StageStepWork> stage_work;
};

// docs/design.md's report JSON, two-space indent, trailing newline.
[[nodiscard]] std::string report_to_json(const Report& r);
// A plain-text summary for the terminal.
[[nodiscard]] std::string report_to_text(const Report& r);

// Text figures use core/scenario/units.hpp (format_bytes, format_seconds, ...), shared with the panels.

}  // namespace shardscope
