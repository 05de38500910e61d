#include "core/scenario/units.hpp"

#include <cmath>
#include <cstdio>

namespace shardscope {

namespace {

// Three significant figures reads well in a table cell: 1.23, 12.3, 123.
std::string three_figures(double v, const char* unit) {
    char buf[64];
    const double a = std::fabs(v);
    const char* fmt = a >= 100 || a == 0 ? "%.0f%s%s" : a >= 10 ? "%.1f%s%s" : "%.2f%s%s";
    std::snprintf(buf, sizeof buf, fmt, v, *unit ? " " : "", unit);
    return buf;
}

struct Step {
    double scale;
    const char* unit;
};

template <size_t N>
std::string scaled(double v, const Step (&steps)[N]) {
    if (!std::isfinite(v)) return "n/a";
    for (const Step& s : steps)
        if (std::fabs(v) >= s.scale) return three_figures(v / s.scale, s.unit);
    return three_figures(v / steps[N - 1].scale, steps[N - 1].unit);
}

}  // namespace

std::string format_bytes(double bytes) {
    static const Step steps[] = {{1024.0 * 1024 * 1024 * 1024, "TiB"}, {1024.0 * 1024 * 1024, "GiB"},
                                 {1024.0 * 1024, "MiB"}, {1024.0, "KiB"}, {1.0, "B"}};
    return scaled(bytes, steps);
}

std::string format_memory(double bytes) {
    const double gib = bytes / (1024.0 * 1024 * 1024);
    const double size = std::fabs(gib);
    if (size == 0) return "0 GiB";
    if (size < 0.001) return std::string(gib < 0 ? "-" : "") + "< 0.001 GiB";
    char text[48];
    if (size >= 1000) {
        // Whole GiB with thousands separators: "1,230 GiB".
        std::string digits = std::to_string(static_cast<long long>(std::llround(size)));
        for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
        return std::string(gib < 0 ? "-" : "") + digits + " GiB";
    }
    // Three significant figures, never an exponent.
    const int decimals = size >= 100 ? 0 : size >= 10 ? 1 : size >= 1 ? 2 : 3;
    std::snprintf(text, sizeof text, "%.*f GiB", decimals, gib);
    return text;
}

std::string format_seconds(double seconds) {
    static const Step steps[] = {{1.0, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
    // Nothing here takes under a nanosecond: a smaller figure is the rounding left by a subtraction
    // (a step less its parts), and "0.00 ns" would read as a measurement.
    if (std::fabs(seconds) < 0.5e-9) return "0 s";
    // A step of a model far too big for its GPUs can take weeks: past three figures of seconds, the
    // unit a person reads a wait in.
    const double size = std::fabs(seconds);
    if (size >= 1000 && size < 6000) return three_figures(seconds / 60, "min");
    if (size >= 6000 && size < 48 * 3600.0) return three_figures(seconds / 3600, "h");
    if (size >= 48 * 3600.0 && std::isfinite(size)) return three_figures(seconds / 86400, "days");
    return scaled(seconds, steps);
}

std::string format_flops_rate(double flop_per_s) {
    static const Step steps[] = {{1e18, "EFLOP/s"}, {1e15, "PFLOP/s"}, {1e12, "TFLOP/s"}, {1e9, "GFLOP/s"},
                                 {1.0, "FLOP/s"}};
    return scaled(flop_per_s, steps);
}

std::string format_bandwidth(double bytes_per_s) {
    static const Step steps[] = {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}, {1.0, "B/s"}};
    return scaled(bytes_per_s, steps);
}

std::string format_count(double n) {
    static const Step steps[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}, {1.0, ""}};
    if (std::fabs(n) < 1000 && n == std::floor(n)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", n);
        return buf;
    }
    std::string s = scaled(n, steps);
    // "405 B" reads as bytes: counts glue the suffix on.
    if (const auto space = s.find(' '); space != std::string::npos) s.erase(space, 1);
    return s;
}

std::string format_percent(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
    return buf;
}

std::string count_of(long long n, const std::string& singular, const std::string& plural) {
    return std::to_string(n) + " " + (n == 1 ? singular : plural.empty() ? singular + "s" : plural);
}

std::string format_percent_or_na(double fraction, bool known) { return known ? format_percent(fraction) : "n/a"; }

}  // namespace shardscope
