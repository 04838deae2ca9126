#!/bin/bash
# Runs on a machine with a CUDA GPU, from the project root, once the programs
# of BUILD_DIR find their shared libraries (GLib, gdk-pixbuf, …) there.
# Usage: build-aux/gpu-check.sh [BUILD_DIR]     (default build-gpu)
#
# Every test program of the cuda suite (TAP), the device listing, and the
# benchmark on 8K UHD; logs go to $OUT (or BUILD_DIR/gpu-check), and a summary
# ends the output. Exits 1 when a test failed, a test program crashed or the
# benchmark failed. That machine's meson cannot read a build directory made on the
# build machine, so the programs run directly, with the environment that
# tests/meson.build gives them.

set -u

build=${1:-build-gpu}
build=${build%/}
out_dir=${OUT:-$build/gpu-check}
cli="$build/app/kernelscope-cli"
test_timeout=${KS_TEST_TIMEOUT:-600}

if [ ! -d "$build/tests" ] || [ ! -x "$cli" ]; then
  echo "gpu-check: $build is not a Kernelscope build (no tests/ or app/kernelscope-cli)" >&2
  echo "gpu-check: run it from the project root: build-aux/gpu-check.sh [BUILD_DIR]" >&2
  exit 2
fi
if [ ! -d tests ]; then
  echo "gpu-check: run it from the project root (tests/ not found in $PWD)" >&2
  exit 2
fi
mkdir -p "$out_dir" || exit 2

