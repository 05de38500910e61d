#pragma once
// The scenario: one complete, shareable setup (docs/design.md, "The scenario").
// Plain value types; JSON text in and out, nothing else.

#include "core/scenario/dim.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

enum class Ffn { gelu, swiglu, squared_relu };
enum class Schedule { gpipe, one_f_one_b, interleaved_1f1b, zb_h1, zb_h2, dualpipe };
enum class Recompute { none, selective, full };
enum class Precision { mixed_bf16, fp32, megatron_bf16, megatron_fp16, fp8 };
inline constexpr std::array<Schedule, 6> kAllSchedules = {Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved_1f1b,
                                                          Schedule::zb_h1, Schedule::zb_h2, Schedule::dualpipe};
inline constexpr std::array<Recompute, 3> kAllRecomputes = {Recompute::none, Recompute::selective, Recompute::full};
inline constexpr std::array<Precision, 5> kAllPrecisions = {Precision::mixed_bf16, Precision::fp32, Precision::megatron_bf16,
                                                            Precision::megatron_fp16, Precision::fp8};
// How the attention core runs: flash (fused, no s x s scores in HBM) or eager (scores materialised).
enum class AttentionKernel { flash, eager };
// How context parallelism moves K and V: a ring that passes each rank's block on while attention
// runs on the block in hand (Megatron-LM / Transformer Engine), or one all-gather of every rank's K
// and V before attention runs (Llama 3), whose time is exposed.
enum class CpComm { ring, all_gather };
// Which implementation runs ZeRO-3 (parallel.zero 3), as each issues its collectives: PyTorch FSDP2
// (a unit per block, copied in and out of flat buffers), FSDP1 (flat parameters, no copies),
// Megatron-FSDP (flat buffers per block), DeepSpeed as it runs today (one coalesced all-gather per
// submodule's weights, gradients reduced in 5e8-element buckets) and DeepSpeed 0.3 (April 2021, the
// release Narayanan et al. ran: one collective per parameter through PyTorch's list API, every
// all-gather behind a device-wide synchronize).
enum class ZeroImpl { fsdp2, fsdp1, megatron_fsdp, deepspeed, deepspeed_0_3 };
inline constexpr std::array<ZeroImpl, 5> kAllZeroImpls = {ZeroImpl::fsdp2, ZeroImpl::fsdp1, ZeroImpl::megatron_fsdp,
                                                          ZeroImpl::deepspeed, ZeroImpl::deepspeed_0_3};
// How attention projects: grouped-query (q, k, v, o) or DeepSeek's multi-head latent attention (MLA:
// queries and keys/values through low-rank latents, plus a shared rotary key).
enum class AttentionType { gqa, mla };

struct ModelSpec {
    std::string name = "custom";
    int64_t layers = 0;
    int64_t hidden = 0;
    int64_t ffn_hidden = 0;
    int64_t heads = 0;
    int64_t kv_heads = 0;
    int64_t vocab = 0;
    int64_t seq_len = 0;
    Ffn ffn = Ffn::swiglu;
    int64_t experts = 0;            // routed experts per MoE layer; 0 = dense
    int64_t top_k = 0;
    int64_t expert_ffn_hidden = 0;
    int64_t shared_experts = 0;
    // Leading layers that keep a dense FFN in an MoE model (DeepSeek-V3: the first 3 of 61). Must be 0
    // for a dense model. Always written by the saver so a round trip is exact.
    int64_t dense_layers = 0;
    bool tie_embeddings = false;    // the LM head shares the input embedding's matrix
    // Multi-token prediction modules (DeepSeek-V3: 1; Megatron-LM's --mtp-num-layers): each is one more
    // block of the last block's kind, two input norms, a 2h -> h projection and a final norm, and sends
    // its tokens through the shared output layer and loss once more, all on the last pipeline stage.
    int64_t mtp_layers = 0;
    // Dropout after attention and MLP (and on the attention probabilities with eager attention). Unset:
    // GPT-style models (ffn gelu) train with it, as Megatron-LM's GPT runs do (0.1); Llama-style models
    // (ffn swiglu) without, as Llama, Mistral, Mixtral and DeepSeek do.
    std::optional<bool> dropout;
    int64_t head_dim = 0;           // 0: hidden / heads (Qwen3 sets it wider)
    // The rotary position embedding's base frequency (Hugging Face rope_theta). Costs nothing; the
    // framework exports pass it on. 0: not stated (the frameworks' default, 10,000).
    double rope_theta = 0;
    double capacity_factor = 0;     // 0: dropless routing (each expert gets exactly the tokens sent)
    // Group-limited routing (Hugging Face n_group / topk_group; DeepSeek-V3's node-limited routing):
    // the routed experts fall into expert_groups equal groups and a token's top_k come from at most
    // expert_groups_per_token of them. 0 and 0: no limit.
    int64_t expert_groups = 0;
    int64_t expert_groups_per_token = 0;
    AttentionType attention_type = AttentionType::gqa;
    // MLA's ranks and head widths (Hugging Face DeepSeek-V3 config names); 0 unless MLA.
    int64_t q_lora_rank = 0;        // 0: queries projected directly
    int64_t kv_lora_rank = 0;
    int64_t qk_rope_head_dim = 0;
    int64_t qk_nope_head_dim = 0;
    int64_t v_head_dim = 0;
    std::optional<double> params;   // a bare parameter count standing in for the architecture

