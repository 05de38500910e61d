#include "imgui_fixture.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/shell/keys.hpp"
#include "core/teaching/lesson.hpp"
#include "widgets/memory/memory_panel.hpp"

#include "core/model/cost_model.hpp"
#include "core/scenario/units.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <fstream>
#include <sstream>

using namespace shardscope;
using shardscope::test::ImGuiFixture;
using shardscope::test::llama70b_ddp;

namespace {

// The panel alone in a full-size window, with the end-of-frame commit the app makes (for undo).
struct PanelHarness {
    ImGuiFixture fixture;
    ui::AppState state;
    ui::MemoryPanel panel{ui::Placement{}, true};
    ImVec2 size{1600, 1000};

    explicit PanelHarness(Scenario s = default_scenario()) : state(std::move(s)) {}
    std::function<void()> draw() {
        return [this] {
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(size);
            ImGui::Begin("memory test");
            panel.draw(state);
            ImGui::End();
            state.end_frame(ImGui::IsAnyItemActive());
        };
    }
};

double segment(const ui::MemoryBarRecord& bar, const char* name) {
    for (const auto& s : bar.stack.segments)
        if (s.name == name) return s.value;
    FAIL("no segment " << name);
    return 0;
}

// Opens a combo by click and clicks one of its items: the list shows a frame after the click that
// opens it.
void pick(PanelHarness& h, const std::function<void()>& draw, const char* combo, const char* item) {
    REQUIRE(h.fixture.click_item(combo, draw));
    h.fixture.frames(2, draw);
    REQUIRE(h.fixture.click_item(item, draw));
}

// Whether the widget named `key` was drawn in the last frame.
bool drawn_now(const std::string& key) {
    for (const auto& [name, rect] : ui::current_item_rects())
        if (name == key) return true;
    return false;
}

}  // namespace

TEST_CASE("memory panel: the default scenario's bars carry core's numbers, stage by stage") {
    PanelHarness h;
    h.fixture.frames(2, h.draw());
    const ui::MemoryView& v = h.panel.view(h.state);
    const Report& r = h.state.report();
    // pp 2: the first and the last stage, one bar each.
    REQUIRE(v.bars.size() == 2);
    CHECK(v.bars[0].stack.label == "stage 0\nfirst");
    CHECK(v.bars[1].stack.label == "stage 1\nlast");
    for (size_t i = 0; i < 2; ++i) {
        const MemoryBreakdown& m = r.stages[i].bytes;
        CHECK(segment(v.bars[i], "weights") == m.params);
        CHECK(segment(v.bars[i], "gradients") == m.grads);
        CHECK(segment(v.bars[i], "optimizer") == m.optimizer);
        CHECK(segment(v.bars[i], "activations") == m.activations.value());
        CHECK(segment(v.bars[i], "other") == m.other);
        CHECK(v.bars[i].total_bytes == doctest::Approx(m.total()));
    }
    // By hand: stage 0 holds 16 blocks (218,112,000 params each) and the embedding (128256 x 4096):
    // 4,015,128,576 params / tp 2 x 2 B / 8 ZeRO-3 shards = 501,891,072 B of weights.
    CHECK(segment(v.bars[0], "weights") == doctest::Approx(501'891'072.0));
    CHECK(v.capacity_bytes == 81559.0 * 1024 * 1024);  // what an H100 80GB exposes
    CHECK(v.capacity_label == "H100 SXM: 79.6 GiB");
    CHECK(v.bars[0].most_loaded);
}

TEST_CASE("memory panel: activations by hand for the default layout, with and without selective recompute") {
    // Stage 0 keeps 2 micro-batches in flight (1F1B, pp 2) of its 16 blocks; sbh = 8192 x 4096 =
    // 33,554,432 with b = 1. TP 2 + SP, Llama's block (core/model/memory.hpp): 34h a token split by t,
    // and with eager attention the probabilities 2as/t (no dropout): sbh(17 + 2as/(ht)) = sbh x 81 per
    // block; selective sbh x 34/t = sbh x 17.
    // One panel and state at a time: the fixture owns the one ImGui context.
    Scenario s = default_scenario();
    s.training.recompute = Recompute::none;
    s.training.attention = AttentionKernel::eager;  // the scores are stored (flash never stores them)
    {
        PanelHarness h(s);
        const ui::MemoryBarRecord& first = h.panel.view(h.state).bars[0];
        CHECK(segment(first, "activations") == doctest::Approx(32 * 33'554'432.0 * 81));
        CHECK(first.stack.highlight);  // 87 GB: red
    }
    s.training.recompute = Recompute::selective;
    {
        // The PyTorch stack's selective recompute (torchtitan's op-level policy) keeps the block's
        // input, the attention output and wq, wv, w1 and w2's outputs: (4h + h/4 + 14336) / t x 2 B =
        // 31,744 B a token, sbh x 7.75.
        PanelHarness h(s);
        const ui::MemoryBarRecord& first = h.panel.view(h.state).bars[0];
        CHECK(segment(first, "activations") == doctest::Approx(32 * 33'554'432.0 * 7.75));
        CHECK_FALSE(first.stack.highlight);
    }
    s.training.fused_kernels = true;  // Megatron-LM's selective recompute: only the scores go
    {
        PanelHarness h(s);
        const ui::MemoryBarRecord& first = h.panel.view(h.state).bars[0];
        CHECK(segment(first, "activations") == doctest::Approx(32 * 33'554'432.0 * 17));
        CHECK_FALSE(first.stack.highlight);
    }
}

