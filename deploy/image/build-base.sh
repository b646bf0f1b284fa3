#!/usr/bin/env bash
# Builds Bolo's container base image as a `docker save`-style tarball, with no container engine and
# no registry: a jlinked Java runtime (the modules in java-modules, from the JDK that runs this) and
# the few Debian files it needs (glibc and the C++ runtime from the pinned packages in
# debian-packages.lock), a passwd
# entry for the non-root user `bolo` (65532), the data directory and a health check.
#
#   deploy/image/build-base.sh --out FILE [--jdk DIR] [--work DIR] [--for BASE]
#   deploy/image/build-base.sh --update-lock      # re-pin the Debian packages to today's versions
#
# Reproducible: the same JDK build and the same pinned packages give the same bytes (every file
# time is SOURCE_DATE_EPOCH, default 1; owners are numeric; entries are sorted; gzip stores no name
# or time). Needs bash, GNU tar, gzip, sha256sum, apt-get and dpkg-deb (Debian or Ubuntu), and no
# root: ownership is written into the tarball, not onto the disk.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lock="$here/debian-packages.lock"
epoch=${SOURCE_DATE_EPOCH:-1}
user_id=65532
jdk=${JAVA_HOME:-}
out=""
work=""
for_base=""

usage() {
  sed -n '2,13p' "$0" >&2
  exit 2
}

pinned() { grep -v '^[[:space:]]*\(#\|$\)' "$lock"; }

update_lock() {
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  header=$(grep '^#' "$lock")
  body=$(pinned | while read -r name _ _; do
    (cd "$tmp" && apt-get download -q -o APT::Sandbox::User="$(id -un)" "$name" >/dev/null)
    file=$(ls "$tmp/${name}"_*.deb)
    printf '%s %s %s\n' "$name" "$(dpkg-deb -f "$file" Version)" "$(sha256sum "$file" | cut -d' ' -f1)"
  done)
  printf '%s\n%s\n' "$header" "$body" >"$lock"
  cat "$lock"
}

while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --jdk) jdk=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --for) for_base=$2; shift 2 ;;
    --update-lock) update_lock; exit 0 ;;
    *) usage ;;
  esac
done
[ -n "$out" ] || usage
# Maven passes the base the image is built from: one from a registry needs nothing built here.
if [ -n "$for_base" ] && [ "$for_base" != "tar://$out" ]; then
  echo "build-base: the image is built from $for_base; no local base needed"
  exit 0
fi
[ -x "$jdk/bin/jlink" ] || { echo "build-base: no jlink in '$jdk' (set --jdk or JAVA_HOME to a JDK)" >&2; exit 1; }
for tool in apt-get dpkg-deb tar gzip sha256sum; do
  command -v "$tool" >/dev/null || { echo "build-base: needs $tool (a Debian or Ubuntu builder)" >&2; exit 1; }
done

# The inputs that decide the bytes; when they have not changed since the last build, keep it.
fingerprint=$(cat "$0" "$lock" "$here/java-modules" "$jdk/release" | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.inputs" 2>/dev/null)" = "$fingerprint" ]; then
  echo "build-base: $out is up to date"
  exit 0
fi

work=${work:-$(dirname "$out")/image-base-work}
rm -rf "$work"
mkdir -p "$work/debs" "$work/debian" "$work/java/opt/java" "$work/bolo" "$work/image/layers"
umask 022

# --- Debian: the pinned packages, checked against their pinned hashes. --------------------------
pinned | while read -r name version sha; do
  if ! (cd "$work/debs" && apt-get download -q -o APT::Sandbox::User="$(id -un)" "$name=$version" >/dev/null); then
    echo "build-base: cannot fetch $name=$version; Debian may have replaced it: run $0 --update-lock" >&2
    exit 1
  fi
  file=$(ls "$work/debs/${name}"_*.deb)
  actual=$(sha256sum "$file" | cut -d' ' -f1)
  if [ "$actual" != "$sha" ]; then
    echo "build-base: $file has SHA-256 $actual, the lock says $sha" >&2
    exit 1
  fi
done

extract() { # package, then the paths to keep from it
  pkg=$1; shift
  tmp="$work/x-$pkg"
  dpkg-deb -x "$work/debs/${pkg}"_*.deb "$tmp"
  for path in "$@" "usr/share/doc/$pkg/copyright"; do
    # GCC's runtime packages keep their copyright in gcc-12-base, extracted on its own.
    [ -e "$tmp/$path" ] || [ "$path" != "usr/share/doc/$pkg/copyright" ] || continue
    mkdir -p "$work/debian/$(dirname "$path")"
    cp -a "$tmp/$path" "$work/debian/$path"
  done
  # Image scanners (Trivy, Syft) read installed packages from here, as in distroless images.
  mkdir -p "$work/debian/var/lib/dpkg/status.d"
  { dpkg-deb -f "$work/debs/${pkg}"_*.deb; echo "Status: install ok installed"; } \
    >"$work/debian/var/lib/dpkg/status.d/$pkg"
  rm -rf "$tmp"
}
# glibc: the loader and the libraries; not its iconv modules (gconv, 8 MB: Java converts
# charsets itself) nor its translations.
extract libc6 lib64 lib/x86_64-linux-gnu
# The C.UTF-8 locale, so LANG=C.UTF-8 gives Java UTF-8 file names (sun.jnu.encoding).
extract libc-bin usr/lib/locale/C.utf8
extract base-files usr/lib/os-release etc/os-release
# The C++ runtime that FFmpeg's Java bindings (JavaCPP) link against: the offline engine decodes
# every phone format with them.
extract gcc-12-base
extract libgcc-s1 lib/x86_64-linux-gnu/libgcc_s.so.1
extract libstdc++6 usr/lib/x86_64-linux-gnu/libstdc++.so.6 usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30

