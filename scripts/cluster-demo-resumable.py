#!/usr/bin/env python3
"""The resumable part of scripts/cluster-demo.sh: uploads in pieces through nginx, checked.

Sends one note as a tus upload (created with its first part, then appended in several PATCHes,
each on a new connection) and another as an IETF draft upload (POST with the first part, then
PATCHes, the last one answering with the transcript), all through nginx. Checks, from nginx's
access log, that every request of an upload reached the one instance whose spool holds its bytes;
that an append sent straight to another instance is refused 421 wrong_instance and stores nothing;
that each transcript is of the whole note (the gateway's hash and length, and the provider's) and
cost one provider call. Exits non-zero, naming what failed, at the first check that fails.

Usage: cluster-demo-resumable.py WORK_DIR LB_PORT PROVIDER_PORT TOKEN PORT1 PORT2 PORT3
(WORK_DIR holds instance-N/ data dirs and nginx/access.log, as cluster-demo.sh lays them out.)
"""
import base64
import glob
import hashlib
import http.client
import json
import math
import os
import struct
import sys
import time
import wave

work, lb_port, provider_port, token = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
instance_ports = [int(p) for p in sys.argv[5:]]


def check(ok, what):
    """Prints the check; the first that fails ends the demo with its description."""
    print("   %s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        raise SystemExit("!! " + what)


def request(port, method, path, request_id, headers=None, body=None):
    """One request on a new connection, as a phone on a flaky link makes them."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        all_headers = {"Authorization": "Bearer " + token, "X-Bolo-Request-Id": request_id}
        all_headers.update(headers or {})
        connection.request(method, path, body=body, headers=all_headers)
        response = connection.getresponse()
        data = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data
    finally:
        connection.close()


def provider_calls():
    connection = http.client.HTTPConnection("127.0.0.1", provider_port, timeout=10)
    connection.request("GET", "/calls")
    calls = json.loads(connection.getresponse().read())["calls"]
    connection.close()
    return calls


def note(path, seconds, hertz):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"".join(
            struct.pack("<h", int(8000 * math.sin(2 * math.pi * hertz * n / 16000)))
            for n in range(16000 * seconds)))
    with open(path, "rb") as f:
        return f.read()


def holder_of(upload_id):
    """The instance (1-based) whose spool holds the upload's bytes; None when none does."""
    found = glob.glob(os.path.join(work, "instance-*", "spool", "slot-*", "resumable",
                                   upload_id + ".part"))
    if len(found) > 1:
        check(False, "the bytes of upload %s are in one spool, not %d: %s" % (upload_id, len(found),
                                                                             found))
    if not found:
        return None, None
    instance = int(found[0].split(os.sep + "instance-")[1].split(os.sep)[0])
    return instance, found[0]


def upstreams(prefix):
    """Which instance nginx sent each request whose X-Bolo-Request-Id starts with prefix to."""
    by_port = {"127.0.0.1:%d" % port: i + 1 for i, port in enumerate(instance_ports)}
    seen = []
    with open(os.path.join(work, "nginx", "access.log")) as log:
        for line in log:
            fields = line.split()
            if len(fields) >= 5 and fields[0].startswith(prefix):
                seen.append((fields[0], fields[3], by_port.get(fields[1], fields[1]), fields[2]))
    return seen


def routed_to_holder(prefix, holder, expected_requests):
    time.sleep(0.2)  # nginx writes the access log line once the answer is sent
    seen = upstreams(prefix)
    for request_id, method, instance, status in seen:
        print("     %-16s %-5s -> instance #%s  HTTP %s" % (request_id, method, instance, status))
    check(len(seen) == expected_requests,
          "nginx's access log has all %d requests of the upload (%d)" % (expected_requests,
                                                                        len(seen)))
    check({instance for _, _, instance, _ in seen} == {holder},
          "every request of the upload reached instance #%d, which holds its bytes" % holder)


def b64(text):
    return base64.b64encode(text.encode()).decode()


TUS = {"Tus-Resumable": "1.0.0"}
OCTETS = {"Content-Type": "application/offset+octet-stream"}

# --- tus 1.0 through nginx ---------------------------------------------------------------------

audio = note(os.path.join(work, "long-note.wav"), 5, 330)
sha = hashlib.sha256(audio).hexdigest()
calls_before = provider_calls()
print("== tus upload of a %d-byte note through nginx: created with its first 20000 bytes, then"
      " PATCHes of 40000, each on a new connection" % len(audio))
status, headers, body = request(
    lb_port, "POST", "/v1/uploads", "tus-create",
    dict(TUS, **OCTETS, **{"Upload-Length": str(len(audio)),
                            "Upload-Metadata": "language %s,sha256 %s" % (b64("en"), b64(sha))}),
    audio[:20000])
check(status == 201 and headers.get("upload-offset") == "20000",
      "creation with the first part: HTTP %d, Upload-Offset %s" % (status,
                                                                  headers.get("upload-offset")))
location = headers["location"]
upload_id = location.rsplit("/", 1)[1]
holder, spool_file = holder_of(upload_id)
check(holder is not None, "upload %s has its bytes in the spool of instance #%s, and no other"
      % (upload_id, holder))

offset, patches = 20000, 0
while offset < len(audio):
    piece = audio[offset:offset + 40000]
    patches += 1
    status, headers, body = request(lb_port, "PATCH", location, "tus-patch-%d" % patches,
                                    dict(TUS, **OCTETS, **{"Upload-Offset": str(offset)}), piece)
    check(status == 204, "PATCH %d at offset %d: HTTP %d" % (patches, offset, status))
    offset = int(headers["upload-offset"])

    if patches == 2:
        other = next(i for i in range(1, len(instance_ports) + 1) if i != holder)
        before = os.path.getsize(spool_file)
        status, headers, body = request(
            instance_ports[other - 1], "PATCH", location, "direct-patch",
            dict(TUS, **OCTETS, **{"Upload-Offset": str(offset)}), b"\0" * 4000)
        code = json.loads(body).get("code") if body else None
        check(status == 421 and code == "wrong_instance",
              "an append sent straight to instance #%d: HTTP %d %s" % (other, status, code))
        status, headers, body = request(instance_ports[other - 1], "HEAD", location, "direct-head",
                                        TUS)
        check(status == 200 and headers.get("upload-offset") == str(offset),
              "HEAD on instance #%d tells the offset all the same: %s" % (
                  other, headers.get("upload-offset")))
        check(os.path.getsize(spool_file) == before == offset
              and holder_of(upload_id)[0] == holder,
              "nothing of the refused append was stored: %d bytes in the spool of #%d, none"
              " elsewhere" % (os.path.getsize(spool_file), holder))

status, headers, body = request(lb_port, "GET", location + "/transcription?wait=30", "tus-answer")
answer = json.loads(body)
print("     answer: %s" % answer.get("text"))
check(status == 200 and answer.get("audio_sha256") == sha and answer.get("duration_ms") == 5000,
      "the transcript is of the whole note: HTTP %d, sha256 %s..., %s ms" % (
          status, str(answer.get("audio_sha256"))[:12], answer.get("duration_ms")))
check(answer.get("text", "").endswith("sha256 %s" % sha[:16]),
      "the provider received exactly the note's bytes (its text names their hash)")
check(provider_calls() == calls_before + 1, "one provider call for the upload")
check(not os.path.exists(spool_file), "the upload's spool file is gone once transcribed")
routed_to_holder("tus-", holder, 2 + patches)
tus_holder = holder

# --- the IETF draft (interop version 6) through nginx ------------------------------------------

audio = note(os.path.join(work, "draft-note.wav"), 3, 523)
sha = hashlib.sha256(audio).hexdigest()
calls_before = provider_calls()
DRAFT = {"Upload-Draft-Interop-Version": "6"}
print("== IETF draft upload of a %d-byte note through nginx: POST /v1/transcriptions with its first"
      " 30000 bytes, then PATCHes, the last one answering" % len(audio))
status, headers, body = request(
    lb_port, "POST", "/v1/transcriptions?language=en", "ietf-create",
    dict(DRAFT, **{"Upload-Complete": "?0", "Upload-Length": str(len(audio)),
                   "Content-Type": "application/partial-upload", "X-Bolo-Audio-Sha256": sha}),
    audio[:30000])
check(status == 201 and headers.get("upload-offset") == "30000",
      "creation with the first part: HTTP %d, Upload-Offset %s" % (status,
                                                                  headers.get("upload-offset")))
location = headers["location"]
upload_id = location.rsplit("/", 1)[1]
holder, spool_file = holder_of(upload_id)
check(holder is not None, "upload %s has its bytes in the spool of instance #%s, and no other"
      % (upload_id, holder))
status, headers, body = request(lb_port, "HEAD", location, "ietf-head", DRAFT)
check(status == 204 and headers.get("upload-offset") == "30000",
      "HEAD: HTTP %d, Upload-Offset %s" % (status, headers.get("upload-offset")))

offset, patches = 30000, 0
while True:
    piece = audio[offset:offset + 30000]
    last = offset + len(piece) == len(audio)
    patches += 1
    status, headers, body = request(
        lb_port, "PATCH", location, "ietf-patch-%d" % patches,
        dict(DRAFT, **{"Upload-Offset": str(offset), "Upload-Complete": "?1" if last else "?0",
                       "Content-Type": "application/partial-upload"}), piece)
    if last:
        break
    check(status == 204, "PATCH %d at offset %d: HTTP %d" % (patches, offset, status))
    offset = int(headers["upload-offset"])
answer = json.loads(body)
print("     answer: %s" % answer.get("text"))
check(status == 200 and answer.get("audio_sha256") == sha and answer.get("duration_ms") == 3000,
      "the last PATCH answers with the transcript of the whole note: HTTP %d, sha256 %s..., %s ms"
      % (status, str(answer.get("audio_sha256"))[:12], answer.get("duration_ms")))
check(answer.get("text", "").endswith("sha256 %s" % sha[:16]),
      "the provider received exactly the note's bytes (its text names their hash)")
check(provider_calls() == calls_before + 1, "one provider call for the upload")
routed_to_holder("ietf-", holder, 2 + patches)
check(holder == tus_holder,
      "both uploads of the device went to the same instance (#%d): nginx hashes on its token"
      % holder)
print("== OK: both resumable uploads reached only the instance holding their bytes")
