#!/usr/bin/python3
"""An independent Chopsticks 1.0.0 controller, written from chopsticks-1.0.0.md alone.

Agents connect over WebSocket and greet with `hello` (Version Negotiation: missing or
unsupported protocolVersion -> `error` message and close 1008; missing agentId -> ignored);
live agents are kept in a liveAgents map updated by hello heartbeats, `guilds` and `event`
messages and dropped on close (Connection Lifecycle); invalid messages are ignored (Error
Handling table). The spec gives the controller no API through which an operator issues a
`req`; this controller has one (the "admin API", like a bot command handler would be):
GET /chopsticks/agents lists live agents and POST /chopsticks/request {agentId, op, data}
sends a req and answers with the agent's resp (RPC Flow; 30 s default timeout).

Deployment choices (legitimate, not defects): --key-sessions guild-channel keys the sessions
map by (guildId, voiceChannelId) instead of by agent, as some real controllers do.

Usage: peer.py [PORT] [--no-admin-api] [--key-sessions agent|guild-channel] [--quirk NAME ...]
"""

import asyncio
import os
import sys
import uuid

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import peerlib  # noqa: E402
from aiohttp import web, WSMsgType  # noqa: E402

SUPPORTED_VERSIONS = {"1.0.0"}
PROTOCOL_VERSION = "1.0.0"

QUIRKS = {
    "close-without-error": "Error Handling table ('Missing version | 1008 | Connection closed'): a refused hello closes with 1008 without an error message first (the table names only the close)",
    "duplicate-keep-first": "(spec silent) a hello for an agentId live on another connection is ignored; the first connection keeps the agent",
    "duplicate-reject": "(spec silent) a hello for an agentId live on another connection is refused with an error message and close 1008",
    "defect-answer-invalid": "DELIBERATE DEFECT (Error Handling: invalid messages are 'ignored'): invalid messages are answered with an error message",
    "defect-accept-any-version": "DELIBERATE DEFECT (Version Negotiation 2-3): every protocolVersion is accepted",
}
# Planted bugs of this peer (--bugs; tests/peers/fuzz/planted.py has those every peer shares).
PLANTED_BUGS = {
    "heartbeat-skips-version": "a hello from an agent already live on this connection is taken as a heartbeat before its "
                               "protocolVersion is checked: an unsupported version is neither refused nor closed 1008 "
                               "(Version Negotiation 2-3) once the first hello was accepted",
}
HELLO_TYPES = {"botUserId": (str, type(None)), "tag": (str, type(None)), "ready": (bool,), "poolId": (str,)}


