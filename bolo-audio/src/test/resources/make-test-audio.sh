#!/usr/bin/env bash
# Regenerates the test notes under audio/ and their reference lengths in durations.tsv.
# Needs Debian's flite, sox and ffmpeg: apt-get install -y flite sox ffmpeg
# The reference length of every file is what ffprobe reports as the format's duration; a file
# written to a pipe (no Duration, no total sample count, streaming WAV sizes) takes the length of
# the same audio written to a seekable file, since ffprobe cannot know it either.
set -euo pipefail
cd "$(dirname "$0")"
out=audio
rm -rf "$out" && mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }

flite -voice rms -t "Bolo measures the length of every voice note it is sent." -o "$work/speech.wav"
# A short and a long cut of the same speech, 16 kHz mono.
sox "$work/speech.wav" -r 16000 -c 1 -b 16 "$work/short.wav" trim 0 1.3
sox "$work/speech.wav" -r 16000 -c 1 -b 16 "$work/long.wav" trim 0 3.5

# WAV
cp "$work/short.wav" "$out/pcm16-mono-16k.wav"
sox "$work/short.wav" -b 8 -e unsigned-integer "$out/pcm8-mono-16k.wav"
sox "$work/short.wav" -r 22050 -c 2 -b 16 "$out/pcm16-stereo-22k.wav" trim 0 1.1
# More than 16 bits per sample: ffmpeg writes WAVE_FORMAT_EXTENSIBLE.
ff -i "$work/short.wav" -ar 8000 -c:a pcm_s24le "$out/pcm24-extensible-8k.wav"
ff -i "$work/short.wav" -ar 8000 -c:a pcm_f32le "$out/float32-8k.wav"
# To a pipe ffmpeg cannot seek back, so the RIFF and data sizes stay 0xFFFFFFFF.
ff -i "$work/short.wav" -ar 8000 -f wav - | cat > "$out/streamed-8k.wav"

# MP3
ff -i "$work/long.wav" -c:a libmp3lame -b:a 24k "$out/cbr-info-16k.mp3"
ff -i "$work/long.wav" -c:a libmp3lame -b:a 24k -write_xing 0 "$out/cbr-noxing-16k.mp3"
ff -i "$work/long.wav" -ar 44100 -c:a libmp3lame -q:a 9 "$out/vbr-xing-44k.mp3"
ff -i "$work/long.wav" -ar 44100 -c:a libmp3lame -b:a 32k -write_xing 0 -id3v2_version 0 \
  -write_id3v1 1 -metadata title=note "$out/cbr-noxing-id3v1-44k.mp3"

# M4A (AAC): moov after mdat by default, moved to the front with +faststart.
ff -i "$work/long.wav" -c:a aac -b:a 24k "$out/aac-moov-at-end.m4a"
ff -i "$work/long.wav" -c:a aac -b:a 24k -movflags +faststart "$out/aac-faststart.m4a"
# Fragmented, as Safari's MediaRecorder writes it: no duration in moov, the samples in moof boxes.
ff -i "$work/long.wav" -c:a aac -b:a 24k -movflags frag_keyframe+empty_moov -frag_duration 1000000 \
  "$out/aac-fragmented.m4a"

# OGG
ff -i "$work/long.wav" -c:a libopus -b:a 12k "$out/opus.ogg"
ff -i "$work/long.wav" -c:a libvorbis -q:a 0 "$out/vorbis.ogg"

# FLAC: seekable output has the total sample count in STREAMINFO.
ff -i "$work/short.wav" -ar 8000 -c:a flac "$out/flac-8k.flac"
# To a pipe ffmpeg cannot write the total back: STREAMINFO says 0 samples ("unknown").
ff -i "$work/long.wav" -c:a flac -f flac - | cat > "$out/flac-streamed-16k.flac"

# WebM/Opus: a seekable file has Segment Info Duration; a pipe, like a browser's MediaRecorder,
# has none.
ff -i "$work/long.wav" -c:a libopus -b:a 12k "$out/opus-duration.webm"
ff -i "$work/long.wav" -c:a libopus -b:a 12k -f webm - | cat > "$out/opus-no-duration.webm"

# AAC in ADTS frames.
ff -i "$work/long.wav" -c:a aac -b:a 24k -f adts "$out/aac-adts.aac"

# Reference lengths: ffprobe's format duration. Where ffprobe only estimates it from the bit rate
# (MP3 without a Xing header, ADTS) it is the end of the last packet instead, which ffprobe reads
# from the frames. The pipe outputs take the seekable twin's length.
probe() {
  if ffprobe -v warning "$1" 2>&1 | grep -q 'Estimating duration from bitrate'; then
    ffprobe -v error -select_streams a:0 -show_entries packet=pts_time,duration_time -of csv=p=0 "$1" \
      | tail -1 | awk -F, '{ printf "%.6f", $1 + $2 }'
  else
    ffprobe -v error -show_entries format=duration -of csv=p=0 "$1"
  fi
}
{
  printf 'file\tffprobe_seconds\n'
  for f in "$out"/*; do
    name=$(basename "$f")
    case "$name" in
      streamed-8k.wav) ref="$out/float32-8k.wav" ;;
      opus-no-duration.webm) ref="$out/opus-duration.webm" ;;
      flac-streamed-16k.flac) ref="$work/long.wav" ;;
      *) ref="$f" ;;
    esac
    printf '%s\t%s\n' "$name" "$(probe "$ref")"
  done
} > durations.tsv
du -ch "$out" | tail -1
