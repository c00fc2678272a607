#!/usr/bin/python3
"""Time to bug: the live fuzzer against the planted bugs of the independent Python peers.

For every planted bug of tests/peers/fuzz/planted.json (a crash on input, a hang, an isolation
bug; per protocol) and every seed, `agentconform fuzz` runs a campaign against the peer with
that bug under --target-command (the peer restarted after each crash or hang), restricted to
the mutation families that reach it, until its first reproduced finding or --duration. The
finding that is this bug's (its oracle, and a mark in its signature) gives the time
to the bug; its final reproducer is then replayed --times N on the broken peer and N on the
fixed peer (`fuzz --replay F --times N`: "trips k of N"), each run from a fresh process.

Per bug it prints the median time to the first finding over the seeds (a seed that found
nothing counts as the whole --duration), the share of seeds that found it, and the replay
rate of the final reproducers on the broken peer (the same trip) and on the fixed one (any
trip). With --with-own-bugs every peer also has the bugs of its own of planted.json
("own_bugs": it dies on a message that is not JSON), on the broken and the fixed peer alike,
as real targets do: a reproducer that carries another bug's trigger trips otherwise on the
fixed peer and counts against it.

The figures are in docs/performance.md with the command that produced them; the CTest entry
`fuzz_time_to_bug` runs one seed with --gate (exit 1 unless every bug is found and its
reproducer trips every time on the broken peer and never on the fixed one).

Usage:
  bench/time_to_bug.py --cli build/bin/agentconform [--seeds 1,2,3,4,5] [--times 10]
                       [--duration 60] [--jobs 2] [--only PROTOCOL/BUG ...] [--with-own-bugs]
                       [--work DIR] [--gate] [--json FILE]
Exit: 0 done (with --gate: every bug found and replayed as required); 1 --gate failed;
2 usage; 77 skipped (Debian's python3 lacks aiohttp or cryptography).
"""

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.path.join(ROOT, "tests", "peers")
sys.path.insert(0, PEERS)
import audit  # noqa: E402
import run_peers  # noqa: E402

FINDING_LINE = re.compile(r"finding \d+ after .*?: \[(\w+)\] ")
TRIPS = re.compile(r"^trips (\d+) of (\d+)(.*)$", re.M)
OTHERWISE = re.compile(r"\(and (\d+) of \d+ otherwise")


class Setup:
    """Where a protocol's peer listens and what its target.json says (peers.json, <protocol>/target.json)."""

    def __init__(self, protocol, work):
        self.protocol = protocol
        cfg = run_peers.load(os.path.join(PEERS, "peers.json"))[protocol]
        self.args = cfg.get("args", [])
        self.url_template = cfg["url"]
        # The facts a peer prints at start (AgentProtocol: its agentId, fixed by --seed).
        probe = run_peers.Peer(protocol, self.args, os.path.join(work, protocol + ".facts.log"))
        self.facts = {k: v for k, v in probe.facts.items() if k != "LISTENING"}
        probe.stop()
        target = run_peers.substitute(run_peers.load(os.path.join(PEERS, protocol, "target.json")), self.facts)
        self.config = os.path.join(work, protocol + ".target.json")
        with open(self.config, "w") as f:
            json.dump(target, f, indent=1)

    def command(self, port, bugs):
        argv = [run_peers.PYTHON, "-B", os.path.join(PEERS, self.protocol, "peer.py"), str(port), "--quiet"] + self.args
        if bugs:
            argv += ["--bugs", ",".join(bugs)]
        return "exec " + " ".join(shlex.quote(a) for a in argv)

    def url(self, port):
        return run_peers.substitute(self.url_template, dict(self.facts, PORT=str(port)))


def target_args(setup, port, bugs):
    return ["--target", setup.url(port), "--config", setup.config, "--target-command", setup.command(port, bugs),
            "--probe-timeout", "1500", "--restart-timeout", "20"]


