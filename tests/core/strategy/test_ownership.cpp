#include "core/model/cost_model.hpp"
#include "core/strategy/ownership.hpp"
#include "core/strategy/strategy_price.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace shardscope;

namespace {

using Owners = std::vector<int64_t>;

// A hand-countable model on one node of 8 GPUs: 4 blocks of hidden 64, 8 heads (kv 8), gelu FFN of
// 256, vocab 1000, sequences of 64 tokens, 8 sequences per step.
// Per block: attention 4*64*64 = 16,384 params; FFN up 64*256 = 16,384, down 16,384.
// Embedding 1000*64 = 64,000; LM head 64,000 + final norm 64 = 64,064.
Scenario toy() {
    Scenario s;
    s.model.name = "toy";
    s.model.layers = 4;
    s.model.hidden = 64;
    s.model.ffn_hidden = 256;
    s.model.heads = 8;
    s.model.kv_heads = 8;
    s.model.vocab = 1000;
    s.model.seq_len = 64;
    s.model.ffn = Ffn::gelu;
    s.cluster.nodes = 1;
    s.cluster.gpus_per_node = 8;
    s.parallel = ParallelSpec{};
    s.training.global_batch = 8;
    s.training.micro_batch = 1;
    return s;
}

// A toy MoE: the same blocks with 4 routed experts (FFN of 64) instead of the dense MLP.
Scenario toy_moe() {
    Scenario s = toy();
    s.model.experts = 4;
    s.model.top_k = 1;
    s.model.expert_ffn_hidden = 64;
    return s;
}

const Piece& find(const Ownership& o, PieceKind kind, PieceState state, int64_t row, int64_t cell, int64_t slice = 0) {
    const auto it = std::find_if(o.pieces.begin(), o.pieces.end(), [&](const Piece& p) {
        return p.kind == kind && p.state == state && p.row == row && p.cell == cell && p.slice == slice;
    });
    REQUIRE(it != o.pieces.end());
    return *it;
}

Ownership built(const Scenario& s) {
    REQUIRE(validate_scenario(s) == "");
    return build_ownership(s);
}

}  // namespace

TEST_CASE("one GPU holds every piece, nothing is copied") {
    const Ownership o = built(toy());
    CHECK(o.gpus == 1);
    CHECK(o.leftover_copies == 8);  // the other 7 GPUs are replicas of this one
    REQUIRE(o.rows.size() == 4);    // 4 layers, one row each
    CHECK(o.shape.head_cells == 8);
    for (const Piece& p : o.pieces) {
        CHECK(p.owners == Owners{0});
        CHECK_FALSE(p.copied());
    }
    // One head cell of one block: 16,384 / 8 = 2,048 params, bf16 weights 2 B -> 4,096 B; Adam 12 B -> 24,576 B.
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 3).bytes == doctest::Approx(4096));
    CHECK(find(o, PieceKind::attention, PieceState::optimizer, 0, 3).bytes == doctest::Approx(24576));
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 3).collective.find("none") == 0);
}

TEST_CASE("under FP8 a block's weights carry their FP8 copy and the embedding and LM head do not") {
    Scenario s = toy();
    s.cluster.gpu.peak_fp8_tflops = 1979;
    s.training.precision = Precision::fp8;
    const Ownership o = built(s);
    // A head cell of a block: 2,048 params x (2 B bf16 + 1 B FP8) = 6,144 B. An embedding cell (the
    // explorer's column cells, one per head cell): 64,000 / 8 = 8,000 params x 2 B = 16,000 B, as the
    // memory report counts them.
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 3).bytes == doctest::Approx(6144));
    CHECK(find(o, PieceKind::embedding, PieceState::weights, -1, 3).bytes == doctest::Approx(16000));
}

