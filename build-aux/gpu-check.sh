#!/bin/bash
# Runs on a machine with a CUDA GPU, from the project root, once the programs
# of BUILD_DIR find their shared libraries (GLib, gdk-pixbuf, …) there.
# Usage: build-aux/gpu-check.sh [--sanitize | --sanitize-only] [BUILD_DIR]
#        (BUILD_DIR defaults to build-gpu)
#
# Every test program of the cuda suite (TAP), the device listing, and the
# benchmark on 8K UHD; logs go to $OUT (or BUILD_DIR/gpu-check), and a summary
# ends the output. Exits 1 when a test failed, a test program crashed or the
# benchmark failed. That machine's meson cannot read a build directory made on the
# build machine, so the programs run directly, with the environment that
# tests/meson.build gives them.
#
# --sanitize: after those checks, tests/test-cuda-sanitize (every built-in
# kernel a few times on small images, held to the CPU engine) once under each
# of compute-sanitizer's tools: memcheck with --leak-check full, racecheck,
# initcheck and synccheck, each with --error-exitcode 1. Each tool's output
# goes to sanitize-TOOL.log in the log folder, and the summary gets a line per
# tool: its ERROR SUMMARY (racecheck: RACECHECK SUMMARY), exit status and wall
# seconds. A finding, a failed test or a missing compute-sanitizer fails the
# check. The suites themselves are not run under the tools (the filter suite
# alone takes over ten minutes under memcheck); the sanitize program reaches
# every built-in kernel in a minute or two. It also runs natively with the
# cuda suite, as every test-cuda* program does.
# --sanitize-only: the sanitizer pass alone, without the suites and the
# benchmarks (a few minutes: the fastest way to check the kernels after a
# change to them); only BUILD_DIR/tests/test-cuda-sanitize is needed.
# compute-sanitizer is looked for in $KS_COMPUTE_SANITIZER, on PATH, beside
# nvcc, under $CUDA_HOME and $CUDA_PATH, and in /usr/local/cuda*; each tool
# gets $KS_SANITIZE_TIMEOUT seconds (default 600).

set -u

sanitize=no
build=
for arg in "$@"; do
  case $arg in
    --sanitize) sanitize=yes ;;
    --sanitize-only) sanitize=only ;;
    -h|--help)
      sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
      exit 0
      ;;
    -*)
      echo "gpu-check: unknown option $arg" >&2
      echo "usage: build-aux/gpu-check.sh [--sanitize | --sanitize-only] [BUILD_DIR]" >&2
      exit 2
      ;;
    *)
      if [ -n "$build" ]; then
        echo "gpu-check: one build directory, not $build and $arg" >&2
        exit 2
      fi
      build=$arg
      ;;
  esac
done
build=${build:-build-gpu}
build=${build%/}
out_dir=${OUT:-$build/gpu-check}
sanitize_program="$build/tests/test-cuda-sanitize"
sanitize_timeout=${KS_SANITIZE_TIMEOUT:-600}
cli="$build/app/kernelscope-cli"
test_timeout=${KS_TEST_TIMEOUT:-600}

if [ "$sanitize" = only ]; then
  if [ ! -x "$sanitize_program" ]; then
    echo "gpu-check: $sanitize_program is missing: build it (meson compile -C BUILD_DIR" \
      "tests/test-cuda-sanitize) and bring it along" >&2
    exit 2
  fi
elif [ ! -d "$build/tests" ] || [ ! -x "$cli" ]; then
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

# compute-sanitizer: $KS_COMPUTE_SANITIZER, else PATH, else beside nvcc or in
# a CUDA folder (bin/, or the toolkit's compute-sanitizer/), newest first.
find_sanitizer () {
  local d c
  local -a dirs=() versions=()
  if [ -n "${KS_COMPUTE_SANITIZER:-}" ]; then
    [ -x "$KS_COMPUTE_SANITIZER" ] || return 1
    echo "$KS_COMPUTE_SANITIZER"
    return 0
  fi
  if c=$(command -v compute-sanitizer 2>/dev/null); then
    echo "$c"
    return 0
  fi
  if c=$(command -v nvcc 2>/dev/null); then
    dirs+=("$(dirname "$c")/..")
  fi
  mapfile -t versions < <(printf '%s\n' /usr/local/cuda-* | sort -rV)
  for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda "${versions[@]}"; do
    [ -n "$d" ] && dirs+=("$d")
  done
  for d in "${dirs[@]}"; do
    for c in "$d/bin/compute-sanitizer" "$d/compute-sanitizer/compute-sanitizer"; do
      if [ -x "$c" ]; then
        echo "$c"
        return 0
      fi
    done
  done
  return 1
}

