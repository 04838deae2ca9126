#!/bin/bash
# Runs on the GPU host, from the project root, after the GPU runtime bundle's
# install-runtime.sh: the kernel editor's and the sweep window's ui tests in
# real windows on the CUDA engine, under Xvfb (without OpenGL there: the view
# says so, and the panels and charts draw with cairo). Screenshots go to $OUT/screenshots (or
# BUILD_DIR/gpu-ui-check).
# Usage: build-aux/gpu-ui-check.sh BUILD_DIR [UI_RUNTIME_DIR]   (default .gpu-ui-runtime)
set -u
build=${1:?usage: build-aux/gpu-ui-check.sh BUILD_DIR [UI_RUNTIME_DIR]}
rt=${2:-.gpu-ui-runtime}
prefix=${KS_UI_PREFIX:-/opt/gpu-runtime}
out_dir=${OUT:-$build/gpu-ui-check}
mkdir -p "$out_dir" "$prefix"
# The schemas were compiled with the bundle: a key added since is missing from
# them, and GSettings aborts on a missing key.
for xml in resources/*.gschema.xml; do
  if ! cmp -s "$xml" "$rt/schemas/$(basename "$xml")"; then
    echo "gpu-ui-check: $xml changed since $rt was made: run build-aux/gpu-ui-runtime.sh again" >&2
    exit 2
  fi
done
for deb in "$rt"/debs/*.deb; do
  name=$(basename "$deb" | sed 's/_.*//')
  if grep -qx "$name" "$rt/system.txt"; then dpkg -x "$deb" /; else dpkg -x "$deb" "$prefix"; fi
done
export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export XDG_DATA_DIRS="$prefix/usr/share:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}"
Xvfb :7 -screen 0 1600x1000x24 -nolisten tcp > "$out_dir/xvfb.log" 2>&1 &
xvfb=$!
sleep 3
export DISPLAY=:7 GTK_A11Y=none GSETTINGS_BACKEND=memory GSETTINGS_SCHEMA_DIR="$PWD/$rt/schemas"
export G_TEST_SRCDIR="$PWD/tests" KS_WORKER_PATH="$PWD/$build/app/kernelscope-worker"
export KS_SCREENSHOT_DIR="$out_dir/screenshots"
status=0
# The kernel editor, and the sweep window with its points coloured by the
# CUDA engine's occupancy: each that was built and carried.
for t in test-kernel-editor test-sweep-window; do
  [ -x "$build/tests/$t" ] || continue
  timeout 300 "$build/tests/$t" --tap > "$out_dir/$t.tap" 2>&1 || status=1
  echo "$t:"
  grep -E '^(ok|not ok)' "$out_dir/$t.tap" | sed 's/^/  /'
done
kill "$xvfb" 2>/dev/null
exit "$status"