TEST_CASE("TP 2 splits each attention's heads in halves and the MLP by columns and rows") {
    Scenario s = toy();
    s.parallel.tp = 2;
    const Ownership o = built(s);
    CHECK(o.gpus == 2);
    for (int64_t row = 0; row < 4; ++row) {
        for (int64_t c = 0; c < 8; ++c) {
            const Owners want{c < 4 ? 0 : 1};
            CHECK(find(o, PieceKind::attention, PieceState::weights, row, c).owners == want);
            CHECK(find(o, PieceKind::mlp_in, PieceState::weights, row, c).owners == want);
            CHECK(find(o, PieceKind::mlp_out, PieceState::grads, row, c).owners == want);
        }
    }
    // Head cell 5 stands for head 5 of 8; MLP column cell 5 for columns 160..191 of 256.
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 5).first == 5);
    CHECK(find(o, PieceKind::mlp_in, PieceState::weights, 0, 5).first == 160);
    CHECK(find(o, PieceKind::mlp_in, PieceState::weights, 0, 5).last == 192);
    // Both TP ranks read the same tokens: every batch piece sits on both GPUs (copied, hatched).
    const Piece& batch = find(o, PieceKind::batch, PieceState::data, 0, 0);
    CHECK(batch.owners == Owners{0, 1});
    CHECK(batch.on_every_gpu);
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 0).collective.find("TP all-reduce") == 0);
}

TEST_CASE("SP with TP 2 gives each tp rank a contiguous half of every sequence's tokens") {
    // The toy's 8 sequences of 64 tokens, no DP or CP: one batch row per sequence, 8 chunks of 8
    // tokens; SP gives chunks 0-3 (tokens 0-31) to GPU 0 (tp 0) and chunks 4-7 to GPU 1 (tp 1), as
    // Megatron splits the sequence dim of the hidden state between the TP regions.
    Scenario s = toy();
    s.parallel.tp = 2;
    s.parallel.sequence_parallel = true;
    const Ownership o = built(s);
    CHECK(o.shape.seq_chunks == 8);
    CHECK(find(o, PieceKind::batch, PieceState::data, 0, 3).owners == Owners{0});
    const Piece& second_half = find(o, PieceKind::batch, PieceState::data, 0, 4);
    CHECK(second_half.owners == Owners{1});
    CHECK(second_half.token_first == 32);
    CHECK(second_half.collective.find("SP: norm and dropout activations cut along the sequence over tp") != std::string::npos);
    // Each GPU holds the hidden state of half the tokens: 8 sequences x 32 tokens x hidden 64 x 2 bytes.
    CHECK(o.held_bytes(0).data == doctest::Approx(8.0 * 32 * 64 * 2));
    CHECK(o.held_bytes(1).token_first == 32);
    CHECK(o.held_bytes(1).token_last == 64);
    // Without SP both ranks hold every token (the test above): 8 x 64 x 64 x 2.
    s.parallel.sequence_parallel = false;
    CHECK(built(s).held_bytes(0).data == doctest::Approx(8.0 * 64 * 64 * 2));
}

TEST_CASE("PP 2 gives layers 0..L/2-1 to stage 0, the embedding to the first and the LM head to the last") {
    Scenario s = toy();
    s.parallel.pp = 2;
    const Ownership o = built(s);
    REQUIRE(o.rows.size() == 4);  // 4 rows per stage wanted, 2 layers each: one row per layer
    CHECK(o.rows[0].stage == 0);
    CHECK(o.rows[1].stage == 0);
    CHECK(o.rows[1].first_layer == 1);
    CHECK(o.rows[2].stage == 1);
    CHECK(o.rows[2].first_layer == 2);
    // order tp, cp, dp_shard, dp_replicate, pp: only pp > 1, so stage = rank.
    CHECK(find(o, PieceKind::attention, PieceState::weights, 1, 0).owners == Owners{0});
    CHECK(find(o, PieceKind::attention, PieceState::weights, 2, 0).owners == Owners{1});
    CHECK(find(o, PieceKind::embedding, PieceState::weights, -1, 0).owners == Owners{0});
    CHECK(find(o, PieceKind::lm_head, PieceState::weights, -1, 0).owners == Owners{1});
    // Every stage runs every sequence.
    CHECK(find(o, PieceKind::batch, PieceState::data, 7, 7).owners == Owners{0, 1});
}