sanitize_summary=()
run_sanitize () {
  # test-cuda-sanitize under each tool; a line per tool in sanitize_summary.
  local sanitizer tool log rc start end secs pattern found passed failed verdict mark
  local -a extra
  echo
  echo "== compute-sanitizer: $sanitize_program"
  if ! sanitizer=$(find_sanitizer); then
    sanitize_summary+=("FAIL  compute-sanitizer NOT FOUND: nothing was checked")
    echo "gpu-check: compute-sanitizer not found in \$KS_COMPUTE_SANITIZER, on PATH, beside" \
      "nvcc, under \$CUDA_HOME or \$CUDA_PATH, or in /usr/local/cuda*; set" \
      "KS_COMPUTE_SANITIZER to its path" >&2
    status=1
    return
  fi
  if [ ! -x "$sanitize_program" ]; then
    sanitize_summary+=("FAIL  $sanitize_program is missing: nothing was checked")
    echo "gpu-check: $sanitize_program is missing" >&2
    status=1
    return
  fi
  echo "$sanitizer: $("$sanitizer" --version 2>&1 | tail -n 1)"
  for tool in memcheck racecheck initcheck synccheck; do
    log="$out_dir/sanitize-$tool.log"
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    echo "-- $tool"
    echo "$sanitizer --tool $tool ${extra[*]:+${extra[*]} }--error-exitcode 1" \
      "$sanitize_program --tap -k"
    start=$(date +%s.%N)
    if command -v timeout >/dev/null 2>&1; then
      timeout "$sanitize_timeout" "$sanitizer" --tool "$tool" ${extra[@]+"${extra[@]}"} \
        --error-exitcode 1 "$sanitize_program" --tap -k 2>&1 | tee "$log"
    else
      "$sanitizer" --tool "$tool" ${extra[@]+"${extra[@]}"} --error-exitcode 1 \
        "$sanitize_program" --tap -k 2>&1 | tee "$log"
    fi
    rc=${PIPESTATUS[0]}
    end=$(date +%s.%N)
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    # "========= ERROR SUMMARY: 0 errors"; racecheck: "RACECHECK SUMMARY: 0 hazards
    # displayed (0 errors, 0 warnings)".
    pattern='ERROR SUMMARY'
    [ "$tool" = racecheck ] && pattern='RACECHECK SUMMARY'
    found=$(grep -F "$pattern" "$log" | tail -n 1 | sed 's/^=* *//')
    [ -n "$found" ] || found=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | tail -n 1 \
                                 | sed 's/^=* *//')
    passed=$(grep -Ec '^ok [0-9]+' "$log" | tr -d ' ')
    failed=$(grep -Ec '^not ok [0-9]+' "$log" | tr -d ' ')
    verdict="tests passed $passed, failed $failed"
    mark=ok
    if [ -z "$found" ]; then
      found="no summary from the tool"
      mark=FAIL
    elif ! printf '%s\n' "$found" | grep -Eq '(: |\()0 errors'; then
      mark=FAIL
    fi
    if [ "$rc" -eq 77 ]; then
      verdict="$verdict; the program skipped (exit 77): CUDA is unavailable"
      mark=FAIL
    elif [ "$rc" -eq 124 ]; then
      verdict="$verdict; TIMED OUT after ${sanitize_timeout}s"
      mark=FAIL
    elif [ "$rc" -ne 0 ] || [ "$failed" -gt 0 ] || grep -q '^Bail out!' "$log"; then
      mark=FAIL
    fi
    [ "$mark" = ok ] || status=1
    sanitize_summary+=("$(printf '%-4s  %-9s  %s  exit %d  %ss  (%s)' "$mark" "$tool" "$found" \
                          "$rc" "$secs" "$verdict")")
  done
}

