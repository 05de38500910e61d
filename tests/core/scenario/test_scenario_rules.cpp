// Every rejection rule of the scenario loader and validate_scenario, each with its exact message.
// The base is the default scenario: Llama 3 8B (32 layers, hidden 4096, 32 heads, 8 kv heads,
// seq_len 8192) on 8 nodes x 8 GPUs = 64, tp 2, pp 2, dp_shard 8, dp_replicate 2, zero 3,
// global_batch 256, micro_batch 1, 1f1b: m = 256 / (1 * 8 * 2) = 16 micro-batches.
#include "core/scenario/scenario.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

using namespace shardscope;
using Json = nlohmann::json;

namespace {

// The default scenario with an RFC 7386 merge patch applied (null removes a key), loaded as text.
ScenarioLoad load_patched(const Json& patch) {
    Json doc = Json::parse(scenario_to_json(default_scenario()));
    doc.merge_patch(patch);
    return parse_scenario(doc.dump());
}

// The patch must be rejected with exactly `message`, and nothing half-loaded comes back.
void check_rejected(const Json& patch, const std::string& message) {
    CAPTURE(patch.dump());
    const ScenarioLoad loaded = load_patched(patch);
    CHECK_FALSE(loaded.ok());
    CHECK_FALSE(loaded.scenario.has_value());
    CHECK(loaded.error == message);
}

void check_accepted(const Json& patch) {
    CAPTURE(patch.dump());
    const ScenarioLoad loaded = load_patched(patch);
    CHECK_MESSAGE(loaded.ok(), loaded.error);
}

const Json kMoe = {{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 14336}};

Json moe_with(const Json& extra) {
    Json m = kMoe;
    m.merge_patch(extra);
    return m;
}

}  // namespace

TEST_CASE("the base and legal variations load") {
    check_accepted(Json::object());
    // 30 layers on 4 stages: stages get whole layers unevenly (7, 8, 8, 7); product 2*4*8*1 = 64.
    check_accepted({{"model", {{"layers", 30}}}, {"parallel", {{"pp", 4}, {"dp_replicate", 1}}}});
    // Product 2*2*8*1 = 32 of 64 GPUs: 2 leftover replicas, m = 256 / (1*8*2) = 16.
    check_accepted({{"parallel", {{"dp_replicate", 1}}}});
    // MoE with ep 8 borrowing all of dp_shard (8), and 8 experts.
    check_accepted({{"model", kMoe}, {"parallel", {{"ep", 8}}}});
    // A bare count with the architecture zeroed.
    check_accepted({{"model", {{"params", 70e9}, {"layers", 0}, {"hidden", 0}}}});
    // interleaved-1f1b: pp 2, v 2, m = 16 is a multiple of 2; dualpipe: pp 2, m = 16 >= 4 and even.
    check_accepted({{"training", {{"schedule", "interleaved-1f1b"}, {"virtual_stages", 2}}}});
    check_accepted({{"training", {{"schedule", "dualpipe"}}}});
    // zero 1-3 with dp_shard 1 is harmless (nothing to shard).
    check_accepted({{"parallel", {{"dp_shard", 1}, {"dp_replicate", 8}, {"zero", 1}}}, {"training", {{"global_batch", 64}}}});
}

TEST_CASE("the document: JSON syntax, schema, unknown and missing fields") {
    const ScenarioLoad bad = parse_scenario("{\"schema\": ");
    CHECK_FALSE(bad.ok());
    CHECK(bad.error.rfind("(document): not valid JSON: ", 0) == 0);
    // Where and why, in words: not the JSON library's exception tag.
    CHECK(bad.error.find("[json.exception") == std::string::npos);
    CHECK(bad.error.find("line 1") != std::string::npos);
    CHECK(parse_scenario("[1]").error == "(document): must be an object");
    check_rejected({{"schema", "shardscope.scenario/2"}},
                   "schema: must be \"shardscope.scenario/1\", got \"shardscope.scenario/2\"");
    check_rejected({{"extra", 1}}, "extra: unknown field");
    check_rejected({{"cluster", {{"gpu", {{"colour", "green"}}}}}}, "cluster.gpu.colour: unknown field");
    check_rejected({{"training", {{"global_batch", nullptr}}}}, "training.global_batch: is required");
    check_rejected({{"model", {{"heads", nullptr}}}}, "model.heads: is required");
    check_rejected({{"cluster", {{"inter_node", nullptr}}}}, "cluster.inter_node: is required");
}

