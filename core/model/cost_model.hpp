#pragma once
// The cost model: FLOPs, compute time, communication per mesh dim, the pipeline bubble and the step
// time of one scenario, assembled into a Report (docs/design.md, "The report").
//
// FLOP accounting (chosen once, here):
// - model_per_step = 6 * active params * tokens + 12 * layers * hidden * seq * tokens, leaving out the
//   input embedding (a lookup, no matmul; a tied embedding is the output layer too, so it stays). The attention
//   term is NOT halved for causal masking: Megatron-LM's published formula (Narayanan et al. 2021,
//   eq. 3) counts the full s x s score matrix, and the validation suite compares against it.
// - hardware_per_step adds recomputation's extra forward: full recompute re-runs every block's forward
//   (2 * block params * tokens + 4 * hidden * seq * tokens per layer), selective recompute re-runs the
//   attention core (4 * hidden * seq * tokens per layer). The output layer is never recomputed.
// - Compute time comes from the hardware up (compute.hpp, hardware.hpp): each GEMM by its shape,
//   attention by its kernel, memory-bound kernels at HBM bandwidth.
//
// Overlap rules, stated in ONE place (apply_overlap_rules in cost_model.cpp follows them):
// - Data parallel (DDP all-reduce, ZeRO-1/2 reduce-scatter, HSDP's replica all-reduce): gradients are
//   final only after a stage's last micro-batch, so they hide under that micro-batch's backward, up to
//   its compute time; the rest is exposed. ZeRO-1/2's all-gather of the updated parameters is exposed.
// - FSDP (ZeRO-3): each micro-batch's all-gather hides under its forward, the backward all-gather and
//   reduce-scatter under its backward, each up to that compute time.
// - TP: exposed, unless parallel.tp_comm_overlap (then hidden up to the matmul time it runs beside).
// - CP: the ring exchange of K and V hides under the attention core it feeds; the excess is exposed.
//   With parallel.cp_comm "all-gather" (Llama 3) K and V are gathered before attention runs and their
//   gradients reduce-scattered after it: exposed.
// - EP: all-to-all dispatch and combine are exposed.
// - PP: point-to-point activations are the simulator's p2p_time between stages: they lengthen the
//   critical path at stage boundaries, and the bubble is read off the simulated schedule.
// - A collective hidden under compute is not free: the compute beside it loses a share of its speed
//   (hardware.hpp, [OVERLAP]); that loss is part of the dim's exposed time (DimCost::contention_s).
// Exposed per-micro-batch communication is added to the stage's forward / backward op costs before
// simulating, so the pipeline magnifies it exactly as it would compute.

#include "core/mesh/mesh.hpp"
#include "core/model/hardware.hpp"
#include "core/model/params.hpp"
#include "core/pipeline/pipeline.hpp"
#include "core/pipeline/pipeline_program.hpp"
#include "core/model/report.hpp"
#include "core/scenario/scenario.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct StepFlops {
    double model = 0;
    double hardware = 0;
};

// FLOPs of one whole training step, all GPUs together (see the accounting above).
[[nodiscard]] StepFlops step_flops(const Scenario& s, const ParamCounts& counts) noexcept;

// Micro-batches per pipeline per step: global_batch / (micro_batch * dp_shard * dp_replicate), with
// dp_replicate including the leftover replicas. 0 when it is not a whole number.
[[nodiscard]] int64_t microbatches_per_step(const Scenario& s, int64_t effective_dp_replicate) noexcept;

// One micro-batch's work on one GPU of a pipeline stage, split as the pipeline needs it.
struct StageWork {
    double forward_flops = 0;    // matmul FLOPs of the forward on one GPU
    double backward_flops = 0;   // 2x the forward, plus the recomputed forward
    double forward_s = 0;        // compute time (matmuls + memory-bound element-wise work)
    double backward_s = 0;
    double tp_forward_s = 0;     // TP collectives of the forward (before overlap)
    double tp_backward_s = 0;
    double cp_forward_s = 0;     // CP ring exchange (before overlap)
    double cp_backward_s = 0;
    double attention_forward_s = 0;  // the attention core's compute, which hides the CP exchange
    double ep_forward_s = 0;     // EP all-to-all dispatch + combine
    double ep_backward_s = 0;
    double fsdp_forward_s = 0;   // ZeRO-3 all-gather
    double fsdp_backward_s = 0;  // ZeRO-3 all-gather + reduce-scatter; ZeRO-2 reduce-scatter
    // Of those, the all-gathers that wait behind a device synchronize (DeepSpeed 0.3): never hidden.
    double fsdp_forward_waits_s = 0;
    double fsdp_backward_waits_s = 0;
};

