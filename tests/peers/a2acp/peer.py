#!/usr/bin/python3
"""An independent A2ACP 1.0 auth service + ProtocolBrokerAgent, written from a2acp-1.0.md alone.

Auth service (Token Acquisition): POST /auth/token issues HS256 JWTs with the Required Claims.
Broker: validates each message against the Base Message Schema, the token (Token Validation
Rules 1-5), runs the Handshake Flow (accept_handshake to the target, 5 s Handshake timeout),
generates and stores contracts (Contract Negotiation), and routes messages that reference a
contract (Message Routing), with the Error Response Format and the Performance Requirements'
limits. The spec leaves the transport open; this broker takes the WebSocket binding described
atop agentconform's A2ACP driver (one message per text frame at /a2acp/ws?agent_id=&token=),
the only thing taken from outside the spec. The directory (agents, intents, schemas, domain
policy) is read from directory.json, since the spec does not say where it comes from.

Usage: peer.py [PORT] [--role both|auth|broker] [--quirk NAME ...]
"""

import asyncio
import base64
import hashlib
import hmac
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

ISSUER = "a_domain-auth-service"
RETRY_AFTER = {"TIMEOUT": 5, "INTERNAL_ERROR": 1, "RATE_LIMIT_EXCEEDED": 60}
MAX_MESSAGE = 1024 * 1024  # Message Size Limits: 1 MB
MAX_PAYLOAD = 900 * 1024  # 900 KB

QUIRKS = {
    "malformed-contract-violation": "Error Codes: a message that breaks the Base Message Schema is CONTRACT_VIOLATION ('Implementation bug') instead of SCHEMA_MISMATCH",
    "invalid-silent": "Message Format ('MUST conform'; the spec requires no answer to a non-conforming message): an unparseable frame is dropped without an answer",
    "invalid-close": "Message Format: an unparseable frame closes the connection (1007) instead of being answered",
    "auth-first": "Token Validation Rules vs Base Message Schema: the token is checked before the schema, so a malformed message with a bad token is AUTH_FAILED (neither order is given)",
    "payload-schema-mismatch": "Message Routing 2 ('Validate payload against contract schema'): a payload that breaks the contract is SCHEMA_MISMATCH instead of CONTRACT_VIOLATION",
    "pii-contract-violation": "PII Handling ('Contract validator enforces encryption for PII intents'): PII without aes256 is CONTRACT_VIOLATION instead of SECURITY_POLICY_VIOLATION",
    "rejection-as-error": "Handshake Flow 4-5: a target's rejection reaches the source as an error (SECURITY_POLICY_VIOLATION) instead of a response {accepted: false}",
    "attach-requires-token": "(transport left open) a WebSocket without a valid token in the query is refused with 401",
    "size-close-1009": "Message Size Limits: a message over 1 MB closes the WebSocket with 1009 (message too big) instead of an error message",
    "auth-status-403": "Token Acquisition (silent on refusals): a wrong API key gets 403 instead of 401",
    "auth-plain-refusals": "Token Acquisition: refusals are a bare HTTP status with no body",
    "no-api-key": "Token Acquisition names no client credential: the auth service issues tokens without an API key",
}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Refusal(Exception):
    def __init__(self, code, text, details=None):
        super().__init__(text)
        self.code, self.text, self.details = code, text, details


