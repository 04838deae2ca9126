#!/usr/bin/env bash
# ./run.sh [IMAGE…]: installs what the build needs, builds build/ and starts
# Kernelscope on the given images (the second one is the second input of
# two-image ops), or on the bundled photo.
# Without a display (or with --cli) it shows what the tutorial's ops do instead:
# each result is written next to its image (for the bundled photo:
# kernelscope-out/) and the stage timings are printed.
set -euo pipefail
here="$PWD"
cd "$(dirname "$0")"
root="$PWD"

# Image paths are taken relative to where the user ran the script.
images=()
cli_only=0
for arg in "$@"; do
  case "$arg" in
    -h|--help)
      sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
      exit 0 ;;
    --cli) cli_only=1 ;;
    /*) images+=("$arg") ;;
    *) images+=("$here/$arg") ;;
  esac
done

# shellcheck source=build-aux/setup.sh
. build-aux/setup.sh
ks_setup
build="${KS_BUILD_DIR:-build}"
case "$build" in
  /*) cli="$build/app/kernelscope-cli" ;;
  *) cli="$root/$build/app/kernelscope-cli" ;;
esac
[ -x "$cli" ] || ks_die "$cli was not built"

if [ "$cli_only" -eq 0 ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  app="${cli%-cli}"
  [ -x "$app" ] || ks_die "$app was not built"
  # The settings schema compiled in the build tree: the window keeps its size and panels.
  export GSETTINGS_SCHEMA_DIR="${cli%/app/kernelscope-cli}/resources${GSETTINGS_SCHEMA_DIR:+:$GSETTINGS_SCHEMA_DIR}"
  # The translations built in the build tree (LANGUAGE=de ./run.sh: the German UI).
  export KS_LOCALEDIR="${cli%/app/kernelscope-cli}/po"
  # gettext ignores LANGUAGE under the plain C locale: without a locale of
  # their own, the messages follow LANGUAGE under C.UTF-8.
  if [ -n "${LANGUAGE:-}" ] && [ -z "${LC_ALL:-}${LC_MESSAGES:-}${LANG:-}" ]; then
    export LANG=C.UTF-8
  fi
  ks_log "Starting Kernelscope"
  exec "$app" "${images[@]}"
fi
if [ "$cli_only" -eq 0 ]; then
  ks_log "No display: showing the tutorial's operations with kernelscope-cli instead"
fi

status=0

# run_op LABEL ARGS…: runs the CLI and reports a failure without stopping.
run_op ()
{
  local label="$1"
  shift
  printf '\n\033[1m--- %s\033[0m\n' "$label"
  if ! "$cli" run "$@"; then
    printf 'run.sh: %s failed\n' "$label" >&2
    status=1
  fi
}

show ()
{
  local image="$1" out_dir="$2" name

  name="$(basename "${image%.*}")"
  [ -f "$image" ] || { printf 'run.sh: no such image: %s\n' "$image" >&2; status=1; return; }
  mkdir -p "$out_dir" || { status=1; return; }
  ks_log "$image → $out_dir/$name-*"

  run_op "invert" invert --in "$image" --out "$out_dir/$name-invert.png"
  run_op "gray (BT.601, rounded)" gray --in "$image" --out "$out_dir/$name-gray.png"
  run_op "gray, truncated like the tutorial" gray --in "$image" --param truncate=true \
    --out "$out_dir/$name-gray-truncate.png"
  # The two-input ops need a second image of the same size: the gray result.
  if [ -f "$out_dir/$name-gray.png" ]; then
    run_op "add (image + its gray, saturating)" add --in "$image" --in "$out_dir/$name-gray.png" \
      --out "$out_dir/$name-add.png"
    run_op "blend (0.7 image + 0.3 its gray)" blend --in "$image" --in "$out_dir/$name-gray.png" \
      --param weight_a=0.7 --param weight_b=0.3 --out "$out_dir/$name-blend.png"
  fi
  run_op "histogram (shared memory)" histogram --in "$image" --out "$out_dir/$name-histogram.csv"
}

if [ "${#images[@]}" -eq 0 ]; then
  show "$root/resources/samples/astronaut.png" "$root/kernelscope-out"
else
  for image in "${images[@]}"; do
    show "$image" "$(dirname "$image")"
  done
fi

echo
if [ "$status" -eq 0 ]; then
  ks_log "Done"
else
  ks_log "Some runs failed (see above)"
fi
exit "$status"
