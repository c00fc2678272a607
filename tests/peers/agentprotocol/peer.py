#!/usr/bin/python3
"""An independent AgentProtocol 0.1 peer agent, written from agentprotocol-0.1.md alone.

It answers hello with its own hello (Handshake Flow), serves a few actions as requests
(Request/Response: echo, sleep, fail), signs everything it sends with Ed25519 over the
canonical form the spec describes (Signature Verification: keys sorted recursively, no
`signature`, JSON.stringify), verifies what it receives, and answers problems with `error`
messages using the codes of the Error Codes table. Transports: HTTP POST /agentprotocol (the
answer is the response body) and WebSocket /agentprotocol/ws (Transport Bindings).

Usage: peer.py [PORT] [--seed HEX64] [--transports http,ws] [--quirk NAME ...]
"""

import asyncio
import base64
import binascii
import json
import os
import re
import sys
import time
import uuid

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import peerlib  # noqa: E402
from aiohttp import web, WSMsgType  # noqa: E402
from cryptography.exceptions import InvalidSignature  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey  # noqa: E402
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat  # noqa: E402

CAPABILITY_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s:][^\s]*\Z")
TYPES = {"hello", "request", "response", "notify", "error"}
ACTIONS = {"echo": "peer:echo", "sleep": "peer:sleep", "fail": "peer:fail"}

QUIRKS = {
    "require-signatures": "Signature Verification / Security 1: unsigned messages are refused with INVALID_SIGNATURE ('Always verify signatures before trusting message content'; signing is a SHOULD, so refusing unsigned ones is this peer's policy)",
    "signature-first": "Security 1 vs Error Codes: the signature is verified before the message format is checked, so a malformed message with a bad signature gets INVALID_SIGNATURE (the spec orders neither check)",
    "invalid-silent": "Error Codes (INVALID_MESSAGE 'Message format is invalid'): an unreadable message is dropped without an answer (WebSocket: ignored; HTTP: 400 with no body)",
    "http-error-status": "Transport Bindings/HTTP (silent on statuses): an error answer carries an HTTP error status (400/401/404/429/500) instead of 200",
    "http-status-only": "Transport Bindings/HTTP: refusals are a bare HTTP status with no body (the binding names no error body)",
    "http-notify-204": "Transport Bindings/HTTP: a message that needs no answer (notify, response, error) gets 204 instead of 202",
    "unknown-agent-ignored": "Message Format (to.agentId): a message addressed to another agent is ignored, not answered with UNKNOWN_AGENT",
}
HTTP_STATUS = {"INVALID_MESSAGE": 400, "INVALID_SIGNATURE": 401, "UNKNOWN_AGENT": 404, "CAPABILITY_NOT_SUPPORTED": 404,
               "RATE_LIMITED": 429, "TIMEOUT": 504, "INTERNAL_ERROR": 500}


