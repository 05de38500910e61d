// Communication on the links a group really uses (rails), FSDP's per-block collectives, pipeline splits
// as frameworks make them, and the model shapes real models have: each against a number by hand.
#include "core/model/compute.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/memory.hpp"
#include "core/model/params.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace shardscope;

namespace {

const DimCost& dim(const Report& r, const std::string& name) {
    for (const DimCost& d : r.dims)
        if (d.name == name) return d;
    FAIL("no dim " << name);
    return r.dims.front();
}

// A 1e9-parameter model given as a count, plain data parallel over 2 nodes of 8.
// The tiny model (4 blocks of 784, embedding 128, output 136: 3400 parameters) sharded over the 4
// GPUs of one node on 100 GB/s, 2 us links.
Scenario tiny_sharded_over_four(int zero, int64_t global_batch) {
    Scenario s = test::tiny_gelu();
    s.cluster.gpus_per_node = 4;
    s.cluster.intra_node = LinkSpec{100, 2};
    s.parallel.dp_shard = 4;
    s.parallel.zero = zero;
    s.training.global_batch = global_batch;
    return s;
}

Scenario billion_on_two_nodes() {
    Scenario s;
    s.model = ModelSpec{};
    s.model.params = 1e9;
    s.cluster.nodes = 2;
    s.cluster.gpus_per_node = 8;
    s.cluster.intra_node = LinkSpec{370, 2};
    s.cluster.inter_node = LinkSpec{48, 5};
    s.parallel = ParallelSpec{};
    s.parallel.dp_replicate = 16;
    s.training.global_batch = 16;
    return s;
}

// The small dense model (hidden 1,024) with 64 routed experts of width 512, 8 a token.
Scenario moe_64_experts() {
    Scenario s = test::small_dense();
    s.model.experts = 64;
    s.model.top_k = 8;
    s.model.expert_ffn_hidden = 512;
    return s;
}

}  // namespace

TEST_CASE("rails: a group with k members per node crosses nodes over k NICs") {
    Scenario s = billion_on_two_nodes();
    // 16 ranks, 8 on each node: NCCL's rings leave each node over its 8 NICs at once: 8 x 48 = 384
    // GB/s, more than the 370 GB/s NVLink feeding them, so NVLink bounds it. Ring all-reduce of
    // 2e9 B of bf16 gradients: 2(N-1) alpha + 2(N-1)/N S/B, where a step is an NVLink hop (2 us)
    // 7 times in 8 and a network hop (5 us) once: alpha = (7 x 2 + 5) / 8 us.
    const double alpha = (7 * 2e-6 + 5e-6) / 8;
    const double all_nics = 30 * alpha + 1.875 * 2e9 / 370e9;
    CHECK(dim(build_report(s), "dp_replicate").time_s == doctest::Approx(all_nics));
    // One NIC per node instead: the 8 members share it, 8 x (1 NIC / 8 GPUs) = 1 rail at 48 GB/s.
    s.cluster.inter_node.nics_per_node = 1;
    const double one_nic = 30 * alpha + 1.875 * 2e9 / 48e9;
    CHECK(dim(build_report(s), "dp_replicate").time_s == doctest::Approx(one_nic));
    // A group with one member per node (tp 8 inside, dp across) uses its own GPU's rail: 48 GB/s
    // with the default one NIC per GPU. 2 ranks: 2 x 5 us + 1 x S/B, S = 2e9 / 8 (tp splits it).
    s.cluster.inter_node.nics_per_node = 0;
    s.model.params.reset();
    s.model = test::small_dense().model;  // 8 heads: tp 8 divides them
    s.parallel.tp = 8;
    s.parallel.dp_replicate = 2;
    s.training.global_batch = 2;
    const Report r = build_report(s);
    const ParamCounts c = count_params(s.model);
    const double grads = c.total / 8 * 2.0;
    CHECK(dim(r, "dp_replicate").link == "inter");
    CHECK(dim(r, "dp_replicate").time_s == doctest::Approx(2 * 5e-6 + grads / 48e9));
}

