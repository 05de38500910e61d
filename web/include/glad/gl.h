#pragma once
// The browser build's stand-in for glad's loader header: WebGL2 is OpenGL ES 3.0, whose functions
// Emscripten links directly, so the desktop's GL code (app/screenshot.cpp) compiles unchanged.
#include <GLES3/gl3.h>
