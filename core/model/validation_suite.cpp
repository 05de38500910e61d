#include "core/model/validation_suite.hpp"

#include "core/model/cost_model.hpp"
#include "core/model/hardware.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <tuple>

namespace shardscope {
namespace {

// A preset cluster with as many nodes as the row's GPUs fill.
ClusterSpec sized(ClusterSpec c, int64_t gpus) {
    c.nodes = gpus / c.gpus_per_node;
    return c;
}

// GPT as Narayanan et al. 2021 train it: gelu FFN of 4h, multi-head attention, seq 2048, V 51,200.
// Selene (Narayanan et al. 2021, section 5): DGX A100 80GB nodes, 8 HDR InfiniBand NICs each: the
// shipped DGX A100 preset.
PublishedRun megatron_row(const ClusterSpec& a100, double billions, int64_t heads, int64_t hidden, int64_t layers,
                          int64_t t, int64_t p, int64_t gpus, int64_t batch, double tflops, double percent) {
    Scenario s;
    char name[96];
    std::snprintf(name, sizeof name, "GPT %.1fB  t%lld p%lld", billions, static_cast<long long>(t),
                  static_cast<long long>(p));
    s.model.name = name;
    s.model.layers = layers;
    s.model.hidden = hidden;
    s.model.ffn_hidden = 4 * hidden;
    s.model.heads = heads;
    s.model.kv_heads = heads;
    s.model.vocab = 51200;
    s.model.seq_len = 2048;
    s.model.ffn = Ffn::gelu;
    s.cluster = sized(a100, gpus);
    s.parallel = ParallelSpec{};
    s.parallel.tp = t;
    s.parallel.pp = p;
    s.parallel.dp_replicate = gpus / (t * p);
    s.parallel.zero = 0;
    s.parallel.sequence_parallel = false;  // SP came in 2022 (Korthikanti et al.)
    s.training.global_batch = batch;
    s.training.micro_batch = 1;            // not in Table 1; the paper's default
    s.training.schedule = Schedule::one_f_one_b;
    s.training.recompute = Recompute::full;
    // "All of our results are run with mixed precision" (section 5): 2021's Megatron-LM trained fp16
    // with fp32 master weights and Adam state.
    s.training.precision = Precision::megatron_fp16;
    // 2021: no FlashAttention yet; Megatron-LM ran a fused scale-mask-softmax on materialised scores,
    // and apex's fused layer norm and bias-GeLU.
    s.training.attention = AttentionKernel::eager;
    s.training.fused_kernels = true;
    PublishedRun r;
    r.source = "Narayanan et al. 2021, Table 1";
    r.in_sample = true;
    r.name = name;
    r.scenario = s;
    r.published_tflops_per_gpu = tflops;
    r.published_fraction_of_peak = percent / 100.0;
    r.convention = FlopConvention::megatron_eq3;
    return r;
}

// Meta's Grand Teton servers (section 3.3.1): 8 H100 SXM on NVLink, one 400 Gb/s RoCE NIC per GPU:
// the shipped DGX H100 preset's links.
PublishedRun llama3_row(const ClusterSpec& h100, int64_t gpus, int64_t cp, int64_t dp, int64_t seq,
                        int64_t batch_per_dp, double tflops, double mfu_percent) {
    Scenario s;
    s.model.name = "Llama 3 405B";
    s.model.layers = 126;
    s.model.hidden = 16384;
    s.model.ffn_hidden = 53248;
    s.model.heads = 128;
    s.model.kv_heads = 8;
    s.model.vocab = 128256;
    s.model.seq_len = seq;
    s.model.ffn = Ffn::swiglu;
    s.cluster = sized(h100, gpus);
    s.parallel = ParallelSpec{};
    s.parallel.tp = 8;
    s.parallel.cp = cp;
    s.parallel.pp = 16;
    s.parallel.dp_shard = dp;
    s.parallel.zero = 2;  // section 3.3.2: weights stay gathered after the forward
    s.parallel.sequence_parallel = true;
    // Section 3.3.2: 126 layers as 128 one-layer chunks, 8 per pipeline rank, the first holding only
    // the embedding and the last only the output layer and the loss.
    s.parallel.embedding_in_pipeline_split = true;
    s.parallel.loss_in_pipeline_split = true;
    // Section 3.3.2: "an all-gather based method where we first all-gather the key (K) and value (V)
    // tensors ... Although the all-gather communication latency is exposed in the critical path".
    s.parallel.cp_comm = CpComm::all_gather;
    s.training.global_batch = batch_per_dp * dp;
    s.training.micro_batch = 1;
    s.training.schedule = Schedule::interleaved_1f1b;
    s.training.virtual_stages = 8;
    s.training.recompute = Recompute::none;
    s.training.attention = AttentionKernel::flash;
    s.training.precision = Precision::mixed_bf16;
    PublishedRun r;
    r.source = "Llama 3 Team 2024, Table 4";
    r.in_sample = true;
    char name[96];
    std::snprintf(name, sizeof name, "Llama 3 405B  cp%lld dp%lld s%lldk", static_cast<long long>(cp),
                  static_cast<long long>(dp), static_cast<long long>(seq / 1024));
    r.name = name;
    r.scenario = s;
    r.published_tflops_per_gpu = tflops;
    r.published_fraction_of_peak = mfu_percent / 100.0;
    r.convention = FlopConvention::model_flops;
    return r;
}

// A Llama-family model (SwiGLU, GQA, untied embeddings).
ModelSpec llama(const char* name, int64_t layers, int64_t hidden, int64_t ffn, int64_t heads, int64_t kv_heads,
                int64_t vocab, int64_t seq) {
    ModelSpec m;
    m.name = name;
    m.layers = layers;
    m.hidden = hidden;
    m.ffn_hidden = ffn;
    m.heads = heads;
    m.kv_heads = kv_heads;
    m.vocab = vocab;
    m.seq_len = seq;
    m.ffn = Ffn::swiglu;
    return m;
}

// A GPT-3-family model as Megatron-LM trains it: gelu FFN of 4h, multi-head attention, vocab 51,200.
ModelSpec gpt(const char* name, int64_t layers, int64_t hidden, int64_t heads, int64_t seq) {
    ModelSpec m = llama(name, layers, hidden, 4 * hidden, heads, heads, 51200, seq);
    m.ffn = Ffn::gelu;
    return m;
}

// DeepSeek-V3's shape as its report and Hugging Face config give it (the DeepSeek-V3 preset's).
ModelSpec deepseek_v3() {
    ModelSpec m = llama("DeepSeek-V3", 61, 7168, 18432, 128, 128, 129280, 4096);
    m.attention_type = AttentionType::mla;
    m.q_lora_rank = 1536;
    m.kv_lora_rank = 512;
    m.qk_rope_head_dim = 64;
    m.qk_nope_head_dim = 128;
    m.v_head_dim = 128;
    m.experts = 256;
    m.top_k = 8;
    m.expert_ffn_hidden = 2048;
    m.shared_experts = 1;
    m.dense_layers = 3;
    m.expert_groups = 8;  // node-limited routing: at most 4 nodes a token (the report, section 2.1.2)
    m.expert_groups_per_token = 4;
    m.mtp_layers = 1;     // MTP depth D = 1, trained with the model (section 4.2)
    return m;
}

// A row published as tokens per second per GPU (or as a step time, converted): its TFLOP/s are
// counted with our model_per_step, so the error is the throughput's error whatever the source's own
// FLOP formula.
PublishedRun tokens_row(const char* source, const std::string& name, const Scenario& s, double tokens_per_s_per_gpu) {
    PublishedRun r;
    r.source = source;
    r.name = name;
    r.scenario = s;
    const Report rep = build_report(s);
    const double tokens = static_cast<double>(s.training.global_batch) * static_cast<double>(s.model.seq_len);
    const double flops_per_token = rep.model_flops_per_step.value_or(0) / tokens;
    r.published_tflops_per_gpu = tokens_per_s_per_gpu * flops_per_token / 1e12;
    r.published_fraction_of_peak = r.published_tflops_per_gpu / s.cluster.gpu.peak_tflops;
    r.convention = FlopConvention::model_flops;
    return r;
}

Scenario on(const ClusterSpec& c, int64_t gpus, const ModelSpec& m) {
    Scenario s;
    s.model = m;
    s.cluster = sized(c, gpus);
    s.parallel = ParallelSpec{};
    s.training = TrainingSpec{};
    return s;
}

// Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models",
// arXiv:2205.05198), Table 5: iteration time with selective recompute and sequence parallelism on
// A100 80GB, data-parallel size one; configurations as its Table 3 (transcribed in the calculon
// project's validation files): seq 2048, micro-batch 1 except 22B's 4, fp16 mixed precision,
// Megatron-LM's fused softmax (no FlashAttention in 2022).
PublishedRun korthikanti_row(const ClusterSpec& a100, const char* name, int64_t layers, int64_t hidden,
                             int64_t heads, int64_t tp, int64_t pp, int64_t v, int64_t batch, int64_t micro,
                             double step_s) {
    const int64_t gpus = tp * pp;
    Scenario s = on(a100, std::max<int64_t>(gpus, 8), gpt(name, layers, hidden, heads, 2048));
    s.cluster.nodes = std::max<int64_t>(1, gpus / 8);
    s.cluster.gpus_per_node = std::min<int64_t>(8, gpus);
    s.parallel.tp = tp;
    s.parallel.pp = pp;
    s.parallel.sequence_parallel = true;
    s.training.global_batch = batch;
    s.training.micro_batch = micro;
    s.training.schedule = v > 1 ? Schedule::interleaved_1f1b : Schedule::one_f_one_b;
    s.training.virtual_stages = v;
    s.training.recompute = Recompute::selective;
    s.training.attention = AttentionKernel::eager;
    s.training.fused_kernels = true;
    s.training.precision = Precision::megatron_fp16;
    const double tokens_per_s_per_gpu = static_cast<double>(batch) * 2048.0 / (step_s * static_cast<double>(gpus));
    return tokens_row("Korthikanti et al. 2022, Table 5", std::string(name) + "  t" + std::to_string(tp) + " p" +
                                                              std::to_string(pp),
                      s, tokens_per_s_per_gpu);
}

// torchtitan's published A100 figures (pytorch/torchtitan docs/performance.md): Llama 2 and 3 on 64
// A100 80GB with FSDP2 (ZeRO-3 over all 64), bf16, PyTorch SDPA (FlashAttention-2); `local_batch`
// sequences of the model's own length per GPU.
PublishedRun torchtitan_a100_row(const ClusterSpec& a100, const ModelSpec& m, Recompute rc, int64_t local_batch,
                                 double tokens) {
    Scenario s = on(a100, 64, m);
    s.parallel.dp_shard = 64;
    s.parallel.zero = 3;
    s.training.global_batch = 64 * local_batch;
    s.training.micro_batch = local_batch;
    s.training.recompute = rc;
    const char* ac = rc == Recompute::full ? "full AC" : rc == Recompute::selective ? "sel. AC" : "no AC";
    return tokens_row("torchtitan docs/performance.md (A100)",
                      m.name + "  FSDP64 " + ac + (local_batch > 1 ? " b" + std::to_string(local_batch) : ""), s,
                      tokens);
}

}  // namespace

double megatron_eq3_flops(const Scenario& s) noexcept {
    const double B = static_cast<double>(s.training.global_batch);
    const double sq = static_cast<double>(s.model.seq_len);
    const double l = static_cast<double>(s.model.layers);
    const double h = static_cast<double>(s.model.hidden);
    const double V = static_cast<double>(s.model.vocab);
    return 96.0 * B * sq * l * h * h * (1.0 + sq / (6.0 * h) + V / (16.0 * l * h));
}

std::vector<PublishedRun> published_runs(const ValidationClusters& clusters) {
    const ClusterSpec& a = clusters.a100_80gb;
    const ClusterSpec& h = clusters.h100;
    // Narayanan et al. 2021, Table 1: params (B), heads, hidden, layers, t, p, GPUs, batch,
    // achieved TFLOP/s per GPU, % of theoretical peak.
    std::vector<PublishedRun> runs = {
        megatron_row(a, 1.7, 24, 2304, 24, 1, 1, 32, 512, 137, 44),
        megatron_row(a, 3.6, 32, 3072, 30, 2, 1, 64, 512, 138, 44),
        megatron_row(a, 7.5, 32, 4096, 36, 4, 1, 128, 512, 142, 46),
        megatron_row(a, 18.4, 48, 6144, 40, 8, 1, 256, 1024, 135, 43),
        megatron_row(a, 39.1, 64, 8192, 48, 8, 2, 512, 1536, 138, 44),
        megatron_row(a, 76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140, 45),
        megatron_row(a, 145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148, 47),
        megatron_row(a, 310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155, 50),
        megatron_row(a, 529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163, 52),
        megatron_row(a, 1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163, 52),
    };
    // Llama 3 Team 2024, Table 4: GPUs, CP, DP, sequence, batch size per DP, TFLOP/s per GPU, BF16 MFU.
    runs.push_back(llama3_row(h, 8192, 1, 64, 8192, 32, 430, 43));
    runs.push_back(llama3_row(h, 16384, 1, 128, 8192, 16, 400, 41));
    runs.push_back(llama3_row(h, 16384, 16, 8, 131072, 16, 380, 38));

    // Out-of-sample rows, added after the model's constants were fixed and priced as they came.
    runs.push_back(korthikanti_row(a, "GPT 22B", 48, 6144, 64, 8, 1, 1, 4, 4, 1.10));
    runs.push_back(korthikanti_row(a, "GPT 175B", 96, 12288, 96, 8, 8, 1, 64, 1, 13.75));
    runs.push_back(korthikanti_row(a, "GPT 530B", 105, 20480, 128, 8, 35, 3, 280, 1, 37.83));
    runs.push_back(korthikanti_row(a, "GPT 1T", 128, 25600, 160, 8, 64, 1, 512, 1, 71.49));
    // Selective-op AC (2,973 tok/s/GPU, 58.2% MFU) and full AC for 70B (331 tok/s/GPU, 51.7%).
    runs.push_back(torchtitan_a100_row(a, llama("Llama 3 8B", 32, 4096, 14336, 32, 8, 128256, 8192),
                                       Recompute::selective, 1, 2973));
    runs.push_back(torchtitan_a100_row(a, llama("Llama 3 70B", 80, 8192, 28672, 64, 8, 128256, 8192),
                                       Recompute::full, 1, 331));
    {
        // IBM's fms-fsdp (foundation-model-stack/fms-fsdp README; PyTorch blog "Maximizing training
        // throughput using PyTorch FSDP", 2024): Llama 2 7B on 128 A100, HSDP (shards in a node,
        // replicas across), batch 2 per GPU, seq 4096, no activation checkpointing, SDPA flash:
        // 3,760 tokens/s/GPU. Its trainer wraps the model in FSDP1 (torch.distributed.fsdp's
        // FullyShardedDataParallel with HYBRID_SHARD).
        Scenario s = on(a, 128, llama("Llama 2 7B", 32, 4096, 11008, 32, 32, 32000, 4096));
        s.parallel.dp_shard = 8;
        s.parallel.dp_replicate = 16;
        s.parallel.zero = 3;
        s.parallel.zero_impl = ZeroImpl::fsdp1;
        s.training.global_batch = 256;
        s.training.micro_batch = 2;
        runs.push_back(tokens_row("fms-fsdp README (A100)", "Llama 2 7B  HSDP 8x16", s, 3760));
    }
    // NVIDIA NeMo performance summary (docs/source/performance/performance_summary.md, NeMo 24.07):
    // Megatron-Core on DGX H100 in FP8, micro-batch 1, distributed optimizer (ZeRO-1), sequence
    // parallelism with TP, cuDNN flash attention, no recompute (its recommended configs).
    const auto nemo = [&](const ModelSpec& m, int64_t gpus, int64_t tp, int64_t pp, int64_t cp, int64_t v,
                          int64_t batch, double tokens, int64_t micro = 1) {
        Scenario s = on(h, gpus, m);
        s.training.micro_batch = micro;
        s.parallel.tp = tp;
        s.parallel.pp = pp;
        s.parallel.cp = cp;
        s.parallel.dp_shard = gpus / (tp * pp * cp);
        s.parallel.zero = s.parallel.dp_shard > 1 ? 1 : 0;
        s.parallel.sequence_parallel = tp > 1;
        s.training.global_batch = batch;
        s.training.schedule = v > 1 ? Schedule::interleaved_1f1b : Schedule::one_f_one_b;
        s.training.virtual_stages = v;
        s.training.precision = Precision::fp8;
        s.training.fused_kernels = true;  // Transformer Engine
        // NeMo's FP8 recipe keeps the weights in FP8 (nemo/collections/llm/recipes/precision/
        // mixed_precision.py, bf16_with_fp8_mixed: fp8_params = True, later spelled fp8_param_gather),
        // which Megatron-LM allows with its distributed optimizer.
        s.training.fp8_param_gather = s.parallel.zero >= 1;
        char name[96];
        std::snprintf(name, sizeof name, "%s  t%lld p%lld c%lld fp8", m.name.c_str(), static_cast<long long>(tp),
                      static_cast<long long>(pp), static_cast<long long>(cp));
        return tokens_row("NeMo 24.07 performance summary (H100, FP8)", name, s, tokens);
    };
    runs.push_back(nemo(llama("Llama 3 8B", 32, 4096, 14336, 32, 8, 128256, 8192), 8, 1, 1, 2, 1, 128, 12036));
    runs.push_back(nemo(llama("Llama 3 70B", 80, 8192, 28672, 64, 8, 128256, 8192), 64, 4, 4, 2, 5, 128, 1533));
    runs.push_back(nemo(gpt("GPT-3 175B", 96, 12288, 96, 2048), 128, 4, 8, 1, 6, 256, 726));
    // The same table's other dense rows, added after the constants were fixed and priced as they came
    // (its micro-batch where it is not 1). NeMo's GPT-3 configs: 5B 24 layers of 4096 in 32 heads, 20B
    // 44 of 6144 in 48; Llama 2 (Touvron et al. 2023, Table 1 and the released configs): 7B 32 layers
    // of 4096 (FFN 11008, 32 heads), 13B 40 of 5120 (13824, 40 heads), 70B 80 of 8192 (28672, 64
    // heads, 8 KV heads), vocab 32,000, sequence 4096. Nemotron-4 340B (its technical report,
    // arXiv:2406.11704): 96 layers of 18432, 96 heads, 8 KV heads, squared-ReLU FFN of 73728, vocab
    // 256,000, untied; its tokens/s convert to the table's 678 TFLOP/s with our FLOP count. The
    // table's Nemotron 8B and 22B are left out: no published config found converts to its TFLOP/s.
    {
        const auto micro_row = [&](const ModelSpec& m, int64_t gpus, int64_t tp, int64_t pp, int64_t v,
                                   int64_t batch, double tokens, int64_t micro) {
            PublishedRun r = nemo(m, gpus, tp, pp, 1, v, batch, tokens, micro);
            if (micro > 1) r.name += " b" + std::to_string(micro);
            r.scenario.model.name = r.name;
            r.in_sample = false;
            return r;
        };
        runs.push_back(micro_row(gpt("GPT-3 5B", 24, 4096, 32, 2048), 64, 1, 1, 1, 2048, 22521, 4));
        runs.push_back(micro_row(gpt("GPT-3 20B", 44, 6144, 48, 2048), 64, 2, 1, 1, 256, 5851, 2));
        runs.push_back(micro_row(gpt("GPT-3 175B", 96, 12288, 96, 2048), 512, 4, 8, 6, 2048, 782, 2));
        runs.push_back(micro_row(llama("Llama 2 7B", 32, 4096, 11008, 32, 32, 32000, 4096), 8, 1, 1, 1, 128, 16847, 1));
        runs.push_back(micro_row(llama("Llama 2 13B", 40, 5120, 13824, 40, 40, 32000, 4096), 16, 1, 4, 10, 128, 8646, 1));
        runs.push_back(micro_row(llama("Llama 2 70B", 80, 8192, 28672, 64, 8, 32000, 4096), 64, 4, 4, 20, 128, 1707, 1));
        ModelSpec nemotron = llama("Nemotron-4 340B", 96, 18432, 73728, 96, 8, 256000, 4096);
        nemotron.ffn = Ffn::squared_relu;
        runs.push_back(micro_row(nemotron, 128, 8, 8, 12, 32, 322, 1));
    }
    {
        // DeepSeek-AI, "DeepSeek-V3 Technical Report" (arXiv:2412.19437): 14.8T tokens of pre-training
        // in 2,664K H800 GPU hours (Table 1) = 1,543 tokens/s/GPU; 2,048 H800s in nodes of 8 (section
        // 3.1), PP 16, EP 64 over 8 nodes, ZeRO-1 data parallel, DualPipe, no TP (section 3.2); FP8
        // GEMMs (section 3.3); batch 15,360 sequences of 4,096 tokens for most of the run (section 4.2).
        // Its shape as the DeepSeek-V3 preset gives it, multi-head latent attention included. The links
        // are the H800 preset's: NVLink 160 GB/s, one 48 GB/s NIC per GPU.
        ClusterSpec h800 = sized(h, 2048);
        h800.name = "H800 SXM, 8 per node";
        h800.gpu.name = "H800 SXM";
        h800.intra_node.bandwidth_gbps = 160;
        Scenario s;
        s.model = deepseek_v3();
        s.cluster = h800;
        s.parallel.pp = 16;
        // The last stage holds the MTP module beside the output head: it counts as a layer there, as
        // Megatron-LM's pipeline-layout guide splits this stack (61 layers and one MTP layer on PP16,
        // docs/user-guide/features/pipeline_parallel_layout.md): 3 layers with the embedding, 4 on each
        // middle stage, 2 and the MTP module with the head.
        s.parallel.first_stage_layers = 3;
        s.parallel.last_stage_layers = 2;
        s.parallel.dp_shard = 128;
        s.parallel.ep = 64;
        s.parallel.zero = 1;
        s.training.global_batch = 15360;
        s.training.schedule = Schedule::dualpipe;
        s.training.precision = Precision::fp8;
        s.training.fused_kernels = true;
        // Its memory savings as the report states them: every RMSNorm and MLA up-projection recomputed
        // in the backward (section 3.2.3); the MoE SwiGLU's inputs cached in FP8 and its output
        // recomputed, AdamW's moments in BF16 (section 3.3.3). The attention core is not recomputed.
        s.training.recompute = Recompute::selective;
        s.training.recompute_modules = RecomputeModules{false, true, true, true};
        s.training.activation_func_fp8_input_store = true;
        s.training.bf16_adam_moments = true;
        runs.push_back(tokens_row("DeepSeek-V3 report, Table 1 (H800, FP8)", "DeepSeek-V3  p16 e64 dualpipe", s,
                                  14.8e12 / (2664e3 * 3600.0)));
    }
    // Smith et al. 2022, "Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B"
    // (arXiv:2201.11990), section 2.4: 105 layers of hidden 20480, 128 heads, batch 1920 of 2048
    // tokens, TP 8 inside a DGX A100 node and PP 35, on 280, 350 and 420 nodes: 60.1, 50.2 and 44.4 s
    // an iteration, 126, 121 and 113 TFLOP/s per GPU (the same FLOP formula as Narayanan et al., which
    // the iteration times reproduce). Not in the section, so as the 2021 Megatron-LM rows: micro-batch
    // 1, full recompute, fp16 mixed precision, fused kernels, no flash attention; its tokenizer's
    // 50,257 tokens padded to 51,200. Added after the constants were fixed, priced as it came.
    for (const auto& [nodes, tflops] : {std::pair{280, 126.0}, std::pair{350, 121.0}, std::pair{420, 113.0}}) {
        PublishedRun r = megatron_row(a, 529.6, 128, 20480, 105, 8, 35, nodes * 8, 1920, tflops, tflops / 3.12);
        r.source = "Smith et al. 2022 (MT-NLG 530B), section 2.4";
        r.in_sample = false;
        r.name = "MT-NLG 530B  t8 p35 " + std::to_string(nodes) + " nodes";
        r.scenario.model.name = r.name;
        runs.push_back(std::move(r));
    }
    // The same torchtitan page's Llama 2 table (seq 4096, local batch 2): 13B without activation
    // checkpointing (2,162 tokens/s/GPU) and 70B with full checkpointing (353). Its "selective layer"
    // (every second block fully recomputed) has no counterpart here. Added after the constants were
    // fixed, priced as they came.
    const ModelSpec llama2_13b = llama("Llama 2 13B", 40, 5120, 13824, 40, 40, 32000, 4096);
    const ModelSpec llama2_70b = llama("Llama 2 70B", 80, 8192, 28672, 64, 8, 32000, 4096);
    runs.push_back(torchtitan_a100_row(a, llama2_13b, Recompute::none, 2, 2162));
    runs.push_back(torchtitan_a100_row(a, llama2_70b, Recompute::full, 2, 353));
    // Its "selective op" rows, once selective recompute on the PyTorch stack followed torchtitan's
    // op-level policy (op_recompute.hpp; the mechanism read from torchtitan's code after the 8B row
    // above came out 22% high, no constant chosen): 13B at local batch 2 (1,904) and 70B at local
    // batch 1 (355).
    runs.push_back(torchtitan_a100_row(a, llama2_13b, Recompute::selective, 2, 1904));
    runs.push_back(torchtitan_a100_row(a, llama2_70b, Recompute::selective, 1, 355));
    {
        // NVIDIA NeMo AutoModel's performance summary (DGX-H100, BF16): DeepSeek V3 on 256 H100s at
        // 1,002 tokens/s/GPU. Its benchmark config (NVIDIA-NeMo/Automodel,
        // examples/benchmark/configs/deepseek_v3_te_deepep.yaml): PP 4 interleaved at 2 layers a
        // chunk (8 chunks a stage), EP 64 inside FSDP2 over the 64 data-parallel ranks with
        // reshard_after_forward off (ZeRO-2 here), full activation checkpointing, local batch 8 of
        // 4,096 tokens in micro-batches of 1 (global batch 512), balanced routing. Priced on the
        // PyTorch stack, whose FSDP2 copies it pays; its attention ran Transformer Engine's kernel,
        // which this stack prices as SDPA's slower one. The same table's 1,024-GPU row runs its 4
        // accumulation steps as 4 pipeline flushes, which a scenario cannot say, and is left out.
        // Added after the constants were fixed, priced as it came.
        Scenario s = on(h, 256, deepseek_v3());
        // AutoModel's DeepSeek V3 builds no multi-token prediction module, as Hugging Face's does not.
        s.model.mtp_layers = 0;
        s.parallel.pp = 4;
        s.parallel.dp_shard = 64;
        s.parallel.ep = 64;
        s.parallel.zero = 2;
        s.training.global_batch = 512;
        s.training.schedule = Schedule::interleaved_1f1b;
        s.training.virtual_stages = 8;
        s.training.recompute = Recompute::full;
        runs.push_back(tokens_row("NeMo AutoModel performance summary (H100, BF16)", "DeepSeek-V3  p4 v8 e64 FSDP64", s, 1002));
    }
    // Narayanan et al. 2021, Table 2 ("Comparison to ZeRO-3"): GPT 175B and 530B with ZeRO-3 and no
    // model parallelism, "integrated ... using the DeepSpeed Python library", on the same Selene nodes,
    // at a fixed global batch: GPUs, global batch, micro-batch, TFLOP/s per GPU (eq. 3). One
    // micro-batch a step in every row. Priced as they came: ZeRO-3 as DeepSpeed's release of the time
    // (0.3, April 2021) issued it (core/model/zero3.hpp), FP16 as 2021's Megatron-LM rows above.
    for (const auto& [billions, gpus, batch, micro, tflops] :
         {std::tuple{174.6, 384, 1536, 4, 144.0}, std::tuple{174.6, 768, 1536, 2, 88.0}, std::tuple{174.6, 1536, 1536, 1, 44.0},
          std::tuple{529.6, 640, 2560, 4, 138.0}, std::tuple{529.6, 1120, 2240, 2, 98.0},
          std::tuple{529.6, 2240, 2240, 1, 48.0}}) {
        const bool big = billions > 500;
        PublishedRun r = megatron_row(a, billions, big ? 128 : 96, big ? 20480 : 12288, big ? 105 : 96, 1, 1, gpus,
                                      batch, tflops, tflops / 3.12);
        r.source = "Narayanan et al. 2021, Table 2 (ZeRO-3, DeepSpeed)";
        r.in_sample = false;
        char name[96];
        std::snprintf(name, sizeof name, "GPT %.0fB  ZeRO-3 dp%d b%d", billions, gpus, micro);
        r.name = name;
        r.scenario.model.name = name;
        r.scenario.parallel.dp_replicate = 1;
        r.scenario.parallel.dp_shard = gpus;
        r.scenario.parallel.zero = 3;
        r.scenario.parallel.zero_impl = ZeroImpl::deepspeed_0_3;
        r.scenario.training.micro_batch = micro;
        runs.push_back(std::move(r));
    }
    // torchtitan's H100 benchmark (pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md,
    // Tables 1 and 3): Llama 3.1 8B with FSDP (FSDP2) over 8 and 128 GPUs, local batch 2, selective
    // (op) activation checkpointing, eager (the rows without torch.compile), bf16, on Meta's H100s of
    // 96 GB HBM2e at 500 W; peak memory 82.4 and 67.0 GiB. The sequence (8,192) is the 8B config's at
    // the benchmark's commit. Memory rows only (their throughput is not set beside ours); read while
    // the loss's memory was counted.
    for (const auto& [gpus, gib] : {std::pair{8, 82.4}, std::pair{128, 67.0}}) {
        ClusterSpec c = h;
        c.gpu.name = "H100 SXM 96GB";
        c.gpu.memory_gb = 96;
        Scenario s = on(c, gpus, llama("Llama 3.1 8B", 32, 4096, 14336, 32, 8, 128256, 8192));
        s.parallel.dp_shard = gpus;
        s.parallel.zero = 3;
        s.training.global_batch = 2 * gpus;
        s.training.micro_batch = 2;
        s.training.recompute = Recompute::selective;
        PublishedRun r;
        r.source = "torchtitan llama3_h100_202412 benchmark (H100 96GB, memory)";
        r.in_sample = true;
        r.name = "Llama 3.1 8B  FSDP" + std::to_string(gpus) + " b2 sel. AC";
        r.scenario = s;
        r.measured_peak_gib = gib;
        runs.push_back(std::move(r));
    }
    return runs;
}

ValidationRow predict(const PublishedRun& run) {
    ValidationRow row;
    row.run = run;
    const Report r = build_report(run.scenario);
    row.fits = r.fits;
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    row.predicted_peak_gib = (r.memory.total() - runtime_reserve_bytes(run.scenario.cluster.gpu, 0.0)) / kGiB;
    row.step_s = r.time.step.value_or(0);
    if (row.step_s <= 0) return row;
    const double world = static_cast<double>(r.world_size);
    const double flops = run.convention == FlopConvention::megatron_eq3 ? megatron_eq3_flops(run.scenario)
                                                                        : r.model_flops_per_step.value_or(0);
    row.predicted_tflops_per_gpu = flops / (row.step_s * world) / 1e12;
    row.predicted_fraction_of_peak = row.predicted_tflops_per_gpu / run.scenario.cluster.gpu.peak_tflops;
    return row;
}

std::vector<ValidationRow> run_validation_suite(const ValidationClusters& clusters) {
    std::vector<ValidationRow> rows;
    for (const PublishedRun& run : published_runs(clusters)) rows.push_back(predict(run));
    return rows;
}

bool ValidationRow::throughput_within() const noexcept {
    return run.has_throughput() && fits && std::fabs(tflops_error()) <= run.tolerance;
}

bool ValidationRow::memory_within() const noexcept {
    return run.measured_peak_gib && fits && std::fabs(memory_error()) <= run.memory_tolerance;
}

namespace {

std::string section_header(const PublishedRun& run, bool memory) {
    const char* what = memory ? " (the allocator's peak, GiB: the total less the runtime's fixed reserve)"
                       : run.convention == FlopConvention::megatron_eq3 ? " (TFLOP/s by eq. 3, recompute counted; % of peak)"
                                                                         : " (model TFLOP/s; BF16 MFU)";
    return "-- " + run.source + what +
           (run.in_sample ? " [in-sample: read while choosing the model]" : " [out-of-sample: priced as it came]") + "\n";
}

void throughput_table(std::ostringstream& os, const std::vector<ValidationRow>& rows) {
    char line[256];
    std::snprintf(line, sizeof line, "%-32s %6s  %9s %9s %7s  %7s %7s %7s  %s\n", "run", "GPUs", "pub TF/s",
                  "pred TF/s", "error", "pub %pk", "pred", "error", "fits");
    os << line;
    std::string source;
    const ValidationRow* worst = nullptr;
    int counted = 0, within = 0, out = 0, out_within = 0, fitting = 0;
    for (const ValidationRow& r : rows) {
        if (!r.run.has_throughput()) continue;
        if (r.run.source != source) os << section_header(r.run, false);
        source = r.run.source;
        std::snprintf(line, sizeof line, "%-32s %6lld  %9.1f %9.1f %+6.1f%%  %6.1f%% %6.1f%% %+6.1f%%  %s\n",
                      r.run.name.c_str(), static_cast<long long>(r.run.scenario.cluster.gpu_count()),
                      r.run.published_tflops_per_gpu, r.predicted_tflops_per_gpu, r.tflops_error() * 100.0,
                      r.run.published_fraction_of_peak * 100.0, r.predicted_fraction_of_peak * 100.0,
                      r.fraction_error() * 100.0, r.fits ? "yes" : "no");
        os << line;
        if (!worst || std::fabs(r.tflops_error()) > std::fabs(worst->tflops_error())) worst = &r;
        ++counted;
        within += r.throughput_within() ? 1 : 0;
        fitting += r.fits ? 1 : 0;
        out += r.run.in_sample ? 0 : 1;
        out_within += (!r.run.in_sample && r.throughput_within()) ? 1 : 0;
    }
    if (!worst) return;
    std::snprintf(line, sizeof line,
                  "%d of %d rows within their tolerance and fitting (out-of-sample: %d of %d); %d of %d fit; "
                  "largest miss: %s, %+.1f%%\n",
                  within, counted, out_within, out, fitting, counted, worst->run.name.c_str(),
                  worst->tflops_error() * 100.0);
    os << line;
}

void memory_table(std::ostringstream& os, const std::vector<ValidationRow>& rows) {
    char line[256];
    std::string source;
    int counted = 0, within = 0;
    for (const ValidationRow& r : rows) {
        if (!r.run.measured_peak_gib) continue;
        if (counted == 0) {
            std::snprintf(line, sizeof line, "\n%-32s %6s  %9s %9s %7s  %9s  %s\n", "measured memory", "GPUs",
                          "pub GiB", "pred GiB", "error", "card GiB", "fits");
            os << line;
        }
        if (r.run.source != source) os << section_header(r.run, true);
        source = r.run.source;
        std::snprintf(line, sizeof line, "%-32s %6lld  %9.1f %9.1f %+6.1f%%  %9.1f  %s\n", r.run.name.c_str(),
                      static_cast<long long>(r.run.scenario.cluster.gpu_count()), *r.run.measured_peak_gib,
                      r.predicted_peak_gib, r.memory_error() * 100.0, r.run.scenario.cluster.gpu.memory_gb,
                      r.fits ? "yes" : "no");
        os << line;
        ++counted;
        within += r.memory_within() ? 1 : 0;
    }
    if (counted == 0) return;
    std::snprintf(line, sizeof line, "%d of %d measured peaks within their tolerance and fitting\n", within, counted);
    os << line;
}

}  // namespace

std::string validation_table_text(const std::vector<ValidationRow>& rows) {
    std::ostringstream os;
    throughput_table(os, rows);
    memory_table(os, rows);
    return os.str();
}

std::string validation_table_json(const std::vector<ValidationRow>& rows) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const ValidationRow& r : rows) {
        nlohmann::ordered_json j;
        j["source"] = r.run.source;
        j["in_sample"] = r.run.in_sample;
        j["tolerance"] = r.run.tolerance;
        j["name"] = r.run.name;
        j["gpus"] = r.run.scenario.cluster.gpu_count();
        j["published_tflops_per_gpu"] = r.run.published_tflops_per_gpu;
        j["predicted_tflops_per_gpu"] = r.predicted_tflops_per_gpu;
        j["tflops_error"] = r.tflops_error();
        j["published_fraction_of_peak"] = r.run.published_fraction_of_peak;
        j["predicted_fraction_of_peak"] = r.predicted_fraction_of_peak;
        j["fraction_error"] = r.fraction_error();
        j["step_s"] = r.step_s;
        j["fits"] = r.fits;
        j["within_tolerance"] = r.run.has_throughput() ? nlohmann::ordered_json(r.throughput_within()) : nullptr;
        if (r.run.measured_peak_gib) {
            j["measured_peak_gib"] = *r.run.measured_peak_gib;
            j["predicted_peak_gib"] = r.predicted_peak_gib;
            j["memory_error"] = r.memory_error();
            j["memory_within_tolerance"] = r.memory_within();
        }
        out.push_back(std::move(j));
    }
    return out.dump(2) + "\n";
}

}  // namespace shardscope
