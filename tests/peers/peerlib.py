"""Shared plumbing of the independent test peers (tests/peers/<protocol>/peer.py).

Each peer is a small server written from one spec in /work/shared/specs/, not from the
reference lobby, so that agentconform is exercised against an implementation by someone who
read the spec on their own. This module holds what every peer needs and no protocol logic:
the command line common to all (port, route prefix, TLS), strict JSON parsing, ISO 8601 and
UUID checks, and starting an aiohttp server on 127.0.0.1 that prints the port it listens on.
It also holds the behaviours of real deployments that no spec describes but every operator
adds in front of a server (class Deployment: a per-address connection cap, a circuit breaker,
a process that dies after one kind of message), so that agentconform meets them too.

Debian 12 packages only: python3-aiohttp (HTTP + WebSocket on one port) and, for the
AgentProtocol peer, python3-cryptography (Ed25519). Run with /usr/bin/python3.
"""

import argparse
import asyncio
import datetime
import collections
import json
import os
import re
import signal
import ssl
import sys
import time

from aiohttp import web

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
import planted  # noqa: E402  (tests/peers/fuzz/planted.py: the bugs --bugs plants)

UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z", re.ASCII)
UUID4_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}\Z", re.ASCII)
# ISO 8601 date-time in UTC: Z or a zero offset, optional fraction.
ISO_UTC_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|\+00:00|\+0000)\Z", re.ASCII)
ISO_ANY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})\Z", re.ASCII)


def base_parser(description, peer_bugs=None):
    """The flags every peer has: where it listens and the misconfigurations a user might have.
    `peer_bugs`: the planted bugs of this peer besides planted.GENERIC (name -> what it does)."""
    bugs = dict(planted.GENERIC, **(peer_bugs or {}))
    description += "\n\nPlanted bugs (--bugs, for the fuzzer's tests; none by default):\n" + "\n".join(f"  {k}: {v}" for k, v in bugs.items())
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("port", type=int, nargs="?", default=0, help="TCP port on 127.0.0.1 (0: pick one; the chosen port is printed as 'LISTENING <port>')")
    p.add_argument("--prefix", default="", help="misconfiguration: serve every route under this prefix (e.g. /v2), so the harness's default paths 404")
    p.add_argument("--tls-cert", help="serve TLS with this certificate (PEM); plain HTTP otherwise")
    p.add_argument("--tls-key", help="the private key of --tls-cert (PEM)")
    p.add_argument("--quiet", action="store_true", help="do not log each refusal to stderr")
    p.add_argument("--bugs", type=lambda text: bug_list(text, bugs), default=[], metavar="LIST",
                   help="plant these bugs (comma-separated, or 'none'; listed below): the fuzzer's targets")
    d = p.add_argument_group("deployment behaviours (no spec describes them; real deployments have them)")
    d.add_argument("--max-connections-per-address", type=int, default=0, metavar="N",
                   help="per-address connection cap (ALP §11 'connection limits'; the other specs are silent): a WebSocket "
                        "upgrade that arrives while N WebSocket connections from the same remote address are open is accepted, "
                        "then closed at once with code 1008 (policy violation) and reason 'too-many-connections', as a public "
                        "controller does; 0 (default): no cap")
    d.add_argument("--breaker-failures", type=int, default=0, metavar="K",
                   help="circuit breaker (no spec section): after K consecutive failures this peer counts itself (a request that "
                        "timed out waiting for an agent: Chopsticks POST /chopsticks/request without resp in time, ALP invocation "
                        "TIMEOUT_ERROR) the breaker opens for --breaker-open-ms; while open every HTTP request, and every WebSocket "
                        "upgrade, is answered 503 with Retry-After: 1 and body {\"error\":{\"code\":\"BUSY\",\"message\":\"Breaker is open\"}}; "
                        "a success (an answer that arrived in time) closes it and resets the count; 0 (default): off")
    d.add_argument("--breaker-open-ms", type=int, default=5000, metavar="T", help="how long an opened breaker stays open (default 5000 ms)")
    d.add_argument("--die-after-message", action="append", default=[], metavar="TYPE[:MS]",
                   help="a fragile deployment (no spec section): the process exits with status 70 (os._exit) MS milliseconds "
                        "(default 5) after it receives a message whose type (member `type`, or `message_type` for ALP) is TYPE; "
                        "repeatable; default off")
    return p


def bug_list(text, known):
    names = [b for b in text.split(",") if b and b != "none"]
    unknown = [b for b in names if b not in known]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown bug {unknown[0]!r} (known: {', '.join(known)})")
    return names


# The planted bugs of this process (run_app sets them from --bugs; none until then).
PLANTED = planted.NONE


class ParseError(Exception):
    pass


