import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createConnection, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { relativePath } from '../../src/git/git.js';
import { createIntegration } from '../helpers/alerts.js';
import { createPostgresDatabase, postgresAvailable } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { createSentryProject } from '../helpers/sentry.js';
import { type SvcServer, startSvc } from '../helpers/svc.js';
import { until } from '../helpers/until.js';

/**
 * Three `svc server` processes on one PostgreSQL database, sharing the data directory (the instance key)
 * and the storages by path, as three hosts behind a load balancer would. Caches live ten minutes here
 * (SVC_CACHE_TTL_MS), so a change seen by another process at once can only have come through the invalidation bus.
 *
 * Load: alerts (20 fingerprints, so that the processes race on the same open alerts) and Sentry events sent
 * round-robin; one process is SIGKILLed right after one of its acknowledgements and started again, and the load goes
 * on. Then: no acknowledged alert or event is lost, one open alert per fingerprint, each streamed audit event (a
 * job) delivered once while the processes compete for jobs, a key reset on A refuses the old key on B and C at
 * once, a client key deleted on A is refused by B and C, a setting changed on A applies on B and C and the alert
 * throttle counts across processes, and a storage move scheduled on A waits for a push running on B, then
 * completes with it.
 */

const SENDERS = 6;
const FINGERPRINTS = 20;
/** The kill happens once this many alerts and events were acknowledged; the load then goes on for as many again. */
const ACKS_BEFORE_KILL = 100;
const ACKS_AFTER_RESTART = 60;
const MAX_REQUESTS = 4000;
const LOAD_DEADLINE_MS = 40_000;
const REQUEST_TIMEOUT_MS = 10_000;
const PER_PAGE = 100;

const run = promisify(execFile);

/** PIDs of `git receive-pack` processes working on `path` (pgrep exits 1 when there are none). */
async function receivePacks(path: string): Promise<string[]> {
  try {
    const { stdout } = await run('pgrep', ['-f', `receive-pack --stateless-rpc ${path}`]);
    return stdout.split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

const hex = () => randomBytes(16).toString('hex');

async function listAll<T>(
  api: ReturnType<typeof http>,
  token: string,
  path: string,
  max: number,
): Promise<T[]> {
  const all: T[] = [];
  const sep = path.includes('?') ? '&' : '?';
  for (let page = 1; page <= Math.ceil(max / PER_PAGE) + 1; page++) {
    const res = await api.get<T[]>(`${path}${sep}per_page=${PER_PAGE}&page=${page}`, { token });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    all.push(...res.body);
    if (res.body.length < PER_PAGE) return all;
  }
  throw new Error(`${path} has more than ${max} items`);
}

/** `url` at another server (the processes share everything but their port). */
const at = (url: string, server: SvcServer) => {
  const u = new URL(url);
  u.host = new URL(server.url).host;
  return u.toString();
};

/**
 * A TCP proxy to `target` that holds back the last byte of a push (a `git-receive-pack` POST) until released: the
 * push runs on the server, its pack all but complete, for as long as the test wants.
 */
async function holdingProxy(target: string): Promise<{ url: string; release(): void; close(): void }> {
  const { hostname, port } = new URL(target);
  const held: { socket: import('node:net').Socket; byte: Uint8Array }[] = [];
  let released = false;
  const server: TcpServer = createTcpServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(port) });
    upstream.pipe(client);
    let holding = false;
    let last: Uint8Array | null = null;
    const entry: { socket: import('node:net').Socket; byte: Uint8Array } = {
      socket: upstream,
      byte: new Uint8Array(0),
    };
    client.on('data', (chunk: Buffer) => {
      if (!holding && !released && chunk.includes('POST ') && chunk.includes('git-receive-pack')) {
        holding = true;
        held.push(entry);
      }
      if (!holding || released) {
        upstream.write(chunk);
        return;
      }
      const all = last ? Buffer.concat([last, chunk]) : chunk;
      upstream.write(all.subarray(0, all.length - 1));
      last = all.subarray(all.length - 1);
      entry.byte = last;
    });
    client.on('end', () => upstream.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: proxyPort } = server.address() as import('node:net').AddressInfo;
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    release: () => {
      released = true;
      for (const h of held) h.socket.write(h.byte);
    },
    close: () => server.close(),
  };
}

