#pragma once
// The one palette: a colour for each thing a student learns to recognise by colour, the same in every
// panel. A parallel dim (tp, cp, ep, dp_shard, dp_replicate, pp) has one colour whether it is a button
// in the Device mesh panel, a slice of the step bar in Memory and cost, a toggle in the Strategy
// explorer or a token of a layout in the Planner; a memory part (weights, gradients, ...) has one
// colour wherever memory is stacked. Panels never pick these colours themselves.
//
// What is not here: colours that only tell items of one picture apart (a GPU, a group, a micro-batch:
// plot::categorical_colour) and a panel's own chrome (backgrounds, outlines, text).
//
// Choices: the dims are bright and pairwise far apart; the memory parts are darker or greyer, so that a
// memory bar does not read as communication of some dim; red is kept for "does not fit", so neither
// family uses it.

#include "core/collectives/collectives.hpp"
#include "core/mesh/mesh_groups.hpp"
#include "core/scenario/scenario.hpp"
#include "core/strategy/strategy_price.hpp"

#include <imgui.h>

#include <array>
#include <optional>
#include <string_view>

namespace shardscope::ui::palette {

// ---- parallel dims -------------------------------------------------------------------------------

// A strategy's colour is its dim's (DP is dp_replicate, FSDP dp_shard, SP / CP cp): they are one Dim.
[[nodiscard]] ImU32 dim_colour(Dim d, float alpha = 1.0f) noexcept;
// By name ("tp", "dp_shard", ...: core's to_string of the dim); none for a name that is no dim.
[[nodiscard]] std::optional<ImU32> dim_colour(std::string_view name, float alpha = 1.0f) noexcept;

// ---- memory parts --------------------------------------------------------------------------------

// The parts of a GPU's memory, bottom to top of a stacked bar. `reserved` is the runtime's share: CUDA
// context, NCCL buffers and the allocator's slack.
enum class MemoryPart { params, grads, optimizer, activations, other, reserved };
inline constexpr std::array<MemoryPart, 6> kAllMemoryParts = {MemoryPart::params,    MemoryPart::grads,
                                                              MemoryPart::optimizer, MemoryPart::activations,
                                                              MemoryPart::other,     MemoryPart::reserved};

[[nodiscard]] ImU32 memory_part_colour(MemoryPart p, float alpha = 1.0f) noexcept;
// The part's name as panels print it: "weights", "gradients", "optimizer", "activations", "other",
// "reserved".
[[nodiscard]] const char* memory_part_name(MemoryPart p) noexcept;

// ---- the rest of a step, and links ---------------------------------------------------------------

// The parts of a step's time that are not a dim's communication (Memory and cost's step bar).
[[nodiscard]] ImU32 compute_colour() noexcept;
[[nodiscard]] ImU32 bubble_colour() noexcept;
[[nodiscard]] ImU32 other_comm_colour() noexcept;  // exposed communication no dim accounts for

// Links: inside a node (fast) and across nodes (slow), wherever a picture tells them apart.
[[nodiscard]] ImU32 link_colour(LinkClass link, float alpha = 1.0f) noexcept;

// `colour` with its alpha replaced.
[[nodiscard]] ImU32 with_alpha(ImU32 colour, float alpha) noexcept;

}  // namespace shardscope::ui::palette