TEST_CASE("memory panel: the step bar is compute, each dim's exposed communication and the bubble") {
    PanelHarness h;
    h.fixture.frame(h.draw());
    const ui::MemoryView& v = h.panel.view(h.state);
    const Report& r = h.state.report();
    REQUIRE(v.step.size() >= 3);
    CHECK(v.step.front().name == "compute");
    CHECK(v.step.front().seconds == *r.time.compute);
    CHECK(v.step.back().name == "bubble (busiest stage idle)");  // pp 2 idles
    CHECK(v.step.back().seconds == *r.time.bubble);
    double seconds = 0, share = 0;
    bool tp = false;
    for (const auto& s : v.step) {
        seconds += s.seconds;
        share += s.fraction;
        tp = tp || s.name == "tp comm";  // TP without overlap is on the critical path
    }
    CHECK(tp);
    CHECK(seconds == doctest::Approx(*r.time.step));
    CHECK(share == doctest::Approx(1.0));
    // The throughput figures are core's, formatted by core/scenario/units.hpp.
    // A dense model: its size in one row (a mixture of experts adds the active parameters).
    REQUIRE(v.figures.size() == 8);
    CHECK(v.figures[0].label == "Parameters");
    CHECK(v.figures[0].value == format_quantity("report.params_total_b", r.params_total / 1e9));
    CHECK(v.figures[0].value.find(" billion") != std::string::npos);
    CHECK(v.figures[1].label == "Step time");
    CHECK(v.figures[1].value == format_seconds(*r.time.step));
    CHECK(v.figures[1].quantities == std::vector<std::string>{"report.time.step_s"});
    CHECK(v.figures[7].label == "MFU");
    CHECK(v.figures[7].value == format_percent(*r.throughput.mfu));
    // Hardware below model TFLOP/s puzzles a reader: its hover says why it can sit on either side.
    CHECK(v.figures[6].label == "Hardware TFLOP/s per GPU");
    CHECK(v.figures[6].meaning.find("causal flash attention skips the masked half") != std::string::npos);
    CHECK(v.figures[6].meaning.find("Recomputation adds its forward") != std::string::npos);
    // Core's conventions get a section of their own, one line each; the other notes stay notes.
    CHECK(v.conventions == r.conventions);
    REQUIRE(v.conventions.size() >= 4);
    CHECK(v.conventions[0].rfind("FLOPs:", 0) == 0);
    CHECK(v.conventions[1].rfind("attention:", 0) == 0);
    CHECK(v.notes.size() + v.conventions.size() == r.notes.size());
    // The bar's top part is the runtime's reserve, shown, never folded into headroom.
    CHECK(v.bars[0].stack.segments.back().name == "reserved");
    CHECK(v.bars[0].stack.segments.back().value == doctest::Approx(r.stages[0].bytes.reserved));
}

TEST_CASE("memory panel: a scenario that fits has a green verdict and no fix") {
    Scenario s = default_scenario();
    s.training.recompute = Recompute::full;
    PanelHarness h(s);
    h.fixture.frame(h.draw());
    const ui::MemoryView& v = h.panel.view(h.state);
    CHECK(v.fits);
    CHECK(v.fit_line.rfind("Fits: ", 0) == 0);
    CHECK_FALSE(v.advice.needed);
    for (const auto& b : v.bars) CHECK_FALSE(b.stack.highlight);
    CHECK(h.panel.act(h.state, "apply_fix", "1") == "memory.apply_fix: the scenario already fits");
}

