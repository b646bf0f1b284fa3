#!/usr/bin/env bash
# Makes the pages' raster icons from bolo-server's web/icon.svg, with Debian's chromium (headless)
# drawing the SVG and python3 packing the ICO: favicon.ico (16, 32 and 48 px PNGs, for browsers
# that ask /favicon.ico by themselves) and apple-touch-icon.png (180 px, square: iOS rounds it).
# Run it after changing icon.svg, and commit what it writes.
set -euo pipefail
cd "$(dirname "$0")/.."
web=bolo-server/src/main/resources/dev/bolo/server/web
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

draw() { # svg size out
  chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
    --default-background-color=00000000 --window-size="$2,$2" \
    --screenshot="$3" "file://$1" >/dev/null 2>&1
}

cp "$web/icon.svg" "$work/icon.svg"
for size in 16 32 48; do
  draw "$work/icon.svg" "$size" "$work/icon-$size.png"
done
# Square corners for iOS, which cuts its own.
sed 's/ rx="[0-9.]*"//' "$web/icon.svg" >"$work/square.svg"
draw "$work/square.svg" 180 "$web/apple-touch-icon.png"

python3 - "$work" "$web/favicon.ico" <<'PY'
import struct, sys
work, out = sys.argv[1], sys.argv[2]
images = [(size, open(f"{work}/icon-{size}.png", "rb").read()) for size in (16, 32, 48)]
# ICONDIR, then one ICONDIRENTRY per image (PNG data, as Windows Vista and every browser read).
data = struct.pack("<HHH", 0, 1, len(images))
offset = 6 + 16 * len(images)
for size, png in images:
    data += struct.pack("<BBBBHHII", size, size, 0, 0, 1, 32, len(png), offset)
    offset += len(png)
for _, png in images:
    data += png
open(out, "wb").write(data)
PY
echo "wrote $web/favicon.ico and $web/apple-touch-icon.png"
