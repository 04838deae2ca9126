#!/usr/bin/env bash
# build-aux/fuzz.sh: builds the libFuzzer harnesses (tests/fuzz) with clang,
# AddressSanitizer and UBSan, and runs each for a while on a copy of its seeds.
#
# Usage: build-aux/fuzz.sh [SECONDS] [HARNESS…]     (default 60 s, every harness)
#   build-aux/fuzz.sh 600 fuzz-image
#
# Prints, per harness, the executions and whether it crashed; exits 1 when
# one did. What a harness found is left in OUT/HARNESS/: crash-*, leak-*,
# timeout-* and oom-* inputs (rerun one with: BUILD/tests/fuzz/HARNESS FILE),
# the grown corpus in corpus/ and the log in fuzz.log.
#
# Environment: KS_FUZZ_BUILD_DIR (default _build-fuzz); KS_FUZZ_OUT (default
# BUILD/fuzz-out); KS_FUZZ_RUNS stops each harness after that many executions
# instead of after SECONDS; KS_FUZZ_ARGS adds libFuzzer options. Fuzzers run
# one at a time under nice, in one process each: the machine stays usable.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift $(( $# > 0 ? 1 : 0 ))
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  harnesses=(fuzz-image fuzz-size-launch fuzz-params fuzz-kernel-source)
fi
build=${KS_FUZZ_BUILD_DIR:-_build-fuzz}
out=${KS_FUZZ_OUT:-$build/fuzz-out}
read -r -a extra <<<"${KS_FUZZ_ARGS:-}"

case $seconds in
  ''|*[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;;
esac
for h in "${harnesses[@]}"; do
  if [ ! -f "tests/fuzz/$h.c" ]; then
    echo "fuzz.sh: no harness '$h' (tests/fuzz/$h.c)" >&2
    exit 2
  fi
done

if [ ! -f "$build/build.ninja" ]; then
  # fuzzer-no-link in c_args: the engine's own code reports coverage too.
  CC=clang CXX=clang++ meson setup "$build" -Dfuzzing=true -Dcuda=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link
fi
targets=()
for h in "${harnesses[@]}"; do
  targets+=("tests/fuzz/$h")
done
nice -n 10 meson compile -C "$build" "${targets[@]}"

# UBSan reports are crashes; leaks are reported at exit of each input.
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

status=0
summary=()
for h in "${harnesses[@]}"; do
  dir="$out/$h"
  # What an earlier run found is not this run's finding.
  rm -rf "$dir/corpus" "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-*
  mkdir -p "$dir/corpus"
  cp -R "tests/fuzz/seeds/$h/." "$dir/corpus/"
  args=(-artifact_prefix="$dir/" -print_final_stats=1)
  if [ -n "${KS_FUZZ_RUNS:-}" ]; then
    args+=(-runs="$KS_FUZZ_RUNS")
  else
    args+=(-max_total_time="$seconds")
  fi
  [ -f "tests/fuzz/$h.dict" ] && args+=(-dict="tests/fuzz/$h.dict")
  asan=$ASAN_OPTIONS
  case $h in
    # A BMP header may ask gdk-pixbuf for a 4 GiB buffer it never fills:
    # refused at once (g_try_realloc copes), as a system without overcommit
    # would, instead of a second of shadow memory per input. The leak scan
    # after each input that allocates more than it frees (nearly all: the
    # loaders and GIO fill caches) makes it four times slower;
    # test-fuzz-regressions loads the same files under LSan.
    fuzz-image)
      asan+=:allocator_may_return_null=1:max_allocation_size_mb=2048
      args+=(-max_len=4096 -detect_leaks=0) ;;
    *) args+=(-max_len=4096) ;;
  esac
  echo "==> $h" >&2
  rc=0
  ASAN_OPTIONS=$asan nice -n 10 "$build/tests/fuzz/$h" "${args[@]}" ${extra[@]+"${extra[@]}"} \
    "$dir/corpus" >"$dir/fuzz.log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$dir/fuzz.log" \
         | tail -n 1)
  # After a crash there are no final stats: the last status line counts.
  [ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$dir/fuzz.log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$dir/fuzz.log" | tail -n 1)
  found=$(find "$dir" -maxdepth 1 -type f \
            \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) \
          | wc -l)
  if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then
    status=1
    result="CRASHED (exit $rc; inputs in $dir/)"
    grep -m 3 -E 'ERROR|SUMMARY|runtime error' "$dir/fuzz.log" >&2 || true
  else
    result="clean"
  fi
  summary+=("$(printf '%-20s %12s runs %8s exec/s  %s' "$h" "${runs:-?}" "${rate:-?}" \
              "$result")")
done

printf '%s\n' "${summary[@]}"
exit "$status"