    [[nodiscard]] bool has_architecture() const noexcept { return layers > 0 && hidden > 0; }
    [[nodiscard]] bool is_moe() const noexcept { return experts > 0; }
    [[nodiscard]] bool uses_dropout() const noexcept { return dropout.value_or(ffn == Ffn::gelu); }
    [[nodiscard]] int64_t attention_head_dim() const noexcept {
        return head_dim > 0 ? head_dim : (heads > 0 ? hidden / heads : 0);
    }
    [[nodiscard]] bool is_mla() const noexcept { return attention_type == AttentionType::mla; }
    // Width of one head's query/key and of its value (MLA: nope + rope, and v_head_dim).
    [[nodiscard]] int64_t qk_head_dim() const noexcept {
        return is_mla() ? qk_nope_head_dim + qk_rope_head_dim : attention_head_dim();
    }
    [[nodiscard]] int64_t value_head_dim() const noexcept { return is_mla() ? v_head_dim : attention_head_dim(); }
    // Per token, all heads: the keys and the values attention reads (GQA shares them over kv_heads).
    [[nodiscard]] int64_t key_width() const noexcept {
        return is_mla() ? heads * qk_head_dim() : kv_heads * attention_head_dim();
    }
    [[nodiscard]] int64_t value_width() const noexcept {
        return is_mla() ? heads * value_head_dim() : kv_heads * attention_head_dim();
    }
};

// The GPU as its datasheet gives it, plus optional measured figures. Every optional left empty takes
// the figure core/model/hardware.hpp holds for the GPU's family (with its source).
struct GpuSpec {
    std::string name = "GPU";
    double memory_gb = 80;          // the vendor's nominal size (a label: capacity is memory_mib)
    double peak_tflops = 989;       // dense peak for the training dtype
    double hbm_gbps = 3350;
    // The best large GEMM's fraction of peak_tflops (a cuBLAS microbenchmark, or `measure`).
    std::optional<double> matmul_efficiency{};
    double peak_fp8_tflops = 0;     // dense FP8 peak; 0 = no FP8 tensor cores
    std::optional<int64_t> sm_count{};
    std::optional<double> memory_mib{};  // what the card exposes (nvidia-smi's total)
    std::optional<double> reserve_gib{}; // CUDA context, NCCL buffers and workspaces, per GPU
    // How much one card's sustained compute speed differs from the next of the same model: the
    // standard deviation over the median card's speed (0: every card alike). A synchronous step
    // waits for the slowest of its GPUs.
    std::optional<double> speed_spread{};
    // The board's maximum power (the datasheet's TDP), W: what the run's energy is counted at.
    std::optional<double> board_power_w{};

    [[nodiscard]] double hbm_bytes_per_s() const noexcept { return hbm_gbps * 1e9; }  // datasheet, SI GB/s
};

