#include "widgets/scenario/scenario_panel.hpp"

#include "core/model/params.hpp"
#include "core/scenario/units.hpp"
#include "widgets/kit/tooltip.hpp"
#include "widgets/shell/item_rects.hpp"

#include <imgui.h>

#include <array>

namespace shardscope::ui {
namespace {

// Every whole-number field of the model and the batch the panel edits, in the scenario's own names.
struct Field {
    const char* key;    // the action's and the probe's name, as the scenario file spells it
    const char* label;
    const char* help;
    int64_t min;  // 0 where 0 means "none" or "the default"
    int64_t& (*ref)(Scenario&);
};

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

const Field* find_field(const std::string& key) {
    for (const Field& f : kFields)
        if (key == f.key) return &f;
    return nullptr;
}

std::string target_label(ExportTarget t) {
    switch (t) {
        case ExportTarget::megatron: return "Megatron-LM";
        case ExportTarget::torchtitan: return "TorchTitan";
        case ExportTarget::deepspeed: return "DeepSpeed";
        case ExportTarget::nccl_tests: return "nccl-tests";
    }
    return "";
}

}  // namespace

ScenarioPanel::ScenarioPanel(Placement placement, bool open_by_default)
    : Panel("scenario", "Scenario", placement, open_by_default), drafts_(kFields.size(), 0) {
    actions_.text("model", "a model preset's name", "put this model preset in the scenario", [this](AppState& state, const ActionValue& v) {
        return apply_model_preset(state, v.text);
    });
    for (const Field& f : kFields) {
        const std::string key = f.key;
        actions_.integer(key, std::string("set ") + f.help, f.min, kNoUpperCount,
                         [this, key](AppState& state, const ActionValue& v) { return apply_field(state, key, v.integer); });
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
        error_ = state.try_apply(candidate);
        if (error_.empty()) state.ui.status = "Model " + name + " (" + p.source.substr(0, 80) + (p.source.size() > 80 ? "...)" : ")");
        return error_.empty() ? "" : "the current layout cannot run " + name + ": " + error_;
    }
    std::string names;
    for (const ModelPreset& p : presets_) names += (names.empty() ? "" : ", ") + p.model.name;
    return "\"" + name + "\" is not a model preset (" + names + ")";
}

std::string ScenarioPanel::apply_field(AppState& state, const std::string& key, int64_t value) {
    const Field* f = find_field(key);
    if (!f) return "unknown field " + key;
    Scenario candidate = state.scenario();
    f->ref(candidate) = value;
    error_ = state.try_apply(candidate);
    return error_;
}

std::string ScenarioPanel::copy_as(AppState& state, ExportTarget target) {
    const FrameworkExport e = export_scenario(state.scenario(), target);
    last_copied_ = e.text;
    ImGui::SetClipboardText(e.text.c_str());
    state.ui.status = "Copied the " + target_label(target) + " " + (target == ExportTarget::deepspeed ? "ds_config.json" : "settings") +
                      " to the clipboard" +
                      (e.warnings.empty() ? std::string()
                                          : " (" + std::to_string(e.warnings.size()) + " note" + (e.warnings.size() == 1 ? "" : "s") +
                                                ": " + e.warnings.front() + ")");
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
    if (ImGui::Button("Import model...")) state.ui.file_dialog = FileDialogMode::open;
    note_last_item("scenario/import");
    wrapped_tooltip_for_last_item("A model preset, or a Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2/3, DeepSeek-V3): "
               "the model is replaced, the layout and batch kept. Also File > Open, or drop the file on the window.");
    const ParamCounts counts = count_params(m);
    ImGui::Text("%s parameters%s", format_count(counts.total).c_str(),
                m.is_moe() ? (", " + format_count(counts.active_per_token) + " active per token").c_str() : "");
    if (current) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextDisabled("Source: %s", current->source.c_str());
        ImGui::PopTextWrapPos();
    }
}

void ScenarioPanel::draw_fields(AppState& state) {
    if (!ImGui::BeginTable("##fields", 4, ImGuiTableFlags_SizingStretchProp)) return;
    Scenario current = state.scenario();  // read through the fields' references; edits go through apply_field
    for (std::size_t i = 0; i < kFields.size(); ++i) {
        const Field& f = kFields[i];
        const int64_t value = f.ref(current);
        if (i % 2 == 0) ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(f.label);
        wrapped_tooltip_for_last_item(f.help);
        ImGui::TableNextColumn();
        ImGui::SetNextItemWidth(-1);
        ImGui::PushID(f.key);
        ImGui::InputScalar("##v", ImGuiDataType_S64, &drafts_[i]);
        note_last_item(std::string("scenario/field/") + f.key);
        // Applied when the person leaves the field (Enter, Tab or a click elsewhere), as one undo step.
        if (ImGui::IsItemDeactivatedAfterEdit()) (void)apply_field(state, f.key, drafts_[i]);
        else if (!ImGui::IsItemActive()) drafts_[i] = value;
        ImGui::PopID();
    }
    ImGui::EndTable();
    if (!error_.empty()) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "Not applied: %s", error_.c_str());
        ImGui::PopTextWrapPos();
        note_last_item("scenario/error");
    }
}

void ScenarioPanel::draw_copy_row(AppState& state) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Copy as");
    for (ExportTarget t : export_targets()) {
        ImGui::SameLine();
        if (ImGui::Button(target_label(t).c_str())) (void)copy_as(state, t);
        note_last_item("scenario/copy/" + std::string(to_string(t)));
    }
    wrapped_tooltip_for_last_item("The layout in the framework's own flags or keys (shardscope export --to ...); what it has no "
               "equivalent for is a comment line, never a guessed flag.");
}

void ScenarioPanel::draw(AppState& state) {
    draw_preset_row(state);
    ImGui::Separator();
    draw_fields(state);
    ImGui::Separator();
    draw_copy_row(state);
}

}  // namespace shardscope::ui
