# Sourced by ./mvnw and ./bolo: makes JAVA_HOME point at a JDK 21 or newer.
# Bolo's server and build need Java 21+, while many machines default to 17; rather than fail,
# keep a JAVA_HOME that is new enough, else pick the newest JDK found in the usual places.

bolo_java_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}

bolo_find_jdk() {
  if [ -n "${JAVA_HOME-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    major=$(bolo_java_major "$JAVA_HOME")
    if [ "${major:-0}" -ge 21 ]; then return 0; fi
  fi
  best=""
  best_major=0
  # ./mvnw runs with globbing off (set -f); the search below needs it, and the caller gets its
  # own setting back.
  case $- in *f*) glob_was_off=1 ;; *) glob_was_off=0 ;; esac
  set +f
  for home in /usr/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/*; do
    [ -x "$home/bin/javac" ] || continue
    major=$(bolo_java_major "$home")
    if [ "${major:-0}" -gt "$best_major" ]; then
      best=$home
      best_major=$major
    fi
  done
  if [ "$glob_was_off" = 1 ]; then set -f; fi
  if [ "$best_major" -ge 21 ]; then
    JAVA_HOME=$best
    export JAVA_HOME
  else
    echo "Bolo needs a JDK 21 or newer; set JAVA_HOME to one (found none under /usr/lib/jvm)." >&2
    exit 1
  fi
}

bolo_find_jdk
