#!/usr/bin/env bash
# Regenerates the AMR notes under phone-audio/ (what Android's recorders write into 3GP files).
# Needs Debian's flite, sox (libsox-fmt-all, whose AMR-NB encoder is opencore's), ffmpeg, python3
# and libvo-amrwbenc0: apt-get install -y flite sox libsox-fmt-all ffmpeg python3 libvo-amrwbenc0
# Debian's ffmpeg and sox decode AMR-WB but cannot encode it, so it is encoded here through
# VisualOn's encoder library, one 20 ms frame at a time, in the AMR-WB storage format (RFC 4867).
set -euo pipefail
cd "$(dirname "$0")"
out=phone-audio
rm -rf "$out" && mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }

flite -voice rms -t "Please call the plumber on Monday afternoon." -o "$work/speech.wav"

sox "$work/speech.wav" -r 8000 -c 1 -t amr-nb "$out/amr-nb.amr"
ff -i "$out/amr-nb.amr" -c:a copy "$out/amr-nb.3gp"

sox "$work/speech.wav" -r 16000 -c 1 -b 16 -t raw "$work/speech.raw"
python3 - "$work/speech.raw" "$work/amr-wb.awb" <<'PY'
import ctypes, sys
lib = ctypes.CDLL("libvo-amrwbenc.so.0")
lib.E_IF_init.restype = ctypes.c_void_p
state = ctypes.c_void_p(lib.E_IF_init())
raw = open(sys.argv[1], "rb").read()
out = bytearray(b"#!AMR-WB\n")
frame_out = (ctypes.c_ubyte * 64)()
for i in range(len(raw) // 640):
    frame = (ctypes.c_short * 320).from_buffer_copy(raw[i * 640:(i + 1) * 640])
    # Mode 8: 23.85 kbit/s, no discontinuous transmission.
    n = lib.E_IF_encode(state, 8, frame, frame_out, 0)
    out += bytes(frame_out[:n])
open(sys.argv[2], "wb").write(out)
PY
ff -i "$work/amr-wb.awb" -c:a copy "$out/amr-wb.3gp"

# The reference length is what ffmpeg decodes: ffprobe only estimates a raw AMR file's duration
# from its size and the first frame's bit rate.
printf 'file\tdecoded_seconds\n' > phone-durations.tsv
for f in "$out"/*; do
  samples=$(( $(ffmpeg -nostdin -v error -i "$f" -f s16le -ac 1 -ar 16000 - | wc -c) / 2 ))
  printf '%s\t%s\n' "$(basename "$f")" "$(echo "scale=6; $samples / 16000" | bc)" >> phone-durations.tsv
done
