#!/bin/bash
# Median kernel time of one op over launch configurations, on random inputs.
# Usage: build-aux/launch-sweep.sh CLI OP [WxH] [REPEATS] [extra run options…]
# Prints one line per configuration: block, pixels per thread, mapping, median ms.
set -u
cli=$1
op=$2
size=${3:-7680x4320}
repeats=${4:-200}
shift 4 2>/dev/null || shift $#
inputs=(--in "random:$size")
case $op in add|blend) inputs+=(--in "random:$size") ;; esac
out=$(mktemp --suffix=.csv)
[ "$op" = histogram ] || out=${out%.csv}.png
printf '%-10s %4s %-6s %10s\n' block ppt map median_ms
for ppt in 1 4 8 16; do
  for block in 32x8 64x4 128x2 256x1 128x1 512x1 32x32; do
    for map in pixel stride; do
      extra=()
      [ $map = stride ] && extra+=(--stride)
      ms=$("$cli" run "$op" "${inputs[@]}" --out "$out" --engine cuda --block "$block" --ppt "$ppt" \
             --repeat "$repeats" "${extra[@]}" "$@" 2>&1 | sed -n 's/^ *kernel *\([0-9.]*\) ms median.*/\1/p')
      printf '%-10s %4s %-6s %10s\n' "$block" "$ppt" "$map" "${ms:-failed}"
    done
  done
done
rm -f "$out"