class Controller:
    def __init__(self, args):
        self.args = args
        self.q = set(args.quirk)
        self.live = {}  # agentId -> record (liveAgents)
        self.conns = {}  # agentId -> WebSocketResponse
        self.pending = {}  # req id -> (agentId, Future of the resp)
        self.deploy = peerlib.deployment(args)
        # --key-sessions guild-channel: (guildId, voiceChannelId) -> (agentId, session record),
        # one session per voice channel whoever holds it.
        self.channel_sessions = {}

    async def send(self, ws, frame):
        if not ws.closed:
            try:
                await ws.send_str(peerlib.dumps(frame))
            except ConnectionError:
                pass

    async def reject(self, ws, text):
        peerlib.log(self.args, "rejected hello:", text)
        if "close-without-error" not in self.q:
            await self.send(ws, {"type": "error", "error": text})
        await ws.close(code=1008, message=text.encode()[:120])

    async def ignore(self, ws, why):
        peerlib.log(self.args, "ignored:", why)
        if "defect-answer-invalid" in self.q:
            await self.send(ws, {"type": "error", "error": "ignored: " + why})

    async def handle(self, request):
        ws = web.WebSocketResponse(max_msg_size=self.args.max_message_bytes, heartbeat=None)
        await ws.prepare(request)
        conn = {"agent": None}
        try:
            async for msg in ws:
                if msg.type == WSMsgType.ERROR:
                    break
                if msg.type != WSMsgType.TEXT:
                    await self.ignore(ws, "not a text frame")
                    continue
                try:
                    m = peerlib.parse_json(msg.data)
                except peerlib.ParseError:
                    await self.ignore(ws, "not JSON")
                    continue
                self.deploy.received(m)
                if not isinstance(m, dict) or not isinstance(m.get("type"), str):
                    await self.ignore(ws, "not an object with a string type")
                    continue
                handler = {"hello": self.on_hello, "guilds": self.on_guilds, "event": self.on_event, "resp": self.on_resp}.get(m["type"])
                if handler is None:
                    await self.ignore(ws, f"unknown type {m['type']}")
                    continue
                if m["type"] != "hello" and conn["agent"] is None:
                    await self.ignore(ws, f"{m['type']} before hello")
                    continue
                await handler(ws, conn, m)
        finally:
            aid = conn["agent"]
            if aid is not None and self.conns.get(aid) is ws:
                del self.conns[aid]  # Graceful Disconnect: removed from liveAgents
                self.live.pop(aid, None)
                for chan in [k for k, (owner, _) in self.channel_sessions.items() if owner == aid]:
                    del self.channel_sessions[chan]
        return ws

    async def on_hello(self, ws, conn, m):
        if "heartbeat-skips-version" in peerlib.PLANTED and conn["agent"] is not None and m.get("agentId") == conn["agent"]:
            self.live[conn["agent"]]["lastSeen"] = peerlib.now_iso()
            return
        if "protocolVersion" not in m:
            await self.reject(ws, f"Missing protocolVersion. Controller expects {PROTOCOL_VERSION}.")
            return
        v = m["protocolVersion"]
        if "defect-accept-any-version" not in self.q and (not isinstance(v, str) or v not in SUPPORTED_VERSIONS):
            await self.reject(ws, f"Incompatible protocol version {v}. Controller expects {PROTOCOL_VERSION}.")
            if conn["agent"] is not None and self.conns.get(conn["agent"]) is ws:
                del self.conns[conn["agent"]]
                self.live.pop(conn["agent"], None)
            return
        aid = m.get("agentId")
        if not isinstance(aid, str) or not aid:
            await self.ignore(ws, "hello without agentId")  # hello Error Conditions: ignored (no response)
            return
        for f, types in HELLO_TYPES.items():
            if f in m and not isinstance(m[f], types):
                await self.ignore(ws, f"hello.{f} has the wrong type")
                return
        guilds = m.get("guildIds", [])
        if not isinstance(guilds, list) or not all(isinstance(g, str) for g in guilds):
            await self.ignore(ws, "hello.guildIds must be an array of strings")
            return
        other = self.conns.get(aid)
        if other is not None and other is not ws and not other.closed:
            if "duplicate-keep-first" in self.q:
                await self.ignore(ws, f"{aid} is live on another connection")
                return
            if "duplicate-reject" in self.q:
                await self.reject(ws, f"agent {aid} is already connected")
                return
            self.conns.pop(aid)
            await other.close(code=4000, message=b"replaced by a newer connection")
        if conn["agent"] is not None and conn["agent"] != aid and self.conns.get(conn["agent"]) is ws:
            del self.conns[conn["agent"]]
            self.live.pop(conn["agent"], None)
        record = self.live.get(aid) if conn["agent"] == aid else None
        if record is None:
            record = {"agentId": aid, "sessions": [], "available": True}
        record.update({"protocolVersion": v, "botUserId": m.get("botUserId"), "tag": m.get("tag"),
                       "ready": m.get("ready", False), "guildIds": guilds, "poolId": m.get("poolId"),
                       "lastSeen": peerlib.now_iso()})
        self.live[aid] = record
        self.conns[aid] = ws
        conn["agent"] = aid

    async def on_guilds(self, ws, conn, m):
        g = m.get("guildIds")
        if not isinstance(g, list) or not all(isinstance(x, str) for x in g):
            await self.ignore(ws, "guilds.guildIds must be an array of strings")
            return
        rec = self.live[conn["agent"]]
        added, removed = set(g) - set(rec["guildIds"]), set(rec["guildIds"]) - set(g)
        if added or removed:
            peerlib.log(self.args, f"{conn['agent']} guilds +{sorted(added)} -{sorted(removed)}")
        rec["guildIds"] = g

    async def on_event(self, ws, conn, m):
        rec = self.live[conn["agent"]]
        event = m.get("event") if isinstance(m.get("event"), str) else None
        need = {"released": ["agentId", "guildId", "voiceChannelId", "reason", "kind"],
                "add": ["agentId", "guildId", "voiceChannelId", "channelId", "kind", "ok"]}.get(event)
        if need is None or any(f not in m for f in need) or m.get("kind") not in ("music", "assistant"):
            await self.ignore(ws, "event with an unknown name or a missing field")
            return
        if m["agentId"] != conn["agent"]:
            await self.ignore(ws, "event for another agent")
            return
        # Every member the spec types `string` (required or optional), and `ok` a boolean.
        strings = ("agentId", "guildId", "voiceChannelId", "channelId", "reason", "textChannelId", "ownerUserId", "error")
        if not all(isinstance(m[f], str) for f in strings if f in m) or (event == "add" and not isinstance(m["ok"], bool)):
            await self.ignore(ws, "event fields have the wrong type")
            return
        key = {"guildId": m["guildId"], "voiceChannelId": m["voiceChannelId"], "kind": m["kind"]}
        if self.args.key_sessions == "guild-channel":
            self.channel_event(conn["agent"], rec, m, key)
            return
        rec["sessions"] = [s for s in rec["sessions"] if s != key]
        if m["event"] == "add" and m["ok"] is True:
            rec["sessions"].append(key)
        rec["available"] = not rec["sessions"]

    def channel_event(self, aid, rec, m, key):
        """--key-sessions guild-channel: the session belongs to the voice channel, not to an agent."""
        chan = (m["guildId"], m["voiceChannelId"])
        held = self.channel_sessions.get(chan)
        if held is not None:  # "add" replaces the channel's session, "released" ends it, whoever holds it
            owner, old = held
            owner_rec = self.live.get(owner)
            if owner_rec is not None:
                owner_rec["sessions"] = [s for s in owner_rec["sessions"] if (s["guildId"], s["voiceChannelId"]) != chan]
                owner_rec["available"] = not owner_rec["sessions"]
            del self.channel_sessions[chan]
            if owner != aid:
                peerlib.log(self.args, f"session {chan} taken from {owner} by {aid} ({m['event']})")
        if m["event"] == "add" and m["ok"] is True:
            rec["sessions"] = [s for s in rec["sessions"] if (s["guildId"], s["voiceChannelId"]) != chan] + [key]
            self.channel_sessions[chan] = (aid, key)
        elif m["event"] == "released":
            rec["sessions"] = [s for s in rec["sessions"] if s != key]
        rec["available"] = not rec["sessions"]

    async def on_resp(self, ws, conn, m):
        rid = m.get("id")
        if not isinstance(rid, str) or not isinstance(m.get("ok"), bool):
            await self.ignore(ws, "resp needs id (string) and ok (boolean)")
            return
        agent, fut = self.pending.get(rid, (None, None))
        if fut is None or fut.done() or agent != conn["agent"]:
            await self.ignore(ws, f"resp for no pending req {rid}")
            return
        fut.set_result(m)

    # --- Operator API (not in the spec) ----------------------------------------------------------

    async def agents(self, request):
        return peerlib.json_response(200, {"agents": list(self.live.values())})

    async def request(self, request):
        try:
            body = peerlib.parse_json(await request.read())
        except peerlib.ParseError as e:
            return peerlib.json_response(400, {"error": "body is not JSON: " + str(e)})
        if not isinstance(body, dict) or not isinstance(body.get("agentId"), str) or not isinstance(body.get("op"), str):
            return peerlib.json_response(400, {"error": "agentId and op (strings) are required"})
        ws = self.conns.get(body["agentId"])
        if ws is None:
            return peerlib.json_response(404, {"error": f"agent {body['agentId']} is not live"})
        rid = str(uuid.uuid4())
        fut = asyncio.get_running_loop().create_future()
        self.pending[rid] = (body["agentId"], fut)
        timeout = body.get("timeoutMs", self.args.request_timeout_ms)
        try:
            await self.send(ws, {"type": "req", "id": rid, "op": body["op"], "data": body.get("data"), "agentId": body["agentId"]})
            resp = await asyncio.wait_for(fut, timeout / 1000)
        except asyncio.TimeoutError:
            self.deploy.failure(f"req {rid} to {body['agentId']}: no resp within {timeout} ms")
            return peerlib.json_response(504, {"id": rid, "ok": False, "error": f"no resp within {timeout} ms"})
        finally:
            self.pending.pop(rid, None)
        self.deploy.success()
        return peerlib.json_response(200, {k: resp[k] for k in ("id", "ok", "data", "error") if k in resp})


