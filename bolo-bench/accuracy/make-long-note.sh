#!/usr/bin/env bash
# Makes a long note for LongNoteBench: the sentences of sentences-held-out.txt spoken by flite's
# voices in turn, 0.6 s of silence after each and 2 s after every fifth, repeated until the note
# lasts MINUTES (default 10), as 16 kHz WAV and as AAC in M4A, with its reference text.
#   bolo-bench/accuracy/make-long-note.sh [MINUTES] [OUT_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
minutes=${1:-10}
out=${2:-$here/../target/long-note}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sox -n -r 16000 -c 1 -b 16 "$work/pause.wav" trim 0 0.6
sox -n -r 16000 -c 1 -b 16 "$work/gap.wav" trim 0 2
voices=(kal16 awb rms slt)
mapfile -t sentences < "$here/sentences-held-out.txt"
# Each sentence once per voice, then repeated: a long note is many utterances.
for s in "${!sentences[@]}"; do
  for v in "${voices[@]}"; do
    flite -voice "$v" -t "${sentences[$s]}" -o "$work/raw.wav"
    sox "$work/raw.wav" -r 16000 -c 1 -b 16 "$work/s-$s-$v.wav" norm -3
  done
done
: > "$work/list.txt"
: > "$out/reference-$minutes.txt"
i=0
total=0
limit=$((minutes * 60 * 16000))
while [ "$total" -lt "$limit" ]; do
  s=$((i % ${#sentences[@]}))
  v=${voices[$(((i / ${#sentences[@]}) % ${#voices[@]}))]}
  echo "$work/s-$s-$v.wav" >> "$work/list.txt"
  printf '%s ' "${sentences[$s]}" >> "$out/reference-$minutes.txt"
  samples=$(soxi -s "$work/s-$s-$v.wav")
  if [ $((i % 5)) -eq 4 ]; then
    echo "$work/gap.wav" >> "$work/list.txt"; samples=$((samples + 32000))
  else
    echo "$work/pause.wav" >> "$work/list.txt"; samples=$((samples + 9600))
  fi
  total=$((total + samples)); i=$((i + 1))
done
# shellcheck disable=SC2046
sox $(cat "$work/list.txt") "$out/note-$minutes.wav"
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$out/note-$minutes.wav" -c:a aac -b:a 32k \
  "$out/note-$minutes.m4a"
echo "$out/note-$minutes.m4a: $(soxi -D "$out/note-$minutes.wav") s, $i sentences" >&2