TEST_CASE("FSDP gathers and scatters block by block, each collective paying its latency") {
    // One micro-batch: 6 units (4 blocks, embedding, output), each all-gathered before its forward
    // and its backward and reduce-scattered after: per unit (N-1) alpha + (N-1)/N x (3400 x 2 B / 6) / B,
    // three times.
    const Report r = build_report(tiny_sharded_over_four(3, 4));
    REQUIRE(r.microbatches == 1);
    const double one = 3 * 2e-6 + 0.75 * (3400.0 * 2 / 6) / 100e9;
    // On the PyTorch stack each reduce-scatter also runs FSDP2's copy-in of the unit's gradients, here
    // at the 3 us kernel floor (cost_model.hpp, fsdp2_copies).
    const double copy_in = 3e-6;
    CHECK(dim(r, "dp_shard").time_s == doctest::Approx(3 * 6 * one + 6 * copy_in));
    // The same bytes as one gather of the whole stage: 3 x 3/4 x 6800 B.
    CHECK(dim(r, "dp_shard").bytes_per_step == doctest::Approx(15300));
}

TEST_CASE("ZeRO-2 reduce-scatters after every micro-batch, block by block; ZeRO-1 once, after the last") {
    // 4 micro-batches.
    Scenario s = tiny_sharded_over_four(1, 16);
    const Report one = build_report(s);
    REQUIRE(one.microbatches == 4);
    // ZeRO-1: one reduce-scatter of the accumulated 6800 B of gradients and one all-gather of the
    // 6800 B of updated weights: 2 x (3 alpha + 3/4 x 6800 B / B); each rank sends 3/4 of both.
    const double whole = 3 * 2e-6 + 0.75 * 6800 / 100e9;
    CHECK(dim(one, "dp_shard").collective == "reduce-scatter + all-gather");
    CHECK(dim(one, "dp_shard").time_s == doctest::Approx(2 * whole));
    CHECK(dim(one, "dp_shard").bytes_per_step == doctest::Approx(2 * 0.75 * 6800));
    // ZeRO-2 keeps only its gradient slice: 4 micro-batches x 6 units of (3 alpha + 3/4 x 6800/6 B / B),
    // then the one all-gather of the weights.
    s.parallel.zero = 2;
    const Report two = build_report(s);
    const double unit = 3 * 2e-6 + 0.75 * (6800.0 / 6) / 100e9;
    CHECK(dim(two, "dp_shard").collective == "reduce-scatter per micro-batch + all-gather");
    CHECK(dim(two, "dp_shard").time_s == doctest::Approx(4 * 6 * (unit + 3e-6) + whole));  // + FSDP2's copy-in
    CHECK(dim(two, "dp_shard").bytes_per_step == doctest::Approx((4 + 1) * 0.75 * 6800));
    // What each keeps: ZeRO-1 the whole 6800 B of gradients, ZeRO-2 a quarter of them.
    CHECK(one.memory.grads == doctest::Approx(6800));
    CHECK(two.memory.grads == doctest::Approx(6800 / 4.0));
}

