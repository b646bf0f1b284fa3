#!/usr/bin/env bash
# Synthesises Bolo's sample voice notes: short everyday English sentences spoken by Debian's
# flite (voice "rms"), converted to 16 kHz mono 16-bit PCM WAV, each with its reference text.
# They are the offline engine's accuracy test data and the demo's sample notes.
#
#   apt-get install -y flite sox
#   samples/make-samples.sh
#
# Writes samples/notes/NAME.wav and samples/notes/NAME.txt (lower case, no punctuation).
set -euo pipefail
cd "$(dirname "$0")"

out=notes
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

note() {
  local name=$1 text=$2
  flite -voice rms -t "$text" -o "$tmp/$name.wav"
  sox "$tmp/$name.wav" -r 16000 -c 1 -b 16 "$out/$name.wav"
  printf '%s\n' "$text" >"$out/$name.txt"
}

note groceries "remind me to buy milk and eggs on the way home"
note dentist "call the dentist tomorrow morning to move my appointment"
note school "pick up the kids from school at four"
note report "send the report to the team before friday"
note dinner "book a table for two at the italian restaurant"
note plants "water the plants and feed the cat before you leave"
