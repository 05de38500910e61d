#pragma once
// The one vocabulary of parallel dims, shared by the scenario, the mesh, the report, the strategy
// explorer, the planner and every panel. Each dim has one name (the scenario's `parallel` key), one
// teaching name (the strategy it stands for), the collective its groups run and the rule that decides
// which link those collectives cross.
//
// Five of the six are mesh dims, the ones `parallel.order` arranges; ep is not among them: it borrows
// its ranks from cp x dp_shard (core/mesh/mesh.hpp).

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace shardscope {

enum class Dim { tp, cp, ep, dp_shard, dp_replicate, pp };

// Every dim, in the order panels list them.
inline constexpr std::array<Dim, 6> kAllDims = {Dim::tp, Dim::cp, Dim::ep, Dim::dp_shard, Dim::dp_replicate, Dim::pp};
// The dims `parallel.order` arranges, in the order of the mesh's coordinate arrays.
inline constexpr std::array<Dim, 5> kMeshDims = {Dim::tp, Dim::cp, Dim::dp_shard, Dim::dp_replicate, Dim::pp};
// The strategies as the explorer and the cheat sheet teach them: plain replication first, then what
// each further split adds.
inline constexpr std::array<Dim, 6> kStrategyOrder = {Dim::dp_replicate, Dim::dp_shard, Dim::tp,
                                                      Dim::pp,           Dim::ep,       Dim::cp};

// Index into arrays laid out like kAllDims.
[[nodiscard]] constexpr size_t dim_index(Dim d) noexcept { return static_cast<size_t>(d); }
[[nodiscard]] constexpr bool is_mesh_dim(Dim d) noexcept { return d != Dim::ep; }
// Index of a mesh dim in coordinate arrays: the order of kMeshDims (tp, cp, dp_shard, dp_replicate, pp).
// ep has no axis of its own (it borrows cp x dp_shard): asking for it is a programming error.
[[nodiscard]] constexpr size_t mesh_axis(Dim d) noexcept {
    switch (d) {
        case Dim::tp: return 0;
        case Dim::cp: return 1;
        case Dim::dp_shard: return 2;
        case Dim::dp_replicate: return 3;
        case Dim::pp: return 4;
        case Dim::ep: break;
    }
    return kMeshDims.size();
}

// "tp", "cp", "ep", "dp_shard", "dp_replicate", "pp": the scenario's `parallel` keys.
[[nodiscard]] std::string_view to_string(Dim d) noexcept;
[[nodiscard]] std::optional<Dim> dim_from_string(std::string_view s) noexcept;
// Only the five mesh dims (what `parallel.order` may list).
[[nodiscard]] std::optional<Dim> mesh_dim_from_string(std::string_view s) noexcept;

// What one dim is and does, in this project's words.
struct DimFacts {
    const char* strategy_key;    // the teaching name: "dp", "fsdp", "tp", "pp", "ep", "cp"
    const char* strategy_label;  // "DP / DDP", "FSDP / ZeRO", ...
    const char* splits;          // what the dim divides among its group
    const char* communication;   // what its groups exchange
    const char* cost;            // what the split costs
    const char* reach_for_it_when;
    const char* link_rule;  // which link that traffic crosses
};
[[nodiscard]] const DimFacts& dim_facts(Dim d) noexcept;
// The same for a layout at ZeRO stage `zero_stage`: stages 1 and 2 shard less than FSDP (stage 3) and
// send at other times; every other dim, and stages 0 and 3, as dim_facts(d).
[[nodiscard]] const DimFacts& dim_facts(Dim d, int zero_stage) noexcept;

}  // namespace shardscope