def mine(finding, bug):
    if finding.get("oracle") != bug["oracle"]:
        return False
    # The signature (what the target did), not the culprit's mutations (what the generator meant):
    # a session meant to nest deeply may trip another bug of the peer.
    return not bug["marks"] or any(m in finding.get("signature", "") for m in bug["marks"])


def campaign(cli, setup, bug, seed, args, out):
    bugs = [bug["bug"]] + (args.own_bugs if args.with_own_bugs else [])
    port = audit.free_port()
    # The campaign ends at the planted bug's finding: the fuzzer's own line "finding N after ...:
    # [oracle] signature" names it, and an interrupt (Ctrl-C is safe: the reports are still
    # written) ends the campaign there. Bugs of the peer's own found first do not end it.
    cmd = [cli, "fuzz", "--protocol", setup.protocol] + target_args(setup, port, bugs) + [
        "--duration", str(args.duration), "--families", bug["families"], "--jobs", str(args.jobs),
        "--seed", str(seed), "--report", "json", "--out", out]
    started = time.monotonic()
    with open(out + ".log", "w") as log:
        log.write(" ".join(shlex.quote(c) for c in cmd) + "\n")
        log.flush()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = started + args.duration * 4 + 300
        for line in proc.stdout:
            log.write(line)
            m = FINDING_LINE.search(line)
            if (m and m.group(1) == bug["oracle"] and "NOT reproduced" not in line
                    and (not bug["marks"] or any(k in line for k in bug["marks"]))):
                proc.send_signal(signal.SIGINT)
            if time.monotonic() > deadline:
                proc.kill()
        code = proc.wait()
    took = time.monotonic() - started
    try:
        findings = run_peers.load(os.path.join(out, "results.json")).get("findings", [])
    except (OSError, ValueError):
        findings = []
    found = [f for f in findings if mine(f, bug) and f.get("reproduced")]
    return (found[0] if found else None), findings, took, code


