// Start-up and idle memory: how long `node bin/svc.js server` takes until /-/health answers, on a first start (a new
// data directory: migrations, the root user) and on later starts of the same instance, and its resident memory
// once idle; beside the same figures of a bare Node HTTP server started the same way (the ceiling). Each figure is
// the median of BENCH_STARTS runs (default 5), svc and the ceiling taken in turns.
//   npm run build && node bench/startup.js
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const STARTS = Number(process.env.BENCH_STARTS ?? 5);
/** How long the server idles before its memory is read (V8's memory reducer runs after a few idle seconds). */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 10_000);
const NODE_ARGS = (process.env.BENCH_SVC_NODE_ARGS ?? '--max-semi-space-size=8').split(' ').filter(Boolean);
const CEILING = `require('node:http').createServer((q, s) => s.end('ok')).listen(+process.env.PORT, '127.0.0.1')`;

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Starts `args` with PORT set, and resolves with the ms until `path` answers 200, and the child. */
async function timeToReady(args, env, path) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port), SVC_PORT: String(port), SVC_HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => {
    err += String(d);
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited: ${err}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      if (res.status === 200) return { ms: performance.now() - started, child };
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, anon: kb('RssAnon') / 1024, file: kb('RssFile') / 1024 };
}

async function stop(child) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const svcArgs = [...NODE_ARGS, 'bin/svc.js', 'server'];
  const dirs = [];
  const first = [];
  const later = [];
  const ceiling = [];
  let idle = null;
  let ceilingIdle = null;
  for (let i = 0; i < STARTS; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-start-'));
    dirs.push(dir);
    const env = { SVC_DATA_DIR: dir, SVC_ROOT_PASSWORD: 'bench-password-1234', SVC_LOG_LEVEL: 'warn' };
    const a = await timeToReady(svcArgs, env, '/-/health');
    first.push(a.ms);
    await stop(a.child);
    const b = await timeToReady(svcArgs, env, '/-/health');
    later.push(b.ms);
    if (i === STARTS - 1) {
      await new Promise((r) => setTimeout(r, IDLE_MS));
      idle = rssMiB(b.child.pid);
    }
    await stop(b.child);
    const c = await timeToReady([...NODE_ARGS, '-e', CEILING], {}, '/');
    ceiling.push(c.ms);
    if (i === STARTS - 1) {
      await new Promise((r) => setTimeout(r, IDLE_MS));
      ceilingIdle = rssMiB(c.child.pid);
    }
    await stop(c.child);
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  const f = (x) => x.toFixed(0).padStart(6);
  const m = (x) => x.toFixed(1).padStart(6);
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`start-up, median of ${STARTS} (load average ${load}); until /-/health answers`);
  console.log(`  bare Node server     ${f(median(ceiling))} ms`);
  console.log(
    `  svc, first start     ${f(median(first))} ms  (${(median(first) / median(ceiling)).toFixed(1)}x the bare server)`,
  );
  console.log(
    `  svc, later start     ${f(median(later))} ms  (${(median(later) / median(ceiling)).toFixed(1)}x; target 1000 ms)`,
  );
  console.log(`idle resident memory after ${IDLE_MS / 1000} s (MiB: all, anonymous, file-backed)`);
  console.log(`  bare Node server     ${m(ceilingIdle.rss)} ${m(ceilingIdle.anon)} ${m(ceilingIdle.file)}`);
  console.log(
    `  svc                  ${m(idle.rss)} ${m(idle.anon)} ${m(idle.file)}  (target 100 MiB; ${(idle.rss - ceilingIdle.rss).toFixed(1)} MiB above the bare server)`,
  );
}

await main();