export G_TEST_SRCDIR="$PWD/tests"
export G_TEST_BUILDDIR="$PWD/$build/tests"
case $build in /*) export G_TEST_BUILDDIR="$build/tests" ;; esac
export G_DEBUG=gc-friendly,fatal-warnings
export GSETTINGS_BACKEND=memory
export GTK_A11Y=none
# User kernels run in the worker process beside the CLI.
export KS_WORKER_PATH="$PWD/$build/app/kernelscope-worker"
case $build in /*) export KS_WORKER_PATH="$build/app/kernelscope-worker" ;; esac

status=0
summary=()

run_logged () {
  # run_logged LOG COMMAND…: output to the terminal and the log; returns the command's status.
  local log=$1
  shift
  if command -v timeout >/dev/null 2>&1; then
    timeout "$test_timeout" "$@" 2>&1 | tee "$log"
  else
    "$@" 2>&1 | tee "$log"
  fi
  return "${PIPESTATUS[0]}"
}

# The interop suite needs the NVIDIA EGL library; glvnd finds it through its vendor file.
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ]; then
  for f in /usr/share/glvnd/egl_vendor.d/10_nvidia.json \
           /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json; do
    if [ -f "$f" ]; then
      export __EGL_VENDOR_LIBRARY_FILENAMES=$f
      break
    fi
  done
fi

echo "== cuda and interop suites ($build/tests/test-cuda*, test-interop*)"
found=0
for t in "$build"/tests/test-cuda* "$build"/tests/test-interop*; do
  [ -f "$t" ] && [ -x "$t" ] || continue
  found=1
  name=$(basename "$t")
  log="$out_dir/$name.tap"
  echo "-- $name"
  run_logged "$log" "$t" --tap
  rc=$?
  # TAP: "ok N name", "ok N name # SKIP why", "not ok N name"; TODO failures do not count.
  passed=$(grep -Ec '^ok [0-9]+' "$log" | tr -d ' ')
  skipped=$(grep -Eic '^ok [0-9]+.*# *skip' "$log" | tr -d ' ')
  failed=$(grep -E '^not ok [0-9]+' "$log" | grep -Evic '# *todo' | tr -d ' ')
  passed=$((passed - skipped))
  verdict="passed $passed, failed $failed, skipped $skipped"
  if [ "$rc" -eq 77 ]; then
    verdict="$verdict (the program skipped: exit 77)"
  elif [ "$rc" -eq 124 ]; then
    verdict="$verdict (TIMED OUT after ${test_timeout}s)"
    status=1
  elif [ "$rc" -ne 0 ]; then
    verdict="$verdict (exit status $rc)"
    status=1
  fi
  if grep -q '^Bail out!' "$log"; then
    verdict="$verdict (bailed out)"
    status=1
  fi
  [ "$failed" -gt 0 ] && status=1
  summary+=("$(printf '%-28s %s' "$name" "$verdict")")
done
if [ "$found" -eq 0 ]; then
  summary+=("no test-cuda* program in $build/tests")
  status=1
fi

echo
echo "== kernelscope-cli devices"
run_logged "$out_dir/devices.log" "$cli" devices
devices_rc=$?
# On a GPU machine CUDA must work: skipped CUDA tests there are not a pass.
if grep -q '^CUDA: unavailable' "$out_dir/devices.log" 2>/dev/null; then
  summary+=("CUDA is unavailable on this host: the cuda suite and the benchmark prove nothing")
  status=1
fi

echo
echo "== kernelscope-cli bench --size 7680x4320"
bench_json="$out_dir/bench-8k.json"
run_logged "$out_dir/bench-8k.log" "$cli" bench --size 7680x4320 --json "$bench_json"
bench_rc=$?
[ "$bench_rc" -ne 0 ] && status=1

# The issue also asks for 4K: a second run (one size per report keeps the JSON
# schema of one run).
echo "== kernelscope-cli bench --size 3840x2160"
bench4k_json="$out_dir/bench-4k.json"
run_logged "$out_dir/bench-4k.log" "$cli" bench --size 3840x2160 --json "$bench4k_json"
bench4k_rc=$?
[ "$bench4k_rc" -ne 0 ] && status=1

echo
display_json="$out_dir/bench-display.json"
display_rc=127
if "$cli" bench-display --help >/dev/null 2>&1; then
  echo "== kernelscope-cli bench-display"
  run_logged "$out_dir/bench-display.log" "$cli" bench-display --json "$display_json"
  display_rc=$?
  [ "$display_rc" -ne 0 ] && status=1
fi

echo
echo "== kernelscope-cli kernel: your own kernels in the worker"
kdir="$out_dir/kernel"
mkdir -p "$kdir"
kernel_checks=()
kernel_case () {
  # kernel_case NAME EXPECTED_STATUS COMMAND…: runs it, records whether it exited as expected.
  local name=$1 expect=$2 rc
  shift 2
  run_logged "$kdir/$name.log" "$@"
  rc=$?
  if [ "$rc" -eq "$expect" ]; then
    kernel_checks+=("$(printf 'ok    %-22s exit %d' "$name" "$rc")")
  else
    kernel_checks+=("$(printf 'FAIL  %-22s exit %d, expected %d' "$name" "$rc" "$expect")")
    status=1
  fi
}
kernel_case expression 0 "$cli" kernel resources/kernels/invert.cu --in testcard:1921x1081 \
  --out "$kdir/invert.png"
"$cli" run invert --in testcard:1921x1081 --out "$kdir/invert-builtin.png" >/dev/null 2>&1
kernel_case expression-equal 0 "$cli" compare "$kdir/invert.png" "$kdir/invert-builtin.png" \
  --expect-equal
kernel_case box-blur 0 "$cli" kernel resources/kernels/box-blur.cu --param radius=3 \
  --in resources/samples/astronaut.png --block 13x7 --out "$kdir/blur.png"
"$cli" run box_blur --param radius=3 --in resources/samples/astronaut.png \
  --out "$kdir/blur-builtin.png" >/dev/null 2>&1
kernel_case box-blur-equal 0 "$cli" compare "$kdir/blur.png" "$kdir/blur-builtin.png" --expect-equal
kernel_case add-arrays 0 "$cli" kernel resources/kernels/add-arrays.cu \
  --arg 'result=f32[1000000]:zeros:out' --arg 'a=f32[1000000]:random(1)' \
  --arg 'b=f32[1000000]:range' --arg n=1000000 --block 256 --grid 120 \
  --save "result=$kdir/result.csv" --json "$kdir/add.json"
kernel_case printf 0 "$cli" kernel tests/data/kernels/hello-blocks.cu --grid 8 --block 64
kernel_case printf-overflow 0 "$cli" kernel tests/data/kernels/hello-blocks.cu --grid 64 \
  --block 1024 --printf-buffer 65536 --json "$kdir/overflow.json"
kernel_case fault 1 "$cli" kernel tests/data/kernels/wild-pointer.cu --arg 'p=i32[64]:zeros'
kernel_case timeout 1 "$cli" kernel tests/data/kernels/spin.cu --timeout 0.5 --in random:64x64

echo
kernel_json="$out_dir/bench-kernel.json"
kernel_rc=127
if "$cli" bench-kernel --help >/dev/null 2>&1; then
  echo "== kernelscope-cli bench-kernel"
  run_logged "$out_dir/bench-kernel.log" "$cli" bench-kernel --json "$kernel_json"
  kernel_rc=$?
  [ "$kernel_rc" -ne 0 ] && status=1
fi

echo
echo "================================ summary ================================"
echo "build: $build    logs: $out_dir"
echo
echo "tests (cuda and interop suites):"
for line in "${summary[@]}"; do
  echo "  $line"
done
echo
grep -E '^(CUDA|NPP):' "$out_dir/devices.log" 2>/dev/null | sed 's/^/  /'
[ "$devices_rc" -ne 0 ] && echo "  kernelscope-cli devices failed (exit status $devices_rc)"
echo
if [ "$bench_rc" -eq 0 ]; then
  echo "benchmark (JSON: $bench_json):"
  sed -n '/^Benchmark on/,$p' "$out_dir/bench-8k.log" | grep -v '^wrote ' | sed 's/^/  /'
else
  echo "benchmark FAILED (exit status $bench_rc):"
  tail -n 5 "$out_dir/bench-8k.log" | sed 's/^/  /'
fi

# Issue 4's targets, read from the 8K JSON: element-wise ops at >= 90 % of the
# copy and no slower than NPP (beyond both spreads; the LUT ops against
# nppiLUTPalette_8u_AC4R with their own tables, threshold in trunc mode against
# nppiThreshold_8u_AC4R, row "threshold[trunc]"), the histogram at >= 2x NPP,
# the blurs at >= 3x NPP's 5x5 filters, Sobel (on gray) and resize no slower
# than NPP.
if [ "$bench4k_rc" -eq 0 ]; then
  echo
  echo "benchmark at 4K (JSON: $bench4k_json):"
  sed -n '/^Benchmark on/,$p' "$out_dir/bench-4k.log" | grep -v '^wrote ' | sed 's/^/  /'
fi
if [ "$bench_rc" -eq 0 ] && command -v python3 >/dev/null 2>&1; then
  echo
  echo "targets (8K UHD):"
  python3 - "$bench_json" <<'PY' | sed 's/^/  /'
import json, sys
r = json.load(open(sys.argv[1]))
rows = {o["id"]: o for o in r["ops"]}
ELEMENTWISE = ("invert", "gray", "add", "blend", "brightness_contrast", "gamma", "threshold",
               "channel_swap")
def verdict(ok):
    return "ok  " if ok else "MISS"
# Ops the benchmark runs in a non-default setting carry it in the row id.
TAGGED = {"threshold": "threshold[trunc]"}
# The LUT ops' NPP rows compute exactly what ours do (tolerance 0): an NPP
# output that differs makes the timing compare different work.
EXACT = ("brightness_contrast", "gamma", "threshold")
def vs_npp(o, factor, what):
    n = o["npp"]
    if n is None:
        print(f"---- {o['id']:<20} no NPP row ({o.get('npp_note') or 'no equivalent'}): {what}")
        return
    slack = (o["mad_ms"] or 0) + (n["mad_ms"] or 0)
    ok = o["median_ms"] * factor <= n["median_ms"] + (slack if factor == 1 else 0)
    differs = o["op"] in EXACT and not n["agrees"]
    print(f"{verdict(ok and not differs)} {o['id']:<20} {o['median_ms']:.4f} ms vs {n['name']}"
          f" {n['median_ms']:.4f} ms (ours/NPP {n['ratio']:.2f}; {what})"
          + ("; NPP's output DIFFERS, so the times compare different work" if differs else ""))
for op in ELEMENTWISE:
    o = rows.get(TAGGED.get(op, op)) or rows.get(op)
    if o is None:
        continue
    share = o["share_of_copy"]
    if share is not None:
        print(f"{verdict(share >= 0.90)} {o['id']:<20} {100 * share:5.1f} % of the copy bandwidth"
              " (>= 90 %)")
    vs_npp(o, 1, "<= NPP")
for hid in ("histogram[shared]", "histogram[shared,rgba8]"):
    if hid in rows:
        vs_npp(rows[hid], 2, ">= 2x NPP")
for op in ("box_blur", "gaussian_blur"):
    if op in rows:
        vs_npp(rows[op], 3, ">= 3x NPP 5x5")
# Sobel runs in horizontal mode, NPP's one derivative; the target is on the
# gray row, the input NPP's Sobel takes. The RGBA row reads four times the
# bytes and computes the luma on the way: shown, not a target.
if "sobel[horizontal]" in rows:
    vs_npp(rows["sobel[horizontal]"], 1, "<= NPP, both on GRAY8")
if "sobel[horizontal,rgba8]" in rows:
    o = rows["sobel[horizontal,rgba8]"]
    n = o["npp"]
    if n is not None:
        print(f"---- {o['id']:<20} {o['median_ms']:.4f} ms from RGBA8 vs {n['name']}"
              f" {n['median_ms']:.4f} ms from GRAY8 (ours/NPP {n['ratio']:.2f}; no target)")
if "resize" in rows:
    vs_npp(rows["resize"], 1, "<= NPP")
for o in r["ops"]:
    known = set(ELEMENTWISE) | {"box_blur", "gaussian_blur", "sobel", "resize"}
    if o["op"] not in known and o["op"] != "histogram":
        print(f"---- {o['id']:<20} {o['median_ms']:.4f} ms, "
              f"{100 * (o['share_of_copy'] or 0):.1f} % of copy (no NPP target)")
disagree = [o["id"] for o in r["ops"] if o["npp"] is not None and not o["npp"]["agrees"]]
if disagree:
    print("note: NPP's output differs from ours beyond the tolerance for: " + ", ".join(disagree))
PY
fi

if [ "$display_rc" -eq 0 ]; then
  echo
  echo "display path (JSON: $display_json):"
  sed -n '/^size /,/target/p' "$out_dir/bench-display.log" | sed 's/^/  /'
elif [ "$display_rc" -ne 127 ]; then
  echo
  echo "display benchmark FAILED (exit status $display_rc):"
  tail -n 5 "$out_dir/bench-display.log" | sed 's/^/  /'
fi

echo
echo "kernelscope-cli kernel on the GPU:"
for line in "${kernel_checks[@]}"; do
  echo "  $line"
done
grep -h -E "^(device printf|kernelscope-cli: .*lost|kernelscope-cli: The kernel)" \
  "$kdir"/printf*.log "$kdir"/fault.log "$kdir"/timeout.log 2>/dev/null | sed 's/^/  /'
if [ "$kernel_rc" -eq 0 ]; then
  echo
  echo "your own kernels (JSON: $kernel_json):"
  sed -n '/^user kernels/,$p' "$out_dir/bench-kernel.log" | sed 's/^/  /'
elif [ "$kernel_rc" -ne 127 ]; then
  echo
  echo "user-kernel benchmark FAILED (exit status $kernel_rc):"
  tail -n 5 "$out_dir/bench-kernel.log" | sed 's/^/  /'
fi

echo
if [ "$status" -eq 0 ]; then
  echo "gpu-check: PASSED"
else
  echo "gpu-check: FAILED"
fi
exit "$status"
