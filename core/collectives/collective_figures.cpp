#include "core/collectives/collective_figures.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace shardscope {

namespace {

[[nodiscard]] std::string lower_trimmed(std::string_view text) {
    std::string s;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c))) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Multiplier for a unit suffix (already lower-cased, spaces removed); 0 when unknown.
[[nodiscard]] double unit_multiplier(const std::string& unit) {
    if (unit.empty() || unit == "b") return 1;
    static const char* const prefixes = "kmgt";
    for (int i = 0; i < 4; ++i) {
        const std::string p(1, prefixes[i]);
        const double binary = std::pow(1024.0, i + 1);
        const double decimal = std::pow(1000.0, i + 1);
        if (unit == p || unit == p + "i" || unit == p + "ib") return binary;
        if (unit == p + "b") return decimal;
    }
    return 0;
}

}  // namespace

std::optional<double> parse_byte_size(std::string_view text) {
    const std::string s = lower_trimmed(text);
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    const double number = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || !std::isfinite(number) || number < 0) return std::nullopt;
    const double multiplier = unit_multiplier(std::string(end));
    if (multiplier == 0) return std::nullopt;
    return number * multiplier;
}

double latency_bandwidth_crossover(const SteppedCollective& schedule) noexcept {
    const double latency = schedule.total_time_for(0);
    if (!(latency > 0)) return 0;
    // Any bandwidth cost at all? One exabyte must take longer than the latency alone.
    constexpr double kHuge = 1e18;
    if (!(schedule.total_time_for(kHuge) > 2 * latency)) return 0;
    // Time grows monotonically with S: bisect on log2(S) between 1 byte and kHuge.
    double lo = 0, hi = std::log2(kHuge);
    if (schedule.total_time_for(1) >= 2 * latency) return 1;
    for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        (schedule.total_time_for(std::exp2(mid)) < 2 * latency ? lo : hi) = mid;
    }
    return std::exp2(0.5 * (lo + hi));
}

std::optional<double> closed_form_bytes_per_rank(const StepConfig& config) noexcept {
    const double s = config.message_bytes;
    switch (config.algorithm) {
        case StepAlgorithm::ring:
        case StepAlgorithm::pairwise: return bytes_sent_per_rank(config.collective, s, config.ranks);
        case StepAlgorithm::hierarchical: {
            if (config.gpus_per_node < 1 || config.ranks % config.gpus_per_node != 0) return std::nullopt;
            const double g = config.gpus_per_node;
            const double m = static_cast<double>(config.ranks / config.gpus_per_node);
            return 2.0 * (g - 1) / g * s + 2.0 * (m - 1) / m * s / g;
        }
        case StepAlgorithm::tree:
        case StepAlgorithm::double_binary_tree: return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace shardscope
