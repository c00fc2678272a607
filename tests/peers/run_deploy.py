#!/usr/bin/python3
"""The `peers_deploy` test: verdicts against peers that behave like real deployments.

Real deployments cap connections per address, open circuit breakers, key sessions by ids, die
on a message, and carry defects a user cannot configure away. The faithful peers of
tests/peers/ do each of these on request (modes deploy-* in modes.json); this test runs the
checks of tests/peers/deploy_expected.json:

- "same_as": the faithful mode at that --jobs, then the deploy mode at each of "jobs": every
  case's verdict must be the faithful one. A difference is a FAIL of the harness's own making
  (a shared identifier, more connections than the deployment allows, a breaker its own cases
  opened), or a verdict that depends on --jobs.
- "expect": a deliberate defect is reported as one: the exit code, the cases that FAIL, the
  least number of FAIL / BLOCKED cases, the deaths pinned on a case (results: target_deaths).

- the faithful mode against itself at --jobs 1 and 32 (group "jobs", the `peers_jobs` entry):
  no verdict depends on --jobs for the protocols no deploy mode covers.

Usage: run_deploy.py --cli build-asan/bin/agentconform [--work DIR] [--group deploy|jobs|all]
                     [--check PROTOCOL/MODE ...]
Exit: 0 as expected; 1 a mismatch; 77 skipped (Python modules missing).
"""

import argparse
import collections
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audit  # noqa: E402
import run_peers  # noqa: E402


def mode_named(modes, protocol, name):
    for m in modes[protocol]:
        if m["name"] == name:
            return m
    raise SystemExit(f"deploy_expected.json names mode {protocol}/{name}, which modes.json does not have")


def run(protocol, mode, cases, jobs, cli, work, cfgs):
    """The run's results ({case id: case}), exit code and whole results document."""
    # --timeout-scale 2, as the `peers` test: the CI machine runs two ASan test entries on two
    # cores, and a verdict compared across runs must not turn on a wait's length.
    mode = dict(mode, name=f"{mode['name']}-j{jobs}", run_args=mode.get("run_args", []) + ["--timeout-scale", "2"])
    if cases:
        mode["cases"] = cases
    results, code, _, tail = audit.run_mode(protocol, cfgs[protocol], mode, cli, work, jobs)
    doc = run_peers.load(os.path.join(work, protocol, mode["name"] + ".json")) if results is not None else {}
    return results, code, doc, tail


def counts(results):
    return dict(sorted(collections.Counter(c["verdict"] for c in results.values()).items()))


def check_same(check, modes, cli, work, cfgs, baselines):
    protocol = check["protocol"]
    base_mode, base_jobs = check["same_as"]["mode"], check["same_as"]["jobs"]
    cases = check.get("cases", [])
    key = (protocol, base_mode, base_jobs, tuple(cases))
    cached = key in baselines
    if not cached:
        baselines[key] = run(protocol, mode_named(modes, protocol, base_mode), cases, base_jobs, cli, work, cfgs)
    base, base_code, _, tail = baselines[key]
    if base is None:
        return [(False, f"{protocol}/{base_mode} --jobs {base_jobs}: no results: {tail[-300:]}")]
    out = [] if cached else [(True, f"{protocol}/{base_mode} --jobs {base_jobs}: exit {base_code} {counts(base)}")]
    for jobs in check["jobs"]:
        got, code, _, tail = run(protocol, mode_named(modes, protocol, check["mode"]), cases, jobs, cli, work, cfgs)
        label = f"{protocol}/{check['mode']} --jobs {jobs}"
        if got is None:
            out.append((False, f"{label}: no results: {tail[-300:]}"))
            continue
        differs = check.get("differs", {})
        diffs = [cid for cid in sorted(set(base) | set(got))
                 if cid not in differs and base.get(cid, {}).get("verdict") != got.get(cid, {}).get("verdict")]
        out.append((not diffs and code == base_code, f"{label}: exit {code} {counts(got)}" +
                    (f"; {len(diffs)} verdict(s) differ from {base_mode} --jobs {base_jobs}" if diffs else
                     "; every verdict as faithful" + (" but those listed" if differs else ""))))
        for cid, want in sorted(differs.items()):
            v = got.get(cid, {}).get("verdict")
            out.append((v == want["verdict"], f"    {cid}: {v} (expected {want['verdict']}: {want['why']})"))
        for cid in diffs:
            was, now = base.get(cid, {}).get("verdict"), got.get(cid, {})
            out.append((False, f"    {cid}: {was} -> {now.get('verdict')}: {(now.get('reason') or '').replace(chr(10), ' ')[:300]}"))
    return out


