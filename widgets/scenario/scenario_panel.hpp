#pragma once
// The Scenario panel: the model and the batch, edited in the app. Pick a model preset (with its public
// source) or edit any model field, the global batch, the micro-batch and the sequence length; every
// edit goes through core's validation with the same message a file gets, and is one undo step. A
// model file (a preset or a Hugging Face config.json) comes in through Import model..., File or a drop; "Copy
// as" puts the layout in a framework's terms (core/export) on the clipboard. The cluster's shape
// (preset, nodes, GPUs per node) is edited in the Device mesh panel; its GPU and links here, under
// "GPU and links".

#include "core/export/framework_export.hpp"
#include "core/scenario/presets.hpp"
#include "widgets/kit/number_field.hpp"
#include "widgets/shell/panel.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace shardscope::ui {

class ScenarioPanel : public Panel {
public:
    ScenarioPanel(Placement placement, bool open_by_default);

    void draw(AppState& state) override;
    // The presets the app read from assets/models (widgets never read files).
    void set_model_presets(std::vector<ModelPreset> presets) { presets_ = std::move(presets); }
    [[nodiscard]] const std::vector<ModelPreset>& model_presets() const noexcept { return presets_; }
    // The cluster presets, to name a cluster whose GPU figures were edited by hand.
    void set_cluster_presets(std::vector<ClusterPreset> presets) { cluster_presets_ = std::move(presets); }
    [[nodiscard]] const std::string& last_error() const noexcept { return error_; }

private:
    std::string apply_model_preset(AppState& state, const std::string& name);
    std::string apply_field(AppState& state, const std::string& key, int64_t value);
    // A field left with text that is no number: refused by the field's name.
    void refuse_typed(const AppState& state, const char* label, const std::string& why);
    std::string apply_cluster_field(AppState& state, const std::string& key, double value);
    std::string apply_candidate(AppState& state, const Scenario& candidate);
    std::string copy_as(AppState& state, ExportTarget target);
    void draw_preset_row(AppState& state);
    void draw_fields(AppState& state);
    void draw_cluster_fields(AppState& state);
    void draw_refusal(const AppState& state) const;
    void draw_copy_row(AppState& state);

    std::vector<ModelPreset> presets_;
    std::vector<ClusterPreset> cluster_presets_;
    std::vector<WholeNumberText> drafts_;  // one per field: what the person is typing, as typed
    std::vector<NumberText> cluster_drafts_;  // the GPU and links fields as typed
    std::string error_;            // the rule the last edit broke
    unsigned long refused_at_version_ = 0;  // the scenario it was refused against
};

}  // namespace shardscope::ui
