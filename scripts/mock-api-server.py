#!/usr/bin/env python3
"""A tiny HTTP server standing in for the exchange, FX and TWSE APIs in integration tests.

    mock-api-server.py --root DIR [--port 18080] [--bind 127.0.0.1]

GET /some/path?query answers with the file DIR/some/path (the query is ignored), read anew on every
request, so a test can change prices between polls (write the new file and rename it into place).
In the body, {{now_ms}} and {{now_s}} become the current Unix time in milliseconds and seconds, so quotes
stay fresh however long a test runs. DIR/some/path.status, if present, holds the HTTP status to send
(default 200). Missing files are 404. Every request is logged on stderr.
"""
import argparse
import http.server
import os
import sys
import time

CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8"}


class Handler(http.server.BaseHTTPRequestHandler):
    root = "."
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        relative = os.path.normpath(path.lstrip("/"))
        target = os.path.join(self.root, relative)
        if relative.startswith("..") or not os.path.isfile(target):
            self.reply(404, b'{"error":"no mock file for this path"}', "application/json")
            return
        with open(target, "rb") as handle:
            body = handle.read()
        now = time.time()
        body = body.replace(b"{{now_ms}}", str(int(now * 1000)).encode())
        body = body.replace(b"{{now_s}}", str(int(now)).encode())
        status = 200
        if os.path.isfile(target + ".status"):
            with open(target + ".status") as handle:
                status = int(handle.read().strip())
        content_type = CONTENT_TYPES.get(os.path.splitext(target)[1], "application/json")
        self.reply(status, body, content_type)

    def reply(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        sys.stderr.write("mock-api: %s\n" % (format % args))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, help="directory holding the response files")
    parser.add_argument("--port", type=int, default=18080)
    parser.add_argument("--bind", default="127.0.0.1")
    args = parser.parse_args()
    Handler.root = os.path.abspath(args.root)
    server = http.server.ThreadingHTTPServer((args.bind, args.port), Handler)
    sys.stderr.write("mock-api: serving %s on %s:%d\n" % (Handler.root, args.bind, server.server_address[1]))
    sys.stderr.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