def _no_constants(name):
    raise ParseError("non-JSON number constant " + name)


def parse_json(text):
    """Strict JSON: NaN/Infinity are refused (RFC 8259 has no such numbers). `text` may be the
    bytes of an HTTP body (request.read()): bytes that are not UTF-8 are refused like any text
    that is not JSON (RFC 8259 §8.1), never left to raise in the handler (an HTTP 500)."""
    try:
        if isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as e:
                raise ParseError(f"not UTF-8 (RFC 8259 §8.1): {e.reason} at byte {e.start}") from None
        value = json.loads(text, parse_constant=_no_constants)
    except ParseError:
        PLANTED.unparsable(False)
        raise
    except (ValueError, RecursionError) as e:
        PLANTED.unparsable(isinstance(e, RecursionError))
        raise ParseError(str(e)) from None
    PLANTED.parsed(value)
    return value


def dumps(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def iso_from_epoch(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def valid_iso(text, utc_only=True):
    if not isinstance(text, str):
        return False
    if not (ISO_UTC_RE if utc_only else ISO_ANY_RE).match(text):
        return False
    try:
        datetime.datetime.fromisoformat(text.replace("Z", "+00:00")[:19])
    except ValueError:
        return False
    return True


def log(args, *parts):
    if not getattr(args, "quiet", False):
        print("peer:", *parts, file=sys.stderr, flush=True)


def json_response(status, body):
    return web.Response(status=status, text=dumps(body), content_type="application/json")


# --- Deployment behaviours ----------------------------------------------------------------------

BUSY_BODY = {"error": {"code": "BUSY", "message": "Breaker is open"}}


class Deployment:
    """What a real deployment adds around a protocol server (flags of base_parser's group
    'deployment behaviours'). run_app installs it on every peer's application: a middleware
    that refuses requests while the breaker is open and enforces the per-address cap on
    WebSocket upgrades before the peer's WebSocket handler runs, and a response-prepare signal
    that counts each WebSocket a handler accepts until that handler returns. A peer reports its
    own failures and successes (failure(), success()) and each message it receives (received())."""

    def __init__(self, args):
        self.args = args
        self.cap = getattr(args, "max_connections_per_address", 0) or 0
        self.open_ws = collections.Counter()  # remote address -> WebSocket connections open
        self.breaker_k = getattr(args, "breaker_failures", 0) or 0
        self.breaker_ms = getattr(args, "breaker_open_ms", 5000)
        self.failures = 0
        self.open_until = 0.0
        self.die = {}
        for spec in getattr(args, "die_after_message", []) or []:
            kind, _, ms = spec.partition(":")
            self.die[kind] = int(ms) if ms else 5
        self.dying = False

    # circuit breaker
    def breaker_open(self):
        if self.open_until and time.monotonic() >= self.open_until:
            self.open_until = 0.0
            log(self.args, "breaker closed (open time over)")
        return self.open_until > 0.0

    def failure(self, why):
        if not self.breaker_k:
            return
        self.failures += 1
        log(self.args, f"breaker: failure {self.failures}/{self.breaker_k}: {why}")
        if self.failures >= self.breaker_k and not self.breaker_open():
            self.open_until = time.monotonic() + self.breaker_ms / 1000
            self.failures = 0
            print(f"peer: breaker OPEN for {self.breaker_ms} ms after {self.breaker_k} consecutive failures", file=sys.stderr, flush=True)

    def success(self):
        if not self.breaker_k:
            return
        if self.failures or self.open_until:
            log(self.args, "breaker: success, closed")
        self.failures = 0
        self.open_until = 0.0

    # die after a message type
    def received(self, message):
        """Call with every message a peer parsed (a JSON object); exits after the configured types."""
        if not self.die or self.dying or not isinstance(message, dict):
            return
        kind = message.get("type")
        if not isinstance(kind, str) or kind not in self.die:
            kind = message.get("message_type")
        if not isinstance(kind, str) or kind not in self.die:
            return
        self.dying = True
        ms = self.die[kind]
        print(f"peer: received a {kind} message: exiting with status 70 in {ms} ms (--die-after-message)", file=sys.stderr, flush=True)
        asyncio.get_running_loop().call_later(ms / 1000, os._exit, 70)

    # aiohttp hooks
    def install(self, app):
        app.middlewares.append(self.middleware)
        app.on_response_prepare.append(self.on_prepare)

    @web.middleware
    async def middleware(self, request, handler):
        upgrade = "websocket" in request.headers.get("Upgrade", "").lower()
        if self.breaker_open():
            log(self.args, "breaker open: 503 for", request.method, request.path)
            return web.Response(status=503, text=dumps(BUSY_BODY), content_type="application/json", headers={"Retry-After": "1"})
        addr = request.remote or ""
        if upgrade and self.cap and self.open_ws[addr] >= self.cap:
            log(self.args, f"connection cap: {self.open_ws[addr]} WebSockets open from {addr}: accept, close 1008")
            request["deploy_refused"] = True
            ws = web.WebSocketResponse(heartbeat=None)
            await ws.prepare(request)
            await ws.close(code=1008, message=b"too-many-connections")
            return ws
        try:
            return await handler(request)
        finally:
            if request.get("deploy_counted"):
                self.open_ws[addr] -= 1
                if self.open_ws[addr] <= 0:
                    del self.open_ws[addr]

    async def on_prepare(self, request, response):
        if isinstance(response, web.WebSocketResponse) and not request.get("deploy_refused") and not request.get("deploy_counted"):
            request["deploy_counted"] = True
            self.open_ws[request.remote or ""] += 1


def deployment(args):
    """The Deployment of this process (one per parsed command line)."""
    d = getattr(args, "_deployment", None)
    if d is None:
        d = Deployment(args)
        args._deployment = d
    return d


def run_app(app, args):
    """Serves `app` on 127.0.0.1:args.port until SIGTERM/SIGINT; prints 'LISTENING <port>' once bound."""
    global PLANTED
    PLANTED = planted.Planted(getattr(args, "bugs", []))
    deployment(args).install(app)
    ctx = None
    if args.tls_cert:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)

    async def main():
        runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", args.port, ssl_context=ctx)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        print("LISTENING", port, flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for s in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(s, stop.set)
        await stop.wait()
        await runner.cleanup()

    asyncio.run(main())


def route(args, path):
    return args.prefix.rstrip("/") + path


# --- A small JSON Schema subset (draft-07 keywords the specs' examples use) -------------------
# ALP §9 asks the lobby (MAY) and agents (MUST) to validate input_data against a capability's
# input_schema; A2ACP's broker validates payloads against contract schemas. Unknown keywords are
# ignored, as JSON Schema prescribes.

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def schema_errors(schema, value, where="$"):
    """Returns a list of 'where: problem' strings (empty when value conforms)."""
    if schema is True or not isinstance(schema, dict):
        return []
    if schema is False:
        return [where + ": no value allowed"]
    errs = []
    t = schema.get("type")
    if t is not None:
        types = t if isinstance(t, list) else [t]
        if not any(_TYPES.get(x, lambda v: True)(value) for x in types):
            return [f"{where}: expected {'/'.join(map(str, types))}"]
    if "enum" in schema and value not in schema["enum"]:
        errs.append(f"{where}: not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        errs.append(f"{where}: must be {schema['const']!r}")
    if isinstance(value, dict):
        for r in schema.get("required", []):
            if r not in value:
                errs.append(f"{where}: missing required member '{r}'")
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                errs += schema_errors(props[k], v, f"{where}.{k}")
            elif schema.get("additionalProperties") is False:
                errs.append(f"{where}: member '{k}' not allowed")
            elif isinstance(schema.get("additionalProperties"), dict):
                errs += schema_errors(schema["additionalProperties"], v, f"{where}.{k}")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, v in enumerate(value):
            errs += schema_errors(schema["items"], v, f"{where}[{i}]")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errs.append(f"{where}: shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errs.append(f"{where}: longer than {schema['maxLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errs.append(f"{where}: does not match {schema['pattern']}")
    if _TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            errs.append(f"{where}: below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errs.append(f"{where}: above {schema['maximum']}")
    return errs


# --- Semantic versions (ALP §7.2.1 version_match, A2ACP agent versions) ------------------------

SEMVER_RE = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?\Z", re.ASCII)


def semver(text):
    m = SEMVER_RE.match(text) if isinstance(text, str) else None
    if not m:
        return None
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4) is None, m.group(4) or "")


def version_matches(pattern, version):
    """'1.x', '1.2.x', '>=2.0.0', '<3.0.0', '=1.0.0', '1.0.2' (exact); None when the pattern is unreadable."""
    v = semver(version)
    if v is None:
        return False
    pattern = pattern.strip()
    m = re.match(r"^(\d+)(?:\.(\d+|x|\*))?(?:\.(x|\*))?$", pattern)
    if m and (m.group(2) in (None, "x", "*") or m.group(3) is not None):
        if int(m.group(1)) != v[0]:
            return False
        return m.group(2) in (None, "x", "*") or int(m.group(2)) == v[1]
    m = re.match(r"^(>=|<=|>|<|=|==)?\s*(.+)$", pattern)
    want = semver(m.group(2)) if m else None
    if want is None:
        return None
    op = m.group(1) or "="
    a, b = v[:4], want[:4]
    return {">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b, "=": a == b, "==": a == b}[op]