struct LinkSpec {
    double bandwidth_gbps = 50;     // GB/s per GPU, one direction (nccl-tests bus bandwidth)
    double latency_us = 5;
    // Inter-node only: NICs per node (0 = one per GPU, as on DGX/HGX). A group with k members per
    // node crosses nodes over k NICs at once (NCCL spreads its rings over the rails).
    int64_t nics_per_node = 0;

    [[nodiscard]] double bytes_per_s() const noexcept { return bandwidth_gbps * 1e9; }  // GB/s are SI
};

// The host each node's GPUs hang off: what an optimizer offloaded to the CPU uses. Every figure left
// empty takes the default core/model/hardware.hpp gives (with its source).
struct HostSpec {
    std::optional<double> memory_gb{};   // the node's system memory (DGX H100: 2,048 GB)
    std::optional<double> link_gbps{};   // one GPU's link to host memory, GB/s one way (PCIe, NVLink-C2C)
    std::optional<int64_t> cpu_cores{};  // the node's CPU cores, shared by its GPUs' optimizer steps
};

struct ClusterSpec {
    std::string name = "cluster";
    int64_t nodes = 1;
    int64_t gpus_per_node = 8;
    GpuSpec gpu;
    LinkSpec intra_node{450, 2};
    LinkSpec inter_node{50, 5};
    HostSpec host;

    [[nodiscard]] int64_t gpu_count() const noexcept { return nodes * gpus_per_node; }
};

struct ParallelSpec {
    int64_t tp = 1, cp = 1, pp = 1, dp_shard = 1, dp_replicate = 1, ep = 1;
    int zero = 0;
    bool sequence_parallel = false;
    bool tp_comm_overlap = false;   // hide TP collectives under compute (off: TP is exposed)
    bool ep_comm_overlap = false;   // hide the EP all-to-all under another micro-batch's compute
    CpComm cp_comm = CpComm::ring;
    // Unset: FSDP2 on the PyTorch stack, Megatron-FSDP on the fused one (training.fused_kernels).
    // Read only with zero 3.
    std::optional<ZeroImpl> zero_impl;
    // Megatron-LM's --account-for-embedding/loss-in-pipeline-split: the embedding (the output layer
    // and loss) count as one layer when layers are split over stages.
    bool embedding_in_pipeline_split = false;
    bool loss_in_pipeline_split = false;
    int64_t first_stage_layers = 0;  // 0: an even split (Megatron's --decoder-first-pipeline-num-layers)
    int64_t last_stage_layers = 0;
    std::vector<Dim> order = {Dim::tp, Dim::cp, Dim::dp_shard, Dim::dp_replicate, Dim::pp};

    // The factor of any dim, ep included (1 = not split).
    [[nodiscard]] int64_t factor(Dim d) const noexcept;
    [[nodiscard]] int64_t& factor(Dim d) noexcept;
    [[nodiscard]] int64_t product() const noexcept { return tp * cp * pp * dp_shard * dp_replicate; }
};

// The parts of a block Megatron-LM's selective recompute re-runs in the backward (its
// --recompute-modules; the default is the attention core). "layernorm", "mla_up_proj" and "moe_act"
// keep their input and drop their output after the forward (output-discarding checkpoints).
struct RecomputeModules {
    bool core_attn = true;    // the attention core (scores, softmax, the weighted sum)
    bool layernorm = false;   // the block's two norms
    bool mla_up_proj = false; // MLA's up-projections and rotary (Q, K and V are rebuilt from the latents)
    bool moe_act = false;     // the routed experts' activation function
    [[nodiscard]] bool is_default() const noexcept { return core_attn && !layernorm && !mla_up_proj && !moe_act; }
};
// Names in --recompute-modules' spelling, in that order, and the field each names.
inline constexpr std::array<std::string_view, 4> kRecomputeModuleNames = {"core_attn", "layernorm", "mla_up_proj",
                                                                          "moe_act"};
inline constexpr std::array<bool RecomputeModules::*, 4> kRecomputeModuleFields = {
    &RecomputeModules::core_attn, &RecomputeModules::layernorm, &RecomputeModules::mla_up_proj,
    &RecomputeModules::moe_act};
