#pragma once
// The font the desktop uses for "sans-serif", found through fontconfig as every other desktop program
// finds it, instead of at hard-coded paths.

#include <string>

namespace shardscope::app {

// The TrueType or OpenType file fontconfig matches for sans-serif (DejaVu Sans on a default Debian),
// or "" with `why` saying what was missing.
std::string sans_serif_font_file(std::string& why);

}  // namespace shardscope::app