TEST_CASE("DP replicates the weights on every GPU and splits the batch rows") {
    Scenario s = toy();
    s.parallel.dp_replicate = 2;
    const Ownership o = built(s);
    for (const Piece& p : o.pieces) {
        if (p.kind == PieceKind::batch) continue;
        CHECK(p.on_every_gpu);
        CHECK(p.owners == Owners{0, 1});
    }
    CHECK(o.shape.batch_rows == 8);
    // Rows 0..3 (sequences 0..3) on GPU 0, rows 4..7 on GPU 1.
    CHECK(find(o, PieceKind::batch, PieceState::data, 3, 0).owners == Owners{0});
    CHECK(find(o, PieceKind::batch, PieceState::data, 4, 0).owners == Owners{1});
    CHECK(find(o, PieceKind::batch, PieceState::data, 4, 0).first == 4);
    CHECK(find(o, PieceKind::attention, PieceState::grads, 0, 0).collective.find("all-reduce") == 0);
}

TEST_CASE("ZeRO-1 shards the optimizer state over dp_shard, and ZeRO-3 the weights too") {
    Scenario s = toy();
    s.parallel.dp_shard = 2;
    s.parallel.zero = 1;
    Ownership o = built(s);
    // Optimizer state of head cell 0 is cut in two slices: 2,048 params * 12 B / 2 = 12,288 B each.
    const Piece& opt0 = find(o, PieceKind::attention, PieceState::optimizer, 0, 0, 0);
    const Piece& opt1 = find(o, PieceKind::attention, PieceState::optimizer, 0, 0, 1);
    CHECK(opt0.slices == 2);
    CHECK(opt0.owners == Owners{0});
    CHECK(opt1.owners == Owners{1});
    CHECK(opt1.bytes == doctest::Approx(12288));
    // Weights and gradients stay whole on both GPUs.
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 0).owners == Owners{0, 1});
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 0).slices == 1);
    CHECK(find(o, PieceKind::attention, PieceState::grads, 0, 0).slices == 1);

    s.parallel.zero = 3;
    o = built(s);
    const Piece& w1 = find(o, PieceKind::attention, PieceState::weights, 0, 0, 1);
    CHECK(w1.slices == 2);
    CHECK(w1.owners == Owners{1});
    CHECK(w1.bytes == doctest::Approx(2048));  // 2,048 params * 2 B / 2
    CHECK(w1.collective.find("FSDP all-gather") != std::string::npos);
    // Under ZeRO-3 each GPU holds exactly half the model state one GPU would.
    const double whole = built(toy()).state_bytes_held_by(0);
    CHECK(o.state_bytes_held_by(0) == doctest::Approx(whole / 2));
    CHECK(o.state_bytes_held_by(1) == doctest::Approx(whole / 2));
}

TEST_CASE("TP 2 x PP 2 x ZeRO-1 over dp_shard 2: ranks follow parallel.order") {
    Scenario s = toy();
    s.parallel.tp = 2;
    s.parallel.pp = 2;
    s.parallel.dp_shard = 2;
    s.parallel.zero = 1;
    const Ownership o = built(s);
    CHECK(o.gpus == 8);
    CHECK(o.leftover_copies == 1);
    // Strides: tp 1, dp_shard 2, pp 4. Block 0 (stage 0), head cell 0 (tp 0): ranks 0 and 2.
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 0).owners == Owners{0, 2});
    // Block 2 (stage 1), head cell 5 (tp 1), optimizer slice 1 (dp_shard 1): rank 1 + 2 + 4 = 7.
    CHECK(find(o, PieceKind::attention, PieceState::optimizer, 2, 5, 1).owners == Owners{7});
    // Batch row 4 (second data-parallel replica): dp_shard 1 on every tp and pp rank: 2, 3, 6, 7.
    CHECK(find(o, PieceKind::batch, PieceState::data, 4, 0).owners == Owners{2, 3, 6, 7});
    // Each GPU holds 1/2 (pp) x 1/2 (tp) of the weights.
    CHECK(o.held_by(0).size() == o.held_by(7).size());
}

