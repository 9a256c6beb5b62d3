import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const hex = () => randomUUID().replace(/-/g, '');
const now = () => Date.now() / 1000;

function exceptionEvent(extra: Record<string, unknown> = {}) {
  return {
    event_id: hex(),
    timestamp: now(),
    platform: 'node',
    exception: {
      values: [
        {
          type: 'TypeError',
          value: 'Cannot read properties of undefined',
          stacktrace: {
            frames: [
              { filename: 'lib/a.js', function: 'outer', lineno: 3, colno: 1 },
              {
                filename: 'lib/b.js',
                abs_path: '/srv/lib/b.js',
                function: 'inner',
                module: 'b',
                lineno: 20,
                colno: 5,
                pre_context: ['x', 'y'],
                context_line: 'boom()',
                post_context: ['z'],
              },
            ],
          },
        },
      ],
    },
    ...extra,
  };
}

describe.each(await databases())('Sentry collector (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let n = 0;

  /** A project with integrated error tracking on and its first key. */
  async function project() {
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: `errors-${++n}` } });
    const set = await api.put(`/api/v4/projects/${p.body.id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: true, integrated: true },
    });
    expect(set.status).toBe(200);
    const keys = await api.get(`/api/v4/projects/${p.body.id}/error_tracking/client_keys`, {
      token: s.rootToken,
    });
    expect(keys.body).toHaveLength(1);
    const id = p.body.id as number;
    return {
      id,
      key: keys.body[0].public_key as string,
      dsn: keys.body[0].sentry_dsn as string,
      base: `${s.url}/api/v4/error_tracking/collector/api/${id}`,
      errors: async (q = '') =>
        (
          await api.get(`/api/v4/projects/${id}/error_tracking/errors?per_page=100${q}`, {
            token: s.rootToken,
          })
        ).body as any[],
    };
  }
  const post = (url: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', body, headers }).then(async (r) => ({
      status: r.status,
      headers: r.headers,
      body: (r.headers.get('content-type') ?? '').includes('json') ? await r.json() : await r.text(),
    }));
  const envelope = (header: object, items: [object, string | object][]) =>
    [
      JSON.stringify(header),
      ...items.flatMap(([h, p]) => [JSON.stringify(h), typeof p === 'string' ? p : JSON.stringify(p)]),
    ].join('\n');

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_OFFERING: 'hosted' } });
    api = http(s.url);
  });
  afterAll(() => s?.stop());

  it('derives the DSN from SVC_EXTERNAL_URL, GitLab style, plus the deprecated form with a secret', async () => {
    const p = await project();
    expect(p.dsn).toBe(`http://${p.key}@${new URL(s.url).host}/api/v4/error_tracking/collector/${p.id}`);
    expect(p.key).toMatch(/^glet_[0-9a-f]{32}$/);
    const keys = await api.get(`/api/v4/projects/${p.id}/error_tracking/client_keys`, { token: s.rootToken });
    expect(keys.body[0].deprecated_dsn).toMatch(new RegExp(`^http://${p.key}:[0-9a-f]{32}@`));
  });

  it('takes the key from sentry_key, X-Sentry-Auth or the envelope dsn, on both endpoints with and without slash', async () => {
    const p = await project();
    const ev = () => JSON.stringify(exceptionEvent());
    const auth = {
      'x-sentry-auth': `Sentry sentry_version=5, sentry_client=raven-ruby/3.1.2, sentry_timestamp=1, sentry_key=${p.key}, sentry_secret=whatever`,
    };
    const results = [
      await post(`${p.base}/store/?sentry_version=7&sentry_key=${p.key}`, ev()),
      await post(`${p.base}/store`, ev(), auth),
      await post(`${p.base}/envelope/`, envelope({ dsn: p.dsn }, [[{ type: 'event' }, ev()]])),
      await post(`${p.base}/envelope`, envelope({}, [[{ type: 'event' }, ev()]]), auth),
    ];
    for (const r of results) expect(r.status).toBe(200);
    expect(results[0]!.body).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const [error] = await p.errors();
    expect(error.count).toBe(4);
  });

  it('accepts event ids that are not 32 hex digits, as GitLab does (PHP SDK, Python REPL)', async () => {
    const p = await project();
    const send = (event_id: unknown) =>
      post(`${p.base}/store/?sentry_key=${p.key}`, JSON.stringify(exceptionEvent({ event_id })));
    // sentry-php sends 32 letters and digits; a retry of the same event is still one event.
    const php = await send('dquJXuPF9sP1fMy5RpKo979xUALjNDQB');
    expect(php).toMatchObject({ status: 200, body: { id: expect.stringMatching(/^[0-9a-f]{32}$/) } });
    expect(await send('dquJXuPF9sP1fMy5RpKo979xUALjNDQB')).toMatchObject({ status: 200, body: php.body });
    expect((await p.errors())[0].count).toBe(1);
    // The Python REPL sends an empty id: each such event is its own.
    for (const id of ['', '', 42, null]) expect((await send(id)).status).toBe(200);
    const envelopeWithBadId = envelope({ event_id: 'not-an-id' }, [
      [{ type: 'event' }, exceptionEvent({ event_id: undefined })],
    ]);
    expect((await post(`${p.base}/envelope/?sentry_key=${p.key}`, envelopeWithBadId)).status).toBe(200);
    expect((await p.errors())[0].count).toBe(6);
  });

  it('refuses like GitLab: unknown project 404, disabled 404, unknown key 404, no key 400; nothing stored', async () => {
    const p = await project();
    const ev = JSON.stringify(exceptionEvent());
    expect(
      await post(`${s.url}/api/v4/error_tracking/collector/api/999999/store/?sentry_key=${p.key}`, ev),
    ).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect(await post(`${p.base}/store/?sentry_key=glet_${'0'.repeat(32)}`, ev)).toMatchObject({
      status: 404,
      body: { message: '404 Not Found' },
    });
    expect(await post(`${p.base}/store/`, ev)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Failed to parse sentry request' },
    });
    expect((await post(`${p.base}/envelope/`, envelope({}, [[{ type: 'event' }, ev]]))).status).toBe(400);
    await api.put(`/api/v4/projects/${p.id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: false },
    });
    expect((await post(`${p.base}/store/?sentry_key=${p.key}`, ev)).status).toBe(404);
    await api.put(`/api/v4/projects/${p.id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: true },
    });
    expect(await p.errors()).toEqual([]);
  });

  it('decodes gzip, deflate, raw deflate, br and raven base64(zlib), chunked bodies with no content type', async () => {
    const p = await project();
    const url = `${p.base}/store/?sentry_key=${p.key}`;
    const body = () => JSON.stringify(exceptionEvent());
    const sent = [
      await post(url, gzipSync(body()), { 'content-encoding': 'gzip', 'content-type': 'application/json' }),
      await post(url, deflateSync(body()), { 'content-encoding': 'deflate' }),
      await post(url, deflateRawSync(body()), { 'content-encoding': 'deflate' }),
      await post(url, brotliCompressSync(body()), { 'content-encoding': 'br' }),
      await post(url, deflateSync(body()).toString('base64'), { 'content-type': 'application/octet-stream' }),
      await post(url, body(), { 'content-type': 'text/plain;charset=UTF-8' }),
    ];
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Chunked transfer with no Content-Type and no Content-Length, as @sentry/node sends.
    const text = envelope({}, [[{ type: 'event' }, body()]]);
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(`${p.base}/envelope/?sentry_key=${p.key}`, { method: 'POST' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(text.slice(0, 10));
      req.end(text.slice(10));
    });
    expect(chunked).toBe(200);
    expect((await p.errors())[0].count).toBe(7);
    expect((await post(url, 'x', { 'content-encoding': 'compress' })).status).toBe(415);
    expect((await post(url, Buffer.from('not gzip'), { 'content-encoding': 'gzip' })).status).toBe(400);
  });

  it('bounds decompression: a small gzip bomb gets 413 and costs nothing', async () => {
    const p = await project();
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    const store = await post(`${p.base}/store/?sentry_key=${p.key}`, bomb, { 'content-encoding': 'gzip' });
    expect(store.status).toBe(413);
    const env = await post(`${p.base}/envelope/?sentry_key=${p.key}`, bomb, { 'content-encoding': 'gzip' });
    expect(env.status).toBe(413);
    const big = JSON.stringify(exceptionEvent({ extra: { blob: 'x'.repeat(1_100_000) } }));
    expect(
      (await post(`${p.base}/store/?sentry_key=${p.key}`, gzipSync(big), { 'content-encoding': 'gzip' }))
        .status,
    ).toBe(413);
    expect(await p.errors()).toEqual([]);
  });

  it('parses envelopes with and without length, skips other item types, and aggregates sessions', async () => {
    const p = await project();
    const ev = JSON.stringify(exceptionEvent({ release: 'web@1.0', environment: 'staging' }));
    const attachment = 'line one\nline two';
    const body = [
      JSON.stringify({ event_id: hex(), sent_at: new Date().toISOString() }),
      JSON.stringify({ type: 'attachment', length: Buffer.byteLength(attachment), filename: 'a.txt' }),
      attachment,
      JSON.stringify({ type: 'event', length: Buffer.byteLength(ev), content_type: 'application/json' }),
      ev,
      JSON.stringify({ type: 'session' }),
      JSON.stringify({
        sid: '1',
        init: true,
        status: 'ok',
        attrs: { release: 'web@1.0', environment: 'staging' },
      }),
      JSON.stringify({ type: 'session' }),
      JSON.stringify({
        sid: '1',
        status: 'exited',
        errors: 1,
        attrs: { release: 'web@1.0', environment: 'staging' },
      }),
      JSON.stringify({ type: 'sessions' }),
      JSON.stringify({
        aggregates: [{ started: '2026-11-21T10:00:00Z', exited: 3, errored: 1, crashed: 1 }],
        attrs: { release: 'web@1.0', environment: 'staging' },
      }),
      JSON.stringify({ type: 'transaction' }),
      JSON.stringify({ type: 'transaction', spans: [] }),
      JSON.stringify({ type: 'client_report' }),
      JSON.stringify({ discarded_events: [] }),
      JSON.stringify({ type: 'something_new' }),
      '{}',
    ].join('\n');
    const r = await post(`${p.base}/envelope/?sentry_key=${p.key}`, body, {
      'content-type': 'application/x-sentry-envelope',
    });
    expect(r.status).toBe(200);
    const errors = await p.errors();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ first_release: 'web@1.0', environment: 'staging' });
    const sessions = await api.get(`/api/v4/projects/${p.id}/error_tracking/sessions`, {
      token: s.rootToken,
    });
    expect(sessions.body).toEqual([
      { release: 'web@1.0', environment: 'staging', started: 6, errored: 2, crashed: 1 },
    ]);
    // Only a transaction: accepted, nothing stored.
    const tx = await post(
      `${p.base}/envelope/?sentry_key=${p.key}`,
      envelope({ event_id: hex() }, [[{ type: 'transaction' }, { spans: [] }]]),
    );
    expect(tx.status).toBe(200);
    expect(await p.errors()).toHaveLength(1);
    expect((await post(`${p.base}/envelope/?sentry_key=${p.key}`, '{"broken')).status).toBe(400);
    const short = [JSON.stringify({}), JSON.stringify({ type: 'event', length: 1000 }), ev].join('\n');
    expect((await post(`${p.base}/envelope/?sentry_key=${p.key}`, short)).status).toBe(400);
  });

  it('accepts every SDK event shape: exception list, chained exceptions, messages, synthetic exceptions, timestamps, NUL bytes', async () => {
    const p = await project();
    const url = `${p.base}/store/?sentry_key=${p.key}`;
    const send = (e: object) => post(url, JSON.stringify({ event_id: hex(), platform: 'python', ...e }));
    // Go: exception as a list; chained: the one with a stack trace explains the event.
    expect(
      (
        await send({
          timestamp: '2026-11-21T10:48:32.123456789Z',
          exception: [
            { type: 'Cause', value: 'root' },
            {
              type: '*errors.errorString',
              value: 'boom',
              stacktrace: {
                frames: [{ function: 'main.run', module: 'main', filename: 'main.go', lineno: 9 }],
              },
            },
          ],
        })
      ).status,
    ).toBe(200);
    // Python message, raven logentry without timezone, synthetic exception from newer JS SDKs.
    expect(
      (
        await send({
          timestamp: '2026-11-21T10:48:32.123456Z',
          message: 'Disk almost full',
          level: 'warning',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await send({
          timestamp: '2026-11-21T10:48:32',
          message: 'Hello %s',
          logentry: { message: 'Hello %s', params: ['bob'], formatted: 'Hello bob' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await send({
          timestamp: 1795258112.5,
          message: 'synthetic',
          exception: { values: [{ value: 'synthetic', mechanism: { type: 'generic', synthetic: true } }] },
        })
      ).status,
    ).toBe(200);
    expect((await send({ message: 'null\u0000byte', user: { email: 'nul@example.com' } })).status).toBe(200);
    const errors = await p.errors('&sort=first_seen');
    const byType = Object.fromEntries(errors.map((e) => [e.message, e]));
    expect(byType.boom).toMatchObject({
      type: '*errors.errorString',
      culprit: 'main.run(main)',
      first_seen: '2026-11-21T10:48:32.123Z',
    });
    expect(byType['Disk almost full']).toMatchObject({ type: 'Message', tags: { level: 'warning' } });
    expect(byType['Hello bob']).toMatchObject({
      first_seen: '2026-11-21T10:48:32.000Z',
      tags: { level: 'error' },
    });
    expect(byType.synthetic).toMatchObject({ first_seen: new Date(1795258112500).toISOString() });
    expect(byType.nullbyte).toMatchObject({ user_count: 1 });
    expect((await post(url, '"********"')).status).toBe(400);
    expect((await post(url, '{not json')).status).toBe(400);
  });

  it('groups by fingerprint ({{ default }} expands), counts distinct users, and reopens resolved errors', async () => {
    const p = await project();
    const url = `${p.base}/store/?sentry_key=${p.key}`;
    const send = (e: Record<string, unknown>) => post(url, JSON.stringify(exceptionEvent(e)));
    await send({ user: { id: 'u1' } });
    await send({ user: { id: 'u1' } });
    await send({ user: { email: 'b@example.com' } });
    await send({ user: { ip_address: '{{auto}}' } });
    await send({ user: { username: 'carol' }, fingerprint: ['{{ default }}', 'tenant-1'] });
    await send({ fingerprint: ['custom-group'] });
    await send({
      fingerprint: ['custom-group'],
      exception: { values: [{ type: 'OtherError', value: 'different' }] },
    });
    const errors = await p.errors('&sort=frequency');
    expect(errors.map((e) => [e.count, e.user_count])).toEqual([
      [4, 3],
      [2, 0],
      [1, 1],
    ]);
    const main = errors[0];
    const resolved = await api.put(`/api/v4/projects/${p.id}/error_tracking/errors/${main.id}`, {
      token: s.rootToken,
      body: { status: 'resolved' },
    });
    expect(resolved.body.status).toBe('resolved');
    expect(resolved.body.regressed_at).toBeNull();
    expect((await p.errors('&status=unresolved')).map((e) => e.id)).not.toContain(main.id);
    const beforeRegression = Date.now();
    await send({});
    const again = await api.get(`/api/v4/projects/${p.id}/error_tracking/errors/${main.id}`, {
      token: s.rootToken,
    });
    // Seen again after being resolved: a regression, and when it happened.
    expect(again.body).toMatchObject({ status: 'unresolved', count: 5 });
    expect(again.body.regressed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(Date.parse(again.body.regressed_at)).toBeGreaterThanOrEqual(beforeRegression - 1000);
    const trace = await api.get(`/api/v4/projects/${p.id}/error_tracking/errors/${main.id}/stack_trace`, {
      token: s.rootToken,
    });
    expect(trace.body.stack_trace_entries[1]).toEqual({
      filename: 'lib/b.js',
      abs_path: '/srv/lib/b.js',
      function: 'inner',
      lineNo: 20,
      colNo: 5,
      context: [
        [18, 'x'],
        [19, 'y'],
        [20, 'boom()'],
        [21, 'z'],
      ],
      // No source map covers it: the frame is as sent, with no minified one beside it.
      minified: null,
    });
    expect(main.culprit).toBe('inner(b)');
  });

  it('answers CORS preflights and adds Access-Control-Allow-Origin for browsers', async () => {
    const p = await project();
    const pre = await fetch(`${p.base}/envelope/?sentry_key=${p.key}`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(pre.status).toBe(200);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    const r = await post(
      `${p.base}/envelope/?sentry_key=${p.key}`,
      envelope({}, [[{ type: 'event' }, exceptionEvent()]]),
      {
        'content-type': 'text/plain;charset=UTF-8',
        origin: 'http://app.example',
      },
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('rate limits per key when the admin sets a limit: 429 with Retry-After and X-Sentry-Rate-Limits', async () => {
    const p = await project();
    await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { error_tracking_rate_limit_per_minute: 2 },
    });
    try {
      const codes = [];
      for (let i = 0; i < 3; i++)
        codes.push(await post(`${p.base}/store/?sentry_key=${p.key}`, JSON.stringify(exceptionEvent())));
      expect(codes.map((c) => c.status)).toEqual([200, 200, 429]);
      expect(Number(codes[2]!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(codes[2]!.headers.get('x-sentry-rate-limits')).toMatch(/^\d+::key$/);
    } finally {
      await api.put('/api/v4/application/settings', {
        token: s.rootToken,
        body: { error_tracking_rate_limit_per_minute: 0 },
      });
    }
  });

  it('keeps errors 90 days: the retention job deletes older events and errors left empty', async () => {
    const p = await project();
    const url = `${p.base}/store/?sentry_key=${p.key}`;
    const old = (Date.now() - 91 * 86_400_000) / 1000;
    await post(url, JSON.stringify(exceptionEvent({ timestamp: old, fingerprint: ['old-only'] })));
    await post(
      url,
      JSON.stringify(exceptionEvent({ timestamp: old, fingerprint: ['mixed'], user: { id: 'gone' } })),
    );
    await post(url, JSON.stringify(exceptionEvent({ fingerprint: ['mixed'], user: { id: 'kept' } })));
    expect(await p.errors()).toHaveLength(2);
    await s.server.ctx.jobs.enqueue('error_tracking_retention', {});
    await s.server.ctx.jobs.drain();
    const left = await p.errors();
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ count: 1, user_count: 1 });
    // The next day's run is scheduled.
    expect((await s.server.ctx.jobs.pending()).some((j) => j.kind === 'error_tracking_retention')).toBe(true);
  });
});
