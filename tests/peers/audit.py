#!/usr/bin/python3
"""Audit agentconform against the independent peers in every mode (the evidence behind TRIAGE.md).

A mode is a peer configuration from tests/peers/modes.json: the spec-faithful mode, a user's
misconfiguration (other API key, other route prefix, https against plain HTTP, ...), an
alternative reading of the spec (--quirk), or a partial role. For each mode it runs every case
of the protocol and writes <work>/<protocol>/<mode>.json (the results); then it prints, per
mode, the verdict counts and each case whose verdict differs from the faithful mode's.

A mode may also say how agentconform runs: "jobs" (default 2; --jobs overrides every mode's),
"run_args" (more `agentconform run` arguments, appended), and "monitor": true, for a peer that is
meant to die: agentconform starts it itself through --target-command (docs/targets.md), on a
free port this script picks (the peer is given that port instead of 0), so that a death is
noticed and pinned on the case that caused it; the peer's output is then in
<mode>.report/target/target.log.

Usage: audit.py --cli build-asan/bin/agentconform --work DIR [--protocol P ...] [--mode NAME ...]
                [--jobs N] [--no-faithful]
Slow (minutes per protocol under ASan); not part of the test command (run_peers.py is).
"""

import argparse
import collections
import json
import os
import shlex
import socket
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_peers  # noqa: E402


def deep_merge(base, over):
    out = dict(base)
    for k, v in over.items():
        if v is None:
            out.pop(k, None)
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MonitoredPeer:
    """A peer agentconform starts itself (--target-command): only its command line and port here."""

    def __init__(self, protocol, args):
        self.port = free_port()
        self.facts = {}
        self.command = "exec " + " ".join(shlex.quote(a) for a in
                                [run_peers.PYTHON, "-B", os.path.join(run_peers.HERE, protocol, "peer.py"), str(self.port)] + args)

    def alive(self):
        return True  # agentconform reports the deaths (results: target_deaths)

    def stop(self):
        pass


def run_mode(protocol, cfg, mode, cli, work, jobs=None):
    os.makedirs(os.path.join(work, protocol), exist_ok=True)
    stem = os.path.join(work, protocol, mode["name"])
    args = mode.get("args", cfg.get("args", []))
    if mode.get("monitor"):
        peer = MonitoredPeer(protocol, args)
    else:
        peer = run_peers.Peer(protocol, args, stem + ".peer.log")
    try:
        facts = dict(peer.facts, PORT=str(peer.port))
        target = run_peers.load(os.path.join(run_peers.HERE, protocol, "target.json"))
        target = run_peers.substitute(deep_merge(target, mode.get("target", {})), facts)
        with open(stem + ".target.json", "w") as f:
            json.dump(target, f, indent=2)
        url = run_peers.substitute(mode.get("url", cfg["url"]), facts)
        jobs = jobs or mode.get("jobs", 2)
        cmd = [cli, "run", "--protocol", protocol, "--target", url, "--config", stem + ".target.json", "--jobs", str(jobs),
               "--quiet", "--results", stem + ".json", "--report", "md", "--report-dir", stem + ".report"]
        if mode.get("monitor"):
            cmd += ["--target-command", peer.command]
        for c in mode.get("cases", []):
            cmd += ["--case", c]
        cmd += [run_peers.substitute(a, facts) for a in mode.get("run_args", [])]
        if os.path.exists(stem + ".json"):
            os.remove(stem + ".json")
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        with open(stem + ".run.log", "w") as f:
            f.write(" ".join(shlex.quote(c) for c in cmd) + "\n" + proc.stdout + proc.stderr)
        died = not peer.alive()
    finally:
        peer.stop()
    if not os.path.exists(stem + ".json"):
        return None, proc.returncode, died, (proc.stdout + proc.stderr)[-600:]
    return {c["id"]: c for c in run_peers.load(stem + ".json")["cases"]}, proc.returncode, died, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--protocol", action="append")
    ap.add_argument("--mode", action="append", help="only these modes (the faithful mode always runs first unless its results exist)")
    ap.add_argument("--jobs", type=int, help="agentconform --jobs for every mode (default: the mode's \"jobs\", else 2)")
    ap.add_argument("--no-faithful", action="store_true", help="do not run the faithful mode first; list every non-PASS verdict of each mode instead of its differences")
    args = ap.parse_args()
    if run_peers.modules_missing():
        print("SKIPPED: python3-aiohttp / python3-cryptography missing")
        return run_peers.SKIP
    cfgs = run_peers.load(os.path.join(run_peers.HERE, "peers.json"))
    modes = run_peers.load(os.path.join(run_peers.HERE, "modes.json"))
    for protocol in args.protocol or [p for p in cfgs if not p.startswith("$")]:
        base_file = os.path.join(args.work, protocol, "faithful.json")
        base = None
        todo = [m for m in modes[protocol] if not args.mode or m["name"] in args.mode]
        if args.no_faithful:
            pass
        elif os.path.exists(base_file) and all(m["name"] != "faithful" for m in todo):
            base = {c["id"]: c for c in run_peers.load(base_file)["cases"]}
        elif all(m["name"] != "faithful" for m in todo):
            todo.insert(0, {"name": "faithful"})
        for mode in todo:
            results, code, died, tail = run_mode(protocol, cfgs[protocol], mode, args.cli, args.work, args.jobs)
            head = f"== {protocol} / {mode['name']}: exit {code}" + (" PEER DIED" if died else "")
            if results is None:
                print(head, "no results:", tail.replace("\n", " | "))
                continue
            counts = collections.Counter(c["verdict"] for c in results.values())
            print(head, dict(sorted(counts.items())))
            if mode["name"] == "faithful" or args.no_faithful:
                base = results
                for cid, c in sorted(results.items()):
                    if c["verdict"] not in ("PASS", "NOT_APPLICABLE"):
                        print(f"   {cid} {c['verdict']}: {(c.get('reason') or '')[:220]}")
                continue
            for cid, c in sorted(results.items()):
                was = base.get(cid, {}).get("verdict") if base else None
                if c["verdict"] != was:
                    print(f"   {cid} {was} -> {c['verdict']}: {(c.get('reason') or '')[:220]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
