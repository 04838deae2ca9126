#!/bin/bash
# The benchmark's rows for some ops under several launches, L2 flushed as in
# `kernelscope-cli bench`, without NPP.
# Usage: build-aux/bench-sweep.sh CLI OPS [SIZE] -- "LAUNCH OPTIONS" …
#   build-aux/bench-sweep.sh build/app/kernelscope-cli gray,invert 7680x4320 -- \
#     "--ppt 4" "--ppt 8" "--ppt 8 --stride" "--block 64x4 --ppt 16"
# Each quoted argument is one launch; an empty one keeps each op's own.
set -u
cli=$1
ops=$2
size=7680x4320
shift 2
if [ $# -gt 0 ] && [ "$1" != -- ]; then
  size=$1
  shift
fi
[ $# -gt 0 ] && [ "$1" = -- ] && shift
[ $# -eq 0 ] && set -- ""
for launch in "$@"; do
  echo "== ${launch:-default launch}"
  # shellcheck disable=SC2086 # the launch options are words on purpose
  "$cli" bench --ops "$ops" --size "$size" --no-npp --repeat "${REPEATS:-50}" $launch 2>&1 |
    sed -n '/^op /,$p' | sed '1d;/^$/d'
done