TEST_CASE("memory panel: Llama 3 70B as DDP is red, core's fix is offered, and the button makes it fit") {
    // On Megatron-LM's stack selective recompute of the attention core frees nothing under flash; its
    // norm module does, and with ZeRO-3 and TP 4 that is the fastest fix (core's fit advisor).
    const std::string fix =
        "zero 0 -> 3, recompute none -> selective (core_attn, layernorm), tp 1 -> 4, dp_shard 1 -> 16, dp_replicate 64 -> 1";
    Scenario megatron = llama70b_ddp(8);
    megatron.training.fused_kernels = true;
    PanelHarness h(megatron);
    const auto draw = h.draw();
    h.fixture.frames(2, draw);
    const ui::MemoryView& v = h.panel.view(h.state);
    CHECK_FALSE(v.fits);
    REQUIRE(v.bars.size() == 1);  // pp 1: every GPU holds the same
    CHECK(v.bars[0].stack.label == "every GPU");
    CHECK(v.bars[0].stack.highlight);  // red outline
    CHECK_FALSE(v.bars[0].fits);
    REQUIRE(v.advice.found);
    CHECK(v.advice.summary() == fix);
    CHECK(v.advice_line.find(fix) != std::string::npos);

    const Scenario before = h.state.scenario();
    REQUIRE(h.fixture.click_item("memory/apply_fix", draw));
    CHECK(h.state.report().fits);
    CHECK(h.state.ui.status == "Applied the fix: " + fix + " (Ctrl+Z undoes it)");
    CHECK(h.state.scenario().parallel.zero == 3);
    CHECK(h.state.scenario().parallel.tp == 4);
    CHECK(h.state.scenario().training.recompute == Recompute::selective);
    CHECK(h.state.scenario().training.recompute_modules.layernorm);
    const ui::MemoryView& after = h.panel.view(h.state);
    CHECK(after.fits);
    CHECK_FALSE(after.bars[0].stack.highlight);

    // One undoable step.
    h.state.undo();
    CHECK(h.state.scenario() == before);
}

TEST_CASE("memory panel: actions zero=3 and recompute=full edit the scenario through try_apply") {
    PanelHarness h(llama70b_ddp(8));
    CHECK(h.panel.act(h.state, "zero", "3").empty());
    h.state.end_frame(false);  // as the app does after every frame: each edit is its own undo step
    // ZeRO needs a shard group: the 64 replicas become 64 shards.
    CHECK(h.state.scenario().parallel.zero == 3);
    CHECK(h.state.scenario().parallel.dp_shard == 64);
    CHECK(h.state.scenario().parallel.dp_replicate == 1);
    CHECK_FALSE(h.state.report().fits);  // 1.9 TB of activations remain
    CHECK(h.panel.act(h.state, "recompute", "full").empty());
    h.state.end_frame(false);
    CHECK(h.state.scenario().training.recompute == Recompute::full);
    CHECK(h.state.report().fits);

    // Back to DDP: the shards become replicas again, so the scenario stays valid.
    CHECK(h.panel.act(h.state, "zero", "0").empty());
    CHECK(h.state.scenario().parallel.dp_shard == 1);
    CHECK(h.state.scenario().parallel.dp_replicate == 64);

    h.state.end_frame(false);
    h.state.undo();
    CHECK(h.state.scenario().parallel.zero == 3);
    CHECK(h.state.scenario().parallel.dp_shard == 64);
    CHECK(h.state.scenario().training.recompute == Recompute::full);
    h.state.redo();
    CHECK(h.state.scenario().parallel.zero == 0);

    CHECK(h.panel.act(h.state, "precision", "fp32").empty());
    CHECK(h.state.scenario().training.precision == Precision::fp32);
    CHECK_FALSE(h.panel.act(h.state, "zero", "7").empty());
    CHECK_FALSE(h.panel.act(h.state, "recompute", "sometimes").empty());
    CHECK_FALSE(h.panel.act(h.state, "colour", "red").empty());
}

TEST_CASE("memory panel: a refused control edit shows the rule and changes nothing") {
    PanelHarness h;
    const unsigned long version = h.state.version();
    // 256 sequences / (micro-batch 3 x 16 data-parallel ranks) is not whole.
    const std::string rule = h.panel.act(h.state, "micro_batch", "3");
    CHECK_FALSE(rule.empty());
    CHECK(rule == "memory.micro_batch: " + h.panel.control_error());
    CHECK(h.panel.control_error().rfind("training.global_batch: 256 does not split", 0) == 0);
    CHECK(h.state.version() == version);
    CHECK(h.panel.act(h.state, "micro_batch", "2").empty());
    CHECK(h.state.scenario().training.micro_batch == 2);
    CHECK(h.panel.control_error().empty());
}

TEST_CASE("memory panel: Llama 3 70B on 8 GPUs fits only with its optimizer on the host, and says so") {
    PanelHarness h(llama70b_ddp(1));
    h.fixture.frame(h.draw());
    const ui::MemoryView& v = h.panel.view(h.state);
    CHECK_FALSE(v.fits);
    CHECK(v.advice.needed);
    REQUIRE(v.advice.found);
    CHECK(v.advice_line.find("offload none -> optimizer") != std::string::npos);
    CHECK(v.host_line.empty());
    CHECK(h.panel.act(h.state, "apply_fix", "1").empty());
    CHECK(h.state.scenario().training.offload == Offload::optimizer);
    h.fixture.frame(h.draw());
    const ui::MemoryView& after = h.panel.view(h.state);
    CHECK(after.fits);
    // The host's share, in the report's own figures: 16 bytes a parameter on the host.
    const Report& r = h.state.report();
    REQUIRE(r.host.has_value());
    CHECK(after.host_line.rfind("Optimizer on the host: " + format_memory(r.host->bytes_per_gpu) + " per GPU", 0) == 0);
    CHECK(after.host_line.find("CPU Adam " + format_seconds(r.host->step.cpu_adam_s)) != std::string::npos);
}