[[nodiscard]] std::vector<std::string> recompute_module_names(const RecomputeModules& m);
// "layernorm+moe_act" (or "none") as modules; nullopt for a name that is none of them.
[[nodiscard]] std::optional<RecomputeModules> recompute_modules_from_text(std::string_view text);

// How a full recompute picks its blocks (Megatron-LM's --recompute-method): uniform checkpoints the
// input of every group of recompute_num_layers blocks and re-runs the whole group in the backward;
// block re-runs the first recompute_num_layers blocks of each pipeline stage (of each virtual chunk)
// and keeps every activation of the rest.
enum class RecomputeMethod { uniform, block };

// What lives in host memory instead of the GPU's: nothing, or the optimizer (its FP32 master weights
// and moments, stepped by the CPU: DeepSpeed's offload_optimizer, Megatron-LM's --optimizer-cpu-offload).
enum class Offload { none, optimizer };

struct TrainingSpec {
    int64_t global_batch = 1024;    // sequences per step
    int64_t micro_batch = 1;        // sequences per micro-batch
    Schedule schedule = Schedule::one_f_one_b;
    int64_t virtual_stages = 1;
    Recompute recompute = Recompute::none;
    Precision precision = Precision::mixed_bf16;
    AttentionKernel attention = AttentionKernel::flash;
    // Element-wise work as fused kernels (Megatron-LM / Transformer Engine: one pass per norm,
    // rotary, activation) rather than PyTorch eager's op-by-op passes (the default: what FSDP and
    // DeepSpeed runs of Hugging Face or torchtitan models execute).
    bool fused_kernels = false;
    // What selective recompute re-runs on the fused stack (Megatron-LM's --recompute-modules).
    RecomputeModules recompute_modules;
    // Read only with recompute full (Megatron-LM's --recompute-method, --recompute-num-layers); uniform
    // and 1 is every block on its own, what recompute full means without them.
    RecomputeMethod recompute_method = RecomputeMethod::uniform;
    int64_t recompute_num_layers = 1;
    // The activation function's input (GeLU's, SwiGLU's gate and up) kept in FP8 for the backward
    // (Megatron-LM's --activation-func-fp8-input-store); only with precision fp8.
    bool activation_func_fp8_input_store = false;
    // The blocks' weights stored and all-gathered in FP8 alone, no BF16 copy (Megatron-LM's
    // --fp8-param-gather; NeMo's FP8 recipe sets it): 1 byte a weight, the FP32 master in the
    // optimizer; the embedding and the output layer stay BF16. Only with precision fp8.
    bool fp8_param_gather = false;
    // Adam's two moments in bf16 instead of fp32 (Megatron-LM's --exp-avg-dtype / --exp-avg-sq-dtype
    // bf16 with --use-precision-aware-optimizer; DeepSeek-V3 trained so).
    bool bf16_adam_moments = false;
    // Gradients accumulated and reduced in BF16, 2 bytes a parameter instead of Megatron-LM's FP32
    // main gradients (its --grad-reduce-in-bf16); the data-parallel reduction moves half the bytes.
    // Only with Megatron-LM's precisions, megatron-bf16 and fp8 (mixed-bf16 already keeps 2).
    bool grad_reduce_in_bf16 = false;
    // The optimizer's state in host memory and its step on the CPU; needs parallel.zero >= 1.
    Offload offload = Offload::none;
};

