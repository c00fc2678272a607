#!/usr/bin/env python3
"""Seeds for the in-process hub fuzz targets (fuzz_hub_<protocol>) from conformance transcripts.

    agentconform run --jobs 4 --report json --report-dir /tmp/seedrun
    scripts/transcripts_to_hub_seeds.py /tmp/seedrun/results.json --out /tmp/hub-seeds
    scripts/transcripts_to_hub_seeds.py --dicts fuzz/dict          # (re)writes fuzz/dict/hub_<p>.dict
    scripts/transcripts_to_hub_seeds.py --select CONTROL_FILE --max 40 --out fuzz/corpus/hub_<p>

Every case of the results file whose transcript talks to the reference lobby becomes one input in
the line format of fuzz/hub/README.md: connects, frames, closes and HTTP calls on the hub's routes,
`advance` for the time that passed, `jwt`/`sign` where the harness signed something. Values the hub
generated in the recorded run (tokens, session and collaboration ids, RPC ids) are written as
${name~i} placeholders (the i-th most recent string the hub sent under that member name), so the
seed replays against a fresh hub that generates other values. Agent ids the harness made unique
per run are shortened to x0, x1, ... so that seeds spliced by the fuzzer collide on ids.
fuzz/hub/README.md shows how the committed corpora were chosen (--select: the seeds that cover the
most code, from a libFuzzer merge control file).
"""

import argparse
import base64
import json
import os
import re
import sys

PROTOCOLS = {
    "alp": {"ws": ["/ws/connect"], "http": ["/api/v1/register", "/api/v1/agents", "/api/v1/admin/broadcast"]},
    "agora": {"ws": ["/agora/ws"], "http": []},
    "agentprotocol": {"ws": ["/agentprotocol/ws"], "http": ["/agentprotocol"]},
    "a2acp": {"ws": ["/a2acp/ws"], "http": ["/auth/token", "/a2acp/agents"]},
    "chopsticks": {"ws": ["/chopsticks/ws"], "http": ["/chopsticks/agents", "/chopsticks/request"]},
}

# Mirrors of the driver's bounds (fuzz/hub/hub_driver.cpp), so a seed never relies on more.
MAX_OPS = 96
SLOTS = 8
JWT_SLOTS = 8
MAX_RECORDED_PER_NAME = 8
MAX_RECORDED_VALUE = 4096
MAX_FRAME = 8192          # larger frames are left out of seeds (the fuzzer grows frames itself)
MAX_SEED = 16 * 1024      # the hub targets' max_len (.clusterfuzzlite/build.sh)
ADVANCE_THRESHOLD_MS = 25  # shorter gaps are network latency, not protocol time

API_KEY = "agentconform-test-key"  # the lobby's default api_keys (reference/core/config.hpp)
BROKER = "protocol-broker-agent"   # the A2ACP broker's default id
A2ACP_ISSUER = "a_domain-auth-service"
INTENT_CAPS = {"provision_test_dataset": ["read:datasets"], "provision_patient_records": ["read:patients"]}
POOL_SIZES = {"dataset": 2, "remote": 1, "denied": 1}  # the pools of fuzz/hub/configs/hub_a2acp.json
JWT_RE = re.compile(r"eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")
POOL_RE = re.compile(r"agentconform-(dataset|remote|denied)-(\d{3})")


def b64url_json(segment):
    try:
        return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except (ValueError, json.JSONDecodeError):
        return None


def compact(text):
    """JSON text on one line (the seed format is line-based); None when it cannot be one line."""
    try:
        return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
    except (ValueError, RecursionError):
        return None if "\n" in text or "\r" in text else text


def strings_of(value, out, depth=0):
    """(member name, string value) pairs of a JSON value, as the driver records them."""
    if depth > 16:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str):
                out.append((k, v))
            elif isinstance(v, (dict, list)):
                strings_of(v, out, depth + 1)
    elif isinstance(value, list):
        for v in value:
            strings_of(v, out, depth + 1)


