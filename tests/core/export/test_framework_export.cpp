// Export to the frameworks: the flags and keys a layout becomes, checked against the layout by hand,
// and the layouts a framework cannot run said aloud rather than given a wrong flag.
#include "core/export/framework_export.hpp"
#include "core/scenario/units.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

using namespace shardscope;

namespace {

bool has_line(const std::string& text, const std::string& line) {
    return ("\n" + text).find("\n" + line + "\n") != std::string::npos ||
           ("\n" + text).find("\n" + line + " \\\n") != std::string::npos;
}

bool mentions(const std::vector<std::string>& warnings, const std::string& part) {
    for (const std::string& w : warnings)
        if (w.find(part) != std::string::npos) return true;
    return false;
}

// The default scenario (Llama 3 8B on 64 H100s): tp 2, pp 2, dp_shard 8, dp_replicate 2, zero 3.
Scenario interleaved_moe() {
    Scenario s = default_scenario();
    s.model.name = "small MoE";
    s.model.experts = 8;
    s.model.top_k = 2;
    s.model.expert_ffn_hidden = 14336;
    s.parallel.zero = 1;
    s.parallel.ep = 2;
    s.parallel.cp = 2;
    s.parallel.dp_shard = 4;
    s.training.schedule = Schedule::interleaved_1f1b;
    s.training.virtual_stages = 4;  // 32 layers / (pp 2 x 4) = 4 a chunk
    s.training.recompute = Recompute::full;
    s.training.precision = Precision::megatron_bf16;
    return s;
}

}  // namespace

TEST_CASE("Megatron-LM: every degree, the batch, GQA and the Llama block as flags") {
    REQUIRE(validate_scenario(interleaved_moe()).empty());
    const FrameworkExport e = export_scenario(interleaved_moe(), ExportTarget::megatron);
    for (const char* line : {"--tensor-model-parallel-size 2", "--pipeline-model-parallel-size 2", "--context-parallel-size 2",
                             "--expert-model-parallel-size 2", "--sequence-parallel", "--use-distributed-optimizer",
                             "--num-distributed-optimizer-instances 2", "--num-layers-per-virtual-pipeline-stage 4",
                             "--micro-batch-size 1", "--global-batch-size 256", "--recompute-granularity full",
                             "--recompute-method uniform", "--recompute-num-layers 1", "--num-layers 32",
                             "--hidden-size 4096", "--num-attention-heads 32", "--group-query-attention",
                             "--num-query-groups 8", "--swiglu", "--num-experts 8", "--moe-router-topk 2",
                             "--moe-ffn-hidden-size 14336", "--bf16", "--attention-backend flash"})
        CHECK_MESSAGE(has_line(e.text, line), line);
    // The last flag closes the command: no continuation after it.
    CHECK(e.text.substr(e.text.size() - 7) == "--bf16\n");
    CHECK(e.warnings.empty());
}

TEST_CASE("Megatron-LM: a squared-ReLU model is a Nemotron block, not a Llama one") {
    Scenario s = default_scenario();
    s.model.ffn = Ffn::squared_relu;
    const FrameworkExport e = export_scenario(s, ExportTarget::megatron);
    for (const char* line : {"--squared-relu", "--position-embedding-type rope", "--disable-bias-linear"})
        CHECK_MESSAGE(has_line(e.text, line), line);
    // LayerNorm is Megatron-LM's default; SwiGLU and RMSNorm belong to the Llama block.
    CHECK_FALSE(has_line(e.text, "--swiglu"));
    CHECK_FALSE(has_line(e.text, "--normalization RMSNorm"));
    // TorchTitan has no such model: the shape note says which MLP was priced.
    CHECK(export_scenario(s, ExportTarget::torchtitan).text.find("FFN 14336 (squared-relu)") != std::string::npos);
}

TEST_CASE("bf16 gradient reduction: Megatron-LM's flag, and a warning where the others cannot say it") {
    Scenario s = default_scenario();
    s.training.precision = Precision::megatron_bf16;
    s.training.grad_reduce_in_bf16 = true;
    CHECK(has_line(export_scenario(s, ExportTarget::megatron).text, "--grad-reduce-in-bf16"));
    CHECK(mentions(export_scenario(s, ExportTarget::torchtitan).warnings, "grad_reduce_in_bf16: FSDP2 keeps"));
    CHECK(mentions(export_scenario(s, ExportTarget::deepspeed).warnings, "grad_reduce_in_bf16: DeepSpeed's"));
    // Under mixed-bf16 (2-byte gradients already) the flag does not apply and is not written.
    s.training.precision = Precision::mixed_bf16;
    CHECK_FALSE(has_line(export_scenario(s, ExportTarget::megatron).text, "--grad-reduce-in-bf16"));
}