TEST_CASE("wrong types") {
    check_rejected({{"model", {{"hidden", "4096"}}}}, "model.hidden: must be a whole number");
    check_rejected({{"model", {{"hidden", 4096.5}}}}, "model.hidden: must be a whole number");
    check_rejected({{"cluster", {{"gpu", {{"memory_gb", "80"}}}}}}, "cluster.gpu.memory_gb: must be a number");
    check_rejected({{"parallel", {{"sequence_parallel", 1}}}}, "parallel.sequence_parallel: must be true or false");
    check_rejected({{"model", {{"name", 7}}}}, "model.name: must be a string");
    check_rejected({{"model", {{"ffn", "relu"}}}}, "model.ffn: \"relu\" is not one of gelu, swiglu, squared-relu");
    check_rejected({{"training", {{"schedule", "1F1B"}}}},
                   "training.schedule: \"1F1B\" is not one of gpipe, 1f1b, interleaved-1f1b, zb-h1, zb-h2, dualpipe");
    check_rejected({{"training", {{"recompute", "some"}}}},
                   "training.recompute: \"some\" is not one of none, selective, full");
    check_rejected({{"training", {{"precision", "fp4"}}}},
                   "training.precision: \"fp4\" is not one of mixed-bf16, fp32, megatron-bf16, megatron-fp16, fp8");
    check_rejected({{"cluster", {{"gpu", "H100"}}}}, "cluster.gpu: must be an object");
}

TEST_CASE("parallel.order") {
    check_rejected({{"parallel", {{"order", {"tp", "tp", "cp", "dp_shard", "pp"}}}}},
                   "parallel.order[1]: \"tp\" is listed twice");
    check_rejected({{"parallel", {{"order", {"tp", "cp"}}}}},
                   "parallel.order: must list each of tp, cp, dp_shard, dp_replicate, pp exactly once");
    check_rejected({{"parallel", {{"order", {"tp", "ep", "cp", "dp_shard", "pp"}}}}},
                   "parallel.order[1]: \"ep\" is not one of tp, cp, dp_shard, dp_replicate, pp");
    check_rejected({{"parallel", {{"order", "tp"}}}},
                   "parallel.order: must be a list of the dims tp, cp, dp_shard, dp_replicate, pp");
    // In memory (what the UI edits) the loader's checks do not run: validate_scenario repeats them.
    Scenario s = default_scenario();
    s.parallel.order = {Dim::tp, Dim::tp, Dim::cp, Dim::dp_shard, Dim::pp};
    CHECK(validate_scenario(s) == "parallel.order: must list each of tp, cp, dp_shard, dp_replicate, pp exactly once");
}

TEST_CASE("model sizes: positive, not absurd, consistent") {
    check_rejected({{"model", {{"layers", 0}}}}, "model.layers: 0 must be a positive integer");
    check_rejected({{"model", {{"hidden", -4096}}}}, "model.hidden: -4096 must be a positive integer");
    check_rejected({{"model", {{"layers", 20000}}}}, "model.layers: 20000 exceeds the limit of 10000");
    check_rejected({{"model", {{"vocab", 0}}}}, "model.vocab: 0 must be a positive integer");
    check_rejected({{"model", {{"seq_len", 33554432}}}}, "model.seq_len: 33554432 exceeds the limit of 16777216");
    check_rejected({{"model", {{"ffn_hidden", 0}}}}, "model.ffn_hidden: 0 must be a positive integer");
    // 4100 / 32 = 128.125
    check_rejected({{"model", {{"hidden", 4100}}}}, "model.hidden: 4100 is not divisible by heads (32)");
    check_rejected({{"model", {{"kv_heads", 64}}}}, "model.kv_heads: 64 exceeds heads (32)");
    check_rejected({{"model", {{"rope_theta", -1}}}},
                   "model.rope_theta: -1 must be 0 (not stated) or a positive base up to 1e+12");
    check_rejected({{"model", {{"rope_theta", 1e13}}}},
                   "model.rope_theta: 1e+13 must be 0 (not stated) or a positive base up to 1e+12");
    // The default scenario states Llama 3's base; written back as read, and absent means 0.
    CHECK(scenario_to_json(default_scenario()).find("\"rope_theta\": 500000") != std::string::npos);
    CHECK(load_patched({{"model", {{"rope_theta", nullptr}}}}).scenario->model.rope_theta == 0);
}

