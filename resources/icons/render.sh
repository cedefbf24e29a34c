#!/usr/bin/env bash
# Renders the PNG sizes of the application icon from jitscope.svg (run after editing the SVG; needs librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")"
for size in 16 32 48 64 128 256; do
  rsvg-convert -w "$size" -h "$size" jitscope.svg -o "jitscope-$size.png"
done