TEST_CASE("memory panel: with a host too small as well, it says no layout fits and shows the closest") {
    Scenario s = llama70b_ddp(1);
    s.cluster.host.memory_gb = 100;  // against the node's 1.13 TB of offloaded state
    PanelHarness h(s);
    h.fixture.frame(h.draw());
    const ui::MemoryView& v = h.panel.view(h.state);
    CHECK_FALSE(v.fits);
    CHECK(v.advice.needed);
    CHECK_FALSE(v.advice.found);
    CHECK(v.advice_line.find("No mix of ZeRO stage, micro-batch, recompute, TP, PP and optimizer offload") == 0);
    CHECK(v.advice_line.find("Even the lightest (") != std::string::npos);
    CHECK_FALSE(h.panel.act(h.state, "apply_fix", "1").empty());
}

TEST_CASE("memory panel: a model given as a parameter count has no activations and no step bar") {
    // The ZeRO paper's 7.5B as DDP on 64 GPUs: 7.5e9 x 16 B = 120 GB of model state per GPU.
    Scenario s;
    s.model = ModelSpec{};
    s.model.params = 7.5e9;
    s.cluster.nodes = 8;
    s.parallel = ParallelSpec{};
    s.parallel.dp_replicate = 64;
    s.training.global_batch = 64;
    PanelHarness h(s);
    h.fixture.frame(h.draw());
    const ui::MemoryView& v = h.panel.view(h.state);
    REQUIRE(v.bars.size() == 1);
    CHECK_FALSE(v.bars[0].activations_known);
    CHECK(segment(v.bars[0], "weights") == doctest::Approx(15e9));
    CHECK(segment(v.bars[0], "optimizer") == doctest::Approx(90e9));
    CHECK(v.step.empty());
    CHECK(v.figures[1].value == "n/a (no architecture)");
    REQUIRE(v.advice.found);
    CHECK(v.advice.summary() == "zero 0 -> 1, dp_shard 1 -> 64, dp_replicate 64 -> 1");
}

TEST_CASE("memory panel: leftover GPUs are replicas: the line counts them and the fix may shard them") {
    // The same 7.5B model with every dim at 1 on 64 GPUs: the layout sets one replica and the 63 other
    // GPUs run copies of it, so the GPU holds what DDP over 64 holds, and the same fix applies.
    Scenario s;
    s.model = ModelSpec{};
    s.model.params = 7.5e9;
    s.cluster.nodes = 8;
    s.parallel = ParallelSpec{};
    s.training.global_batch = 64;
    PanelHarness h(s);
    h.fixture.frame(h.draw());
    const ui::MemoryView& v = h.panel.view(h.state);
    CHECK(v.setup_line.find("dp_replicate 64 (the layout sets 1; the leftover GPUs make it x64)") != std::string::npos);
    REQUIRE(v.advice.found);
    CHECK(v.advice.summary() == "zero 0 -> 1, dp_shard 1 -> 64, dp_replicate 64 -> 1");
    CHECK(v.advice.scenario.parallel.product() == 64);
}

TEST_CASE("memory panel: a total just under the GPU's memory line is lifted over it, never struck through") {
    // The default layout with the card's memory set 3% above its most loaded GPU: that bar's top sits
    // a few pixels under the line, where its total would straddle it.
    Scenario s = default_scenario();
    const double most_loaded = build_report(s).memory.total();
    s.cluster.gpu.memory_mib = most_loaded * 1.03 / (1024.0 * 1024.0);
    REQUIRE(validate_scenario(s).empty());
    for (const ImVec2 size : {ImVec2(1600, 1000), ImVec2(500, 700), ImVec2(360, 520)}) {
        CAPTURE(size.x);
        PanelHarness h(s);
        h.size = size;
        h.fixture.frames(2, h.draw());
        const auto line = ui::find_item_rect("memory/chart/capacity_line");
        REQUIRE(line);
        int totals = 0;
        for (int i = 0; i < 8; ++i) {
            const auto total = ui::find_item_rect("memory/chart/total/" + std::to_string(i));
            if (!total) break;
            ++totals;
            CAPTURE(i);
            CHECK((total->y1 < line->y0 || total->y0 > line->y0));  // wholly above or below the line
        }
        CHECK(totals >= 2);
    }
}