TEST_CASE("model experts") {
    check_rejected({{"model", {{"top_k", 2}}}}, "model.top_k: 2 must be 0 for a dense model (experts is 0)");
    check_rejected({{"model", {{"shared_experts", 1}}}},
                   "model.shared_experts: 1 must be 0 for a dense model (experts is 0)");
    check_rejected({{"model", {{"dense_layers", 1}}}}, "model.dense_layers: 1 must be 0 for a dense model (experts is 0)");
    check_rejected({{"model", {{"experts", -1}}}}, "model.experts: -1 must be at least 0");
    check_rejected({{"model", moe_with({{"top_k", 9}})}}, "model.top_k: 9 must be between 1 and experts (8)");
    check_rejected({{"model", moe_with({{"top_k", 0}})}}, "model.top_k: 0 must be between 1 and experts (8)");
    check_rejected({{"model", moe_with({{"expert_ffn_hidden", 0}})}},
                   "model.expert_ffn_hidden: 0 must be a positive integer");
    check_rejected({{"model", moe_with({{"shared_experts", -1}})}}, "model.shared_experts: -1 must be at least 0");
    check_rejected({{"model", moe_with({{"dense_layers", 32}})}},
                   "model.dense_layers: 32 must be between 0 and layers - 1 (31)");
    // An all-MoE model never uses ffn_hidden, so 0 is fine there.
    check_accepted({{"model", moe_with({{"ffn_hidden", 0}})}});
}

TEST_CASE("model mtp_layers: between 0 and the layers, saved only when set") {
    check_rejected({{"model", {{"mtp_layers", -1}}}}, "model.mtp_layers: -1 must be between 0 and layers (32)");
    check_rejected({{"model", {{"mtp_layers", 33}}}}, "model.mtp_layers: 33 must be between 0 and layers (32)");
    const auto loaded = load_patched({{"model", {{"mtp_layers", 2}}}});
    REQUIRE(loaded.scenario);
    CHECK(loaded.scenario->model.mtp_layers == 2);
    CHECK(scenario_to_json(*loaded.scenario).find("\"mtp_layers\": 2") != std::string::npos);
    CHECK(scenario_to_json(default_scenario()).find("mtp_layers") == std::string::npos);
}

TEST_CASE("a bare parameter count") {
    check_rejected({{"model", {{"params", 8e9}}}},
                   "model.params: a bare parameter count replaces the architecture; set layers and hidden to 0 "
                   "or params to null");
    check_rejected({{"model", {{"params", -1}, {"layers", 0}, {"hidden", 0}}}}, "model.params: -1 must be positive");
    check_rejected({{"model", {{"params", 1e16}, {"layers", 0}, {"hidden", 0}}}},
                   "model.params: 1e+16 exceeds the limit of 1e+15");
    check_rejected({{"model", {{"params", "70B"}, {"layers", 0}, {"hidden", 0}}}}, "model.params: must be a number");
    check_rejected({{"model", {{"params", 1e-300}, {"layers", 0}, {"hidden", 0}}}}, "model.params: 1e-300 is less than one parameter");
    check_rejected({{"model", {{"params", 70e9}, {"layers", 0}, {"hidden", 0}, {"experts", 8}, {"top_k", 2}}}},
                   "model.experts: a model given only as params has no experts; set it to 0");
    // The architecture fields may be left out entirely when params stands in for them.
    const ScenarioLoad loaded = parse_scenario(R"json({"schema": "shardscope.scenario/1",
      "model": {"name": "70B (count only)", "params": 70e9},
      "cluster": {"nodes": 1, "gpus_per_node": 8, "gpu": {"memory_gb": 80, "peak_tflops": 989},
                  "intra_node": {"bandwidth_gbps": 450, "latency_us": 2},
                  "inter_node": {"bandwidth_gbps": 50, "latency_us": 5}},
      "parallel": {"dp_shard": 8, "zero": 3}, "training": {"global_batch": 16}})json");
    REQUIRE_MESSAGE(loaded.ok(), loaded.error);
    CHECK(*loaded.scenario->model.params == 70e9);
    CHECK_FALSE(loaded.scenario->model.has_architecture());
}