describe.skipIf(!(await postgresAvailable()))('three svc processes on one PostgreSQL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
  const servers: SvcServer[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const c of cleanups.reverse()) await c();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every guarantee with round-robin load, a SIGKILLed process, the bus, jobs and a storage move', async () => {
    const db = await createPostgresDatabase();
    cleanups.push(db.drop);
    const token = `svcpat-cluster-${hex().slice(0, 16)}`;
    const env = {
      SVC_DATABASE_URL: db.url,
      SVC_DATA_DIR: join(dir, 'data'),
      SVC_STORAGES: `default=${join(dir, 'default')},fast=${join(dir, 'fast')}`,
      SVC_ROOT_PASSWORD: 'cluster-password',
      SVC_ROOT_TOKEN: token,
      SVC_LOG_LEVEL: 'warn',
      SVC_OFFERING: 'self-managed',
      SVC_TIER: 'ultimate',
      SVC_CACHE_TTL_MS: '600000',
      SVC_JOB_CONCURRENCY: '2',
      SVC_MOVE_PUSH_WAIT_SECONDS: '120',
    };
    // The first start migrates and creates root; the other two start together.
    servers.push(await startSvc(env));
    servers.push(...(await Promise.all([startSvc(env), startSvc(env)])));
    const [A] = servers as [SvcServer, SvcServer, SvcServer];
    const api = http(A.url);
    const summary: string[] = [];

    // Integrated error tracking on self-managed needs the instance flag (set on A; B and C learn it by the bus).
    expect(
      (await api.post('/api/v4/features/integrated_error_tracking', { token, body: { value: true } })).status,
    ).toBe(201);
    const project = await createSentryProject(A.url, token, 'cluster');
    const integration = await createIntegration(api, token, project.id, { name: 'Load', type: 'http' });
    const dsn = new URL(project.dsn);
    const collectorPath = `${dsn.pathname.replace(/\/\d+$/, '')}/api/${project.id}`;

    const sent = { alert: new Map<string, number>(), event: new Set<string>() };
    const acked = { alert: new Map<string, number>(), event: new Set<string>() };
    const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

    const send = async (server: SvcServer, kind: 'alert' | 'store' | 'envelope', n: number) => {
      const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
      if (kind === 'alert') {
        const fp = `fp-${n % FINGERPRINTS}`;
        count(sent.alert, fp);
        const res = await fetch(at(integration.url, server), {
          method: 'POST',
          signal,
          headers: {
            authorization: `Bearer ${integration.authorization_key}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ title: `load ${fp}`, fingerprint: fp }),
        });
        const body = (await res.json()) as { title?: string }[];
        const ok = res.status === 200 && body.length === 1 && body[0]?.title === `load ${fp}`;
        if (ok) count(acked.alert, fp);
        return ok ? 'alert' : `alert ${res.status} ${JSON.stringify(body)}`;
      }
      const id = hex();
      sent.event.add(id);
      const event = {
        event_id: id,
        platform: 'node',
        level: 'error',
        message: `load ${id}`,
        fingerprint: ['load'],
      };
      const res = await fetch(`${server.url}${collectorPath}/${kind}/?sentry_key=${project.publicKey}`, {
        method: 'POST',
        signal,
        headers: { 'content-type': kind === 'store' ? 'application/json' : 'application/x-sentry-envelope' },
        body:
          kind === 'store'
            ? JSON.stringify(event)
            : `${JSON.stringify({ event_id: id })}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify(event)}\n`,
      });
      const text = await res.text();
      const ok = res.status === 200 && text === JSON.stringify({ id });
      if (ok) acked.event.add(id);
      return ok ? 'event' : `${kind} ${res.status} ${text.slice(0, 200)}`;
    };

    // The load: round-robin over the three processes, SENDERS at a time, bounded in requests and time.
    const victim = 1;
    let phase: 'before' | 'after' | 'done' = 'before';
    let requests = 0;
    let unanswered = 0;
    let inFlightAtKill = -1;
    const refused: string[] = [];
    const ackedAfter = { alert: 0, event: 0 };
    let restarting: Promise<void> | null = null;
    const deadline = Date.now() + LOAD_DEADLINE_MS;
    let inFlight = 0;
    const sender = async (i: number) => {
      for (let n = i; phase !== 'done' && requests < MAX_REQUESTS && Date.now() < deadline; n += SENDERS) {
        const target = servers[n % 3]!;
        if (!target.alive()) {
          await restarting;
          continue;
        }
        const kind = (['alert', 'store', 'envelope'] as const)[(n >> 1) % 3]!;
        requests++;
        inFlight++;
        let outcome: string;
        try {
          outcome = await send(target, kind, n);
        } catch {
          unanswered++;
          continue;
        } finally {
          inFlight--;
        }
        if (outcome !== 'alert' && outcome !== 'event') {
          refused.push(outcome);
          continue;
        }
        if (phase === 'after') ackedAfter[outcome]++;
        const enough =
          acked.alert.size > 0 && [...acked.alert.values()].reduce((a, b) => a + b, 0) >= ACKS_BEFORE_KILL;
        if (
          phase === 'before' &&
          enough &&
          acked.event.size >= ACKS_BEFORE_KILL &&
          target === servers[victim]
        ) {
          // Right after this acknowledgement by the victim, while the other senders' requests are in flight.
          phase = 'after';
          inFlightAtKill = inFlight;
          target.proc.kill('SIGKILL');
          restarting = (async () => {
            await target.exited;
            servers[victim] = await startSvc(env);
          })();
        }
        if (
          phase === 'after' &&
          ackedAfter.alert >= ACKS_AFTER_RESTART &&
          ackedAfter.event >= ACKS_AFTER_RESTART
        ) {
          phase = 'done';
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, (_, i) => sender(i)));
    await restarting;
    expect(
      inFlightAtKill,
      `kill point not reached after ${requests} requests: ${refused.slice(0, 5)}`,
    ).toBeGreaterThan(0);
    expect(phase, `the load after the restart did not finish: ${JSON.stringify(ackedAfter)}`).toBe('done');
    expect(refused).toEqual([]);
    const ackedAlerts = [...acked.alert.values()].reduce((a, b) => a + b, 0);
    summary.push(
      `${requests} requests, ${ackedAlerts} alerts and ${acked.event.size} events acknowledged, ${inFlightAtKill} in flight at the kill, ${unanswered} unanswered`,
    );

    // No acknowledged alert lost, one open alert per fingerprint, counted at least once per acknowledgement.
    const alerts = await listAll<{ title: string; status: string; event_count: number }>(
      api,
      token,
      `/api/v4/projects/${project.id}/alert_management/alerts`,
      FINGERPRINTS * 2,
    );
    for (const [fp, n] of sent.alert) {
      const mine = alerts.filter((a) => a.title === `load ${fp}`);
      expect(
        mine.map((a) => a.status),
        fp,
      ).toEqual(['triggered']);
      expect(mine[0]!.event_count, fp).toBeGreaterThanOrEqual(acked.alert.get(fp) ?? 0);
      expect(mine[0]!.event_count, fp).toBeLessThanOrEqual(n);
    }
    expect(alerts).toHaveLength(sent.alert.size);
    // No acknowledged event lost, none stored twice.
    const errorsPath = `/api/v4/projects/${project.id}/error_tracking/errors`;
    const errors = await listAll<{ id: number; count: number }>(api, token, errorsPath, 10);
    expect(errors).toHaveLength(1);
    const events = await listAll<{ event_id: string }>(
      api,
      token,
      `${errorsPath}/${errors[0]!.id}/events`,
      sent.event.size + 10,
    );
    const ids = events.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(
      [...acked.event].filter((id) => !ids.includes(id)),
      'acknowledged events lost',
    ).toEqual([]);
    expect(errors[0]!.count).toBe(events.length);
    summary.push(`${alerts.length} open alerts, ${events.length} events stored`);

    const [, B, C] = servers as [SvcServer, SvcServer, SvcServer];

    // A key reset on A: the old key is refused on B and C at once (their caches would keep it ten minutes).
    const warm = async (key: string) =>
      Promise.all(
        [B, C].map(async (s) => {
          const r = await fetch(at(integration.url, s), {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ title: 'warm', fingerprint: 'warm' }),
          });
          await r.body?.cancel();
          return r.status;
        }),
      );
    expect(await warm(integration.authorization_key)).toEqual([200, 200]);
    const reset = await api.post<{ authorization_key: string }>(
      `/api/v4/projects/${project.id}/alert_management/integrations/${integration.id}/reset_authorization_key`,
      { token },
    );
    expect(reset.status).toBe(200);
    const resetAt = Date.now();
    await until(
      async () => (await warm(integration.authorization_key)).every((s) => s === 401),
      'the old key to be refused on B and C',
      2000,
      20,
    );
    summary.push(`the old key refused on B and C ${Date.now() - resetAt} ms after the reset answered`);
    expect(await warm(reset.body.authorization_key)).toEqual([200, 200]);

    // A client key deleted on A is refused by B and C (404, as GitLab).
    const keys = await api.get<{ id: number; public_key: string }[]>(
      `/api/v4/projects/${project.id}/error_tracking/client_keys`,
      { token },
    );
    const key = keys.body.find((k) => k.public_key === project.publicKey)!;
    const store = (s: SvcServer) =>
      fetch(`${s.url}${collectorPath}/store/?sentry_key=${project.publicKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ event_id: hex(), message: 'after delete', fingerprint: ['load'] }),
      }).then(async (r) => {
        await r.text();
        return r.status;
      });
    expect(await Promise.all([store(B), store(C)])).toEqual([200, 200]);
    expect(
      (await api.delete(`/api/v4/projects/${project.id}/error_tracking/client_keys/${key.id}`, { token }))
        .status,
    ).toBe(200);
    await until(
      async () => (await Promise.all([store(B), store(C)])).every((s) => s === 404),
      'the deleted client key to be refused on B and C',
      2000,
      20,
    );

    // A setting changed on A applies on B and C, and the throttle counts every process's requests together.
    const throttled = await createIntegration(api, token, project.id, { name: 'Throttled', type: 'http' });
    expect(
      (
        await api.put('/api/v4/application/settings', {
          token,
          body: {
            throttle_incident_management_notification_enabled: true,
            throttle_incident_management_notification_per_period: 10,
            throttle_incident_management_notification_period_in_seconds: 3600,
            allow_local_requests_from_web_hooks_and_services: true,
          },
        })
      ).status,
    ).toBe(200);
    const statuses: number[] = [];
    for (let n = 0; n < 30; n++) {
      const r = await fetch(at(throttled.url, servers[n % 3]!), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${throttled.authorization_key}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ title: `throttled ${n}` }),
      });
      await r.body?.cancel();
      statuses.push(r.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);

    // Jobs: each repository download on a private project streams one audit event (a job); the three processes
    // (two job workers each) take them with SKIP LOCKED. Each event arrives once, and more than two at a time
    // arrive, so more than one process ran them.
    const deliveries = new Map<number, number>();
    let active = 0;
    let maxActive = 0;
    const receiver: Server = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        active++;
        maxActive = Math.max(maxActive, active);
        const { id } = JSON.parse(body) as { id: number };
        deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
        // The receiver is slow, so the workers overlap.
        setTimeout(() => {
          active--;
          res.end('ok');
        }, 200);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    const receiverPort = (receiver.address() as import('node:net').AddressInfo).port;
    const repo = await api.post<{ id: number; http_url_to_repo: string }>('/api/v4/projects', {
      token,
      body: { name: 'moved', repository_storage: 'default', visibility: 'private' },
    });
    expect(repo.status).toBe(201);
    const first = await pushCommit(authUrl(repo.body.http_url_to_repo, 'root', token));
    expect(first.push.code).toBe(0);
    expect(
      (
        await api.post('/api/v4/admin/audit_events/streaming/destinations', {
          token,
          body: { destination_url: `http://127.0.0.1:${receiverPort}/audit` },
        })
      ).status,
    ).toBe(201);
    const DOWNLOADS = 30;
    await Promise.all(
      Array.from({ length: DOWNLOADS }, async (_, n) => {
        const r = await fetch(`${servers[n % 3]!.url}/api/v4/projects/${repo.body.id}/repository/archive`, {
          headers: { 'private-token': token },
        });
        await r.arrayBuffer();
        expect(r.status).toBe(200);
      }),
    );
    await until(
      () => [...deliveries.values()].reduce((a, b) => a + b, 0) >= DOWNLOADS,
      () => `${DOWNLOADS} audit events to be delivered (${deliveries.size} so far)`,
      60_000,
    );
    expect(deliveries.size).toBe(DOWNLOADS);
    expect([...deliveries.values()].filter((n) => n !== 1)).toEqual([]);
    expect(maxActive).toBeGreaterThan(2);
    summary.push(`${DOWNLOADS} streamed audit events delivered once each, up to ${maxActive} at a time`);

    // A push running on B (its last byte held back by a proxy), then a move scheduled on A: the move does not
    // copy while the push runs, pushes on every process are refused, and once the push ends the move completes with
    // the pushed commit.
    const proxy = await holdingProxy(B.url);
    cleanups.push(() => proxy.close());
    const viaB = at(authUrl(repo.body.http_url_to_repo, 'root', token), { url: proxy.url } as SvcServer);
    const work = first.dir;
    await git(
      [
        '-c',
        'user.name=T',
        '-c',
        'user.email=t@example.com',
        'commit',
        '--allow-empty',
        '-q',
        '-m',
        'during the move',
      ],
      work,
    );
    const pushedSha = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    const push = git(['push', '--quiet', viaB, 'HEAD:main'], work);
    // git receive-pack runs on B for the source repository (what the process list says, not svc's own records).
    const source = join(dir, 'default', relativePath('project', repo.body.id));
    await until(async () => (await receivePacks(source)).length > 0, 'the push to be running on B');
    const move = await api.post<{ id: number; state: string }>(
      `/api/v4/projects/${repo.body.id}/repository_storage_moves`,
      { token, body: { destination_storage_name: 'fast' } },
    );
    expect(move.status).toBe(201);
    const destination = join(dir, 'fast', relativePath('project', repo.body.id));
    const moveState = async () =>
      (
        await api.get<{ state: string }>(
          `/api/v4/projects/${repo.body.id}/repository_storage_moves/${move.body.id}`,
          { token },
        )
      ).body.state;
    await until(async () => (await moveState()) === 'started', 'a process to start the move');
    // Every process refuses new pushes now.
    for (const s of servers) {
      await git(
        [
          '-c',
          'user.name=T',
          '-c',
          'user.email=t@example.com',
          'commit',
          '--allow-empty',
          '-q',
          '-m',
          'refused',
        ],
        work,
      );
      const refusedPush = await git(
        [
          'push',
          '--quiet',
          at(authUrl(repo.body.http_url_to_repo, 'root', token), s),
          'HEAD:refs/heads/refused',
        ],
        work,
      );
      expect(refusedPush.code).not.toBe(0);
      expect(refusedPush.stderr).toContain('The repository is temporarily read-only');
    }
    // Still waiting for the push on B: nothing copied.
    expect(await moveState()).toBe('started');
    expect(existsSync(destination)).toBe(false);
    proxy.release();
    const pushed = await push;
    expect(pushed.code, pushed.stderr).toBe(0);
    await until(async () => ((await moveState()) === 'finished' ? true : null), 'the move to finish', 60_000);
    const moved = await api.get<{ repository_storage: string }>(`/api/v4/projects/${repo.body.id}`, {
      token,
    });
    expect(moved.body.repository_storage).toBe('fast');
    expect((await git(['--git-dir', destination, 'rev-parse', 'refs/heads/main'], dir)).stdout.trim()).toBe(
      pushedSha,
    );
    summary.push('the move waited for the push on B and finished with its commit');

    console.info(`[cluster] ${summary.join('; ')}`);
  }, 300_000);
});