// The pipeline build_report simulates: per-stage F / B (/ W) costs with the exposed per-micro-batch
// communication folded in, micro-batches per step, and p2p_time over the pp dim's link. Count-only
// models get unit costs (F = 1, B = 2). For the timeline panel's "from scenario".
[[nodiscard]] PipelineSpec scenario_pipeline_spec(const Scenario& s);
// The same with the model's counts and the scenario's mesh already built (count_params(s.model),
// DeviceMesh::build(s.cluster, s.parallel)): the planner scores thousands of layouts of one model and
// shares them. The numbers are identical to the one-argument forms, which call these.
[[nodiscard]] PipelineSpec scenario_pipeline_spec(const Scenario& s, const ParamCounts& counts, const DeviceMesh& mesh);

// A floor under scenario_pipeline_spec(s, counts, mesh) for every mesh order and ZeRO stage of the
// layout: each stage's F and B is its compute alone (the full spec adds the communication it exposes
// and FSDP2's copies to the same compute), and p2p_time is 0. It reads no link, so it needs no mesh:
// the planner floors a layout's groups on it before building any.
[[nodiscard]] PipelineSpec compute_pipeline_spec(const Scenario& s, const ParamCounts& counts);

// The layout's two block floors (compute.hpp) on the GPU and world its mesh would have.
struct LayoutBlockFloors {
    BlockFloor dense, moe;
};
[[nodiscard]] LayoutBlockFloors layout_block_floors(const Scenario& s);

// A floor under compute_pipeline_spec(s, counts) without recompute, from the layout's block floors
// at s's micro-batch: each stage's blocks at their floors, the embedding and the loss left out. The
// planner bounds a layout at every micro-batch on it before it prices any.
[[nodiscard]] PipelineSpec compute_pipeline_floor_spec(const Scenario& s, const ParamCounts& counts,
                                                       const LayoutBlockFloors& floors);

// The spec build_report simulates for `spec`: the spec itself, or, when the simulator refuses its schedule
// for this layout, the same costs as 1F1B (the report's notes say so).
[[nodiscard]] PipelineSpec simulated_pipeline_spec(PipelineSpec spec);

// The data-parallel collectives at the end of a step for the GPUs of pipeline stage `stage`: the
// gradient reduction (hidden under the last micro-batch's backward, up to its compute) and ZeRO-1/2's
// all-gather of the updated weights (exposed). They depend on the layout and ZeRO stage only, not on the
// micro-batch, recompute or schedule, which lets the planner bound a step before simulating it.
// What a collective of `comm_s` costs the critical path when it runs beside `compute_s` of work:
// the compute keeps only (1 - loss) of its speed while the collective runs, so together they take
// max(comm, compute + loss x comm). `past` is the collective's time beyond the compute, `contention`
// the compute time lost to running beside it.
struct OverlapCost {
    double past = 0;
    double contention = 0;
    [[nodiscard]] double total() const noexcept { return past + contention; }
};
[[nodiscard]] OverlapCost overlap_cost(double comm_s, double compute_s, double loss) noexcept;

// PyTorch's FSDP (FSDP2, per-parameter sharding) gathers a unit's (a block's) parameters into one flat
// buffer and copies each out into its own tensor, on the compute stream, before the unit runs
// ("copy-out", forward and again backward, ZeRO-3 only); before each reduce-scatter it copies every
// gradient into the flat input ("copy-in", on the reduce-scatter's stream, so priced with it).
// Megatron-LM and DeepSpeed keep flat buffers: only the PyTorch stack (no fused_kernels) pays these.
// Per micro-batch, for `params` gathered on this GPU in `units` FSDP units.
struct Fsdp2Copies {
    double copy_out_s = 0;  // once forward, once backward
    double copy_in_s = 0;
};
[[nodiscard]] Fsdp2Copies fsdp2_copies(const HardwareFigures& hw, double params, double units, bool gathers,
                                       double gathered_bytes, double grad_bytes) noexcept;

