#!/usr/bin/env python3
"""A stand-in for an OpenAI-compatible speech-to-text service, for demos on loopback.

POST /v1/audio/transcriptions answers {"text": "..."} after an optional delay and counts the call;
the text names the call's number, the upload's size and the SHA-256 of its file part (the note as
the provider received it). GET /calls answers {"calls": N}. Usage: fake-provider.py PORT [DELAY_SECONDS]
"""
import hashlib
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

calls = 0
lock = threading.Lock()
delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0


def file_part(content_type, body):
    """The bytes of the multipart form's part named "file", or None."""
    boundary = re.search(r'boundary="?([^";]+)"?', content_type)
    if not boundary:
        return None
    for part in body.split(b"--" + boundary.group(1).encode()):
        head, separator, content = part.partition(b"\r\n\r\n")
        if separator and re.search(rb'name="file"', head):
            return content[:-2] if content.endswith(b"\r\n") else content
    return None


class Provider(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        global calls
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path.rstrip("/") != "/v1/audio/transcriptions":
            self.answer(404, {"error": {"message": "no such path: " + self.path}})
            return
        with lock:
            calls += 1
            number = calls
        time.sleep(delay)
        note = file_part(self.headers.get("Content-Type", ""), body)
        text = "fake transcription #%d of a %d-byte upload, note sha256 %s" % (
            number, len(body), hashlib.sha256(note).hexdigest()[:16] if note is not None else "?")
        self.answer(200, {"text": text})

    def do_GET(self):
        if self.path == "/calls":
            with lock:
                self.answer(200, {"calls": calls})
        else:
            self.answer(404, {"error": {"message": "no such path: " + self.path}})

    def answer(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Provider).serve_forever()
