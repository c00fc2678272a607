#!/usr/bin/env python3
"""An exec: adapter: one JSON message per line on stdin/stdout <-> one WebSocket connection.

agentconform starts an exec: target once per mock-agent connection (`/bin/sh -c COMMAND`) and
speaks to it in JSON Lines: every message the agent sends is one line on the process's stdin,
every line the process writes on stdout is one message the agent receives, and the end of stdout
is the connection's close. This adapter turns that into a WebSocket connection to an
implementation that speaks WebSocket, so the same cases run through a process boundary: the
pattern to copy when your implementation is a library or speaks stdio (replace the WebSocket
part with calls into your code).

    agentconform run --protocol chopsticks \\
        --target "exec:python3 examples/adapters/ws_stdio_adapter.py ws://127.0.0.1:8080/chopsticks/ws"

Agora binds an agent id from the WebSocket URL, which an exec: process never sees. Run such a
target with settings.binding "first-frame" (examples/targets/agora-exec.json) and give the
adapter --register-frame: it reads the driver's first line {"type": "register", "agent_id": ID},
connects with ?agent_id=ID (--query-parameter) and answers {"type": "registered"} (the driver's
default settings.register_ack) once the upgrade succeeded.

Only the Python standard library is used (a minimal RFC 6455 client: text frames, ping/pong,
close; wss:// with the system's trust store). Diagnostics go to stderr.
"""
import argparse
import base64
import hashlib
import json
import os
import socket
import ssl
import struct
import sys
import threading
import urllib.parse

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def log(text):
    print(f"ws_stdio_adapter: {text}", file=sys.stderr, flush=True)


class WebSocket:
    """A WebSocket client connection: connect(), send_text(), recv() -> (kind, data)."""

    def __init__(self, url, timeout=10.0):
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("ws", "wss") or not u.hostname:
            raise ValueError(f"not a ws:// or wss:// URL: {url}")
        port = u.port or (443 if u.scheme == "wss" else 80)
        sock = socket.create_connection((u.hostname, port), timeout=timeout)
        if u.scheme == "wss":
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=u.hostname)
        key = base64.b64encode(os.urandom(16)).decode()
        target = (u.path or "/") + (f"?{u.query}" if u.query else "")
        host = u.hostname + (f":{u.port}" if u.port else "")
        sock.sendall((f"GET {target} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                raise ConnectionError("the server closed the connection during the upgrade")
            head += chunk
            if len(head) > 65536:
                raise ConnectionError("upgrade answer too long")
        head, self.buffer = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = lines[0].split(" ", 2)
        if len(status) < 2 or status[1] != "101":
            raise ConnectionError(f"upgrade refused: {lines[0]}")
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        if headers.get("sec-websocket-accept") != accept:
            raise ConnectionError("bad Sec-WebSocket-Accept")
        sock.settimeout(None)
        self.sock = sock
        self.lock = threading.Lock()

    def _send(self, opcode, payload):
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([0x80 | opcode])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        with self.lock:
            self.sock.sendall(header + mask + masked)

    def send_text(self, text):
        self._send(0x1, text.encode("utf-8"))

    def close(self, code=1000):
        try:
            self._send(0x8, struct.pack("!H", code))
        except OSError:
            pass

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection dropped")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def recv(self):
        """The next message: ("text", str), ("binary", bytes) or ("close", code)."""
        message, kind = b"", None
        while True:
            b0, b1 = self._read(2)
            fin, opcode, n = b0 & 0x80, b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x9:
                self._send(0xA, payload)
            elif opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                self.close(code if code not in (1005, 1006) else 1000)
                return "close", code
            elif opcode in (0x1, 0x2, 0x0):
                if opcode != 0x0:
                    kind = "text" if opcode == 0x1 else "binary"
                message += payload
                if fin:
                    return kind, message.decode("utf-8", "replace") if kind == "text" else message


def with_query(url, name, value):
    u = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(u.query) + [(name, value)]
    return urllib.parse.urlunsplit(u._replace(query=urllib.parse.urlencode(query)))


def main():
    ap = argparse.ArgumentParser(description="JSON Lines on stdin/stdout <-> one WebSocket connection")
    ap.add_argument("url", help="ws:// or wss:// URL of the implementation")
    ap.add_argument("--register-frame", action="store_true",
                    help="the first stdin line is {\"type\": \"register\", \"agent_id\": ID}: connect with ?PARAM=ID and "
                         "answer {\"type\": \"registered\"} (Agora with settings.binding first-frame)")
    ap.add_argument("--query-parameter", default="agent_id", help="the query parameter of --register-frame (default agent_id)")
    args = ap.parse_args()

    url, first = args.url, None
    if args.register_frame:
        line = sys.stdin.readline()
        if not line:
            return 0
        try:
            frame = json.loads(line)
        except ValueError:
            frame = None
        if isinstance(frame, dict) and frame.get("type") == "register" and isinstance(frame.get("agent_id"), str):
            url = with_query(url, args.query_parameter, frame["agent_id"])
        else:
            first = line  # an anonymous connect: no register frame, this is the case's first message
    try:
        ws = WebSocket(url)
    except (OSError, ValueError, ConnectionError) as e:
        log(f"cannot connect to {url}: {e}")
        return 1
    if args.register_frame and first is None:
        print(json.dumps({"type": "registered"}), flush=True)
    if first is not None:
        ws.send_text(first.rstrip("\r\n"))

    def pump_stdin():
        # Every line is one message, an empty line an empty message (cases send those too).
        for line in sys.stdin:
            try:
                ws.send_text(line.rstrip("\r\n"))
            except OSError:
                break
        ws.close(1000)  # stdin closed: the harness closed the agent's connection

    threading.Thread(target=pump_stdin, daemon=True).start()
    try:
        while True:
            kind, data = ws.recv()
            if kind == "close":
                log(f"the server closed the connection ({data})")
                return 0
            if kind == "binary":
                log(f"binary message of {len(data)} bytes not forwarded (JSON Lines carry text)")
                continue
            # One message per line: a message holding a line break would be split in two.
            sys.stdout.write(data.replace("\n", " ").replace("\r", " ") + "\n")
            sys.stdout.flush()
    except (OSError, ConnectionError) as e:
        log(f"connection ended: {e}")
        return 0


if __name__ == "__main__":
    sys.exit(main())