TEST_CASE("pipeline splits: uneven ends, and the embedding and loss counted as layers") {
    ParallelSpec p;
    p.pp = 16;
    p.embedding_in_pipeline_split = true;
    p.loss_in_pipeline_split = true;
    // Llama 3 405B: 126 layers + 2 = 128 units, 8 a stage; the first and last give one to the
    // embedding and the loss: 7, 8 x 14, 7.
    CHECK(stage_layers(126, p, 0).count == 7);
    CHECK(stage_layers(126, p, 1).first == 7);
    CHECK(stage_layers(126, p, 1).count == 8);
    CHECK(stage_layers(126, p, 15).first == 119);
    CHECK(stage_layers(126, p, 15).count == 7);
    // Uneven ends (Megatron's --decoder-first/last-pipeline-num-layers): 30 layers on 4 stages with 6
    // first and 6 last leave 18 for the middle two, 9 each.
    ParallelSpec q;
    q.pp = 4;
    q.first_stage_layers = 6;
    q.last_stage_layers = 6;
    CHECK(stage_layers(30, q, 0).count == 6);
    CHECK(stage_layers(30, q, 1).first == 6);
    CHECK(stage_layers(30, q, 1).count == 9);
    CHECK(stage_layers(30, q, 2).first == 15);
    CHECK(stage_layers(30, q, 3).first == 24);
    CHECK(stage_layers(30, q, 3).count == 6);
    int64_t sum = 0;
    for (int64_t i = 0; i < 4; ++i) sum += stage_layers(30, q, i).count;
    CHECK(sum == 30);
}

TEST_CASE("the split fields load, validate, and interleaving may count the embedding and loss chunks") {
    Scenario s = test::small_dense();
    s.model.layers = 6;
    s.cluster.nodes = 1;
    s.parallel = ParallelSpec{};
    s.parallel.pp = 8;
    s.parallel.sequence_parallel = false;
    s.training.global_batch = 8;
    // 8 stages for 6 layers: a stage would hold none.
    CHECK(validate_scenario(s).find("parallel.pp") == 0);
    s.parallel.pp = 2;
    s.training.schedule = Schedule::interleaved_1f1b;
    s.training.virtual_stages = 4;
    // 2 x 4 = 8 chunks need 8 units: 6 layers are too few...
    CHECK(validate_scenario(s).find("training.virtual_stages") == 0);
    // ...but 6 layers + embedding + loss are 8 whole chunks.
    s.parallel.embedding_in_pipeline_split = true;
    s.parallel.loss_in_pipeline_split = true;
    CHECK(validate_scenario(s) == "");
    // Uneven ends that leave a stage without a layer are rejected, naming the field.
    s = test::small_dense();
    s.cluster.nodes = 1;
    s.parallel = ParallelSpec{};
    s.parallel.pp = 4;
    s.parallel.dp_replicate = 2;
    s.parallel.first_stage_layers = 4;
    s.parallel.last_stage_layers = 3;
    CHECK(validate_scenario(s).find("parallel.first_stage_layers") == 0);
    s.parallel.last_stage_layers = 2;
    CHECK(validate_scenario(s) == "");
    // And they survive a save and a load.
    const ScenarioLoad back = parse_scenario(scenario_to_json(s));
    REQUIRE(back.ok());
    CHECK(back.scenario->parallel.first_stage_layers == 4);
    CHECK(scenario_to_json(*back.scenario) == scenario_to_json(s));
}

TEST_CASE("tied embeddings count once; head_dim widens attention (Qwen3)") {
    ModelSpec m = test::tiny_gelu().model;  // 3400 parameters, embedding and output 128 each
    m.tie_embeddings = true;
    CHECK(count_params(m).total == doctest::Approx(3400 - 128));
    // On two stages the last keeps a copy of the tied matrix (plus the final norm, 8).
    ParallelSpec p;
    p.pp = 2;
    CHECK(stage_params(count_params(m), p, 1).output == doctest::Approx(128 + 8));
    // head_dim 8 with 2 heads of hidden 8: q and o are 8 x 16, k and v 8 x 16 (kv_heads 2):
    // 4 x 128 = 512 per block instead of 256.
    ModelSpec q = test::tiny_gelu().model;
    q.head_dim = 8;
    CHECK(count_params(q).attention_per_layer == doctest::Approx(512));
}

