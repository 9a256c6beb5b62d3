// Shared helpers for the benchmarks: child servers on loopback, autocannon runs, peak RSS from /proc.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import autocannon from 'autocannon';

/**
 * Starts a child server on an ephemeral port and waits until its stdout matches `ready`, whose first group is the
 * URL it listens on; the child gets that as `url`. With `ready` null it does not wait (the caller polls).
 */
export async function startChild(cmd, args, env, ready) {
  // BENCH_PROFILE=<dir>: svc writes a V8 CPU profile there when it stops (open it in Chrome DevTools).
  if (process.env.BENCH_PROFILE && args[0] === 'bin/svc.js') {
    args = [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_PROFILE}`, ...args];
  }
  // svc runs with the Node options `npm start` gives it; BENCH_SVC_NODE_ARGS replaces them (for svc alone).
  if (args.includes('bin/svc.js')) {
    const options = process.env.BENCH_SVC_NODE_ARGS ?? '--max-semi-space-size=8';
    args = [...options.split(' ').filter(Boolean), ...args];
  }
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    if (ready === null) {
      resolve(null);
      return;
    }
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
  // BENCH_CHILD_STDERR=1: the children's stderr goes to the bench's (diagnostics printed on exit).
  if (process.env.BENCH_CHILD_STDERR) {
    child.stderr.pipe(process.stderr);
    if (process.env.BENCH_CHILD_STDERR === 'all') child.stdout.pipe(process.stderr);
    child.once('exit', (code, signal) => console.error(`${cmd} exited: ${code ?? signal}`));
  } else child.stderr.resume();
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
/**
 * Starts a new peak-RSS measurement of a process: Linux resets its VmHWM to the current RSS when 5 is written to
 * /proc/<pid>/clear_refs, so that each scenario's peak is its own, not the highest of the process's life so far.
 */
export function resetPeakRss(pid) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

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

/**
 * Runs autocannon for `seconds` with `connections`; `body` is a string or a function of the request number.
 * With `pid`, also the CPU time that process spent per request served (µs); with `rate`, at most that many
 * requests per second over all connections (autocannon's overallRate), for latency at a given load.
 */
export async function load({ url, headers, body, seconds, connections, pid, rate }) {
  let n = 0;
  const cpuBefore = pid ? cpuMs(pid) : 0;
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: seconds,
    ...(rate && { overallRate: Math.max(1, Math.round(rate)) }),
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
    cpuUs: pid ? ((cpuMs(pid) - cpuBefore) * 1000) / Math.max(result.requests.total, 1) : undefined,
  };
}

/**
 * Loads several targets in turns (`rounds` turns each, `seconds` split between them) rather than one after the
 * other: a change in the machine's other load then falls on every target alike. Per target: requests per second
 * over all its turns, the median of its turns' p50 and p99, errors, requests and CPU µs per request.
 */
export async function loadInTurns(targets, { seconds, rounds = Number(process.env.BENCH_ROUNDS ?? 3) }) {
  const slice = Math.max(1, Math.round(seconds / rounds));
  const runs = targets.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [t, target] of targets.entries()) runs[t].push(await load({ ...target, seconds: slice }));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return runs.map((rs) => {
    const total = rs.reduce((n, r) => n + r.total, 0);
    const ok = rs.reduce((n, r) => n + r.rps * slice, 0);
    const cpu = rs.every((r) => r.cpuUs !== undefined)
      ? rs.reduce((n, r) => n + r.cpuUs * r.total, 0) / Math.max(total, 1)
      : undefined;
    return {
      rps: ok / (slice * rs.length),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      errors: rs.reduce((n, r) => n + r.errors, 0),
      total,
      cpuUs: cpu,
    };
  });
}

/**
 * Prints one row of figures. Two ratios to the ceiling: requests per second (what the targets name; the
 * other work on a shared machine moves it) and CPU per request (the ceiling's µs/req over this row's: the
 * request rate each would reach with the same CPU to itself, which that other work moves far less).
 */
export function row(name, r, ceiling, rss) {
  const ratio = ceiling ? `${((r.rps / ceiling.rps) * 100).toFixed(1)}% of ceiling` : 'ceiling';
  const cpu = r.cpuUs === undefined ? '' : `  CPU ${r.cpuUs.toFixed(0)} µs/req`;
  const cpuRatio =
    ceiling?.cpuUs !== undefined && r.cpuUs !== undefined
      ? ` (CPU: ${((ceiling.cpuUs / r.cpuUs) * 100).toFixed(1)}% of ceiling)`
      : '';
  console.log(
    `${name.padEnd(36)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${String(r.p50).padStart(3)} ms  p99 ${String(r.p99).padStart(4)} ms  non-2xx ${r.errors}  peak RSS ${rss.toFixed(0)} MiB  ${ratio}${cpu}${cpuRatio}`,
  );
}

/**
 * A JSON client for svc's REST API with a token: `api('POST', '/api/v4/projects', { name })`. A new connection
 * per request (no keep-alive): a loaded machine could otherwise send a request on a socket the server had just
 * closed as idle ("other side closed").
 */
export function apiClient(base, token) {
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = httpRequest(
        `${base}${path}`,
        {
          method,
          agent: false,
          headers: {
            'PRIVATE-TOKEN': token,
            ...(data !== undefined && { 'content-type': 'application/json' }),
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode < 200 || res.statusCode > 299)
              reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
            else resolve(res.statusCode === 204 || text === '' ? null : JSON.parse(text));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(data);
    });
}
