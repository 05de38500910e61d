# Sourced by scripts/run and scripts/test: Debian packages and how to install the missing ones.

# Build and run the app.
APP_PACKAGES=(build-essential cmake pkg-config python3 libimgui-dev libglfw3-dev libgl-dev
              python3-glad nlohmann-json3-dev doctest-dev libstb-dev fonts-dejavu-core libcli11-dev
              libfontconfig-dev)
# Run the tests too: a real window under Xvfb (Mesa's llvmpipe gives real OpenGL) and clicks.
# Open MPI: the CPU measure backend (mpi/), whose tests run 4 ranks under mpirun; optional for the app.
# python3-jsonschema: checks the shipped scenarios against docs/shardscope.scenario.schema.json.
# desktop-file-utils, shared-mime-info, groff-base: check the installed launcher, MIME type and man page.
# appstream (appstreamcli): validates the installed AppStream metadata.
# x11-utils (xprop): sets the display's Xft.dpi for the HiDPI check.
# zsh: parses the zsh completion script (bash, which runs the other, is Debian's shell).
TEST_PACKAGES=(xvfb xauth xdotool libgl1-mesa-dri strace libopenmpi-dev openmpi-bin python3-jsonschema
               desktop-file-utils shared-mime-info groff-base appstream x11-utils zsh)
# The browser build (scripts/web): Debian's Emscripten, the header-only libraries and font it packs
# in, and Python's web server to try it locally. Its browser test: Debian's Chromium, driven by
# playwright-core from the npm registry (tests/web/), installed with whatever npm the machine has
# (Debian's npm when it has none: see ensure_npm).
WEB_PACKAGES=(emscripten nlohmann-json3-dev libstb-dev fonts-dejavu-core python3 xz-utils)
WEB_TEST_PACKAGES=(chromium)

missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

# Installs what is missing: apt-get as root, sudo otherwise; when it can do neither it prints the
# exact command and fails.
ensure_packages() {
  local missing
  missing=$(missing_packages "$@" | tr '\n' ' ')
  [ -z "${missing// /}" ] && return 0
  echo "Installing missing packages: $missing"
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get)
  if [ "$(id -u)" = 0 ]; then
    "${apt[@]}" update -qq && "${apt[@]}" install -y -qq --no-install-recommends $missing
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo "${apt[@]}" update -qq && sudo "${apt[@]}" install -y -qq --no-install-recommends $missing
  else
    echo "Cannot install packages (not root, no sudo). Run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y $missing" >&2
    return 1
  fi
}

build_jobs() { nproc 2>/dev/null || echo 2; }

# npm, from Debian only where the machine has none: a Node.js from elsewhere brings its own, and
# Debian's npm package would want Debian's Node.js in its place.
ensure_npm() {
  command -v npm >/dev/null || ensure_packages nodejs npm
}
