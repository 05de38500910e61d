#include "core/export/framework_export.hpp"

#include "core/measure/measure.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/op_recompute.hpp"
#include "core/planner/planner.hpp"
#include "core/scenario/units.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

namespace shardscope {
namespace {

std::string n(int64_t v) { return std::to_string(v); }

std::string decimal(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

// What every target needs beyond the scenario's own fields: the data-parallel degree after leftover
// GPUs become extra replicas, and the micro-batches each pipeline runs per step.
struct Layout {
    int64_t world = 0;
    int64_t dp_replicate = 1;  // effective (leftover GPUs included)
    int64_t dp = 1;            // dp_shard x dp_replicate
    int64_t microbatches = 1;
};

Layout layout_of(const Scenario& s) {
    const ParallelSpec& p = s.parallel;
    Layout l;
    l.world = s.cluster.gpu_count();
    l.dp_replicate = p.dp_replicate * (l.world / p.product());
    l.dp = p.dp_shard * l.dp_replicate;
    l.microbatches = microbatches_per_step(s, l.dp_replicate);
    return l;
}

// Collects lines and warnings; a warning is also a comment line where the format has comments.
struct Writer {
    explicit Writer(std::string comment_prefix) : comment(std::move(comment_prefix)) {}
    std::string comment;  // "# " for shell and TOML; "" for JSON (no comments)
    std::vector<std::string> lines;
    std::vector<std::string> warnings;

    // A comment holds text from a person (a model's or a cluster's name): printable_line keeps it on
    // its one line, so no name can end the comment and start a line the shell or TOML would run.
    void note(const std::string& text) {
        if (!comment.empty()) lines.push_back(comment + printable_line(text));
    }
    void warn(const std::string& text) {
        warnings.push_back(text);
        note("NOTE: " + text);
    }
};

// A scenario that names a ZeRO-3 implementation the target does not run was priced as that one:
// the export says so, and what the target runs instead.
void warn_other_zero_impl(const Scenario& s, Writer& w, std::initializer_list<ZeroImpl> runs, const char* target,
                          const char* runs_as) {
    const ParallelSpec& p = s.parallel;
    if (p.zero < 3 || !p.zero_impl) return;
    for (ZeroImpl r : runs)
        if (*p.zero_impl == r) return;
    w.warn("zero_impl " + std::string(to_string(*p.zero_impl)) + ": " + target + " runs ZeRO-3 as " + runs_as +
           "; the step was priced as " + std::string(to_string(*p.zero_impl)) + " issues its collectives");
}

std::string header(const Scenario& s, const Layout& l) {
    return s.model.name + " on " + n(l.world) + " GPUs (" + s.cluster.name + "): " + describe_layout(s) +
           ", exported by Shardscope " SHARDSCOPE_VERSION;
}

// --- Megatron-LM -------------------------------------------------------------------------------

void megatron_model_flags(const ModelSpec& m, std::vector<std::string>& f) {
    f.push_back("--num-layers " + n(m.layers));
    if (m.mtp_layers > 0) f.push_back("--mtp-num-layers " + n(m.mtp_layers));
    f.push_back("--hidden-size " + n(m.hidden));
    f.push_back("--ffn-hidden-size " + n(m.ffn_hidden));
    f.push_back("--num-attention-heads " + n(m.heads));
    if (!m.is_mla() && m.kv_heads < m.heads) {
        f.push_back("--group-query-attention");
        f.push_back("--num-query-groups " + n(m.kv_heads));
    }
    if (m.head_dim > 0) f.push_back("--kv-channels " + n(m.head_dim));
    f.push_back("--seq-length " + n(m.seq_len));
    f.push_back("--max-position-embeddings " + n(m.seq_len));
    if (m.ffn == Ffn::swiglu) {
        // Llama-style blocks: SwiGLU, RMSNorm, rotary positions, no biases.
        f.push_back("--swiglu");
        f.push_back("--normalization RMSNorm");
        f.push_back("--position-embedding-type rope");
        if (m.rope_theta > 0) f.push_back("--rotary-base " + decimal(m.rope_theta, 0));
        f.push_back("--disable-bias-linear");
    }
    if (m.ffn == Ffn::squared_relu) {
        // Nemotron-style blocks: squared ReLU, LayerNorm (Megatron-LM's default), rotary positions,
        // no biases.
        f.push_back("--squared-relu");
        f.push_back("--position-embedding-type rope");
        if (m.rope_theta > 0) f.push_back("--rotary-base " + decimal(m.rope_theta, 0));
        f.push_back("--disable-bias-linear");
    }
    if (!m.tie_embeddings) f.push_back("--untie-embeddings-and-output-weights");
    if (!m.uses_dropout()) {
        f.push_back("--attention-dropout 0");
        f.push_back("--hidden-dropout 0");
    }
    if (m.is_mla()) {
        f.push_back("--multi-latent-attention");
        if (m.q_lora_rank > 0) f.push_back("--q-lora-rank " + n(m.q_lora_rank));
        f.push_back("--kv-lora-rank " + n(m.kv_lora_rank));
        f.push_back("--qk-head-dim " + n(m.qk_nope_head_dim));
        f.push_back("--qk-pos-emb-head-dim " + n(m.qk_rope_head_dim));
        f.push_back("--v-head-dim " + n(m.v_head_dim));
    }
    if (m.is_moe()) {
        f.push_back("--num-experts " + n(m.experts));
        f.push_back("--moe-router-topk " + n(m.top_k));
        f.push_back("--moe-ffn-hidden-size " + n(m.expert_ffn_hidden));
        if (m.shared_experts > 0) f.push_back("--moe-shared-expert-intermediate-size " + n(m.shared_experts * m.expert_ffn_hidden));
        if (m.dense_layers > 0)
            f.push_back("--moe-layer-freq \"([0]*" + n(m.dense_layers) + "+[1]*" + n(m.layers - m.dense_layers) + ")\"");
        if (m.expert_groups > 0) {
            f.push_back("--moe-router-num-groups " + n(m.expert_groups));
            f.push_back("--moe-router-group-topk " + n(m.expert_groups_per_token));
        }
        if (m.capacity_factor > 0) f.push_back("--moe-expert-capacity-factor " + decimal(m.capacity_factor, 2));
        f.push_back("--moe-token-dispatcher-type alltoall");
    }
}

// What Megatron-LM splits over the stages: the layers, and the embedding and loss where they count.
int64_t split_units(const Scenario& s) {
    return s.model.layers + (s.parallel.embedding_in_pipeline_split ? 1 : 0) + (s.parallel.loss_in_pipeline_split ? 1 : 0);
}

// Layers per stage as Megatron-LM splits them from its flags alone (--decoder-first/last-pipeline-
// num-layers, --account-for-*-in-pipeline-split), or nothing where it would refuse: the layers (with
// the embedding and loss when they count) must divide evenly over the stages its flags leave.
std::optional<std::vector<int64_t>> megatron_native_split(const Scenario& s) {
    const ParallelSpec& p = s.parallel;
    const int64_t layers = s.model.layers, pp = p.pp;
    std::vector<int64_t> out(static_cast<std::size_t>(pp), 0);
    if (p.first_stage_layers > 0 || p.last_stage_layers > 0) {
        const int64_t ends = (p.first_stage_layers > 0 ? 1 : 0) + (p.last_stage_layers > 0 ? 1 : 0);
        const int64_t rest = layers - p.first_stage_layers - p.last_stage_layers;
        if (pp - ends <= 0 || rest % (pp - ends) != 0) return std::nullopt;
        for (int64_t& c : out) c = rest / (pp - ends);
        if (p.first_stage_layers > 0) out.front() = p.first_stage_layers;
        if (p.last_stage_layers > 0) out.back() = p.last_stage_layers;
        return out;
    }
    const int64_t units = split_units(s);
    if (units % pp != 0) return std::nullopt;
    for (int64_t& c : out) c = units / pp;
    if (p.embedding_in_pipeline_split) --out.front();
    if (p.loss_in_pipeline_split) --out.back();
    return out;
}

// Megatron-LM's --pipeline-model-parallel-layout for the scenario's split, one "|"-separated chunk a
// stage: E the embedding, t*N the blocks, L the output layer and loss ("Et*3|t*4|...|t*3L").
std::string megatron_layout(const Scenario& s) {
    std::string out;
    for (int64_t st = 0; st < s.parallel.pp; ++st) {
        const int64_t count = stage_layers(s.model.layers, s.parallel, st).count;
        if (st > 0) out += "|";
        if (st == 0) out += "E";
        if (count == 1) out += "t";
        else if (count > 1) out += "t*" + n(count);
        if (st == s.parallel.pp - 1) out += "L";
    }
    return out;
}

// How the layers split over the stages: Megatron-LM's own flags where they give the split that was
// priced, else the explicit layout.
void megatron_split_flags(const Scenario& s, Writer& w, std::vector<std::string>& f) {
    const ParallelSpec& p = s.parallel;
    if (p.pp <= 1 || !s.model.has_architecture()) return;
    const int64_t v = s.training.schedule == Schedule::interleaved_1f1b ? s.training.virtual_stages : 1;
    const std::optional<std::vector<int64_t>> native = megatron_native_split(s);
    std::vector<int64_t> priced;
    for (int64_t st = 0; st < p.pp; ++st) priced.push_back(stage_layers(s.model.layers, p, st).count);
    const bool ends_given = p.first_stage_layers > 0 || p.last_stage_layers > 0;
    const bool divides = v == 1 || (!ends_given && split_units(s) % (p.pp * v) == 0);
    if (native && *native == priced && divides) {
        if (p.first_stage_layers > 0) f.push_back("--decoder-first-pipeline-num-layers " + n(p.first_stage_layers));
        if (p.last_stage_layers > 0) f.push_back("--decoder-last-pipeline-num-layers " + n(p.last_stage_layers));
        if (p.embedding_in_pipeline_split) f.push_back("--account-for-embedding-in-pipeline-split");
        if (p.loss_in_pipeline_split) f.push_back("--account-for-loss-in-pipeline-split");
        return;
    }
    if (v > 1) {
        w.warn("layers: " + n(s.model.layers) + " do not split evenly into pp x virtual_stages = " + n(p.pp * v) +
               " chunks; give --pipeline-model-parallel-layout one chunk per virtual stage by hand");
        return;
    }
    f.push_back("--pipeline-model-parallel-layout \"" + megatron_layout(s) + "\"");
    w.note("the layers split unevenly over the stages (as priced: fewer on the end stages first); "
           "--pipeline-model-parallel-layout says so (a flag Megatron-LM marks experimental)");
}

void megatron_parallel_flags(const Scenario& s, const Layout& l, Writer& w, std::vector<std::string>& f) {
    const ParallelSpec& p = s.parallel;
    const TrainingSpec& t = s.training;
    f.push_back("--tensor-model-parallel-size " + n(p.tp));
    f.push_back("--pipeline-model-parallel-size " + n(p.pp));
    if (p.cp > 1) f.push_back("--context-parallel-size " + n(p.cp));
    if (p.cp > 1 && p.cp_comm == CpComm::all_gather) f.push_back("--cp-comm-type all_gather");
    if (p.ep > 1) f.push_back("--expert-model-parallel-size " + n(p.ep));
    if (p.sequence_parallel && p.tp > 1) f.push_back("--sequence-parallel");  // nothing to split over one TP rank
    if (p.tp_comm_overlap) f.push_back("--tp-comm-overlap");
    if (p.ep_comm_overlap)
        w.warn("ep_comm_overlap: Megatron-LM's flag for hiding the all-to-all differs between releases; set it by hand");
    if (t.schedule == Schedule::interleaved_1f1b)
        f.push_back("--num-layers-per-virtual-pipeline-stage " + n(std::max<int64_t>(1, split_units(s) / (p.pp * t.virtual_stages))));
    else if (t.schedule != Schedule::one_f_one_b)
        w.warn("schedule " + std::string(to_string(t.schedule)) +
               ": Megatron-LM has no equivalent (it runs 1F1B, or interleaved 1F1B with virtual stages); none emitted");
    megatron_split_flags(s, w, f);
    if (p.zero == 1 || p.zero == 2) {
        f.push_back("--use-distributed-optimizer");
        if (l.dp_replicate > 1) f.push_back("--num-distributed-optimizer-instances " + n(l.dp_replicate));
        if (p.zero == 2)
            w.warn("zero 2: Megatron-LM's distributed optimizer shards the optimizer state and reduce-scatters "
                   "gradients but keeps a full gradient buffer (ZeRO-1's memory); --use-distributed-optimizer is the nearest");
    } else if (p.zero == 3) {
        if (p.pp > 1 || l.dp_replicate > 1)
            w.warn("zero 3: Megatron-LM's --use-torch-fsdp2 shards parameters but does not run with pipeline "
                   "parallelism or over replicas; none emitted");
        else
            f.push_back("--use-torch-fsdp2");
        warn_other_zero_impl(s, w, {ZeroImpl::fsdp2}, "Megatron-LM with --use-torch-fsdp2", "PyTorch FSDP2");
    }
    if (p.zero >= 1) {
        f.push_back("--overlap-grad-reduce");
        if (p.zero <= 2) f.push_back("--overlap-param-gather");
    }
}

// " a b c": a flag's list of values.
std::string joined_names(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& name : names) out += " " + name;
    return out;
}

void megatron_training_flags(const Scenario& s, Writer& w, std::vector<std::string>& f) {
    const TrainingSpec& t = s.training;
    f.push_back("--micro-batch-size " + n(t.micro_batch));
    f.push_back("--global-batch-size " + n(t.global_batch));
    if (t.recompute == Recompute::selective) {
        f.push_back("--recompute-granularity selective");
        if (!t.fused_kernels)
            w.warn("recompute selective: Megatron-LM re-runs only the attention core; this scenario (no "
                   "fused_kernels) is priced with PyTorch's op-level policy, which re-runs every other matmul");
        else if (!t.recompute_modules.is_default())
            f.push_back("--recompute-modules" + joined_names(recompute_module_names(t.recompute_modules)));
    }
    if (t.recompute == Recompute::full) {
        f.push_back("--recompute-granularity full");
        f.push_back("--recompute-method " + std::string(to_string(t.recompute_method)));
        f.push_back("--recompute-num-layers " + n(t.recompute_num_layers));
    }
    // The grouped experts weigh their tokens in the activation, which is how the fused stack is priced
    // (and what moe_act's recompute needs).
    if (s.model.is_moe() && t.fused_kernels) f.push_back("--moe-grouped-gemm");
    // Flash on the fused stack is priced as cuDNN's fused attention, which Transformer Engine runs on
    // Hopper and Megatron-LM calls "fused"; elsewhere as FlashAttention.
    if (t.attention == AttentionKernel::eager) f.push_back("--attention-backend unfused");
    else f.push_back(t.fused_kernels ? "--attention-backend fused" : "--attention-backend flash");
    switch (t.precision) {
        case Precision::mixed_bf16:
            f.push_back("--bf16");
            w.warn("precision mixed-bf16: under --bf16 Megatron-LM accumulates gradients in fp32 (what precision "
                   "megatron-bf16 prices)");
            break;
        case Precision::megatron_bf16: f.push_back("--bf16"); break;
        case Precision::megatron_fp16: f.push_back("--fp16"); break;
        case Precision::fp8:
            f.push_back("--bf16");
            f.push_back("--fp8-format hybrid");
            // A TransformerConfig field Megatron-LM keeps off its command line (arguments.py lists it
            // among the fields it excludes, at NVIDIA/Megatron-LM d98e8a64dd).
            if (t.activation_func_fp8_input_store)
                w.warn("activation_func_fp8_input_store: no Megatron-LM flag; set TransformerConfig's "
                       "activation_func_fp8_input_store = True where the model's config is built");
            if (fp8_param_gather_on(t)) f.push_back("--fp8-param-gather");
            break;
        case Precision::fp32: break;
    }
    // arguments.py asserts --optimizer-cpu-offload "must be used in conjunction with
    // --use-precision-aware-optimizer" (the hybrid device optimizer reuses its code path).
    if (t.bf16_adam_moments || t.offload == Offload::optimizer) f.push_back("--use-precision-aware-optimizer");
    if (t.bf16_adam_moments) {
        f.push_back("--exp-avg-dtype bf16");
        f.push_back("--exp-avg-sq-dtype bf16");
    }
    if (grad_reduce_in_bf16_on(t)) f.push_back("--grad-reduce-in-bf16");
    if (t.offload == Offload::optimizer) {
        f.push_back("--optimizer-cpu-offload");
        f.push_back("--optimizer-offload-fraction 1.0");
    }
}

FrameworkExport megatron(const Scenario& s, const Layout& l) {
    Writer w("# ");
    w.note("Megatron-LM flags for " + header(s, l));
    w.note("Launch on " + n(l.world) + " GPUs (" + n(s.cluster.nodes) + " nodes x " + n(s.cluster.gpus_per_node) +
           "); data parallel " + n(l.dp) + " follows from the world size. The vocabulary (" + n(s.model.vocab) +
           ") comes from your tokenizer.");
    // megatron/training/arguments.py asserts it for tensor or context parallelism on GPUs before
    // Blackwell (unless an FSDP or MoE overlap asks otherwise, which this export never sets).
    if (s.parallel.tp > 1 || s.parallel.cp > 1)
        w.note("Environment: export CUDA_DEVICE_MAX_CONNECTIONS=1 (Megatron-LM asserts it with tp > 1 or cp > 1 on GPUs "
               "before Blackwell)");
    std::vector<std::string> flags;
    megatron_model_flags(s.model, flags);
    megatron_parallel_flags(s, l, w, flags);
    megatron_training_flags(s, w, flags);
    std::string text;
    for (const std::string& line : w.lines) text += line + "\n";
    for (std::size_t i = 0; i < flags.size(); ++i) text += flags[i] + (i + 1 < flags.size() ? " \\\n" : "\n");
    return {text, w.warnings};
}

// --- TorchTitan ----------------------------------------------------------------------------------
// Two generations of TorchTitan's configuration: today's, where a run is a Python function returning
// a Trainer.Config (torchtitan/config/README.md at the commit below; the TOML job files were removed
// in its config-system refactor), and the job TOML that its releases up to 0.2.2 read
// (torchtitan/config/job_config.py at v0.2.2). tests/frameworks/torchtitan/ keeps the fields of the
// first and loads every Python export against them.

constexpr const char* kTorchTitanCommit = "b5bcd76c66d0acb1a08b176d9639425bc55e0b2a";
constexpr const char* kTorchTitanCommitDate = "2026-08-21";
constexpr const char* kTorchTitanTomlRelease = "0.2.2";

// A TOML basic string: quotes and backslashes escaped, control characters as \uXXXX.
std::string toml_string(std::string_view v) {
    std::string out = "\"";
    char buf[8];
    for (const char c : v) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20 || u == 0x7F) {
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// PyTorch's names (torch.distributed.pipelining.schedules), or "" when it has none for this layout.
std::string torch_pipeline_schedule(const TrainingSpec& t) {
    switch (t.schedule) {
        case Schedule::gpipe: return "GPipe";
        case Schedule::one_f_one_b: return "1F1B";
        case Schedule::interleaved_1f1b: return "Interleaved1F1B";
        case Schedule::zb_h2: return t.virtual_stages > 1 ? "InterleavedZeroBubble" : "";
        default: return "";
    }
}

// A model of TorchTitan's own registry, for the presets that are exactly that model; a model reshaped
// by hand carries "(edited)" in its name and gets none, since no other name is guessed from ours.
struct TitanModel {
    std::string package;  // torchtitan.models.llama3: model_registry here, the base config in .config_registry
    std::string base;     // TorchTitan's own config function of the model ("llama3_405b")
    std::string flavor;   // its registry's flavor ("405B")
    bool deepseek = false;
};

std::optional<TitanModel> torchtitan_model(const ModelSpec& m) {
    for (const char* size : {"8B", "70B", "405B"}) {
        std::string lower = size;
        lower.back() = 'b';
        if (m.name == std::string("Llama 3 ") + size) return TitanModel{"torchtitan.models.llama3", "llama3_" + lower, size};
    }
    if (m.name == "DeepSeek-V3") return TitanModel{"torchtitan.models.deepseek_v3", "deepseek_v3_671b", "671B", true};
    return std::nullopt;
}

// Layers per (virtual) stage: TorchTitan makes ceil((layers + first_less + last_less) / value) stages
// (torchtitan/distributed/pipeline_parallel.py, _get_pipeline_metadata, alike at v0.2.2), which must
// be the pp x virtual_stages this layout runs; the smallest value that gives them, or none.
std::optional<int64_t> torchtitan_layers_per_stage(const Scenario& s) {
    const int64_t units = split_units(s), stages = s.parallel.pp * s.training.virtual_stages;
    for (int64_t per = 1; per <= units; ++per)
        if ((units + per - 1) / per == stages) return per;
    return std::nullopt;
}

// Blocks per pipeline rank as TorchTitan cuts them when no module list is given
// (torchtitan/distributed/pipeline_parallel.py, _generate_llm_fqn_per_model_part, alike at v0.2.2):
// the blocks plus the end stages' weights split evenly over the virtual stages, the remainder to the
// first ones, and virtual stage j on rank j % pp ("loop" style, _get_pp_rank_to_stage_indices_mapping).
std::vector<int64_t> torchtitan_rank_layers(const Scenario& s, int64_t stages) {
    const ParallelSpec& p = s.parallel;
    const int64_t layers = s.model.layers, in = p.embedding_in_pipeline_split ? 1 : 0,
                  out = p.loss_in_pipeline_split ? 1 : 0, units = layers + in + out;
    std::vector<int64_t> per_rank(static_cast<std::size_t>(p.pp), 0);
    int64_t next = 0;
    for (int64_t j = 0; j < stages; ++j) {
        int64_t take = units / stages + (j < units % stages ? 1 : 0);
        if (j == 0) take -= in;
        else if (j == stages - 1) take -= out;
        take = std::clamp<int64_t>(take, 0, layers - next);
        next += take;
        per_rank[static_cast<std::size_t>(j % p.pp)] += take;
    }
    return per_rank;
}

// ["tok_embeddings", "layers.0"]: names of TorchTitan's modules, which need no escaping in TOML or Python.
std::string module_list(const std::vector<std::string>& names) {
    std::string out = "[";
    for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", \"" : "\"") + names[i] + "\"";
    return out + "]";
}

// Where TorchTitan's own cut differs from the blocks per stage that were priced: the modules of each
// virtual stage, named as its LLM decoders name them ("tok_embeddings", "layers.N", "norm",
// "lm_head"), a rank's blocks split over its chunks as evenly as they go; none when its cut agrees.
std::vector<std::vector<std::string>> torchtitan_module_split(const Scenario& s) {
    const ParallelSpec& p = s.parallel;
    // The export names the layers per stage that make pp x v stages; with none that does, it warns
    // and names no modules.
    if (s.training.virtual_stages > 1 && !torchtitan_layers_per_stage(s)) return {};
    const int64_t chunks = s.training.virtual_stages, stages = p.pp * chunks;
    std::vector<int64_t> priced(static_cast<std::size_t>(p.pp));
    for (int64_t r = 0; r < p.pp; ++r) priced[static_cast<std::size_t>(r)] = stage_layers(s.model.layers, p, r).count;
    if (p.pp == 1 || torchtitan_rank_layers(s, stages) == priced) return {};
    std::vector<std::vector<std::string>> parts(static_cast<std::size_t>(stages));
    for (int64_t r = 0; r < p.pp; ++r) {
        const StageLayers held = stage_layers(s.model.layers, p, r);
        int64_t layer = held.first;
        for (int64_t c = 0; c < chunks; ++c) {
            const int64_t take = held.count / chunks + (c < held.count % chunks ? 1 : 0);
            std::vector<std::string>& part = parts[static_cast<std::size_t>(c * p.pp + r)];
            for (int64_t k = 0; k < take; ++k) part.push_back("layers." + n(layer++));
        }
    }
    parts.front().insert(parts.front().begin(), "tok_embeddings");
    parts.back().push_back("norm");
    parts.back().push_back("lm_head");
    return parts;
}

// A field of TorchTitan's [parallelism] / ParallelismConfig: its name and its value as TOML and Python
// both write it (a number, a quoted name, or the module list over several lines).
struct TitanField {
    std::string name;
    std::vector<std::string> value;  // one line, or the lines of a list
    [[nodiscard]] std::vector<std::string> lines(const char* equals) const {
        std::vector<std::string> out{name + equals + value.front()};
        out.insert(out.end(), value.begin() + 1, value.end());
        return out;
    }
};
enum class TitanGeneration { toml, python };

// The pipeline's fields, named alike in both generations but for the micro-batches: 0.2's micro-batch
// size (of local_batch_size), today's count per step (num_pp_microbatches).
std::vector<TitanField> torchtitan_pipeline_fields(const Scenario& s, const Layout& l, TitanGeneration g) {
    const ParallelSpec& p = s.parallel;
    const TrainingSpec& t = s.training;
    std::vector<TitanField> out;
    if (p.pp == 1) return out;
    const std::string schedule = torch_pipeline_schedule(t);
    if (!schedule.empty()) out.push_back({"pipeline_parallel_schedule", {"\"" + schedule + "\""}});
    if (g == TitanGeneration::toml) out.push_back({"pipeline_parallel_microbatch_size", {n(t.micro_batch)}});
    else out.push_back({"num_pp_microbatches", {n(l.microbatches)}});
    if (t.virtual_stages > 1)
        if (const std::optional<int64_t> per = torchtitan_layers_per_stage(s))
            out.push_back({"pipeline_parallel_layers_per_stage", {n(*per)}});
    // TorchTitan's defaults take one layer off each end stage; say what this layout does.
    out.push_back({"pipeline_parallel_first_stage_less_layers", {n(p.embedding_in_pipeline_split ? 1 : 0)}});
    out.push_back({"pipeline_parallel_last_stage_less_layers", {n(p.loss_in_pipeline_split ? 1 : 0)}});
    // One virtual stage a line: the blocks per stage that were priced, where TorchTitan's own cut of
    // the counts above would differ.
    const std::vector<std::vector<std::string>> parts = torchtitan_module_split(s);
    if (!parts.empty()) {
        TitanField modules{"module_fqns_per_model_part", {"["}};
        for (const std::vector<std::string>& part : parts) modules.value.push_back("    " + module_list(part) + ",");
        modules.value.push_back("]");
        out.push_back(std::move(modules));
    }
    return out;
}

// What TorchTitan runs otherwise than priced, the same in both generations.
void torchtitan_warnings(const Scenario& s, Writer& w) {
    const ParallelSpec& p = s.parallel;
    const TrainingSpec& t = s.training;
    if (t.precision == Precision::megatron_fp16) w.warn("precision megatron-fp16: TorchTitan trains in bf16 or fp32, not fp16");
    warn_other_zero_impl(s, w, {ZeroImpl::fsdp2}, "TorchTitan", "PyTorch FSDP2");
    if (p.dp_shard > 1 && p.zero == 1)
        w.warn("zero 1: FSDP2 always shards parameters and gradients too; fsdp_reshard_after_forward = \"never\" (ZeRO-2-like) is the nearest");
    if (p.cp > 1 && p.cp_comm == CpComm::all_gather)
        w.warn("cp_comm all-gather: TorchTitan's context parallelism passes K and V around a ring; the scenario "
               "is priced with an all-gather of them");
    if (p.pp > 1) {
        if (torch_pipeline_schedule(t).empty())
            w.warn("schedule " + std::string(to_string(t.schedule)) +
                   (t.schedule == Schedule::dualpipe ? ": PyTorch's DualPipeV runs the V-shaped variant, not DualPipe; none emitted"
                                                     : ": PyTorch has no equivalent for this layout; none emitted"));
        if (t.virtual_stages > 1 && !torchtitan_layers_per_stage(s))
            w.warn("virtual_stages " + n(t.virtual_stages) + ": no pipeline_parallel_layers_per_stage makes TorchTitan cut " +
                   n(split_units(s)) + " units into " + n(p.pp * t.virtual_stages) +
                   " stages; set module_fqns_per_model_part by hand");
    }
    if (t.recompute == Recompute::selective && t.fused_kernels)
        w.warn("recompute selective: TorchTitan's op-level policy recomputes every other matmul; this scenario "
               "(fused_kernels) is priced with Megatron-LM's selective recompute: " + recompute_text(t));
    if (fp8_activation_input_on(t))
        w.warn("activation_func_fp8_input_store: TorchTitan's float8 keeps the activation's input in bf16");
    if (fp8_param_gather_on(t))
        w.warn("fp8_param_gather: TorchTitan keeps BF16 weights (its float8 enable_fsdp_float8_all_gather casts "
               "them for the gather only); this scenario is priced with 1-byte FP8 weights");
    if (t.recompute == Recompute::full && (t.recompute_method != RecomputeMethod::uniform || t.recompute_num_layers != 1))
        w.warn("recompute_method " + std::string(to_string(t.recompute_method)) + ", recompute_num_layers " +
               n(t.recompute_num_layers) + ": TorchTitan's full checkpointing wraps every block on its own; "
               "the full policy is the nearest (priced here as the scenario says)");
    if (t.bf16_adam_moments)
        w.warn("bf16_adam_moments: TorchTitan's AdamW keeps its moments in the parameters' dtype (fp32); set by hand");
    if (grad_reduce_in_bf16_on(t))
        w.warn("grad_reduce_in_bf16: FSDP2 keeps its sharded gradients in fp32; TorchTitan's reduce dtype "
               "(mixed_precision_reduce) is not set");
    if (t.offload == Offload::optimizer)
        w.warn("offload optimizer: TorchTitan's training.enable_cpu_offload (FSDP2's CPUOffloadPolicy) moves the "
               "parameters and gradients to the host too and is not set; this scenario is priced with the optimizer "
               "alone on the host");
}

std::string model_shape_note(const ModelSpec& m) {
    return n(m.layers) + " layers, hidden " + n(m.hidden) + ", " + n(m.heads) + " heads (" + n(m.kv_heads) +
           " kv), FFN " + n(m.ffn_hidden) + " (" + std::string(to_string(m.ffn)) + "), vocab " + n(m.vocab) +
           (m.rope_theta > 0 ? ", RoPE base " + decimal(m.rope_theta, 0) : "");
}

FrameworkExport torchtitan_toml(const Scenario& s, const Layout& l) {
    const ParallelSpec& p = s.parallel;
    const TrainingSpec& t = s.training;
    Writer w("# ");
    w.note("TorchTitan job config for " + header(s, l));
    w.note(std::string("For TorchTitan releases up to ") + kTorchTitanTomlRelease +
           " (a job TOML, --job.config_file); today's TorchTitan runs a Python config: export --to torchtitan.");
    w.note("Run on " + n(l.world) + " GPUs. The model itself is chosen by [model] name and flavor; the shape priced: " +
           model_shape_note(s.model) + ".");
    std::vector<std::string> body;
    body.push_back("[model]");
    const std::optional<TitanModel> model = torchtitan_model(s.model);
    if (model && !model->deepseek) {
        body.push_back("name = \"llama3\"");
        body.push_back("flavor = \"" + model->flavor + "\"");
    } else {
        body.push_back("# name = \"...\" and flavor = \"...\": the model above in TorchTitan's registry (its Llama 3 "
                       "8B is name = \"llama3\", flavor = \"8B\")");
    }
    if (t.precision == Precision::fp8) body.push_back("converters = [\"float8\"]");
    body.push_back("");
    body.push_back("[training]");
    // TorchTitan 0.2 (torchtitan/train.py) accumulates global_batch_size / (local_batch_size x dp)
    // gradients, and a pipeline splits local_batch_size into micro-batches of
    // pipeline_parallel_microbatch_size. Without a pipeline the local batch is the micro-batch, run
    // once per accumulation step; with one, a step's micro-batches all go through one schedule.
    body.push_back("local_batch_size = " + n(p.pp > 1 ? t.global_batch / l.dp : t.micro_batch));
    body.push_back("global_batch_size = " + n(t.global_batch));
    body.push_back("seq_len = " + n(s.model.seq_len));
    body.push_back(std::string("mixed_precision_param = ") + (t.precision == Precision::fp32 ? "\"float32\"" : "\"bfloat16\""));
    body.push_back("");
    body.push_back("[parallelism]");
    body.push_back("data_parallel_replicate_degree = " + n(l.dp_replicate));
    body.push_back("data_parallel_shard_degree = " + n(p.dp_shard));
    if (p.dp_shard > 1 && p.zero == 2) body.push_back("fsdp_reshard_after_forward = \"never\"");
    body.push_back("tensor_parallel_degree = " + n(p.tp));
    if (p.tp > 1 && !p.sequence_parallel)
        w.warn("sequence_parallel off: TorchTitan 0.2's tensor parallelism always shards norms and dropout over the sequence");
    if (p.tp_comm_overlap) body.push_back("enable_async_tensor_parallel = true");
    body.push_back("context_parallel_degree = " + n(p.cp));
    body.push_back("expert_parallel_degree = " + n(p.ep));
    body.push_back("pipeline_parallel_degree = " + n(p.pp));
    for (const TitanField& f : torchtitan_pipeline_fields(s, l, TitanGeneration::toml))
        for (const std::string& line : f.lines(" = ")) body.push_back(line);
    body.push_back("");
    body.push_back("[activation_checkpoint]");
    body.push_back("mode = " + toml_string(to_string(t.recompute)));
    if (t.recompute == Recompute::selective) body.push_back("selective_ac_option = \"op\"");
    torchtitan_warnings(s, w);
    std::string text;
    for (const std::string& line : w.lines) text += line + "\n";
    text += "\n";
    for (const std::string& line : body) text += line + "\n";
    return {text, w.warnings};
}

// Today's TorchTitan: a module whose function returns the Trainer.Config of the run. apply_layout
// sets what Shardscope priced on any config of the model; shardscope_job starts from TorchTitan's own
// config of it where its registry has the model.
struct PythonConfig {
    std::map<std::string, std::set<std::string>> imports;  // module -> names: one sorted line a module
    std::vector<std::string> layout;                       // apply_layout's body, indented
    void use(const std::string& module, const std::string& name) { imports[module].insert(name); }
    void set(const std::string& line) { layout.push_back("    " + line); }
    [[nodiscard]] std::string import_lines() const {
        std::string out;
        for (const auto& [module, names] : imports) {
            out += "from " + module + " import ";
            bool first = true;
            for (const std::string& name : names) out += (first ? "" : ", ") + name, first = false;
            out += "\n";
        }
        return out;
    }
};

// The batch as TorchTitan counts it, in tokens: one micro-batch per data-parallel rank and forward,
// and the whole step, from which it takes the gradient accumulation (torchtitan/trainer.py); a
// pipeline runs num_pp_microbatches of them per accumulation step, all of this layout's in one.
void python_training(const Scenario& s, PythonConfig& c) {
    const ParallelSpec& p = s.parallel;
    const TrainingSpec& t = s.training;
    const int64_t seq = s.model.seq_len;
    c.set("config.training.num_tokens_per_microbatch_per_dp_rank = " + n(t.micro_batch * seq) + "  # micro-batch " +
          n(t.micro_batch) + " x " + n(seq) + " tokens");
    c.set("config.training.num_tokens_per_train_step = " + n(t.global_batch * seq) + "  # global batch " +
          n(t.global_batch) + " x " + n(seq) + " tokens");
    c.set("config.training.max_context_length = " + n(seq));
    c.set(std::string("config.training.mixed_precision_param = ") + (t.precision == Precision::fp32 ? "\"float32\"" : "\"bfloat16\""));
    // Trainer.Config refuses CUDA graphs with a pipeline, and with expert parallelism over a dispatcher
    // that synchronizes with the host (torchtitan/trainer.py, _validate_cuda_graphs).
    if (p.pp > 1 || p.ep > 1)
        c.set(std::string("config.training.disable_cuda_graphs = True  # TorchTitan's CUDA graphs run no ") +
              (p.pp > 1 ? "pipeline" : "host-synchronizing expert dispatch"));
}

void python_parallelism(const Scenario& s, const Layout& l, PythonConfig& c) {
    const ParallelSpec& p = s.parallel;
    c.use("torchtitan.config", "ParallelismConfig");
    std::vector<std::string> args{"data_parallel_replicate_degree=" + n(l.dp_replicate),
                                  "data_parallel_shard_degree=" + n(p.dp_shard)};
    if (p.dp_shard > 1 && p.zero == 2) args.push_back("fsdp_reshard_after_forward=\"never\"");
    args.push_back("tensor_parallel_degree=" + n(p.tp));
    if (p.tp > 1) args.push_back(std::string("enable_sequence_parallel=") + (p.sequence_parallel ? "True" : "False"));
    args.push_back("context_parallel_degree=" + n(p.cp));
    args.push_back("expert_parallel_degree=" + n(p.ep));
    args.push_back("pipeline_parallel_degree=" + n(p.pp));
    c.set("config.parallelism = ParallelismConfig(");
    for (const std::string& a : args) c.set("    " + a + ",");
    for (const TitanField& f : torchtitan_pipeline_fields(s, l, TitanGeneration::python)) {
        std::vector<std::string> lines = f.lines("=");
        lines.back() += ",";
        for (const std::string& line : lines) c.set("    " + line);
    }
    c.set(")");
}

void python_recompute_and_compile(const Scenario& s, PythonConfig& c) {
    const TrainingSpec& t = s.training;
    switch (t.recompute) {
        case Recompute::none: c.set("config.activation_checkpoint = None"); break;
        case Recompute::selective:
            c.use("torchtitan.distributed.activation_checkpoint", "SelectiveAC");
            c.set("config.activation_checkpoint = SelectiveAC.Config()");
            break;
        case Recompute::full:
            c.use("torchtitan.distributed.activation_checkpoint", "FullAC");
            c.set("config.activation_checkpoint = FullAC.Config()");
            break;
    }
    // torch.compile fuses float8's scaling and casts ("required for competitive performance",
    // torchtitan/components/quantization/float8.md), and async TP is one of its passes.
    if (t.precision == Precision::fp8 || s.parallel.tp_comm_overlap) {
        c.set("config.compile.enable = True");
        c.set("config.compile.components = [\"model\", \"loss\"]");
    }
    if (s.parallel.tp_comm_overlap) c.set("config.compile.enable_async_tensor_parallel = True");
}

// shardscope_job: TorchTitan's own config of the model, its model rebuilt with float8 where the
// scenario trains in FP8 (as its *_float8 configs do) and with the multi-token-prediction modules
// the scenario has, then the layout.
std::vector<std::string> python_job(const Scenario& s, const TitanModel& m, PythonConfig& c, Writer& w) {
    c.use(m.package, "model_registry");
    c.use(m.package + ".config_registry", m.base);
    std::vector<std::string> f{"def shardscope_job() -> Trainer.Config:",
                               "    config = apply_layout(" + m.base + "())"};
    std::vector<std::string> kwargs{"\"" + m.flavor + "\""};
    // TorchTitan's multi-token prediction runs with neither a pipeline nor context parallelism
    // (torchtitan/models/deepseek_v3/mtp.py raises for either).
    const bool mtp = s.model.mtp_layers > 0 && s.parallel.pp == 1 && s.parallel.cp == 1;
    if (s.model.mtp_layers > 0 && !mtp)
        w.warn("mtp_layers " + n(s.model.mtp_layers) + ": TorchTitan's multi-token prediction runs without pipeline or "
               "context parallelism; the model is built without it (the step was priced with it)");
    if (m.deepseek) {
        kwargs.push_back("attn_backend=\"flex\"");
        kwargs.push_back("num_mtp_layers=" + n(mtp ? s.model.mtp_layers : 0));
    }
    if (s.training.precision == Precision::fp8) {
        c.use("torchtitan.components.quantization", "Float8LinearConverter");
        const std::string compiled = "model_compile_enabled=True";
        std::string converters = "converters=[\n            Float8LinearConverter.Config(filter_fqns=[\"lm_head\"" +
                                 std::string(m.deepseek ? ", \"router.gate\"" : "") + "], " + compiled + "),";
        if (m.deepseek) {
            c.use("torchtitan.components.quantization", "Float8GroupedExpertsConverter");
            converters += "\n            Float8GroupedExpertsConverter.Config(" + compiled + "),";
        }
        kwargs.push_back(converters + "\n        ]");
    }
    f.push_back("    config.model_spec = model_registry(");
    for (const std::string& arg : kwargs) f.push_back("        " + arg + ",");
    f.push_back("    )");
    if (m.deepseek && mtp) {
        c.use("torchtitan.models.common.config_utils", "decoder_vocab_size");
        c.use("torchtitan.models.deepseek_v3.mtp", "MTPLoss");
        f.push_back("    config.loss = MTPLoss.Config(global_vocab_size=decoder_vocab_size(config.model_spec))");
    }
    f.push_back("    return config");
    return f;
}

FrameworkExport torchtitan_python(const Scenario& s, const Layout& l) {
    Writer w("# ");
    w.note("TorchTitan config for " + header(s, l));
    w.note(std::string("For TorchTitan at pytorch/torchtitan@") + std::string(kTorchTitanCommit).substr(0, 12) + " (" +
           kTorchTitanCommitDate + "), whose runs are Python configs; for releases up to " + kTorchTitanTomlRelease +
           ", export --to torchtitan-toml.");
    const std::optional<TitanModel> model = torchtitan_model(s.model);
    w.note("Save as shardscope_job.py where Python finds it, then on each of the " + n(s.cluster.nodes) +
           " node(s) (NGPU " + n(s.cluster.gpus_per_node) + ", " + n(l.world) + " GPUs in all): torchrun ... -m torchtitan.train "
           "--module shardscope_job --config " + (model ? "shardscope_job" : "YOUR_JOB") + ".");
    w.note("The shape priced: " + model_shape_note(s.model) + ".");
    if (!model)
        w.note("TorchTitan's registry has no such model: write YOUR_JOB as a function returning your model's "
               "Trainer.Config passed through apply_layout" +
               std::string(s.training.precision == Precision::fp8 ? ", its model_registry given Float8LinearConverter" : "") + ".");
    PythonConfig c;
    c.use("torchtitan.trainer", "Trainer");
    python_training(s, c);
    python_parallelism(s, l, c);
    python_recompute_and_compile(s, c);
    torchtitan_warnings(s, w);
    const std::vector<std::string> job = model ? python_job(s, *model, c, w) : std::vector<std::string>{};
    std::string text;
    for (const std::string& line : w.lines) text += line + "\n";
    text += "\n";
    text += c.import_lines();
    text += "\n\ndef apply_layout(config: Trainer.Config) -> Trainer.Config:\n";
    text += "    \"\"\"Sets the layout Shardscope priced on a TorchTitan config of this model.\"\"\"\n";
    for (const std::string& line : c.layout) text += line + "\n";
    text += "    return config\n";
    if (!job.empty()) {
        text += "\n\n";
        for (const std::string& line : job) text += line + "\n";
    }
    return {text, w.warnings};
}

// --- DeepSpeed -----------------------------------------------------------------------------------

FrameworkExport deepspeed(const Scenario& s, const Layout& l) {
    const ParallelSpec& p = s.parallel;
    const TrainingSpec& t = s.training;
    Writer w("");  // JSON: the warnings go to the caller only
    nlohmann::ordered_json j;
    j["train_batch_size"] = t.global_batch;
    j["train_micro_batch_size_per_gpu"] = t.micro_batch;
    j["gradient_accumulation_steps"] = l.microbatches;
    nlohmann::ordered_json zero = {{"stage", p.zero}};
    if (p.zero >= 1) {
        zero["overlap_comm"] = true;
        zero["contiguous_gradients"] = true;
    }
    if (p.zero == 3 && l.dp_replicate > 1) zero["mics_shard_size"] = p.dp_shard;  // shard in a group, replicate across
    // ZeRO-Offload: the optimizer state and its step on the CPU (pinned buffers for the copies).
    if (t.offload == Offload::optimizer) zero["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
    j["zero_optimization"] = zero;
    warn_other_zero_impl(s, w, {ZeroImpl::deepspeed, ZeroImpl::deepspeed_0_3}, "DeepSpeed", "DeepSpeed's own ZeRO-3");
    switch (t.precision) {
        case Precision::mixed_bf16: j["bf16"] = {{"enabled", true}}; break;
        case Precision::megatron_bf16:
            j["bf16"] = {{"enabled", true}};
            j["data_types"] = {{"grad_accum_dtype", "fp32"}};
            break;
        case Precision::megatron_fp16: j["fp16"] = {{"enabled", true}}; break;
        case Precision::fp8:
            j["bf16"] = {{"enabled", true}};
            w.warn("precision fp8: DeepSpeed's config has no FP8 switch (use Transformer Engine in the model); bf16 set");
            break;
        case Precision::fp32: break;
    }
    j["gradient_clipping"] = 1.0;
    if (p.tp > 1) w.warn("tp " + n(p.tp) + ": set tensor parallelism in the model code (Megatron-DeepSpeed --tensor-model-parallel-size)");
    if (p.pp > 1)
        w.warn("pp " + n(p.pp) + ": set pipeline stages in the model code (deepspeed.pipe.PipelineModule(num_stages=" + n(p.pp) +
               ")); DeepSpeed runs 1F1B");
    // deepspeed/runtime/pipe/engine.py: assert zero_optimization_stage() < 2, "ZeRO-2 and ZeRO-3 are
    // incompatible with pipeline parallelism".
    if (p.pp > 1 && p.zero >= 2)
        w.warn("zero " + n(p.zero) + " with pp " + n(p.pp) +
               ": DeepSpeed's pipeline engine refuses ZeRO-2 and ZeRO-3 (\"incompatible with pipeline parallelism\"); "
               "use zero 1 with pipelines");
    if (p.cp > 1) w.warn("cp " + n(p.cp) + ": DeepSpeed splits the sequence with Ulysses in the model code; set it there");
    if (p.ep > 1) w.warn("ep " + n(p.ep) + ": set ep_size=" + n(p.ep) + " on deepspeed.moe.layer.MoE in the model code");
    if (p.zero == 1 && l.dp_replicate > 1 && p.dp_shard > 1)
        w.warn("dp_replicate " + n(l.dp_replicate) + ": DeepSpeed's ZeRO-1/2 shard over every data-parallel rank, not within groups");
    if (t.bf16_adam_moments) w.warn("bf16_adam_moments: DeepSpeed's Adam keeps fp32 moments under bf16; not set");
    if (grad_reduce_in_bf16_on(t))
        w.warn("grad_reduce_in_bf16: DeepSpeed's communication_data_type is not set (its fp32 gradient copy stays)");
    if (t.recompute != Recompute::none)
        w.warn("recompute " + std::string(to_string(t.recompute)) +
               ": activation checkpointing is switched in the model code (deepspeed.checkpointing)");
    return {j.dump(2) + "\n", w.warnings};
}

// --- nccl-tests ----------------------------------------------------------------------------------

std::string nccl_command(const DimCost& d, const CollectiveCall& c) {
    const double bytes = std::max(8.0, std::round(c.message_bytes));
    if (c.op == Collective::p2p) {
        SweepSpec spec;
        spec.min_bytes = spec.max_bytes = bytes;
        spec.gpus = 1;
        std::string cmd = sweep_command_line(spec, true);
        cmd.replace(0, cmd.find(' '), "sendrecv_perf");
        return "mpirun -np 2 " + cmd;  // a stage sends to the next one: two ranks
    }
    SweepSpec spec;
    spec.op = c.op;
    spec.min_bytes = spec.max_bytes = bytes;
    spec.gpus = 1;  // one GPU per MPI rank
    return "mpirun -np " + n(d.size) + " " + sweep_command_line(spec, true);
}

FrameworkExport nccl_tests(const Scenario& s, const Layout& l) {
    Writer w("# ");
    w.note("nccl-tests commands for " + header(s, l));
    w.note("Each times one collective at the message size the layout sends per call (nccl-tests' sizes: all-gather");
    w.note("the gathered output, reduce-scatter the full input), on as many ranks as the dim's groups, placed as they");
    w.note("are: run each with the ranks on the nodes the group spans. Build nccl-tests with MPI=1.");
    const Report r = build_report(s);
    std::vector<std::string> body;
    for (const DimCost& d : r.dims) {
        if (d.calls.empty()) continue;
        body.push_back("");
        body.push_back("# " + d.name + " x" + n(d.size) + " (" + d.link + "): " + d.collective);
        for (const CollectiveCall& c : d.calls) {
            body.push_back("#   " + std::string(to_string(c.op)) + " of " + format_bytes(c.message_bytes) + ", " +
                           decimal(c.calls_per_step, 0) + (c.calls_per_step == 1 ? " call" : " calls") + " per step");
            body.push_back(nccl_command(d, c));
        }
    }
    if (body.empty()) w.note("No dim of this layout communicates: nothing to time.");
    std::string text;
    for (const std::string& line : w.lines) text += line + "\n";
    for (const std::string& line : body) text += line + "\n";
    return {text, w.warnings};
}

const std::vector<ExportTarget> kTargets = {ExportTarget::megatron, ExportTarget::torchtitan,
                                            ExportTarget::torchtitan_toml, ExportTarget::deepspeed,
                                            ExportTarget::nccl_tests};

}  // namespace

std::string_view to_string(ExportTarget t) noexcept {
    switch (t) {
        case ExportTarget::megatron: return "megatron";
        case ExportTarget::torchtitan: return "torchtitan";
        case ExportTarget::torchtitan_toml: return "torchtitan-toml";
        case ExportTarget::deepspeed: return "deepspeed";
        case ExportTarget::nccl_tests: return "nccl-tests";
    }
    return "megatron";
}

std::optional<ExportTarget> export_target_from_string(std::string_view s) noexcept {
    for (ExportTarget t : kTargets)
        if (to_string(t) == s) return t;
    return std::nullopt;
}

const std::vector<ExportTarget>& export_targets() { return kTargets; }

FrameworkExport export_scenario(const Scenario& s, ExportTarget target) {
    // Megatron-LM's flags and TorchTitan's job describe the model's shape; a bare parameter count has
    // none to give (it would be written as --num-layers 0).
    const bool titan = target == ExportTarget::torchtitan || target == ExportTarget::torchtitan_toml;
    if (!s.model.has_architecture() && (target == ExportTarget::megatron || titan)) {
        FrameworkExport refused;
        refused.refused = "model: given only as a parameter count (model.params); " +
                          std::string(target == ExportTarget::megatron ? "Megatron-LM's flags" : "TorchTitan's config") +
                          " need its shape (layers, hidden, ffn_hidden, heads, kv_heads, vocab)";
        return refused;
    }
    const Layout l = layout_of(s);
    switch (target) {
        case ExportTarget::megatron: return megatron(s, l);
        case ExportTarget::torchtitan: return torchtitan_python(s, l);
        case ExportTarget::torchtitan_toml: return torchtitan_toml(s, l);
        case ExportTarget::deepspeed: return deepspeed(s, l);
        case ExportTarget::nccl_tests: return nccl_tests(s, l);
    }
    return {};
}

}  // namespace shardscope
