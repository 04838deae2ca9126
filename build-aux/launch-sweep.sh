#!/bin/bash
# Median kernel time of one op over launch configurations, on random inputs.
# Usage: build-aux/launch-sweep.sh CLI OP [WxH] [REPEATS] [extra run options…]
# PPTS, BLOCKS and MAPS (pixel, stride) choose the configurations.
# Prints one line per configuration: block, pixels per thread, mapping, median ms.
set -u
cli=$1
op=$2
size=${3:-7680x4320}
repeats=${4:-200}
shift 4 2>/dev/null || shift $#
inputs=(--in "random:$size")
case $op in add|blend) inputs+=(--in "random:$size") ;; esac
printf '%-10s %4s %-6s %10s\n' block ppt map median_ms
for ppt in ${PPTS:-4 8 16}; do
  for block in ${BLOCKS:-32x8 64x4 128x1 256x1}; do
    for map in ${MAPS:-pixel}; do
      extra=()
      [ "$map" = stride ] && extra+=(--stride)
      ms=$("$cli" run "$op" "${inputs[@]}" --engine cuda --block "$block" --ppt "$ppt" \
             --repeat "$repeats" "${extra[@]}" "$@" 2>&1 \
           | sed -n 's/^ *kernel *\([0-9.]*\) ms median.*/\1/p')
      printf '%-10s %4s %-6s %10s\n' "$block" "$ppt" "$map" "${ms:-failed}"
    done
  done
done