TEST_CASE("cluster: GPU count, GPU and links") {
    // 10^12 GPUs as 1.25e11 nodes of 8.
    check_rejected({{"cluster", {{"nodes", 125000000000}}}}, "cluster.nodes: 125000000000 exceeds the limit of 1048576");
    // 262144 * 8 = 2,097,152 GPUs, each factor within bounds but the product is not.
    check_rejected({{"cluster", {{"nodes", 262144}}}},
                   "cluster.nodes: 262144 nodes x 8 GPUs = 2097152 GPUs exceeds the limit of 1048576");
    check_rejected({{"cluster", {{"nodes", 0}}}}, "cluster.nodes: 0 must be a positive integer");
    check_rejected({{"cluster", {{"gpus_per_node", 0}}}}, "cluster.gpus_per_node: 0 must be a positive integer");
    check_rejected({{"cluster", {{"gpu", {{"memory_gb", 0}}}}}}, "cluster.gpu.memory_gb: 0 must be positive");
    check_rejected({{"cluster", {{"gpu", {{"peak_tflops", -989}}}}}}, "cluster.gpu.peak_tflops: -989 must be positive");
    check_rejected({{"cluster", {{"gpu", {{"hbm_gbps", 1e7}}}}}}, "cluster.gpu.hbm_gbps: 1e+07 exceeds the limit of 1e+06");
    check_rejected({{"cluster", {{"gpu", {{"matmul_efficiency", 1.5}}}}}},
                   "cluster.gpu.matmul_efficiency: 1.5 must be in (0, 1]");
    check_rejected({{"cluster", {{"gpu", {{"speed_spread", 0.2}}}}}},
                   "cluster.gpu.speed_spread: 0.2 must be between 0 and 0.15 (a standard deviation over the median "
                   "card's speed)");
    check_rejected({{"cluster", {{"gpu", {{"speed_spread", -0.01}}}}}},
                   "cluster.gpu.speed_spread: -0.01 must be between 0 and 0.15 (a standard deviation over the median "
                   "card's speed)");
    check_accepted({{"cluster", {{"gpu", {{"speed_spread", 0}}}}}});
    check_rejected({{"cluster", {{"intra_node", {{"bandwidth_gbps", 0}}}}}},
                   "cluster.intra_node.bandwidth_gbps: 0 must be positive");
    check_rejected({{"cluster", {{"inter_node", {{"latency_us", -1}}}}}},
                   "cluster.inter_node.latency_us: -1 must be zero or positive");
}

TEST_CASE("parallel factors and zero") {
    check_rejected({{"parallel", {{"tp", 0}}}}, "parallel.tp: 0 must be a positive integer");
    check_rejected({{"parallel", {{"dp_replicate", -2}}}}, "parallel.dp_replicate: -2 must be a positive integer");
    check_rejected({{"parallel", {{"cp", 2000000}}}}, "parallel.cp: 2000000 exceeds the limit of 1048576");
    check_rejected({{"parallel", {{"zero", 5}}}}, "parallel.zero: 5 must be 0, 1, 2 or 3");
    // 2^32 would wrap to 0 in an int: the loader checks the range first.
    check_rejected({{"parallel", {{"zero", 4294967296}}}}, "parallel.zero: 4294967296 must be 0, 1, 2 or 3");
    check_rejected({{"parallel", {{"zero", 0}}}}, "parallel.zero: 0 shards nothing, but dp_shard is 8; use zero 1-3 or dp_shard 1");
    // 3*1*2*8*2 = 96 does not divide 64.
    check_rejected({{"parallel", {{"tp", 3}}}},
                   "parallel: tp*cp*pp*dp_shard*dp_replicate = 3*1*2*8*2 = 96 GPUs a copy, which does not divide the 64 "
                   "GPUs of the cluster (8 x 8): the cluster needs a multiple of 96 GPUs, or the layout fewer");
    // 1024*1024*1024*... would overflow int64 if multiplied blindly.
    check_rejected({{"parallel", {{"tp", 1048576}, {"cp", 1048576}, {"pp", 1048576}, {"dp_shard", 1048576}}}},
                   "parallel: tp*cp*pp*dp_shard*dp_replicate = 1048576*1048576*1048576*1048576*2 does not divide "
                   "the 64 GPUs of the cluster");
}

