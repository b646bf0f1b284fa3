#!/usr/bin/env bash
# Installs what recognize.mjs needs from the npm registry: onnxruntime-node (its CPU library ships in
# the package; --ignore-scripts skips the install script that fetches GPU libraries from NuGet) and
# llama-tokenizer-js, then unpacks the Moonshine tiny weights from @moonshine-ai/moonshine-js.
set -euo pipefail
cd "$(dirname "$0")"
npm install --no-audit --no-fund --ignore-scripts --loglevel=error
rm -rf model && mkdir model
(cd model && npm pack --silent @moonshine-ai/moonshine-js@0.1.29 >/dev/null && tar xzf moonshine-ai-moonshine-js-0.1.29.tgz && rm moonshine-ai-moonshine-js-0.1.29.tgz)
echo "ready: $(ls model/package/dist/model/tiny/quantized)"