def replay(cli, setup, file, bugs, times, log):
    """(same, other, runs): how many runs tripped as recorded, how many otherwise."""
    port = audit.free_port()
    cmd = [cli, "fuzz", "--replay", file, "--times", str(times)] + target_args(setup, port, bugs) + [
        "--out", log + ".out"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=times * 120 + 120)
    with open(log, "w") as f:
        f.write(" ".join(shlex.quote(c) for c in cmd) + "\n" + proc.stdout + proc.stderr)
    m = TRIPS.search(proc.stdout)
    if not m:
        return None, None, proc.returncode
    k, rest = int(m.group(1)), m.group(3)
    if "differently" in rest:
        return 0, k, proc.returncode
    other = OTHERWISE.search(proc.stdout)
    return k, int(other.group(1)) if other else 0, proc.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="the agentconform binary")
    ap.add_argument("--seeds", default="1,2,3,4,5", help="comma-separated campaign seeds (default 1,2,3,4,5)")
    ap.add_argument("--times", type=int, default=10, help="replays of each final reproducer on the broken and on the fixed peer")
    ap.add_argument("--duration", type=float, default=60, help="seconds per campaign (its budget; it ends at the first finding)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", metavar="PROTOCOL/BUG", help="only these bugs (repeatable)")
    ap.add_argument("--with-own-bugs", action="store_true", help="the peers also have planted.json's own_bugs (broken and fixed alike)")
    ap.add_argument("--work", help="keep campaigns, reproducers and logs here (default: a temporary directory, removed when all is well)")
    ap.add_argument("--gate", action="store_true", help="exit 1 unless every bug is found by every seed and replays N of N / 0 of N")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    if run_peers.modules_missing():
        print(f"SKIPPED: {run_peers.PYTHON} lacks a module the peers need; scripts/setup.sh installs them")
        return run_peers.SKIP
    catalogue = run_peers.load(os.path.join(PEERS, "fuzz", "planted.json"))
    args.own_bugs = catalogue["own_bugs"]
    bugs = catalogue["bugs"]
    if args.only:
        bugs = [b for b in bugs if f"{b['protocol']}/{b['bug']}" in args.only]
        if not bugs:
            ap.error("--only names no bug of tests/peers/fuzz/planted.json")
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s]
    except ValueError:
        ap.error("--seeds: comma-separated integers")
    if not seeds or args.times < 1 or args.duration <= 0:
        ap.error("--seeds, --times and --duration must be positive")
    work = args.work or tempfile.mkdtemp(prefix="ac-time-to-bug-")
    os.makedirs(work, exist_ok=True)
    setups = {}
    rows, failed = [], 0
    own = args.own_bugs if args.with_own_bugs else []
    print(f"time to bug: {len(bugs)} planted bug(s), seeds {seeds}, --duration {args.duration:g} --jobs {args.jobs}, "
          f"replays {args.times} + {args.times}" + (f", peers with their own bugs {own}" if own else ""), flush=True)
    for bug in bugs:
        name = f"{bug['protocol']}/{bug['bug']}"
        setup = setups.get(bug["protocol"]) or setups.setdefault(bug["protocol"], Setup(bug["protocol"], work))
        times, found, broken, fixed, notes = [], 0, [0, 0], [0, 0], []
        for seed in seeds:
            out = os.path.join(work, f"{bug['protocol']}-{bug['bug']}-s{seed}")
            finding, findings, took, code = campaign(args.cli, setup, bug, seed, args, out)
            if finding is None:
                times.append(args.duration)
                others = sorted({f"[{f.get('oracle')}] {f.get('signature', '')[:60]}" for f in findings})
                notes.append(f"seed {seed}: not found (exit {code}; other findings: {others or 'none'}; {out}.log)")
                continue
            found += 1
            times.append(finding.get("found_after_s", took))
            file = finding["reproducer"]["file"]
            same, other, _ = replay(args.cli, setup, file, [bug["bug"]] + own, args.times, out + ".replay-broken.log")
            fsame, fother, _ = replay(args.cli, setup, file, own, args.times, out + ".replay-fixed.log")
            if same is None or fsame is None:
                notes.append(f"seed {seed}: a replay printed no 'trips k of N' ({out}.replay-*.log)")
                same, fsame, fother = same or 0, fsame or 0, args.times if fsame is None else fother
            broken[0] += same
            broken[1] += args.times
            fixed[0] += fsame + fother
            fixed[1] += args.times
            notes.append(f"seed {seed}: {finding.get('found_after_s', took):.1f} s, {len(finding.get('steps', []))} steps; "
                         f"broken {same}/{args.times} (otherwise {other}), fixed {fsame + fother}/{args.times}")
        median = statistics.median(times)
        row = {"bug": name, "oracle": bug["oracle"], "median_s": round(median, 1), "found": found, "seeds": len(seeds),
               "broken_trips": broken[0], "broken_runs": broken[1], "fixed_trips": fixed[0], "fixed_runs": fixed[1], "notes": notes}
        rows.append(row)
        ok = found == len(seeds) and broken[0] == broken[1] and fixed[0] == 0
        failed += not ok
        print(f"{'   ' if ok or not args.gate else '!! '}{name:36} [{bug['oracle']:9}] median {median:5.1f} s, found {found}/{len(seeds)}, "
              f"replay broken {broken[0]}/{broken[1]}, fixed {fixed[0]}/{fixed[1]}", flush=True)
        for n in notes:
            print("      " + n, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seeds": seeds, "times": args.times, "duration_s": args.duration, "jobs": args.jobs, "own_bugs": own, "bugs": rows}, f, indent=1)
    keep = args.work or (failed and args.gate)
    print(f"time to bug: {len(rows) - failed} of {len(rows)} bug(s) found by every seed and replayed N of N / 0 of N" +
          (f"; logs in {work}" if keep else ""))
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed and args.gate else 0


if __name__ == "__main__":
    sys.exit(main())
