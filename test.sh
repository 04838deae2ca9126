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

if [ "$status" -ne 0 ]; then
  ks_log "Some tests failed: see $build/meson-logs/testlog.txt"
fi
exit "$status"
