#!/usr/bin/env python3
"""A loopback HTTP/1.1 server for PKNetwork's tests and benchmark (python3 standard library only).

Binds 127.0.0.1 on an ephemeral port, prints "ready <port>" on stdout, and exits when stdin reaches EOF, so it
dies with the process that started it. Routes (query parameters in brackets):

  /status/N                      status N, body "status N"
  /sequence/KEY [codes, retry_after]
                                 the n-th request for KEY gets the n-th code of the comma-separated `codes`
                                 (the last one repeats; 0 closes the connection without a reply, -1 cuts it
                                 after the headers and 10 of 100 promised bytes); 429 and 503 carry Retry-After
                                 when retry_after is given
  /count/KEY                     how many requests /sequence/KEY (or /hold/KEY, /auth/KEY) has had
  /slow [ms]                     waits, then 200 "slow"
  /hold/KEY [ms]                 counts as a request for KEY (see /count), then sends a chunked body, "." every
                                 100 ms, until /release/KEY (or for `ms`, 120000 by default), ending with "held"
  /release/KEY                   ends the waits of /hold/KEY, present and future
  /auth/KEY [token]              counts as a request for KEY; 401 unless the request has
                                 "Authorization: Bearer <token>", then 200 "authorized"
  /token [value]                 200 with the body `value`
  /drip [bytes, interval_ms]     sends the body one byte at a time
  /drop                          closes the connection without a reply
  /reset                         resets the connection (RST)
  /short                         promises 100 bytes, sends 10, closes
  /chunked [parts]               a chunked body of `parts` chunks "part i\\n"
  /bytes [size]                  `size` bytes of a pattern: byte i is (i * 31 + 7) % 251
  /echo                          returns the request body, with the request's Content-Type in X-Echo-Content-Type
  /redirect [to]                 302 to `to`
  /text                          200 "hello"
"""
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

PATTERN_PERIOD = 251
PATTERN = bytes((i * 31 + 7) % 251 for i in range(PATTERN_PERIOD))
sequences = {}
sequences_lock = threading.Lock()
holds = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format, *args):
        pass

    def reply(self, code, body=b"", headers=None):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_short_body(self):
        # Promises 100 bytes, sends 10, closes: the client reads a response cut short.
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Length", "100")
        self.end_headers()
        self.wfile.write(b"0123456789")
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def handle_any(self):
        url = urlparse(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        parts = [p for p in url.path.split("/") if p]
        route = parts[0] if parts else ""
        body = self.read_body() if self.command in ("POST", "PUT", "PATCH") else b""
        if route == "status":
            code = int(parts[1])
            self.reply(code, ("status %d" % code).encode())
        elif route == "sequence":
            codes = [int(c) for c in query.get("codes", "200").split(",")]
            with sequences_lock:
                n = sequences.get(parts[1], 0)
                sequences[parts[1]] = n + 1
            code = codes[min(n, len(codes) - 1)]
            if code == 0:  # a connection-level failure: close without a reply
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if code == -1:  # the connection cut in the middle of the body
                self.send_short_body()
                return
            headers = {}
            if code in (429, 503) and "retry_after" in query:
                headers["Retry-After"] = query["retry_after"]
            self.reply(code, ("attempt %d status %d" % (n + 1, code)).encode(), headers)
        elif route == "count":
            with sequences_lock:
                n = sequences.get(parts[1], 0)
            self.reply(200, str(n).encode())
        elif route == "hold":
            with sequences_lock:
                sequences[parts[1]] = sequences.get(parts[1], 0) + 1
                event = holds.setdefault(parts[1], threading.Event())
            # A chunked body, one "." every 100 ms while held: the client's inactivity timeout never fires.
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            deadline = time.monotonic() + int(query.get("ms", "120000")) / 1000.0
            while not event.wait(0.1) and time.monotonic() < deadline:
                self.wfile.write(b"1\r\n.\r\n")
                self.wfile.flush()
            self.wfile.write(b"4\r\nheld\r\n0\r\n\r\n")
        elif route == "release":
            with sequences_lock:
                event = holds.setdefault(parts[1], threading.Event())
            event.set()
            self.reply(200, b"released")
        elif route == "auth":
            with sequences_lock:
                sequences[parts[1]] = sequences.get(parts[1], 0) + 1
            expected = "Bearer %s" % query.get("token", "")
            if self.headers.get("Authorization") == expected:
                self.reply(200, b"authorized")
            else:
                self.reply(401, b"unauthorized", {"WWW-Authenticate": "Bearer"})
        elif route == "token":
            self.reply(200, query.get("value", "").encode())
        elif route == "slow":
            time.sleep(int(query.get("ms", "1000")) / 1000.0)
            self.reply(200, b"slow")
        elif route == "drip":
            size = int(query.get("bytes", "10"))
            interval = int(query.get("interval_ms", "100")) / 1000.0
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            try:
                for _ in range(size):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(interval)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif route == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif route == "reset":
            self.close_connection = True
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        elif route == "short":
            self.send_short_body()
        elif route == "chunked":
            count = int(query.get("parts", "5"))
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(count):
                chunk = ("part %d\n" % i).encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        elif route == "bytes":
            size = int(query.get("size", "1024"))
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.send_header("Content-Type", "application/octet-stream")
            self.end_headers()
            block = PATTERN * (65536 // PATTERN_PERIOD + 1)
            block = block[: (len(block) // PATTERN_PERIOD) * PATTERN_PERIOD]
            sent = 0
            try:
                while sent < size:
                    piece = block[: min(len(block), size - sent)]
                    self.wfile.write(piece)
                    sent += len(piece)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif route == "echo":
            headers = {"X-Echo-Method": self.command}
            content_type = self.headers.get("Content-Type")
            if content_type:
                headers["X-Echo-Content-Type"] = content_type
            self.reply(200, body, headers)
        elif route == "redirect":
            self.reply(302, b"", {"Location": query.get("to", "/text")})
        elif route == "text":
            self.reply(200, b"hello")
        else:
            self.reply(404, b"no such route")

    def handle_quietly(self):
        # A client that cancels closes its end: writing to it then fails, which is no error of the server's.
        try:
            self.handle_any()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = handle_quietly
    do_HEAD = handle_quietly
    do_POST = handle_quietly
    do_PUT = handle_quietly
    do_PATCH = handle_quietly
    do_DELETE = handle_quietly


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # A client that cancels may reset the connection before the request line is read (outside handle_quietly):
        # no error of the server's, and not worth a traceback on stderr per cancelled request.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("ready %d" % server.server_address[1], flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