class Seed:
    def __init__(self, case, protocol):
        self.case = case
        self.protocol = protocol
        self.routes = PROTOCOLS[protocol]
        self.lines = []
        self.ops = 0
        self.slots = {}
        self.last_t = 0.0
        self.recorded = {}        # name -> values, most recent first (the driver's record())
        self.client_values = set()
        self.short_ids = {}
        self.pool_ids = {}
        self.keys = {}            # AgentProtocol agentId -> test key index
        self.hub_id = None
        self.jwt_slots = {}       # claims text -> slot
        self.skip_response = {}   # channel -> True when its pending HTTP request was not routed
        cid = re.escape(case["id"].lower())
        self.unique_re = re.compile(cid + r"-[A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+)*?-[0-9a-f]{8}(?![0-9a-f])")
        if protocol == "agentprotocol":
            self.recorded["agentId"] = ["${hub:agentId}"]  # the driver records status() at start
            self.hub_id = self.find_hub_id()

    def find_hub_id(self):
        """The AgentProtocol agent's own id in this run (random per run; the driver's is fixed):
        the sender of frames from the hub that no client frame was sent from."""
        sent_from, received_from = set(), []
        for e in self.case.get("transcript", []):
            if e.get("kind") != "text":
                continue
            try:
                sender = json.loads(e["data"]).get("from", {}).get("agentId")
            except (ValueError, AttributeError, RecursionError):
                continue
            if isinstance(sender, str):
                (sent_from.add(sender) if e.get("direction") == "out" else received_from.append(sender))
        return next((s for s in received_from if s not in sent_from), None)

    # ---- normalization shared by both directions
    def normalize(self, text):
        def short(m):
            return self.short_ids.setdefault(m.group(0), "x%d" % len(self.short_ids))

        def pool(m):
            kind = m.group(1)
            key = m.group(0)
            if key in self.pool_ids.values() and key not in self.pool_ids:
                return key  # already normalized (normalize() runs more than once on some text)
            if key not in self.pool_ids:
                used = sum(1 for v in self.pool_ids.values() if kind in v)
                self.pool_ids[key] = "agentconform-%s-%03d" % (kind, used % POOL_SIZES[kind])
            return self.pool_ids[key]

        text = self.unique_re.sub(short, text)
        text = POOL_RE.sub(pool, text)
        text = text.replace("<redacted:api-key>", API_KEY)
        for agent_id, k in self.keys.items():
            text = text.replace(agent_id, "${key:%d}" % k)
        if self.hub_id:
            text = text.replace(self.hub_id, "${hub:agentId}")
        return text

    def record(self, text):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return
        pairs = []
        strings_of(value, pairs)
        for name, v in pairs:
            if not name or len(name) > 64 or not v or len(v) > MAX_RECORDED_VALUE:
                continue
            values = self.recorded.setdefault(name, [])
            if values and values[0] == v:
                continue
            values.insert(0, v)
            del values[MAX_RECORDED_PER_NAME:]

    def remember_client(self, text):
        try:
            pairs = []
            strings_of(json.loads(text), pairs)
            self.client_values.update(v for _, v in pairs)
        except (ValueError, RecursionError):
            self.client_values.add(text)

    def placeholders(self, text):
        """Server-generated values in client data -> ${name~i}, longest first."""
        candidates = {}
        for name, values in self.recorded.items():
            for i, v in enumerate(values):
                # Redacted secrets are not values (the harness redacts every token it saw alike):
                # tokens() gives them claims of their own.
                if len(v) < 6 or v in self.client_values or v.startswith(("${", "<redacted:")) or v not in text:
                    continue
                if v not in candidates or i < candidates[v][1]:
                    candidates[v] = (name, i)
        for v in sorted(candidates, key=len, reverse=True):
            name, i = candidates[v]
            text = text.replace(v, "${%s}" % name if i == 0 else "${%s~%d}" % (name, i))
        return text

    # ---- tokens (A2ACP) and signatures (AgentProtocol)
    def jwt_placeholder(self, claims):
        text = json.dumps(claims, separators=(",", ":"))
        if text not in self.jwt_slots:
            slot = len(self.jwt_slots) % JWT_SLOTS
            self.jwt_slots = {k: v for k, v in self.jwt_slots.items() if v != slot}
            self.jwt_slots[text] = slot
            self.emit("jwt %d %s" % (slot, text))
        return "${jwt:%d}" % self.jwt_slots[text]

    def claims_for(self, message=None, sub=None, aud=BROKER, domain="a_domain"):
        caps = []
        if isinstance(message, dict):
            src, dst = message.get("source_agent") or {}, message.get("target_agent") or {}
            sub = src.get("agent_id", sub) if isinstance(src, dict) else sub
            domain = src.get("domain", domain) if isinstance(src, dict) else domain
            aud = dst.get("agent_id", aud) if isinstance(dst, dict) else aud
            payload = message.get("payload") if isinstance(message.get("payload"), dict) else {}
            intent = payload.get("requested_intent") or message.get("intent")
            caps = INTENT_CAPS.get(intent, [])
        return {"sub": sub or "sdlc-test-agent", "iss": A2ACP_ISSUER, "aud": aud, "iat": 0, "exp": 3600,
                "capabilities": caps, "domain": domain}

    def tokens(self, text, message=None, sub=None):
        """Tokens in client data -> jwt slots: redacted ones get claims from the message; readable
        ones keep theirs, with times relative to their iat."""
        def readable(m):
            claims = b64url_json(m.group(0).split(".")[1])
            if not isinstance(claims, dict):
                return m.group(0)
            base = claims.get("iat") if isinstance(claims.get("iat"), int) else None
            for k in ("iat", "nbf", "exp"):
                if base is not None and isinstance(claims.get(k), int):
                    claims[k] -= base
            return self.jwt_placeholder(claims)

        if "<redacted:jwt>" in text:
            text = text.replace("<redacted:jwt>", self.jwt_placeholder(self.claims_for(message, sub)))
        return JWT_RE.sub(readable, text)

    def sign_frame(self, text):
        """An AgentProtocol frame the harness signed: `sign K` and the frame without signature."""
        try:
            msg = json.loads(text)
        except (ValueError, RecursionError):
            return None, text
        if not isinstance(msg, dict) or "signature" not in msg or not isinstance(msg.get("from"), dict):
            return None, text
        agent_id = msg["from"].get("agentId")
        if not isinstance(agent_id, str):
            return None, text
        if agent_id not in self.keys and not agent_id.startswith("${"):
            if len(self.keys) >= 4:
                return None, text
            self.keys[agent_id] = len(self.keys)
        k = self.keys.get(agent_id, 0)
        del msg["signature"]
        msg["from"]["agentId"] = "${key:%d}" % k
        return k, json.dumps(msg, separators=(",", ":"), ensure_ascii=False)

    # ---- output
    def emit(self, line):
        self.lines.append(line)
        self.ops += 1

    def at(self, t):
        gap = t - self.last_t
        if gap >= ADVANCE_THRESHOLD_MS:
            self.emit("advance %d" % (int(round(gap / 10.0)) * 10))
            self.last_t = t

    def slot(self, channel, new=False):
        if new or channel not in self.slots:
            if channel not in self.slots:
                self.slots[channel] = len(self.slots) % SLOTS
        return self.slots[channel]

    # ---- entries
    def client_text(self, text, message=None, sub=None):
        text = self.placeholders(self.normalize(text))
        self.remember_client(text)  # after: a server value the client echoes stays a placeholder
        if self.protocol == "a2acp":
            text = self.tokens(text, message, sub)
        return text

    def connect(self, e):
        url = self.normalize(e["data"])
        m = re.match(r"^[a-z]+://[^/]+(/.*)$", url)
        target = m.group(1) if m else url
        if target.split("?")[0] not in self.routes["ws"]:
            return
        sub = None
        q = re.search(r"[?&]agent_id=([^&]*)", target)
        if q:
            sub = q.group(1)
        target = self.placeholders(target)
        self.remember_client(target)
        if self.protocol == "a2acp":
            target = self.tokens(target, None, sub)
        self.at(e["t_ms"])
        self.emit("connect %d %s" % (self.slot(e["channel"], new=True), target))

    def frame(self, e, binary):
        if e.get("truncated") or e.get("invalid_utf8"):
            return
        data = e["data"]
        if binary:
            try:
                data = base64.b64decode(data).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                return
        if e["channel"] not in self.slots or len(data) > MAX_FRAME:
            return
        line = compact(data) if not binary else (data if "\n" not in data and "\r" not in data else None)
        if line is None:
            return
        key = None
        line = self.normalize(line)
        if self.protocol == "agentprotocol" and not binary:
            key, line = self.sign_frame(line)
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            message = None
        line = self.client_text(line, message)
        self.at(e["t_ms"])
        if key is not None:
            self.emit("sign %d" % key)
        self.emit("%s %d %s" % ("binary" if binary else "text", self.slots[e["channel"]], line))

    def http(self, e):
        head, _, body = e["data"].partition("\n\n")
        lines = head.split("\n")
        first = lines[0].split(" ", 1)
        if len(first) != 2:
            return
        method, target = first
        m = re.match(r"^[a-z]+://[^/]+(/.*)$", target)
        target = m.group(1) if m else target
        routed = target.split("?")[0] in self.routes["http"]
        self.skip_response[e["channel"]] = not routed
        if not routed:
            return
        headers = []
        for h in lines[1:]:
            name, sep, value = h.partition(":")
            if sep and name.strip().lower() not in ("host", "content-length"):
                headers.append((name.strip().lower(), value.strip()))
        body_line = ""
        key = None
        if body:
            body_line = compact(body)
            if body_line is None or len(body_line) > MAX_FRAME:
                return
            body_line = self.normalize(body_line)
            if self.protocol == "agentprotocol":
                key, body_line = self.sign_frame(body_line)
            try:
                message = json.loads(body_line)
            except (ValueError, RecursionError):
                message = None
            body_line = self.client_text(body_line, message)
        self.at(e["t_ms"])
        for name, value in headers[:8]:
            self.emit("header %s: %s" % (name, self.client_text(value)))
        if key is not None:
            self.emit("sign %d" % key)
        self.emit(("http %s %s %s" % (method, self.client_text(target), body_line)).rstrip(" "))

    def server_data(self, e):
        kind = e["kind"]
        if kind == "http-response":
            if self.skip_response.pop(e["channel"], True):
                return
            lines = e["data"].split("\n")
            i = 0
            while i < len(lines) and re.match(r"^[a-z-]+: ", lines[i]):
                i += 1
            self.record(self.normalize("\n".join(lines[i:]).strip()))
        elif kind in ("text", "refused"):
            self.record(self.normalize(e["data"]))

    def run(self):
        for e in self.case.get("transcript", []):
            if self.ops >= MAX_OPS:
                break
            d, kind = e.get("direction"), e.get("kind")
            if d == "out" and kind == "connect":
                self.connect(e)
            elif d == "out" and kind in ("text", "binary"):
                self.frame(e, kind == "binary")
            elif d == "out" and kind in ("close", "abort") and e["channel"] in self.slots:
                self.at(e["t_ms"])
                slot = self.slots[e["channel"]]
                self.emit("close %d %d" % (slot, e.get("code") or 1000) if kind == "close" else "drop %d" % slot)
            elif d == "out" and kind == "http-request":
                self.http(e)
            elif d == "in":
                self.server_data(e)
        transcript = self.case.get("transcript", [])
        if transcript and self.ops < MAX_OPS:
            self.at(transcript[-1]["t_ms"])
        text = "# %s: %s\n" % (self.case["id"], self.case.get("title", "").replace("\n", " ")[:120])
        text += "\n".join(self.lines[:MAX_OPS]) + "\n"
        return text if len(text.encode()) <= MAX_SEED else None


