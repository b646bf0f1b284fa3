#!/usr/bin/env bash
# Runs the test command with CPU hogs beside it: processes that each burn a core, as the test
# kit's CpuHogs starts inside a test, so the whole suite competes for the CPU as it would on a
# busy machine. No test may depend on an idle one (docs/development.md, "Tests and time").
#
#   scripts/test-under-load.sh                       # two hogs beside ./mvnw verify
#   BOLO_CPU_HOGS=3 scripts/test-under-load.sh       # three
#   scripts/test-under-load.sh -pl bolo-client -am test   # other arguments go to ./mvnw instead
#
# The hogs stop when the command ends, fails or is interrupted; the exit code is the command's.
set -euo pipefail
cd "$(dirname "$0")/.."

hogs=${BOLO_CPU_HOGS:-2}
if ! [[ $hogs =~ ^[0-9]+$ ]]; then
  echo "BOLO_CPU_HOGS must be a whole number: $hogs" >&2
  exit 2
fi
args=("$@")
if [ ${#args[@]} -eq 0 ]; then
  args=(verify)
fi

pids=()
stop_hogs() {
  if [ ${#pids[@]} -gt 0 ]; then
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM

for ((i = 0; i < hogs; i++)); do
  # The same loop as CpuHogs: one shell burning one core, at the suite's own priority.
  sh -c 'while :; do :; done' &
  pids+=($!)
done
echo "== $hogs CPU hog(s) running beside ./mvnw ${args[*]} (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2

status=0
started=$SECONDS
./mvnw "${args[@]}" || status=$?
echo "== ./mvnw ${args[*]} beside $hogs CPU hog(s): exit $status after $((SECONDS - started)) s (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
exit "$status"