TEST_CASE("memory panel: what 'other' holds, part by part, for the table's tooltip") {
    // The default layout (Llama 3 8B, tp 2, pp 2, ZeRO-3 over dp_shard 8). Every stage holds two
    // gathered blocks, 2 x 218,112,000 / t = 2 parameters x 2 B = 436,224,000 B = 0.406 GiB, a
    // micro-batch's activation gathered for TP's matmuls, 8192 x 4096 x 2 B = 64 MiB (0.0625 GiB,
    // shown to three places), and Megatron's 40M-element bf16 gradient bucket, 80 MB (0.0745 GiB);
    // the last stage also the loss's logits at their peak on the PyTorch stack (the fp32 log-softmax
    // and its gradient in and out), 12 B x 8192 x 128,256 / 2 = 6,304,038,912 B = 5.87 GiB.
    PanelHarness h;
    const ui::MemoryView& v = h.panel.view(h.state);
    REQUIRE(v.bars.size() == 2);
    CHECK(v.bars[1].other_detail == "ZeRO-3: the weights gathered at once (FSDP: the block running and the next; DeepSpeed: the "
                                        "submodule running and its prefetch bucket): 0.406 GiB\n"
                                    "the loss's fp32 logits of a micro-batch (and, on the PyTorch stack, their gradients): 5.87 GiB\n"
                                    "TP: a micro-batch's activation gathered for a matmul: 0.062 GiB\n"
                                    "the gradient reduction's bucket (40M elements at most): 0.075 GiB");
    CHECK(v.bars[0].other_detail.find("logits") == std::string::npos);  // the first stage has no loss
}

TEST_CASE("memory panel: four stages' totals in a narrow tile never run into each other") {
    // Llama 3 405B on 16 stages (examples/llama3-405b-16k-h100.json's layout): bars for stages 0, 1,
    // 8 and 15. At 293 px (a new user's tile beside the Scenario panel) "30.7 GiB" and "32.6 GiB"
    // overlapped; a total that would run into one drawn before it now sits a line above it.
    std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR) + "/examples/llama3-405b-16k-h100.json");
    std::stringstream text;
    text << in.rdbuf();
    const ScenarioLoad load = parse_scenario(text.str());
    REQUIRE_MESSAGE(load.ok(), load.error);
    const Scenario s = *load.scenario;
    REQUIRE(validate_scenario(s).empty());
    for (const float width : {293.0f, 220.0f}) {
        CAPTURE(width);
        PanelHarness h(s);
        h.size = ImVec2(width, 900);
        h.fixture.frames(2, h.draw());
        std::vector<ui::ItemRect> totals;
        for (int i = 0; i < 8; ++i)
            if (const auto r = ui::find_item_rect("memory/chart/total/" + std::to_string(i))) totals.push_back(*r);
        REQUIRE(totals.size() == 4);
        for (size_t i = 0; i + 1 < totals.size(); ++i) {
            CAPTURE(i);
            const bool apart = totals[i].x1 <= totals[i + 1].x0 || totals[i].y1 <= totals[i + 1].y0 ||
                               totals[i + 1].y1 <= totals[i].y0;
            CHECK(apart);
        }
    }
}

namespace {
// Whether the last frame drew a widget noted under `key` (find_item_rect also knows earlier frames').
bool drawn_in_last_frame(const std::string& key) {
    for (const auto& [k, rect] : ui::current_item_rects())
        if (k == key) return true;
    return false;
}
}  // namespace

TEST_CASE("memory panel: a refusal stands until the scenario changes, however it changes") {
    PanelHarness h;
    CHECK_FALSE(h.panel.act(h.state, "micro_batch", "3").empty());
    h.fixture.frames(2, h.draw());
    CHECK(drawn_in_last_frame("memory/error"));
    // Another panel's edit (or an opened file, or an undo): the refusal was about the scenario before.
    Scenario other = h.state.scenario();
    other.training.global_batch = 512;
    REQUIRE(h.state.apply_step(other).empty());
    h.fixture.frames(2, h.draw());
    CHECK_FALSE(drawn_in_last_frame("memory/error"));
}

TEST_CASE("memory panel: each control's edit says on the status line what it changed") {
    PanelHarness h;
    REQUIRE(h.panel.act(h.state, "zero", "1").empty());
    CHECK(h.state.ui.status == "Changed: zero 3 -> 1 (Ctrl+Z undoes it)");
    REQUIRE(h.panel.act(h.state, "zero", "3").empty());
    CHECK(h.state.ui.status == "Changed: zero 1 -> 3 (Ctrl+Z undoes it)");
    REQUIRE(h.panel.act(h.state, "recompute", "full").empty());
    CHECK(h.state.ui.status == "Changed: recompute none -> full (Ctrl+Z undoes it)");
}