TEST_CASE("every precision lists its bytes per parameter") {
    CHECK(state_bytes_per_param(Precision::mixed_bf16).total() == 16);
    CHECK(state_bytes_per_param(Precision::megatron_bf16).total() == 18);
    // fp16 weights and gradients, fp32 master, m, v and gradient copy: 2 + 2 + 16.
    CHECK(state_bytes_per_param(Precision::megatron_fp16).total() == 20);
    // Transformer Engine FP8: bf16 weights + their FP8 copy, fp32 main grads, fp32 master, m, v.
    CHECK(state_bytes_per_param(Precision::fp8).weights == 3);
    CHECK(state_bytes_per_param(Precision::fp8).total() == 19);
    // The report says so in a note.
    Scenario s = default_scenario();
    s.training.precision = Precision::megatron_fp16;
    bool noted = false;
    for (const std::string& n : build_report(s).notes) noted = noted || n.find("2 + 2 + 16 = 20 bytes") != std::string::npos;
    CHECK(noted);
}

TEST_CASE("FP8 keeps its weight copy for the blocks' linears only, and gathers the BF16 weights") {
    // The tiny model: 4 blocks of 784 parameters, embedding 128, output 136 (3400 in all), on one GPU.
    Scenario s = test::tiny_gelu();
    s.cluster.gpus_per_node = 1;
    s.cluster.nodes = 1;
    s.cluster.gpu.peak_fp8_tflops = 1979;
    s.training.global_batch = 1;
    s.training.precision = Precision::fp8;
    REQUIRE(validate_scenario(s).empty());
    // 3 B for each of the 3136 block parameters, 2 B for the 264 of the embedding and output layer.
    CHECK(build_report(s).memory.params == doctest::Approx(3136 * 3 + 264 * 2));
    // ZeRO-1 over 4 GPUs: the updated weights are all-gathered in BF16, 2 B a parameter, and each rank
    // sends 3/4 of them (with the reduce-scatter of the 4 B fp32 gradients beside them).
    s.cluster.gpus_per_node = 4;
    s.parallel.dp_shard = 4;
    s.parallel.zero = 1;
    s.training.global_batch = 4;
    CHECK(dim(build_report(s), "dp_shard").bytes_per_step == doctest::Approx(0.75 * 3400 * (4 + 2)));
}

TEST_CASE("fp8 runs its GEMMs at the FP8 peak, and needs one") {
    Scenario s = default_scenario();
    const double bf16 = *build_report(s).time.compute;
    s.training.precision = Precision::fp8;
    CHECK(validate_scenario(s) == "");
    CHECK(*build_report(s).time.compute < bf16);
    s.cluster.gpu.peak_fp8_tflops = 0;
    CHECK(validate_scenario(s) == "training.precision: fp8 needs cluster.gpu.peak_fp8_tflops (this GPU gives none)");
}

TEST_CASE("capacity is what the card exposes; a scenario may set it and the reserve") {
    ClusterSpec c;
    c.gpu = GpuSpec{"H100 SXM", 80, 989, 3350};
    CHECK(gpu_memory_bytes(c) == doctest::Approx(81559.0 * 1048576));
    c.gpu = GpuSpec{"A100 SXM 80GB", 80, 312, 2039};
    CHECK(gpu_memory_bytes(c) == doctest::Approx(81920.0 * 1048576));
    c.gpu.memory_gb = 40;
    CHECK(gpu_memory_bytes(c) == doctest::Approx(40960.0 * 1048576));
    c.gpu.memory_mib = 40000;
    CHECK(gpu_memory_bytes(c) == doctest::Approx(40000.0 * 1048576));
    // The reserve: 1 GiB by default plus 5% of the tensors; reserve_gib replaces the fixed part.
    Scenario s = test::tiny_gelu();
    const Report r = build_report(s);
    CHECK(r.memory.reserved == doctest::Approx(1073741824.0 + 0.05 * r.memory.tensors()));
    s.cluster.gpu.reserve_gib = 2.5;
    const Report r2 = build_report(s);
    CHECK(r2.memory.reserved == doctest::Approx(2.5 * 1073741824.0 + 0.05 * r2.memory.tensors()));
    // The report's JSON shows both.
    const auto j = nlohmann::json::parse(report_to_json(r2));
    CHECK(j["memory_bytes"]["reserved"].get<double>() == doctest::Approx(r2.memory.reserved));
    CHECK(j["memory_bytes"]["capacity"].get<double>() == doctest::Approx(r2.gpu_memory_bytes));
}

