#!/usr/bin/env node
// An Agora relay (agora-relay-streaming.md), written from the spec alone, as an independent target
// for the live fuzzer's tests (issue 12). Agents connect to ws://HOST:PORT/agora/ws?agent_id=ID
// (the binding the spec leaves open; a second live connection for an id is refused with 409);
// the relay looks up the connection of `to` and forwards: send/send_chunk/send_end as
// message/message_chunk/message_end with `from`, reply/reply_chunk/reply_end as they are, with
// `from`. It answers what it cannot forward with a frame of its own shape,
// {"type": "error", "error": "..."} (the spec defines none, and this relay claims none).
// It keeps a journal file per open stream (its chunks, for inspection) and counts the bytes it
// relayed per stream; GET /healthz answers 200, GET /metrics gives process_resident_memory_bytes and
// relay_live_bytes (memory still referenced after a full collection, when run with node --expose-gc).
//
// Planted bugs (--bugs a,b,... or all; none by default: the fixed relay):
//   crash-deep       forwarded frames are serialized without a guard: a payload nested thousands
//                    deep throws RangeError out of the message handler, and the process dies
//   crash-nul        a stream's journal file is named after its stream_id unchecked: a NUL in it
//                    makes the file call throw, and the process dies
//   hang-double-end  a second end frame for an ended stream spins for ever "draining" it
//   cross-stream-id  streams are keyed by stream_id alone and chunks follow the stream's first
//                    recipient: two agents using one stream_id at once get each other's chunks
//   leak-stream      a stream whose sender leaves before its end frame keeps its 1 MiB buffer for
//                    ever (the fixed relay frees it)
//
// node --expose-gc agora_relay.js --port 7000 [--host 127.0.0.1] [--bugs all|none|LIST]
'use strict';

const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { WebSocketServer } = require('ws');

const KNOWN_BUGS = ['crash-deep', 'crash-nul', 'hang-double-end', 'cross-stream-id', 'leak-stream'];

function parseArgs(argv) {
  const out = { port: 0, host: '127.0.0.1', bugs: new Set() };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    if (a === '--port') { out.port = Number(v); i++; }
    else if (a === '--host') { out.host = v; i++; }
    else if (a === '--bugs') {
      i++;
      for (const b of String(v).split(',').filter(Boolean)) {
        if (b === 'all') KNOWN_BUGS.forEach((k) => out.bugs.add(k));
        else if (b === 'none') out.bugs.clear();
        else if (KNOWN_BUGS.includes(b)) out.bugs.add(b);
        else { console.error(`unknown bug "${b}" (${KNOWN_BUGS.join(', ')}, all, none)`); process.exit(2); }
      }
    } else { console.error(`unknown option ${a}`); process.exit(2); }
  }
  return out;
}

const opts = parseArgs(process.argv);
const bug = (name) => opts.bugs.has(name);

const journalDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-relay-'));
process.on('exit', () => { try { fs.rmSync(journalDir, { recursive: true, force: true }); } catch (e) { /* best effort */ } });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));

const agents = new Map();   // agent id -> WebSocket
const streams = new Map();  // stream key -> {from, to, family, id, bytes, ended, buffer, journal}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isId = (v) => typeof v === 'string' && v.length > 0 && v.length <= 256;
const familyOf = (type) => (type.startsWith('reply') ? 'reply' : 'send');
const streamKey = (from, family, id) => (bug('cross-stream-id') ? `${family}/${id}` : `${from}\u0001${family}/${id}`);

function reject(ws, why) {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'error', error: why }));
}

// Serializes a frame for forwarding. With crash-deep nothing guards it: JSON.stringify recurses,
// and a structure nested deep enough throws out of the message handler.
function serialize(frame) {
  if (bug('crash-deep')) return JSON.stringify(frame);
  try { return JSON.stringify(frame); } catch (e) { return null; }
}

function journalName(from, id) {
  const safe = (s) => String(s).replace(/[/\\]/g, '_');
  if (bug('crash-nul')) return path.join(journalDir, `${safe(from)}.${safe(id)}`);
  return path.join(journalDir, encodeURIComponent(`${from}.${id}`).slice(0, 200));
}

function journal(stream, text) {
  if (bug('crash-nul')) { fs.appendFileSync(stream.journal, text); return; }
  try { fs.appendFileSync(stream.journal, text); } catch (e) { /* the journal is for inspection only */ }
}

function dropStream(key) {
  const s = streams.get(key);
  if (!s) return;
  streams.delete(key);
  try { fs.rmSync(s.journal, { force: true }); } catch (e) { /* gone already */ }
}

