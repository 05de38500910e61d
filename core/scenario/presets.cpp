#include "core/scenario/presets.hpp"

#include "core/scenario/scenario_json.hpp"

namespace shardscope {
namespace {

using detail::Json;
using detail::ObjectReader;

constexpr std::string_view kModelSchema = "shardscope.model-preset/1";
constexpr std::string_view kClusterSchema = "shardscope.cluster-preset/1";

// Parses the text, checks schema and source, and lets `read` take the payload object; the field rules
// only (the caller runs the cross-field rules after). Returns the error message, empty on success.
template <typename Read>
std::string read_preset(std::string_view text, std::string_view schema, std::string& source, Read&& read) {
    return json_read::first_error([&] {
        const Json doc = json_read::parse_document(text);
        ObjectReader r(doc, "");
        r.expect_schema(schema);
        source = r.string_field("source");
        // A preset exists to be trusted: every figure must say where it comes from.
        if (source.find_first_not_of(" \t\n") == std::string::npos) detail::fail("source", "must not be empty");
        read(r);
        r.reject_unknown();
    });
}

// The model's shape: everything but its name, the length it trains at and its RoPE base (neither of
// the last two changes a tensor).
bool same_shape(const ModelSpec& a, const ModelSpec& b) {
    Scenario x, y;
    x.model = a;
    y.model = b;
    x.model.name = y.model.name = "";
    x.model.seq_len = y.model.seq_len = 0;
    x.model.rope_theta = y.model.rope_theta = 0;
    return x == y;
}

}  // namespace

namespace {

// Everything but the name, the node count and the board power (which prices energy, not a step) is
// alike: one kind of node.
bool same_node(ClusterSpec a, const ClusterSpec& b) {
    a.name = b.name;
    a.nodes = b.nodes;
    a.gpu.board_power_w = b.gpu.board_power_w;
    Scenario x, y;  // compared as a scenario file writes them: every field, none forgotten
    x.cluster = a;
    y.cluster = b;
    return x == y;
}

std::string marked_edited(const std::string& name) {
    static const std::string kMark = " (edited)";
    const bool marked = name.size() >= kMark.size() && name.compare(name.size() - kMark.size(), kMark.size(), kMark) == 0;
    return marked ? name : name + kMark;
}

}  // namespace

// Its own name when `alike` says the edit kept what names it, else the name of a preset it is alike
// to (`spec` reads a preset's spec), else its own marked edited.
template <typename Spec, typename Preset, typename Alike, typename SpecOf>
std::string name_after_edit(const Spec& before, const Spec& edited, const std::vector<Preset>& presets, Alike alike,
                            SpecOf spec) {
    if (alike(before, edited)) return edited.name;
    for (const Preset& p : presets)
        if (alike(spec(p), edited)) return spec(p).name;
    return marked_edited(edited.name);
}

std::string model_name_after_edit(const ModelSpec& before, const ModelSpec& edited,
                                  const std::vector<ModelPreset>& presets) {
    return name_after_edit(before, edited, presets, same_shape,
                           [](const ModelPreset& p) -> const ModelSpec& { return p.model; });
}

std::string cluster_name_after_edit(const ClusterSpec& before, const ClusterSpec& edited,
                                    const std::vector<ClusterPreset>& presets) {
    return name_after_edit(before, edited, presets, same_node,
                           [](const ClusterPreset& p) -> const ClusterSpec& { return p.cluster; });
}

ModelPresetLoad parse_model_preset(std::string_view json_text) {
    ModelPresetLoad out;
    ModelPreset preset;
    out.error = read_preset(json_text, kModelSchema, preset.source, [&](ObjectReader& r) {
        preset.model = detail::read_model(r.required("model"));
    });
    if (out.error.empty()) out.error = validate_model(preset.model);
    if (out.error.empty()) out.preset = std::move(preset);
    return out;
}

ClusterPresetLoad parse_cluster_preset(std::string_view json_text) {
    ClusterPresetLoad out;
    ClusterPreset preset;
    out.error = read_preset(json_text, kClusterSchema, preset.source, [&](ObjectReader& r) {
        preset.cluster = detail::read_cluster(r.required("cluster"));
    });
    if (out.error.empty()) out.error = validate_cluster(preset.cluster);
    if (out.error.empty()) out.preset = std::move(preset);
    return out;
}

}  // namespace shardscope