TEST_CASE("full recompute counts the working set of the block being recomputed") {
    Scenario s = test::tiny_gelu();
    s.training.recompute = Recompute::full;
    const Report r = build_report(s);
    // The tiny model: s = 4, b = 1, h = 8: stored input 2sbh = 64 B per block; the block being
    // recomputed holds sbh * 34 = 1088 B (flash: no scores); the loss's logits at their peak on the
    // PyTorch stack 12 * 4 * 16 = 768 B.
    CHECK(r.memory.other == doctest::Approx(1088 + 768));
}

TEST_CASE("MLA (DeepSeek-V3): parameters by hand, loads and saves, rules name the field") {
    ModelSpec m;
    m.layers = 61;
    m.hidden = 7168;
    m.ffn_hidden = 18432;
    m.heads = 128;
    m.kv_heads = 128;
    m.vocab = 129280;
    m.seq_len = 4096;
    m.attention_type = AttentionType::mla;
    m.q_lora_rank = 1536;
    m.kv_lora_rank = 512;
    m.qk_rope_head_dim = 64;
    m.qk_nope_head_dim = 128;
    m.v_head_dim = 128;
    // q: 7168 x 1536 + 1536 x 128 x (128 + 64) + 1536 (norm) = 48,760,320; kv: 7168 x (512 + 64) +
    // 512 x 128 x (128 + 128) + 512 = 20,906,496; o: 128 x 128 x 7168 = 117,440,512.
    CHECK(count_params(m).attention_per_layer == doctest::Approx(187'107'328.0));
    // The attention core reads 192-wide queries and keys and 128-wide values: per token and key,
    // 2 x 128 x (192 + 128) FLOPs forward, halved by causal flash.
    Scenario s = default_scenario();
    s.model = m;
    s.parallel = ParallelSpec{};
    s.parallel.dp_replicate = 64;
    CHECK(attention_core_forward_flops(s, 4096, 1) == doctest::Approx(2.0 * 4096 * 4096 * 128 * 320 / 2));
    REQUIRE(validate_scenario(s) == "");
    const ScenarioLoad back = parse_scenario(scenario_to_json(s));
    REQUIRE_MESSAGE(back.ok(), back.error);
    CHECK(back.scenario->model.kv_lora_rank == 512);
    CHECK(scenario_to_json(*back.scenario) == scenario_to_json(s));
    s.model.kv_lora_rank = 0;
    CHECK(validate_scenario(s) == "model.kv_lora_rank: MLA needs a key/value latent rank of at least 1");
    s.model.attention_type = AttentionType::gqa;
    CHECK(validate_scenario(s) == "model.q_lora_rank: 1536 needs attention_type mla");
}