TEST_CASE("memory panel: after + makes the scenario stop fitting, the controls stay under the mouse") {
    // A narrow tile scrolled down to "What moves memory": the verdict above grew a fix button and
    // pushed the controls down, so the next click landed on the ZeRO combo.
    Scenario s = default_scenario();
    s.training.micro_batch = 4;  // 16 sequences per data-parallel rank: + goes to 8, which does not fit
    PanelHarness h(s);
    float scroll_to = 400.0f;
    const auto draw = [&] {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(420, 500));
        ImGui::Begin("memory test");
        if (scroll_to >= 0) ImGui::SetScrollY(scroll_to);
        scroll_to = -1;
        h.panel.draw(h.state);
        ImGui::End();
        h.state.end_frame(ImGui::IsAnyItemActive());
    };
    h.fixture.frames(3, draw);
    REQUIRE(h.panel.view(h.state).fits);
    const auto before = ui::find_item_rect("memory/micro_batch/larger");
    REQUIRE(before);
    REQUIRE(before->y0 > 0);
    REQUIRE(before->y1 < 500);
    REQUIRE(h.fixture.click_item("memory/micro_batch/larger", draw));
    h.fixture.frames(4, draw);
    REQUIRE(h.state.scenario().training.micro_batch == 8);
    REQUIRE_FALSE(h.panel.view(h.state).fits);
    const auto after = ui::find_item_rect("memory/micro_batch/larger");
    REQUIRE(after);
    CHECK(after->y0 == doctest::Approx(before->y0).epsilon(0.001));
}

TEST_CASE("memory panel: kernels, Megatron-LM's recompute modules, every precision, FP8 activation input and bf16 moments by click") {
    PanelHarness h;  // Llama 3 8B: no MLA, no experts
    const auto draw = h.draw();
    h.fixture.frames(2, draw);
    REQUIRE_FALSE(h.state.scenario().training.fused_kernels);
    // The modules show only for Megatron-LM's selective recompute.
    const auto drawn_now = [](const std::string& key) {
        for (const auto& [name, rect] : ui::current_item_rects())
            if (name == key) return true;
        return false;
    };
    CHECK_FALSE(drawn_now("memory/recompute_module/layernorm"));
    pick(h, draw, "memory/kernels", "memory/kernels/fused");
    CHECK(h.state.scenario().training.fused_kernels);
    CHECK(h.state.ui.status.find("kernels eager -> fused") != std::string::npos);
    pick(h, draw, "memory/recompute", "memory/recompute/selective");
    REQUIRE(h.state.scenario().training.recompute == Recompute::selective);
    h.fixture.frames(2, draw);
    REQUIRE(h.fixture.click_item("memory/recompute_module/layernorm", draw));
    CHECK(recompute_module_names(h.state.scenario().training.recompute_modules) ==
          std::vector<std::string>{"core_attn", "layernorm"});
    CHECK(h.state.ui.status.find("recompute selective -> selective (core_attn, layernorm)") != std::string::npos);
    // A module this model has no part for is greyed: a click changes nothing.
    const Scenario before = h.state.scenario();
    REQUIRE(h.fixture.click_item("memory/recompute_module/mla_up_proj", draw));
    CHECK(h.state.scenario() == before);
    // FP8 activation input waits for FP8; then every precision is a choice, fp8 among them.
    REQUIRE(h.fixture.click_item("memory/fp8_activation_input", draw));
    CHECK_FALSE(h.state.scenario().training.activation_func_fp8_input_store);
    pick(h, draw, "memory/precision", "memory/precision/fp8");
    CHECK(h.state.scenario().training.precision == Precision::fp8);
    h.fixture.frames(2, draw);
    REQUIRE(h.fixture.click_item("memory/fp8_activation_input", draw));
    CHECK(h.state.scenario().training.activation_func_fp8_input_store);
    // FP8 params: 3 bytes of weight (BF16 and its FP8 copy) become 1 for the blocks' weights.
    const double weights = h.state.report().memory.params;
    REQUIRE(h.fixture.click_item("memory/fp8_params", draw));
    CHECK(h.state.scenario().training.fp8_param_gather);
    CHECK(h.state.report().memory.params < 0.5 * weights);
    REQUIRE(h.fixture.click_item("memory/fp8_params", draw));
    CHECK_FALSE(h.state.scenario().training.fp8_param_gather);
    CHECK(h.state.report().memory.params == doctest::Approx(weights));
    // bf16 moments: the optimizer state drops from 12 to 8 bytes a parameter.
    const double optimizer = h.state.report().memory.optimizer;
    REQUIRE(h.fixture.click_item("memory/bf16_adam_moments", draw));
    CHECK(h.state.scenario().training.bf16_adam_moments);
    CHECK(h.state.report().memory.optimizer == doctest::Approx(optimizer * 8.0 / 12.0));
    CHECK(h.state.ui.status.find("Adam moments fp32 -> bf16") != std::string::npos);
    // BF16 grads: FP8 keeps FP32 main gradients, 4 bytes a parameter; the switch makes them 2.
    const double grads = h.state.report().memory.grads;
    REQUIRE(h.fixture.click_item("memory/grad_reduce_in_bf16", draw));
    CHECK(h.state.scenario().training.grad_reduce_in_bf16);
    CHECK(h.state.report().memory.grads == doctest::Approx(grads / 2));
    CHECK(h.state.ui.status.find("BF16 grads off -> on") != std::string::npos);
    // Under mixed-bf16 it does not apply: greyed, and a click changes nothing.
    pick(h, draw, "memory/precision", "memory/precision/mixed-bf16");
    h.fixture.frames(2, draw);
    const Scenario mixed = h.state.scenario();
    REQUIRE(h.fixture.click_item("memory/grad_reduce_in_bf16", draw));
    CHECK(h.state.scenario() == mixed);
}

