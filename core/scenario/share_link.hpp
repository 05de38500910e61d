#pragma once
// A link that says what is on screen, shared by the browser page (its address bar follows the app) and
// the desktop app (`shardscope --link URL`), so both open the same thing:
//   ANY-BASE?lesson=ID&step=K#s=1.PAYLOAD
// `lesson` and `step` (1-based) open a lesson; the fragment carries a whole scenario: "1" is the
// encoding's version, PAYLOAD the scenario's JSON without whitespace in base64url (RFC 4648 section 5,
// no padding). The scenario rides in the fragment because browsers never send a fragment to the host.

#include "core/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace shardscope {

inline constexpr const char* kShareLinkVersion = "1";

struct ShareLink {
    std::string lesson;  // "" when the link opens no lesson
    int step = 0;        // 1-based; 0 when the link gives none (the lesson's first)
    std::optional<Scenario> scenario;
};

// The link for `base` (a page address without query or fragment; "" for a bare "?...#..." suffix).
[[nodiscard]] std::string share_link(std::string_view base, const ShareLink& link);
// Reads a link; nullopt with `error` naming the part and the rule (an unknown parameter, a step that is
// no whole number from 1, an unknown encoding version, a scenario that does not decode or validate).
[[nodiscard]] std::optional<ShareLink> parse_share_link(std::string_view url, std::string& error);
// True when `text` reads as a link rather than a file name: it has a scheme (http:, https:, file:) or
// starts with "?" or "#".
[[nodiscard]] bool looks_like_share_link(std::string_view text) noexcept;

[[nodiscard]] std::string base64url_encode(std::string_view bytes);
// nullopt on a character outside the base64url alphabet or an impossible length.
[[nodiscard]] std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace shardscope
