#!/usr/bin/env node
// A restarting supervisor, as a deployment would run a server (systemd's Restart= with a
// watchdog, a container's liveness probe): it starts the command, starts it again when it exits,
// and kills and restarts it when its health endpoint stops answering. The live fuzzer's tests run
// the peers under it to fuzz them as a target the fuzzer does not control (no --target-command).
//
// node supervise.js --health http://127.0.0.1:PORT/healthz [--delay MS] [--check-every MS]
//                   [--failures N] -- COMMAND [ARGS...]
'use strict';

const http = require('http');
const { spawn } = require('child_process');

function parseArgs(argv) {
  const out = { health: null, delay: 200, every: 250, failures: 2, command: [] };
  let i = 2;
  for (; i < argv.length && argv[i] !== '--'; i++) {
    const v = argv[i + 1];
    if (argv[i] === '--health') out.health = v;
    else if (argv[i] === '--delay') out.delay = Number(v);
    else if (argv[i] === '--check-every') out.every = Number(v);
    else if (argv[i] === '--failures') out.failures = Number(v);
    else { console.error(`supervise: unknown option ${argv[i]}`); process.exit(2); }
    i++;
  }
  out.command = argv.slice(i + 1);
  if (out.command.length === 0) { console.error('supervise: no command after --'); process.exit(2); }
  return out;
}

const opts = parseArgs(process.argv);
let child = null;
let stopping = false;
let failures = 0;
let startedAt = 0;

function start() {
  startedAt = Date.now();
  failures = 0;
  child = spawn(opts.command[0], opts.command.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });
  const pid = child.pid;
  console.log(`supervise: started ${opts.command.join(' ')} (pid ${pid})`);
  child.on('exit', (code, signal) => {
    console.log(`supervise: pid ${pid} ended (${signal ? 'signal ' + signal : 'status ' + code})`);
    child = null;
    if (!stopping) setTimeout(start, opts.delay);
  });
}

function check() {
  if (!opts.health || !child || Date.now() - startedAt < 500) return;
  const target = child;
  const failed = () => {
    if (++failures >= opts.failures && target === child && target.exitCode === null) {
      console.log(`supervise: pid ${target.pid} does not answer ${opts.health}: killed`);
      target.kill('SIGKILL');
    }
  };
  const req = http.get(opts.health, { timeout: opts.every * 2 }, (res) => {
    res.resume();
    if (res.statusCode === 200) failures = 0;
    else failed();
  });
  req.on('timeout', () => { req.destroy(); });
  req.on('error', failed);
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    stopping = true;
    if (child) child.kill('SIGKILL');
    process.exit(0);
  });
}

start();
setInterval(check, opts.every);
