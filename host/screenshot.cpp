#include "host/screenshot.hpp"

#include "host/file_io.hpp"
#include "host/gl.hpp"

#include <stb/stb_image_write.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <vector>

namespace shardscope::host {

namespace {
void append_bytes(void* context, void* data, int size) {
    auto* out = static_cast<std::string*>(context);
    out->append(static_cast<const char*>(data), static_cast<size_t>(size));
}
}  // namespace

std::string save_framebuffer_png(const std::string& path, int width, int height) {
    if (width <= 0 || height <= 0) return path + ": the window has no pixels to capture";
    std::vector<unsigned char> pixels(static_cast<size_t>(width) * height * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    // GL's rows run bottom-up; PNG's top-down.
    const size_t stride = static_cast<size_t>(width) * 4;
    std::vector<unsigned char> flipped(pixels.size());
    for (int y = 0; y < height; ++y)
        std::copy_n(&pixels[static_cast<size_t>(height - 1 - y) * stride], stride, &flipped[y * stride]);
    // The window is opaque: force alpha so viewers don't show a translucent picture.
    for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;
    std::string png;
    if (!stbi_write_png_to_func(&append_bytes, &png, width, height, 4, flipped.data(), static_cast<int>(stride)))
        return path + ": PNG encoding failed";
    return write_file_atomically(path, png);
}

std::string timestamped_screenshot_path(const std::string& folder) {
    const std::time_t now = std::time(nullptr);
    char name[64];
    std::strftime(name, sizeof name, "shardscope-%Y%m%d-%H%M%S.png", std::localtime(&now));
    return (std::filesystem::path(folder) / name).string();
}

}  // namespace shardscope::host
