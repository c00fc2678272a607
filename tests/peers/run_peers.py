#!/usr/bin/python3
"""The `peers` test: agentconform against independent implementations of the five protocols.

For each protocol it starts tests/peers/<protocol>/peer.py in its spec-faithful mode (the
arguments in tests/peers/peers.json), runs `agentconform run` with the cases listed in
tests/peers/<protocol>/expected.json and the target settings of tests/peers/<protocol>/target.json,
and compares each case's verdict with the expectation. An expectation is what the harness
SHOULD say; an entry marked "known_false_fail": "<TRIAGE id>" is a case where today's harness
says something else because of a harness defect recorded in tests/peers/TRIAGE.md: it is
reported but does not fail the test (and a marked case that now matches is reported, so the
mark can be removed).

Usage: run_peers.py --cli build-asan/bin/agentconform [--protocol P ...] [--work DIR] [--all-cases]
Exit: 0 all verdicts as expected; 1 a mismatch; 77 skipped (Python modules missing).
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"  # Debian's interpreter: the python3-* packages live there
SKIP = 77


def modules_missing():
    probe = subprocess.run([PYTHON, "-c", "import aiohttp, cryptography"], capture_output=True, text=True)
    return probe.returncode != 0 and probe.stderr.strip().splitlines()[-1:] or None


class Peer:
    """A peer process: started with port 0, it prints 'LISTENING <port>' (and 'AGENT_ID <id>')."""

    def __init__(self, protocol, args, log_path):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([PYTHON, "-B", os.path.join(HERE, protocol, "peer.py"), "0", "--quiet"] + args,
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.facts = {}
        deadline = time.monotonic() + 20
        while "LISTENING" not in self.facts:
            line = self.readline(deadline)
            if line is None:
                self.stop()
                raise RuntimeError(f"{protocol} peer did not start (see {log_path})")
            parts = line.split()
            if len(parts) == 2:
                self.facts[parts[0]] = parts[1]
        self.port = int(self.facts["LISTENING"])

    def readline(self, deadline):
        result = []
        t = threading.Thread(target=lambda: result.append(self.proc.stdout.readline()), daemon=True)
        t.start()
        t.join(max(0.0, deadline - time.monotonic()))
        return result[0] if result and result[0] else None

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def substitute(value, facts):
    if isinstance(value, str):
        for k, v in facts.items():
            value = value.replace("${" + k + "}", v)
        return value
    if isinstance(value, list):
        return [substitute(v, facts) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, facts) for k, v in value.items()}
    return value


def load(path):
    with open(path) as f:
        return json.load(f)


def run_protocol(protocol, cfg, cli, work, all_cases):
    """Returns a list of (ok, line) for this protocol's cases."""
    expected = {k: v for k, v in load(os.path.join(HERE, protocol, "expected.json")).items() if not k.startswith("$")}
    peer = Peer(protocol, cfg.get("args", []), os.path.join(work, protocol + "-peer.log"))
    try:
        facts = dict(peer.facts, PORT=str(peer.port))
        target = substitute(load(os.path.join(HERE, protocol, "target.json")), facts)
        config = os.path.join(work, protocol + "-target.json")
        with open(config, "w") as f:
            json.dump(target, f, indent=2)
        results = os.path.join(work, protocol + "-results.json")
        url = substitute(cfg["url"], facts)
        # --timeout-scale 2: the CI machine runs three ASan test entries on two cores; a PASS must
        # not turn into a timeout there (no expectation here depends on a timeout's length).
        cmd = [cli, "run", "--protocol", protocol, "--target", url, "--config", config, "--jobs", "2", "--quiet",
               "--timeout-scale", "2",
               "--results", results, "--report", "json", "--report-dir", os.path.join(work, protocol + "-report")]
        if not all_cases:
            for case in expected:
                cmd += ["--case", case]
        started = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        elapsed = time.monotonic() - started
        with open(os.path.join(work, protocol + "-run.log"), "w") as f:
            f.write(" ".join(cmd) + "\n" + proc.stdout + proc.stderr)
        if not os.path.exists(results):
            return [(False, f"{protocol}: agentconform wrote no results (exit {proc.returncode}): {proc.stderr.strip()[-400:]}")]
        actual = {c["id"]: c for c in load(results).get("cases", [])}
        died = not peer.alive()
    finally:
        peer.stop()
    out = [(not died, f"{protocol}: {len(actual)} cases in {elapsed:.1f} s (exit {proc.returncode})" +
            ("; THE PEER DIED during the run" if died else ""))]
    for case, exp in sorted(expected.items()):
        got = actual.get(case)
        if got is None:
            out.append((False, f"  {case}: not run (no such case? expected {exp['verdict']})"))
            continue
        verdict, want = got["verdict"], exp["verdict"]
        mark = exp.get("known_false_fail")
        why = (got.get("reason") or "").replace("\n", " ")[:300]
        if verdict == want:
            if mark:
                out.append((True, f"  {case}: {verdict} as expected, but marked known_false_fail {mark}: remove the mark"))
        elif mark:
            out.append((True, f"  {case}: {verdict} (should be {want}; known harness defect {mark}) {why}"))
        else:
            out.append((False, f"  {case}: {verdict}, expected {want} ({exp.get('reason', 'spec-faithful behaviour')}) -- {why}"))
    for case in sorted(set(actual) - set(expected)):
        if not all_cases:
            out.append((False, f"  {case}: ran but has no expectation in {protocol}/expected.json"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="the agentconform binary")
    ap.add_argument("--protocol", action="append", help="only these protocols (repeatable)")
    ap.add_argument("--work", help="keep logs, target files and results here (default: a temporary directory)")
    ap.add_argument("--peer-arg", action="append", default=[], metavar="PROTOCOL:ARG",
                    help="append ARG to that peer's arguments (e.g. alp:--quirk alp:malformed-silent), to check that the test notices a changed peer")
    ap.add_argument("--parallel", type=int, default=2, help="protocols run at once (default 2)")
    ap.add_argument("--all-cases", action="store_true", help="run every case of the protocol, not only those in expected.json (audit; unexpected cases are listed, not failed)")
    args = ap.parse_args()
    missing = modules_missing()
    if missing:
        print(f"SKIPPED: {PYTHON} lacks a module the peers need ({missing[0]}); scripts/setup.sh installs python3-aiohttp and python3-cryptography")
        return SKIP
    cfgs = load(os.path.join(HERE, "peers.json"))
    protocols = args.protocol or [p for p in cfgs if not p.startswith("$")]
    for extra in args.peer_arg:
        p, _, arg = extra.partition(":")
        if p not in cfgs or p.startswith("$"):
            ap.error(f"--peer-arg {extra}: unknown protocol {p!r}")
        cfgs[p] = dict(cfgs[p], args=cfgs[p].get("args", []) + [arg])
    work = args.work or tempfile.mkdtemp(prefix="ac-peers-")
    os.makedirs(work, exist_ok=True)
    def one(p):
        try:
            return run_protocol(p, cfgs[p], args.cli, work, args.all_cases)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            return [(False, f"{p}: {e}")]

    # Two protocols at a time: a run spends most of its time waiting for answers (and for the
    # silences its cases expect), so two of them share the machine's two cores well.
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.parallel) as pool:
        outcomes = list(pool.map(one, protocols))
    return report("peers", [line for lines in outcomes for line in lines], work, args.work)


def report(test, lines, work, keep_work):
    """Prints (ok, line) pairs, "!! " before a mismatch; removes the work directory unless asked
    to keep it or something mismatched. The exit code: 1 on a mismatch, else 0."""
    failed = 0
    for ok, line in lines:
        print(("   " if ok else "!! ") + line, flush=True)
        failed += not ok
    keep = keep_work or failed
    print(f"{test}: {failed} mismatch(es)" + (f"; logs, target files and results in {work}" if keep else ""))
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
