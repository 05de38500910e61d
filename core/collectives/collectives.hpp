#pragma once
// Alpha-beta cost of the collectives every strategy pays (docs/design.md, "The report").
// S is the message size in bytes (the full buffer: for all-gather the gathered result, for
// reduce-scatter the input), N the ranks in the group, alpha the link latency, B its bandwidth.

#include "core/scenario/scenario.hpp"

#include <cstdint>
#include <string_view>

namespace shardscope {

// Where a group or transfer runs: inside one node (fast links) or across nodes.
enum class LinkClass { intra, inter };
[[nodiscard]] std::string_view to_string(LinkClass l) noexcept;

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, p2p };

[[nodiscard]] std::string_view to_string(Collective c) noexcept;

// One link's figures in SI units.
struct Link {
    double bandwidth_bytes_per_s = 0;
    double latency_s = 0;

    [[nodiscard]] static Link from(const LinkSpec& spec) noexcept {
        return Link{spec.bytes_per_s(), spec.latency_us * 1e-6};
    }
};

// Ring algorithms (docs/design.md): all-reduce 2(N-1)alpha + 2(N-1)/N S/B; all-gather, reduce-scatter and
// all-to-all (N-1)alpha + (N-1)/N S/B; broadcast and reduce as a pipelined ring, (N-1)alpha + S/B;
// point-to-point alpha + S/B. A group of one rank costs nothing.
[[nodiscard]] double collective_time(Collective c, double bytes, int64_t ranks, const Link& link) noexcept;

// Bytes each rank sends for the ring algorithm above (all-reduce: 2(N-1)/N * S).
[[nodiscard]] double bytes_sent_per_rank(Collective c, double bytes, int64_t ranks) noexcept;

// nccl-tests' bus-bandwidth factor: busbw = algbw * factor. all-reduce 2(N-1)/N; all-gather,
// reduce-scatter and all-to-all (N-1)/N; broadcast, reduce and point-to-point 1.
[[nodiscard]] double busbw_factor(Collective c, int64_t ranks) noexcept;

// nccl-tests' algorithm bandwidth: S / t, in bytes per second.
[[nodiscard]] inline double algbw(double bytes, double seconds) noexcept {
    return seconds > 0 ? bytes / seconds : 0;
}
[[nodiscard]] inline double busbw(Collective c, double bytes, double seconds, int64_t ranks) noexcept {
    return algbw(bytes, seconds) * busbw_factor(c, ranks);
}

}  // namespace shardscope