TEST_CASE("Megatron-LM: the RoPE base goes with rotary positions, and only when the model states one") {
    // Llama 3's base is 500,000 (its paper's table 3); Megatron-LM's default is 10,000.
    Scenario s = default_scenario();
    REQUIRE(s.model.rope_theta == 500000);
    std::string text = export_scenario(s, ExportTarget::megatron).text;
    CHECK(has_line(text, "--rotary-base 500000"));
    CHECK(text.find("--position-embedding-type rope \\\n--rotary-base 500000") != std::string::npos);
    s.model.rope_theta = 0;  // not stated: Megatron-LM's own default stands
    CHECK(export_scenario(s, ExportTarget::megatron).text.find("--rotary-base") == std::string::npos);
    // A GPT block has learned positions: no base to pass.
    s.model.ffn = Ffn::gelu;
    s.model.rope_theta = 10000;
    CHECK(export_scenario(s, ExportTarget::megatron).text.find("--rotary-base") == std::string::npos);
}

TEST_CASE("Megatron-LM: a schedule it has no flag for is a warning and no flag") {
    Scenario s = default_scenario();
    s.training.schedule = Schedule::zb_h1;
    const FrameworkExport e = export_scenario(s, ExportTarget::megatron);
    CHECK(mentions(e.warnings, "schedule zb-h1: Megatron-LM has no equivalent"));
    CHECK(e.text.find("# NOTE: schedule zb-h1") != std::string::npos);
    CHECK(e.text.find("virtual-pipeline") == std::string::npos);
    // ZeRO-3 with pipeline parallelism: FSDP2 in Megatron does not run with PP.
    CHECK(mentions(e.warnings, "zero 3"));
    CHECK_FALSE(has_line(e.text, "--use-torch-fsdp2"));  // named in the note only
}

TEST_CASE("TorchTitan 0.2.2's TOML: the degrees under [parallelism], PyTorch's schedule names, the batch per rank") {
    const FrameworkExport e = export_scenario(interleaved_moe(), ExportTarget::torchtitan_toml);
    // dp = dp_shard 4 x dp_replicate 2 = 8: local batch 256 / 8 = 32.
    for (const char* line : {"[parallelism]", "data_parallel_replicate_degree = 2", "data_parallel_shard_degree = 4",
                             "tensor_parallel_degree = 2", "context_parallel_degree = 2", "expert_parallel_degree = 2",
                             "pipeline_parallel_degree = 2", "pipeline_parallel_schedule = \"Interleaved1F1B\"",
                             "pipeline_parallel_layers_per_stage = 4", "local_batch_size = 32", "global_batch_size = 256",
                             "seq_len = 8192", "mode = \"full\""})
        CHECK_MESSAGE(has_line(e.text, line), line);
    CHECK(mentions(e.warnings, "zero 1: FSDP2 always shards parameters"));
    // Not a model of TorchTitan's registry: the [model] keys are left for the person, with an example.
    CHECK(e.text.find("\nname = ") == std::string::npos);
    // Llama 3 70B is one: TorchTitan's own name and flavor; reshaped by hand, it no longer is.
    Scenario llama = default_scenario();
    llama.model.name = "Llama 3 70B";
    const FrameworkExport named = export_scenario(llama, ExportTarget::torchtitan_toml);
    CHECK(has_line(named.text, "name = \"llama3\""));
    CHECK(has_line(named.text, "flavor = \"70B\""));
    llama.model.name = "Llama 3 70B (edited)";
    CHECK(export_scenario(llama, ExportTarget::torchtitan_toml).text.find("flavor = \"70B\"") == std::string::npos);
}

TEST_CASE("TorchTitan's Python config: the commit it is for, ParallelismConfig's degrees, tokens per step") {
    Scenario s = interleaved_moe();
    s.parallel.sequence_parallel = false;
    REQUIRE(validate_scenario(s).empty());
    const FrameworkExport e = export_scenario(s, ExportTarget::torchtitan);
    CHECK(e.text.find("\n# For TorchTitan at pytorch/torchtitan@b5bcd76c66d0 (2026-08-21), whose runs are Python configs") !=
          std::string::npos);
    // dp = 4 x 2 = 8; 256 sequences of 8192 tokens: 32 micro-batches of one a pipeline per step.
    for (const char* line : {"from torchtitan.config import ParallelismConfig", "def apply_layout(config: Trainer.Config) -> Trainer.Config:",
                             "    config.training.num_tokens_per_microbatch_per_dp_rank = 8192  # micro-batch 1 x 8192 tokens",
                             "    config.training.num_tokens_per_train_step = 2097152  # global batch 256 x 8192 tokens",
                             "        data_parallel_replicate_degree=2,", "        data_parallel_shard_degree=4,",
                             "        tensor_parallel_degree=2,", "        enable_sequence_parallel=False,",
                             "        context_parallel_degree=2,", "        expert_parallel_degree=2,",
                             "        pipeline_parallel_schedule=\"Interleaved1F1B\",", "        num_pp_microbatches=32,",
                             "        pipeline_parallel_layers_per_stage=4,", "    config.activation_checkpoint = FullAC.Config()",
                             "    config.training.disable_cuda_graphs = True  # TorchTitan's CUDA graphs run no pipeline"})
        CHECK_MESSAGE(has_line(e.text, line), line);
    // Today's TorchTitan has the switch: no note that sequence parallelism is forced on.
    CHECK_FALSE(mentions(e.warnings, "sequence_parallel"));
    CHECK(mentions(export_scenario(s, ExportTarget::torchtitan_toml).warnings, "sequence_parallel off"));
    // Not a model of TorchTitan's registry: the layout alone, no job function.
    CHECK(e.text.find("def shardscope_job") == std::string::npos);
    Scenario llama = default_scenario();
    llama.model.name = "Llama 3 70B";
    const std::string named = export_scenario(llama, ExportTarget::torchtitan).text;
    CHECK(has_line(named, "from torchtitan.models.llama3.config_registry import llama3_70b"));
    CHECK(has_line(named, "    config = apply_layout(llama3_70b())"));
}

