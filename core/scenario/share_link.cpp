#include "core/scenario/share_link.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cctype>
#include <charconv>

namespace shardscope {
namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int sextet_of(char c) noexcept {
    const std::size_t at = kAlphabet.find(c);
    return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

int hex_digit(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// A query value as written: %XX escapes and '+' for a space (HTML forms), nothing else changed.
std::optional<std::string> percent_decoded(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out.push_back(' ');
        } else if (s[i] == '%') {
            const int hi = i + 2 < s.size() ? hex_digit(s[i + 1]) : -1;
            const int lo = i + 2 < s.size() ? hex_digit(s[i + 2]) : -1;
            if (hi < 0 || lo < 0) return std::nullopt;
            out.push_back(static_cast<char>(hi * 16 + lo));
            i += 2;
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

// Lesson ids are lowercase words and dashes; anything else is escaped.
std::string percent_encoded(std::string_view s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
            out.push_back(c);
        } else {
            out.push_back('%');
            out.push_back(kHex[u >> 4]);
            out.push_back(kHex[u & 15]);
        }
    }
    return out;
}

bool read_step(std::string_view text, int& step, std::string& error) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 1) {
        error = "link: step: \"" + std::string(text) + "\" is not a whole number from 1";
        return false;
    }
    step = value;
    return true;
}

bool read_query(std::string_view query, ShareLink& link, std::string& error) {
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        const std::size_t eq = pair.find('=');
        const std::string_view key = pair.substr(0, eq);
        const auto value = percent_decoded(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
        if (!value) {
            error = "link: " + std::string(key) + ": a broken %-escape";
            return false;
        }
        // Other parameters (a host's or a tracker's) are not ours to refuse.
        if (key == "lesson") link.lesson = *value;
        else if (key == "step" && !read_step(*value, link.step, error)) return false;
    }
    if (link.step > 0 && link.lesson.empty()) {
        error = "link: step: given without a lesson";
        return false;
    }
    return true;
}

bool read_fragment(std::string_view fragment, ShareLink& link, std::string& error) {
    if (fragment.empty()) return true;
    if (fragment.substr(0, 2) != "s=") {
        error = "link: the fragment must be s=VERSION.SCENARIO, not \"" + std::string(fragment.substr(0, 20)) + "\"";
        return false;
    }
    fragment.remove_prefix(2);
    const std::size_t dot = fragment.find('.');
    const std::string_view version = fragment.substr(0, dot);
    if (dot == std::string_view::npos || version != kShareLinkVersion) {
        error = "link: scenario encoding \"" + std::string(version) + "\" is not one this version reads (" +
                kShareLinkVersion + ")";
        return false;
    }
    const auto json_text = base64url_decode(fragment.substr(dot + 1));
    if (!json_text) {
        error = "link: scenario: not base64url (A-Z a-z 0-9 - _)";
        return false;
    }
    ScenarioLoad loaded = parse_scenario(*json_text);
    if (!loaded.ok()) {
        error = "link: scenario: " + loaded.error;
        return false;
    }
    link.scenario = std::move(loaded.scenario);
    return true;
}

}  // namespace

std::string base64url_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
        for (int shift : {18, 12, 6, 0}) out.push_back(kAlphabet[(v >> shift) & 63]);
    }
    const std::size_t rest = bytes.size() - i;
    if (rest == 1) {
        const uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
        for (int shift : {18, 12}) out.push_back(kAlphabet[(v >> shift) & 63]);
    } else if (rest == 2) {
        const uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8;
        for (int shift : {18, 12, 6}) out.push_back(kAlphabet[(v >> shift) & 63]);
    }
    return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
    while (!text.empty() && text.back() == '=') text.remove_suffix(1);  // padding, if a tool added it
    if (text.size() % 4 == 1) return std::nullopt;
    std::string out;
    out.reserve(text.size() * 3 / 4);
    uint32_t bits = 0;
    int count = 0;
    for (char c : text) {
        const int v = sextet_of(c);
        if (v < 0) return std::nullopt;
        bits = bits << 6 | static_cast<uint32_t>(v);
        if (++count == 4) {
            out.push_back(static_cast<char>(bits >> 16));
            out.push_back(static_cast<char>(bits >> 8 & 255));
            out.push_back(static_cast<char>(bits & 255));
            bits = 0;
            count = 0;
        }
    }
    if (count == 2) out.push_back(static_cast<char>(bits >> 4));
    if (count == 3) {
        out.push_back(static_cast<char>(bits >> 10));
        out.push_back(static_cast<char>(bits >> 2 & 255));
    }
    return out;
}

std::string share_link(std::string_view base, const ShareLink& link) {
    std::string out(base);
    if (!link.lesson.empty()) {
        out += "?lesson=" + percent_encoded(link.lesson);
        if (link.step > 0) out += "&step=" + std::to_string(link.step);
    }
    if (link.scenario) {
        const std::string compact = nlohmann::json::parse(scenario_to_json(*link.scenario)).dump();
        out += std::string("#s=") + kShareLinkVersion + "." + base64url_encode(compact);
    }
    return out;
}

std::optional<ShareLink> parse_share_link(std::string_view url, std::string& error) {
    ShareLink link;
    const std::size_t hash = url.find('#');
    const std::string_view fragment = hash == std::string_view::npos ? std::string_view() : url.substr(hash + 1);
    const std::string_view before = url.substr(0, hash);
    const std::size_t question = before.find('?');
    const std::string_view query = question == std::string_view::npos ? std::string_view() : before.substr(question + 1);
    if (!read_query(query, link, error) || !read_fragment(fragment, link, error)) return std::nullopt;
    return link;
}

bool looks_like_share_link(std::string_view text) noexcept {
    if (!text.empty() && (text.front() == '?' || text.front() == '#')) return true;
    for (std::string_view scheme : {"http://", "https://", "file://"})
        if (text.substr(0, scheme.size()) == scheme) return true;
    return false;
}

}  // namespace shardscope