TEST_CASE("memory panel: the status line says when an edit turns the verdict, and says a refusal instead of an old change") {
    PanelHarness h(llama70b_ddp(8));  // Llama 3 70B as DDP on 64 GPUs: far over
    REQUIRE_FALSE(h.state.report().fits);
    // ZeRO-3 alone still leaves 180 GB of activations: the verdict stands, the line says only the change.
    REQUIRE(h.panel.act(h.state, "zero", "3").empty());
    REQUIRE_FALSE(h.state.report().fits);
    // The action says it as the combo does, the stage first.
    CHECK(h.state.ui.status == "Changed: zero 0 -> 3, dp_shard 1 -> 64, dp_replicate 64 -> 1 (Ctrl+Z undoes it)");
    // Full recompute brings it under: the line says so, with the total the verdict above says.
    REQUIRE(h.panel.act(h.state, "recompute", "full").empty());
    REQUIRE(h.state.report().fits);
    CHECK(h.state.ui.status == "Changed: recompute none -> full (Ctrl+Z undoes it). Now fits: " +
                                   format_memory(h.state.report().memory.total()) + " of 79.6 GiB on the most loaded GPU");
    REQUIRE(h.panel.act(h.state, "recompute", "none").empty());
    CHECK(h.state.ui.status == "Changed: recompute full -> none (Ctrl+Z undoes it). Now does not fit: " +
                                   format_memory(h.state.report().memory.total()) + " of 79.6 GiB on the most loaded GPU");
    // A refused edit replaces the line: it no longer reads as the last change.
    REQUIRE_FALSE(h.panel.act(h.state, "micro_batch", "3").empty());
    CHECK(h.state.ui.status.rfind("Not applied: training.global_batch", 0) == 0);
}

TEST_CASE("memory panel: a scenario's run block shows its days, goodput, cost and energy as core prices them") {
    Scenario s = default_scenario();
    RunSpec run;
    run.tokens = 1e12;
    run.checkpoint_write_gbps = 100;
    run.usd_per_gpu_hour = 2.5;
    s.run = run;
    s.cluster.gpu.board_power_w = 700;
    PanelHarness h(s);
    const ui::MemoryView& v = h.panel.view(h.state);
    const Report r = build_report(s);
    REQUIRE(r.run.has_value());
    const auto value = [&](const std::string& label) {
        for (const ui::FigureRecord& f : v.run)
            if (f.label == label) return f.value;
        FAIL("no run figure " << label);
        return std::string();
    };
    CHECK(value("Goodput") == format_percent(r.run->goodput));
    CHECK(value("GPU-hours") == format_count(r.run->gpu_hours));
    CHECK(value("Cost") == "$" + format_count(*r.run->usd));
    // 64 GPUs: the curve runs from a quarter (16) to four times (256) the job.
    CHECK(value("Goodput as the job grows").rfind("16 GPUs ", 0) == 0);
    CHECK(value("Goodput as the job grows").find("256 GPUs ") != std::string::npos);
    h.fixture.frame(h.draw());
}

TEST_CASE("memory panel: without a run block there are no Run rows at all") {
    PanelHarness h;
    CHECK(h.panel.view(h.state).run.empty());
}

TEST_CASE("memory panel: a communication part names its link and its calls per step, as core lists them") {
    PanelHarness h;  // the default: tp 2 with SP inside a node, exposed
    h.fixture.frames(2, h.draw());
    const ui::MemoryView& v = h.panel.view(h.state);
    const Report& r = h.state.report();
    const auto tp_dim = std::find_if(r.dims.begin(), r.dims.end(), [](const DimCost& d) { return d.name == "tp"; });
    REQUIRE(tp_dim != r.dims.end());
    REQUIRE_FALSE(tp_dim->calls.empty());
    const auto tp = std::find_if(v.step.begin(), v.step.end(), [](const ui::StepSegmentRecord& s) { return s.dim == "tp"; });
    REQUIRE(tp != v.step.end());
    // Two calls a block (all-gather and reduce-scatter of one micro-batch's activation, SP) on the
    // intra-node link.
    CHECK(tp->detail.find("intra link; per step " + describe_calls(tp_dim->calls) + " (mean message); " +
                          format_seconds(tp_dim->time_s) + " before overlap") != std::string::npos);
    CHECK(tp->detail.find("all-gather of") != std::string::npos);
    CHECK(tp->detail.find("reduce-scatter of") != std::string::npos);
}

