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
exec "$BUILD/bin/jitscope-cli" graph "$EXAMPLE"
