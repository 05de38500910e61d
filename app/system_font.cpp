#include "app/system_font.hpp"

#include <fontconfig/fontconfig.h>

#include <filesystem>
#include <memory>

namespace shardscope::app {

std::string sans_serif_font_file(std::string& why) {
    if (!FcInit()) {
        why = "fontconfig could not be initialised";
        return {};
    }
    const std::unique_ptr<FcPattern, decltype(&FcPatternDestroy)> pattern(
        FcNameParse(reinterpret_cast<const FcChar8*>("sans-serif")), &FcPatternDestroy);
    FcConfigSubstitute(nullptr, pattern.get(), FcMatchPattern);
    FcDefaultSubstitute(pattern.get());
    FcResult result = FcResultNoMatch;
    const std::unique_ptr<FcPattern, decltype(&FcPatternDestroy)> match(FcFontMatch(nullptr, pattern.get(), &result),
                                                                        &FcPatternDestroy);
    FcChar8* file = nullptr;
    if (!match || FcPatternGetString(match.get(), FC_FILE, 0, &file) != FcResultMatch || !file) {
        why = "fontconfig matches no font for sans-serif";
        return {};
    }
    const std::string path = reinterpret_cast<const char*>(file);
    // ImGui rasterises TrueType and OpenType outlines only (stb_truetype), not bitmap or Type 1 fonts.
    const std::string ext = std::filesystem::path(path).extension().string();
    if (ext != ".ttf" && ext != ".otf" && ext != ".TTF" && ext != ".OTF") {
        why = "fontconfig's sans-serif is " + path + ", which is not a TrueType or OpenType file";
        return {};
    }
    return path;
}

}  // namespace shardscope::app
