#!/usr/bin/env bash
# ./test.sh: installs what the build needs, builds build/ and runs every test suite.
# Without a GPU the cuda suite skips; the ui suite runs under Xvfb.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=build-aux/setup.sh
. build-aux/setup.sh

ks_setup
build="${KS_BUILD_DIR:-build}"

export GTK_A11Y=none
status=0
san=""

ks_log "Running the test suites"
meson test -C "$build" --print-errorlogs --no-suite ui || status=1

# The GUI's tests need a display: a private Xvfb server per run.
# The list is read whole before it is searched: with pipefail, grep -q
# leaving early can kill the writer with SIGPIPE and fail the test, which
# would skip the ui suite without a word.
suites=$(meson test -C "$build" --list 2>/dev/null || true)
if grep -q ':ui /' <<<"$suites"; then
  ks_log "Running the ui suite under Xvfb"
  xvfb-run -a -s '-screen 0 1280x1024x24' \
    meson test -C "$build" --print-errorlogs --suite ui || status=1
fi

# The engine and ui suites once more, built with AddressSanitizer and
# UndefinedBehaviorSanitizer: a memory error or undefined behaviour fails the
# run. Without CUDA (the CUDA paths need a GPU to run at all), which also keeps
# the build short. Leaks are checked in the engine suite; GTK and fontconfig
# keep caches for the life of the process, so the ui suite checks errors only.
# KS_SANITIZE=0 leaves this out.
if [ "${KS_SANITIZE:-1}" != 0 ]; then
  san="${KS_SANITIZE_BUILD_DIR:-build-sanitize}"
  ks_configure "$san" -Dcuda=disabled -Db_sanitize=address,undefined -Db_lundef=false
  ks_build "$san"
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  export LSAN_OPTIONS="suppressions=$PWD/build-aux/lsan.supp:print_suppressions=0"
  ks_log "Running the engine suite under ASan and UBSan"
  meson test -C "$san" --print-errorlogs --suite engine || status=1
  if grep -q ':ui /' <<<"$suites"; then
    ks_log "Running the ui suite under ASan and UBSan, under Xvfb"
    ASAN_OPTIONS=detect_leaks=0 xvfb-run -a -s '-screen 0 1280x1024x24' \
      meson test -C "$san" --print-errorlogs --suite ui || status=1
  fi
fi

if [ "$status" -ne 0 ]; then
  ks_log "Some tests failed: see meson-logs/testlog.txt in $build${san:+ and $san}"
fi
exit "$status"
