#!/usr/bin/env python3
"""Prints the README's table of conformance cases per protocol x suite (Markdown), counted from
the suite files suites/<protocol>/*.json (by the suite each declares), so the table is regenerated rather than maintained by hand:
    python3 scripts/case_table.py
The schema-derived negative cases (suites/<protocol>/generated/*.json, written by
scripts/generate_negative.py) are counted in a column of their own.
"""
import glob
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTOCOLS = ["alp", "agora", "agentprotocol", "a2acp", "chopsticks"]
SUITES = ["lifecycle", "handshake", "contract-negotiation", "streaming", "version-rejection", "error-codes", "generated"]


def main():
    counts = {}
    paths = glob.glob(os.path.join(ROOT, "suites", "*", "*.json")) + glob.glob(os.path.join(ROOT, "suites", "*", "generated", "*.json"))
    for path in paths:
        generated = os.path.basename(os.path.dirname(path)) == "generated"
        protocol = os.path.basename(os.path.dirname(os.path.dirname(path)) if generated else os.path.dirname(path))
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if "cases" not in doc:
            continue  # requirements, variables, target settings
        # Generated cases have a column of their own; the others count under the suite their file
        # declares (suites/<p>/tls.json holds handshake cases).
        suite = "generated" if generated else doc.get("suite", os.path.splitext(os.path.basename(path))[0])
        if suite not in SUITES:
            continue
        for case in doc.get("cases", []):
            key = (protocol, suite, "agent" if case.get("role") == "agent" else "server")
            counts[key] = counts.get(key, 0) + 1
    print("| protocol | " + " | ".join(SUITES) + " | total |")
    print("|---|" + "---:|" * (len(SUITES) + 1))
    grand = 0
    for p in PROTOCOLS:
        cells, total = [], 0
        for s in SUITES:
            server, agent = counts.get((p, s, "server"), 0), counts.get((p, s, "agent"), 0)
            total += server + agent
            if server + agent == 0:
                cells.append("–")
            else:
                cells.append(str(server) + (f" + {agent} client" if agent else ""))
        grand += total
        print(f"| {p} | " + " | ".join(cells) + f" | {total} |")
    print(f"| **all** | " + " | ".join([""] * len(SUITES)) + f" | **{grand}** |")


if __name__ == "__main__":
    main()