TEST_CASE("TorchTitan 0.2.2's TOML without a pipeline: the local batch is the micro-batch, accumulated up to the global batch") {
    // TorchTitan accumulates global / (local x dp) gradients: dp 32 (16 x 2), global 256, micro-batch 1
    // is local 1 with 8 accumulation steps; local 8 (256 / 32) would run micro-batches of 8.
    Scenario s = default_scenario();
    s.parallel.pp = 1;
    s.parallel.dp_shard = 16;
    s.parallel.dp_replicate = 2;
    s.training.schedule = Schedule::one_f_one_b;
    REQUIRE(validate_scenario(s).empty());
    const FrameworkExport e = export_scenario(s, ExportTarget::torchtitan_toml);
    CHECK(has_line(e.text, "local_batch_size = 1"));
    CHECK(has_line(e.text, "global_batch_size = 256"));
    s.training.micro_batch = 2;
    REQUIRE(validate_scenario(s).empty());
    CHECK(has_line(export_scenario(s, ExportTarget::torchtitan_toml).text, "local_batch_size = 2"));
}

TEST_CASE("DeepSpeed: batch, micro-batch and accumulation multiply out; ZeRO stage and precision as keys") {
    Scenario s = default_scenario();  // dp 16, global 256, mb 1: 16 micro-batches per step
    const FrameworkExport e = export_scenario(s, ExportTarget::deepspeed);
    const auto j = nlohmann::json::parse(e.text);
    CHECK(j["train_batch_size"] == 256);
    CHECK(j["train_micro_batch_size_per_gpu"] == 1);
    CHECK(j["gradient_accumulation_steps"] == 16);
    CHECK(j["train_batch_size"].get<int>() ==
          j["train_micro_batch_size_per_gpu"].get<int>() * j["gradient_accumulation_steps"].get<int>() * 16);
    CHECK(j["zero_optimization"]["stage"] == 3);
    CHECK(j["zero_optimization"]["mics_shard_size"] == 8);  // shard in a group of 8, replicate across 2
    CHECK(j["bf16"]["enabled"] == true);
    CHECK(mentions(e.warnings, "tp 2: set tensor parallelism in the model code"));
    CHECK(mentions(e.warnings, "pp 2: set pipeline stages in the model code"));
}

TEST_CASE("DeepSpeed: ZeRO-2 or 3 with a pipeline is named as the config DeepSpeed refuses") {
    Scenario s = default_scenario();  // zero 3, pp 2
    REQUIRE(s.parallel.pp == 2);
    REQUIRE(s.parallel.zero == 3);
    CHECK(mentions(export_scenario(s, ExportTarget::deepspeed).warnings,
                   "zero 3 with pp 2: DeepSpeed's pipeline engine refuses ZeRO-2 and ZeRO-3"));
    s.parallel.zero = 1;
    REQUIRE(validate_scenario(s) == "");
    CHECK_FALSE(mentions(export_scenario(s, ExportTarget::deepspeed).warnings, "pipeline engine refuses"));
}

