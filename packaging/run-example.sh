#!/usr/bin/env bash
# `make run`: opens the GUI on the bundled example, or prints its graph where there is no display.
set -euo pipefail
BUILD=${1:-build}
EXAMPLE=examples/loop_in_traced_fn.py
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  # The example's check inputs make the trace diverge: open on the comparison of the traces.
  exec "$BUILD/bin/jitscope" --view compare "$EXAMPLE"
fi
echo "make run: no display (DISPLAY and WAYLAND_DISPLAY are unset), so the GUI cannot open."
echo "Showing what 'jitscope-cli graph $EXAMPLE' prints instead; with a display, run: $BUILD/bin/jitscope --view compare $EXAMPLE"
echo
"$BUILD/bin/jitscope-cli" graph "$EXAMPLE"
echo
echo "And what 'jitscope-cli check $EXAMPLE' finds across the file's input sets:"
echo
# check exits 1 when the traces diverge, which they do here: that is the finding, not a failure of make run.
"$BUILD/bin/jitscope-cli" check "$EXAMPLE" || true
