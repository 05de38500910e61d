// The planner (core/planner/planner.hpp): every candidate valid, the pruned search equal to brute force, and a
// small case whose winner follows from the overlap rules by hand.
#include "core/planner/planner.hpp"

#include "core/model/cost_model.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <tuple>

using namespace shardscope;
using shardscope::test::small_dense;

namespace {

// A small MoE model: 8 experts, top 2, on one node of 8 GPUs, so ep can be 1, 2, 4 or 8.
Scenario small_moe() {
    Scenario s = small_dense();
    s.model.name = "small-moe";
    s.model.experts = 8;
    s.model.top_k = 2;
    s.model.expert_ffn_hidden = 2048;
    s.cluster.nodes = 1;
    s.parallel.dp_replicate = 8;
    s.training.global_batch = 8;
    REQUIRE(validate_scenario(s).empty());
    return s;
}

void check_same_ranking(const PlanResult& pruned, const PlanResult& brute) {
    REQUIRE(pruned.ranked.size() == brute.ranked.size());
    for (std::size_t i = 0; i < brute.ranked.size(); ++i) {
        CAPTURE(i);
        CHECK(describe_layout(pruned.ranked[i].scenario) == describe_layout(brute.ranked[i].scenario));
        CHECK(pruned.ranked[i].step_s == brute.ranked[i].step_s);
        CHECK(pruned.ranked[i].memory_bytes == brute.ranked[i].memory_bytes);
        REQUIRE(pruned.ranked[i].also.size() == brute.ranked[i].also.size());
        for (std::size_t v = 0; v < brute.ranked[i].also.size(); ++v)
            CHECK(describe_layout(pruned.ranked[i].also[v].scenario) == describe_layout(brute.ranked[i].also[v].scenario));
    }
}

PlanResult run(const Scenario& s, PlanOptions o, bool prune) {
    o.prune = prune;
    return plan_layouts(s, o);
}

}  // namespace

TEST_CASE("planner: every enumerated candidate passes validate_scenario, uses every GPU, and is listed once") {
    for (const Scenario& base : {small_dense(), small_moe()}) {
        PlanOptions o;
        o.all_orders = true;
        const std::vector<Scenario> all = enumerate_candidates(base, o);
        REQUIRE(all.size() > 1000);
        std::set<std::string> seen;
        for (const Scenario& s : all) {
            INFO(describe_layout(s));
            REQUIRE(validate_scenario(s) == "");
            CHECK(s.parallel.product() == base.cluster.gpu_count());  // no leftover replicas
            CHECK(seen.insert(describe_layout(s)).second);
            // Held from the scenario.
            CHECK(s.training.global_batch == base.training.global_batch);
            CHECK(s.model.name == base.model.name);
        }
        // The search counts the same candidates.
        CHECK(plan_layouts(base, o).stats.candidates == static_cast<int64_t>(all.size()));
    }
}

