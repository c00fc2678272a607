#!/usr/bin/env python3
"""A hostile client under test for `agentconform serve --command` (tests/hostile/peers_test.cpp).

Usage: hostile_client.py MODE DIR   (AGENTCONFORM_URL in the environment, as serve sets it)

  ping_flood        upgrade, then empty pings as fast as the hub reads
  data_flood        upgrade, then 64 KiB text frames as fast as the hub reads
  huge_frame        upgrade, then a frame header declaring 2^62 bytes and a trickle of payload
  connection_flood  open 300 WebSocket connections and hold them
  messy             64 MiB on stdout and stderr, files in $TMPDIR, a grandchild that would
                    outlive it; writes $TMPDIR and the grandchild's pid into DIR for the test

Standard library only. Everything stays on 127.0.0.1 (the URL serve gives).
"""
import base64
import os
import socket
import struct
import subprocess
import sys
import time
import urllib.parse

WS_PATH = "/chopsticks/ws"


def upgrade(url):
    u = urllib.parse.urlparse(url)
    s = socket.create_connection((u.hostname, u.port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {WS_PATH}?agentId=hostile HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk:
            raise ConnectionError("closed during the handshake")
        head += chunk
    s.settimeout(None)
    return s


def frame(opcode, payload, declared=None):
    n = len(payload) if declared is None else declared
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + b"\0\0\0\0" + payload  # a zero mask leaves the payload as it is


def flood(s, data):
    try:
        while True:
            s.sendall(data)
    except OSError:
        pass


def main():
    mode, out = sys.argv[1], sys.argv[2]
    url = os.environ["AGENTCONFORM_URL"]
    if mode == "messy":
        with open(os.path.join(out, "client-tmpdir"), "w") as f:
            f.write(os.environ.get("TMPDIR", ""))
        for i in range(3):
            with open(os.path.join(os.environ["TMPDIR"], f"client-log-{i}.txt"), "w") as f:
                f.write("x" * 100000)
        child = subprocess.Popen(["sleep", "300"])
        with open(os.path.join(out, "client-grandchild"), "a") as f:
            f.write(f"{child.pid}\n")
        line = ("client output line " + "y" * 100 + "\n").encode()
        block = line * (1024 * 1024 // len(line))
        for _ in range(32):
            sys.stdout.buffer.write(block)
            sys.stderr.buffer.write(block)
        sys.stdout.flush()
        time.sleep(300)
        return
    if mode == "connection_flood":
        held = []
        for _ in range(300):
            try:
                held.append(upgrade(url))
            except OSError:
                break
        time.sleep(300)
        return
    s = upgrade(url)
    if mode == "ping_flood":
        flood(s, frame(0x9, b"") * 4096)
    elif mode == "data_flood":
        flood(s, frame(0x1, b'"' + b"d" * (64 * 1024 - 2) + b'"'))
    elif mode == "huge_frame":
        try:
            s.sendall(frame(0x2, b"", declared=1 << 62))
        except OSError:
            return
        flood(s, b"x" * 65536)
    time.sleep(300)


if __name__ == "__main__":
    main()