def seeds(results, protocols):
    for case in results.get("cases", []):
        p = case.get("protocol")
        # Cases whose role is "agent" test a client through `agentconform serve`: not the hub.
        if p not in protocols or case.get("role") == "agent" or not case.get("transcript"):
            continue
        seed = Seed(case, p).run()
        if seed and seed.count("\n") > 2:
            yield p, case["id"], seed


def write_seeds(args):
    with open(args.results, encoding="utf-8") as f:
        results = json.load(f)
    counts = {}
    for p, case_id, text in seeds(results, args.protocol or list(PROTOCOLS)):
        d = os.path.join(args.out, "hub_" + p)
        os.makedirs(d, exist_ok=True)
        if args.max_per_protocol and counts.get(p, 0) >= args.max_per_protocol:
            continue
        counts[p] = counts.get(p, 0) + 1
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", case_id) + ".txt"
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)
    for p, n in sorted(counts.items()):
        print("hub_%s: %d seeds in %s" % (p, n, os.path.join(args.out, "hub_" + p)))


def greedy_select(args):
    """Picks at most N seeds that cover the most code, from a libFuzzer merge control file
    (`fuzz_hub_P -merge=1 -merge_control_file=CF EMPTY_DIR GENERATED`: one COV line of covered
    edges per input): each round takes the input adding the most edges not yet covered (the
    smaller on a tie), until N are taken or none adds anything. A plain -merge keeps every input
    with a new feature, which for transcript seeds is nearly all of them."""
    with open(args.select, encoding="utf-8") as f:
        lines = f.read().split("\n")
    n = int(lines[0])
    files = lines[2:2 + n]
    cov, size = {}, {}
    for line in lines[2 + n:]:
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "COV":
            cov[int(parts[1])] = set(parts[2:])
        elif len(parts) == 3 and parts[0] == "STARTED":
            size[int(parts[1])] = int(parts[2])
    covered, chosen = set(), []
    while len(chosen) < args.max:
        best = max(cov, key=lambda i: (len(cov[i] - covered), -size.get(i, 0)), default=None)
        if best is None or not cov[best] - covered:
            break
        covered |= cov.pop(best)
        chosen.append(files[best])
    os.makedirs(args.out, exist_ok=True)
    for path in chosen:
        with open(path, "rb") as src, open(os.path.join(args.out, os.path.basename(path)), "wb") as dst:
            dst.write(src.read())
    print("%d seeds covering %d edges -> %s" % (len(chosen), len(covered), args.out))