TEST_CASE("planner: a scenario's pipeline split is held: embedding and loss chunks, uneven ends at its own pp") {
    const auto has = [](const std::vector<Scenario>& all, const std::string& layout) {
        return std::any_of(all.begin(), all.end(), [&](const Scenario& s) { return describe_layout(s) == layout; });
    };
    SUBCASE("both splits are searched: 8 layers + 2 = 10 chunks interleave 5 deep on pp 2, 8 layers 2 or 4") {
        for (const bool counted : {false, true}) {
            Scenario base = small_dense();
            base.parallel.embedding_in_pipeline_split = counted;
            base.parallel.loss_in_pipeline_split = counted;
            REQUIRE(validate_scenario(base).empty());
            const std::vector<Scenario> all = enumerate_candidates(base, PlanOptions{});
            for (const Scenario& s : all) REQUIRE(validate_scenario(s) == "");
            const std::string pp2 = "tp 1, pp 2, dp_replicate 8, zero 0, mb 1, ";
            CHECK(has(all, pp2 + "interleaved-1f1b v5, recompute none, emb+loss in split"));
            CHECK(!has(all, pp2 + "interleaved-1f1b v4, recompute none, emb+loss in split"));
            CHECK(has(all, pp2 + "interleaved-1f1b v4, recompute none"));
            CHECK(!has(all, pp2 + "interleaved-1f1b v5, recompute none"));
            CHECK(plan_layouts(base, PlanOptions{}).stats.candidates == static_cast<int64_t>(all.size()));
        }
    }
    SUBCASE("a mixed split of the scenario's own is searched beside both") {
        Scenario base = small_dense();
        base.parallel.embedding_in_pipeline_split = true;  // 8 + 1 = 9 units: pp 2 cannot interleave them
        REQUIRE(validate_scenario(base).empty());
        const std::vector<Scenario> all = enumerate_candidates(base, PlanOptions{});
        for (const Scenario& s : all) REQUIRE(validate_scenario(s) == "");
        CHECK(has(all, "tp 1, pp 2, dp_replicate 8, zero 0, mb 1, 1f1b, recompute none, emb in split"));
        CHECK(has(all, "tp 1, pp 2, dp_replicate 8, zero 0, mb 1, 1f1b, recompute none, emb+loss in split"));
        CHECK(has(all, "tp 1, pp 2, dp_replicate 8, zero 0, mb 1, 1f1b, recompute none"));
        CHECK(plan_layouts(base, PlanOptions{}).stats.candidates == static_cast<int64_t>(all.size()));
    }
    SUBCASE("uneven ends (1 + 6 + 1 layers on pp 4) stay at pp 4; every other depth splits evenly") {
        Scenario base = small_dense();
        base.parallel.pp = 4;
        base.parallel.dp_replicate = 4;
        base.parallel.first_stage_layers = 1;
        base.parallel.last_stage_layers = 1;
        REQUIRE(validate_scenario(base).empty());
        const std::vector<Scenario> all = enumerate_candidates(base, PlanOptions{});
        for (const Scenario& s : all) {
            INFO(describe_layout(s));
            REQUIRE(validate_scenario(s) == "");
            const bool kept = s.parallel.first_stage_layers == 1 && s.parallel.last_stage_layers == 1;
            CHECK(kept == (s.parallel.pp == 4));
            if (kept) CHECK(s.training.schedule != Schedule::interleaved_1f1b);
        }
        const PlanResult r = plan_layouts(base, PlanOptions{});
        CHECK(r.stats.candidates == static_cast<int64_t>(all.size()));
        CHECK(r.notes.empty());  // no costed layout broke an invariant
        REQUIRE(!r.ranked.empty());
    }
}

TEST_CASE("planner: the knobs are searched completely on the small dense case") {
    PlanOptions o;
    const std::vector<Scenario> all = enumerate_candidates(small_dense(), o);
    std::set<int64_t> tps, pps, cps, mbs, vs;
    std::set<int> zeros, schedules, recomputes;
    for (const Scenario& s : all) {
        tps.insert(s.parallel.tp);
        pps.insert(s.parallel.pp);
        cps.insert(s.parallel.cp);
        mbs.insert(s.training.micro_batch);
        zeros.insert(s.parallel.zero);
        schedules.insert(static_cast<int>(s.training.schedule));
        recomputes.insert(static_cast<int>(s.training.recompute));
        if (s.training.schedule == Schedule::interleaved_1f1b) vs.insert(s.training.virtual_stages);
    }
    // tp divides 8 heads and 8 KV heads; pp <= 8 layers; cp divides 2048 and 16 GPUs.
    CHECK(tps == std::set<int64_t>{1, 2, 4, 8});
    CHECK(pps == std::set<int64_t>{1, 2, 4, 8});
    CHECK(cps == std::set<int64_t>{1, 2, 4, 8, 16});
    CHECK(mbs == std::set<int64_t>{1, 2, 4, 8, 16});
    CHECK(zeros == std::set<int>{0, 1, 2, 3});
    CHECK(schedules.size() == 6);
    CHECK(recomputes.size() == 3);
    // Interleaving: chunks of whole, equal layers: 8 layers on pp 2 split into v = 2 or 4 (v = 3
    // would leave 8/6 layers a chunk); pp 4 into v = 2. With the embedding and the loss as chunks of
    // their own, 10 units: pp 2 into v = 5.
    CHECK(vs == std::set<int64_t>{2, 4, 5});
}

