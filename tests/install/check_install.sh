#!/usr/bin/env bash
# The installed app on its own: `cmake --install` into a temporary prefix, which is then moved (nothing
# compiled in may point at it), and the installed binary runs a lesson to a screenshot while strace
# watches that it opens nothing of the source or build tree. Then the desktop files (launcher, MIME type,
# AppStream metadata, icons, completions, man page) are checked, and a
# copy missing one data file, or its whole data folder, must say so once, plainly.
# usage: check_install.sh BUILD_DIR SOURCE_DIR  (under a display: scripts/test runs ctest in xvfb-run)
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d /tmp/shardscope-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/first" > "$work/install.log"
mv "$work/first" "$work/prefix"
prefix="$work/prefix"
exe="$prefix/bin/shardscope"
export XDG_CONFIG_HOME="$work/config"

for f in bin/shardscope share/shardscope/assets/glossary.json share/shardscope/assets/cheatsheet.json \
         share/shardscope/assets/clusters/dgx-h100.json share/shardscope/lessons/02_data_parallel.json \
         share/applications/shardscope.desktop share/mime/packages/shardscope.xml \
         share/icons/hicolor/scalable/apps/shardscope.svg share/metainfo/org.shardscope.shardscope.metainfo.xml \
         share/bash-completion/completions/shardscope share/zsh/vendor-completions/_shardscope \
         share/man/man1/shardscope.1; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done

# The icon at every size of the hicolor theme a launcher asks for, each PNG the size its folder says.
for size in 16 24 32 48 64 128 256 512; do
  icon="$prefix/share/icons/hicolor/${size}x${size}/apps/shardscope.png"
  [ -e "$icon" ] || fail "not installed: $icon"
  read -r width height < <(python3 -c 'import struct, sys; d = open(sys.argv[1], "rb").read(24); print(*struct.unpack(">II", d[16:24]))' "$icon")
  [ "$width $height" = "$size $size" ] || fail "$icon is ${width}x${height}"
done
[ -e "$prefix/share/shardscope/assets/icons/hicolor" ] && fail "the theme's icons were copied into the data folder too"

# A lesson, rendered by the installed binary with the trees it was built from out of reach.
strace -f -qq -e trace=open,openat,stat,newfstatat,access,readlink -o "$work/trace" \
  "$exe" --lesson data-parallel --step 2 --frames 2 --size 800x600 --screenshot "$work/lesson.png" \
  > "$work/out" 2> "$work/err" || fail "the installed app exited $?: $(cat "$work/err")"
[ -s "$work/lesson.png" ] || fail "no screenshot written"
grep -q '^wrote ' "$work/out" || fail "no 'wrote' line: $(cat "$work/out")"
grep -q 'shardscope:' "$work/err" && fail "the installed app complained: $(cat "$work/err")"
grep -F -e "$src/" -e "$build/" "$work/trace" | grep -v -F "$prefix" > "$work/leaks" || true
[ -s "$work/leaks" ] && fail "the installed app looked in the source or build tree: $(head -3 "$work/leaks")"
grep -q "$prefix/share/shardscope/lessons" "$work/trace" || fail "the lessons were not read from the prefix"

# The installed data drives the commands too.
"$exe" validate > "$work/validate" || fail "validate exited $?"
grep -q 'Llama' "$work/validate" || fail "validate printed no rows"

# Where the CUDA measure plugin was built, the installed binary loads the installed copy.
plugin=$(find "$prefix" -name libshardscope_measure_cuda.so | head -1)
if [ -n "$plugin" ]; then
  LD_DEBUG=files "$exe" measure -e 1M -n 1 -w 0 > /dev/null 2> "$work/measure.err" || true
  grep -qF "file=$plugin " "$work/measure.err" || fail "measure did not load $plugin"
fi

# The desktop launcher, the MIME type and the manual page are well formed.
if command -v desktop-file-validate > /dev/null; then
  desktop-file-validate "$prefix/share/applications/shardscope.desktop" || fail "desktop-file-validate"
fi
if command -v update-mime-database > /dev/null; then
  update-mime-database "$prefix/share/mime" 2> "$work/mime.err" || fail "update-mime-database: $(cat "$work/mime.err")"
  grep -q 'application/x-shardscope-scenario' "$prefix/share/mime/types" || fail "MIME type not registered"
fi
if command -v appstreamcli > /dev/null; then
  appstreamcli validate --no-net "$prefix/share/metainfo/org.shardscope.shardscope.metainfo.xml" > "$work/appstream.out" 2>&1 ||
    fail "appstreamcli validate: $(cat "$work/appstream.out")"
fi
# The installed completion script completes from the installed binary's commands.
bash -c 'source "$1"; COMP_WORDS=(shardscope expo); COMP_CWORD=1; _shardscope; [ "${COMPREPLY[*]}" = export ]' _ \
  "$prefix/share/bash-completion/completions/shardscope" || fail "the installed bash completion does not complete 'expo'"
if command -v groff > /dev/null; then
  groff -man -ww -z "$prefix/share/man/man1/shardscope.1" 2> "$work/man.err"
  [ -s "$work/man.err" ] && fail "man page warnings: $(cat "$work/man.err")"
fi

# One data file missing: said once (not again as a parse error), and the rest still loads.
rm "$prefix/share/shardscope/assets/glossary.json"
"$exe" --frames 1 --size 640x480 --screenshot "$work/noglossary.png" > /dev/null 2> "$work/noglossary.err" ||
  fail "a run without the glossary exited $?"
[ "$(grep -c . "$work/noglossary.err")" = 1 ] || fail "expected one line about the glossary, got: $(cat "$work/noglossary.err")"
grep -qF "$prefix/share/shardscope/assets/glossary.json: cannot open for reading" "$work/noglossary.err" ||
  fail "unclear: $(cat "$work/noglossary.err")"

# Without its data folder: one plain line, and the window still renders the default scenario.
rm -rf "$prefix/share/shardscope"
"$exe" --frames 1 --size 640x480 --screenshot "$work/bare.png" > /dev/null 2> "$work/bare.err" || fail "bare run exited $?"
[ "$(grep -c . "$work/bare.err")" = 1 ] || fail "expected one line about the data, got: $(cat "$work/bare.err")"
grep -qF "shipped data folder $prefix/share/shardscope" "$work/bare.err" || fail "unclear: $(cat "$work/bare.err")"
echo "install check passed ($prefix)"
