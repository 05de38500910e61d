// Megatron-LM's --recompute-method uniform|block and --recompute-num-layers: which blocks a full
// recompute re-runs, what each keeps, and what that costs.
#include "core/export/framework_export.hpp"
#include "core/model/compute.hpp"
#include "core/model/cost_model.hpp"
#include "core/model/memory.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

namespace {

TrainingSpec full(RecomputeMethod method, int64_t layers) {
    TrainingSpec t;
    t.recompute = Recompute::full;
    t.recompute_method = method;
    t.recompute_num_layers = layers;
    return t;
}

Scenario full_recompute(RecomputeMethod method, int64_t layers) {
    Scenario s = default_scenario();  // Llama 3 8B: 32 blocks on pp 2, 16 a stage
    s.training.recompute = Recompute::full;
    s.training.recompute_method = method;
    s.training.recompute_num_layers = layers;
    return s;
}

}  // namespace

TEST_CASE("the blocks a full recompute re-runs and the inputs it keeps, by method") {
    // Uniform 1 (recompute full alone): 16 blocks, each its own checkpoint, one re-runs at a time.
    RecomputedBlocks r = recomputed_blocks(full(RecomputeMethod::uniform, 1), 16, 1);
    CHECK(r.rerun == 16);
    CHECK(r.checkpoints == 16);
    CHECK(r.working == 1);
    // Uniform 4: four groups of four keep one input each; a whole group lives again at once.
    r = recomputed_blocks(full(RecomputeMethod::uniform, 4), 16, 1);
    CHECK(r.rerun == 16);
    CHECK(r.checkpoints == 4);
    CHECK(r.working == 4);
    // Uniform 3 on two chunks of 8: ceil(8 / 3) = 3 groups a chunk.
    r = recomputed_blocks(full(RecomputeMethod::uniform, 3), 16, 2);
    CHECK(r.checkpoints == 6);
    // Block 4: the first four blocks re-run from their inputs; the other 12 keep everything.
    r = recomputed_blocks(full(RecomputeMethod::block, 4), 16, 1);
    CHECK(r.rerun == 4);
    CHECK(r.checkpoints == 4);
    CHECK(r.working == 1);
    // Block 4 on two chunks re-runs four in each; past a chunk's size, all of it.
    CHECK(recomputed_blocks(full(RecomputeMethod::block, 4), 16, 2).rerun == 8);
    CHECK(recomputed_blocks(full(RecomputeMethod::block, 40), 16, 1).rerun == 16);
    // Not a full recompute: nothing.
    TrainingSpec none = full(RecomputeMethod::block, 4);
    none.recompute = Recompute::selective;
    CHECK(recomputed_blocks(none, 16, 1).rerun == 0);
}

TEST_CASE("the method's fields load only with recompute full and save only when they say something") {
    Scenario s = full_recompute(RecomputeMethod::block, 4);
    const std::string text = scenario_to_json(s);
    CHECK(text.find("\"recompute_method\": \"block\"") != std::string::npos);
    CHECK(text.find("\"recompute_num_layers\": 4") != std::string::npos);
    const ScenarioLoad back = parse_scenario(text);
    REQUIRE(back.ok());
    CHECK(back.scenario->training.recompute_method == RecomputeMethod::block);
    CHECK(back.scenario->training.recompute_num_layers == 4);
    CHECK(scenario_to_json(full_recompute(RecomputeMethod::uniform, 1)).find("recompute_method") == std::string::npos);
    std::string selective = text;
    selective.replace(selective.find("\"recompute\": \"full\""), 19, "\"recompute\": \"selective\"");
    const ScenarioLoad refused = parse_scenario(selective);
    CHECK_FALSE(refused.ok());
    CHECK(refused.error.find("training.recompute_method: applies to recompute full") != std::string::npos);
    CHECK(refused.error.find("recompute is selective") != std::string::npos);
    std::string bad = text;
    bad.replace(bad.find("\"block\""), 7, "\"every\"");
    CHECK(parse_scenario(bad).error.find("training.recompute_method: \"every\" is not one of uniform, block") !=
          std::string::npos);
    s.training.recompute_num_layers = 0;
    CHECK(validate_scenario(s).find("training.recompute_num_layers") == 0);
}

TEST_CASE("block re-runs fewer forwards and keeps more activations; uniform n keeps fewer inputs") {
    const Scenario every = full_recompute(RecomputeMethod::uniform, 1);
    const Scenario block4 = full_recompute(RecomputeMethod::block, 4);
    const Scenario uniform4 = full_recompute(RecomputeMethod::uniform, 4);
    const ParamCounts c = count_params(every.model);
    // Stage 0's activations, one micro-batch in flight: with every block its own checkpoint, 16
    // inputs; uniform 4 keeps 4 of them; block 4 keeps 4 inputs plus 12 blocks stored whole.
    const StageMemory m_every = stage_memory(every, c, 0, 1);
    const StageMemory m_uniform = stage_memory(uniform4, c, 0, 1);
    const StageMemory m_block = stage_memory(block4, c, 0, 1);
    const double input = m_every.bytes.activations.value() / 16.0;
    CHECK(m_uniform.bytes.activations.value() == doctest::Approx(4 * input));
    Scenario none = every;
    none.training.recompute = Recompute::none;
    const double whole = stage_memory(none, c, 0, 1).bytes.activations.value() / 16.0;
    CHECK(m_block.bytes.activations.value() == doctest::Approx(4 * input + 12 * whole));
    // A uniform group of 4 re-runs at once: four blocks' worth live again, against one.
    CHECK(m_uniform.other.recompute_working == doctest::Approx(4 * m_every.other.recompute_working));
    CHECK(m_block.other.recompute_working == doctest::Approx(m_every.other.recompute_working));
    // Compute: block 4 adds 4 blocks' forward to the backward, not 16.
    const HardwareFigures hw = paced_hardware_figures(every.cluster.gpu, every.cluster.gpu_count());
    const StageCompute all = stage_compute(every, every.parallel, hw, stage_blocks(every.training, 16, 0, true, false));
    const StageCompute some = stage_compute(block4, block4.parallel, hw, stage_blocks(block4.training, 16, 0, true, false));
    Scenario plain = every;
    plain.training.recompute = Recompute::none;
    const StageCompute kept = stage_compute(plain, plain.parallel, hw, stage_blocks(plain.training, 16, 0, true, false));
    const double per_block_forward = (all.backward_s - kept.backward_s) / 16.0;
    CHECK(some.backward_s == doctest::Approx(kept.backward_s + 4 * per_block_forward));
    CHECK(some.forward_s == doctest::Approx(all.forward_s));
    // The step follows: block 4 is faster than recomputing every block.
    CHECK(build_report(block4).time.step.value() < build_report(every).time.step.value());
}

TEST_CASE("Megatron-LM's export carries the method; TorchTitan's says it has none") {
    const Scenario s = full_recompute(RecomputeMethod::block, 4);
    const FrameworkExport m = export_scenario(s, ExportTarget::megatron);
    CHECK(m.text.find("--recompute-method block") != std::string::npos);
    CHECK(m.text.find("--recompute-num-layers 4") != std::string::npos);
    const FrameworkExport t = export_scenario(s, ExportTarget::torchtitan_toml);
    bool warned = false;
    for (const std::string& w : t.warnings) warned = warned || w.find("recompute_method block, recompute_num_layers 4") == 0;
    CHECK(warned);
}