TEST_CASE("planner: pruning keeps brute force's top 10 (dense, MoE, every objective, filters, all orders)") {
    PlanOptions o;
    SUBCASE("dense, step") { check_same_ranking(run(small_dense(), o, true), run(small_dense(), o, false)); }
    SUBCASE("dense, memory") {
        o.objective = PlanObjective::memory;
        check_same_ranking(run(small_dense(), o, true), run(small_dense(), o, false));
    }
    SUBCASE("dense, mfu, small GPUs") {
        // 2 GB GPUs: most layouts cannot fit, so the memory floor prunes.
        Scenario s = small_dense();
        s.cluster.gpu.memory_gb = 2;
        o.objective = PlanObjective::mfu;
        const PlanResult pruned = run(s, o, true);
        CHECK(pruned.stats.pruned_memory > 0);
        check_same_ranking(pruned, run(s, o, false));
    }
    SUBCASE("dense, GPUs that hold some schedules' peak activations and not others'") {
        // The memory floor counts each schedule's peak in-flight activations from its closed form: at
        // these sizes it decides for many interleaved and GPipe candidates, so it must never cut a
        // layout that fits.
        for (double gb : {1.6, 3.0}) {
            CAPTURE(gb);
            Scenario s = small_dense();
            s.cluster.gpu.memory_gb = gb;
            const PlanResult pruned = run(s, o, true);
            CHECK(pruned.stats.pruned_memory > 0);
            CHECK(pruned.ranked.size() == 10);
            check_same_ranking(pruned, run(s, o, false));
        }
    }
    SUBCASE("MoE, step, every order") {
        o.all_orders = true;
        check_same_ranking(run(small_moe(), o, true), run(small_moe(), o, false));
    }
    SUBCASE("MoE, the base scenario on DualPipe, GPUs the memory floor decides on") {
        // The floors price every schedule from one parameter copy and add DualPipe's second where a
        // candidate holds one; the base's own schedule must not double every layout's weights.
        Scenario s = small_moe();
        s.parallel.dp_replicate = 4;
        s.parallel.pp = 2;
        s.training.global_batch = 16;  // four micro-batches a pipeline: DualPipe's least on two stages
        s.training.schedule = Schedule::dualpipe;
        REQUIRE(validate_scenario(s).empty());
        for (double gb : {4.0, 6.0}) {
            s.cluster.gpu.memory_gb = gb;
            for (PlanObjective objective : {PlanObjective::step, PlanObjective::memory}) {
                CAPTURE(gb);
                CAPTURE(to_string(objective));
                o.objective = objective;
                const PlanResult pruned = run(s, o, true);
                CHECK(pruned.stats.pruned_memory > 0);
                CHECK(pruned.ranked.size() == 10);
                check_same_ranking(pruned, run(s, o, false));
            }
        }
    }
    SUBCASE("dense, filters") {
        o.filters.tp_within_node = true;
        o.filters.zero_at_most_1 = true;
        const PlanResult pruned = run(small_dense(), o, true);
        check_same_ranking(pruned, run(small_dense(), o, false));
        for (const PlanEntry& e : pruned.ranked) CHECK(e.scenario.parallel.zero <= 1);
    }
    SUBCASE("dense, one row per mesh") {
        o.one_per_mesh = true;
        const PlanResult pruned = run(small_dense(), o, true);
        check_same_ranking(pruned, run(small_dense(), o, false));
        for (std::size_t i = 0; i < pruned.ranked.size(); ++i)
            for (std::size_t j = 0; j < i; ++j) {
                const ParallelSpec& a = pruned.ranked[i].scenario.parallel;
                const ParallelSpec& b = pruned.ranked[j].scenario.parallel;
                CHECK(std::tie(a.tp, a.cp, a.pp, a.dp_shard, a.dp_replicate) != std::tie(b.tp, b.cp, b.pp, b.dp_shard, b.dp_replicate));
            }
    }
    SUBCASE("any number of threads finds the same ranking from the same candidates") {
        for (const Scenario& base : {small_dense(), small_moe()}) {
            o.threads = 1;
            const PlanResult one = run(base, o, true);
            o.threads = 5;  // more threads than this machine may have: each takes every fifth layout
            const PlanResult five = run(base, o, true);
            check_same_ranking(five, one);
            CHECK(five.stats.candidates == one.stats.candidates);
            CHECK(five.stats.pruned_memory == one.stats.pruned_memory);
            CHECK(five.stats.layouts == one.stats.layouts);
        }
    }
    SUBCASE("the pruned search costs far fewer candidates") {
        const PlanResult pruned = run(small_dense(), o, true);
        CHECK(pruned.stats.costed * 10 < pruned.stats.candidates);
        CHECK(pruned.stats.costed + pruned.stats.pruned_memory + pruned.stats.pruned_time == pruned.stats.candidates);
    }
}

