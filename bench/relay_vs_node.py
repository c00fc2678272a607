#!/usr/bin/env python3
"""The reference lobby and a Node `ws` relay side by side (run through bench/relay_vs_node.sh).

Both targets run as processes of their own on this machine (`agentconform lobby` and
`node bench/node-relay/relay.js`), loaded by the same generator, `agentconform load --protocol
agora`, over the same relay path (Agora send_chunk streams). Rounds alternate which target goes
first, so a neighbour's build slowing the machine weighs on both; each figure is the median of
its rounds. Every load run must also pass its delivery checks (nothing lost, duplicated,
reordered or misdelivered): a fast relay that loses messages does not count.

Figures:
  throughput   closed loop (--max) for 1, 2 and 4 agent pairs: delivered messages per second
  latency      open loop at 20,000 msg/s, one pair: p50 / p99 / max from each message's intended send time
  idle memory  growth of the target's resident set per idle WebSocket connection (IDLE connections
               opened by this script, which only holds their sockets)
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, proc, what, timeout=15):
    until = time.time() + timeout
    while time.time() < until:
        if proc.poll() is not None:
            sys.exit(f"relay_vs_node: {what} exited with {proc.returncode} before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"relay_vs_node: {what} does not listen on {port}")


class Target:
    def __init__(self, name, argv, port):
        self.name, self.argv, self.port = name, argv, port
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_port(self.port, self.proc, self.name)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def rss(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    @property
    def url(self):
        return f"ws://127.0.0.1:{self.port}/agora/ws"


def make_targets(binary):
    lp, np_ = free_port(), free_port()
    lobby = Target("reference lobby", [binary, "lobby", "--listen", f"127.0.0.1:{lp}"], lp)
    node = Target("node ws relay", ["node", os.path.join(os.path.dirname(__file__), "node-relay", "relay.js"), str(np_)], np_)
    return lobby, node


def load(binary, target, args):
    with tempfile.TemporaryDirectory() as d:
        cmd = [binary, "load", "--protocol", "agora", "--target", target.url, "--quiet", "--report", "json",
               "--report-dir", d, "--metrics", "none"] + args
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        path = os.path.join(d, "results.json")
        if not os.path.exists(path):
            sys.exit(f"relay_vs_node: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[:400]}")
        doc = json.load(open(path))
    if r.returncode != 0:
        reasons = "; ".join(doc.get("verdict", {}).get("reasons", []))
        print(f"  ! {target.name}: the load run did not pass its checks: {reasons}", flush=True)
    return doc


def open_idle(port, n, prefix):
    socks = []
    req = ("GET /agora/ws?agent_id={id} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(req.format(id=f"{prefix}-{i}").encode())
        socks.append(s)
    for s in socks:  # read each 101 (the whole answer fits one read on loopback)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                sys.exit("relay_vs_node: an idle connection was refused")
            data += chunk
        if not data.startswith(b"HTTP/1.1 101"):
            sys.exit("relay_vs_node: upgrade refused: " + data[:80].decode(errors="replace"))
    return socks


def idle_memory(target, n):
    """Bytes of the target's resident set per idle connection, on a fresh process."""
    target.start()
    try:
        warm = open_idle(target.port, 50, "warm")  # first-use allocations of the process
        time.sleep(0.5)
        for s in warm:
            s.close()
        time.sleep(0.5)
        before = target.rss()
        socks = open_idle(target.port, n, "idle")
        time.sleep(1.0)
        after = target.rss()
        for s in socks:
            s.close()
        return (after - before) / n
    finally:
        target.stop()


def med(values):
    return statistics.median(values) if values else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--idle", type=int, default=3000)
    ap.add_argument("--size", type=int, default=160)
    a = ap.parse_args()

    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    print(f"machine: {os.cpu_count()} cores, {cpu}; {time.strftime('%Y-%m-%d %H:%M %Z')}")
    print(f"generator: {a.bin} load --protocol agora; {a.rounds} alternating rounds; medians\n", flush=True)

    results = {"throughput": {}, "latency": {}, "idle": {}}
    lobby, node = make_targets(a.bin)
    lobby.start()
    node.start()
    try:
        for pairs in (1, 2, 4):
            got = {lobby.name: [], node.name: []}
            for r in range(a.rounds):
                order = (lobby, node) if r % 2 == 0 else (node, lobby)
                for t in order:
                    doc = load(a.bin, t, ["--agents", str(2 * pairs), "--max", "--duration", f"{a.duration}s",
                                          "--message-size", str(a.size)])
                    got[t.name].append(doc["totals"]["throughput"])
            results["throughput"][pairs] = {k: med(v) for k, v in got.items()}
            ref, nod = results["throughput"][pairs][lobby.name], results["throughput"][pairs][node.name]
            print(f"throughput, {pairs} pair{'s' if pairs > 1 else ' '}: reference {ref:>10,.0f} msg/s   node {nod:>10,.0f} msg/s"
                  f"   ratio {ref / nod:5.2f}x   (rounds: {[round(x) for x in got[lobby.name]]} vs {[round(x) for x in got[node.name]]})",
                  flush=True)
        lat = {lobby.name: [], node.name: []}
        for r in range(a.rounds):
            order = (lobby, node) if r % 2 == 0 else (node, lobby)
            for t in order:
                doc = load(a.bin, t, ["--agents", "2", "--rate", "20000", "--duration", "5s", "--message-size", str(a.size)])
                lat[t.name].append((doc["latency"]["p50"], doc["latency"]["p99"], doc["latency"]["max"]))
        for name, v in lat.items():
            p50, p99, mx = med([x[0] for x in v]), med([x[1] for x in v]), med([x[2] for x in v])
            results["latency"][name] = {"p50_ms": p50, "p99_ms": p99, "max_ms": mx}
            print(f"latency at 20,000 msg/s, {name:16}: p50 {p50:.3f} ms  p99 {p99:.3f} ms  max {mx:.3f} ms", flush=True)
    finally:
        lobby.stop()
        node.stop()

    for t in (lobby, node):
        per = med([idle_memory(t, a.idle) for _ in range(a.rounds)])
        results["idle"][t.name] = per
        print(f"idle memory, {t.name:16}: {per / 1024:6.2f} KiB per connection ({a.idle} connections)", flush=True)
    ratio = results["idle"][lobby.name] / results["idle"][node.name] if results["idle"][node.name] else float("nan")
    print(f"idle memory ratio reference/node: {ratio:.2f}")
    print("\n" + json.dumps(results, default=str))


if __name__ == "__main__":
    main()