TEST_CASE("sequence parallelism needs tp to divide each context-parallel rank's tokens") {
    // The base: tp 2, cp 1, sequence_parallel, seq_len 8192.
    check_rejected({{"model", {{"seq_len", 19}}}},
                   "parallel.sequence_parallel: tp 2 does not divide the 19 tokens each context-parallel rank holds "
                   "(seq_len 19 / cp 1); sequence parallelism splits them over the tensor-parallel ranks");
    check_accepted({{"model", {{"seq_len", 20}}}});
    check_accepted({{"model", {{"seq_len", 19}}}, {"parallel", {{"sequence_parallel", false}}}});
    // cp 2 holds 4098 / 2 = 2049 tokens a rank: odd, so tp 2 cannot split them.
    check_rejected({{"model", {{"seq_len", 4098}}}, {"parallel", {{"cp", 2}, {"dp_shard", 4}}}},
                   "parallel.sequence_parallel: tp 2 does not divide the 2049 tokens each context-parallel rank holds "
                   "(seq_len 4098 / cp 2); sequence parallelism splits them over the tensor-parallel ranks");
}

TEST_CASE("parallel factors against the model") {
    // docs/design.md's example: 128 heads (hidden 4096 / 128 = 32), 3 nodes x 8 = 24 GPUs = tp 3 * dp_shard 8.
    check_rejected({{"model", {{"heads", 128}}},
                    {"cluster", {{"nodes", 3}}},
                    {"parallel", {{"tp", 3}, {"pp", 1}, {"dp_replicate", 1}}},
                    {"training", {{"global_batch", 64}}}},
                   "parallel.tp: 3 does not divide heads (128)");
    // tp 16 divides 32 heads but not 8 kv heads; 16*2*2*1 = 64.
    check_rejected({{"parallel", {{"tp", 16}, {"dp_shard", 2}, {"dp_replicate", 1}}}},
                   "parallel.tp: 16 does not divide kv_heads (8)");
    // 2 layers cannot fill 4 stages; 2*4*4*2 = 64.
    check_rejected({{"model", {{"layers", 2}}}, {"parallel", {{"pp", 4}, {"dp_shard", 4}}}},
                   "parallel.pp: 4 exceeds layers (2); every stage needs a whole layer");
    // cp 2 (2*2*2*4*2 = 64) on an odd sequence.
    check_rejected({{"model", {{"seq_len", 8191}}}, {"parallel", {{"cp", 2}, {"dp_shard", 4}}}},
                   "parallel.cp: 2 does not divide seq_len (8191)");
}

TEST_CASE("expert parallel borrows from dp_shard*cp") {
    check_rejected({{"parallel", {{"ep", 2}}}}, "parallel.ep: 2 needs an MoE model (model.experts is 0)");
    // 8 experts over 16 EP ranks.
    check_rejected({{"model", kMoe}, {"parallel", {{"ep", 16}}}}, "parallel.ep: 16 does not divide experts (8)");
    // 6 experts split 3 ways, but dp_shard*cp = 8*1 is not a multiple of 3.
    check_rejected({{"model", moe_with({{"experts", 6}})}, {"parallel", {{"ep", 3}}}},
                   "parallel.ep: 3 does not divide dp_shard*cp (8)");
    // cp counts too: dp_shard 4 * cp 2 = 8 carries ep 8 (2*2*2*4*2 = 64).
    check_accepted({{"model", kMoe}, {"parallel", {{"ep", 8}, {"cp", 2}, {"dp_shard", 4}}}});
}

TEST_CASE("the batch splits into whole micro-batches, leftover replicas included") {
    check_rejected({{"training", {{"global_batch", 0}}}}, "training.global_batch: 0 must be a positive integer");
    check_rejected({{"training", {{"micro_batch", 0}}}}, "training.micro_batch: 0 must be a positive integer");
    // 1*8*2 = 16 sequences per micro-batch step; 100 is not a multiple.
    check_rejected({{"training", {{"global_batch", 100}}}},
                   "training.global_batch: 100 does not split into whole micro-batches of micro_batch (1) x "
                   "dp_shard (8) x dp_replicate (2) = 16 sequences");
    // micro_batch 3: 3*8*2 = 48 does not divide 256.
    check_rejected({{"training", {{"micro_batch", 3}}}},
                   "training.global_batch: 256 does not split into whole micro-batches of micro_batch (3) x "
                   "dp_shard (8) x dp_replicate (2) = 48 sequences");
    // dp_replicate 1 uses 32 of 64 GPUs: 2 replicas in effect, so 24 (a multiple of 8) is still wrong.
    check_rejected({{"parallel", {{"dp_replicate", 1}}}, {"training", {{"global_batch", 24}}}},
                   "training.global_batch: 24 does not split into whole micro-batches of micro_batch (1) x "
                   "dp_shard (8) x dp_replicate (2, with leftover replicas) = 16 sequences");
}