// Megatron-LM's FP8 activation inputs need its stack and FP8 GEMMs: "" or the rule a file breaks (a
// saved scenario drops the flag once they no longer apply, and the model ignores it meanwhile).
[[nodiscard]] bool fp8_activation_input_applies(const TrainingSpec& t) noexcept;
[[nodiscard]] std::string fp8_activation_input_error(const TrainingSpec& t);
// FP8 parameters need the same: precision fp8 on Megatron-LM's stack.
[[nodiscard]] bool fp8_param_gather_applies(const TrainingSpec& t) noexcept;
[[nodiscard]] std::string fp8_param_gather_error(const TrainingSpec& t);
[[nodiscard]] bool grad_reduce_in_bf16_applies(const TrainingSpec& t) noexcept;
// The switch is set and applies: what the model prices and the outputs write (a set switch whose
// precision changed since is ignored, and dropped on save).
[[nodiscard]] inline bool fp8_activation_input_on(const TrainingSpec& t) noexcept {
    return t.activation_func_fp8_input_store && fp8_activation_input_applies(t);
}
[[nodiscard]] inline bool fp8_param_gather_on(const TrainingSpec& t) noexcept {
    return t.fp8_param_gather && fp8_param_gather_applies(t);
}
[[nodiscard]] inline bool grad_reduce_in_bf16_on(const TrainingSpec& t) noexcept {
    return t.grad_reduce_in_bf16 && grad_reduce_in_bf16_applies(t);
}
[[nodiscard]] std::string grad_reduce_in_bf16_error(const TrainingSpec& t);
// An offloaded optimizer needs a sharded one: "" or the rule `offload` breaks on layout `p`.
[[nodiscard]] std::string offload_error(const ParallelSpec& p, Offload offload);

// The whole training run, not one step (optional): its days, cost and energy, failures and
// checkpoints included (core/model/run_cost.hpp).
struct RunSpec {
    double tokens = 0;                           // the training budget
    double checkpoint_write_gbps = 0;            // aggregate storage write bandwidth, GB/s
    std::optional<double> gpu_mtbf_hours{};      // GPU-hours between interruptions (default: Llama 3's rate)
    std::optional<double> restart_minutes{};     // from an interruption to training again
    std::optional<double> usd_per_gpu_hour{};
    std::optional<double> pue{};                 // the data centre's power usage effectiveness (default 1)
};

struct Scenario {
    ModelSpec model;
    ClusterSpec cluster;
    ParallelSpec parallel;
    TrainingSpec training;
    std::optional<RunSpec> run;
};

// C++17 has no defaulted comparisons: two scenarios are equal when their canonical JSON is.
[[nodiscard]] bool operator==(const Scenario& a, const Scenario& b);
[[nodiscard]] inline bool operator!=(const Scenario& a, const Scenario& b) { return !(a == b); }

// Loading is all-or-nothing: either a complete, valid Scenario or an error naming the field path and
// the rule, e.g. "parallel.tp: 3 does not divide heads (128)".
struct ScenarioLoad {
    std::optional<Scenario> scenario;
    std::string error;
    [[nodiscard]] bool ok() const noexcept { return scenario.has_value(); }
};

[[nodiscard]] ScenarioLoad parse_scenario(std::string_view json_text);
// Canonical text: fixed key order, two-space indent, trailing newline. save(load(save(s))) == save(s).
[[nodiscard]] std::string scenario_to_json(const Scenario& s);
// Limits past which a value is taken for a typo rather than a plan (docs/design.md: absurd values are
// rejected). Generous: the largest published runs sit one to three orders of magnitude below them.
inline constexpr int64_t kMaxGpus = 1'048'576;          // 2^20 GPUs
inline constexpr int64_t kMaxLayers = 10'000;
inline constexpr int64_t kMaxHidden = 1'048'576;        // also bounds heads and kv_heads
inline constexpr int64_t kMaxFfnHidden = 4'194'304;
inline constexpr int64_t kMaxVocab = 16'777'216;
inline constexpr int64_t kMaxSeqLen = 16'777'216;
inline constexpr int64_t kMaxExperts = 65'536;
inline constexpr int64_t kMaxGlobalBatch = 1'000'000'000;  // sequences
inline constexpr double kMaxParams = 1e15;
inline constexpr double kMaxRopeTheta = 1e12;  // published bases run to 1e8 (long-context Llama variants)
inline constexpr double kMaxMemoryGb = 1e6;
inline constexpr double kMaxPeakTflops = 1e6;
inline constexpr double kMaxBandwidthGbps = 1e6;        // links and HBM
inline constexpr double kMaxLatencyUs = 1e6;
// A standard deviation of 15% of the median card's speed is far past any measured fleet's, and keeps
// the slowest of 2^20 GPUs (4.9 deviations below the median) above a quarter of its speed.
inline constexpr double kMaxSpeedSpread = 0.15;
// The step is priced by simulating its pipeline op by op (core/pipeline), so a scenario must fit the
// simulator: at most this many stages, micro-batches per pipeline and ops (3 x micro-batches x
// stages x virtual stages: about 100 MB of events). Past them no figure would be the one simulated.
inline constexpr int64_t kMaxPipelineStages = 4'096;
inline constexpr int64_t kMaxMicrobatches = 65'536;
inline constexpr int64_t kMaxPipelineOps = int64_t{1} << 21;

