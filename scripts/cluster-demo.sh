#!/usr/bin/env bash
# Three Bolo instances behind nginx (docs/nginx/bolo.conf), sharing one Redis (de-duplication) and
# one PostgreSQL ledger, all on loopback and all stopped again at the end. The engine is the
# OpenAI-compatible one pointed at scripts/fake-provider.py, which counts its calls.
#
# 1. The same note is sent six times through nginx: four copies at once, then two resends.
#    Expected: six identical texts, one provider call, the note's seconds charged once.
# 2. Resumable uploads through nginx (scripts/cluster-demo-resumable.py): a tus upload created with
#    part of a note and appended in several PATCHes, and an IETF draft upload, each request on a
#    new connection. Expected: nginx's access log shows every request of an upload reaching the
#    one instance whose spool holds its bytes; an append sent straight to another instance is 421
#    wrong_instance and stores nothing; each transcript is of the whole note, one provider call each.
#
# Exits non-zero when any of that does not hold. Needs: a JDK (./bolo finds one), python3, curl, and
# the Debian packages redis-server, nginx and postgresql, installed with apt-get when missing (needs
# root; INSTALL=0 fails instead). Run as root, PostgreSQL runs as the postgres user. KEEP=1 keeps
# the work directory with every log. BOLO_CLI names another command to run instead of ./bolo (the
# build's test runs the jar it just built).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
instances=3
bolo=${BOLO_CLI:-$root/bolo}

# --- tools -----------------------------------------------------------------------------------

install_if_missing() { # command-or-file package
  if ! command -v "$1" >/dev/null 2>&1 && ! ls $1 >/dev/null 2>&1; then
    if [ "${INSTALL:-1}" = 0 ]; then
      echo "!! $1 is missing: apt-get install $2 (.ci/run installs it)" >&2
      exit 1
    fi
    echo "== installing $2"
    apt-get install -y "$2" >/dev/null
  fi
}
install_if_missing redis-server redis-server
install_if_missing redis-cli redis-tools
install_if_missing nginx nginx
install_if_missing curl curl
install_if_missing python3 python3
install_if_missing '/usr/lib/postgresql/*/bin/initdb' postgresql
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_ports() { # count
  python3 - "$1" <<'PY'
import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))
for s in sockets:
    s.close()
PY
}

wait_until() { # seconds description command...
  local seconds=$1 what=$2
  shift 2
  for _ in $(seq $((seconds * 10))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "!! not within ${seconds}s: $what" >&2
  return 1
}

# --- clean-up: stop exactly what this script started ---------------------------------------------

work=$(mktemp -d /tmp/bolo-cluster.XXXXXX)
chmod 755 "$work"
bolo_pids=()
provider_pid=""
redis_started=""
postgres_started=""
nginx_started=""

cleanup() {
  set +e
  if [ -n "$nginx_started" ]; then
    nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" -s stop
  fi
  for pid in "${bolo_pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${bolo_pids[@]}"; do wait "$pid" 2>/dev/null; done
  [ -n "$provider_pid" ] && kill "$provider_pid" 2>/dev/null && wait "$provider_pid" 2>/dev/null
  [ -n "$redis_started" ] && kill "$(cat "$work/redis.pid")" 2>/dev/null
  [ -n "$postgres_started" ] && as_postgres "$pg_bin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null
  if [ "${KEEP:-0}" = 1 ]; then echo "== kept $work"; else rm -rf "$work"; fi
  echo "== stopped everything"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

read -r lb_port provider_port redis_port pg_port p1 p2 p3 <<<"$(free_ports 7)"
instance_ports=("$p1" "$p2" "$p3")

# --- shared services ---------------------------------------------------------------------------

echo "== fake provider on 127.0.0.1:$provider_port (answers after 2 s)"
python3 "$root/scripts/fake-provider.py" "$provider_port" 2 &
provider_pid=$!
wait_until 10 "fake provider" curl -fsS "http://127.0.0.1:$provider_port/calls"

echo "== redis-server on 127.0.0.1:$redis_port"
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
  --dir "$work" --pidfile "$work/redis.pid" --logfile "$work/redis.log"
redis_started=1
wait_until 10 "redis" redis-cli -p "$redis_port" ping

echo "== PostgreSQL ($pg_bin) on 127.0.0.1:$pg_port, database bolo"
mkdir "$work/pg"
[ "$(id -u)" = 0 ] && chown postgres "$work/pg"
as_postgres "$pg_bin/initdb" -D "$work/pg" -A trust -U postgres >"$work/initdb.log"
as_postgres "$pg_bin/pg_ctl" -D "$work/pg" -l "$work/pg/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $work/pg" start >/dev/null
postgres_started=1
as_postgres "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres bolo

# --- gateway instances -------------------------------------------------------------------------

echo "== building ./bolo (once, if needed)"
"$bolo" --help >/dev/null

token=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
export BOLO_ENGINE=openai
export BOLO_OPENAI_BASE_URL="http://127.0.0.1:$provider_port/v1"
export BOLO_OPENAI_API_KEY=sk-demo
export BOLO_STORE=redis
export BOLO_REDIS_URL="redis://127.0.0.1:$redis_port"
export BOLO_DATABASE_URL="jdbc:postgresql://127.0.0.1:$pg_port/bolo?user=postgres"
export BOLO_DEVICE_TOKENS="demo-phone=$token"
export BOLO_IDEMPOTENCY_TTL=10m
export BOLO_TRIAL_SECONDS=600
export BOLO_JAVA_OPTS="-Xmx256m -XX:TieredStopAtLevel=1"

for i in 0 1 2; do
  port=${instance_ports[$i]}
  echo "== bolo serve #$((i + 1)) on 127.0.0.1:$port (spool under its own data dir)"
  BOLO_PORT=$port BOLO_DATA_DIR="$work/instance-$((i + 1))" \
    "$bolo" serve >"$work/instance-$((i + 1)).log" 2>&1 &
  bolo_pids+=("$!")
done
for i in 0 1 2; do
  if ! wait_until 90 "instance $((i + 1)) ready" \
    curl -fsS "http://127.0.0.1:${instance_ports[$i]}/readyz"; then
    tail -n 30 "$work/instance-$((i + 1)).log" >&2
    exit 1
  fi
done
echo "   /readyz of #1: $(curl -fsS "http://127.0.0.1:$p1/readyz")"

# --- nginx: the documented example with this run's ports -------------------------------------------

mkdir -p "$work/nginx/tmp"
chmod 1777 "$work/nginx/tmp"
sed -e "s/127\.0\.0\.1:8080;/127.0.0.1:$lb_port;/" \
  -e "s/127\.0\.0\.1:8081 /127.0.0.1:$p1 /" \
  -e "s/127\.0\.0\.1:8082 /127.0.0.1:$p2 /" \
  -e "s/127\.0\.0\.1:8083 /127.0.0.1:$p3 /" \
  "$root/docs/nginx/bolo.conf" >"$work/nginx/bolo.conf"
if grep -qE '127\.0\.0\.1:808[0-3]' "$work/nginx/bolo.conf"; then
  echo "!! docs/nginx/bolo.conf no longer has the ports 8080-8083 this script replaces" >&2
  exit 1
fi
# The recipe printed in docs/running-several-instances.md must be this file, comments aside.
directives() { grep -vE '^[[:space:]]*(#|$)'; }
if ! diff <(directives <"$root/docs/nginx/bolo.conf") \
  <(awk '/^```nginx$/ {on = 1; next} /^```$/ {on = 0} on' \
    "$root/docs/running-several-instances.md" | directives) >"$work/nginx/docs.diff"; then
  echo "!! the nginx block in docs/running-several-instances.md differs from docs/nginx/bolo.conf:" >&2
  cat "$work/nginx/docs.diff" >&2
  exit 1
fi
cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events { worker_connections 256; }
http {
    log_format bolo '\$http_x_bolo_request_id \$upstream_addr \$status \$request_method \$uri';
    access_log access.log bolo;
    client_body_temp_path tmp/body;
    proxy_temp_path tmp/proxy;
    fastcgi_temp_path tmp/fastcgi;
    uwsgi_temp_path tmp/uwsgi;
    scgi_temp_path tmp/scgi;
    include bolo.conf;
}
EOF
echo "== nginx on 127.0.0.1:$lb_port with docs/nginx/bolo.conf"
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" -t -q
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log"
nginx_started=1
wait_until 10 "nginx" curl -fsS "http://127.0.0.1:$lb_port/healthz"

# --- the same note, six times, through nginx -----------------------------------------------------

python3 - "$work/note.wav" <<'PY'
import math, struct, sys, wave
with wave.open(sys.argv[1], "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
    w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * n / 16000)))
                           for n in range(32000)))