def canonical(value):
    """Signature Verification steps 1-3: keys sorted recursively, compact JSON.stringify output."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class Refusal(Exception):
    def __init__(self, code, text, correlation=None, details=None):
        super().__init__(text)
        self.code, self.text, self.correlation, self.details = code, text, correlation, details


class Peer:
    def __init__(self, args):
        self.args = args
        self.q = set(args.quirk)
        seed = bytes.fromhex(args.seed) if args.seed else os.urandom(32)
        self.key = Ed25519PrivateKey.from_private_bytes(seed)
        self.agent_id = base64.b64encode(self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()
        self.windows = {}
        print("AGENT_ID", self.agent_id, flush=True)

    def capabilities(self):
        return ["agentprotocol:core"] + list(ACTIONS.values())

    def message(self, to, kind, payload):
        m = {"protocol": "agentprotocol/0.1", "id": str(uuid.uuid4()), "timestamp": peerlib.now_iso(),
             "from": {"agentId": self.agent_id, "name": "independent-peer", "capabilities": self.capabilities()},
             "to": {"agentId": to, "broadcast": False}, "type": kind, "payload": payload}
        m["signature"] = base64.b64encode(self.key.sign(canonical(m))).decode()
        return m

    def error(self, to, r):
        payload = {"code": r.code, "message": r.text}
        if r.correlation is not None:
            payload["correlationId"] = r.correlation
        if r.details is not None:
            payload["details"] = r.details
        return self.message(to or "", "error", payload)

    # --- Checks ---------------------------------------------------------------------------------

    @staticmethod
    def format_problem(m):
        if not isinstance(m, dict):
            return "a message is a JSON object"
        if m.get("protocol") != "agentprotocol/0.1":
            return "protocol must be 'agentprotocol/0.1'"
        if not isinstance(m.get("id"), str) or not peerlib.UUID_RE.match(m["id"]):
            return "id must be a UUID"
        if not peerlib.valid_iso(m.get("timestamp"), utc_only=False):
            return "timestamp must be ISO 8601"
        f = m.get("from")
        if not isinstance(f, dict) or not isinstance(f.get("agentId"), str) or not f["agentId"]:
            return "from.agentId (string) is required"
        if "name" in f and not isinstance(f["name"], str):
            return "from.name must be a string"
        # Design Principles 4 ("Minimal - Only required fields"): every field of the Base Message is
        # required except the one marked optional (from.name) and the signature (a SHOULD).
        if not (isinstance(f.get("capabilities"), list) and all(isinstance(c, str) and CAPABILITY_URI.match(c) for c in f["capabilities"])):
            return "from.capabilities must be an array of capability URIs (scheme:name)"
        t = m.get("to")
        if not isinstance(t, dict) or not isinstance(t.get("broadcast"), bool):
            return "to.broadcast (boolean) is required"
        if not (isinstance(t.get("agentId"), str) or t["broadcast"]):
            return "to.agentId (string) is required unless to.broadcast is true"
        if m.get("type") not in TYPES:
            return f"type must be one of {sorted(TYPES)}"
        if not isinstance(m.get("payload"), dict):
            return "payload must be an object"
        if "signature" in m and not isinstance(m["signature"], str):
            return "signature must be a base64 string"
        if "metadata" in m and not isinstance(m["metadata"], dict):
            return "metadata must be an object (Extensibility: custom fields go into it)"
        return None

    def signature_problem(self, m):
        if not isinstance(m, dict) or "signature" not in m:
            return "message is not signed" if "require-signatures" in self.q else None
        try:
            raw = base64.b64decode(m["signature"], validate=True)
            pub = base64.b64decode(m["from"]["agentId"], validate=True)
            body = {k: v for k, v in m.items() if k != "signature"}
            Ed25519PublicKey.from_public_bytes(pub).verify(raw, canonical(body))
        except (InvalidSignature, ValueError, binascii.Error, TypeError, KeyError, AttributeError):
            return "signature does not verify against from.agentId"
        return None

    def check(self, m):
        correlation = None
        if isinstance(m, dict) and isinstance(m.get("payload"), dict):
            correlation = m["payload"].get("correlationId") if isinstance(m["payload"].get("correlationId"), str) else None
        checks = [("INVALID_MESSAGE", self.format_problem), ("INVALID_SIGNATURE", self.signature_problem)]
        if "signature-first" in self.q:
            checks.reverse()
        for code, fn in checks:
            problem = fn(m)
            if problem:
                raise Refusal(code, problem, correlation)
        to = m["to"]
        if not to.get("broadcast") and to.get("agentId") != self.agent_id:
            raise Refusal("UNKNOWN_AGENT", f"this peer is {self.agent_id}, not {to.get('agentId')}", correlation)
        now = time.monotonic()
        w = self.windows.setdefault(m["from"]["agentId"], [])
        w[:] = [t for t in w if now - t < 1.0] + [now]
        if len(w) > self.args.rate_limit:
            raise Refusal("RATE_LIMITED", f"more than {self.args.rate_limit} messages per second", correlation)

    # --- Answers ----------------------------------------------------------------------------------

    async def answer(self, text):
        """Returns the reply message (or None when the message needs none), and the refusal code if any."""
        sender = None
        try:
            m = peerlib.parse_json(text)
            peerlib.deployment(self.args).received(m)
            if isinstance(m, dict) and isinstance(m.get("from"), dict) and isinstance(m["from"].get("agentId"), str):
                sender = m["from"]["agentId"]
            self.check(m)
            return await self.dispatch(m), None
        except peerlib.ParseError as e:
            r = Refusal("INVALID_MESSAGE", "not JSON: " + str(e))
        except Refusal as e:
            r = e
        if r.code == "UNKNOWN_AGENT" and "unknown-agent-ignored" in self.q:
            return None, None
        if r.code == "INVALID_MESSAGE" and "invalid-silent" in self.q:
            return None, r.code
        return self.error(sender, r), r.code

    async def dispatch(self, m):
        sender, p = m["from"]["agentId"], m["payload"]
        if m["type"] == "hello":
            if not isinstance(p.get("version"), str):
                raise Refusal("INVALID_MESSAGE", "a hello carries payload.version (Hello Message)")
            if "features" in p and not (isinstance(p["features"], list) and all(isinstance(x, str) for x in p["features"])):
                raise Refusal("INVALID_MESSAGE", "payload.features must be an array of strings (Hello Message)")
            if p["version"] != "0.1":
                raise Refusal("INVALID_MESSAGE", f"this peer speaks version 0.1, not {p['version']}")
            return self.message(sender, "hello", {"version": "0.1", "features": ["signed-messages"]})
        if m["type"] != "request":
            return None  # response, notify, error: nothing to answer
        corr = p.get("correlationId")
        if not isinstance(corr, str) or not isinstance(p.get("action"), str):
            raise Refusal("INVALID_MESSAGE", "a request needs payload.action and payload.correlationId (strings)", corr if isinstance(corr, str) else None)
        action, params = p["action"], p.get("params", {})
        if not isinstance(params, dict):
            raise Refusal("INVALID_MESSAGE", "payload.params must be an object (Request)", corr)
        if action not in ACTIONS:
            raise Refusal("CAPABILITY_NOT_SUPPORTED", f"this peer does not support {action}", corr,
                          {"requested": action, "available": sorted(ACTIONS)})
        timeout = p.get("timeout")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
            raise Refusal("INVALID_MESSAGE", "payload.timeout must be a positive number of milliseconds", corr)
        try:
            result = await asyncio.wait_for(self.run(action, params, corr), timeout / 1000 if timeout else None)
        except asyncio.TimeoutError:
            raise Refusal("TIMEOUT", f"{action} did not finish within {timeout} ms", corr) from None
        return self.message(sender, "response", {"correlationId": corr, "status": "success", "result": result})

    async def run(self, action, params, corr):
        if action == "echo":
            return params
        if action == "sleep":
            ms = params.get("ms", 0) if isinstance(params, dict) else 0
            await asyncio.sleep(min(float(ms) if isinstance(ms, (int, float)) else 0, 10000) / 1000)
            return {"slept_ms": ms}
        raise Refusal("INTERNAL_ERROR", "the fail action always fails", corr)

    # --- Transports -------------------------------------------------------------------------------

    async def http(self, request):
        reply, code = await self.answer(await request.read())
        if reply is None:
            if code is not None:  # invalid-silent
                return web.Response(status=400)
            return web.Response(status=204 if "http-notify-204" in self.q else 202)
        status = 200
        if code is not None and ("http-error-status" in self.q or "http-status-only" in self.q):
            status = HTTP_STATUS[code]
            if "http-status-only" in self.q:
                return web.Response(status=status)
        return peerlib.json_response(status, reply)

    async def ws(self, request):
        ws = web.WebSocketResponse(max_msg_size=self.args.max_message_bytes, heartbeat=None)
        await ws.prepare(request)
        tasks = set()

        async def reply_to(text):
            reply, _ = await self.answer(text)
            if reply is not None and not ws.closed:
                try:
                    await ws.send_str(peerlib.dumps(reply))
                except ConnectionError:
                    pass

        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                t = asyncio.ensure_future(reply_to(msg.data))  # slow actions must not block the next message
                tasks.add(t)
                t.add_done_callback(tasks.discard)
            elif msg.type == WSMsgType.BINARY:
                t = asyncio.ensure_future(reply_to(msg.data.decode("utf-8", "replace")))
                tasks.add(t)
                t.add_done_callback(tasks.discard)
            elif msg.type == WSMsgType.ERROR:
                break
        for t in tasks:
            t.cancel()
        return ws


def main():
    p = peerlib.base_parser(__doc__ + "\nQuirks (alternative readings the spec allows):\n" +
                            "\n".join(f"  {k}: {v}" for k, v in QUIRKS.items()))
    p.add_argument("--seed", help="the Ed25519 private key seed, 64 hex digits (random otherwise); the agentId is printed as 'AGENT_ID <id>'")
    p.add_argument("--transports", default="http,ws", help="comma-separated: http (POST /agentprotocol), ws (/agentprotocol/ws); a partial role serves one")
    p.add_argument("--rate-limit", type=int, default=200, help="messages per second per sender before RATE_LIMITED (Security 3)")
    p.add_argument("--max-message-bytes", type=int, default=1048576)
    p.add_argument("--quirk", action="append", default=[], choices=sorted(QUIRKS), help="switch to an alternative reading (repeatable)")
    args = p.parse_args()
    peer = Peer(args)
    app = web.Application(client_max_size=args.max_message_bytes)
    transports = set(args.transports.split(","))
    if "http" in transports:
        app.router.add_post(peerlib.route(args, "/agentprotocol"), peer.http)
    if "ws" in transports:
        app.router.add_get(peerlib.route(args, "/agentprotocol/ws"), peer.ws)
    peerlib.run_app(app, args)


if __name__ == "__main__":
    main()
