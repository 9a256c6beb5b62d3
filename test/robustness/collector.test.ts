import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Hostile and broken senders against the Sentry collector: every answer is
 * a GitLab-shaped 4xx or a 200 that stores what it should, nothing else is stored, and the server keeps answering.
 */

const hex = () => randomUUID().replace(/-/g, '');
const event = (extra: Record<string, unknown> = {}) => ({
  event_id: hex(),
  timestamp: Date.now() / 1000,
  platform: 'node',
  exception: { values: [{ type: 'RobustnessError', value: 'boom' }] },
  ...extra,
});
const envelope = (header: object, items: [object, string | object][]) =>
  [
    JSON.stringify(header),
    ...items.flatMap(([h, p]) => [JSON.stringify(h), typeof p === 'string' ? p : JSON.stringify(p)]),
  ].join('\n');

/** A gzip bomb: a few tens of kilobytes that inflate to 50 MB. */
const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));

describe.each(await databases())('collector under hostile input (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let n = 0;

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_OFFERING: 'hosted' } });
    api = http(s.url);
  });
  afterAll(async () => s?.stop());

  async function project() {
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: `hostile-${++n}` } });
    expect(p.status).toBe(201);
    const id = p.body.id as number;
    const set = await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: true, integrated: true },
    });
    expect(set.status).toBe(200);
    const keys = await api.get(`/api/v4/projects/${id}/error_tracking/client_keys`, { token: s.rootToken });
    const key = keys.body[0].public_key as string;
    const base = `${s.url}/api/v4/error_tracking/collector/api/${id}`;
    return {
      id,
      key,
      dsn: keys.body[0].sentry_dsn as string,
      base,
      store: `${base}/store/?sentry_key=${key}`,
      envelope: `${base}/envelope/?sentry_key=${key}`,
      errors: async () =>
        (await api.get(`/api/v4/projects/${id}/error_tracking/errors?per_page=100`, { token: s.rootToken }))
          .body as any[],
      events: async (errorId: number) =>
        (
          await api.get(`/api/v4/projects/${id}/error_tracking/errors/${errorId}/events?per_page=100`, {
            token: s.rootToken,
          })
        ).body as any[],
      sessions: () => api.get(`/api/v4/projects/${id}/error_tracking/sessions`, { token: s.rootToken }),
    };
  }

  const post = (url: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', body, headers }).then(async (r) => ({
      status: r.status,
      headers: r.headers,
      body: (r.headers.get('content-type') ?? '').includes('json') ? await r.json() : await r.text(),
    }));

  async function healthy() {
    const h = await fetch(`${s.url}/-/health`);
    expect(h.status).toBe(200);
  }

  it('reads store and envelope bodies whatever their Content-Type, malformed or empty, as Sentry does', async () => {
    const p = await project();
    const types = ['', ';', 'x', ';;;', '/', 'text/plain; charset', 'a/b; =', '\u00e9/x'.normalize()];
    for (const [i, type] of types.entries()) {
      const e = await post(p.envelope, envelope({}, [[{ type: 'event' }, event({ message: `env-${i}` })]]), {
        'content-type': type,
      });
      expect(e.status, JSON.stringify(type)).toBe(200);
      const st = await post(p.store, JSON.stringify(event({ message: `store-${i}` })), {
        'content-type': type,
      });
      expect(st.status, JSON.stringify(type)).toBe(200);
    }
    const [group] = await p.errors();
    expect(await p.events(group.id)).toHaveLength(types.length * 2);
    await healthy();
  });

  it('refuses an item flood (20,000 events or sessions in one small gzip envelope) with 400 and stores nothing', async () => {
    const p = await project();
    const items: [object, object][] = [];
    for (let i = 0; i < 20_000; i++) items.push([{ type: 'event' }, event()]);
    const flood = gzipSync(envelope({}, items));
    expect(flood.length).toBeLessThan(2_000_000);
    const r = await post(p.envelope, flood, { 'content-encoding': 'gzip' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: expect.stringMatching(/^400 Bad request - .*envelope/) });
    expect(await p.errors()).toEqual([]);

    // Eleven events: over the ten an envelope may carry; refused before any is stored.
    const eleven = await post(
      p.envelope,
      envelope(
        {},
        Array.from({ length: 11 }, (): [object, object] => [{ type: 'event' }, event()]),
      ),
    );
    expect(eleven.status).toBe(400);
    expect(eleven.body).toEqual({ message: '400 Bad request - too many events in envelope (at most 10)' });
    expect(await p.errors()).toEqual([]);

    const sessions: [object, object][] = [];
    for (let i = 0; i < 20_000; i++)
      sessions.push([{ type: 'session' }, { sid: hex(), init: true, attrs: { release: 'r@1' } }]);
    const s1 = await post(p.envelope, gzipSync(envelope({}, sessions)), { 'content-encoding': 'gzip' });
    expect(s1.status).toBe(400);
    // 101 session items: over Relay's max_session_count.
    const s2 = await post(p.envelope, envelope({}, sessions.slice(0, 101)));
    expect(s2).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - too many session items in envelope (at most 100)' },
    });
    // Items of types that are not stored count too (at most 200 items).
    const noise: [object, string][] = [];
    for (let i = 0; i < 20_000; i++) noise.push([{ type: 'client_report' }, '{}']);
    expect(
      (await post(p.envelope, gzipSync(envelope({}, noise)), { 'content-encoding': 'gzip' })).status,
    ).toBe(400);
    expect((await p.sessions()).body).toEqual([]);
    expect(await p.errors()).toEqual([]);
    await healthy();
  });

  it('counts the rate limit in events: an envelope of 6 events is over a limit of 5 per minute', async () => {
    const p = await project();
    const set = (n: number) =>
      api.put('/api/v4/application/settings', {
        token: s.rootToken,
        body: { error_tracking_rate_limit_per_minute: n },
      });
    expect((await set(5)).status).toBe(200);
    try {
      const six = envelope(
        {},
        Array.from({ length: 6 }, (): [object, object] => [{ type: 'event' }, event()]),
      );
      const r = await post(p.envelope, six);
      expect(r.status).toBe(429);
      expect(r.body).toEqual({ message: '429 Too Many Requests' });
      expect(r.headers.get('x-sentry-rate-limits')).toMatch(/^\d+::key$/);
      expect(await p.errors()).toEqual([]);
    } finally {
      expect((await set(0)).status).toBe(200);
    }
    await healthy();
  });

  it('stays responsive while a large legal envelope (1 event, 100 sessions, 15 MB attachment) is processed', async () => {
    const p = await project();
    const attachment = 'a'.repeat(15 * 1024 * 1024);
    const items: [object, string | object][] = [
      [{ type: 'event' }, event({ release: 'big@1' })],
      [{ type: 'attachment', length: attachment.length, filename: 'big.txt' }, attachment],
    ];
    for (let i = 0; i < 100; i++)
      items.push([
        { type: 'session' },
        { sid: hex(), init: true, status: 'ok', attrs: { release: 'big@1' } },
      ]);
    const body = gzipSync(envelope({}, items));
    let done = false;
    const latencies: number[] = [];
    const sent = post(p.envelope, body, { 'content-encoding': 'gzip' }).finally(() => {
      done = true;
    });
    // Health is polled for as long as the envelope is in flight (bounded by the request itself).
    while (!done) {
      const t0 = performance.now();
      const h = await fetch(`${s.url}/-/health`);
      latencies.push(performance.now() - t0);
      expect(h.status).toBe(200);
    }
    const r = await sent;
    expect(r.status).toBe(200);
    // Measured, not asserted: how often and how fast health answered during the envelope.
    console.info(
      `[collector ${database}] large envelope: ${latencies.length} health answers in flight, slowest ${Math.round(Math.max(0, ...latencies))} ms`,
    );
    const errors = await p.errors();
    expect(errors).toHaveLength(1);
    expect((await p.sessions()).body).toEqual([
      { release: 'big@1', environment: 'production', started: 100, errored: 0, crashed: 0 },
    ]);
  });

  it('accepts one content-encoding only: nested layers get 415 without being decoded', async () => {
    const p = await project();
    const text = JSON.stringify(event());
    let layered: Buffer = Buffer.from(text);
    for (let i = 0; i < 100; i++) layered = gzipSync(layered);
    const hundred = await post(p.store, layered, { 'content-encoding': Array(100).fill('gzip').join(', ') });
    expect(hundred).toMatchObject({
      status: 415,
      body: { message: '415 Unsupported Media Type - at most one Content-Encoding is supported' },
    });
    const two = await post(p.envelope, gzipSync(gzipSync(envelope({}, [[{ type: 'event' }, text]]))), {
      'content-encoding': 'gzip, gzip',
    });
    expect(two.status).toBe(415);
    const mixed = await post(p.store, deflateSync(gzipSync(text)), { 'content-encoding': 'gzip, deflate' });
    expect(mixed.status).toBe(415);
    expect(await p.errors()).toEqual([]);
    // One layer (and identity around it) still works.
    expect((await post(p.store, gzipSync(text), { 'content-encoding': 'identity, gzip' })).status).toBe(200);
    await healthy();
  });

  it('checks the key before decompressing: a wrong key anywhere and a gzip bomb get 404, not 413', async () => {
    const p = await project();
    const wrong = `glet_${'0'.repeat(32)}`;
    const gz = { 'content-encoding': 'gzip' };
    // Key in the query string.
    const q = await post(`${p.base}/envelope/?sentry_key=${wrong}`, bomb, gz);
    expect(q).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    // Key in X-Sentry-Auth and in Authorization: Sentry ...
    const x = await post(`${p.base}/store/`, bomb, { ...gz, 'x-sentry-auth': `Sentry sentry_key=${wrong}` });
    expect(x).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    const a = await post(`${p.base}/envelope/`, bomb, {
      ...gz,
      authorization: `Sentry sentry_version=7, sentry_key=${wrong}`,
    });
    expect(a).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    // A wrong key is answered before the body is read: the upload below never ends, the answer comes anyway.
    let answered = false;
    const early = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${p.base}/envelope/?sentry_key=${wrong}`,
        { method: 'POST', headers: { 'content-encoding': 'gzip' } },
        (res) => {
          let text = '';
          res.on('data', (c) => {
            text += c;
          });
          res.on('end', () => {
            answered = true;
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body: text });
          });
        },
      );
      req.on('error', (err) => (answered ? undefined : reject(err)));
      req.write(bomb.subarray(0, 1024));
    });
    expect(early.status).toBe(404);
    expect(JSON.parse(early.body)).toEqual({ message: '404 Not Found' });
    // Key only in the envelope header: only that line is decompressed, the bomb behind it never is.
    const dsn = p.dsn.replace(p.key, wrong);
    const headerThenBomb = gzipSync(
      Buffer.concat([Buffer.from(`${JSON.stringify({ dsn })}\n`), Buffer.alloc(50 * 1024 * 1024, 0x20)]),
    );
    const d = await post(`${p.base}/envelope/`, headerThenBomb, gz);
    expect(d).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    // No key at all and a bomb with no line end: refused once the header is over 64 KB, not at 20 MB.
    const noKey = await post(`${p.base}/envelope/`, bomb, gz);
    expect(noKey).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^400 Bad request/) },
    });
    // A repeated sentry_key parameter is no key at all.
    const twice = await post(
      `${p.base}/store/?sentry_key=${p.key}&sentry_key=${wrong}`,
      JSON.stringify(event()),
    );
    expect(twice.status).toBe(400);
    // The right key in Authorization: Sentry ... is accepted; the dsn path still works with the right key.
    const ok = await post(`${p.base}/store/`, JSON.stringify(event()), {
      authorization: `Sentry sentry_version=7, sentry_key=${p.key}`,
    });
    expect(ok.status).toBe(200);
    const viaDsn = await post(
      `${p.base}/envelope/`,
      gzipSync(envelope({ dsn: p.dsn }, [[{ type: 'event' }, event()]])),
      gz,
    );
    expect(viaDsn.status).toBe(200);
    expect(await p.errors()).toHaveLength(1);
    expect((await p.errors())[0].count).toBe(2);
    await healthy();
  });

  it('refuses absurd session numbers with 400; GET sessions keeps answering 200', async () => {
    const p = await project();
    const attrs = { release: 'app@1', environment: 'prod' };
    const bad: string[] = [
      JSON.stringify({ aggregates: [{ started: '2026-11-21T10:00:00Z', exited: -5 }], attrs }),
      JSON.stringify({ aggregates: [{ started: '2026-11-21T10:00:00Z', exited: 1e308 }], attrs }),
      `{"aggregates":[{"started":"2026-11-21T10:00:00Z","crashed":1e999}],"attrs":${JSON.stringify(attrs)}}`,
      JSON.stringify({ aggregates: [{ started: '2026-11-21T10:00:00Z', errored: 1.5 }], attrs }),
      JSON.stringify({ aggregates: [{ started: '2026-11-21T10:00:00Z', errored: '7' }], attrs }),
      JSON.stringify({ aggregates: [{ started: 'yesterday', exited: 1 }], attrs }),
      JSON.stringify({ aggregates: { exited: 1 }, attrs }),
      JSON.stringify({ aggregates: [{ exited: 1 }], attrs: { release: 'bad\u0000release' } }),
      JSON.stringify({ aggregates: [{ exited: 1 }], attrs: { release: 'x'.repeat(201) } }),
      JSON.stringify({ aggregates: [{ exited: 1 }], attrs: { release: 'r', environment: 'a/b' } }),
    ];
    for (const payload of bad) {
      const r = await post(p.envelope, envelope({}, [[{ type: 'sessions' }, payload]]));
      expect(r.status, payload.slice(0, 120)).toBe(400);
      expect(r.body).toEqual({ message: expect.stringMatching(/^400 Bad request - Invalid session: /) });
    }
    const badSession: object[] = [
      { sid: '1', init: true, errors: -1, status: 'exited', attrs },
      { sid: '1', init: true, errors: 1e308, status: 'exited', attrs },
      { sid: '1', init: true, status: 'bogus', attrs },
      { sid: '1', init: 'yes', attrs },
      { sid: '1', duration: -3, attrs },
      { sid: '1', seq: -1, attrs },
      { sid: '1', timestamp: 1e300, attrs },
      [1, 2, 3],
    ];
    for (const payload of badSession) {
      const r = await post(p.envelope, envelope({}, [[{ type: 'session' }, payload]]));
      expect(r.status, JSON.stringify(payload)).toBe(400);
    }
    // A valid event in the same envelope as a bad session is not stored either.
    const mixed = await post(
      p.envelope,
      envelope({}, [
        [{ type: 'event' }, event()],
        [{ type: 'session' }, { errors: -1, attrs }],
      ]),
    );
    expect(mixed.status).toBe(400);
    const empty = await p.sessions();
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
    expect(await p.errors()).toEqual([]);

    // Valid counts at the limit saturate instead of overflowing the column.
    const max = 2_147_483_647;
    for (let i = 0; i < 2; i++) {
      const r = await post(
        p.envelope,
        envelope({}, [[{ type: 'sessions' }, { aggregates: [{ exited: max, crashed: 1 }], attrs }]]),
      );
      expect(r.status).toBe(200);
    }
    const full = await p.sessions();
    expect(full.status).toBe(200);
    expect(full.body).toEqual([
      { release: 'app@1', environment: 'prod', started: max, errored: 0, crashed: 2 },
    ]);
    await healthy();
  });

  it('stores an event_id once per project: repeats get 200 and the same id, nothing twice', async () => {
    const p = await project();
    const ev = event();
    const text = JSON.stringify(ev);
    for (let i = 0; i < 5; i++) {
      const r = await post(p.store, text);
      expect(r).toMatchObject({ status: 200, body: { id: ev.event_id } });
    }
    const viaEnvelope = await post(
      p.envelope,
      envelope({ event_id: ev.event_id }, [[{ type: 'event' }, { ...ev, message: 'other' }]]),
    );
    expect(viaEnvelope).toMatchObject({ status: 200, body: { id: ev.event_id } });
    // Concurrent repeats (PostgreSQL: separate transactions racing on the unique index).
    const burst = await Promise.all(Array.from({ length: 20 }, () => post(p.store, text)));
    expect(burst.map((r) => r.status)).toEqual(Array(20).fill(200));
    const errors = await p.errors();
    expect(errors).toHaveLength(1);
    expect(errors[0].count).toBe(1);
    expect(await p.events(errors[0].id)).toHaveLength(1);
    // The same event_id in another project is that project's own event.
    const q = await project();
    expect((await post(q.store, text)).status).toBe(200);
    expect(await q.errors()).toHaveLength(1);
    // Concurrent distinct events in one burst are all stored (the retry path does not lose any).
    const distinct = Array.from({ length: 20 }, () => event({ fingerprint: ['burst'] }));
    const mixed = await Promise.all([
      ...distinct.map((e) => post(p.store, JSON.stringify(e))),
      ...distinct.map((e) => post(p.store, JSON.stringify(e))),
    ]);
    expect(mixed.every((r) => r.status === 200)).toBe(true);
    const burstError = (await p.errors()).find((e) => e.count > 1);
    expect(burstError.count).toBe(20);
    await healthy();
  });

  it('stores absurd timestamps as the receive time and refuses NUL escapes in deep nesting with 400', async () => {
    const p = await project();
    const before = Date.now();
    for (const timestamp of [1e13, 1e300, '275760-09-13T00:00:00Z', -1e12, '99999999999999']) {
      const r = await post(p.store, JSON.stringify(event({ timestamp, fingerprint: [String(timestamp)] })));
      expect(r.status, String(timestamp)).toBe(200);
    }
    const after = Date.now();
    const stored = await p.errors();
    expect(stored).toHaveLength(5);
    for (const e of stored) {
      const seen = Date.parse(e.last_seen);
      expect(seen).toBeGreaterThanOrEqual(before - 1000);
      expect(seen).toBeLessThanOrEqual(after + 1000);
    }

    // 5,000 levels of nesting with a NUL escape at the bottom (the reported 500), and without one.
    const deep = (depth: number, leaf: string) => `${'{"a":'.repeat(depth)}"${leaf}"${'}'.repeat(depth)}`;
    const withNul = `{"event_id":"${hex()}","message":"deep","extra":${deep(5000, '\\u0000')}}`;
    const nulDeep = await post(p.store, withNul);
    expect(nulDeep).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Unsupported sentry payload: nested deeper than 100 levels' },
    });
    const arrays = `{"event_id":"${hex()}","message":"deep","extra":{"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`;
    expect((await post(p.store, arrays)).status).toBe(400);
    const env = await post(p.envelope, envelope({}, [[{ type: 'event' }, withNul]]));
    expect(env.status).toBe(400);
    expect(await p.errors()).toHaveLength(5);

    // NUL escapes at a sane depth are stripped and stored.
    const ok = `{"event_id":"${hex()}","message":"nul\\u0000here","tags":{"k\\u0000":"v\\u0000"},"extra":${deep(20, '\\u0000x')}}`;
    expect((await post(p.store, ok)).status).toBe(200);
    const nul = (await p.errors()).find((e) => e.message === 'nulhere');
    expect(nul).toBeDefined();
    const events = await p.events(nul.id);
    expect(JSON.stringify(events)).not.toContain('\\u0000');
    await healthy();
  });
});