function handle(ws, text) {
  let msg;
  try { msg = JSON.parse(text); } catch (e) { return reject(ws, 'not JSON'); }
  if (!isObject(msg) || typeof msg.type !== 'string') return reject(ws, 'not a frame');
  const from = ws.agentId;
  const type = msg.type;
  if (!['send', 'send_chunk', 'send_end', 'reply', 'reply_chunk', 'reply_end'].includes(type)) return reject(ws, 'unknown type');
  if (!isId(msg.to)) return reject(ws, 'no recipient');
  const family = familyOf(type);
  const start = type === 'send' || type === 'reply';
  const streamed = start ? msg.stream === true : true;
  if (streamed && !isId(msg.stream_id)) return reject(ws, 'no stream_id');

  let to = msg.to;
  if (streamed) {
    const key = streamKey(from, family, msg.stream_id);
    let s = streams.get(key);
    if (start) {
      if (s && !s.ended && !bug('cross-stream-id')) return reject(ws, 'stream id in use');
      s = { from, to, family, id: msg.stream_id, bytes: 0, ended: false, pending: 0, buffer: Buffer.alloc(1 << 20),
            journal: journalName(from, msg.stream_id) };
      streams.set(key, s);
      journal(s, '');
    } else if (!s) {
      return reject(ws, 'unknown stream');
    } else if (s.ended) {
      if (type.endsWith('_end') && bug('hang-double-end')) {
        // "Drain" what the stream still owes before forgetting it: nothing is ever flushed once
        // it ended, so this never finishes.
        s.pending += 1;
        while (s.pending > 0) s.pending -= s.ended ? 0 : 1;
      }
      return reject(ws, 'stream ended');
    } else {
      if (bug('cross-stream-id')) to = s.to;  // the stream's recipient, whatever this frame says
      if (type.endsWith('_chunk')) {
        const chunk = typeof msg.chunk === 'string' ? msg.chunk : JSON.stringify(msg.chunk === undefined ? '' : msg.chunk);
        s.bytes += chunk.length;
        journal(s, chunk);
      } else {
        s.ended = true;
        s.buffer = null;
        if (!bug('hang-double-end')) dropStream(key);
      }
    }
  }
  const target = agents.get(to);
  if (!target || target.readyState !== target.OPEN) return reject(ws, 'unknown recipient');
  let out;
  if (family === 'send') {
    out = { type: type === 'send' ? 'message' : type === 'send_chunk' ? 'message_chunk' : 'message_end', from };
    for (const k of ['stream_id', 'stream', 'payload', 'chunk']) if (msg[k] !== undefined) out[k] = msg[k];
  } else {
    out = Object.assign({}, msg, { from });
  }
  const frame = serialize(out);
  if (frame === null) return reject(ws, 'cannot forward this frame');
  target.send(frame);
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    return res.end('ok\n');
  }
  if (req.method === 'GET' && req.url === '/metrics') {
    // relay_live_bytes: what is still referenced after a full collection (heap in use and buffers).
    // The resident size of a garbage-collected runtime grows until the collector runs and is no
    // measure of a leak; with node --expose-gc the relay collects before it counts.
    if (typeof global.gc === 'function') global.gc();
    const m = process.memoryUsage();
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    return res.end(`# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes ${m.rss}\n` +
                   `# TYPE relay_live_bytes gauge\nrelay_live_bytes ${m.heapUsed + m.external}\n` +
                   `# TYPE agora_open_streams gauge\nagora_open_streams ${streams.size}\n`);
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found\n');
});

const wss = new WebSocketServer({ noServer: true, maxPayload: 2 * 1024 * 1024 });

server.on('upgrade', (req, socket, head) => {
  let url;
  try { url = new URL(req.url, 'http://relay'); } catch (e) { url = null; }
  const id = url && url.pathname === '/agora/ws' ? url.searchParams.get('agent_id') : null;
  const refuse = (status, why) => {
    socket.end(`HTTP/1.1 ${status} ${why}\r\ncontent-type: text/plain\r\ncontent-length: ${why.length}\r\nconnection: close\r\n\r\n${why}`);
  };
  if (!url || url.pathname !== '/agora/ws') return refuse(404, 'Not Found');
  if (!isId(id)) return refuse(400, 'Bad Request');
  const held = agents.get(id);
  if (held && held.readyState === held.OPEN) return refuse(409, 'Conflict');
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.agentId = id;
    agents.set(id, ws);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return reject(ws, 'binary frames are not Agora frames');
      const text = data.toString('utf8');
      if (opts.bugs.size > 0) return handle(ws, text);  // (a broken relay lets its planted bugs out)
      try { handle(ws, text); } catch (e) { reject(ws, 'internal error'); }
    });
    ws.on('error', () => {});
    ws.on('close', () => {
      if (agents.get(id) === ws) agents.delete(id);
      if (bug('leak-stream')) return;  // its open streams (and their buffers) stay for ever
      for (const [key, s] of streams) if (s.from === id) dropStream(key);
    });
  });
});

server.listen(opts.port, opts.host, () => {
  const bugs = [...opts.bugs].join(',') || 'none';
  console.log(`agora relay listening on ws://${opts.host}:${server.address().port}/agora/ws (planted bugs: ${bugs})`);
});