TEST_CASE("planner: the numbers are build_report's") {
    const PlanResult r = plan_layouts(small_dense(), PlanOptions{});
    REQUIRE(!r.ranked.empty());
    for (const PlanEntry& e : r.ranked) {
        const Report rep = build_report(e.scenario);
        CHECK(e.step_s == rep.time.step.value());
        CHECK(e.mfu == rep.throughput.mfu.value());
        CHECK(e.memory_bytes == rep.memory.total());
        CHECK(e.headroom_bytes == rep.gpu_memory_bytes - rep.memory.total());
    }
}

TEST_CASE("planner: one node, a model that fits anywhere: pure FSDP over all 8 GPUs ranks first") {
    // By hand, from the overlap rules of cost_model.hpp. 8 sequences on 8 GPUs: a data-parallel
    // layout gives each GPU one micro-batch. FSDP's gathers hide under the forward and backward they
    // feed (NVLink moves this ~0.2 GB model in well under the compute time), and ZeRO-3 has no step-end
    // reduction, so its step is its compute plus what the compute loses while the gathers run beside
    // it (15.9% of the gathers' time, hardware.hpp). Every other layout adds something: TP exposes its
    // per-block collectives, PP a bubble, ZeRO-1/2 the all-gather of the updated weights, plain DDP the
    // part of the all-reduce beyond the last backward. Among equal steps the one with the least memory
    // wins, and ZeRO-3 over 8 holds 1/8 of everything: dp_shard 8, zero 3. (On flat buffers, as
    // Megatron-LM and DeepSpeed keep them: PyTorch's FSDP2 adds copies that ZeRO-1 does not pay.)
    Scenario s = small_dense();
    s.training.fused_kernels = true;
    s.cluster.nodes = 1;
    s.parallel.dp_replicate = 8;
    s.training.global_batch = 8;
    const PlanResult r = plan_layouts(s, PlanOptions{});
    REQUIRE(!r.ranked.empty());
    const PlanEntry& best = r.ranked.front();
    INFO(describe_layout(best.scenario));
    CHECK(best.scenario.parallel.tp == 1);
    CHECK(best.scenario.parallel.pp == 1);
    CHECK(best.scenario.parallel.zero == 3);
    CHECK(best.scenario.parallel.dp_shard * best.scenario.parallel.cp == 8);
    const Report rep = build_report(best.scenario);
    const auto shard = std::find_if(rep.dims.begin(), rep.dims.end(), [](const DimCost& d) { return d.name == "dp_shard"; });
    REQUIRE(shard != rep.dims.end());
    CHECK(shard->time_s > 0);
    CHECK(shard->time_s < best.compute_s);  // hidden: nothing past the compute
    CHECK(shard->contention_s == doctest::Approx(0.159 * shard->time_s));
    CHECK(shard->exposed_s == doctest::Approx(shard->contention_s));
    CHECK(best.exposed_comm_s == doctest::Approx(shard->contention_s));
    CHECK(best.bubble_s == doctest::Approx(0).epsilon(1e-12));
    CHECK(best.step_s == doctest::Approx(best.compute_s + best.exposed_comm_s));
}