struct StepEndTimes {
    double reduce_s = 0;
    double gather_s = 0;
    double overlap_loss = 0;  // HardwareFigures::overlap_compute_loss of the GPU
    // What the step adds after the pipeline drains when the stage's backward compute is `backward_s`
    // (never more as the backward grows, so the longest backward gives the least).
    [[nodiscard]] double exposed(double backward_s) const noexcept {
        return overlap_cost(reduce_s, backward_s, overlap_loss).total() + gather_s;
    }
};
[[nodiscard]] StepEndTimes step_end_times(const Scenario& s, const ParamCounts& counts, const DeviceMesh& mesh,
                                          int64_t stage);

// The whole report for a scenario that passed validate_scenario.
[[nodiscard]] Report build_report(const Scenario& s);
[[nodiscard]] Report build_report(const Scenario& s, const ParamCounts& counts, const DeviceMesh& mesh);

// Simulated pipelines remembered by their spec, for a caller that costs many scenarios whose stages do
// the same work (the planner: ZeRO 0-2 and the split between dp_shard and dp_replicate leave every
// micro-batch's ops unchanged). An identical spec simulates identically, so a report built with a memo
// equals one built without. Keeps only what build_report reads (no events). One per thread.
class PipelineMemo {
public:
    struct Simulated {
        double makespan = 0;
        double bubble_fraction = 0;
        std::vector<double> busy;
        std::vector<double> peak_activation_microbatches;
        std::vector<std::string> notes;  // what simulating added to the report's notes
    };
    // The simulation of `spec` (run on a miss through `simulate`).
    template <typename Simulate>
    const Simulated& get(const PipelineSpec& spec, Simulate&& simulate) {
        std::vector<double> key = key_of(spec);
        const auto it = entries_.find(key);
        if (it != entries_.end()) {
            ++hits_;
            return it->second;
        }
        if (entries_.size() >= kMaxEntries) entries_.clear();  // bound the memory, keep it simple
        return entries_.emplace(std::move(key), simulate(spec)).first->second;
    }
    [[nodiscard]] long long hits() const noexcept { return hits_; }
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
    // The compiled op order for `spec`'s shape (compiled on first use): specs of one shape that differ
    // in costs are timed without walking the schedule again. `spec` must pass pipeline_spec_error.
    const PipelineProgram& program(const PipelineSpec& spec);

private:
    static constexpr std::size_t kMaxEntries = 1 << 16;
    static constexpr std::size_t kMaxProgramOps = std::size_t{1} << 24;  // about 0.6 GB of compiled ops
    static std::vector<double> key_of(const PipelineSpec& spec);
    std::map<std::vector<double>, Simulated> entries_;
    std::map<PipelineProgram::Shape, PipelineProgram> programs_;
    std::size_t program_ops_ = 0;
    long long hits_ = 0;
};
// What a report carries: everything, or what ranking a layout needs (the planner's candidates: no
// breakdown by operation and no MoE figures, which a row re-reports when asked).
enum class ReportDetail { full, ranking };
[[nodiscard]] Report build_report(const Scenario& s, const ParamCounts& counts, const DeviceMesh& mesh,
                                  PipelineMemo* memo, ReportDetail detail = ReportDetail::full);

// The dense peak of the dtype the GEMMs run in: peak_fp8_tflops under fp8 precision, the FP32 CUDA-core
// peak under fp32 (hardware.hpp), else peak_tflops. MFU's denominator.
[[nodiscard]] double training_peak_tflops(const Scenario& s) noexcept;

// What every report of a scenario that passed validate_scenario must satisfy: the step positive and
// finite and no shorter than the busiest stage's compute, the compute's operations (breakdown, in
// a full report) summing to it, 0 < MFU <= 1 (or no MFU, with a note saying why), hardware FLOP/s per GPU at most
// the peak of the training dtype, the memory parts summing to the total, and the reported GPU the
// most loaded. "" when they hold, else the first broken one in words. The planner ranks only
// candidates that pass; a core property test checks them over random scenarios.
[[nodiscard]] std::string report_invariant_violation(const Scenario& s, const Report& r);

// Parse + validate + build: the report, or the loader's error (what `shardscope report` prints).
struct ReportResult {
    std::optional<Report> report;
    std::string error;
    [[nodiscard]] bool ok() const noexcept { return report.has_value(); }
};
[[nodiscard]] ReportResult report_from_json(std::string_view scenario_json);


}  // namespace shardscope
