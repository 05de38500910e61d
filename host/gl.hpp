#pragma once
// The project's one OpenGL header. The desktop loads GL 3.3 core through glad (generated into the
// build tree at configure time, third_party/CMakeLists.txt); the browser page has WebGL2, which is
// OpenGL ES 3.0 as Emscripten's headers declare it.

#if defined(__EMSCRIPTEN__)
#include <GLES3/gl3.h>
#else
#include <glad/gl.h>
#endif
