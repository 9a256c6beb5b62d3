// Shared helpers for the benchmarks: child servers on loopback, autocannon runs, peak RSS from /proc.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/**
 * Starts a child server on an ephemeral port and waits until its stdout matches `ready`, whose first group is the
 * URL it listens on; the child gets that as `url`.
 */
export async function startChild(cmd, args, env, ready) {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd} did not start: ${out}`)), 60_000);
    const onData = (d) => {
      out += String(d);
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => {
      out += String(d);
    });
    child.once('exit', (code) => reject(new Error(`${cmd} exited with ${code}: ${out}`)));
  });
  // Keep draining output so the child never blocks on a full pipe.
  child.stdout.removeAllListeners('data');
  child.stdout.resume();
  child.stderr.resume();
  return Object.assign(child, { url });
}

/** What `svc server` prints once it listens (port 0: the port it was given). */
export const SVC_READY = /svc: listening on (http:\/\/\S+)/;
/** What the ceiling servers print once they listen. */
export const CEILING_READY = /ready (http:\/\/\S+)/;

/** Stops a child we started, by its PID, and waits for it. */
export async function stopChild(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Peak resident set size of a process in MiB (VmHWM). */
export function peakRssMiB(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/**
 * CPU time (user + system) a process has used, in milliseconds, from /proc. Divided by the requests served it
 * gives CPU per request, which other load on the machine changes far less than requests per second.
 */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are the 14th and 15th fields of the line, in clock ticks (100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Runs autocannon for `seconds` with `connections`; `body` is a string or a function of the request number. */
export async function load({ url, headers, body, seconds, connections }) {
  let n = 0;
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...headers },
    requests: [
      typeof body === 'function' ? { setupRequest: (req) => ({ ...req, body: body(n++) }) } : { body },
    ],
  });
  const ok = result['2xx'];
  return {
    rps: ok / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    total: result.requests.total,
  };
}

/** Prints one row of figures. */
export function row(name, r, ceiling, rss, cpuUsPerRequest) {
  const ratio = ceiling ? `${((r.rps / ceiling.rps) * 100).toFixed(1)}% of ceiling` : 'ceiling';
  const cpu = cpuUsPerRequest === undefined ? '' : `  CPU ${cpuUsPerRequest.toFixed(0)} µs/req`;
  console.log(
    `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(4)} ms  non-2xx ${r.errors}  peak RSS ${rss.toFixed(0)} MiB  ${ratio}${cpu}`,
  );
}

/** A JSON client for svc's REST API with a token: `api('POST', '/api/v4/projects', { name })`. */
export function apiClient(base, token) {
  return async (method, path, body) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.status === 204 ? null : r.json();
  };
}