# ---- dictionaries -----------------------------------------------------------------------------

DRIVER_TOKENS = ["connect ", "upgrade ", "open ", "text ", "binary ", "close ", "drop ", "advance ", "http ",
                 "header ", "jwt ", "sign ", "variant ", "\n", "GET ", "POST ", "PUT ", "DELETE ",
                 "header content-type: application/json", "close 0 1000", "close 1 1001", "advance 1000",
                 "advance 60000", "advance 3600000", "${now}", "${now_s}", "${now_ms}", "${uuid}", "${hub:agentId}"]
PLACEHOLDER_NAMES = {
    "alp": ["auth_token", "session_id", "message_id", "agent_id", "broadcast_id", "conversation_id", "request_message_id"],
    "agora": ["stream_id", "agent_id", "from"],
    "agentprotocol": ["id", "correlationId", "agentId"],
    "a2acp": ["token", "collaboration_id", "contract_id", "correlation_id", "message_id"],
    "chopsticks": ["id", "agentId"],
}
EXTRA = {
    "alp": ["?token=${auth_token}&agent_id=x0", "&agent_id=", "?agent_id=", "x-api-key: agentconform-test-key",
            "authorization: Bearer agentconform-admin", "agentconform-reference-lobby", "BROADCAST_ALL", "0.2.0"],
    "agora": ["?agent_id=", "?id=", "x0", "x1", "x2"],
    "agentprotocol": ["sign 0", "sign 1", "${key:0}", "${key:1}", "${key:2}", "agentprotocol/0.1", "0.1"],
    "a2acp": ["jwt 0 ", "${jwt:0}", "${jwt:1}", "?agent_id=", "&token=", "authorization: Bearer ",
              "\"sub\":", "\"aud\":", "\"iss\":\"a_domain-auth-service\"", "\"iat\":0", "\"exp\":3600", "\"exp\":-1",
              "\"capabilities\":[\"read:datasets\"]", "\"domain\":\"a_domain\"", "protocol-broker-agent",
              "sdlc-test-agent", "dataset-provisioning-agent", "agentconform-dataset-000", "agentconform-remote-000",
              "agentconform-denied-000", "provision_test_dataset", "provision_patient_records", "echo", "echo_quick",
              "x-api-key: agentconform-test-key", "1.0"],
    "chopsticks": ["\"resp\"", "\"req\"", "1.0.0", "{\"agentId\":\"x0\",\"op\":\"ping\",\"data\":{}}"],
}


