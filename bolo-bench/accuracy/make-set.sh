#!/usr/bin/env bash
# Makes the offline engine's accuracy set: every sentence of sentences-held-out.txt (or of the file
# given with --sentences, e.g. sentences-tuning.txt for tuning) spoken by several voices, at two
# speeds, clean and with noise at 20 dB SNR, and the clean ones compressed to the formats phones
# record. Writes the notes and manifest.tsv (file, voice, speed, noise, format, reference) into
# the output folder. Needs Debian's flite, espeak-ng, sox and ffmpeg (libsox-fmt-all for AMR).
#   bolo-bench/accuracy/make-set.sh [--sentences FILE] [--out DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sentences=$here/sentences-held-out.txt
out=$here/../target/accuracy
while [ $# -gt 0 ]; do
  case $1 in
    --sentences) sentences=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--sentences FILE] [--out DIR]" >&2; exit 2 ;;
  esac
done
rm -rf "$out" && mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }

# Voices: flite's four English voices and three of espeak-ng's; "fast" is 1.25 times the rate.
speak() { # voice speed text output.wav
  case $1 in
    flite-*) local stretch=1; [ "$2" = fast ] && stretch=0.8
      flite -voice "${1#flite-}" --setf duration_stretch=$stretch -t "$3" -o "$work/raw.wav" ;;
    espeak-*) local rate=160; [ "$2" = fast ] && rate=200
      espeak-ng -v "${1#espeak-}" -s $rate -w "$work/raw.wav" "$3" ;;
  esac
  sox "$work/raw.wav" -r 16000 -c 1 -b 16 "$4" norm -3
}

printf 'file\tvoice\tspeed\tnoise\tformat\treference\n' > "$out/manifest.tsv"
n=0
for voice in flite-kal16 flite-awb flite-rms flite-slt espeak-en-us espeak-en-gb espeak-en-us+f3; do
  for speed in normal fast; do
    while IFS= read -r text; do
      [ -n "$text" ] || continue
      n=$((n + 1))
      base=$(printf '%03d' $n)-${voice//+/-}-$speed
      speak "$voice" "$speed" "$text" "$work/clean.wav"
      cp "$work/clean.wav" "$out/$base-clean.wav"
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$base-clean.wav" "$voice" "$speed" clean wav "$text" >> "$out/manifest.tsv"
      # Pink noise 20 dB below the speech's RMS level.
      rms=$(sox "$work/clean.wav" -n stat 2>&1 | awk '/RMS     amplitude/ {print $3}')
      len=$(soxi -D "$work/clean.wav")
      noise_gain=$(python3 -c "import math; print(20 * math.log10($rms) - 20)")
      sox -n -r 16000 -c 1 -b 16 "$work/noise.wav" synth "$len" pinknoise norm "$noise_gain"
      sox -m "$work/clean.wav" "$work/noise.wav" -b 16 "$out/$base-noisy.wav"
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$base-noisy.wav" "$voice" "$speed" snr20 wav "$text" >> "$out/manifest.tsv"
      if [ "$speed" = normal ]; then
        ff -i "$work/clean.wav" -c:a aac -b:a 32k "$out/$base.m4a"
        ff -i "$work/clean.wav" -c:a libopus -b:a 24k "$out/$base.webm"
        ff -i "$work/clean.wav" -c:a libmp3lame -b:a 32k "$out/$base.mp3"
        sox "$work/clean.wav" -r 8000 -t amr-nb "$work/nb.amr"
        ff -i "$work/nb.amr" -c:a copy "$out/$base.3gp"
        for f in m4a webm mp3 3gp; do
          printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$base.$f" "$voice" "$speed" clean "$f" "$text" >> "$out/manifest.tsv"
        done
      fi
    done < "$sentences"
  done
done
echo "$(($(wc -l < "$out/manifest.tsv") - 1)) notes in $out" >&2
