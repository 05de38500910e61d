#include "core/collectives/collectives.hpp"

namespace shardscope {

std::string_view to_string(LinkClass l) noexcept { return l == LinkClass::intra ? "intra" : "inter"; }

std::string_view to_string(Collective c) noexcept {
    switch (c) {
        case Collective::all_reduce: return "all-reduce";
        case Collective::all_gather: return "all-gather";
        case Collective::reduce_scatter: return "reduce-scatter";
        case Collective::all_to_all: return "all-to-all";
        case Collective::broadcast: return "broadcast";
        case Collective::reduce: return "reduce";
        case Collective::p2p: return "point-to-point";
    }
    return "?";
}

double bytes_sent_per_rank(Collective c, double bytes, int64_t ranks) noexcept {
    if (c == Collective::p2p) return bytes;
    if (ranks <= 1) return 0;
    const double n = static_cast<double>(ranks);
    switch (c) {
        case Collective::all_reduce: return 2.0 * (n - 1) / n * bytes;
        case Collective::all_gather:
        case Collective::reduce_scatter:
        case Collective::all_to_all: return (n - 1) / n * bytes;
        case Collective::broadcast:
        case Collective::reduce: return bytes;
        case Collective::p2p: return bytes;
    }
    return 0;
}

double collective_time(Collective c, double bytes, int64_t ranks, const Link& link) noexcept {
    if (c != Collective::p2p && ranks <= 1) return 0;
    if (link.bandwidth_bytes_per_s <= 0) return 0;
    const double steps = c == Collective::p2p          ? 1.0
                         : c == Collective::all_reduce ? 2.0 * static_cast<double>(ranks - 1)
                                                       : static_cast<double>(ranks - 1);
    return steps * link.latency_s + bytes_sent_per_rank(c, bytes, ranks) / link.bandwidth_bytes_per_s;
}

double busbw_factor(Collective c, int64_t ranks) noexcept {
    if (ranks <= 1) return c == Collective::all_reduce || c == Collective::all_gather ||
                                   c == Collective::reduce_scatter || c == Collective::all_to_all
                               ? 0.0
                               : 1.0;
    const double n = static_cast<double>(ranks);
    switch (c) {
        case Collective::all_reduce: return 2.0 * (n - 1) / n;
        case Collective::all_gather:
        case Collective::reduce_scatter:
        case Collective::all_to_all: return (n - 1) / n;
        default: return 1.0;
    }
}

}  // namespace shardscope