// Checks every cross-field rule on an in-memory scenario (what the UI edits); empty string when valid.
[[nodiscard]] std::string validate_scenario(const Scenario& s);
// The rules of one part on its own (validate_scenario runs them first): for a model or cluster preset.
[[nodiscard]] std::string validate_model(const ModelSpec& m);
[[nodiscard]] std::string validate_cluster(const ClusterSpec& c);
// The scenario the app opens with: Llama 3 8B on 8 nodes of 8 H100s.
[[nodiscard]] Scenario default_scenario();
// The micro-batch sizes training.global_batch splits into with this layout's data-parallel ranks
// (leftover GPUs counted as the extra replicas they become), smallest first; empty when none does.
[[nodiscard]] std::vector<int64_t> valid_micro_batches(const Scenario& s);

[[nodiscard]] std::string_view to_string(Ffn v) noexcept;
[[nodiscard]] std::string_view to_string(Schedule v) noexcept;
[[nodiscard]] std::string_view to_string(Recompute v) noexcept;
[[nodiscard]] std::string_view to_string(Precision v) noexcept;
[[nodiscard]] std::string_view to_string(AttentionKernel v) noexcept;
[[nodiscard]] std::optional<AttentionKernel> attention_from_string(std::string_view s) noexcept;
[[nodiscard]] std::string_view to_string(CpComm v) noexcept;
[[nodiscard]] std::optional<CpComm> cp_comm_from_string(std::string_view s) noexcept;
[[nodiscard]] std::string_view to_string(ZeroImpl v) noexcept;
[[nodiscard]] std::string_view to_string(RecomputeMethod v) noexcept;
[[nodiscard]] std::optional<RecomputeMethod> recompute_method_from_string(std::string_view s) noexcept;
[[nodiscard]] std::string_view to_string(Offload v) noexcept;
[[nodiscard]] std::optional<Offload> offload_from_string(std::string_view s) noexcept;
// Blocks of a stage (holding `layers` blocks in `chunks` virtual chunks) whose forward a full
// recompute re-runs, and how many block inputs it keeps for the backward.
struct RecomputedBlocks {
    int64_t rerun = 0;        // blocks re-run in the backward
    int64_t checkpoints = 0;  // block (or group) inputs kept; the other non-rerun blocks keep everything
    int64_t working = 0;      // blocks whose activations live again at once while one group re-runs
};
[[nodiscard]] RecomputedBlocks recomputed_blocks(const TrainingSpec& t, int64_t layers, int64_t chunks) noexcept;
[[nodiscard]] std::optional<ZeroImpl> zero_impl_from_string(std::string_view s) noexcept;
// The implementation a scenario's ZeRO-3 runs on: zero_impl, or the stack's own when unset.
[[nodiscard]] ZeroImpl effective_zero_impl(const ParallelSpec& p, bool fused_kernels) noexcept;
// "ZeRO 3 over 16 ranks (fsdp2)", or, where dp_shard x cp is 1, that the stage shards nothing.
[[nodiscard]] std::string zero_text(const ParallelSpec& p, bool fused_kernels);
[[nodiscard]] std::string_view to_string(AttentionType v) noexcept;
[[nodiscard]] std::optional<AttentionType> attention_type_from_string(std::string_view s) noexcept;
[[nodiscard]] std::optional<Ffn> ffn_from_string(std::string_view s) noexcept;
[[nodiscard]] std::optional<Schedule> schedule_from_string(std::string_view s) noexcept;
[[nodiscard]] std::optional<Recompute> recompute_from_string(std::string_view s) noexcept;
[[nodiscard]] std::optional<Precision> precision_from_string(std::string_view s) noexcept;

}  // namespace shardscope