TEST_CASE("planner: objectives, filters and the texts") {
    PlanOptions o;
    o.objective = PlanObjective::memory;
    const PlanResult mem = plan_layouts(small_dense(), o);
    for (std::size_t i = 1; i < mem.ranked.size(); ++i) CHECK(mem.ranked[i].memory_bytes >= mem.ranked[i - 1].memory_bytes);

    o = PlanOptions{};
    o.filters.no_pp = true;
    for (const PlanEntry& e : plan_layouts(small_dense(), o).ranked) CHECK(e.scenario.parallel.pp == 1);

    // TP inside a node: 8 GPUs per node and tp innermost keep tp <= 8 intra; every tp here is.
    o = PlanOptions{};
    o.filters.tp_within_node = true;
    CHECK(!plan_layouts(small_dense(), o).ranked.empty());

    const PlanResult r = plan_layouts(small_dense(), PlanOptions{});
    REQUIRE(r.ranked.size() >= 3);
    const std::string why = why_ranked_below(r.ranked[0], r.ranked[2], PlanObjective::step);
    CHECK(why.find("slower per step") != std::string::npos);
    CHECK(why.find("[") != std::string::npos);  // names the knobs that differ

    Scenario a = small_dense(), b = small_dense();
    b.parallel.pp = 4;
    b.parallel.zero = 3;
    b.training.schedule = Schedule::interleaved_1f1b;
    b.training.virtual_stages = 2;
    // Without a pipeline there is no schedule to name: a's 1f1b field schedules nothing.
    CHECK(layout_changes(a, b) == "pp 1 -> 4, zero 0 -> 3, schedule none -> interleaved-1f1b v2");
    CHECK(describe_layout(b) == "tp 1, pp 4, dp_replicate 16, zero 3, mb 1, interleaved-1f1b v2, recompute none");
    CHECK(describe_layout(a) == "tp 1, dp_replicate 16, zero 0, mb 1, recompute none");
    CHECK(pipeline_schedule_text(a).empty());
    CHECK(plan_objective_from_string("mfu") == PlanObjective::mfu);
    CHECK(!plan_objective_from_string("speed"));
}

TEST_CASE("folds_into, variant_knobs, describe_variants: worked by hand") {
    PlanEntry row;
    row.scenario = small_dense();
    row.scenario.parallel.pp = 4;
    row.scenario.parallel.dp_replicate = 1;
    row.scenario.parallel.dp_shard = 16;
    row.scenario.parallel.zero = 2;
    row.scenario.training.schedule = Schedule::interleaved_1f1b;
    row.scenario.training.virtual_stages = 2;
    row.step_s = 2.0;
    row.memory_bytes = 40.0 * 1024 * 1024 * 1024;
    PlanEntry v = row;
    v.scenario.parallel.dp_shard = 4;
    v.scenario.parallel.dp_replicate = 4;  // the same 16 data-parallel ranks, split otherwise
    v.scenario.parallel.zero = 1;
    v.scenario.training.virtual_stages = 4;
    v.memory_bytes = 49.3 * 1024 * 1024 * 1024;
    v.step_s = 2.0018;  // 0.09% slower: within the 0.1% fold share
    CHECK(folds_into(row, v, PlanObjective::step));
    CHECK(folds_into(row, v, PlanObjective::mfu));
    CHECK(!folds_into(row, v, PlanObjective::memory));  // 23% more memory
    CHECK(variant_knobs(row.scenario, v.scenario) == "dp_shard 4 x dp_replicate 4, zero 1, v4");
    v.step_s = 2.0022;  // 0.11%: a row of its own
    CHECK(!folds_into(row, v, PlanObjective::step));
    v.step_s = 2.0004;
    PlanEntry other = v;
    other.scenario.parallel.pp = 2;  // another setting, however close
    other.scenario.parallel.dp_shard = 8;
    other.scenario.parallel.dp_replicate = 8;
    CHECK(!folds_into(row, other, PlanObjective::step));
    other = v;
    other.scenario.training.micro_batch = 2;
    CHECK(!folds_into(row, other, PlanObjective::step));
    other = v;
    other.scenario.training.schedule = Schedule::one_f_one_b;
    other.scenario.training.virtual_stages = 1;
    CHECK(!folds_into(row, other, PlanObjective::step));

    CHECK(describe_variants(row).empty());
    row.also.push_back({v.scenario, v.step_s, v.memory_bytes});
    CHECK(describe_variants(row) == "also within 0.1%: dp_shard 4 x dp_replicate 4, zero 1, v4 (+0.02%, 49.3 GiB)");
}

