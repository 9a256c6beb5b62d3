import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** One request with headers exactly as given (node:http sends any byte a header value may hold). */
function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | null,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('latin1');
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** Bytes a header value can carry on the wire: tab, visible ASCII and space, latin-1 (obs-text). */
const wireChar = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.constant(0x09) },
    { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  )
  .map((c) => String.fromCharCode(c));
const anyValue = fc.array(wireChar, { maxLength: 60 }).map((a) => a.join('').trim());

/** Values that are almost right: the parser's edge cases for each header. */
const nearMisses: Record<string, string[]> = {
  'content-type': [
    '',
    ';',
    ';;;',
    'x',
    '/',
    'application/json;',
    'application/json; charset',
    'a/b; =',
    'text/plain; charset=utf-99',
    '*/*',
  ],
  'content-encoding': ['', 'gzip, gzip', 'br,deflate', 'identity', 'x-gzip', 'GZIP', ',', 'compress'],
  authorization: [
    '',
    'Bearer',
    'Bearer ',
    'Basic',
    'Basic !!!',
    'Basic Og==',
    'Basic ' + 'QQ=='.repeat(300),
    'Sentry',
    'Sentry sentry_key=',
    'Sentry ,,,=,=',
  ],
  'x-sentry-auth': [
    '',
    'Sentry',
    'Sentry sentry_key',
    'Sentry sentry_key=, sentry_key=',
    'sentry_key=%ZZ',
    '=,=,=',
  ],
  'private-token': ['', ' ', 'svcpat-', '%00', 'a'.repeat(5000)],
  cookie: [
    '',
    ';',
    '_svc_session=',
    '_svc_session=%ZZ',
    '_svc_session=%E0%A4%A',
    '=;=;=',
    'a=b; a=c; _svc_session="',
  ],
  accept: ['', '*/*;q=x', 'application/json;q=0', ',,,', 'text/html;level=;q=1'],
  range: [
    '',
    'bytes=',
    'bytes=abc',
    'bytes=5-1',
    'bytes=-0',
    'bytes=0-0,0-0,' + '1-2,'.repeat(200),
    'items=0-1',
  ],
  'if-none-match': ['', '*', 'W/', '"', 'W/"x", ,', '"unterminated'],
  'if-modified-since': ['', 'yesterday', 'Mon, 32 Foo 99999 99:99:99 GMT'],
  origin: ['', 'null', 'http://', 'http://[::1', '://x', 'https://evil.example'],
  'sec-fetch-site': ['', 'cross-site', 'same-origin', 'bogus'],
  sudo: ['', ' ', '0', '-1', '99999999999999999999', 'root', '%'],
  'x-forwarded-for': ['', ',', 'unknown', '999.1.1.1', '::ffff:', '1.2.3.4, , ,'],
  'x-request-id': ['', ' ', 'a'.repeat(2000)],
};
const headerNames = Object.keys(nearMisses);
const headerSet = fc
  .dictionary(fc.constantFrom(...headerNames), fc.constant(null), { maxKeys: 4 })
  .chain((picked) =>
    fc.tuple(
      ...Object.keys(picked).map((name) =>
        fc.tuple(fc.constant(name), fc.oneof(fc.constantFrom(...nearMisses[name]!), anyValue)),
      ),
    ),
  );

/**
 * Arbitrary and malformed header values at every kind of public endpoint (the API, an alert notify URL, the
 * Sentry collector's store and envelope, git smart HTTP, the session route, the UI's files): never a 5xx, and the
 * server keeps answering.
 */
describe.each(await databases())('header values at every endpoint (property, %s)', (database) => {
  let s: TestServer;
  let endpoints: { method: string; path: string; body: string | null }[];

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_OFFERING: 'hosted' } });
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'headers' } });
    expect(p.status).toBe(201);
    const id = p.body.id as number;
    await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: true, integrated: true },
    });
    const keys = await api.get(`/api/v4/projects/${id}/error_tracking/client_keys`, { token: s.rootToken });
    const key = keys.body[0].public_key as string;
    const integration = await createIntegration(api, s.rootToken, id, {
      name: 'Generic',
      type: 'http',
      active: true,
    });
    const collector = `/api/v4/error_tracking/collector/api/${id}`;
    const event = JSON.stringify({ message: 'headers', platform: 'node' });
    endpoints = [
      { method: 'GET', path: '/api/v4/projects', body: null },
      { method: 'GET', path: `/api/v4/projects/${id}/error_tracking/errors`, body: null },
      { method: 'POST', path: '/api/v4/projects', body: JSON.stringify({ name: 'x' }) },
      { method: 'PUT', path: `/api/v5/projects/${id}`, body: JSON.stringify({ description: 'd' }) },
      { method: 'POST', path: new URL(integration.url).pathname, body: JSON.stringify({ title: 'h' }) },
      { method: 'POST', path: `${collector}/store/?sentry_key=${key}`, body: event },
      {
        method: 'POST',
        path: `${collector}/envelope/?sentry_key=${key}`,
        body: `{}\n{"type":"event"}\n${event}`,
      },
      { method: 'POST', path: `${collector}/envelope/`, body: `{"dsn":"http://${key}@x/${id}"}\n` },
      { method: 'GET', path: '/root/headers.git/info/refs?service=git-upload-pack', body: null },
      { method: 'POST', path: '/root/headers.git/git-upload-pack', body: '0000' },
      {
        method: 'POST',
        path: '/-/session',
        body: JSON.stringify({ login: 'root', password: 'wrong-password' }),
      },
      { method: 'GET', path: '/-/session', body: null },
      { method: 'DELETE', path: '/-/session', body: null },
      { method: 'GET', path: '/', body: null },
      { method: 'GET', path: '/root/headers', body: null },
      { method: 'GET', path: '/assets/missing.js', body: null },
      { method: 'GET', path: '/-/health', body: null },
    ];
  }, 60_000);
  afterAll(async () => s?.stop());

  it('never answers 5xx to any value of any header, and stays up', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), headerSet, async (which, pairs) => {
        const e = endpoints[which % endpoints.length]!;
        const headers = Object.fromEntries(pairs);
        const r = await send(s.url, e.method, e.path, headers, e.body);
        expect(
          r.status,
          `${e.method} ${e.path} ${JSON.stringify(headers)}: ${r.text.slice(0, 200)}`,
        ).toBeLessThan(500);
      }),
      { numRuns: 400 },
    );
    expect((await send(s.url, 'GET', '/-/health', {}, null)).status).toBe(200);
  }, 120_000);
});