PY

send() { # copy-number
  curl -sS -o "$work/reply-$1.json" -D "$work/headers-$1.txt" \
    -H "Authorization: Bearer $token" -H "X-Bolo-Request-Id: copy-$1" \
    -F "audio=@$work/note.wav;type=audio/wav" "http://127.0.0.1:$lb_port/v1/transcriptions"
}

echo "== 4 copies of one 2-second note at once, then 2 resends, all through nginx"
copies=()
for n in 1 2 3 4; do
  send "$n" &
  copies+=("$!")
done
for pid in "${copies[@]}"; do wait "$pid"; done
send 5
send 6

for n in 1 2 3 4 5 6; do
  read -r _ upstream status _ < <(grep "^copy-$n " "$work/nginx/access.log")
  instance="?"
  for i in 0 1 2; do
    [ "$upstream" = "127.0.0.1:${instance_ports[$i]}" ] && instance="#$((i + 1))"
  done
  python3 - "$work/reply-$n.json" "$n" "$instance" "$status" <<'PY'
import json, sys
reply = json.load(open(sys.argv[1]))
print("   copy-%s -> instance %s  HTTP %s  deduplicated=%-5s text=%r" % (
    sys.argv[2], sys.argv[3], sys.argv[4], str(reply.get("deduplicated")).lower(),
    reply.get("text")))
PY
done

texts=$(for n in 1 2 3 4 5 6; do python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["text"])' "$work/reply-$n.json"; done | sort -u | wc -l)
calls=$(curl -fsS "http://127.0.0.1:$provider_port/calls" | python3 -c 'import json,sys; print(json.load(sys.stdin)["calls"])')
echo "== distinct texts: $texts; provider calls: $calls; instances used: $(awk '{print $2}' "$work/nginx/access.log" | sort -u | wc -l)"
echo "== ./bolo usage (the shared ledger)"
"$bolo" usage
if [ "$texts" != 1 ] || [ "$calls" != 1 ]; then
  echo "!! expected one text from one provider call" >&2
  exit 1
fi
echo "== OK: one transcription for six copies across $instances instances"

python3 "$root/scripts/cluster-demo-resumable.py" "$work" "$lb_port" "$provider_port" "$token" \
  "${instance_ports[@]}"
echo "== OK: the whole demo in ${SECONDS}s"
