#pragma once
// Small figures the collective animator shows beside core/collectives/collective_steps.hpp's schedule, kept in
// core so the panel only lays them out: reading a message size typed by a person ("1GiB"), and the
// message size at which a collective stops being latency-bound.

#include "core/collectives/collective_steps.hpp"

#include <optional>
#include <string_view>

namespace shardscope {

// "1GiB", "64 KiB", "512", "4 MB", "1.5G": a number with an optional unit. Binary units (K, Ki, KiB,
// M, Mi, MiB, G, Gi, GiB, T, Ti, TiB; case-insensitive) count powers of 1024, because message sizes
// in nccl-tests and in this app are powers of two; SI units with a B (kB, MB, GB, TB) count powers
// of 1000. Returns nullopt for anything else, or for a negative or non-finite size.
[[nodiscard]] std::optional<double> parse_byte_size(std::string_view text);

// The message size S at which the schedule's time is twice its pure-latency time, i.e. where the
// bandwidth part (bytes / B) has grown as large as the latency part (steps * alpha). Below it the
// collective is latency-bound, above it bandwidth-bound. Found by bisection on the schedule's own
// total_time_for(S), so it also holds for mixed intra/inter steps where time is only piecewise
// linear in S. Returns 0 when the schedule has no latency (no steps) or no bandwidth cost.
[[nodiscard]] double latency_bandwidth_crossover(const SteppedCollective& schedule) noexcept;

// Bytes each GPU sends over the whole collective by the closed form of its algorithm, for the
// algorithms that have one the schedule follows exactly: the ring family and pairwise all-to-all
// (core/collectives/collectives.hpp's bytes_sent_per_rank), and the two-level hierarchical all-reduce over m
// nodes of g GPUs: an intra-node reduce-scatter and all-gather, (g-1)/g * S each, around an
// inter-node ring all-reduce of the S/g shard, 2(m-1)/m * S/g. nullopt for the trees, whose
// per-GPU traffic depends on where a rank sits in them.
[[nodiscard]] std::optional<double> closed_form_bytes_per_rank(const StepConfig& config) noexcept;

}  // namespace shardscope
