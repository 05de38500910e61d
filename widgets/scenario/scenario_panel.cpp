#include "widgets/scenario/scenario_panel.hpp"

#include "core/model/params.hpp"
#include "core/scenario/presets.hpp"
#include "core/scenario/units.hpp"
#include "widgets/kit/tooltip.hpp"
#include "widgets/shell/copy_out.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/number_field.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {
namespace {

// One field of the scenario the panel edits: whole numbers for the model and the batch, numbers for
// the GPU and the links.
template <typename T>
struct FieldOf {
    const char* key;    // the action's and the probe's name, as the scenario file spells it
    const char* label;
    const char* help;
    T min;  // 0 where 0 means "none" or "the default"; core's validation says the exact rule
    T& (*ref)(Scenario&);
};
using Field = FieldOf<int64_t>;
using NumberField = FieldOf<double>;

const std::array<Field, 15> kFields = {{
    {"layers", "layers", "transformer blocks", 1, [](Scenario& s) -> int64_t& { return s.model.layers; }},
    {"hidden", "hidden", "the model width h", 1, [](Scenario& s) -> int64_t& { return s.model.hidden; }},
    {"ffn_hidden", "ffn_hidden", "the dense MLP's width", 1, [](Scenario& s) -> int64_t& { return s.model.ffn_hidden; }},
    {"heads", "heads", "attention (query) heads", 1, [](Scenario& s) -> int64_t& { return s.model.heads; }},
    {"kv_heads", "kv_heads", "key/value heads (GQA: fewer than heads)", 1, [](Scenario& s) -> int64_t& { return s.model.kv_heads; }},
    {"head_dim", "head_dim", "one head's width; 0 = hidden / heads", 0, [](Scenario& s) -> int64_t& { return s.model.head_dim; }},
    {"vocab", "vocab", "vocabulary size", 1, [](Scenario& s) -> int64_t& { return s.model.vocab; }},
    {"experts", "experts", "routed experts per MoE layer; 0 = dense", 0, [](Scenario& s) -> int64_t& { return s.model.experts; }},
    {"top_k", "top_k", "experts each token is routed to", 0, [](Scenario& s) -> int64_t& { return s.model.top_k; }},
    {"expert_ffn_hidden", "expert_ffn_hidden", "one expert's MLP width", 0, [](Scenario& s) -> int64_t& { return s.model.expert_ffn_hidden; }},
    {"shared_experts", "shared_experts", "experts every token passes through", 0, [](Scenario& s) -> int64_t& { return s.model.shared_experts; }},
    {"dense_layers", "dense_layers", "leading layers with a dense MLP in an MoE model", 0, [](Scenario& s) -> int64_t& { return s.model.dense_layers; }},
    {"seq_len", "seq_len", "tokens per sequence, as trained", 1, [](Scenario& s) -> int64_t& { return s.model.seq_len; }},
    {"global_batch", "global_batch", "sequences per optimizer step", 1, [](Scenario& s) -> int64_t& { return s.training.global_batch; }},
    {"micro_batch", "micro_batch", "sequences per micro-batch", 1, [](Scenario& s) -> int64_t& { return s.training.micro_batch; }},
}};

// The GPU and the links, in the scenario file's units (GB, TFLOP/s, GB/s, microseconds), named by the
// file's path with '.' as '_'. The cluster's shape (preset, nodes, GPUs per node) is the Device mesh
// panel's.

const std::array<NumberField, 8> kClusterFields = {{
    {"gpu_memory_gb", "memory (nominal GB)",
     "cluster.gpu.memory_gb: the vendor's nominal size, a label; the capacity is what the card exposes (H100 80 GB: "
     "79.6 GiB; other cards memory_gb GiB; cluster.gpu.memory_mib sets it)",
     0,
     [](Scenario& s) -> double& { return s.cluster.gpu.memory_gb; }},
    {"gpu_peak_tflops", "peak (TFLOP/s)", "cluster.gpu.peak_tflops: dense peak of the training dtype, datasheet", 0,
     [](Scenario& s) -> double& { return s.cluster.gpu.peak_tflops; }},
    {"gpu_peak_fp8_tflops", "FP8 peak (TFLOP/s)", "cluster.gpu.peak_fp8_tflops: dense FP8 peak; 0 = none", 0,
     [](Scenario& s) -> double& { return s.cluster.gpu.peak_fp8_tflops; }},
    {"gpu_hbm_gbps", "HBM (GB/s)", "cluster.gpu.hbm_gbps: memory bandwidth, datasheet", 0,
     [](Scenario& s) -> double& { return s.cluster.gpu.hbm_gbps; }},
    {"intra_node_bandwidth_gbps", "intra-node (GB/s)",
     "cluster.intra_node.bandwidth_gbps: per GPU, one direction, as nccl-tests' bus bandwidth", 0,
     [](Scenario& s) -> double& { return s.cluster.intra_node.bandwidth_gbps; }},
    {"intra_node_latency_us", "intra-node latency (us)", "cluster.intra_node.latency_us: alpha per ring step", 0,
     [](Scenario& s) -> double& { return s.cluster.intra_node.latency_us; }},
    {"inter_node_bandwidth_gbps", "inter-node (GB/s)",
     "cluster.inter_node.bandwidth_gbps: per GPU, one direction, as nccl-tests' bus bandwidth", 0,
     [](Scenario& s) -> double& { return s.cluster.inter_node.bandwidth_gbps; }},
    {"inter_node_latency_us", "inter-node latency (us)", "cluster.inter_node.latency_us: alpha per ring step", 0,
     [](Scenario& s) -> double& { return s.cluster.inter_node.latency_us; }},
}};

// A value column's width against its label column's.
constexpr float kValueShare = 1.3f;

// Label, value, label, value at fixed shares of the width: without them a stretched table refits its
// columns to their contents whenever a popup takes the focus, and the fields jump.
void setup_field_columns(int pairs) {
    for (int pair = 0; pair < pairs; ++pair) {
        ImGui::TableSetupColumn(pair == 0 ? "label" : "label 2", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn(pair == 0 ? "value" : "value 2", ImGuiTableColumnFlags_WidthStretch, kValueShare);
    }
}

// The scenario with the field named `key` set to `value`; nothing when no field has that name.
template <typename T, std::size_t N>
std::optional<Scenario> with_field(const Scenario& s, const std::array<FieldOf<T>, N>& fields, const std::string& key,
                                   T value) {
    for (const FieldOf<T>& f : fields)
        if (key == f.key) {
            Scenario candidate = s;
            f.ref(candidate) = value;
            return candidate;
        }
    return std::nullopt;
}

// The fields two to a row (one in a narrow tile): each label with its help, and `input(i)` drawing
// field i's value.
template <typename T, std::size_t N, typename Input>
void draw_field_table(const char* id, const std::array<FieldOf<T>, N>& fields, Input&& input) {
    // Two to a row while each value keeps room for a 7-digit number and each label column holds the
    // longest label; one to a row in a narrow tile, where two would cut labels ("expert_ffn_hidder")
    // and show 14336 as "1433".
    float widest_label = 0;
    for (const FieldOf<T>& f : fields) widest_label = std::max(widest_label, ImGui::CalcTextSize(f.label).x);
    const float width = ImGui::GetContentRegionAvail().x;
    const float label_column = width / (2.0f * (1.0f + kValueShare));  // of two pairs
    const bool narrow = width < 24.0f * ImGui::GetFontSize() ||
                        label_column < widest_label + 2.0f * ImGui::GetStyle().CellPadding.x;
    const int pairs = narrow ? 1 : 2;
    if (!ImGui::BeginTable(narrow ? (std::string(id) + "_narrow").c_str() : id, 2 * pairs,
                           ImGuiTableFlags_SizingStretchProp))
        return;
    setup_field_columns(pairs);
    for (std::size_t i = 0; i < N; ++i) {
        const FieldOf<T>& f = fields[i];
        if (i % static_cast<std::size_t>(pairs) == 0) ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(f.label);
        wrapped_tooltip_for_last_item(f.help);
        ImGui::TableNextColumn();
        ImGui::SetNextItemWidth(-1);
        ImGui::PushID(f.key);
        input(i);
        ImGui::PopID();
    }
    ImGui::EndTable();
}

}  // namespace

ScenarioPanel::ScenarioPanel(Placement placement, bool open_by_default)
    : Panel("scenario", "Scenario", placement, open_by_default),
      drafts_(kFields.size(), WholeNumberText{}),
      cluster_drafts_(kClusterFields.size(), NumberText{}) {
    actions_.text("model", "a model preset's name", "put this model preset in the scenario", [this](AppState& state, const ActionValue& v) {
        return apply_model_preset(state, v.text);
    });
    for (const Field& f : kFields) {
        const std::string key = f.key;
        actions_.integer(key, std::string("set ") + f.help, f.min, kNoUpperCount,
                         [this, key](AppState& state, const ActionValue& v) { return apply_field(state, key, v.integer); });
    }
    for (const NumberField& f : kClusterFields) {
        const std::string key = f.key;
        actions_.number(key, std::string("set ") + f.help, f.min, 1e6,
                        [this, key](AppState& state, const ActionValue& v) { return apply_cluster_field(state, key, v.number); });
    }
    std::vector<std::string> targets;
    for (ExportTarget t : export_targets()) targets.emplace_back(to_string(t));
    actions_.choice("copy", "copy the layout in this framework's terms to the clipboard", targets,
                    [this](AppState& state, const ActionValue& v) {
                        return copy_as(state, *export_target_from_string(v.text));
                    });
}

std::string ScenarioPanel::apply_model_preset(AppState& state, const std::string& name) {
    for (const ModelPreset& p : presets_) {
        if (p.model.name != name) continue;
        Scenario candidate = state.scenario();
        candidate.model = p.model;
        const int64_t length_before = state.scenario().model.seq_len;
        (void)apply_candidate(state, candidate);
        // A preset brings its own training length; a person comparing models would not see it change.
        if (error_.empty())
            state.ui.status = "Model " + name +
                              (p.model.seq_len != length_before
                                   ? ": seq_len " + std::to_string(length_before) + " -> " +
                                         std::to_string(p.model.seq_len) + ", the preset's training length"
                                   : std::string()) +
                              " (Ctrl+Z undoes it; its source is under the model)";
        return error_.empty() ? "" : "the current layout cannot run " + name + ": " + error_;
    }
    std::string names;
    for (const ModelPreset& p : presets_) names += (names.empty() ? "" : ", ") + p.model.name;
    return "\"" + name + "\" is not a model preset (" + names + ")";
}

std::string ScenarioPanel::apply_field(AppState& state, const std::string& key, int64_t value) {
    std::optional<Scenario> candidate = with_field(state.scenario(), kFields, key, value);
    if (!candidate) return "unknown field " + key;
    candidate->model.name = model_name_after_edit(state.scenario().model, candidate->model, presets_);
    return apply_candidate(state, *candidate);
}

std::string ScenarioPanel::apply_cluster_field(AppState& state, const std::string& key, double value) {
    std::optional<Scenario> candidate = with_field(state.scenario(), kClusterFields, key, value);
    if (!candidate) return "unknown field " + key;
    candidate->cluster.name = cluster_name_after_edit(state.scenario().cluster, candidate->cluster, cluster_presets_);
    return apply_candidate(state, *candidate);
}

std::string ScenarioPanel::apply_candidate(AppState& state, const Scenario& candidate) {
    // A value typed back to what the scenario holds is no edit, and leaves nothing refused to show.
    if (candidate == state.scenario()) {
        error_.clear();
        return error_;
    }
    error_ = state.apply_step(candidate);
    refused_at_version_ = state.version();
    return error_;
}

std::string ScenarioPanel::copy_as(AppState& state, ExportTarget target) {
    copy_scenario_as(state, state.scenario(), target, "the scenario");
    return "";
}
void ScenarioPanel::draw_preset_row(AppState& state) {
    const ModelSpec& m = state.scenario().model;
    const ModelPreset* current = nullptr;
    for (const ModelPreset& p : presets_)
        if (p.model.name == m.name) current = &p;
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Model");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (ImGui::BeginCombo("##model", m.name.c_str())) {
        for (const ModelPreset& p : presets_) {
            if (ImGui::Selectable(p.model.name.c_str(), &p == current)) (void)apply_model_preset(state, p.model.name);
            note_last_item("scenario/preset/" + p.model.name);
        }
        ImGui::EndCombo();
    }
    note_last_item("scenario/model");
    ImGui::SameLine();
    if (ImGui::Button("Import model...")) state.ui.file_dialog = FileDialogMode::import_model;
    note_last_item("scenario/import");
    wrapped_tooltip_for_last_item("A model preset, or a Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2/3, DeepSeek-V3): "
               "the model is replaced, the layout and batch kept. Also File > Open, or drop the file on the window.");
    const ParamCounts counts = count_params(m);
    ImGui::Text("%s parameters%s", format_count(counts.total).c_str(),
                m.is_moe() ? (", " + format_count(counts.active_per_token) + " active per token").c_str() : "");
    if (current) {
        ImGui::PushTextWrapPos(0);
        text_wrapped_disabled("Source: " + current->source);
        ImGui::PopTextWrapPos();
    }
}