def check_expect(check, modes, cli, work, cfgs):
    protocol, exp = check["protocol"], check["expect"]
    jobs = check.get("jobs", [None])[0]
    mode = mode_named(modes, protocol, check["mode"])
    got, code, doc, tail = run(protocol, mode, check.get("cases", []), jobs or mode.get("jobs", 2), cli, work, cfgs)
    label = f"{protocol}/{check['mode']}"
    if got is None:
        return [(code == exp["exit"] and exp.get("no_results", False), f"{label}: exit {code}, no results: {tail[-300:]}")]
    c = counts(got)
    out = [(code == exp["exit"], f"{label}: exit {code} (expected {exp['exit']}) {c}")]
    for cid in exp.get("fail", []):
        v = got.get(cid, {}).get("verdict")
        out.append((v == "FAIL", f"    {cid}: {v} (expected FAIL)"))
    if "fail_at_least" in exp:
        out.append((c.get("FAIL", 0) >= exp["fail_at_least"], f"    {c.get('FAIL', 0)} FAIL (at least {exp['fail_at_least']})"))
    if "blocked_at_least" in exp:
        out.append((c.get("BLOCKED", 0) >= exp["blocked_at_least"], f"    {c.get('BLOCKED', 0)} BLOCKED (at least {exp['blocked_at_least']})"))
    deaths = doc.get("target_deaths", [])
    if exp.get("no_deaths"):
        out.append((not deaths, f"    {len(deaths)} target death(s) (expected none)"))
    if "death_culprits" in exp:
        culprits = sorted({d.get("culprit") for d in deaths if d.get("culprit")})
        out.append((culprits == sorted(exp["death_culprits"]), f"    deaths pinned on {culprits} (expected {exp['death_culprits']})"))
        unpinned = sum(1 for d in deaths if not d.get("culprit"))
        out.append((unpinned == 0, f"    {len(deaths)} death(s), {unpinned} pinned on no case (expected every one pinned)"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="the agentconform binary")
    ap.add_argument("--work", help="keep peers' logs, target files and results here (default: a temporary directory)")
    ap.add_argument("--check", action="append", metavar="PROTOCOL/MODE", help="only these checks (repeatable)")
    ap.add_argument("--group", default="deploy", help="the checks of this group (\"group\" of a check; default: deploy; 'all': every one)")
    args = ap.parse_args()
    missing = run_peers.modules_missing()
    if missing:
        print(f"SKIPPED: {run_peers.PYTHON} lacks a module the peers need ({missing[0]}); scripts/setup.sh installs them")
        return run_peers.SKIP
    cfgs = run_peers.load(os.path.join(run_peers.HERE, "peers.json"))
    modes = run_peers.load(os.path.join(run_peers.HERE, "modes.json"))
    checks = run_peers.load(os.path.join(run_peers.HERE, "deploy_expected.json"))["checks"]
    if args.group != "all":
        checks = [c for c in checks if c.get("group", "deploy") == args.group]
    if args.check:
        checks = [c for c in checks if f"{c['protocol']}/{c['mode']}" in args.check]
        if not checks:
            ap.error("--check names no check of deploy_expected.json")
    work = args.work or tempfile.mkdtemp(prefix="ac-deploy-")
    os.makedirs(work, exist_ok=True)
    baselines = {}

    def lines():
        for check in checks:
            yield from (check_same(check, modes, args.cli, work, cfgs, baselines) if "same_as" in check
                        else check_expect(check, modes, args.cli, work, cfgs))

    return run_peers.report("peers_" + args.group, lines(), work, args.work)


if __name__ == "__main__":
    sys.exit(main())
