#!/usr/bin/env bash
# Makes a long note of real human speech for LongNoteBench: the five LibriVox recordings of Debian's
# pocketsphinx-testdata in turn, 0.8 s of silence after each and 2 s after every fifth, repeated
# until the note lasts MINUTES (default 5), as 16 kHz WAV, with its reference text.
#   bolo-bench/accuracy/make-librivox-note.sh [MINUTES] [OUT_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
minutes=${1:-5}
out=${2:-$here/../target/long-note}
clips=/usr/share/pocketsphinx/test/data/librivox
[ -f "$clips/transcription" ] || { echo "apt-get install pocketsphinx-testdata" >&2; exit 1; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sox -n -r 16000 -c 1 -b 16 "$work/pause.wav" trim 0 0.8
sox -n -r 16000 -c 1 -b 16 "$work/gap.wav" trim 0 2
mapfile -t names < "$clips/fileids"
: > "$work/list.txt"
: > "$out/librivox-reference-$minutes.txt"
i=0
total=0
limit=$((minutes * 60 * 16000))
while [ "$total" -lt "$limit" ]; do
  name=${names[$((i % ${#names[@]}))]}
  echo "$clips/$name.wav" >> "$work/list.txt"
  grep "($name)" "$clips/transcription" | sed -e 's/<s>//; s/<\/s>.*//' | tr -d '\n' \
    >> "$out/librivox-reference-$minutes.txt"
  samples=$(soxi -s "$clips/$name.wav")
  if [ $((i % 5)) -eq 4 ]; then
    echo "$work/gap.wav" >> "$work/list.txt"; samples=$((samples + 32000))
  else
    echo "$work/pause.wav" >> "$work/list.txt"; samples=$((samples + 12800))
  fi
  total=$((total + samples)); i=$((i + 1))
done
# shellcheck disable=SC2046
sox $(cat "$work/list.txt") "$out/librivox-$minutes.wav"
echo "$out/librivox-$minutes.wav: $(soxi -D "$out/librivox-$minutes.wav") s, $i recordings" >&2