TEST_CASE("virtual stages and schedules") {
    check_rejected({{"training", {{"virtual_stages", 0}}}}, "training.virtual_stages: 0 must be a positive integer");
    check_rejected({{"training", {{"virtual_stages", 2}}}},
                   "training.virtual_stages: 2 needs schedule interleaved-1f1b (schedule is 1f1b)");
    check_rejected({{"training", {{"schedule", "interleaved-1f1b"}}}},
                   "training.virtual_stages: 1 must be at least 2 for interleaved-1f1b");
    // pp 1: 2*1*16*2 = 64.
    check_rejected({{"parallel", {{"pp", 1}, {"dp_shard", 16}}},
                    {"training", {{"schedule", "interleaved-1f1b"}, {"virtual_stages", 2}, {"global_batch", 512}}}},
                   "training.schedule: interleaved-1f1b needs pp > 1 (pp is 1)");
    // 2 stages x 17 chunks = 34 > 32 layers.
    check_rejected({{"training", {{"schedule", "interleaved-1f1b"}, {"virtual_stages", 17}}}},
                   "training.virtual_stages: pp (2) x virtual_stages (17) = 34 model chunks exceeds layers (32); "
                   "every chunk needs a whole layer");
    // global_batch 48: m = 48 / 16 = 3, not a multiple of pp 2.
    check_rejected({{"training", {{"schedule", "interleaved-1f1b"}, {"virtual_stages", 2}, {"global_batch", 48}}}},
                   "training.global_batch: interleaved-1f1b needs the micro-batches per pipeline (3) to be a "
                   "multiple of pp (2)");
    check_rejected({{"parallel", {{"pp", 1}, {"dp_shard", 16}}},
                    {"training", {{"schedule", "dualpipe"}, {"global_batch", 512}}}},
                   "training.schedule: dualpipe needs an even pp (pp is 1)");
    check_rejected({{"training", {{"schedule", "dualpipe"}, {"global_batch", 48}}}},
                   "training.global_batch: dualpipe needs an even number of micro-batches per pipeline, at least "
                   "2 x pp (4); it is 3");
    // m = 32 / 16 = 2 is even but below 2 x pp = 4.
    check_rejected({{"training", {{"schedule", "dualpipe"}, {"global_batch", 32}}}},
                   "training.global_batch: dualpipe needs an even number of micro-batches per pipeline, at least "
                   "2 x pp (4); it is 2");
}

TEST_CASE("dense_layers round-trips and defaults to 0 when absent") {
    Scenario s = default_scenario();
    s.model.experts = 8;
    s.model.top_k = 2;
    s.model.expert_ffn_hidden = 14336;
    s.model.dense_layers = 3;
    const std::string text = scenario_to_json(s);
    CHECK(text.find("\"dense_layers\": 3") != std::string::npos);
    const ScenarioLoad loaded = parse_scenario(text);
    REQUIRE_MESSAGE(loaded.ok(), loaded.error);
    CHECK(loaded.scenario->model.dense_layers == 3);
    CHECK(scenario_to_json(*loaded.scenario) == text);
    CHECK(load_patched({{"model", {{"dense_layers", nullptr}}}}).scenario->model.dense_layers == 0);
}