TEST_CASE("nccl-tests: one command per collective a dim makes, at the message it sends per call") {
    const FrameworkExport e = export_scenario(default_scenario(), ExportTarget::nccl_tests);
    // TP with SP: all-gather and reduce-scatter of one micro-batch's activation, 8192 x 4096 x 2 bytes = 64 MiB,
    // on the 2 ranks of a TP group.
    CHECK(has_line(e.text, "mpirun -np 2 all_gather_perf -b 64M -e 64M -f 2 -n 20 -w 5 -g 1"));
    CHECK(has_line(e.text, "mpirun -np 2 reduce_scatter_perf -b 64M -e 64M -f 2 -n 20 -w 5 -g 1"));
    // PP: the same activation split over TP (32 MiB), sent and received once per micro-batch each way.
    CHECK(has_line(e.text, "mpirun -np 2 sendrecv_perf -b 32M -e 32M -f 2 -n 20 -w 5 -g 1"));
    CHECK(e.text.find("mpirun -np 8 all_gather_perf") != std::string::npos);  // the dp_shard group of 8
    CHECK(e.text.find("mpirun -np 2 all_reduce_perf") != std::string::npos);  // HSDP's 2 replicas

    // No data parallelism (tp 2 x pp 2 on 4 GPUs, no ZeRO): nothing to all-reduce, so no one-rank command.
    Scenario alone = default_scenario();
    alone.cluster.nodes = 1;
    alone.cluster.gpus_per_node = 4;
    alone.parallel.dp_shard = alone.parallel.dp_replicate = 1;
    alone.parallel.zero = 0;
    REQUIRE(validate_scenario(alone) == "");
    const FrameworkExport single = export_scenario(alone, ExportTarget::nccl_tests);
    CHECK(single.text.find("all_reduce_perf") == std::string::npos);
    CHECK(single.text.find("-np 1 ") == std::string::npos);
    CHECK(has_line(single.text, "mpirun -np 2 sendrecv_perf -b 32M -e 32M -f 2 -n 20 -w 5 -g 1"));
}

TEST_CASE("Export targets are named as the command line spells them") {
    CHECK(export_target_from_string("nccl-tests") == ExportTarget::nccl_tests);
    CHECK(export_target_from_string("megatron") == ExportTarget::megatron);
    CHECK_FALSE(export_target_from_string("jax").has_value());
    for (ExportTarget t : export_targets()) CHECK(export_target_from_string(to_string(t)) == t);
}

TEST_CASE("selective recompute: each export warns where the framework means something else than what was priced") {
    Scenario s = interleaved_moe();
    s.training.recompute = Recompute::selective;
    REQUIRE(validate_scenario(s).empty());
    // The PyTorch stack (priced as torchtitan's op-level policy): Megatron-LM would re-run less.
    CHECK(mentions(export_scenario(s, ExportTarget::megatron).warnings, "Megatron-LM re-runs only the attention core"));
    CHECK_FALSE(mentions(export_scenario(s, ExportTarget::torchtitan_toml).warnings, "recompute selective"));
    // The fused stack (priced as Megatron's attention-core recompute): TorchTitan would re-run more.
    s.training.fused_kernels = true;
    CHECK_FALSE(mentions(export_scenario(s, ExportTarget::megatron).warnings, "recompute selective"));
    CHECK(mentions(export_scenario(s, ExportTarget::torchtitan_toml).warnings, "TorchTitan's op-level policy"));
}

TEST_CASE("Megatron-LM: sequence parallelism is a flag only with tensor parallelism to split over") {
    Scenario s = default_scenario();  // tp 2, sequence_parallel on
    CHECK(has_line(export_scenario(s, ExportTarget::megatron).text, "--sequence-parallel"));
    s.parallel.tp = 1;
    s.parallel.dp_shard = 16;
    REQUIRE(validate_scenario(s).empty());
    REQUIRE(s.parallel.sequence_parallel);
    CHECK_FALSE(has_line(export_scenario(s, ExportTarget::megatron).text, "--sequence-parallel"));
}

TEST_CASE("Megatron-LM: recompute modules and bf16 moments as its flags; FP8 activation inputs as the config field it keeps off its command line") {
    Scenario s = interleaved_moe();
    s.training.recompute = Recompute::selective;
    s.training.fused_kernels = true;
    s.training.precision = Precision::fp8;
    REQUIRE(validate_scenario(s).empty());
    // The default module (the attention core) needs no flag; the grouped experts do.
    std::string text = export_scenario(s, ExportTarget::megatron).text;
    CHECK(has_line(text, "--recompute-granularity selective"));
    CHECK(text.find("--recompute-modules") == std::string::npos);
    CHECK(has_line(text, "--moe-grouped-gemm"));
    s.training.recompute_modules = RecomputeModules{false, true, false, true};
    s.training.activation_func_fp8_input_store = true;
    s.training.bf16_adam_moments = true;
    CHECK(text.find("--fp8-param-gather") == std::string::npos);
    s.training.fp8_param_gather = true;
    REQUIRE(validate_scenario(s).empty());
    text = export_scenario(s, ExportTarget::megatron).text;
    CHECK(has_line(text, "--fp8-param-gather"));
    CHECK(has_line(text, "--recompute-modules layernorm moe_act"));
    // arguments.py excludes TransformerConfig's activation_func_fp8_input_store from its flags.
    CHECK(text.find("--activation-func-fp8-input-store") == std::string::npos);
    CHECK(mentions(export_scenario(s, ExportTarget::megatron).warnings,
                   "set TransformerConfig's activation_func_fp8_input_store = True"));
    CHECK(has_line(text, "--use-precision-aware-optimizer"));
    CHECK(has_line(text, "--exp-avg-dtype bf16"));
    CHECK(has_line(text, "--exp-avg-sq-dtype bf16"));
    // TorchTitan and DeepSpeed have no such switches: said, not written.
    const FrameworkExport titan = export_scenario(s, ExportTarget::torchtitan_toml);
    CHECK(mentions(titan.warnings, "selective (layernorm, moe_act)"));
    CHECK(mentions(titan.warnings, "fp8_param_gather: TorchTitan keeps BF16 weights"));
    CHECK(mentions(titan.warnings, "bf16_adam_moments"));
    CHECK(mentions(export_scenario(s, ExportTarget::deepspeed).warnings, "bf16_adam_moments"));
}