def main():
    p = peerlib.base_parser(__doc__ + "\nQuirks (alternative readings; DELIBERATE DEFECTS are marked):\n" +
                            "\n".join(f"  {k}: {v}" for k, v in QUIRKS.items()), PLANTED_BUGS)
    p.add_argument("--path", default="/chopsticks/ws", help="the controller's WebSocket path (the spec names none)")
    p.add_argument("--no-admin-api", action="store_true", help="serve only the WebSocket (a controller with no operator API)")
    p.add_argument("--request-timeout-ms", type=int, default=30000, help="RPC Flow: resp timeout (30 s default)")
    p.add_argument("--max-message-bytes", type=int, default=1048576)
    p.add_argument("--key-sessions", choices=["agent", "guild-channel"], default="agent",
                   help="event message (Event Type add / released: the controller's sessions / assistantSessions map; the spec "
                        "does not say what keys it): 'agent' (default) keeps each agent's own sessions; 'guild-channel' keys "
                        "sessions by (guildId, voiceChannelId) only, as real controllers do: an add for a guild+channel whose "
                        "session another agent holds moves the session to the new agent (the earlier one loses it and becomes "
                        "available), and a released ends that guild+channel's session whoever holds it")
    p.add_argument("--quirk", action="append", default=[], choices=sorted(QUIRKS), help="switch to an alternative reading (repeatable)")
    args = p.parse_args()
    c = Controller(args)
    app = web.Application()
    app.router.add_get(peerlib.route(args, args.path), c.handle)
    if not args.no_admin_api:
        app.router.add_get(peerlib.route(args, "/chopsticks/agents"), c.agents)
        app.router.add_post(peerlib.route(args, "/chopsticks/request"), c.request)
    peerlib.run_app(app, args)


if __name__ == "__main__":
    main()