TEST_CASE("planner: near-identical layouts fold into one row; the rows are distinct and the folding complete") {
    for (const Scenario& base : {small_dense(), small_moe()}) {
        PlanOptions o;
        // ZeRO 0 and 1 reduce once per step, so layouts that differ only in them (or in the dp split)
        // tie; ZeRO-2 and -3 move gradients every micro-batch and would crowd the ties out of the top 10.
        o.filters.zero_at_most_1 = true;
        const PlanResult folded = plan_layouts(base, o);
        o.fold = false;
        o.top_k = 400;
        const PlanResult flat = plan_layouts(base, o);
        REQUIRE(folded.ranked.size() == 10);
        std::size_t variants = 0;
        for (std::size_t i = 0; i < folded.ranked.size(); ++i) {
            const PlanEntry& row = folded.ranked[i];
            for (std::size_t j = 0; j < i; ++j) CHECK(!folds_into(folded.ranked[j], row, PlanObjective::step));
            for (const PlanVariant& v : row.also) {
                PlanEntry e;
                e.scenario = v.scenario;
                e.step_s = v.step_s;
                e.memory_bytes = v.memory_bytes;
                CHECK(folds_into(row, e, PlanObjective::step));
                CHECK(!ranks_before(e, row, PlanObjective::step));
            }
            variants += row.also.size();
        }
        CHECK(variants > 0);  // these cases have dp splits and ZeRO stages that tie
        // Every layout the unfolded search ranks up to the last row is a row or a variant of one.
        const double last = folded.ranked.back().step_s;
        std::set<std::string> shown;
        for (const PlanEntry& row : folded.ranked) {
            shown.insert(describe_layout(row.scenario));
            for (const PlanVariant& v : row.also) shown.insert(describe_layout(v.scenario));
        }
        REQUIRE(flat.ranked.back().step_s > last);  // the flat list reaches past the last row
        for (const PlanEntry& e : flat.ranked)
            if (e.step_s <= last) CHECK(shown.count(describe_layout(e.scenario)) == 1);
        CHECK(flat.ranked.front().also.empty());
    }
}

TEST_CASE("planner: a count-only model is ranked by memory, with a note") {
    Scenario s = small_dense();
    s.model = ModelSpec{};
    s.model.params = 1e9;
    s.model.seq_len = 2048;
    REQUIRE(validate_scenario(s).empty());
    const PlanResult r = plan_layouts(s, PlanOptions{});
    CHECK(r.objective == PlanObjective::memory);
    REQUIRE(!r.notes.empty());
    CHECK(!r.ranked.empty());
}

TEST_CASE("pareto_front: hand-made points") {
    // (step, memory): A(1, 5) B(2, 3) C(2, 4) D(3, 3) E(4, 1). A, B and E are on the front: C and D
    // need at least B's memory at no better step.
    std::vector<PlanEntry> e(5);
    const double pts[5][2] = {{1, 5}, {2, 3}, {2, 4}, {3, 3}, {4, 1}};
    for (int i = 0; i < 5; ++i) {
        e[static_cast<std::size_t>(i)].step_s = pts[i][0];
        e[static_cast<std::size_t>(i)].memory_bytes = pts[i][1];
    }
    CHECK(pareto_front(e) == std::vector<std::size_t>{0, 1, 4});
}

TEST_CASE("planner: progress counts the candidates costed; a cancelled search stops and says so") {
    PlanProgress progress;
    const PlanResult r = plan_layouts(small_dense(), PlanOptions{}, &progress);
    CHECK(progress.costed.load() == r.stats.costed);
    // to_cost counts the candidates past the memory floor of the layouts whose groups were floored: at
    // most every candidate the memory floor did not prune, and at least every one costed.
    CHECK(progress.to_cost.load() <= r.stats.candidates - r.stats.pruned_memory);
    CHECK(progress.to_cost.load() >= r.stats.costed);
    CHECK_FALSE(r.cancelled);

    PlanProgress cancelled;
    cancelled.cancel = true;
    const PlanResult c = plan_layouts(small_dense(), PlanOptions{}, &cancelled);
    CHECK(c.cancelled);
    CHECK(c.ranked.empty());
    CHECK(c.stats.costed == 0);
}

TEST_CASE("the small dense planning scenario is itself valid") {
    CHECK(validate_scenario(small_dense()) == "");
}