print_sanitize_summary () {
  local line
  echo "compute-sanitizer on $sanitize_program (logs: $out_dir/sanitize-*.log):"
  for line in "${sanitize_summary[@]}"; do
    echo "  $line"
  done
}

if [ "$sanitize" = only ]; then
  run_sanitize
  echo
  echo "================================ summary ================================"
  echo "build: $build    logs: $out_dir"
  echo
  print_sanitize_summary
  echo
  if [ "$status" -eq 0 ]; then
    echo "gpu-check: PASSED"
  else
    echo "gpu-check: FAILED"
  fi
  exit "$status"
fi

# The display path first, before any program faults the GPU on purpose (the
# worker's and the fault tests do): after an MMU fault the H200's driver lets
# OpenGL import CUDA's memory but read only zeros from it, until it is
# reloaded, so the shared-memory path is measured and tested on a GPU that
# has not faulted since the machine started.
display_json="$out_dir/bench-display.json"
display_rc=127
if "$cli" bench-display --help >/dev/null 2>&1; then
  echo "== kernelscope-cli bench-display"
  run_logged "$out_dir/bench-display.log" "$cli" bench-display --output "$display_json"
  display_rc=$?
  [ "$display_rc" -ne 0 ] && status=1
fi

echo
echo "== interop and cuda suites ($build/tests/test-interop*, test-cuda*)"
found=0
for t in "$build"/tests/test-interop* "$build"/tests/test-cuda*; do
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
run_logged "$out_dir/bench-8k.log" "$cli" bench --size 7680x4320 --output "$bench_json"
bench_rc=$?
[ "$bench_rc" -ne 0 ] && status=1

# The issue also asks for 4K: a second run (one size per report keeps the JSON
# schema of one run).
echo "== kernelscope-cli bench --size 3840x2160"
bench4k_json="$out_dir/bench-4k.json"
run_logged "$out_dir/bench-4k.log" "$cli" bench --size 3840x2160 --output "$bench4k_json"
bench4k_rc=$?
[ "$bench4k_rc" -ne 0 ] && status=1

# The histogram on natural 8K images, NPP on the same buffers: the bundled
# photo resized (bilinear) and the test card ("histogram[shared]" selects
# the gray and the RGBA rows). Natural images repeat values
# from pixel to pixel, which random data never does.
hist_rc=0
hist_jsons=()
if "$cli" bench --help 2>/dev/null | grep -q -- '--in'; then
  photo8k="$out_dir/astronaut-8k.png"
  if "$cli" run resize --in resources/samples/astronaut.png --param width=7680 \
       --param height=4320 --out "$photo8k" > "$out_dir/resize-8k.log" 2>&1; then
    for input in "$photo8k" testcard:7680x4320; do
      name=$(basename "${input%.png}" | tr ':' '-')
      echo "== kernelscope-cli bench --in $input --ops histogram"
      run_logged "$out_dir/bench-hist-$name.log" "$cli" bench --in "$input" \
        --ops "histogram[shared]" --output "$out_dir/bench-hist-$name.json" \
        || { hist_rc=1; status=1; }
      hist_jsons+=("$out_dir/bench-hist-$name.json")
    done
  else
    hist_rc=1
    status=1
  fi
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
  --save "result=$kdir/result.csv"
kernel_case printf 0 "$cli" kernel tests/data/kernels/hello-blocks.cu --grid 8 --block 64
kernel_case printf-overflow 0 "$cli" kernel tests/data/kernels/hello-blocks.cu --grid 64 \
  --block 1024 --printf-buffer 65536
kernel_case fault 1 "$cli" kernel tests/data/kernels/wild-pointer.cu --arg 'p=i32[64]:zeros'
kernel_case timeout 1 "$cli" kernel tests/data/kernels/spin.cu --timeout 0.5 --in random:64x64

echo
kernel_json="$out_dir/bench-kernel.json"
kernel_rc=127
if "$cli" bench-kernel --help >/dev/null 2>&1; then
  echo "== kernelscope-cli bench-kernel"
  run_logged "$out_dir/bench-kernel.log" "$cli" bench-kernel --output "$kernel_json"
  kernel_rc=$?
  [ "$kernel_rc" -ne 0 ] && status=1