def dict_line(token):
    out = []
    for ch in token:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\x0A")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def write_dicts(args):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for p, routes in PROTOCOLS.items():
        tokens = list(DRIVER_TOKENS)
        tokens += routes["ws"] + routes["http"]
        tokens += ["${%s}" % n for n in PLACEHOLDER_NAMES[p]] + ["${%s~1}" % n for n in PLACEHOLDER_NAMES[p]]
        tokens += EXTRA[p]
        codec = []
        codec_dict = os.path.join(root, "fuzz", "dict", "codec_%s.dict" % p)
        if os.path.exists(codec_dict):
            with open(codec_dict, encoding="utf-8") as f:
                codec = [l.rstrip("\n") for l in f if l.startswith('"')]
        path = os.path.join(args.dicts, "hub_%s.dict" % p)
        with open(path, "w", encoding="utf-8") as f:
            f.write("# fuzz_hub_%s: the session driver's operations and placeholders (fuzz/hub/README.md), the hub's\n" % p)
            f.write("# routes and ids, then the protocol's member names and types from fuzz/dict/codec_%s.dict.\n" % p)
            f.write("# Generated by scripts/transcripts_to_hub_seeds.py --dicts fuzz/dict.\n")
            seen = set()
            for t in tokens:
                line = dict_line(t)
                if line not in seen:
                    seen.add(line)
                    f.write(line + "\n")
            for line in codec:
                if line not in seen:
                    seen.add(line)
                    f.write(line + "\n")
        print("wrote", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="?", help="results.json of `agentconform run --report json`")
    ap.add_argument("--out", default="hub-seeds", help="writes OUT/hub_<protocol>/<case>.txt (with --select: OUT/<case>.txt)")
    ap.add_argument("--protocol", action="append", choices=sorted(PROTOCOLS), help="only this protocol (repeatable)")
    ap.add_argument("--max-per-protocol", type=int, default=0, help="at most this many seeds per protocol (0: all)")
    ap.add_argument("--dicts", metavar="DIR", help="write DIR/hub_<protocol>.dict")
    ap.add_argument("--select", metavar="CONTROL_FILE", help="copy to --out the --max seeds of a merge control file that cover the most edges")
    ap.add_argument("--max", type=int, default=40, help="with --select: at most this many seeds (default 40)")
    args = ap.parse_args()
    if args.select:
        greedy_select(args)
        return 0
    if args.dicts:
        write_dicts(args)
    if args.results:
        write_seeds(args)
    if not (args.dicts or args.results):
        ap.error("nothing to do: give a results file, --dicts or --select")
    return 0


if __name__ == "__main__":
    sys.exit(main())