TEST_CASE("CP 2 cuts every sequence into two halves of tokens") {
    Scenario s = toy();
    s.parallel.cp = 2;
    s.parallel.zero = 1;  // CP ranks shard the state with dp_shard (memory.hpp's rule)
    const Ownership o = built(s);
    CHECK(o.shape.seq_chunks == 8);
    const Piece& early = find(o, PieceKind::batch, PieceState::data, 0, 3);
    const Piece& late = find(o, PieceKind::batch, PieceState::data, 0, 4);
    CHECK(early.owners == Owners{0});
    CHECK(late.owners == Owners{1});
    CHECK(late.token_first == 32);
    CHECK(late.token_last == 40);
    CHECK(late.collective.find("CP") != std::string::npos);
    // GPU 1 reads every sequence (no DP), the second half of each one's tokens.
    const Ownership::Held h = o.held_bytes(1);
    CHECK(h.seq_first == 0);
    CHECK(h.seq_last == 8);
    CHECK(h.token_first == 32);
    CHECK(h.token_last == 64);
    // Hidden states of 8 sequences x 32 tokens x 64 wide x 2 B = 32,768 B.
    CHECK(h.data == doctest::Approx(32768));
    // Weights are the same on both CP ranks; ZeRO-1 shards their optimizer state over them.
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 0).on_every_gpu);
    CHECK(find(o, PieceKind::attention, PieceState::optimizer, 0, 0, 1).owners == Owners{1});
}

TEST_CASE("EP 2 puts half the experts of each MoE block on each GPU of the EP group") {
    Scenario s = toy_moe();
    s.parallel.dp_shard = 2;
    s.parallel.zero = 1;
    s.parallel.ep = 2;
    const Ownership o = built(s);
    CHECK(o.shape.expert_cells == 4);  // 4 experts, one cell each
    REQUIRE(o.rows[0].moe);
    CHECK(find(o, PieceKind::experts, PieceState::weights, 0, 0).owners == Owners{0});
    CHECK(find(o, PieceKind::experts, PieceState::weights, 0, 1).owners == Owners{0});
    CHECK(find(o, PieceKind::experts, PieceState::weights, 0, 2).owners == Owners{1});
    CHECK(find(o, PieceKind::experts, PieceState::weights, 0, 3).first == 3);
    // One expert: 2 * 64 * 64 = 8,192 params, bf16 -> 16,384 B (dp_shard*cp/ep = 1: nothing left to shard).
    CHECK(find(o, PieceKind::experts, PieceState::optimizer, 0, 3).bytes == doctest::Approx(8192.0 * 12));
    CHECK(find(o, PieceKind::experts, PieceState::weights, 0, 3).collective.find("EP all-to-all") == 0);
    // Attention is not expert-parallel: whole on both, its optimizer state ZeRO-1 sharded.
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 0).owners == Owners{0, 1});
    // No dense MLP in an MoE block without shared experts.
    CHECK(std::none_of(o.pieces.begin(), o.pieces.end(), [](const Piece& p) { return p.kind == PieceKind::mlp_in; }));
}

TEST_CASE("a layout past the explorer's limit is reported, not drawn") {
    Scenario s = default_scenario();  // tp 2 * pp 2 * dp_shard 8 * dp_replicate 2 = 64: drawn
    CHECK(built(s).unavailable.empty());
    s.cluster.nodes = 16;
    s.parallel.dp_replicate = 4;  // 128 GPUs per copy
    CHECK_FALSE(built(s).unavailable.empty());
    CHECK(built(s).pieces.empty());
}

