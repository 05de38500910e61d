#pragma once
// Human-readable figures, shared by the panels and the text report so both say the same thing.
// Bytes use binary units (GiB) because that is what GPU memory tools print; rates use decimal SI.

#include <string>
#include <string_view>

namespace shardscope {

[[nodiscard]] std::string format_bytes(double bytes);            // "1.50 GiB", "512 MiB", "12 B"
// Memory a GPU holds, always in GiB so a column or a sentence never mixes units: "12.3 GiB",
// "0.517 GiB", "1,230 GiB". Message and traffic sizes use format_bytes.
[[nodiscard]] std::string format_memory(double bytes);
[[nodiscard]] std::string format_seconds(double seconds);        // "1.25 s", "3.40 ms", "12.0 us", "25.0 min", "41.4 days"
[[nodiscard]] std::string format_flops_rate(double flop_per_s);  // "312 TFLOP/s"
[[nodiscard]] std::string format_bandwidth(double bytes_per_s);  // "450 GB/s"
[[nodiscard]] std::string format_count(double n);                // "405B", "16.4k", "8"
// A whole count with its noun, singular or plural: "1 group", "32 groups", "1 layout".
[[nodiscard]] std::string count_of(long long n, const std::string& singular, const std::string& plural = "");
[[nodiscard]] std::string format_percent(double fraction);       // "41.2%"
// A share that may be unknown: "n/a" then.
[[nodiscard]] std::string format_percent_or_na(double fraction, bool known);

// A number with exactly `digits` decimals, never an exponent: format_fixed(3.14159, 2) is "3.14".
[[nodiscard]] std::string format_fixed(double v, int digits);
// A whole number with thousands separators: 16384 is "16,384".
[[nodiscard]] std::string format_grouped(long long n);

// Text from a person (a name, a note, a path) made safe to print on one line of any output: bytes that
// are not UTF-8 become U+FFFD, and every control character and line or paragraph separator (C0, DEL,
// C1, U+2028, U+2029) becomes a visible escape ("\n", "\x1b", "\u2028"). What comes back can end no
// line, start none, and send a terminal no command. Backslashes are doubled, so the escapes stay
// readable as such.
[[nodiscard]] std::string printable_line(std::string_view text);

}  // namespace shardscope