TEST_CASE("Megatron-LM: a split its flags cannot give is written as --pipeline-model-parallel-layout") {
    Scenario s = default_scenario();  // Llama 3 8B, 32 layers, pp 2
    s.parallel.pp = 4;
    s.parallel.dp_shard = 4;
    s.model.layers = 30;  // 30 on 4 stages: the two end stages take 7, the middle two 8
    REQUIRE(validate_scenario(s).empty());
    const FrameworkExport e = export_scenario(s, ExportTarget::megatron);
    CHECK(has_line(e.text, "--pipeline-model-parallel-layout \"Et*7|t*8|t*8|t*7L\""));
    // TorchTitan would cut 30 as 8, 8, 7, 7 (the remainder to the first stages): both of its
    // configs name each stage's modules instead.
    for (const ExportTarget t : {ExportTarget::torchtitan, ExportTarget::torchtitan_toml}) {
        const std::string text = export_scenario(s, t).text;
        CAPTURE(text);
        const std::size_t list = text.find("module_fqns_per_model_part");
        REQUIRE(list != std::string::npos);
        CHECK(text.find("[\"tok_embeddings\", \"layers.0\", \"layers.1\", \"layers.2\", \"layers.3\", \"layers.4\", "
                        "\"layers.5\", \"layers.6\"],", list) != std::string::npos);
        CHECK(text.find("[\"layers.7\", \"layers.8\", \"layers.9\", \"layers.10\", \"layers.11\", \"layers.12\", "
                        "\"layers.13\", \"layers.14\"],", list) != std::string::npos);
        CHECK(text.find("[\"layers.23\", \"layers.24\", \"layers.25\", \"layers.26\", \"layers.27\", \"layers.28\", "
                        "\"layers.29\", \"norm\", \"lm_head\"],", list) != std::string::npos);
    }
    // An even split needs no flag at all.
    s.model.layers = 32;
    CHECK(export_scenario(s, ExportTarget::megatron).text.find("--pipeline-model-parallel-layout") == std::string::npos);
    // Llama 3 405B's 126 layers with the embedding and the loss as chunks of their own, 8 a stage:
    // Megatron-LM's own flags, one unit a virtual stage.
    s.model.layers = 126;
    s.parallel.pp = 16;
    s.parallel.dp_shard = 4;
    s.cluster.nodes = 32;
    s.parallel.embedding_in_pipeline_split = true;
    s.parallel.loss_in_pipeline_split = true;
    s.training.schedule = Schedule::interleaved_1f1b;
    s.training.virtual_stages = 8;
    s.training.global_batch = 64 * 4 * 2;
    REQUIRE(validate_scenario(s).empty());
    const std::string text = export_scenario(s, ExportTarget::megatron).text;
    CHECK(has_line(text, "--num-layers-per-virtual-pipeline-stage 1"));
    CHECK(has_line(text, "--account-for-embedding-in-pipeline-split"));
    CHECK(text.find("--pipeline-model-parallel-layout") == std::string::npos);
}

TEST_CASE("Megatron-LM: the attention backend is the kernel that was priced") {
    Scenario s = default_scenario();
    CHECK(has_line(export_scenario(s, ExportTarget::megatron).text, "--attention-backend flash"));
    s.training.fused_kernels = true;  // Transformer Engine on Hopper: cuDNN's fused attention
    CHECK(has_line(export_scenario(s, ExportTarget::megatron).text, "--attention-backend fused"));
    s.training.attention = AttentionKernel::eager;
    CHECK(has_line(export_scenario(s, ExportTarget::megatron).text, "--attention-backend unfused"));
}

namespace {

// Names a share link or a Hugging Face folder can bring: line breaks of every kind, shell syntax,
// quotes, backslashes, a terminal escape and bytes that are not UTF-8.
const std::vector<std::string>& hostile_names() {
    static const std::vector<std::string> names = {
        "evil\ntouch INJECTED",
        "evil\r\ntouch INJECTED",
        "evil\rtouch INJECTED",
        "$(touch INJECTED)",
        "`touch INJECTED`",
        "a\"b'c\\\"; touch INJECTED; echo \"",
        "evil\xe2\x80\xa8touch INJECTED",  // U+2028, a line separator to Python and JavaScript
        "evil\x1b]0;touch INJECTED\x07",    // a terminal's title escape
        "evil\xff\xfe\x0btouch INJECTED",   // not UTF-8, then a vertical tab
        "evil\x0ctouch INJECTED",           // form feed: a line break to Python's tokenizer
    };
    return names;
}

bool valid_utf8_without_controls(const std::string& line) {
    return printable_line(line) == [&] {
        // printable_line changes nothing in a line that is UTF-8 and holds no control character but
        // for its backslashes, which it doubles.
        std::string doubled;
        for (char c : line) doubled += c == '\\' ? std::string("\\\\") : std::string(1, c);
        return doubled;
    }();
}

}  // namespace

