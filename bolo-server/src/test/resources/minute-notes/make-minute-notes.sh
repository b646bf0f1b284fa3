#!/usr/bin/env bash
# Regenerates the minute-long notes here: 1.3 s of speech, then silence, to 60 s, in every
# compressed container bolo-audio measures. Tests patch their headers to claim one second
# (LyingNotes); silence keeps the files small and the offline engine's work short. The WAV twin,
# 1.9 MB, is built by the tests from the same 1.3 s of speech (bolo-audio's pcm16-mono-16k.wav).
# Needs Debian's flite, sox and ffmpeg: apt-get install -y flite sox ffmpeg
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }

flite -voice rms -t "Bolo measures the length of every voice note it is sent." -o "$work/speech.wav"
sox "$work/speech.wav" -r 16000 -c 1 -b 16 "$work/short.wav" trim 0 1.3
ff -i "$work/short.wav" -af apad=whole_dur=60 -ar 16000 -ac 1 "$work/minute.wav"

ff -i "$work/minute.wav" -c:a libmp3lame -b:a 8k minute.mp3
ff -i "$work/minute.wav" -c:a aac -b:a 8k minute.m4a
ff -i "$work/minute.wav" -c:a aac -b:a 8k -f adts minute.aac
ff -i "$work/minute.wav" -c:a libopus -b:a 6k minute.ogg
# Clusters of at most a second: the last one's timecode is one of the lengths a WebM says.
ff -i "$work/minute.wav" -c:a libopus -b:a 6k -cluster_time_limit 1000 minute.webm
ff -i "$work/minute.wav" -ar 8000 -c:a flac minute.flac