fi

[ "$sanitize" = yes ] && run_sanitize

echo
echo "================================ summary ================================"
echo "build: $build    logs: $out_dir"
echo
echo "tests (cuda and interop suites):"
for line in "${summary[@]}"; do
  echo "  $line"
done
if [ "$sanitize" = yes ]; then
  echo
  print_sanitize_summary
fi
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
# nppiThreshold_8u_AC4R, row "threshold[trunc]"), the histogram at >= 90 % of
# the measured shared-atomic limit on random data and >= 2x NPP on natural
# images (the bundled photo at 8K, the test card),
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
  python3 - "$bench_json" "${hist_jsons[@]}" <<'PY' | sed 's/^/  /'
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
        n = rows[hid]["npp"]
        if n is not None:
            print(f"---- {hid:<20} {rows[hid]['median_ms']:.4f} ms vs {n['name']} "
                  f"{n['median_ms']:.4f} ms on random data (ours/NPP {n['ratio']:.2f}; "
                  "the target there is the atomic limit)")
        share = rows[hid].get("share_of_atomics_limit")
        if share is not None:
            limit = rows[hid]["atomics_limit_ms"]
            print(f"{verdict(share >= 0.90)} {hid:<20} {100 * share:5.1f} % of the measured "
                  f"shared-atomic limit ({limit:.4f} ms; >= 90 %)")
            # The other limit: the kernel's walk and loads alone. Reading the
            # image for longer than the target allows is a floor under it.
            read = rows[hid].get("read_limit_ms")
            if read is not None:
                floor = read > limit / 0.90
                print(f"---- {hid:<20} reading the image alone {read:.4f} ms (the row at "
                      f"{100 * rows[hid]['share_of_read_limit']:.1f} % of it)"
                      + (f"; above the target's {limit / 0.90:.4f} ms: a floor" if floor else ""))
for path in sys.argv[2:]:
    try:
        h = json.load(open(path))
    except (OSError, ValueError):
        print(f"MISS {path}: no report")
        continue
    name = path.rsplit("/", 1)[-1].replace("bench-hist-", "").replace(".json", "")
    for o in h["ops"]:
        vs_npp(o, 2, f">= 2x NPP on {name}")
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
  sed -n '/^Shared: /p;/^size /,$p' "$out_dir/bench-display.log" | grep -v '^wrote ' \
    | sed 's/^/  /'
  # The display targets: with the op writing memory OpenGL samples in place,
  # a whole frame at 4K <= 0.2 ms and at 8K <= 0.5 ms, >= 50x the copy path
  # at 4K, and a new size no dearer than re-registering the pixel buffer.
  if command -v python3 >/dev/null 2>&1; then
    echo "display targets:"
    python3 - "$display_json" <<'PY' | sed 's/^/  /'
import json, sys
r = json.load(open(sys.argv[1]))
def verdict(ok):
    return "ok  " if ok else "MISS"
sizes = {(s["width"], s["height"]): s for s in r["sizes"]}
for (w, h), limit in (((3840, 2160), 0.2), ((7680, 4320), 0.5)):
    s = sizes.get((w, h))
    if s is None:
        continue
    c = s.get("shared_frame")
    if c is None:
        print(f"MISS {w}x{h}: no shared-memory path ({r.get('shared')})")
        continue
    print(f"{verdict(c['median_ms'] <= limit)} {w}x{h} shared frame {c['median_ms']:.3f} ms"
          f" (<= {limit} ms); pixel buffer {s['interop_frame']['median_ms']:.3f} ms,"
          f" copy {s['copy_frame']['median_ms']:.3f} ms")
    if (w, h) == (3840, 2160):
        ratio = s["ratio_copy_over_shared"]
        print(f"{verdict(ratio >= 50)} {w}x{h} {ratio:.1f}x faster than the copy path (>= 50x)")
    first_a, first_c = s["interop_frame"]["warmup_ms"], c["warmup_ms"]
    print(f"{verdict(first_c <= first_a)} {w}x{h} a new size: {first_c:.3f} ms"
          f" (pixel buffer re-registration {first_a:.3f} ms)")
PY
  fi
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