TEST_CASE("group-limited routing: a token crosses the network once per node it reaches, then NVLink") {
    // An MoE model of 64 experts, 8 a token, on 8 nodes of 8 GPUs (48 GB/s, 5 us a NIC per GPU; 160 GB/s,
    // 2 us NVLink), EP 64 over all of them: 8 members per node. One sequence of 1,024 tokens a GPU,
    // hidden 1,024, bf16: a token is 2,048 bytes.
    Scenario s = moe_64_experts();
    REQUIRE(s.model.hidden == 1024);
    s.model.seq_len = 1024;
    s.cluster.nodes = 8;
    s.cluster.gpus_per_node = 8;
    s.cluster.intra_node = LinkSpec{160, 2};
    s.cluster.inter_node = LinkSpec{48, 5};
    s.parallel = ParallelSpec{};
    s.parallel.dp_shard = 64;
    s.parallel.ep = 64;
    s.parallel.zero = 1;
    s.training.global_batch = 64;
    s.training.micro_batch = 1;
    REQUIRE(validate_scenario(s) == "");
    const double layers = static_cast<double>(s.model.layers);  // every block is MoE
    // Without a limit, one flat all-to-all of T x top_k tokens: (N-1) alpha + (N-1)/N S / B, where the
    // (N-k)/N of S bound for other nodes leaves through this GPU's NIC: B = 48 GB/s x 63/56.
    const double S = 1024.0 * 8 * 2048;
    const double flat = 63 * 5e-6 + 63.0 / 64 * S / (48e9 * 63.0 / 56);
    // Dispatch and combine, forward and backward: 4 all-to-alls a layer.
    CHECK(dim(build_report(s), "ep").time_s == doctest::Approx(4 * layers * flat));
    // Node-limited as DeepSeek-V3 (8 groups, a node's experts each; 4 a token): a token reaches 4
    // nodes, 7/8 of them others on average: 3.5 copies over the NIC; then its 8 copies are forwarded
    // over NVLink, 7/8 of them to another GPU. The legs overlap: the longer counts.
    s.model.expert_groups = 8;
    s.model.expert_groups_per_token = 4;
    REQUIRE(validate_scenario(s) == "");
    const double network = 5e-6 + 1024.0 * 3.5 * 2048 / 48e9;
    const double nvlink = 2e-6 + 1024.0 * 8 * 7.0 / 8 * 2048 / 160e9;
    REQUIRE(network > nvlink);
    const Report limited = build_report(s);
    const DimCost& ep = dim(limited, "ep");
    CHECK(ep.time_s == doctest::Approx(4 * layers * network));
    CHECK(ep.bytes_per_step == doctest::Approx(4 * layers * 1024.0 * (3.5 + 7.0) * 2048));
    // Inside one node the limit changes nothing: the flat all-to-all over NVLink.
    s.parallel.dp_shard = 8;
    s.parallel.ep = 8;
    s.parallel.dp_replicate = 8;
    const Report one_node = build_report(s);
    const DimCost& inside = dim(one_node, "ep");
    CHECK(inside.link == "intra");
    CHECK(inside.time_s == doctest::Approx(4 * layers * (7 * 2e-6 + 7.0 / 8 * S / 160e9)));
}

TEST_CASE("group-limited routing's fields: both or neither, groups divide the experts, at most top_k a token") {
    Scenario s = moe_64_experts();
    s.model.expert_groups = 8;
    s.model.expert_groups_per_token = 4;
    CHECK(validate_scenario(s) == "");
    s.model.expert_groups = 6;
    CHECK(validate_scenario(s) == "model.expert_groups: 6 must divide experts (64)");
    s.model.expert_groups = 16;
    s.model.expert_groups_per_token = 9;
    CHECK(validate_scenario(s) ==
          "model.expert_groups_per_token: 9 must be between 1 and the smaller of expert_groups (16) and top_k (8)");
    s.model.expert_groups_per_token = 0;
    CHECK(validate_scenario(s) ==
          "model.expert_groups_per_token: 0 must be between 1 and the smaller of expert_groups (16) and top_k (8)");
    // Saved and loaded back.
    s.model.expert_groups_per_token = 2;
    const ScenarioLoad back = parse_scenario(scenario_to_json(s));
    REQUIRE(back.scenario.has_value());
    CHECK(back.scenario->model.expert_groups == 16);
    CHECK(back.scenario->model.expert_groups_per_token == 2);
    // A dense model has no experts to group.
    Scenario dense = test::small_dense();
    dense.model.expert_groups = 2;
    CHECK(validate_scenario(dense) == "model.expert_groups: 2 must be 0 for a dense model (experts is 0)");
}
