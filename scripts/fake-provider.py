#!/usr/bin/env python3
"""A stand-in for an OpenAI-compatible speech-to-text service, for demos on loopback.

POST /v1/audio/transcriptions answers {"text": "..."} after an optional delay and counts the call;
GET /calls answers {"calls": N}. Usage: fake-provider.py PORT [DELAY_SECONDS]
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

calls = 0
lock = threading.Lock()
delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0


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
        text = "fake transcription #%d of a %d-byte upload" % (number, len(body))
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