TEST_CASE("printable_line: every line break, control character and bad byte becomes a visible escape") {
    CHECK(printable_line("Llama 3 8B") == "Llama 3 8B");
    CHECK(printable_line("a\nb") == "a\\nb");
    CHECK(printable_line("a\r\nb") == "a\\r\\nb");
    CHECK(printable_line("tab\there") == "tab\\there");
    CHECK(printable_line("esc\x1b[2J") == "esc\\x1b[2J");
    CHECK(printable_line("del\x7f") == "del\\x7f");
    CHECK(printable_line("nul" + std::string(1, '\0') + "x") == "nul\\x00x");
    CHECK(printable_line("back\\slash") == "back\\\\slash");
    CHECK(printable_line("\xe2\x80\xa8 \xe2\x80\xa9") == "\\u2028 \\u2029");
    CHECK(printable_line("c1 \xc2\x85") == "c1 \\x85");                     // NEL, U+0085
    CHECK(printable_line("\xff") == "\xef\xbf\xbd");                        // not UTF-8: U+FFFD
    CHECK(printable_line("\xc0\xaf") == "\xef\xbf\xbd\xef\xbf\xbd");        // an overlong '/'
    CHECK(printable_line("\xed\xa0\x80") == "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate
    CHECK(printable_line("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80") == "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80");
}

TEST_CASE("a hostile model, cluster or GPU name never leaves a comment line in any export") {
    for (const std::string& name : hostile_names()) {
        for (const ExportTarget target : export_targets()) {
            for (int field = 0; field < 3; ++field) {
                Scenario s = default_scenario();
                (field == 0 ? s.model.name : field == 1 ? s.cluster.name : s.cluster.gpu.name) = name;
                CAPTURE(to_string(target));
                CAPTURE(field);
                CAPTURE(printable_line(name));
                const FrameworkExport e = export_scenario(s, target);
                std::size_t start = 0;
                while (start < e.text.size()) {
                    const std::size_t end = std::min(e.text.find('\n', start), e.text.size());
                    const std::string line = e.text.substr(start, end - start);
                    start = end + 1;
                    // Every line is UTF-8 without a control character (no \r, \v, \f, ESC, U+2028
                    // that a shell, TOML or Python reader could take as a break or a command).
                    CHECK(valid_utf8_without_controls(line));
                    // The name's payload only ever sits inside a comment (JSON has none: it is
                    // written by a JSON library, as a string, if at all).
                    if (line.find("INJECTED") != std::string::npos) {
                        if (target == ExportTarget::deepspeed) CHECK(nlohmann::json::accept(e.text));
                        else CHECK(line.rfind("# ", 0) == 0);
                    }
                }
            }
        }
    }
}

TEST_CASE("Megatron-LM: tensor or context parallelism says CUDA_DEVICE_MAX_CONNECTIONS=1, which it asserts") {
    Scenario s = default_scenario();  // tp 2
    CHECK(export_scenario(s, ExportTarget::megatron).text.find("export CUDA_DEVICE_MAX_CONNECTIONS=1") !=
          std::string::npos);
    s.parallel.tp = 1;
    s.parallel.dp_shard = 16;
    s.model.name = "dense";
    REQUIRE(validate_scenario(s).empty());
    CHECK(export_scenario(s, ExportTarget::megatron).text.find("CUDA_DEVICE_MAX_CONNECTIONS") == std::string::npos);
    s.parallel.cp = 2;
    s.parallel.dp_shard = 8;
    REQUIRE(validate_scenario(s).empty());
    CHECK(export_scenario(s, ExportTarget::megatron).text.find("export CUDA_DEVICE_MAX_CONNECTIONS=1") !=
          std::string::npos);
}

TEST_CASE("TorchTitan 0.2.2's TOML: layers per interleaved stage count the embedding and the loss, never 0") {
    // Llama 3 405B as Meta split it: 126 layers + embedding + loss = 128 units on 16 stages x 8 chunks:
    // 1 a chunk (126 / 128 in whole layers would be 0, which TorchTitan divides by).
    Scenario s = default_scenario();
    s.model.layers = 126;
    s.cluster.nodes = 32;
    s.parallel.tp = 2;
    s.parallel.pp = 16;
    s.parallel.dp_shard = 8;
    s.parallel.dp_replicate = 1;
    s.parallel.embedding_in_pipeline_split = true;
    s.parallel.loss_in_pipeline_split = true;
    s.training.global_batch = 128;
    s.training.schedule = Schedule::interleaved_1f1b;
    s.training.virtual_stages = 8;
    REQUIRE(validate_scenario(s).empty());
    const std::string text = export_scenario(s, ExportTarget::torchtitan_toml).text;
    CHECK(has_line(text, "pipeline_parallel_layers_per_stage = 1"));
}

TEST_CASE("every Megatron-LM flag the export writes is one Megatron-LM has (tests/frameworks/megatron-lm-flags.txt)") {
    // The list: Megatron-LM's flags at a pinned commit that the export may write, each checked in its
    // source (the file's header says how).
    std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/frameworks/megatron-lm-flags.txt");
    REQUIRE(in.good());
    std::set<std::string> known;
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#') known.insert(line);
    REQUIRE(known.size() > 50);
    // Dense, long-context (CP), FP8 with recompute modules, MoE with interleaving, and MLA with a
    // layout string (DeepSeek-V3's shape on 16 stages).
    std::vector<Scenario> scenarios{default_scenario(), interleaved_moe()};
    Scenario cp = default_scenario();
    cp.model.seq_len = 131072;
    cp.parallel.cp = 4;
    cp.parallel.dp_shard = 2;
    scenarios.push_back(cp);
    Scenario fp8 = interleaved_moe();
    fp8.training.precision = Precision::fp8;
    fp8.training.fused_kernels = true;
    fp8.training.recompute = Recompute::selective;
    fp8.training.recompute_modules = RecomputeModules{false, true, false, true};
    fp8.training.activation_func_fp8_input_store = true;
    fp8.training.bf16_adam_moments = true;
    fp8.model.mtp_layers = 1;
    scenarios.push_back(fp8);
    Scenario offloaded = default_scenario();
    offloaded.training.offload = Offload::optimizer;
    scenarios.push_back(offloaded);
    int flags = 0;
    for (const Scenario& s : scenarios) {
        REQUIRE(validate_scenario(s).empty());
        const std::string text = export_scenario(s, ExportTarget::megatron).text;
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);) {
            if (line.rfind("#", 0) == 0 || line.rfind("--", 0) != 0) continue;
            const std::string flag = line.substr(0, line.find(' '));
            CAPTURE(flag);
            CHECK(known.count(flag) == 1);
            ++flags;
        }
    }
    CHECK(flags > 80);
}