TEST_CASE("planning_key: the knobs the planner searches do not change it; anything else does") {
    Scenario a = default_scenario();
    Scenario b = a;
    b.parallel.tp = 4;
    b.parallel.dp_shard = 2;
    b.parallel.zero = 3;
    b.training.micro_batch = 2;
    b.training.recompute = Recompute::full;
    b.training.schedule = Schedule::interleaved_1f1b;
    b.training.virtual_stages = 2;
    CHECK(planning_key(a) == planning_key(b));
    Scenario c = a;
    c.model.seq_len *= 2;  // the model is the planner's input, not its output
    CHECK_FALSE(planning_key(a) == planning_key(c));
    Scenario d = a;
    d.cluster.nodes *= 2;
    CHECK_FALSE(planning_key(a) == planning_key(d));
}

TEST_CASE("planner: a search run in slices ranks as the search run whole, and stops between slices when cancelled") {
    for (const Scenario& base : {small_dense(), small_moe()}) {
        PlanOptions o;
        o.threads = 1;  // the browser page's search: one thread, so every slice is a few layouts or costings
        o.keep_costed = true;
        const PlanResult whole = plan_layouts(base, o);
        PlanSearch search(base, o);
        int slices = 1;
        // A deadline already past: each call does the least it can (one layout, or eight costings).
        while (!search.advance(std::chrono::steady_clock::time_point::min())) ++slices;
        REQUIRE(search.done());
        const PlanResult sliced = search.take();
        CHECK(slices > 10);
        check_same_ranking(sliced, whole);
        CHECK(sliced.stats.candidates == whole.stats.candidates);
        CHECK(sliced.stats.costed == whole.stats.costed);
        CHECK(sliced.costed.size() == whole.costed.size());
        CHECK_FALSE(sliced.cancelled);
    }
    PlanProgress progress;
    PlanSearch search(small_dense(), PlanOptions{}, &progress);
    CHECK_FALSE(search.advance(std::chrono::steady_clock::time_point::min()));
    progress.cancel = true;
    CHECK(search.advance(std::chrono::steady_clock::time_point::min()));
    CHECK(search.take().cancelled);
}

TEST_CASE("scenario_changes: what an undo took back, short") {
    const Scenario a = default_scenario();
    Scenario b = a;
    b.model.seq_len = 1024;
    CHECK(scenario_changes(a, b) == "seq_len 8192 -> 1024");
    b.parallel.tp = 4;
    b.parallel.dp_shard = 4;
    CHECK(scenario_changes(a, b) == "seq_len 8192 -> 1024, tp 2 -> 4, dp_shard 8 -> 4");
    // Another model is named, not listed field by field.
    Scenario c = a;
    c.model.name = "Llama 3 70B";
    c.model.layers = 80;
    c.model.hidden = 8192;
    CHECK(scenario_changes(a, c) == "model Llama 3 8B -> Llama 3 70B");
    // Past `most` items the rest are counted.
    b.training.global_batch = 512;
    b.parallel.zero = 1;
    CHECK(scenario_changes(a, b, 3) == "seq_len 8192 -> 1024, global_batch 256 -> 512, tp 2 -> 4 and 2 more");
    // A difference no item names, and none.
    Scenario d = a;
    d.cluster.inter_node.bandwidth_gbps = 25;
    CHECK(scenario_changes(a, d) == "other settings");
    CHECK(scenario_changes(a, a).empty());
}