TEST_CASE("strategy toggles map onto the parallel block") {
    Scenario s = toy();
    CHECK_FALSE(strategy_on(s.parallel, Dim::dp_shard));
    const Scenario fsdp = with_strategy_factor(s, Dim::dp_shard, 2);
    CHECK(fsdp.parallel.dp_shard == 2);
    CHECK(fsdp.parallel.zero == 3);
    CHECK(with_strategy_factor(fsdp, Dim::dp_shard, 1).parallel.zero == 0);
    CHECK(strategy_from_key("zero") == Dim::dp_shard);
    CHECK(strategy_from_key("sp") == Dim::cp);
    CHECK_FALSE(strategy_from_key("xx"));
    CHECK(std::string(dim_facts(Dim::ep).communication).find("all-to-all") == 0);
}

TEST_CASE("the price of each strategy comes from the report's dims; DP saves no memory, ZeRO-3 does") {
    Scenario s = toy();
    s.parallel.dp_replicate = 2;
    s.parallel.tp = 2;
    Report r = build_report(s);
    std::vector<StrategyPrice> prices = price_strategies(s, r);
    REQUIRE(prices.size() == 2);
    CHECK(prices[0].strategy == Dim::dp_replicate);
    CHECK(prices[0].collective == "all-reduce");
    CHECK(prices[0].cadence == "once per step");
    REQUIRE(prices[0].memory_saved);
    CHECK(*prices[0].memory_saved == doctest::Approx(0));  // every replica keeps the whole state
    CHECK(prices[1].strategy == Dim::tp);
    CHECK(prices[1].bytes_per_step > 0);
    REQUIRE(prices[1].memory_saved);
    CHECK(*prices[1].memory_saved > 0);

    s = toy();
    s.parallel.dp_shard = 8;
    s.parallel.zero = 3;
    r = build_report(s);
    prices = price_strategies(s, r);
    REQUIRE(prices.size() == 1);
    CHECK(prices[0].dim == "dp_shard");
    CHECK(prices[0].cadence == "every block, each micro-batch");
    REQUIRE(prices[0].memory_saved);
    CHECK(*prices[0].memory_saved > 0);
    REQUIRE(memory_saved_vs_plain_dp(s, r));
    CHECK(*memory_saved_vs_plain_dp(s, r) == doctest::Approx(*prices[0].memory_saved));
}

TEST_CASE("cells cut into many ZeRO slices come fewer: a band of a group stays about 32 pieces") {
    Scenario s = toy();
    s.parallel.dp_shard = 8;
    s.parallel.zero = 3;
    const Ownership o = built(s);
    // 8 head cells x 8 slices = 64 > 32: 4 cells (2 heads each) of 8 slices.
    CHECK(o.shape.head_cells == 4);
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 3, 7).first == 6);
    CHECK(find(o, PieceKind::attention, PieceState::weights, 0, 3, 7).owners == Owners{7});
    s.parallel.dp_shard = 2;
    CHECK(built(s).shape.head_cells == 8);  // 8 x 2 = 16: as many cells as wanted
}