void ScenarioPanel::draw_fields(AppState& state) {
    Scenario read = state.scenario();  // the fields' references read through a copy
    draw_field_table("##fields", kFields, [&](std::size_t i) {
        const Field& f = kFields[i];
        // What the person typed is read once they leave the field; until then it stays as typed.
        const std::optional<WholeNumberRead> typed = whole_number_field("##v", drafts_[i], f.ref(read));
        note_last_item(std::string("scenario/field/") + f.key);
        if (!typed) return;
        if (typed->value) (void)apply_field(state, f.key, *typed->value);
        else refuse_typed(state, f.label, typed->error);
    });
}

void ScenarioPanel::refuse_typed(const AppState& state, const char* label, const std::string& why) {
    error_ = std::string(label) + ": " + why;
    refused_at_version_ = state.version();
}

void ScenarioPanel::draw_cluster_fields(AppState& state) {
    const bool open = ImGui::CollapsingHeader("GPU and links");
    note_last_item("scenario/cluster");
    wrapped_tooltip_for_last_item("The cluster's GPU and links, as the scenario file holds them. The cluster preset, "
                                  "nodes and GPUs per node are in the Device mesh panel.");
    if (!open) return;
    const ClusterSpec& c = state.scenario().cluster;
    ImGui::TextDisabled("%s: %lld nodes x %lld GPUs", c.name.c_str(), static_cast<long long>(c.nodes),
                        static_cast<long long>(c.gpus_per_node));
    Scenario read = state.scenario();
    draw_field_table("##cluster_fields", kClusterFields, [&](std::size_t i) {
        const NumberField& f = kClusterFields[i];
        // Read whole when left: ImGui's InputDouble kept the digits of "8k" and made "1,5" a 15.
        const std::optional<NumberRead> typed = number_field("##v", cluster_drafts_[i], f.ref(read));
        note_last_item(std::string("scenario/field/") + f.key);
        if (!typed) return;
        if (typed->value) (void)apply_cluster_field(state, f.key, *typed->value);
        else refuse_typed(state, f.label, typed->error);
    });
}

void ScenarioPanel::draw_refusal(const AppState& state) const {
    // Shown until the scenario changes in any way (another edit, an undo, another panel).
    if (error_.empty() || state.version() != refused_at_version_) return;
    ImGui::PushTextWrapPos(0);
    text_wrapped_coloured(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "Not applied: " + error_);
    ImGui::PopTextWrapPos();
    note_last_item("scenario/error");
}

void ScenarioPanel::draw_copy_row(AppState& state) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Copy as");
    for (ExportTarget t : export_targets()) {
        ImGui::SameLine();
        if (ImGui::Button(framework_label(t).c_str())) (void)copy_as(state, t);
        note_last_item("scenario/copy/" + std::string(to_string(t)));
    }
    wrapped_tooltip_for_last_item("The layout in the framework's own flags or keys (shardscope export --to ...); what it has no "
               "equivalent for is a comment line, never a guessed flag.");
}

void ScenarioPanel::draw(AppState& state) {
    draw_preset_row(state);
    ImGui::Separator();
    draw_fields(state);
    draw_cluster_fields(state);
    draw_refusal(state);
    ImGui::Separator();
    draw_copy_row(state);
}

}  // namespace shardscope::ui