TEST_CASE("compute_pipeline_spec: every stage's compute alone, under the full spec's costs") {
    // The planner's first floor reads this spec for every mesh order and ZeRO stage of a layout, so
    // each of its costs must be at most the full spec's, and equal where a micro-batch sends nothing.
    const auto check_under = [](const Scenario& s, bool equal) {
        CAPTURE(describe_layout(s));
        REQUIRE(validate_scenario(s).empty());
        const ParamCounts counts = count_params(s.model);
        const PipelineSpec full = scenario_pipeline_spec(s, counts, DeviceMesh::build(s.cluster, s.parallel));
        const PipelineSpec alone = compute_pipeline_spec(s, counts);
        REQUIRE(alone.costs.size() == full.costs.size());
        CHECK(alone.microbatches == full.microbatches);
        CHECK(alone.schedule == full.schedule);
        CHECK(alone.p2p_time == 0.0);
        bool below = false;
        for (std::size_t st = 0; st < full.costs.size(); ++st) {
            CAPTURE(st);
            const StageCost& a = alone.costs[st];
            const StageCost& f = full.costs[st];
            CHECK(a.f > 0);
            CHECK(a.f <= f.f);
            CHECK(a.b + a.w <= f.b + f.w);
            below = below || a.f < f.f || a.b + a.w < f.b + f.w;
        }
        CHECK(below == !equal);
    };
    Scenario s = small_dense();
    s.parallel.dp_replicate = 4;
    s.parallel.pp = 4;
    check_under(s, true);  // data parallel reduces at the step's end: nothing per micro-batch
    s.model.mtp_layers = 1;
    check_under(s, true);  // an MTP module on the last stage, priced alike in both
    s.model.mtp_layers = 0;
    s.parallel.dp_replicate = 2;
    s.parallel.tp = 2;
    check_under(s, false);  // TP's exposed all-gathers and reduce-scatters
    s.parallel.tp = 1;
    s.parallel.dp_replicate = 1;
    s.parallel.dp_shard = 4;
    s.parallel.zero = 3;
    check_under(s, false);  // FSDP2's gathers, reductions and copies
    s.training.schedule = Schedule::zb_h1;
    check_under(s, false);  // a split backward: B and W halves
    Scenario moe = small_moe();
    moe.parallel.dp_replicate = 1;
    moe.parallel.dp_shard = 8;
    moe.parallel.ep = 4;
    moe.parallel.zero = 1;
    check_under(moe, false);  // the expert all-to-all
}

TEST_CASE("compute_pipeline_spec: a recompute adds to the backward only, so no recompute floors every one") {
    // The planner floors a whole layout, before any of its groups, by its compute-alone makespan
    // without recompute: that holds only if a recompute never shortens a stage's forward or backward.
    const auto check_none_under = [](Scenario s) {
        CAPTURE(describe_layout(s));
        const ParamCounts counts = count_params(s.model);
        s.training.recompute = Recompute::none;
        REQUIRE(validate_scenario(s).empty());
        const PipelineSpec none = compute_pipeline_spec(s, counts);
        const auto check_with = [&](Recompute rc, const TrainingSpec& t) {
            Scenario r = s;
            r.training = t;
            r.training.recompute = rc;
            CAPTURE(to_string(rc));
            REQUIRE(validate_scenario(r).empty());
            const PipelineSpec with = compute_pipeline_spec(r, counts);
            REQUIRE(with.costs.size() == none.costs.size());
            bool longer = false;
            for (std::size_t st = 0; st < with.costs.size(); ++st) {
                CAPTURE(st);
                CHECK(with.costs[st].f == none.costs[st].f);
                // The floor's margin (a relative 1e-12) covers a kept block's backward rounded back.
                CHECK(with.costs[st].b * (1 + 1e-12) >= none.costs[st].b);
                longer = longer || with.costs[st].b > none.costs[st].b * (1 + 1e-9);
            }
            CHECK(longer);  // every recompute here re-runs something
        };
        TrainingSpec t = s.training;
        check_with(Recompute::full, t);
        t.recompute_method = RecomputeMethod::block;  // some blocks keep their backward as without recompute
        t.recompute_num_layers = 1;
        check_with(Recompute::full, t);
        t = s.training;
        check_with(Recompute::selective, t);  // Megatron-LM's modules: the attention core
        t.recompute_modules.layernorm = true;
        t.recompute_modules.moe_act = s.model.is_moe();
        check_with(Recompute::selective, t);
        t = s.training;
        t.fused_kernels = false;  // torchtitan's op-level policy
        check_with(Recompute::selective, t);
    };
    Scenario dense = small_dense();
    dense.parallel.dp_replicate = 2;
    dense.parallel.pp = 4;
    check_none_under(dense);
    dense.model.mtp_layers = 1;
    check_none_under(dense);
    Scenario moe = small_moe();
    moe.parallel.dp_replicate = 1;
    moe.parallel.dp_shard = 8;
    moe.parallel.ep = 4;
    moe.parallel.zero = 1;
    check_none_under(moe);
}
