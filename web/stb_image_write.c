/* Debian's libstb is a native library: the page compiles the PNG writer app/screenshot.cpp uses from
   the same header instead. */
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