namespace {

std::set<std::string> pinned_list(const std::string& file) {
    std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/frameworks/" + file);
    REQUIRE(in.good());
    std::set<std::string> known;
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#') known.insert(line);
    return known;
}

void dotted_keys(const nlohmann::json& j, const std::string& prefix, std::vector<std::string>& out) {
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
        if (it->is_object()) dotted_keys(*it, key, out);
        else out.push_back(key);
    }
}

// Dense, interleaved MoE, FP8 and megatron-fp16 with ZeRO-3 across replicas: every key and flag kind.
std::vector<Scenario> export_variety() {
    std::vector<Scenario> out{default_scenario(), interleaved_moe()};
    Scenario fp8 = interleaved_moe();
    fp8.training.precision = Precision::fp8;
    out.push_back(fp8);
    Scenario fp16 = default_scenario();
    fp16.training.precision = Precision::megatron_fp16;
    out.push_back(fp16);
    Scenario bf16 = default_scenario();
    bf16.training.precision = Precision::megatron_bf16;
    out.push_back(bf16);
    return out;
}

}  // namespace

TEST_CASE("every ds_config key the DeepSpeed export writes is one DeepSpeed reads (tests/frameworks)") {
    const std::set<std::string> known = pinned_list("deepspeed-config-keys.txt");
    std::set<std::string> written;
    for (const Scenario& s : export_variety()) {
        REQUIRE(validate_scenario(s).empty());
        std::vector<std::string> keys;
        dotted_keys(nlohmann::json::parse(export_scenario(s, ExportTarget::deepspeed).text), "", keys);
        for (const std::string& k : keys) {
            CAPTURE(k);
            CHECK(known.count(k) == 1);
            written.insert(k);
        }
    }
    CHECK(written.size() >= 9);
}

TEST_CASE("every nccl-tests binary and option the export writes is one nccl-tests has (tests/frameworks)") {
    const std::set<std::string> known = pinned_list("nccl-tests-options.txt");
    int commands = 0;
    for (const Scenario& s : export_variety()) {
        std::istringstream lines(export_scenario(s, ExportTarget::nccl_tests).text);
        for (std::string line; std::getline(lines, line);) {
            if (line.rfind("mpirun ", 0) != 0) continue;
            std::istringstream words(line);
            std::string word, np, ranks, binary;
            words >> word >> np >> ranks >> binary;
            CHECK(np == "-np");
            CAPTURE(line);
            CHECK(known.count(binary) == 1);
            while (words >> word)
                if (word[0] == '-') CHECK(known.count(word) == 1);
            ++commands;
        }
    }
    CHECK(commands > 10);
}