TEST_CASE("a scenario must fit the pipeline simulator its step is priced by") {
    // m = global_batch / (micro_batch 1 x dp_shard 8 x dp_replicate 2) = global_batch / 16.
    check_rejected({{"training", {{"global_batch", 16 * 65537}}}},
                   "training.global_batch: 65537 micro-batches per pipeline exceeds the limit of 65536 the pipeline "
                   "simulator runs; raise micro_batch or the data-parallel size");
    // 65,536 micro-batches x 2 stages is 393,216 ops: within every limit.
    check_accepted({{"training", {{"global_batch", 16 * 65536}}}});
    // tp 2 x pp 16 x dp_shard 2 = 64 GPUs: m = global_batch / 2. 3 x 43691 x 16 = 2,097,168 ops is
    // past 2^21 = 2,097,152; 3 x 43690 x 16 = 2,097,120 is not.
    const Json pp16 = {{"pp", 16}, {"dp_shard", 2}, {"dp_replicate", 1}};
    check_rejected({{"parallel", pp16}, {"training", {{"global_batch", 2 * 43691}}}},
                   "training.global_batch: 3 x 43691 micro-batches x 16 stages = 2097168 pipeline ops exceeds the "
                   "limit of 2097152 the pipeline simulator runs");
    check_accepted({{"parallel", pp16}, {"training", {{"global_batch", 2 * 43690}}}});
    // Interleaving doubles the ops: 3 x 21856 x 16 x 2 = 2,098,176 (21856 = 16 x 1366, a multiple of pp).
    check_rejected({{"parallel", pp16},
                    {"training", {{"global_batch", 2 * 21856}, {"schedule", "interleaved-1f1b"}, {"virtual_stages", 2}}}},
                   "training.global_batch: 3 x 21856 micro-batches x 16 stages x 2 virtual stages = 2098176 pipeline "
                   "ops exceeds the limit of 2097152 the pipeline simulator runs");
    // A bare parameter count has no layers to bound pp: 8,192 stages on 1,024 nodes x 8 GPUs.
    check_rejected({{"model", {{"params", 70e9}, {"layers", 0}, {"hidden", 0}}},
                    {"cluster", {{"nodes", 1024}}},
                    {"parallel", {{"tp", 1}, {"pp", 8192}, {"dp_shard", 1}, {"dp_replicate", 1}, {"zero", 0}}}},
                   "parallel.pp: 8192 stages exceeds the limit of 4096 the pipeline simulator runs");
}

TEST_CASE("valid micro-batches: the sizes the global batch splits into over the data-parallel ranks") {
    // The default scenario: 256 sequences over dp_shard 8 x dp_replicate 2 = 16 ranks, 16 each.
    Scenario s = default_scenario();
    CHECK(valid_micro_batches(s) == std::vector<int64_t>{1, 2, 4, 8, 16});
    // Twice the GPUs the layout uses: the leftover half become replicas, 8 x 4 = 32 ranks, 8 sequences each.
    s.cluster.nodes = 16;
    CHECK(valid_micro_batches(s) == std::vector<int64_t>{1, 2, 4, 8});
    // 96 sequences over 32 ranks: 3 each.
    s.training.global_batch = 96;
    CHECK(valid_micro_batches(s) == std::vector<int64_t>{1, 3});
    // 100 does not split over 32 ranks at all.
    s.training.global_batch = 100;
    CHECK(valid_micro_batches(s).empty());
    // Every size offered passes the loader's rule.
    s.training.global_batch = 96;
    for (int64_t mb : valid_micro_batches(s)) {
        s.training.micro_batch = mb;
        CHECK(validate_scenario(s) == "");
    }
}

