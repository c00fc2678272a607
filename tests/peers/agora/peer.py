#!/usr/bin/python3
"""An independent Agora relay (relay + streaming), written from agora-relay-streaming.md alone.

The spec defines the frames (send / send_chunk / send_end / reply*, forwarded as message /
message_chunk / message_end), says the relay binds "agent id <-> current WebSocket connection"
on register and removes it on disconnect (Prerequisite), and that the relay "looks up the
connection by `to` and forwards as-is" and is "stateless; only forwards" (Summary). It says
nothing about how an agent registers, what happens to a frame for an absent agent, or to an
unreadable frame; the defaults below are this author's reading, each --quirk another one.

Usage: peer.py [PORT] [--binding query|first-frame] [--quirk NAME ...]
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import peerlib  # noqa: E402
from aiohttp import web, WSMsgType  # noqa: E402

# Sender frame type -> the type the receiver gets (§1-§3, Summary). Replies are forwarded under
# their own type: the spec says replies use "symmetric fields", and the receiving side sees
# `from` where the sender wrote `to`.
FORWARD = {"send": "message", "send_chunk": "message_chunk", "send_end": "message_end",
           "reply": "reply", "reply_chunk": "reply_chunk", "reply_end": "reply_end"}

QUIRKS = {
    "unknown-recipient-silent": "Summary ('stateless; only forwards'): a frame for an agent that is not connected is dropped without an error frame",
    "invalid-silent": "(spec silent) an unreadable or non-object frame is ignored instead of answered with an error frame",
    "invalid-close": "(spec silent) an unreadable frame closes the connection with 1003/1007 instead of an error frame",
    "duplicate-reject": "Prerequisite (silent on duplicates): a second connection under an agent id that is bound is refused (error frame, close 1008) instead of rebinding to the 'current' connection",
    "keep-to": "Summary ('forwards as-is'): the forwarded frame keeps the sender's `to` member next to the added `from`",
    "error-shape-nested": "(spec silent) error frames are {type: 'error', error: {code, message}} instead of {type: 'error', code, message}",
    "binary-as-text": "(spec silent on frame opcodes) a binary frame is read as the same JSON a text frame would carry, and forwarded (as text) like one",
    "track-streams": "(against Summary 'stateless') send_chunk/send_end of a stream that was never started are refused with an error frame",
    "defect-forward-unchanged": "DELIBERATE DEFECT (§2 'Agora Forwards to Receiver': the receiver gets type message / message_chunk / message_end with `from`, not `to`; §3 replies 'symmetric fields'): every frame is delivered to the addressed agent exactly as the sender wrote it (type stays send / send_chunk / ..., `to` kept, no `from` added)",
}


class Relay:
    def __init__(self, args):
        self.args = args
        self.q = set(args.quirk)
        self.bound = {}  # agent id -> WebSocketResponse
        self.deploy = peerlib.deployment(args)

    def error_frame(self, code, message, **extra):
        if "error-shape-nested" in self.q:
            f = {"type": "error", "error": {"code": code, "message": message}}
        else:
            f = {"type": "error", "code": code, "message": message}
        f.update(extra)
        return f

    async def send(self, ws, frame):
        if not ws.closed:
            try:
                await ws.send_str(peerlib.dumps(frame))
            except ConnectionError:
                pass

    async def bind(self, ws, agent_id):
        """Returns True when `ws` is now bound to agent_id (Prerequisite)."""
        if not isinstance(agent_id, str) or not agent_id:
            await self.send(ws, self.error_frame("INVALID_AGENT_ID", "agent id must be a non-empty string"))
            return False
        old = self.bound.get(agent_id)
        if old is not None and old is not ws and not old.closed:
            if "duplicate-reject" in self.q:
                await self.send(ws, self.error_frame("AGENT_ID_TAKEN", f"{agent_id} is connected"))
                await ws.close(code=1008, message=b"agent id taken")
                return False
            await self.send(old, self.error_frame("REPLACED", "another connection registered this agent id"))
            await old.close(code=4000, message=b"replaced")
        self.bound[agent_id] = ws
        return True

    async def handle(self, request):
        ws = web.WebSocketResponse(max_msg_size=self.args.max_frame_bytes, heartbeat=None)
        await ws.prepare(request)
        me = None
        if self.args.binding == "query":
            me = request.query.get(self.args.query_parameter)
            if me is None or not await self.bind(ws, me):
                if me is None:
                    await self.send(ws, self.error_frame("MISSING_AGENT_ID", f"connect with ?{self.args.query_parameter}=<agent id>"))
                    await ws.close(code=1008, message=b"agent id required")
                return ws
        streams = set()
        try:
            async for msg in ws:
                if msg.type == WSMsgType.ERROR:
                    break
                if msg.type == WSMsgType.BINARY and "binary-as-text" in self.q:
                    msg = msg._replace(type=WSMsgType.TEXT, data=msg.data.decode("utf-8", "replace"))
                if msg.type != WSMsgType.TEXT:
                    await self.invalid(ws, "frames are JSON text frames", 1003)
                    continue
                try:
                    frame = peerlib.parse_json(msg.data)
                except peerlib.ParseError as e:
                    await self.invalid(ws, "not JSON: " + str(e), 1007)
                    continue
                self.deploy.received(frame)
                if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
                    await self.invalid(ws, "a frame is a JSON object with a string `type`", 1007)
                    continue
                if me is None:  # first-frame binding: only a register frame is understood
                    if frame["type"] == "register" and await self.bind(ws, frame.get("agent_id")):
                        me = frame["agent_id"]
                        await self.send(ws, {"type": "registered", "agent_id": me})
                    elif not ws.closed:
                        await self.send(ws, self.error_frame("NOT_REGISTERED", "send {type: 'register', agent_id} first"))
                    continue
                await self.forward(ws, me, frame, streams)
        finally:
            if me is not None and self.bound.get(me) is ws:
                del self.bound[me]  # Prerequisite: "remove from registry on disconnect"
        return ws

    async def invalid(self, ws, text, close_code):
        if "invalid-silent" in self.q:
            return
        if "invalid-close" in self.q:
            await ws.close(code=close_code, message=text.encode()[:100])
            return
        await self.send(ws, self.error_frame("INVALID_FRAME", text))

    async def forward(self, ws, me, frame, streams):
        kind = frame["type"]
        if kind not in FORWARD:
            await self.send(ws, self.error_frame("UNKNOWN_TYPE", f"unknown frame type {kind!r}"))
            return
        to = frame.get("to")
        if not isinstance(to, str) or not to:
            await self.send(ws, self.error_frame("MISSING_TO", f"{kind} needs a string `to`"))
            return
        if kind.endswith("_chunk") or kind.endswith("_end") or frame.get("stream") is True:
            if not isinstance(frame.get("stream_id"), str):
                await self.send(ws, self.error_frame("MISSING_STREAM_ID", f"{kind} needs a string `stream_id`"))
                return
        if kind.endswith("_chunk") and not isinstance(frame.get("chunk"), str):
            await self.send(ws, self.error_frame("MISSING_CHUNK", f"{kind} needs a string `chunk` (the incremental output)"))
            return
        if "track-streams" in self.q:
            key = (to, frame.get("stream_id"))
            if frame.get("stream") is True:
                streams.add(key)
            elif kind.endswith("_chunk") or kind.endswith("_end"):
                if key not in streams:
                    await self.send(ws, self.error_frame("UNKNOWN_STREAM", f"stream {frame['stream_id']} was not started"))
                    return
                if kind.endswith("_end"):
                    streams.discard(key)
        target = self.bound.get(to)
        if target is None or target.closed:
            if "unknown-recipient-silent" not in self.q:
                await self.send(ws, self.error_frame("UNKNOWN_RECIPIENT", f"agent {to} is not connected", to=to))
            return
        if "defect-forward-unchanged" in self.q:
            await self.send(target, frame)
            return
        out = {"type": FORWARD[kind], "from": me}
        for k, v in frame.items():  # "forwards as-is": every other member unchanged
            if k in ("type", "from") or (k == "to" and "keep-to" not in self.q):
                continue
            out[k] = v
        await self.send(target, out)


def main():
    p = peerlib.base_parser(__doc__ + "\nQuirks (alternative readings the spec allows):\n" +
                            "\n".join(f"  {k}: {v}" for k, v in QUIRKS.items()))
    p.add_argument("--binding", choices=["query", "first-frame"], default="query",
                   help="how an agent registers (Prerequisite says only 'on register'): the ?agent_id= query parameter, or a first frame {type: 'register', agent_id} answered by {type: 'registered'}")
    p.add_argument("--query-parameter", default="agent_id")
    p.add_argument("--path", default="/agora/ws", help="the relay's WebSocket path (the spec names none)")
    p.add_argument("--max-frame-bytes", type=int, default=1048576)
    p.add_argument("--quirk", action="append", default=[], choices=sorted(QUIRKS), help="switch to an alternative reading (repeatable)")
    args = p.parse_args()
    relay = Relay(args)
    app = web.Application()
    app.router.add_get(peerlib.route(args, args.path), relay.handle)
    peerlib.run_app(app, args)


if __name__ == "__main__":
    main()
