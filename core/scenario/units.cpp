#include "core/scenario/units.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

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

std::string format_fixed(double v, int digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, v);
    return text;
}

std::string format_grouped(long long n) {
    std::string digits = std::to_string(n < 0 ? -n : n);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
    return (n < 0 ? "-" : "") + digits;
}

std::string format_memory(double bytes) {
    const double gib = bytes / (1024.0 * 1024 * 1024);
    const double size = std::fabs(gib);
    if (size == 0) return "0 GiB";
    if (size < 0.001) return std::string(gib < 0 ? "-" : "") + "< 0.001 GiB";
    char text[48];
    if (size >= 1000) {
        // Whole GiB with thousands separators: "1,230 GiB".
        return std::string(gib < 0 ? "-" : "") + format_grouped(std::llround(size)) + " GiB";
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

namespace {

// The code point of the UTF-8 sequence at text[i] and its length; length 0 when the bytes there are
// not valid UTF-8 (overlong forms, surrogates and code points past U+10FFFF included).
std::pair<char32_t, std::size_t> utf8_at(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char b0 = byte(i);
    if (b0 < 0x80) return {b0, 1};
    std::size_t len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
    if (len == 0 || b0 > 0xF4 || i + len > text.size()) return {0, 0};
    char32_t cp = b0 & (0x7F >> len);
    for (std::size_t k = 1; k < len; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return {0, 0};
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
    return {cp, len};
}

}  // namespace

std::string printable_line(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    char buf[16];
    for (std::size_t i = 0; i < text.size();) {
        const auto [cp, len] = utf8_at(text, i);
        if (len == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD for one byte that is not UTF-8
            ++i;
            continue;
        }
        if (cp == '\\') {
            out += "\\\\";
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (cp == '\t') {
            out += "\\t";
        } else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) {
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
            out += buf;
        } else if (cp == 0x2028 || cp == 0x2029) {
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
            out += buf;
        } else {
            out.append(text.substr(i, len));
        }
        i += len;
    }
    return out;
}

}  // namespace shardscope
