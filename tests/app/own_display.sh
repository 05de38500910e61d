#!/usr/bin/env bash
# Runs a command on an X server of its own, so window suites can run side by side: each drives the
# pointer and keyboard of its own display. Xvfb picks a free display number and writes it to us
# (-displayfd), which two suites starting at once cannot both get.
# usage: own_display.sh COMMAND [ARGS...]
set -euo pipefail
exec {display_fd}< <(Xvfb -displayfd 1 -screen 0 2560x1600x24 -nolisten tcp -noreset 2>/dev/null & echo "pid $!")
xvfb_pid=
display=
for _ in 1 2; do  # the two lines, in either order
  read -r -t 30 line <&"$display_fd" || break
  case $line in
    pid\ *) xvfb_pid=${line#pid } ;;
    *) display=$line ;;
  esac
done
[ -n "$display" ] || { echo "own_display.sh: Xvfb did not start" >&2; exit 1; }
trap 'kill "$xvfb_pid" 2>/dev/null || true' EXIT
DISPLAY=":$display" "$@"