# --- Java: a jlinked runtime with only the modules the application uses. ------------------------
modules=$(grep -v '^[[:space:]]*\(#\|$\)' "$here/java-modules" | paste -sd, -)
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --compress=zip-6 --output "$work/java/opt/java/openjdk"
java_version=$(sed -n 's/^IMPLEMENTOR_VERSION="\(.*\)"/\1/p' "$jdk/release")

# --- Bolo: its user, its data directory (a volume), a writable /tmp. -----------------------------
mkdir -p "$work/bolo/etc" "$work/bolo/tmp" "$work/bolo/var/lib/bolo"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nbolo:x:%s:%s:Bolo:/var/lib/bolo:/usr/sbin/nologin\n' \
  "$user_id" "$user_id" >"$work/bolo/etc/passwd"
printf 'root:x:0:\nbolo:x:%s:\n' "$user_id" >"$work/bolo/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$work/bolo/etc/nsswitch.conf"
# sqlite-jdbc unpacks its native library into java.io.tmpdir.
chmod 1777 "$work/bolo/tmp"
chmod 0700 "$work/bolo/var/lib/bolo"

# --- Layers and the image. -----------------------------------------------------------------------
tar_args=(--create --sort=name --format=posix
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime
  --mtime="@$epoch" --numeric-owner)
layer() { # name, directory, then extra tar arguments
  name=$1 dir=$2; shift 2
  tar "${tar_args[@]}" --owner=0 --group=0 --file="$work/$name.tar" --directory="$dir" "$@" .
}
layer debian "$work/debian"
layer java "$work/java"
# The data directory belongs to bolo, so a new named volume starts out writable by it.
layer bolo "$work/bolo" --exclude=./var/lib/bolo
tar "${tar_args[@]/--create/--append}" --owner="$user_id" --group="$user_id" \
  --file="$work/bolo.tar" --directory="$work/bolo" --no-recursion ./var/lib/bolo

diff_ids=()
layer_files=()
for name in debian java bolo; do
  diff_ids+=("sha256:$(sha256sum "$work/$name.tar" | cut -d' ' -f1)")
  gzip -n -6 <"$work/$name.tar" >"$work/image/layers/$name.tar.gz"
  layer_files+=("layers/$name.tar.gz")
done

quoted() { printf '"%s" ' "$@" | sed 's/" "/","/g; s/ $//'; }
packages=$(pinned | awk '{printf "%s%s=%s", (NR > 1 ? " " : ""), $1, $2}')
seconds=1000000000
cat >"$work/image/config.json" <<JSON
{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z",
"config":{
 "User":"$user_id:$user_id",
 "Env":["PATH=/opt/java/openjdk/bin:/usr/bin:/bin","JAVA_HOME=/opt/java/openjdk","LANG=C.UTF-8"],
 "WorkingDir":"/var/lib/bolo",
 "Volumes":{"/var/lib/bolo":{}},
 "Healthcheck":{"Test":["CMD","/opt/java/openjdk/bin/java","-Xshare:auto","-XX:TieredStopAtLevel=1","-XX:+UseSerialGC","-Xmx16m","-cp","/app/classpath/bolo-cli.jar","dev.bolo.cli.HealthProbe"],
  "Interval":$((30 * seconds)),"Timeout":$((10 * seconds)),"StartPeriod":$((120 * seconds)),"Retries":3},
 "Labels":{"dev.bolo.image.base.java":"$java_version","dev.bolo.image.base.debian-packages":"$packages"}},
"rootfs":{"type":"layers","diff_ids":[$(quoted "${diff_ids[@]}")]},
"history":[{"created":"1970-01-01T00:00:00Z","created_by":"build-base.sh: glibc from $packages"},
 {"created":"1970-01-01T00:00:00Z","created_by":"build-base.sh: jlink $java_version"},
 {"created":"1970-01-01T00:00:00Z","created_by":"build-base.sh: user bolo ($user_id), /var/lib/bolo, /tmp"}]}
JSON
config="$(sha256sum "$work/image/config.json" | cut -d' ' -f1).json"
mv "$work/image/config.json" "$work/image/$config"
printf '[{"Config":"%s","RepoTags":["bolo-base:local"],"Layers":[%s]}]\n' \
  "$config" "$(quoted "${layer_files[@]}")" >"$work/image/manifest.json"

mkdir -p "$(dirname "$out")"
# Named entries, no "./": Jib refuses to unpack a "./" entry.
tar "${tar_args[@]}" --owner=0 --group=0 --file="$out.tmp" --directory="$work/image" \
  manifest.json "$config" layers
mv "$out.tmp" "$out"
echo "$fingerprint" >"$out.inputs"
rm -rf "$work"
echo "build-base: $out ($(du -h "$out" | cut -f1); $java_version; $packages)"
