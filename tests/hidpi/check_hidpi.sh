#!/usr/bin/env bash
# HiDPI on X11, and the window's icon: at 96 and at 192 DPI (Xft.dpi, which GLFW reads as the
# content scale) the window opens inside the 1920x1200 screen, scaled once, its font is 15 px times
# the scale, and it carries the 256x256 icon. Each DPI gets an X server of its own, so the setting
# never reaches the other tests' display (-noreset: the property xprop sets would go when xprop
# disconnects otherwise).
# usage: check_hidpi.sh SHARDSCOPE_EXE
set -euo pipefail
exe=$(realpath "$1")
work=$(mktemp -d /tmp/shardscope-hidpi.XXXXXX)
trap 'rm -rf "$work"' EXIT

# One run at DPI $1: prints "WIDTH HEIGHT FONT_PX ICON" (the window icon's WxH as xprop reads it).
measure_at() {
  local dpi=$1 dir="$work/$1"
  mkdir -p "$dir/config/shardscope"
  echo answered > "$dir/config/shardscope/welcomed"
  xvfb-run -a -s "-screen 0 1920x1200x24 -dpi $dpi -noreset" bash -c '
    set -e
    xprop -root -f RESOURCE_MANAGER 8s -set RESOURCE_MANAGER "Xft.dpi:	'"$dpi"'"
    XDG_CONFIG_HOME="'"$dir"'/config" "'"$exe"'" --ui-probe "'"$dir"'/probe.json" > "'"$dir"'/out" 2>&1 &
    pid=$!
    wid=$(timeout 30 xdotool search --sync --onlyvisible --pid $pid | head -1)
    for i in $(seq 50); do [ -s "'"$dir"'/probe.json" ] && break; sleep 0.2; done
    sleep 1
    geometry=$(xdotool getwindowgeometry "$wid" | sed -n "s/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p")
    icon=$(xprop -id "$wid" -notype 32c _NET_WM_ICON | sed -n "s/^_NET_WM_ICON = \([0-9]*\), \([0-9]*\),.*/\1x\2/p")
    font=$(python3 -c "import json; print(round(json.load(open(\"'"$dir"'/probe.json\"))[\"font_px\"]))")
    kill $pid
    echo "$geometry $font ${icon:-none}"
  '
}

fail() { echo "FAIL: $*" >&2; exit 1; }
read -r w96 h96 f96 icon96 <<< "$(measure_at 96)"
read -r w192 h192 f192 icon192 <<< "$(measure_at 192)"
echo "96 dpi: ${w96}x${h96}, font ${f96} px; 192 dpi: ${w192}x${h192}, font ${f192} px; icon: $icon96"
[ "$icon96" = 256x256 ] || fail "the window has no 256x256 icon (xprop: $icon96)"
[ "$w96" = 1600 ] && [ "$h96" = 1000 ] || fail "at 96 dpi the window should be the default 1600x1000"
[ "$f96" = 15 ] || fail "at 96 dpi the font should be 15 px"
# 1600x1000 at scale 2 is 3200x2000: kept to 90% of the 1920x1200 screen, never doubled twice.
[ "$w192" -le 1920 ] && [ "$h192" -le 1200 ] || fail "at 192 dpi the window (${w192}x${h192}) is larger than the screen"
[ "$w192" = 1728 ] && [ "$h192" = 1080 ] || fail "at 192 dpi the window should be 90% of the screen, 1728x1080"
[ "$f192" = 30 ] || fail "at 192 dpi the font should be 30 px"
echo "hidpi check passed"
