import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { projectWithMembers } from '../helpers/members.js';
import { clientEnv, missingRuntime, runClient } from '../helpers/sentry.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;
const hex = () => randomUUID().replace(/-/g, '');
const python = missingRuntime(
  ['/usr/bin/python3', '/usr/lib/python3/dist-packages/sentry_sdk/__init__.py'],
  'python3-sentry-sdk',
);

/** An exception thrown through in-app frames `fns` (outermost first) of module `app`. */
const exception = (type: string, value: string, fns: string[], extra: Record<string, unknown> = {}) => ({
  event_id: hex(),
  platform: 'python',
  exception: {
    values: [
      {
        type,
        value,
        stacktrace: {
          frames: fns.map((fn, i) => ({ module: 'app.views', function: fn, lineno: 10 + i, in_app: true })),
        },
      },
    ],
  },
  ...extra,
});

describe.each(await databases())('error grouping, merge and unmerge (%s)', (database) => {
  let s: TestServer;
  let runs = 0;

  async function setup() {
    const n = ++runs;
    const p = await projectWithMembers(s, `grouping-${n}`, LEVELS, n);
    const set = await p.api.put(`/api/v4/projects/${p.id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: true, integrated: true },
    });
    expect(set.status).toBe(200);
    const keys = await p.api.get(`/api/v4/projects/${p.id}/error_tracking/client_keys`, {
      token: s.rootToken,
    });
    const key = keys.body[0].public_key as string;
    const errors = `/api/v4/projects/${p.id}/error_tracking/errors`;
    const store = async (event: object) => {
      const r = await fetch(`${s.url}/api/v4/error_tracking/collector/api/${p.id}/store/?sentry_key=${key}`, {
        method: 'POST',
        body: JSON.stringify(event),
      });
      expect(r.status).toBe(200);
      return (await r.json()) as { id: string };
    };
    const list = async () =>
      (
        (await p.api.get(`${errors}?per_page=100&sort=first_seen`, { token: s.rootToken })).body as any[]
      ).sort((a, b) => a.id - b.id);
    return { ...p, dsn: keys.body[0].sentry_dsn as string, errors, store, list };
  }

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_OFFERING: 'hosted' } });
  });
  afterAll(() => s?.stop());

  it.skipIf(python !== null && !process.env.CI)(
    'python3-sentry-sdk: one bug from two routes is one error, two bugs in one route are two; logentry params fill the title',
    async () => {
      if (python) throw new Error(`required in CI: ${python}`);
      const p = await setup();
      const run = await runClient('/usr/bin/python3', ['python-grouping.py', p.dsn], { env: clientEnv() });
      expect(run.code, run.summary).toBe(0);
      expect(run.sends.length, run.summary).toBe(4);
      expect(
        run.sends.every((x) => x.status === 200),
        run.summary,
      ).toBe(true);
      const errors = await p.list();
      expect(errors.map((e) => [e.title, e.count])).toEqual([
        ["KeyError 'id'", 2],
        ["KeyError 'name'", 1],
        ['Message Disk /var is 97% full', 1],
      ]);
    },
  );

  it('@sentry/node: one bug from two routes is one error, two bugs in one route are two', async () => {
    const p = await setup();
    const run = await runClient(process.execPath, ['node-grouping.mjs', p.dsn], { env: clientEnv() });
    expect(run.code, run.summary).toBe(0);
    expect(run.sends.filter((x) => x.types?.includes('event')).length, run.summary).toBe(3);
    const errors = await p.list();
    expect(errors.map((e) => [e.type, e.count])).toEqual([
      ['TypeError', 2],
      ['TypeError', 1],
    ]);
    expect(errors[0].message).toMatch(/reading 'id'/);
    expect(errors[1].message).toMatch(/reading 'name'/);
  });

  it('merges and unmerges by hand: Developer and above, later events follow their hashes, bad input changes nothing', async () => {
    const p = await setup();
    await p.store(exception('KeyError', "'id'", ['show', 'load']));
    await p.store(exception('KeyError', "'id'", ['show', 'check']));
    await p.store(exception('KeyError', "'id'", ['show', 'check']));
    await p.store(exception('ValueError', 'bad', ['save']));
    const [a, b, c] = await p.list();
    expect([a.count, b.count, c.count]).toEqual([1, 2, 1]);
    const merge = `${p.errors}/merge`;

    for (const role of ['guest', 'reporter'])
      expect(
        (await p.api.put(merge, { token: p.tokens[role], body: { error_ids: [a.id, b.id] } })).status,
        role,
      ).toBe(403);
    expect((await p.api.get(`${p.errors}/${a.id}/hashes`, { token: p.tokens.guest })).status).toBe(403);
    // Bad input: fewer than two errors, an unknown error, another project's error; nothing merged.
    const one = await p.api.put(merge, { token: p.tokens.developer, body: { error_ids: [a.id, a.id] } });
    expect(one.status).toBe(400);
    expect(one.body.message).toEqual({ error_ids: ['must name at least two different errors'] });
    expect(
      (await p.api.put(merge, { token: p.tokens.developer, body: { error_ids: [a.id, 999999] } })).body,
    ).toEqual({ message: '404 Error Not Found' });
    const other = await setup();
    await other.store(exception('KeyError', "'id'", ['show', 'load']));
    const [foreign] = await other.list();
    expect(
      (await p.api.put(merge, { token: p.tokens.developer, body: { error_ids: [a.id, foreign.id] } })).status,
    ).toBe(404);
    expect((await p.api.put(merge, { token: p.tokens.developer, body: { error_ids: 'x' } })).status).toBe(
      400,
    );
    expect((await p.list()).map((e) => e.count)).toEqual([1, 2, 1]);

    // The error with the most events takes the others.
    const merged = await p.api.put(merge, { token: p.tokens.developer, body: { error_ids: [a.id, b.id] } });
    expect(merged.status).toBe(200);
    expect(merged.body.error).toMatchObject({ id: b.id, count: 3 });
    expect(merged.body.merged_error_ids).toEqual([a.id]);
    expect((await p.api.get(`${p.errors}/${a.id}`, { token: p.tokens.reporter })).status).toBe(404);
    const events = await p.api.get(`${p.errors}/${b.id}/events`, { token: p.tokens.reporter });
    expect(events.body).toHaveLength(3);
    // A later event of the merged-away error lands in the error that took it.
    await p.store(exception('KeyError', "'id'", ['show', 'load']));
    expect((await p.list()).map((e) => [e.id, e.count])).toEqual([
      [b.id, 4],
      [c.id, 1],
    ]);

    const hashes = await p.api.get(`${p.errors}/${b.id}/hashes`, { token: p.tokens.reporter });
    expect(hashes.status).toBe(200);
    expect(hashes.body).toHaveLength(2);
    expect(hashes.body.map((h: any) => h.grouping_version)).toEqual([
      'stacktrace:2026-11',
      'stacktrace:2026-11',
    ]);
    expect(hashes.body.map((h: any) => h.events_count)).toEqual([2, 2]);
    // Oldest first: the hash of the error merged away was recorded first.
    const [ofA, ofB] = hashes.body.map((h: any) => h.hash as string);

    const unmerge = `${p.errors}/${b.id}/unmerge`;
    expect((await p.api.post(unmerge, { token: p.tokens.reporter, body: { hashes: [ofA] } })).status).toBe(
      403,
    );
    const all = await p.api.post(unmerge, { token: p.tokens.developer, body: { hashes: [ofA, ofB] } });
    expect(all.status).toBe(400);
    expect(all.body.message).toEqual({ hashes: ['must leave the error at least one of its hashes'] });
    const unknown = await p.api.post(unmerge, {
      token: p.tokens.developer,
      body: { hashes: ['f'.repeat(40)] },
    });
    expect(unknown.status).toBe(400);
    expect((await p.api.post(unmerge, { token: p.tokens.developer, body: { hashes: [] } })).status).toBe(400);
    expect((await p.list()).map((e) => e.count)).toEqual([4, 1]);

    const split = await p.api.post(unmerge, { token: p.tokens.developer, body: { hashes: [ofA] } });
    expect(split.status).toBe(201);
    expect(split.body).toMatchObject({ type: 'KeyError', count: 2, status: 'unresolved' });
    expect((await p.list()).map((e) => [e.id, e.count])).toEqual([
      [b.id, 2],
      [c.id, 1],
      [split.body.id, 2],
    ]);
    // The hash went with it: later events of that bug land in the new error.
    await p.store(exception('KeyError', "'id'", ['show', 'load']));
    expect((await p.api.get(`${p.errors}/${split.body.id}`, { token: p.tokens.reporter })).body.count).toBe(
      3,
    );
    expect((await p.api.get(`${p.errors}/${b.id}`, { token: p.tokens.reporter })).body.count).toBe(2);
  });

  it('answers a transaction sent to /store/ as accepted and keeps no error of it', async () => {
    const p = await setup();
    const id = hex();
    const r = await p.store({
      event_id: id,
      type: 'transaction',
      transaction: 'GET /users',
      platform: 'python',
      spans: [],
      contexts: { trace: { trace_id: hex(), span_id: hex().slice(0, 16), op: 'http.server' } },
    });
    expect(r).toEqual({ id });
    expect(await p.list()).toEqual([]);
  });
});