TEST_CASE("memory panel: who runs ZeRO-3, by click, shown only at ZeRO stage 3") {
    PanelHarness h;  // the default: zero 3 on the PyTorch stack
    const auto draw = h.draw();
    h.fixture.frames(2, draw);
    REQUIRE(drawn_now("memory/zero_impl"));
    const double fsdp2_step = h.state.report().time.step.value();
    pick(h, draw, "memory/zero_impl", "memory/zero_impl/deepspeed-0.3");
    CHECK(h.state.scenario().parallel.zero_impl == ZeroImpl::deepspeed_0_3);
    CHECK(h.state.ui.status.find("ZeRO-3 by the stack's own -> deepspeed-0.3") != std::string::npos);
    // Its all-gathers wait behind a synchronize: the step can only grow.
    CHECK(h.state.report().time.step.value() > fsdp2_step);
    h.fixture.frames(2, draw);
    pick(h, draw, "memory/zero_impl", "memory/zero_impl/auto");
    CHECK_FALSE(h.state.scenario().parallel.zero_impl.has_value());
    // Below stage 3 the implementation does not matter and the combo is gone.
    Scenario s = h.state.scenario();
    s.parallel.zero = 1;
    REQUIRE(h.state.try_apply(s).empty());
    h.fixture.frames(2, draw);
    CHECK_FALSE(drawn_now("memory/zero_impl"));
}

TEST_CASE("memory panel: Megatron-LM's recompute method and n, under full recompute only") {
    PanelHarness h;  // selective recompute
    const auto draw = h.draw();
    h.fixture.frames(2, draw);
    CHECK_FALSE(drawn_now("memory/recompute_method"));
    REQUIRE(h.panel.act(h.state, "recompute", "full").empty());
    h.fixture.frames(2, draw);
    REQUIRE(drawn_now("memory/recompute_method"));
    REQUIRE(drawn_now("memory/recompute_num_layers"));
    const double every_block = h.state.report().time.step.value();
    pick(h, draw, "memory/recompute_method", "memory/recompute_method/block");
    CHECK(h.state.scenario().training.recompute_method == RecomputeMethod::block);
    REQUIRE(h.panel.act(h.state, "recompute_num_layers", "4").empty());
    CHECK(h.state.scenario().training.recompute_num_layers == 4);
    CHECK(h.state.ui.status.find("recompute full (block 1) -> full (block 4)") != std::string::npos);
    // Four of a stage's sixteen blocks re-run instead of all of them: a shorter step.
    CHECK(h.state.report().time.step.value() < every_block);
}

TEST_CASE("memory panel: where the compute goes, operation by operation as core's breakdown lists them") {
    PanelHarness h;
    h.size = ImVec2(1600, 2400);  // tall enough that the section's rows are on screen
    h.fixture.frames(2, h.draw());
    const ui::MemoryView& v = h.panel.view(h.state);
    const std::vector<ComputeOp> ops = compute_ops(h.state.report());
    REQUIRE_FALSE(ops.empty());
    REQUIRE(v.compute_ops.size() == ops.size());
    double shares = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        CHECK(v.compute_ops[i].name == ops[i].name);
        CHECK(v.compute_ops[i].time_text == format_seconds(ops[i].seconds));
        CHECK(v.compute_ops[i].colour == ui::compute_op_colour(ops[i].kind));
        if (i > 0) CHECK(ops[i].seconds <= ops[i - 1].seconds);
        shares += ops[i].fraction;
    }
    CHECK(shares == doctest::Approx(1.0));
    CHECK(v.compute_title == "Where the " + format_seconds(*h.state.report().time.compute) + " of compute goes");
    CHECK(v.moe_line.empty());  // the default model is dense
    // Collapsed until opened: one click on its header shows the table.
    CHECK_FALSE(drawn_now("memory/moe_line"));
    REQUIRE(h.fixture.click_item("memory/compute_ops", h.draw()));
    h.fixture.frames(2, h.draw());
    REQUIRE(h.panel.view(h.state).compute_ops.front().detail.find("bound by") != std::string::npos);
}

TEST_CASE("memory panel: an MoE model's line names tokens per expert and the mixture's share, as core says it") {
    Scenario s = default_scenario();
    s.model.experts = 8;
    s.model.top_k = 2;
    s.model.expert_ffn_hidden = 2048;
    s.parallel.ep = 2;
    REQUIRE(validate_scenario(s).empty());
    PanelHarness h(s);
    h.size = ImVec2(1600, 2400);
    h.fixture.frames(2, h.draw());
    const ui::MemoryView& v = h.panel.view(h.state);
    REQUIRE(h.state.report().moe.has_value());
    CHECK(v.moe_line == moe_summary(h.state.report()));
    CHECK(v.moe_line.find("routed tokens per expert a micro-batch") != std::string::npos);
    const auto experts = std::find_if(v.compute_ops.begin(), v.compute_ops.end(),
                                      [](const ui::ComputeOpRecord& r) { return r.name == "routed experts"; });
    REQUIRE(experts != v.compute_ops.end());
    CHECK(experts->moe_part);
    CHECK(experts->detail.find("part of the MoE blocks") != std::string::npos);
    REQUIRE(h.fixture.click_item("memory/compute_ops", h.draw()));
    h.fixture.frames(2, h.draw());
    CHECK(drawn_now("memory/moe_line"));
}
