# The browser build (scripts/web): core/ and widgets/ compiled as the desktop compiles them, Dear ImGui
# 1.86 from Debian's source package (libimgui-dev ships only a native library), web/main.cpp as the
# entry point over the host library that the desktop app uses too.
set(IMGUI_SOURCE_DIR "" CACHE PATH "Dear ImGui 1.86 sources: Debian's imgui source package, unpacked (scripts/web)")
if(NOT EXISTS "${IMGUI_SOURCE_DIR}/imgui.cpp" OR NOT EXISTS "${IMGUI_SOURCE_DIR}/backends/imgui_impl_glfw.cpp")
  message(FATAL_ERROR "IMGUI_SOURCE_DIR must name Dear ImGui 1.86's sources (scripts/web fetches them)")
endif()

# Debian's header-only libraries, seen through a folder of links: the toolchain keeps its own C and C++
# headers, so it must not see the rest of /usr/include.
set(WEB_HEADERS "${CMAKE_BINARY_DIR}/debian-headers")
file(MAKE_DIRECTORY "${WEB_HEADERS}")
foreach(_lib nlohmann stb)
  if(NOT EXISTS "/usr/include/${_lib}")
    message(FATAL_ERROR "/usr/include/${_lib} is missing (Debian: nlohmann-json3-dev, libstb-dev)")
  endif()
  file(CREATE_LINK "/usr/include/${_lib}" "${WEB_HEADERS}/${_lib}" SYMBOLIC)
endforeach()
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${WEB_HEADERS}")
# No threads in the page: it must run from any static host, and SharedArrayBuffer needs headers a plain
# host does not send. The planner searches in slices instead (core/planner/planner.hpp).
add_library(Threads::Threads INTERFACE IMPORTED)

add_library(imgui_core STATIC "${IMGUI_SOURCE_DIR}/imgui.cpp" "${IMGUI_SOURCE_DIR}/imgui_draw.cpp"
            "${IMGUI_SOURCE_DIR}/imgui_tables.cpp" "${IMGUI_SOURCE_DIR}/imgui_widgets.cpp")
target_include_directories(imgui_core PUBLIC "${IMGUI_SOURCE_DIR}" "${WEB_HEADERS}" "${WEB_HEADERS}/stb")
target_compile_options(imgui_core PRIVATE -w)
add_library(imgui_backends STATIC "${IMGUI_SOURCE_DIR}/backends/imgui_impl_glfw.cpp"
            "${IMGUI_SOURCE_DIR}/backends/imgui_impl_opengl3.cpp")
target_include_directories(imgui_backends PUBLIC "${IMGUI_SOURCE_DIR}/backends")
target_compile_definitions(imgui_backends PUBLIC IMGUI_IMPL_OPENGL_ES3)
target_compile_options(imgui_backends PRIVATE -w)
target_link_libraries(imgui_backends PUBLIC imgui_core)

set(SHARDSCOPE_SOURCE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
add_subdirectory(core)
add_subdirectory(widgets)
add_subdirectory(host)
add_subdirectory(web)
