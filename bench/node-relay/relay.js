'use strict';
// A minimal Agora relay (agora-relay-streaming.md) on Node's `ws` package: the yardstick of
// bench/relay_vs_node.sh, which loads it and the reference lobby side by side with the same
// generator (agentconform load). It does what the reference does on the relay path a load run
// takes, no more: bind "agent id <-> connection" from ?agent_id= at the upgrade (one live
// connection per id), parse each text frame as JSON, track the sender's open streams
// (send stream:true / send_chunk / send_end, UNKNOWN_STREAM otherwise), look the recipient up by
// `to`, and forward message / message_chunk / message_end with `from` = the sender's id
// (UNKNOWN_RECIPIENT when absent). Listens on 127.0.0.1 only.
//
// Usage: node relay.js PORT   (prints "listening PORT" once ready)
const http = require('http');
const { WebSocketServer } = require('ws');

const port = Number(process.argv[2] || 0);
const agents = new Map(); // agent id -> WebSocket

const server = http.createServer((req, res) => {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"error":"not found"}');
});
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1024 * 1024 });

function send(ws, obj) {
  ws.send(JSON.stringify(obj));
}

function error(ws, code, message, streamId) {
  const e = { type: 'error', code, message };
  if (streamId !== undefined) e.stream_id = streamId;
  send(ws, e);
}

server.on('upgrade', (req, socket, head) => {
  const url = new URL(req.url, 'http://relay');
  const id = url.searchParams.get('agent_id');
  if (url.pathname !== '/agora/ws' || !id) {
    socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  const holder = agents.get(id);
  if (holder && holder.readyState === holder.OPEN) {
    socket.end('HTTP/1.1 409 Conflict\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.agentId = id;
    ws.streams = new Map(); // stream_id -> recipient id
    agents.set(id, ws);
    ws.on('message', (data, isBinary) => onMessage(ws, data, isBinary));
    ws.on('close', () => {
      if (agents.get(id) === ws) agents.delete(id);
    });
    ws.on('error', () => {});
  });
});

function onMessage(ws, data, isBinary) {
  if (isBinary) return error(ws, 'INVALID_FRAME', 'binary frame');
  let m;
  try {
    m = JSON.parse(data);
  } catch (e) {
    return error(ws, 'INVALID_FRAME', 'not JSON');
  }
  if (m === null || typeof m !== 'object' || typeof m.to !== 'string') return error(ws, 'INVALID_FRAME', 'no `to`');
  const sid = m.stream_id;
  const target = agents.get(m.to);
  switch (m.type) {
    case 'send': {
      if (!target) return error(ws, 'UNKNOWN_RECIPIENT', 'no agent ' + m.to, sid);
      const out = { type: 'message', from: ws.agentId };
      if (sid !== undefined) out.stream_id = sid;
      if (m.stream !== undefined) out.stream = m.stream;
      if (m.payload !== undefined) out.payload = m.payload;
      if (m.stream === true) ws.streams.set(sid, m.to);
      return send(target, out);
    }
    case 'send_chunk':
    case 'send_end': {
      if (typeof sid !== 'string' || ws.streams.get(sid) !== m.to) return error(ws, 'UNKNOWN_STREAM', 'no stream ' + sid, sid);
      if (!target) return error(ws, 'UNKNOWN_RECIPIENT', 'no agent ' + m.to, sid);
      if (m.type === 'send_end') {
        ws.streams.delete(sid);
        return send(target, { type: 'message_end', from: ws.agentId, stream_id: sid });
      }
      if (typeof m.chunk !== 'string') return error(ws, 'INVALID_FRAME', 'chunk must be a string', sid);
      return send(target, { type: 'message_chunk', from: ws.agentId, stream_id: sid, chunk: m.chunk });
    }
    default:
      return error(ws, 'INVALID_FRAME', 'unknown type');
  }
}

server.listen(port, '127.0.0.1', () => {
  console.log('listening ' + server.address().port);
});