TEST_CASE("a model given only as a parameter count is refused by the exports that need its shape") {
    Scenario s = default_scenario();
    s.model = ModelSpec{};
    s.model.name = "count";
    s.model.params = 70e9;
    s.model.seq_len = 8192;
    REQUIRE(validate_scenario(s).empty());
    for (const ExportTarget t : {ExportTarget::megatron, ExportTarget::torchtitan, ExportTarget::torchtitan_toml}) {
        CAPTURE(to_string(t));
        const FrameworkExport e = export_scenario(s, t);
        CHECK(e.text.empty());
        CHECK(e.refused.find("model: given only as a parameter count") == 0);
    }
    // DeepSpeed's config and nccl-tests' commands need no shape: the parameters alone set them.
    CHECK(export_scenario(s, ExportTarget::deepspeed).refused.empty());
    CHECK(export_scenario(s, ExportTarget::nccl_tests).refused.empty());
}

TEST_CASE("an export says when the target runs ZeRO-3 as another implementation than the one priced") {
    Scenario s = default_scenario();  // zero 3
    s.parallel.pp = 1;
    s.parallel.dp_replicate = 1;
    s.parallel.dp_shard = 32;
    REQUIRE(validate_scenario(s) == "");
    for (ExportTarget t : {ExportTarget::megatron, ExportTarget::torchtitan, ExportTarget::torchtitan_toml, ExportTarget::deepspeed})
        CHECK_FALSE(mentions(export_scenario(s, t).warnings, "zero_impl"));
    s.parallel.zero_impl = ZeroImpl::deepspeed_0_3;
    CHECK(mentions(export_scenario(s, ExportTarget::torchtitan_toml).warnings,
                   "zero_impl deepspeed-0.3: TorchTitan runs ZeRO-3 as PyTorch FSDP2"));
    CHECK(mentions(export_scenario(s, ExportTarget::megatron).warnings, "zero_impl deepspeed-0.3: Megatron-LM"));
    CHECK_FALSE(mentions(export_scenario(s, ExportTarget::deepspeed).warnings, "zero_impl"));
    s.parallel.zero_impl = ZeroImpl::fsdp2;
    CHECK(mentions(export_scenario(s, ExportTarget::deepspeed).warnings,
                   "zero_impl fsdp2: DeepSpeed runs ZeRO-3 as DeepSpeed's own ZeRO-3"));
    CHECK_FALSE(mentions(export_scenario(s, ExportTarget::torchtitan_toml).warnings, "zero_impl"));
}

TEST_CASE("an offloaded optimizer is written as each framework offloads it, or warned where it cannot be") {
    Scenario s = default_scenario();  // zero 3 over dp_shard 8
    s.training.offload = Offload::optimizer;
    REQUIRE(validate_scenario(s).empty());
    // Megatron-LM asserts --optimizer-cpu-offload "must be used in conjunction with
    // --use-precision-aware-optimizer" (arguments.py at the pinned commit); the fraction is all of it.
    const std::string megatron = export_scenario(s, ExportTarget::megatron).text;
    CHECK(megatron.find("--optimizer-cpu-offload") != std::string::npos);
    CHECK(megatron.find("--optimizer-offload-fraction 1.0") != std::string::npos);
    CHECK(megatron.find("--use-precision-aware-optimizer") != std::string::npos);
    // With bf16 moments as well, the precision-aware flag is written once.
    s.training.bf16_adam_moments = true;
    const std::string both = export_scenario(s, ExportTarget::megatron).text;
    const std::string flag = "--use-precision-aware-optimizer";
    CHECK(both.find(flag) == both.rfind(flag));
    s.training.bf16_adam_moments = false;
    // DeepSpeed's ZeRO-Offload: zero_optimization.offload_optimizer on the CPU.
    const nlohmann::json ds = nlohmann::json::parse(export_scenario(s, ExportTarget::deepspeed).text);
    CHECK(ds["zero_optimization"]["offload_optimizer"]["device"] == "cpu");
    CHECK(ds["zero_optimization"]["offload_optimizer"]["pin_memory"] == true);
    // TorchTitan offers only FSDP2's whole CPU offload (parameters too): warned, not written.
    const FrameworkExport titan = export_scenario(s, ExportTarget::torchtitan);
    CHECK(titan.text.find("enable_cpu_offload =") == std::string::npos);
    CHECK(titan.text.find("enable_cpu_offload=") == std::string::npos);
    CHECK(std::any_of(titan.warnings.begin(), titan.warnings.end(),
                      [](const std::string& w) { return w.rfind("offload optimizer:", 0) == 0; }));
    // Without offload none of it appears.
    s.training.offload = Offload::none;
    CHECK(export_scenario(s, ExportTarget::megatron).text.find("--optimizer-cpu-offload") == std::string::npos);
    CHECK_FALSE(nlohmann::json::parse(export_scenario(s, ExportTarget::deepspeed).text)["zero_optimization"].contains(
        "offload_optimizer"));
}
