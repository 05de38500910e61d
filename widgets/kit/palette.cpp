#include "widgets/kit/palette.hpp"

#include <algorithm>

namespace shardscope::ui::palette {

namespace {

constexpr ImU32 opaque(int r, int g, int b) { return IM_COL32(r, g, b, 255); }

}  // namespace

ImU32 with_alpha(ImU32 colour, float alpha) noexcept {
    const auto a = static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f + 0.5f);
    return (colour & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}

// Bright hues, at least ~35 CIELAB units apart from each other (ep and dp_replicate are the closest
// pair: yellow and orange).
ImU32 dim_colour(Dim d, float alpha) noexcept {
    ImU32 c = opaque(160, 160, 170);
    switch (d) {
        case Dim::tp: c = opaque(64, 180, 230); break;            // sky blue
        case Dim::cp: c = opaque(190, 130, 220); break;           // lavender
        case Dim::ep: c = opaque(240, 205, 70); break;            // yellow
        case Dim::dp_shard: c = opaque(110, 200, 90); break;      // green
        case Dim::dp_replicate: c = opaque(245, 145, 50); break;  // orange
        case Dim::pp: c = opaque(255, 140, 170); break;           // pink
    }
    return with_alpha(c, alpha);
}

std::optional<ImU32> dim_colour(std::string_view name, float alpha) noexcept {
    if (const auto d = dim_from_string(name)) return dim_colour(*d, alpha);
    return std::nullopt;
}

// Darker or greyer than the dims, none of them red.
ImU32 memory_part_colour(MemoryPart p, float alpha) noexcept {
    ImU32 c = opaque(95, 98, 110);
    switch (p) {
        case MemoryPart::params: c = opaque(70, 110, 190); break;       // deep blue
        case MemoryPart::grads: c = opaque(50, 150, 135); break;        // teal
        case MemoryPart::optimizer: c = opaque(160, 105, 70); break;    // brown
        case MemoryPart::activations: c = opaque(175, 95, 140); break;  // plum
        case MemoryPart::other: c = opaque(190, 180, 165); break;       // sand grey
        case MemoryPart::reserved: c = opaque(95, 98, 110); break;      // slate grey
    }
    return with_alpha(c, alpha);
}

const char* memory_part_name(MemoryPart p) noexcept {
    switch (p) {
        case MemoryPart::params: return "weights";
        case MemoryPart::grads: return "gradients";
        case MemoryPart::optimizer: return "optimizer";
        case MemoryPart::activations: return "activations";
        case MemoryPart::other: return "other";
        case MemoryPart::reserved: return "reserved";
    }
    return "";
}

// Neutral, light to dark: useful work, communication no dim owns, idle.
ImU32 compute_colour() noexcept { return opaque(200, 206, 218); }
ImU32 other_comm_colour() noexcept { return opaque(162, 162, 174); }
ImU32 bubble_colour() noexcept { return opaque(120, 120, 128); }

ImU32 link_colour(LinkClass link, float alpha) noexcept {
    return with_alpha(link == LinkClass::intra ? opaque(70, 176, 140) : opaque(236, 112, 64), alpha);
}

}  // namespace shardscope::ui::palette