TEST_CASE("factor_refusal: why a strategy's count is refused, with what would make room") {
    // The default: Llama 3 8B (dense, 32 heads) on 64 GPUs as tp 2 x pp 2 x dp_shard 8 x dp_replicate 2.
    const Scenario s = default_scenario();
    CHECK(factor_refusal(s, Dim::tp, 1) == "");            // 32 GPUs a copy: two copies
    CHECK(factor_refusal(s, Dim::dp_replicate, 1) == "");
    // tp 4: 4 x 2 x 8 x 2 = 128 GPUs for one copy, on 64.
    CHECK(factor_refusal(s, Dim::tp, 4) ==
          "one copy of this layout would need 128 GPUs and the cluster has 64: add nodes (Device mesh) or lower "
          "another strategy");
    // dp_shard 3: 2 x 2 x 3 x 2 = 24 GPUs a copy, and 64 is no whole number of 24s.
    CHECK(factor_refusal(s, Dim::dp_shard, 3) == "24 GPUs per copy do not split the cluster's 64 GPUs into whole copies");
    CHECK(factor_refusal(s, Dim::ep, 2) ==
          "Llama 3 8B is dense: expert parallelism splits the experts of an MoE model, and it has none");
    CHECK(factor_refusal(s, Dim::ep, 1) == "");
    // A count within the GPUs that breaks another rule gets core's rule, by its field: 6 sequences do not
    // split over 16 data-parallel replicas.
    Scenario odd = s;
    odd.training.global_batch = 6;
    const std::string rule = factor_refusal(odd, Dim::tp, 1);
    CHECK(rule.find("training.global_batch") == 0);
}

TEST_CASE("ZeRO-2 is described as the cost model prices it: gradients reduce-scattered each micro-batch") {
    // The price table said "once per step" beside "reduce-scatter per micro-batch + all-gather", and the
    // strategy table said ZeRO-2 shards the weights.
    Scenario s = toy();
    s.parallel.dp_shard = 2;
    s.parallel.zero = 2;
    REQUIRE(validate_scenario(s).empty());
    const Report r = build_report(s);
    std::string cadence;
    for (const StrategyPrice& p : price_strategies(s, r))
        if (p.strategy == Dim::dp_shard) cadence = p.cadence;
    CHECK(cadence == "gradients each micro-batch, updated weights once per step");
    s.parallel.zero = 1;
    CHECK(communication_cadence(Dim::dp_shard, s.parallel) == "once per step");
    // What each stage shards, in the strategy table's words.
    CHECK(std::string(dim_facts(Dim::dp_shard, 2).splits).find("weights") == std::string::npos);
    CHECK(std::string(dim_facts(Dim::dp_shard, 2).communication).find("every micro-batch") != std::string::npos);
    CHECK(std::string(dim_facts(Dim::dp_shard, 1).splits).find("gradients") == std::string::npos);
    CHECK(std::string(dim_facts(Dim::dp_shard, 3).splits) == dim_facts(Dim::dp_shard).splits);
    CHECK(std::string(dim_facts(Dim::tp, 2).splits) == dim_facts(Dim::tp).splits);
    // A block's gradient slice, hovered: when it is sent.
    s.parallel.zero = 2;
    const Ownership o = built(s);
    CHECK(find(o, PieceKind::attention, PieceState::grads, 0, 0).collective ==
          "reduce-scatter over dp_shard x cp, each micro-batch");
}

TEST_CASE("every strategy off on 64 GPUs: the price table has the 64 copies' DP, as the mesh runs them") {
    // Reset to one GPU: the explorer said nothing is sent while the mesh all-reduced over 64 replicas.
    Scenario s = default_scenario();
    s.parallel.tp = s.parallel.pp = s.parallel.dp_shard = s.parallel.dp_replicate = 1;
    s.parallel.zero = 0;
    s.parallel.sequence_parallel = false;
    REQUIRE(validate_scenario(s).empty());
    const Report r = build_report(s);
    REQUIRE(r.leftover_dp_replicate == 64);
    const std::vector<StrategyPrice> prices = price_strategies(s, r);
    REQUIRE(prices.size() == 1);
    CHECK(prices[0].strategy == Dim::dp_replicate);
    CHECK(prices[0].factor == 64);
    CHECK(prices[0].leftover_copies == 64);
    CHECK(prices[0].collective == "all-reduce");
    CHECK(prices[0].bytes_per_step > 0);
    REQUIRE(prices[0].memory_saved);
    CHECK(*prices[0].memory_saved == 0.0);
    // A layout that fills the cluster has no copies left over.
    CHECK(price_strategies(default_scenario(), build_report(default_scenario())).front().leftover_copies == 1);
}
