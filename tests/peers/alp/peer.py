#!/usr/bin/python3
"""An independent Agent Lobby Protocol 0.2.0 lobby, written from alp-0.2.0.md alone.

It exists to test agentconform against a lobby whose author read the spec on their own: HTTP
registration (§4.1, §6 step 1, §10.1), the WebSocket with token and agent_id in the query
(§4.2, §6 steps 2-3), and the message types of §7 routed as §10 describes. Where the spec
leaves a choice, the default is the reading this author found most natural (each is named in
a comment with its section); the --quirk flags switch to another reading the spec also allows,
and the misconfiguration flags reproduce setup mistakes (wrong key, other prefix, TLS).

Usage: peer.py [PORT] [--api-key K] [--quirk NAME ...]   (peer.py --help lists everything)
"""

import asyncio
import os
import sys
import time
import uuid

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import peerlib  # noqa: E402
from aiohttp import web, WSMsgType  # noqa: E402

STANDARD_TYPES = {
    "REGISTER_CLIENT", "REGISTER_CLIENT_ACK", "UNREGISTER_CLIENT", "DISCOVER_CAPABILITIES", "CAPABILITIES_FOUND",
    "DIRECT_MESSAGE", "INVOKE_CAPABILITY_REQUEST", "INVOKE_CAPABILITY_RESPONSE", "LOBBY_BROADCAST", "PING", "PONG",
    "PROTOCOL_ERROR",
}
# §5: every member of the base structure not marked optional/deprecated.
REQUIRED_BASE = ["message_id", "protocol_version", "sender_id", "receiver_id", "message_type", "payload", "timestamp"]
# §9: Capability members not marked Optional.
REQUIRED_CAPABILITY = ["name", "capability_version", "description", "input_schema", "output_schema"]

QUIRKS = {
    "malformed-silent": "§7.5.1/§8.1: an unparseable frame is ignored instead of answered with PROTOCOL_ERROR (the spec says such a message is a protocol problem, and errors 'should' be reported)",
    "malformed-close": "§7.5.1: an unparseable frame closes the connection (1007) instead of a PROTOCOL_ERROR",
    "missing-field-malformed": "§8.3: a missing base member is reported as MESSAGE_MALFORMED, not MISSING_REQUIRED_FIELD (both are listed example codes)",
    "ws-reject-403": "§6 step 3: every refused WebSocket handshake gets 403 (the spec says 'e.g., HTTP 401/403')",
    "ws-accept-then-close": "§6 step 3: an invalid token is refused after the upgrade (PROTOCOL_ERROR AUTH_TOKEN_INVALID, close 1008), an 'equivalent' of the handshake status",
    "plain-refusals": "§10.1 step 1: registration refusals are a bare HTTP status with no body ('HTTP Response with auth_token, lobby_id, or error' names no error format)",
    "register-201": "§10.1 step 1: a successful registration answers 201 Created instead of 200",
    "taken-id-reuse": "§6 step 1: registering an agent_id that is online re-issues a token for the same id (instead of provisioning another id)",
    "taken-id-reject": "§6 step 1: registering an agent_id that is online is refused with 409 (the id is not 'available')",
    "version-accept-any": "§12: protocol_version is never checked (the spec gives no rule to reject another version)",
    "invoke-errors-as-response": "§7.3.3/§8.2: a refused INVOKE_CAPABILITY_REQUEST is answered with INVOKE_CAPABILITY_RESPONSE status 'error' instead of PROTOCOL_ERROR",
    "auth-before-capability": "§10.1 step 5: authorization is checked before the capability lookup (the flow lists 'authorizes for B's capability' without ordering it against the lookup)",
    "no-input-validation": "§9: the lobby does not validate input_data against input_schema (the spec says the lobby MAY)",
    "offline-is-not-found": "§8.3: a receiver that registered but is offline is RECEIVER_NOT_FOUND rather than RECEIVER_UNAVAILABLE",
    "unregister-close": "§7.1.3: the lobby closes the WebSocket itself after UNREGISTER_CLIENT ('closing the WebSocket is the confirmation')",
    "register-failure-protocol-error": "§7.1.2/§7.5.1: an invalid REGISTER_CLIENT is answered with PROTOCOL_ERROR INVALID_PAYLOAD instead of REGISTER_CLIENT_ACK status 'failure'",
    "duplicate-connection-reject": "§6 (silent): a second WebSocket for an agent already connected is refused with 409 instead of replacing the first",
    "lenient-capabilities": "§9: only a capability's name is required (the spec marks no member required explicitly)",
    "route-unmatched-responses": "§10.1 step 5: an INVOKE_CAPABILITY_RESPONSE is routed by receiver_id even when it answers no open invocation sent to its sender ('Lobby routes to Agent A'; the sender_id shows who answered)",
    "api-key-header-only": "§4.1: the API key is read only from the X-API-Key header (the spec does not say where it goes)",
    "defect-register-without-token": "DELIBERATE DEFECT (§6 step 1, §10.1 step 1: registration 'returns an auth_token and the lobby_id'): POST /api/v1/register answers 200 with the usual body but no auth_token, so no WebSocket can be joined (a connect without a valid token is refused 401, §6 step 3)",
}

