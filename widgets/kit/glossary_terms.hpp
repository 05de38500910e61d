#pragma once
// The glossary term behind each concept the panels name (a strategy, a schedule, a collective, a mesh
// dim, a memory part), in one place: hovering the control that names it shows the term's definition
// (glossary_tooltip_for_last_item). A test checks every term here is in the shipped glossary.

#include "core/collectives/collective_steps.hpp"
#include "core/collectives/collectives.hpp"
#include "core/mesh/mesh_groups.hpp"
#include "core/scenario/scenario.hpp"
#include "core/strategy/strategy_price.hpp"

#include <string_view>
#include <vector>

namespace shardscope::ui {

[[nodiscard]] std::string_view glossary_term(Schedule s) noexcept;
[[nodiscard]] std::string_view glossary_term(Collective c) noexcept;
[[nodiscard]] std::string_view glossary_term(StepAlgorithm a) noexcept;
[[nodiscard]] std::string_view glossary_term(Dim d) noexcept;
// The ZeRO stage (0 for none): "ZeRO", "ZeRO-1" .. "ZeRO-3".
[[nodiscard]] std::string_view zero_stage_term(int stage) noexcept;

// Memory parts and knobs named in several panels.
namespace terms {
inline constexpr std::string_view kWeights = "Parameter";
inline constexpr std::string_view kGradients = "Gradient";
inline constexpr std::string_view kOptimizer = "Optimizer state";
inline constexpr std::string_view kActivations = "Activation memory";
inline constexpr std::string_view kRecompute = "Activation recomputation";
inline constexpr std::string_view kPrecision = "Mixed precision";
inline constexpr std::string_view kSequenceParallel = "Sequence parallel";
inline constexpr std::string_view kBubble = "Bubble";
inline constexpr std::string_view kMicroBatch = "Micro-batch";
inline constexpr std::string_view kStage = "Pipeline stage";
inline constexpr std::string_view kPointToPoint = "Point-to-point";
inline constexpr std::string_view kMeshOrder = "Mesh order";
}  // namespace terms

// Every term above and every value of the functions: for the test that they all resolve.
[[nodiscard]] std::vector<std::string_view> all_glossary_terms_used();

}  // namespace shardscope::ui