TEST_CASE("Megatron-LM's recompute modules, FP8 activation inputs and bf16 Adam moments") {
    const Json megatron_selective = {{"recompute", "selective"}, {"fused_kernels", true}};
    SUBCASE("recompute_modules: Megatron-LM's names, on its selective recompute only") {
        Json t = megatron_selective;
        t["recompute_modules"] = {"layernorm", "moe_act"};
        const ScenarioLoad loaded = load_patched({{"training", t}});
        REQUIRE_MESSAGE(loaded.ok(), loaded.error);
        const RecomputeModules& m = loaded.scenario->training.recompute_modules;
        CHECK_FALSE(m.core_attn);
        CHECK(m.layernorm);
        CHECK_FALSE(m.mla_up_proj);
        CHECK(m.moe_act);
        // Saved as loaded, in --recompute-modules' order.
        const Json saved = Json::parse(scenario_to_json(*loaded.scenario));
        CHECK(saved["training"]["recompute_modules"] == Json({"layernorm", "moe_act"}));
        t["recompute_modules"] = {"core_attn", "mlp"};
        check_rejected({{"training", t}},
                       "training.recompute_modules: \"mlp\" is not one of core_attn, layernorm, mla_up_proj, moe_act");
        const std::string only = "training.recompute_modules: applies to recompute selective with fused_kernels true "
                                 "(Megatron-LM's --recompute-modules); without fused kernels selective is "
                                 "torchtitan's op-level policy";
        check_rejected({{"training", {{"recompute", "full"}, {"fused_kernels", true}, {"recompute_modules", {"layernorm"}}}}},
                       only);
        check_rejected({{"training", {{"recompute", "selective"}, {"recompute_modules", {"layernorm"}}}}}, only);
    }
    SUBCASE("the default, the attention core alone, is not written out") {
        Scenario s = default_scenario();
        s.training.recompute = Recompute::selective;
        s.training.fused_kernels = true;
        CHECK(Json::parse(scenario_to_json(s))["training"].count("recompute_modules") == 0);
    }
    SUBCASE("activation_func_fp8_input_store needs FP8 on the fused stack") {
        check_rejected({{"training", {{"activation_func_fp8_input_store", true}}}},
                       "training.activation_func_fp8_input_store: needs precision fp8 (precision is mixed-bf16)");
        // It is Megatron-LM's switch: PyTorch's float8 has none.
        check_rejected({{"training", {{"activation_func_fp8_input_store", true}, {"precision", "fp8"}}}},
                       "training.activation_func_fp8_input_store: Megatron-LM's --activation-func-fp8-input-store "
                       "needs fused_kernels true (PyTorch's float8 keeps the activation's input in bf16)");
        check_accepted({{"training", {{"activation_func_fp8_input_store", true}, {"precision", "fp8"}, {"fused_kernels", true}}}});
    }
    SUBCASE("fp8_param_gather needs FP8 on Megatron-LM's stack and its distributed optimizer") {
        check_rejected({{"training", {{"fp8_param_gather", true}}}},
                       "training.fp8_param_gather: needs precision fp8 (precision is mixed-bf16)");
        check_rejected({{"training", {{"fp8_param_gather", true}, {"precision", "fp8"}}}},
                       "training.fp8_param_gather: Megatron-LM's --fp8-param-gather needs fused_kernels true (Transformer "
                       "Engine's FP8 weights; PyTorch's float8 keeps BF16 weights)");
        // DDP (nothing sharded): Megatron-LM asserts the distributed optimizer or FSDP.
        check_rejected({{"training", {{"fp8_param_gather", true}, {"precision", "fp8"}, {"fused_kernels", true}}},
                        {"parallel", {{"zero", 0}, {"dp_shard", 1}, {"dp_replicate", 16}}}},
                       "training.fp8_param_gather: Megatron-LM's --fp8-param-gather needs the distributed optimizer or FSDP "
                       "(parallel.zero 1 or more); zero is 0");
        const ScenarioLoad loaded = load_patched({{"training", {{"fp8_param_gather", true}, {"precision", "fp8"}, {"fused_kernels", true}}}});
        REQUIRE_MESSAGE(loaded.ok(), loaded.error);
        CHECK(loaded.scenario->training.fp8_param_gather);
        CHECK(Json::parse(scenario_to_json(*loaded.scenario))["training"]["fp8_param_gather"] == true);
    }
    SUBCASE("bf16_adam_moments loads and saves") {
        const ScenarioLoad loaded = load_patched({{"training", {{"bf16_adam_moments", true}}}});
        REQUIRE_MESSAGE(loaded.ok(), loaded.error);
        CHECK(loaded.scenario->training.bf16_adam_moments);
        CHECK(Json::parse(scenario_to_json(*loaded.scenario))["training"]["bf16_adam_moments"] == true);
    }
    SUBCASE("grad_reduce_in_bf16 needs Megatron-LM's FP32 main gradients, loads and saves") {
        // The default precision, mixed-bf16, already keeps 2-byte gradients.
        check_rejected({{"training", {{"grad_reduce_in_bf16", true}}}},
                       "training.grad_reduce_in_bf16: needs precision megatron-bf16 or fp8, whose gradients "
                       "Megatron-LM keeps in FP32 (precision is mixed-bf16)");
        const ScenarioLoad loaded = load_patched({{"training", {{"grad_reduce_in_bf16", true}, {"precision", "megatron-bf16"}}}});
        REQUIRE_MESSAGE(loaded.ok(), loaded.error);
        CHECK(loaded.scenario->training.grad_reduce_in_bf16);
        CHECK(Json::parse(scenario_to_json(*loaded.scenario))["training"]["grad_reduce_in_bf16"] == true);
        // A scenario whose precision changed since drops the flag when saved.
        Scenario s = *loaded.scenario;
        s.training.precision = Precision::mixed_bf16;
        CHECK_FALSE(Json::parse(scenario_to_json(s))["training"].contains("grad_reduce_in_bf16"));
    }
}