# Planted bugs of this peer (--bugs; tests/peers/fuzz/planted.py has those every peer shares).
PLANTED_BUGS = {
    "reflect-unreachable": "a routed message whose receiver is not connected draws the PROTOCOL_ERROR §8 wants, and is "
                           "also delivered back to its sender (a fallback route): an agent receives a message addressed "
                           "to another (isolation)",
}


class Session:
    def __init__(self, ws, agent_id):
        self.ws = ws
        self.agent_id = agent_id
        self.session_id = str(uuid.uuid4())
        self.capabilities = []
        self.registered_client = False
        self.unregistered = False
        self.seen_ids = []
        self.window = []


class Lobby:
    def __init__(self, args):
        self.args = args
        self.q = set(args.quirk)
        self.lobby_id = args.lobby_id
        self.tokens = {}  # token -> (agent_id, expires_at epoch)
        self.agents = {}  # agent_id -> {"agent_type", "last_seen"}
        self.sessions = {}  # agent_id -> Session (online)
        self.pending = {}  # request message_id -> (requester, target, conversation_id, timer handle)
        self.ever_registered = set()  # --refuse-reused-ids: every agent_id a registration returned
        self.deploy = peerlib.deployment(args)

    # --- HTTP registration (§4.1, §6 step 1, §10.1 step 1) -------------------------------------

    def refuse(self, status, code, message):
        peerlib.log(self.args, "refused registration:", status, code, message)
        if "plain-refusals" in self.q:
            return web.Response(status=status)
        return peerlib.json_response(status, {"error": {"code": code, "message": message}})

    async def register(self, request):
        try:
            body = peerlib.parse_json(await request.read())
        except peerlib.ParseError as e:
            return self.refuse(400, "MESSAGE_MALFORMED", "registration body is not JSON: " + str(e))
        if not isinstance(body, dict):
            return self.refuse(400, "MESSAGE_MALFORMED", "registration body must be a JSON object")
        key = request.headers.get("X-API-Key")
        if "api-key-header-only" not in self.q and key is None:
            key = body.get("api_key")
        if key is None:
            return self.refuse(401, "API_KEY_INVALID", "no API key")
        if key != self.args.api_key:
            return self.refuse(401, "API_KEY_INVALID", "API key not accepted")
        agent_type = body.get("agent_type")
        if not isinstance(agent_type, str) or not agent_type:
            return self.refuse(400, "MISSING_REQUIRED_FIELD", "agent_type (string) is required")
        agent_id = body.get("agent_id")
        if agent_id is not None and (not isinstance(agent_id, str) or not agent_id):
            return self.refuse(400, "INVALID_PAYLOAD", "agent_id must be a non-empty string")
        if agent_id is not None and self.args.refuse_reused_ids and agent_id in self.ever_registered:
            return self.refuse(409, "ACCESS_DENIED", "agent id already registered")
        if agent_id is None:
            agent_id = str(uuid.uuid4())  # §6: the lobby "provisions one"
        elif agent_id in self.sessions:
            # §6 step 1: "registers the agent (if agent_id is available or provisions one)".
            if "taken-id-reject" in self.q:
                return self.refuse(409, "ACCESS_DENIED", f"agent_id {agent_id} is connected")
            if "taken-id-reuse" not in self.q:
                agent_id = str(uuid.uuid4())
        token = uuid.uuid4().hex + uuid.uuid4().hex
        expires = int(time.time() + self.args.token_ttl + 0.999)  # whole seconds: expires_at is exact, never early
        self.ever_registered.add(agent_id)
        self.agents.setdefault(agent_id, {"agent_type": agent_type, "last_seen": None})["agent_type"] = agent_type
        status = 201 if "register-201" in self.q else 200
        body = {"auth_token": token, "lobby_id": self.lobby_id, "agent_id": agent_id, "expires_at": peerlib.iso_from_epoch(expires)}
        if "defect-register-without-token" in self.q:
            del body["auth_token"]  # the token is neither returned nor kept: no connect can present it
        else:
            self.tokens[token] = (agent_id, expires)
        return peerlib.json_response(status, body)

    async def admin_broadcast(self, request):
        """Not in the spec (§7.4.1 has no trigger): an operator endpoint, enabled by --admin-token."""
        if request.headers.get("Authorization") != "Bearer " + self.args.admin_token:
            return peerlib.json_response(401, {"error": {"code": "ACCESS_DENIED", "message": "admin token required"}})
        try:
            body = peerlib.parse_json(await request.read())
        except peerlib.ParseError as e:
            return peerlib.json_response(400, {"error": {"code": "MESSAGE_MALFORMED", "message": str(e)}})
        if not isinstance(body, dict) or not isinstance(body.get("event_type"), str):
            return peerlib.json_response(400, {"error": {"code": "MISSING_REQUIRED_FIELD", "message": "event_type required"}})
        receiver = body.get("receiver_id", "BROADCAST_ALL")
        targets = list(self.sessions.values()) if receiver == "BROADCAST_ALL" else [s for a, s in self.sessions.items() if a == receiver]
        for s in targets:
            await self.send(s, self.envelope("LOBBY_BROADCAST", receiver, {"event_type": body["event_type"], "data": body.get("data", {})}))
        return peerlib.json_response(200, {"delivered": len(targets)})

    # --- WebSocket (§4.2, §6 steps 2-3) --------------------------------------------------------

    async def connect(self, request):
        token, agent_id = request.query.get("token"), request.query.get("agent_id")
        problem, status = None, 401
        entry = self.tokens.get(token) if token else None
        if not token or not agent_id:
            problem = "token and agent_id query parameters are required"
        elif entry is None:
            problem = "unknown auth_token"
        elif entry[1] <= time.time():
            problem = "auth_token expired"
        elif entry[0] != agent_id:
            problem, status = "auth_token was issued to another agent_id", 403
        elif agent_id in self.sessions and "duplicate-connection-reject" in self.q:
            problem, status = "agent already connected", 409
        if problem and "ws-accept-then-close" not in self.q:
            peerlib.log(self.args, "refused upgrade:", problem)
            return web.Response(status=403 if "ws-reject-403" in self.q else status, text=problem)
        ws = web.WebSocketResponse(max_msg_size=self.args.max_message_bytes, heartbeat=None)
        await ws.prepare(request)
        if problem:
            code = "AUTH_TOKEN_EXPIRED" if "expired" in problem else "AUTH_TOKEN_INVALID"
            await ws.send_str(peerlib.dumps(self.envelope("PROTOCOL_ERROR", agent_id or "", {"error": {"code": code, "message": problem}})))
            await ws.close(code=1008, message=b"authentication failed")
            return ws
        old = self.sessions.get(agent_id)
        session = Session(ws, agent_id)
        self.sessions[agent_id] = session  # a reconnection replaces a stale connection (§6 step 8)
        if old is not None:
            await old.ws.close(code=4000, message=b"replaced by a newer connection")
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    try:
                        await self.on_text(session, msg.data)
                    except Exception as e:  # a bug of this peer must not end the agent's session
                        peerlib.log(self.args, "internal error:", repr(e))
                        await self.protocol_error(session, "INTERNAL_LOBBY_ERROR", "internal error: " + repr(e)[:200], None)
                elif msg.type == WSMsgType.BINARY:
                    await self.protocol_error(session, "MESSAGE_MALFORMED", "messages are JSON text frames (§5)", None)
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            if self.sessions.get(agent_id) is session:
                del self.sessions[agent_id]  # §6 step 8: status becomes offline
                self.agents.setdefault(agent_id, {"agent_type": "", "last_seen": None})["last_seen"] = peerlib.now_iso()
                await self.drop_pending_for(agent_id)
        return ws

    # --- Sending ---------------------------------------------------------------------------------

    def envelope(self, message_type, receiver, payload, conversation_id=None):
        m = {"message_id": str(uuid.uuid4()), "protocol_version": "0.2.0", "sender_id": self.lobby_id,
             "receiver_id": receiver, "message_type": message_type, "payload": payload, "timestamp": peerlib.now_iso()}
        if conversation_id is not None:
            m["conversation_id"] = conversation_id
        return m

    async def send(self, session, message):
        if not session.ws.closed:
            try:
                await session.ws.send_str(peerlib.dumps(message))
            except ConnectionError:
                pass

    async def protocol_error(self, session, code, text, offending, conversation_id=None):
        payload = {"error": {"code": code, "message": text}}
        if offending is not None:
            payload["offending_message_id"] = offending
        await self.send(session, self.envelope("PROTOCOL_ERROR", session.agent_id, payload, conversation_id))

    # --- Receiving (§5, §7) ----------------------------------------------------------------------

    async def on_text(self, s, text):
        try:
            m = peerlib.parse_json(text)
        except peerlib.ParseError as e:
            if "malformed-silent" in self.q:
                return
            if "malformed-close" in self.q:
                await s.ws.close(code=1007, message=b"not JSON")
                return
            await self.protocol_error(s, "MESSAGE_MALFORMED", "not JSON: " + str(e), None)
            return
        self.deploy.received(m)
        if not isinstance(m, dict):
            await self.protocol_error(s, "MESSAGE_MALFORMED", "a message is a JSON object (§5)", None)
            return
        mid = m.get("message_id") if isinstance(m.get("message_id"), str) else None
        conv = m.get("conversation_id") if isinstance(m.get("conversation_id"), str) else None
        missing = [f for f in REQUIRED_BASE if f not in m]
        if missing:
            code = "MESSAGE_MALFORMED" if "missing-field-malformed" in self.q else "MISSING_REQUIRED_FIELD"
            await self.protocol_error(s, code, "missing " + ", ".join(missing) + " (§5)", mid, conv)
            return
        bad = self.base_problem(m)
        if bad:
            await self.protocol_error(s, "MESSAGE_MALFORMED", bad, mid, conv)
            return
        if "version-accept-any" not in self.q and not m["protocol_version"].startswith("0.2."):
            await self.protocol_error(s, "UNSUPPORTED_PROTOCOL_VERSION", f"this lobby speaks 0.2.x, not {m['protocol_version']}", mid, conv)
            return
        if m["sender_id"] != s.agent_id:
            await self.protocol_error(s, "ACCESS_DENIED", "sender_id is not the agent_id this connection authenticated as", mid, conv)
            return
        if mid in s.seen_ids:
            return  # §5: message_id is "crucial for idempotency": a repeated message is not processed twice
        s.seen_ids = (s.seen_ids + [mid])[-1000:]
        if self.rate_limited(s):
            await self.protocol_error(s, "RATE_LIMIT_EXCEEDED", f"more than {self.args.rate_limit} messages per second", mid, conv)
            return
        handler = getattr(self, "on_" + m["message_type"].lower(), None) if m["message_type"] in STANDARD_TYPES else None
        if handler is None:
            if m["receiver_id"] not in (self.lobby_id,) and m["message_type"] not in STANDARD_TYPES:
                await self.route(s, m)  # §12: custom types travel between agents that agree on them
            else:
                await self.protocol_error(s, "INVALID_MESSAGE_TYPE", f"{m['message_type']} is not a message type an agent sends the lobby", mid, conv)
            return
        await handler(s, m)

    def base_problem(self, m):
        for f in ("message_id", "protocol_version", "sender_id", "receiver_id", "message_type", "timestamp"):
            if not isinstance(m[f], str):
                return f"{f} must be a string (§5)"
        if not isinstance(m["payload"], dict):
            return "payload must be an object (§5)"
        if not peerlib.UUID4_RE.match(m["message_id"]):
            return "message_id must be a UUIDv4 (§5)"
        if not peerlib.valid_iso(m["timestamp"]):
            return "timestamp must be ISO 8601 UTC (§5)"
        if "conversation_id" in m and not isinstance(m["conversation_id"], str):
            return "conversation_id must be a string (§5)"
        if "metadata" in m and not isinstance(m["metadata"], dict):
            return "metadata must be an object (§5)"
        return None

    def rate_limited(self, s):
        now = time.monotonic()
        s.window = [t for t in s.window if now - t < 1.0] + [now]
        return len(s.window) > self.args.rate_limit

    # §7.1.1 / §7.1.2
    async def on_register_client(self, s, m):
        p = m["payload"]
        problem = None
        if not isinstance(p.get("capabilities"), list):
            problem = "payload.capabilities must be an array (§7.1.1)"
        else:
            for f in ("agent_version", "sdk_version"):
                if not isinstance(p.get(f), str):
                    problem = f"payload.{f} must be a string (§7.1.1)"
            for i, c in enumerate(p["capabilities"]):
                problem = problem or self.capability_problem(c, i)
        if problem:
            if "register-failure-protocol-error" in self.q:
                await self.protocol_error(s, "INVALID_PAYLOAD", problem, m["message_id"], m.get("conversation_id"))
                return
            ack = {"status": "failure", "lobby_id": self.lobby_id, "message": problem,
                   "server_time_utc": peerlib.now_iso(), "session_id": s.session_id}
        else:
            s.capabilities, s.registered_client, s.unregistered = p["capabilities"], True, False
            ack = {"status": "success", "lobby_id": self.lobby_id, "server_time_utc": peerlib.now_iso(), "session_id": s.session_id}
        await self.send(s, self.envelope("REGISTER_CLIENT_ACK", s.agent_id, ack, m.get("conversation_id")))

    def capability_problem(self, c, i):
        if not isinstance(c, dict):
            return f"capabilities[{i}] must be an object (§9)"
        required = ["name"] if "lenient-capabilities" in self.q else REQUIRED_CAPABILITY
        for f in required:
            if f not in c:
                return f"capabilities[{i}].{f} is required (§9)"
        if not isinstance(c["name"], str) or not c["name"]:
            return f"capabilities[{i}].name must be a non-empty string (§9)"
        if "description" in c and not isinstance(c["description"], str):
            return f"capabilities[{i}].description must be a string (§9)"
        if "capability_version" in c and peerlib.semver(c["capability_version"]) is None:
            return f"capabilities[{i}].capability_version must be a semantic version (§9)"
        for f in ("input_schema", "output_schema", "error_schema", "authorization_rules", "metadata"):
            if f in c and not isinstance(c[f], dict):
                return f"capabilities[{i}].{f} must be an object (§9)"
        if "keywords" in c and not (isinstance(c["keywords"], list) and all(isinstance(k, str) for k in c["keywords"])):
            return f"capabilities[{i}].keywords must be an array of strings (§9)"
        rules = c.get("authorization_rules", {})
        for f in ("allowed_agent_ids", "required_roles"):
            if f in rules and not (isinstance(rules[f], list) and all(isinstance(x, str) for x in rules[f])):
                return f"capabilities[{i}].authorization_rules.{f} must be an array of strings (§9)"
        if "type" in rules and not isinstance(rules["type"], str):
            return f"capabilities[{i}].authorization_rules.type must be a string (§9)"
        return None

    # §7.1.3: no ACK; the agent is no longer offered to others.
    async def on_unregister_client(self, s, m):
        if "reason" in m["payload"] and not isinstance(m["payload"]["reason"], str):
            await self.protocol_error(s, "INVALID_PAYLOAD", "payload.reason must be a string (§7.1.3)", m["message_id"], m.get("conversation_id"))
            return  # §11: validated before it is acted on; the agent stays registered
        s.unregistered, s.capabilities = True, []
        if "unregister-close" in self.q:
            await s.ws.close(code=1000, message=b"unregistered")

    # §7.2
    async def on_discover_capabilities(self, s, m):
        p = m["payload"]
        f = p.get("capability_filter")  # not marked Optional in §7.2.1 (its members are): required
        maxr = p.get("max_results", 10)
        bad_filter = not isinstance(f, dict) or any(k in f and not isinstance(f[k], str) for k in ("name", "version_match")) \
            or ("keywords" in f and not (isinstance(f["keywords"], list) and all(isinstance(k, str) for k in f["keywords"])))
        if bad_filter or isinstance(maxr, bool) or not isinstance(maxr, int) or maxr < 0:
            await self.protocol_error(s, "INVALID_PAYLOAD", "capability_filter (an object) is required, max_results a non-negative integer (§7.2.1)", m["message_id"], m.get("conversation_id"))
            return
        found = []
        for aid, other in self.sessions.items():
            if other.unregistered:
                continue
            caps = []
            for c in other.capabilities:
                ok = self.cap_matches(f, c)
                if ok is None:
                    await self.protocol_error(s, "INVALID_PAYLOAD", "version_match is not a version pattern (§7.2.1)", m["message_id"], m.get("conversation_id"))
                    return
                if ok:
                    caps.append(c)
            if caps:
                found.append({"agent_id": aid, "agent_type": self.agents.get(aid, {}).get("agent_type", ""),
                              "matching_capabilities": caps, "last_seen_utc": peerlib.now_iso()})
        payload = {"query_ref": m.get("conversation_id", ""), "agents": found[:maxr]}
        await self.send(s, self.envelope("CAPABILITIES_FOUND", s.agent_id, payload, m.get("conversation_id")))

    @staticmethod
    def cap_matches(f, c):
        if "name" in f and f["name"] != c.get("name"):
            return False
        if "version_match" in f:
            ok = peerlib.version_matches(str(f["version_match"]), c.get("capability_version", ""))
            if not ok:
                return ok
        kws = f.get("keywords")
        if kws:
            return bool(set(kws) & set(c.get("keywords", [])))  # any keyword matches
        return True

    # §7.3.1 and custom types (§12): routed unchanged.
    async def route(self, s, m):
        target = self.sessions.get(m["receiver_id"])
        if m["receiver_id"] == "BROADCAST_ALL":
            await self.protocol_error(s, "ACCESS_DENIED", "only the lobby may address BROADCAST_ALL (§5)", m["message_id"], m.get("conversation_id"))
            return False
        if target is None or target.unregistered:
            known = m["receiver_id"] in self.agents and "offline-is-not-found" not in self.q
            code = "RECEIVER_UNAVAILABLE" if known else "RECEIVER_NOT_FOUND"
            await self.protocol_error(s, code, f"agent {m['receiver_id']} is not connected", m["message_id"], m.get("conversation_id"))
            if "reflect-unreachable" in peerlib.PLANTED:
                await self.send(s, m)
            return False
        await self.send(target, m)
        return True

    async def on_direct_message(self, s, m):
        p = m["payload"]
        if m["receiver_id"] == self.lobby_id:
            await self.protocol_error(s, "INVALID_MESSAGE_TYPE", "the lobby takes no DIRECT_MESSAGE; address an agent (§7.3.1)", m["message_id"], m.get("conversation_id"))
            return
        if "content_type" not in p or "content" not in p:
            await self.protocol_error(s, "MISSING_REQUIRED_FIELD", "payload.content_type and payload.content are required (§7.3.1)", m["message_id"], m.get("conversation_id"))
            return
        if not isinstance(p["content_type"], str):
            await self.protocol_error(s, "INVALID_PAYLOAD", "payload.content_type must be a string (§7.3.1)", m["message_id"], m.get("conversation_id"))
            return
        await self.route(s, m)

    # §7.3.2, §9, §10.1 step 5, §11 Authorization
    async def on_invoke_capability_request(self, s, m):
        p = m["payload"]
        conv = m.get("conversation_id")
        if not isinstance(p.get("capability_name"), str) or not isinstance(p.get("input_data"), dict):
            return await self.invoke_refused(s, m, "MISSING_REQUIRED_FIELD", "payload.capability_name (string) and input_data (object) are required (§7.3.2)")
        target = self.sessions.get(m["receiver_id"])
        if target is None or target.unregistered:
            known = m["receiver_id"] in self.agents and "offline-is-not-found" not in self.q
            return await self.invoke_refused(s, m, "RECEIVER_UNAVAILABLE" if known else "RECEIVER_NOT_FOUND", f"agent {m['receiver_id']} is not connected")
        caps = [c for c in target.capabilities if c.get("name") == p["capability_name"]]
        checks = [self.check_capability, self.check_authorization]
        if "auth-before-capability" in self.q:
            checks.reverse()
        for check in checks:
            problem = check(s, p, caps)
            if problem:
                return await self.invoke_refused(s, m, *problem)
        cap = caps[0]
        if "capability_version" in p:
            cap = next((c for c in caps if c.get("capability_version") == p["capability_version"]), None)
            if cap is None:
                return await self.invoke_refused(s, m, "CAPABILITY_VERSION_MISMATCH", f"{p['capability_name']} is not offered in version {p['capability_version']}")
        if "no-input-validation" not in self.q:
            errs = peerlib.schema_errors(cap.get("input_schema", {}), p["input_data"], "input_data")
            if errs:
                return await self.invoke_refused(s, m, "INVALID_PAYLOAD_SCHEMA", "; ".join(errs[:3]))
        loop = asyncio.get_running_loop()
        timer = loop.call_later(self.args.invoke_timeout_ms / 1000, lambda: asyncio.ensure_future(self.invoke_timed_out(m["message_id"])))
        self.pending[m["message_id"]] = (s.agent_id, target.agent_id, conv, timer)
        await self.send(target, m)

    def check_capability(self, s, p, caps):
        if not caps:
            return ("CAPABILITY_NOT_FOUND", f"the receiver offers no capability {p['capability_name']}")
        return None

    def check_authorization(self, s, p, caps):
        rules = [c.get("authorization_rules") for c in caps if isinstance(c.get("authorization_rules"), dict)]
        for r in rules:
            kind = r.get("type", "public")
            if kind == "public":
                continue
            if kind == "allow_list" and s.agent_id in r.get("allowed_agent_ids", []):
                continue
            # requires_role: ALP 0.2.0 gives agents no roles, so no agent holds one.
            return ("ACCESS_DENIED", f"{s.agent_id} is not authorized for {p['capability_name']} ({kind})")
        return None

    async def invoke_refused(self, s, m, code, text):
        if "invoke-errors-as-response" in self.q:
            payload = {"request_message_id": m["message_id"], "status": "error", "error_details": {"code": code, "message": text}}
            await self.send(s, self.envelope("INVOKE_CAPABILITY_RESPONSE", s.agent_id, payload, m.get("conversation_id")))
        else:
            await self.protocol_error(s, code, text, m["message_id"], m.get("conversation_id"))

    async def invoke_timed_out(self, request_id):
        entry = self.pending.pop(request_id, None)
        if entry:
            self.deploy.failure(f"invocation {request_id} of {entry[1]}: no INVOKE_CAPABILITY_RESPONSE within {self.args.invoke_timeout_ms} ms")
        if entry and entry[0] in self.sessions:
            payload = {"request_message_id": request_id, "status": "error",
                       "error_details": {"code": "TIMEOUT_ERROR", "message": "the receiver did not respond in time", "retryable": True}}
            await self.send(self.sessions[entry[0]], self.envelope("INVOKE_CAPABILITY_RESPONSE", entry[0], payload, entry[2]))

    async def drop_pending_for(self, agent_id):
        for rid, (req, tgt, conv, timer) in list(self.pending.items()):
            if tgt == agent_id:
                timer.cancel()
                del self.pending[rid]
                if req in self.sessions:
                    payload = {"request_message_id": rid, "status": "error",
                               "error_details": {"code": "RECEIVER_UNAVAILABLE", "message": "the receiver disconnected", "retryable": True}}
                    await self.send(self.sessions[req], self.envelope("INVOKE_CAPABILITY_RESPONSE", req, payload, conv))

    # §7.3.3, §11 Input Validation
    @staticmethod
    def response_problem(p):
        if not isinstance(p.get("request_message_id"), str) or p.get("status") not in ("success", "error", "in_progress", "pending_async"):
            return "request_message_id (string) and status (success|error|in_progress|pending_async) are required (§7.3.3)"
        if p["status"] == "success" and not isinstance(p.get("output_data"), dict):
            return "a success response carries output_data, an object (§7.3.3)"
        if "output_data" in p and not isinstance(p["output_data"], dict):
            return "output_data must be an object (§7.3.3)"
        if "error_details" in p and not isinstance(p["error_details"], dict):
            return "error_details must be an error object (§7.3.3, §8.2)"
        if "progress_info" in p:
            pi = p["progress_info"]
            pct = pi.get("percentage") if isinstance(pi, dict) else None
            if not isinstance(pi, dict) or ("percentage" in pi and (isinstance(pct, bool) or not isinstance(pct, int) or not 0 <= pct <= 100)) \
                    or ("description" in pi and not isinstance(pi["description"], str)):
                return "progress_info is {percentage: integer 0-100, description: string} (§7.3.3)"
        return None

    async def on_invoke_capability_response(self, s, m):
        p = m["payload"]
        problem = self.response_problem(p)
        if problem:
            await self.protocol_error(s, "INVALID_PAYLOAD", problem, m["message_id"], m.get("conversation_id"))
            return
        entry = self.pending.get(p["request_message_id"])
        if "route-unmatched-responses" not in self.q:
            # §7.3.3: request_message_id is "message_id of the original INVOKE_CAPABILITY_REQUEST": only the
            # agent that request went to may answer it, and only to the agent that sent it.
            if entry is None:
                await self.protocol_error(s, "INVALID_PAYLOAD", "request_message_id names no open invocation (§7.3.3)", m["message_id"], m.get("conversation_id"))
                return
            if entry[1] != s.agent_id or entry[0] != m["receiver_id"]:
                await self.protocol_error(s, "ACCESS_DENIED", "that invocation was not sent to this agent by the receiver (§7.3.3)", m["message_id"], m.get("conversation_id"))
                return
        if await self.route(s, m):
            if entry:
                self.deploy.success()  # the receiver answered in time
            if entry and p["status"] in ("success", "error"):
                entry[3].cancel()
                del self.pending[p["request_message_id"]]
            elif entry and p["status"] == "pending_async":
                entry[3].cancel()  # §7.3.3: acknowledged; later responses follow with no deadline

    async def on_ping(self, s, m):
        if m["receiver_id"] != self.lobby_id:
            await self.route(s, m)
            return
        if "nonce" in m["payload"] and not isinstance(m["payload"]["nonce"], str):
            await self.protocol_error(s, "INVALID_PAYLOAD", "payload.nonce must be a string (§7.4.2)", m["message_id"], m.get("conversation_id"))
            return
        payload = {"nonce": m["payload"]["nonce"]} if "nonce" in m["payload"] else {}
        await self.send(s, self.envelope("PONG", s.agent_id, payload, m.get("conversation_id")))

    async def on_pong(self, s, m):
        if m["receiver_id"] != self.lobby_id:
            await self.route(s, m)

    async def on_protocol_error(self, s, m):
        if m["receiver_id"] != self.lobby_id:
            await self.route(s, m)

    async def on_lobby_broadcast(self, s, m):
        await self.protocol_error(s, "ACCESS_DENIED", "LOBBY_BROADCAST is sent by the lobby only (§7.4.1)", m["message_id"], m.get("conversation_id"))