class Service:
    def __init__(self, args):
        self.args = args
        self.q = set(args.quirk)
        self.secret = args.jwt_secret.encode()
        with open(args.directory) as f:
            d = json.load(f)
        self.broker = d["broker"]
        self.intents = d["intents"]
        self.policy = {k: v for k, v in d["policy"].items() if not k.startswith("$")}
        self.directory = {}
        for pool in d["pools"]:
            for n in range(1, pool["count"] + 1):
                aid = f"{pool['prefix']}-{n}"
                self.directory[aid] = {"agent_id": aid, "domain": pool["domain"], "version": pool["version"], "intents": pool["intents"]}
        self.conns = {}  # agent id -> WebSocketResponse
        self.handshakes = {}  # collaboration_id -> dict
        self.contracts = {}  # contract_id -> dict
        self.routed = {}  # (contract_id, correlation) -> timer, source
        self.windows = {}

    # --- JWT (Authentication) ---------------------------------------------------------------------

    def mint(self, sub, aud, capabilities, domain, ttl):
        now = int(time.time())
        header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
        claims = {"sub": sub, "iss": ISSUER, "aud": aud, "exp": now + ttl, "iat": now, "capabilities": capabilities,
                  "domain": domain, "jti": str(uuid.uuid4())}
        body = b64url(json.dumps(claims, separators=(",", ":")).encode())
        sig = b64url(hmac.new(self.secret, f"{header}.{body}".encode(), hashlib.sha256).digest())
        return f"{header}.{body}.{sig}", claims["exp"]

    def verify(self, token, audience, intent=None):
        """Token Validation Rules 1-5, in the spec's order; returns the claims or raises AUTH_FAILED."""
        def fail(why):
            raise Refusal("AUTH_FAILED", why)
        if not isinstance(token, str) or token.count(".") != 2:
            fail("auth_token is not a JWT")
        h, b, s = token.split(".")
        try:
            header, claims, sig = json.loads(b64url_decode(h)), json.loads(b64url_decode(b)), b64url_decode(s)
        except (ValueError, UnicodeDecodeError):
            fail("auth_token is not a JWT")
        if not isinstance(header, dict) or header.get("alg") != "HS256" or not isinstance(claims, dict):
            fail("auth_token must be signed with HS256")
        if not hmac.compare_digest(sig, hmac.new(self.secret, f"{h}.{b}".encode(), hashlib.sha256).digest()):
            fail("rule 1: the signature is not the auth service's")
        for c in ("sub", "iss", "aud", "exp", "iat", "capabilities", "domain"):
            if c not in claims:
                fail(f"required claim {c} is missing")
        if not isinstance(claims["exp"], (int, float)) or isinstance(claims["exp"], bool) or claims["exp"] <= time.time():
            fail("rule 2: the token has expired")
        if not isinstance(claims["iat"], (int, float)) or claims["iat"] > time.time() + 60:
            fail("iat lies in the future")
        if audience is not None and claims["aud"] != audience:
            fail(f"rule 3: aud is {claims['aud']!r}, not the target agent {audience!r}")
        caps = claims["capabilities"] if isinstance(claims["capabilities"], list) else []
        needed = self.intents.get(intent, {}).get("capabilities", []) if intent else []
        missing = [c for c in needed if c not in caps]
        if missing:
            fail(f"rule 4: capabilities {missing} are required for {intent}")
        if claims["iss"] != ISSUER:
            fail(f"rule 5: iss must be {ISSUER}")
        return claims

    # --- Auth service (Token Acquisition) --------------------------------------------------------------

    def auth_refusal(self, status, text):
        if "auth-plain-refusals" in self.q:
            return web.Response(status=status)
        return peerlib.json_response(status, {"error": {"code": "AUTH_FAILED", "message": text}})

    async def token(self, request):
        try:
            body = peerlib.parse_json(await request.read())
        except peerlib.ParseError as e:
            return self.auth_refusal(400, "body is not JSON: " + str(e))
        if not isinstance(body, dict):
            return self.auth_refusal(400, "body must be a JSON object")
        if "no-api-key" not in self.q and body.get("api_key", request.headers.get("X-API-Key")) != self.args.api_key:
            return self.auth_refusal(403 if "auth-status-403" in self.q else 401, "api_key not accepted")
        for f in ("agent_id", "target_agent_id"):
            if not isinstance(body.get(f), str) or not body[f]:
                return self.auth_refusal(400, f"{f} (string) is required")
        caps = body.get("requested_capabilities", [])
        if not isinstance(caps, list) or not all(isinstance(c, str) for c in caps):
            return self.auth_refusal(400, "requested_capabilities must be an array of strings")
        ttl = body.get("ttl", 3600)
        if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl <= 0:
            return self.auth_refusal(400, "ttl must be a positive integer (seconds)")
        ttl = min(ttl, self.args.max_ttl)
        domain = self.directory.get(body["agent_id"], {}).get("domain", body.get("domain", self.broker["domain"]))
        token, exp = self.mint(body["agent_id"], body["target_agent_id"], caps, domain, ttl)
        return peerlib.json_response(200, {"token": token, "expires_at": peerlib.iso_from_epoch(exp)})

    # --- Broker transport -------------------------------------------------------------------------

    async def ws(self, request):
        agent_id, token = request.query.get("agent_id"), request.query.get("token")
        if token is not None or "attach-requires-token" in self.q:
            try:
                claims = self.verify(token, self.broker["agent_id"])
                if agent_id is not None and claims["sub"] != agent_id:
                    raise Refusal("AUTH_FAILED", "the token's sub is not agent_id")
                agent_id = claims["sub"]
            except Refusal as r:
                peerlib.log(self.args, "refused attach:", r.text)
                return web.Response(status=401, text=r.text)
        ws = web.WebSocketResponse(max_msg_size=4 * MAX_MESSAGE, heartbeat=None)
        await ws.prepare(request)
        me = {"id": agent_id}
        if agent_id:
            await self.attach(agent_id, ws)
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await self.on_text(ws, me, msg.data)
                elif msg.type == WSMsgType.BINARY:
                    await self.on_text(ws, me, msg.data.decode("utf-8", "replace"))
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            if me["id"] and self.conns.get(me["id"]) is ws:
                del self.conns[me["id"]]
        return ws

    async def attach(self, agent_id, ws):
        old = self.conns.get(agent_id)
        self.conns[agent_id] = ws
        if old is not None and old is not ws:
            await old.close(code=4000, message=b"replaced by a newer connection")

    def envelope(self, to_agent, message_type, payload, intent=None):
        to = to_agent if isinstance(to_agent, dict) else self.identity(to_agent)
        token, _ = self.mint(self.broker["agent_id"], to["agent_id"], [], self.broker["domain"], 300)
        m = {"protocol_version": "1.0", "message_id": str(uuid.uuid4()), "timestamp": peerlib.now_iso(),
             "source_agent": self.broker, "target_agent": to, "message_type": message_type, "payload": payload,
             "security": {"auth_token": token, "encryption": "none"}}
        if intent:
            m["intent"] = intent
        return m

    def identity(self, agent_id):
        d = self.directory.get(agent_id)
        return {"agent_id": agent_id, "domain": d["domain"], "version": d["version"]} if d else {"agent_id": agent_id, "domain": "unknown", "version": "0.0.0"}

    async def send(self, ws, m):
        if ws is not None and not ws.closed:
            try:
                await ws.send_str(peerlib.dumps(m))
            except ConnectionError:
                pass

    async def error(self, ws, to, r, correlation=None, intent=None):
        err = {"code": r.code, "message": r.text, "retry_after": RETRY_AFTER.get(r.code, 0)}
        if r.details is not None:
            err["details"] = r.details
        if correlation is not None:
            err["correlation_id"] = correlation
        await self.send(ws, self.envelope(to or {"agent_id": "unknown", "domain": "unknown", "version": "0.0.0"}, "error", {"error": err}, intent))

    # --- Broker: validation -------------------------------------------------------------------------

    def schema_problem(self, m):
        if not isinstance(m, dict):
            return "a message is a JSON object"
        for f in ("protocol_version", "message_id", "timestamp", "source_agent", "target_agent", "message_type"):
            if f not in m:
                return f"required member {f} is missing"
        if not isinstance(m["protocol_version"], str) or not re.fullmatch(r"[0-9]+\.[0-9]+", m["protocol_version"]):
            return "protocol_version must match ^\\d+\\.\\d+$"
        if not isinstance(m["message_id"], str) or not peerlib.UUID_RE.match(m["message_id"]):
            return "message_id must be a UUID"
        if not peerlib.valid_iso(m["timestamp"], utc_only=False):
            return "timestamp must be an RFC 3339 date-time"
        for f in ("source_agent", "target_agent"):
            a = m[f]
            if not isinstance(a, dict) or not all(isinstance(a.get(k), str) for k in ("agent_id", "domain", "version")):
                return f"{f} needs agent_id, domain and version (strings)"
            if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", a["version"]):
                return f"{f}.version must match ^\\d+\\.\\d+\\.\\d+$"
        if m["message_type"] not in ("request", "response", "event", "error"):
            return "message_type must be request, response, event or error"
        if "intent" in m and not isinstance(m["intent"], str):
            return "intent must be a string"
        if "payload" in m and not isinstance(m["payload"], dict):
            return "payload must be an object"
        if "security" in m:
            s = m["security"]
            if not isinstance(s, dict) or not isinstance(s.get("auth_token"), str):
                return "security needs auth_token (string)"
            if s.get("encryption", "none") not in ("none", "aes256"):
                return "security.encryption must be none or aes256"
        return None

    def authenticate(self, m, me, intent):
        token = m.get("security", {}).get("auth_token") if isinstance(m.get("security"), dict) else None
        if token is None:
            raise Refusal("AUTH_FAILED", "security.auth_token is required on every message")
        claims = self.verify(token, m["target_agent"]["agent_id"], intent)
        if claims["sub"] != m["source_agent"]["agent_id"]:
            raise Refusal("AUTH_FAILED", "the token's sub is not source_agent.agent_id")
        if me["id"] is not None and claims["sub"] != me["id"]:
            raise Refusal("AUTH_FAILED", f"this connection belongs to {me['id']}")
        return claims

    def allowed(self, a, b):
        return a == b or b in self.policy.get(a, [])

    # --- Broker: messages ---------------------------------------------------------------------------

    async def on_text(self, ws, me, text):
        if len(text.encode()) > MAX_MESSAGE and "size-close-1009" in self.q:
            await ws.close(code=1009, message=b"message over 1 MB")
            return
        if len(text.encode()) > MAX_MESSAGE:
            r = Refusal("CONTRACT_VIOLATION", "message over the 1 MB limit (Message Size Limits)")
            await self.error(ws, None, r)
            return
        try:
            m = peerlib.parse_json(text)
            peerlib.deployment(self.args).received(m)
        except peerlib.ParseError as e:
            if "invalid-silent" in self.q:
                return
            if "invalid-close" in self.q:
                await ws.close(code=1007, message=b"not JSON")
                return
            m, problem = None, "not JSON: " + str(e)
        else:
            problem = None
        source = m.get("source_agent") if isinstance(m, dict) and isinstance(m.get("source_agent"), dict) else None
        payload = m.get("payload") if isinstance(m, dict) and isinstance(m.get("payload"), dict) else {}
        corr = payload.get("correlation_id") if isinstance(payload.get("correlation_id"), str) else None
        try:
            if problem:
                raise Refusal("SCHEMA_MISMATCH", problem)
            await self.process(ws, me, m)
        except (KeyError, TypeError, ValueError, AttributeError) as e:  # a bug of this peer: report, keep the connection
            peerlib.log(self.args, "internal error:", repr(e))
            await self.error(ws, source if source and isinstance(source.get("agent_id"), str) else None,
                             Refusal("INTERNAL_ERROR", "internal error: " + repr(e)[:200]), corr)
        except Refusal as r:
            if r.code == "SCHEMA_MISMATCH" and "malformed-contract-violation" in self.q and r.details == "base":
                r.code = "CONTRACT_VIOLATION"
            peerlib.log(self.args, "refused:", r.code, r.text)
            await self.error(ws, source if source and isinstance(source.get("agent_id"), str) else None, r, corr,
                             m.get("intent") if isinstance(m, dict) and isinstance(m.get("intent"), str) else None)

    async def process(self, ws, me, m):
        intent = m.get("intent") if isinstance(m, dict) and isinstance(m.get("intent"), str) else None
        requested = intent
        if intent == "initiate_handshake" and isinstance(m.get("payload"), dict):
            requested = m["payload"].get("requested_intent")
        requested = requested if isinstance(requested, str) else None
        readable = isinstance(m, dict) and all(isinstance(m.get(f), dict) and isinstance(m[f].get("agent_id"), str)
                                               for f in ("source_agent", "target_agent"))
        if "auth-first" in self.q and readable:  # the token needs source and target to be checked at all
            claims = self.authenticate(m, me, requested)
            self.check_schema(m)
        else:
            self.check_schema(m)
            claims = self.authenticate(m, me, requested)
        if me["id"] is None:
            me["id"] = claims["sub"]  # anonymous connection: the first authenticated message attaches it
            await self.attach(me["id"], ws)
        major = int(m["protocol_version"].split(".")[0])
        if major not in (1, 0):  # Versioning: current 1.0, N-1 majors supported
            raise Refusal("SCHEMA_MISMATCH", f"protocol_version {m['protocol_version']} is incompatible with 1.0 (Compatibility Rules 3)")
        payload = m.get("payload", {})
        if len(peerlib.dumps(payload).encode()) > MAX_PAYLOAD:
            raise Refusal("CONTRACT_VIOLATION", "payload over the 900 KB limit (Message Size Limits)")
        now = time.monotonic()
        w = self.windows.setdefault(claims["sub"], [])
        w[:] = [t for t in w if now - t < 60] + [now]
        if len(w) > self.args.rate_limit:
            raise Refusal("RATE_LIMIT_EXCEEDED", f"more than {self.args.rate_limit} messages per minute")
        if m["target_agent"]["agent_id"] == self.broker["agent_id"]:
            if m["message_type"] == "request" and intent == "initiate_handshake":
                await self.handshake(ws, m, claims)
            elif m["message_type"] == "response" and intent in ("accept_handshake", None) and self.pending_handshake(m):
                await self.handshake_answer(ws, m)
            else:
                raise Refusal("CAPABILITY_NOT_FOUND", f"the broker has no intent {intent!r}")
            return
        await self.route(ws, m, claims)

    def check_schema(self, m):
        problem = self.schema_problem(m)
        if problem:
            raise Refusal("SCHEMA_MISMATCH", problem, "base")
        return None

    # Handshake Flow 1-5, Contract Negotiation 1-3
    async def handshake(self, ws, m, claims):
        p = m.get("payload", {})
        if not isinstance(p.get("target_agent_id"), str) or not isinstance(p.get("requested_intent"), str):
            raise Refusal("SCHEMA_MISMATCH", "payload.target_agent_id and payload.requested_intent (strings) are required")
        target, intent = self.directory.get(p["target_agent_id"]), p["requested_intent"]
        if target is None or p["target_agent_id"] not in self.conns:
            raise Refusal("CAPABILITY_NOT_FOUND", f"agent {p['target_agent_id']} is not registered")
        if intent not in target["intents"] or intent not in self.intents:
            raise Refusal("CAPABILITY_NOT_FOUND", f"{p['target_agent_id']} does not serve {intent}")
        src_domains = {m["source_agent"]["domain"], claims["domain"]}
        if not all(self.allowed(d, target["domain"]) for d in src_domains):
            raise Refusal("SECURITY_POLICY_VIOLATION", f"domain policy forbids {sorted(src_domains)} -> {target['domain']}")
        spec = self.intents[intent]
        offered = p.get("input_schema")
        if isinstance(offered, dict):
            bad = self.incompatible(offered, spec["input_schema"])
            if bad:
                raise Refusal("SCHEMA_MISMATCH", "input schema incompatible with the target's: " + bad,
                              {"expected_schema": spec["input_schema"], "received_schema": offered})
        cid = str(uuid.uuid4())
        hs = {"source": m["source_agent"], "target": self.identity(target["agent_id"]), "intent": intent, "ws": ws,
              "correlation": p.get("correlation_id"), "input_schema": offered if isinstance(offered, dict) else spec["input_schema"]}
        hs["timer"] = asyncio.get_running_loop().call_later(self.args.handshake_timeout_ms / 1000,
                                                            lambda: asyncio.ensure_future(self.handshake_timed_out(cid)))
        self.handshakes[cid] = hs
        await self.send(self.conns[target["agent_id"]], self.envelope(hs["target"], "request", {
            "collaboration_id": cid, "correlation_id": cid, "source_agent": m["source_agent"], "requested_intent": intent},
            "accept_handshake"))

    @staticmethod
    def incompatible(offered, wanted):
        # A JSON Schema, or the flat {member: type} form of the spec's SCHEMA_MISMATCH example.
        if isinstance(offered.get("properties"), dict):
            props = {k: v.get("type") if isinstance(v, dict) else None for k, v in offered["properties"].items()}
        else:
            props = {k: v if isinstance(v, str) else None for k, v in offered.items() if k not in ("type", "required", "$schema")}
        for r in wanted.get("required", []):
            if r not in props:
                return f"required member {r} is not offered"
            want_t = wanted.get("properties", {}).get(r, {}).get("type")
            if want_t and props[r] not in (None, want_t):
                return f"member {r} is {props[r]}, the target expects {want_t}"
        return None

    def pending_handshake(self, m):
        p = m.get("payload", {})
        for key in ("collaboration_id", "correlation_id"):
            if isinstance(p.get(key), str) and p[key] in self.handshakes:
                return p[key]
        sender = m["source_agent"]["agent_id"]
        return next((cid for cid, hs in self.handshakes.items() if hs["target"]["agent_id"] == sender), None)

    async def handshake_answer(self, ws, m):
        cid = self.pending_handshake(m)
        hs = self.handshakes[cid]
        if hs["target"]["agent_id"] != m["source_agent"]["agent_id"]:
            raise Refusal("SECURITY_POLICY_VIOLATION", "only the handshake's target may answer it")
        accepted = m.get("payload", {}).get("accepted")
        if not isinstance(accepted, bool):
            raise Refusal("SCHEMA_MISMATCH", "payload.accepted (boolean) is required (Handshake Flow 4)")
        hs["timer"].cancel()
        del self.handshakes[cid]
        extra = {"correlation_id": hs["correlation"]} if hs["correlation"] else {}
        if not accepted:
            reason = m["payload"].get("reason", "")
            if "rejection-as-error" in self.q:
                await self.error(hs["ws"], hs["source"], Refusal("SECURITY_POLICY_VIOLATION", "the target rejected the handshake: " + str(reason)), hs["correlation"], "initiate_handshake")
            else:
                await self.send(hs["ws"], self.envelope(hs["source"], "response", dict(extra, collaboration_id=cid, accepted=False, reason=reason), "initiate_handshake"))
            return
        spec = self.intents[hs["intent"]]
        contract = {"contract_id": str(uuid.uuid4()), "collaboration_id": cid, "source_agent": hs["source"], "target_agent": hs["target"],
                    "intent": hs["intent"], "input_schema": hs["input_schema"], "output_schema": spec["output_schema"],
                    "security_policy": {"encryption": "aes256" if spec.get("pii") else "none"}}
        self.contracts[contract["contract_id"]] = contract
        await self.send(hs["ws"], self.envelope(hs["source"], "response", dict(extra, collaboration_id=cid, contract=contract, accepted=True), "initiate_handshake"))
        await self.send(ws, self.envelope(hs["target"], "event", {"collaboration_id": cid, "contract": contract}, "contract_established"))

    async def handshake_timed_out(self, cid):
        hs = self.handshakes.pop(cid, None)
        if hs:
            await self.error(hs["ws"], hs["source"], Refusal("TIMEOUT", f"{hs['target']['agent_id']} did not answer the handshake within {self.args.handshake_timeout_ms} ms"), hs["correlation"], "initiate_handshake")

    # Message Routing 1-5
    async def route(self, ws, m, claims):
        p = m.get("payload", {})
        contract = self.contracts.get(p["contract_id"]) if isinstance(p.get("contract_id"), str) else None
        if contract is None:
            raise Refusal("CONTRACT_VIOLATION", "payload.contract_id does not name a contract (Message Routing 2)")
        src, dst = m["source_agent"]["agent_id"], m["target_agent"]["agent_id"]
        forward = (src, dst) == (contract["source_agent"]["agent_id"], contract["target_agent"]["agent_id"])
        backward = (src, dst) == (contract["target_agent"]["agent_id"], contract["source_agent"]["agent_id"])
        if not (forward or backward):
            raise Refusal("CONTRACT_VIOLATION", "this contract is not between these agents")
        if m.get("intent", contract["intent"]) != contract["intent"]:
            raise Refusal("CONTRACT_VIOLATION", f"the contract covers {contract['intent']}, not {m.get('intent')}")
        spec = self.intents[contract["intent"]]
        if spec.get("pii") and m.get("security", {}).get("encryption") != "aes256":
            code = "CONTRACT_VIOLATION" if "pii-contract-violation" in self.q else "SECURITY_POLICY_VIOLATION"
            raise Refusal(code, f"{contract['intent']} carries PII: security.encryption must be aes256 (PII Handling)")
        if m["message_type"] in ("request", "response"):
            schema = contract["input_schema"] if forward else contract["output_schema"]
            body = {k: v for k, v in p.items() if k not in ("contract_id", "correlation_id")}
            errs = peerlib.schema_errors(schema, body, "payload")
            if errs:
                code = "SCHEMA_MISMATCH" if "payload-schema-mismatch" in self.q else "CONTRACT_VIOLATION"
                raise Refusal(code, "payload does not match the contract: " + "; ".join(errs[:3]))
        now = time.monotonic()  # Rate Limits: per collaboration, 100 messages/minute
        w = self.windows.setdefault(("collaboration", contract["collaboration_id"]), [])
        w[:] = [t for t in w if now - t < 60] + [now]
        if len(w) > self.args.collaboration_rate_limit:
            raise Refusal("RATE_LIMIT_EXCEEDED", f"more than {self.args.collaboration_rate_limit} messages per minute in this collaboration")
        target_ws = self.conns.get(dst)
        if target_ws is None:
            raise Refusal("TIMEOUT", f"{dst} is not connected")
        key = (contract["contract_id"], p["correlation_id"] if isinstance(p.get("correlation_id"), str) else None)
        if forward and m["message_type"] == "request":
            timeout = spec.get("timeout_ms", self.args.routing_timeout_ms) / 1000
            self.routed[key] = (asyncio.get_running_loop().call_later(timeout, lambda: asyncio.ensure_future(self.route_timed_out(key, ws, m))), ws)
        elif backward and m["message_type"] in ("response", "error"):
            entry = self.routed.pop(key, None) or self.pop_any(contract["contract_id"])
            if entry:
                entry[0].cancel()
        await self.send(target_ws, m)

    def pop_any(self, contract_id):
        for key in list(self.routed):
            if key[0] == contract_id:
                return self.routed.pop(key)
        return None

    async def route_timed_out(self, key, ws, m):
        if self.routed.pop(key, None):
            await self.error(ws, m["source_agent"], Refusal("TIMEOUT", f"{m['target_agent']['agent_id']} did not respond in time"), key[1], m.get("intent"))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = peerlib.base_parser(__doc__ + "\nQuirks (alternative readings the spec allows):\n" +
                            "\n".join(f"  {k}: {v}" for k, v in QUIRKS.items()))
    p.add_argument("--role", choices=["both", "auth", "broker"], default="both", help="partial roles: the auth service alone (POST /auth/token) or the broker alone (WebSocket; tokens from an auth service sharing --jwt-secret)")
    p.add_argument("--api-key", default="peer-api-key", help="the key the auth service requires as body member api_key (misconfiguration: differ from target.json)")
    p.add_argument("--jwt-secret", default="peer-jwt-secret-for-tests-only-0123456789", help="the HS256 key shared by auth service and broker (RFC 7518 §3.2: at least 32 bytes)")
    p.add_argument("--directory", default=os.path.join(here, "directory.json"))
    p.add_argument("--max-ttl", type=int, default=86400)
    p.add_argument("--handshake-timeout-ms", type=int, default=5000, help="Timeout Values: handshake 5 s")
    p.add_argument("--routing-timeout-ms", type=int, default=30000, help="Timeout Values: routing 30 s (default; per intent in directory.json)")
    p.add_argument("--rate-limit", type=int, default=1000, help="messages per minute per agent (Rate Limits)")
    p.add_argument("--collaboration-rate-limit", type=int, default=100, help="messages per minute per collaboration (Rate Limits)")
    p.add_argument("--quirk", action="append", default=[], choices=sorted(QUIRKS), help="switch to an alternative reading (repeatable)")
    args = p.parse_args()
    if len(args.jwt_secret.encode()) < 32:
        p.error("--jwt-secret: an HS256 key must be at least 32 bytes (RFC 7518 §3.2)")
    svc = Service(args)
    app = web.Application(client_max_size=2 * MAX_MESSAGE)
    if args.role in ("both", "auth"):
        app.router.add_post(peerlib.route(args, "/auth/token"), svc.token)
    if args.role in ("both", "broker"):
        app.router.add_get(peerlib.route(args, "/a2acp/ws"), svc.ws)
    peerlib.run_app(app, args)


if __name__ == "__main__":
    main()
