#!/usr/bin/env bash
# Makes the container image's start-up cache (JDK 25's AOT cache, JEP 483/514/515) from the image
# itself: unpacks a Jib tarball's layers, and runs the image's own Java runtime on the image's own
# jars with the training run (dev.bolo.cli.AotTraining: a gateway on a stand-in provider taking
# notes through the routes phones and SDKs use). The cache holds the request path's classes loaded
# and linked and its methods' profiles, so a new container serves at speed sooner.
#
#   deploy/image/train-aot.sh --image TAR --out FILE [--log FILE] [--notes N]
#
# A cache is used only by the runtime that made it and on the same jars (same names, sizes and
# times, in the same order; their directory may differ, as the JVM allows): the runtime and jars
# here are the image's, and the image that carries the cache is built from the same inputs. The
# JVM options are the image's: its entrypoint's flags and its JDK_JAVA_OPTIONS. Needs bash, GNU tar
# and gzip; no root.
set -euo pipefail

image=""
out=""
notes=1500
log=""
while [ $# -gt 0 ]; do
  case $1 in
    --image) image=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --notes) notes=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    *) sed -n '2,14p' "$0" >&2; exit 2 ;;
  esac
done
[ -f "$image" ] && [ -n "$out" ] || { sed -n '2,14p' "$0" >&2; exit 2; }

mkdir -p "$(dirname "$out")"
# The unpacked image goes beside the cache's folder, not in it: the folder becomes an image layer.
work=$(mktemp -d "$(dirname "$(dirname "$out")")/aot-training.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/archive" "$work/root"
tar -xf "$image" -C "$work/archive"
# The manifest names the layers in order, lowest first; the config holds the image's environment.
manifest=$(cat "$work/archive/manifest.json")
config=$(cat "$work/archive/$(sed -n 's/.*"Config":"\([^"]*\)".*/\1/p' <<<"$manifest")")
for layer in $(grep -o '"[^"]*\.tar\.gz"' <<<"${manifest#*\"Layers\"}" | tr -d '"'); do
  tar --warning=no-unknown-keyword -xzf "$work/archive/$layer" -C "$work/root"
done
rm -rf "$work/archive"

# A variable of the image's environment ("NAME=value" in Env), empty when the image sets none.
env_value() { { grep -o "\"$1=[^\"]*\"" <<<"$config" || true; } | head -1 | sed "s/^\"$1=//; s/\"$//"; }
java_home=$(env_value JAVA_HOME)
java_home=${java_home:-/opt/java/openjdk}
java="$work/root$java_home/bin/java"
[ -x "$java" ] || { echo "train-aot: no Java runtime at $java_home in $image" >&2; exit 1; }
classpath_file="$work/root/app/jib-classpath-file"
[ -f "$classpath_file" ] || { echo "train-aot: no /app/jib-classpath-file in $image" >&2; exit 1; }
classpath=$(sed "s#/app/#$work/root/app/#g" "$classpath_file")
options=$(env_value JDK_JAVA_OPTIONS)

rm -f "$out"
log=${log:-$out.log}
started=$(date +%s)
# JDK_JAVA_OPTIONS from the image as the container's JVM gets it; not the builder's.
if ! env -u JAVA_TOOL_OPTIONS -u _JAVA_OPTIONS JDK_JAVA_OPTIONS="$options" "$java" \
    -XX:AOTCacheOutput="$out" --enable-native-access=ALL-UNNAMED -Djava.io.tmpdir="$work" \
    -cp "$classpath" dev.bolo.cli.AotTraining "$notes" >"$log" 2>&1; then
  tail -20 "$log" >&2
  echo "train-aot: the training run failed (whole log: $log)" >&2
  exit 1
fi
# The cache must load on the runtime and jars it was made for: -XX:AOTMode=on stops if it does not.
if ! env -u JAVA_TOOL_OPTIONS -u _JAVA_OPTIONS JDK_JAVA_OPTIONS="$options" "$java" \
    -XX:AOTCache="$out" -XX:AOTMode=on \
    --enable-native-access=ALL-UNNAMED -cp "$classpath" -version >>"$log" 2>&1; then
  tail -5 "$log" >&2
  echo "train-aot: the cache made does not load (whole log: $log)" >&2
  exit 1
fi
echo "train-aot: $out ($(du -h "$out" | cut -f1), $notes notes, $(($(date +%s) - started)) s)"