def main():
    p = peerlib.base_parser(__doc__ + "\nQuirks (alternative readings the spec allows):\n" +
                            "\n".join(f"  {k}: {v}" for k, v in QUIRKS.items()), PLANTED_BUGS)
    p.add_argument("--api-key", default="peer-api-key", help="the API key agents must present (misconfiguration: differ from target.json)")
    p.add_argument("--lobby-id", default="peer_lobby_main")
    p.add_argument("--token-ttl", type=float, default=3600, help="auth_token lifetime in seconds (§11: time-limited)")
    p.add_argument("--rate-limit", type=int, default=200, help="messages per second one agent may send (§11 SHOULD)")
    p.add_argument("--invoke-timeout-ms", type=int, default=30000, help="TIMEOUT_ERROR after this long without INVOKE_CAPABILITY_RESPONSE")
    p.add_argument("--max-message-bytes", type=int, default=1048576)
    p.add_argument("--admin-token", help="enable POST /api/v1/admin/broadcast with this bearer token (not in the spec)")
    p.add_argument("--refuse-reused-ids", action="store_true",
                   help="a lobby that never gives an agent_id out twice (§6 step 1 'if agent_id is available'; §10.1 step 1 "
                        "'or error'): a registration asking for an agent_id this process has EVER registered (even one "
                        "unregistered or disconnected since) is refused with 409 and {error: {code: ACCESS_DENIED, message: "
                        "'agent id already registered'}} (§8.2 error object); registrations without agent_id get a fresh one")
    p.add_argument("--quirk", action="append", default=[], choices=sorted(QUIRKS), help="switch to an alternative reading (repeatable; listed above)")
    args = p.parse_args()
    lobby = Lobby(args)
    app = web.Application(client_max_size=args.max_message_bytes * 2)
    app.router.add_post(peerlib.route(args, "/api/v1/register"), lobby.register)
    app.router.add_get(peerlib.route(args, "/ws/connect"), lobby.connect)
    if args.admin_token:
        app.router.add_post(peerlib.route(args, "/api/v1/admin/broadcast"), lobby.admin_broadcast)
    peerlib.run_app(app, args)


if __name__ == "__main__":
    main()
