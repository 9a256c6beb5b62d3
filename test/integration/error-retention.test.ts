import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorTrackingRepository } from '../../src/error-tracking/error-tracking.repository.js';
import type { NormalizedEvent } from '../../src/error-tracking/events.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const DAY = 86_400_000;

/** A normalised event of error `fingerprint` that occurred at `at`. */
function event(fingerprint: string, at: Date, userKey: string | null): NormalizedEvent {
  return {
    eventId: randomUUID().replace(/-/g, ''),
    timestamp: at.toISOString(),
    platform: 'node',
    level: 'error',
    type: 'Error',
    message: `boom in ${fingerprint}`,
    culprit: 'app.js',
    release: null,
    environment: null,
    tags: {},
    userKey,
    hashes: { current: fingerprint, legacy: fingerprint },
    frames: [],
    payload: {},
    payloadJson: '{}',
  };
}

describe.each(await databases())('error retention in batches, capped counts (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let repo: ErrorTrackingRepository;
  let n = 0;

  async function project(): Promise<number> {
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: `retention-${++n}` } });
    const set = await api.put(`/api/v4/projects/${p.body.id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: true, integrated: true },
    });
    expect(set.status).toBe(200);
    return p.body.id as number;
  }

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_OFFERING: 'hosted' } });
    api = http(s.url);
    repo = new ErrorTrackingRepository(s.server.ctx.db.kysely, s.server.ctx.db.dialect);
  });
  afterAll(() => s?.stop());

  it('deletes every event older than the cutoff in several bounded batches and keeps the newer ones', async () => {
    const id = await project();
    const now = Date.now();
    const cutoff = new Date(now - 90 * DAY);
    const old = (i: number) => new Date(now - (91 + i) * DAY);
    const recent = (i: number) => new Date(now - (10 - i) * DAY);
    // 17 old events (9 of an error that has only old ones, 8 of one that also has 3 recent ones).
    await repo.record(
      id,
      [
        ...Array.from({ length: 9 }, (_, i) => event('old-only', old(i), `old-user-${i % 3}`)),
        ...Array.from({ length: 8 }, (_, i) => event('mixed', old(i), 'gone')),
        ...Array.from({ length: 3 }, (_, i) => event('mixed', recent(i), `kept-${i % 2}`)),
      ],
      new Date(now).toISOString(),
    );
    let pauses = 0;
    const result = await repo.prune(cutoff.toISOString(), {
      batchSize: 5,
      pause: async () => {
        pauses++;
      },
    });
    // 17 events in batches of at most 5: four statements (5, 5, 5, 2), the database given back in between.
    expect(result).toEqual({ events: 17, errors: 1, batches: 4, complete: true });
    expect(pauses).toBeGreaterThanOrEqual(3);

    const errors = await api.get(`/api/v4/projects/${id}/error_tracking/errors?per_page=100`, {
      token: s.rootToken,
    });
    expect(errors.body).toHaveLength(1);
    expect(errors.body[0]).toMatchObject({ count: 3, user_count: 2, first_seen: recent(0).toISOString() });
    const events = await api.get(
      `/api/v4/projects/${id}/error_tracking/errors/${errors.body[0].id}/events?per_page=100`,
      { token: s.rootToken },
    );
    expect(events.body.map((e: { timestamp: string }) => e.timestamp).sort()).toEqual(
      [0, 1, 2].map((i) => recent(i).toISOString()),
    );
    expect(events.headers.get('x-total')).toBe('3');

    // Nothing left to delete: no batch at all.
    expect(await repo.prune(cutoff.toISOString(), { batchSize: 5 })).toEqual({
      events: 0,
      errors: 0,
      batches: 0,
      complete: true,
    });
  });

  it('a stopping server ends retention after the batch in progress, and a later run deletes the rest', async () => {
    const id = await project();
    const now = Date.now();
    const cutoff = new Date(now - 90 * DAY).toISOString();
    await repo.record(
      id,
      Array.from({ length: 12 }, (_, i) => event('stop-old', new Date(now - (95 + i) * DAY), null)),
      new Date(now).toISOString(),
    );
    const pause = async () => undefined;
    let asked = 0;
    const first = await repo.prune(cutoff, { batchSize: 5, pause, stopping: () => ++asked >= 1 });
    expect(first).toMatchObject({ events: 5, batches: 1, complete: false });
    const errors = await api.get(`/api/v4/projects/${id}/error_tracking/errors?per_page=100`, {
      token: s.rootToken,
    });
    expect(errors.body[0]).toMatchObject({ count: 7 });
    expect(await repo.prune(cutoff, { batchSize: 5, pause })).toMatchObject({
      events: 7,
      errors: 1,
      complete: true,
    });
  });

  it('the daily job still prunes with the default batch size', async () => {
    const id = await project();
    const now = Date.now();
    await repo.record(
      id,
      [event('job-old', new Date(now - 100 * DAY), null), event('job-new', new Date(now - DAY), null)],
      new Date(now).toISOString(),
    );
    await s.server.ctx.jobs.enqueue('error_tracking_retention', {});
    await s.server.ctx.jobs.drain();
    const errors = await api.get(`/api/v4/projects/${id}/error_tracking/errors?per_page=100`, {
      token: s.rootToken,
    });
    expect(errors.body.map((e: { title: string }) => e.title)).toEqual([expect.stringContaining('job-new')]);
  });

  it('the daily job deletes feedback and attachments received before the cutoff, with their events', async () => {
    const id = await project();
    const [key] = (await api.get(`/api/v4/projects/${id}/error_tracking/client_keys`, { token: s.rootToken }))
      .body;
    const send = async (comments: string) => {
      const eventId = randomUUID().replace(/-/g, '');
      const body = [
        JSON.stringify({ event_id: eventId }),
        JSON.stringify({ type: 'attachment', filename: `${comments}.txt` }),
        comments,
        JSON.stringify({ type: 'user_report' }),
        JSON.stringify({ event_id: eventId, name: 'n', email: 'e@example.com', comments }),
      ].join('\n');
      const r = await fetch(
        `${s.url}/api/v4/error_tracking/collector/api/${id}/envelope/?sentry_key=${key.public_key}`,
        { method: 'POST', body },
      );
      expect(r.status).toBe(200);
    };
    await send('old');
    s.clock.advance(91 * DAY);
    await send('new');
    await s.server.ctx.jobs.enqueue('error_tracking_retention', {}, { uniqueKey: `retention-reports-${id}` });
    await s.server.ctx.jobs.drain();
    const feedback = await api.get(`/api/v4/projects/${id}/error_tracking/feedback`, { token: s.rootToken });
    expect(feedback.body.map((f: { comments: string }) => f.comments)).toEqual(['new']);
    const rows = await s.server.ctx.db.kysely
      .selectFrom('error_tracking_attachments')
      .select('filename')
      .where('project_id', '=', id)
      .execute();
    expect(rows).toEqual([{ filename: 'new.txt' }]);
  });

  it('an event list above 10,000 events leaves X-Total out and keeps the next page right', async () => {
    const id = await project();
    const now = Date.now();
    await repo.record(id, [event('many', new Date(now - DAY), null)], new Date(now).toISOString());
    const [error] = (await api.get(`/api/v4/projects/${id}/error_tracking/errors`, { token: s.rootToken }))
      .body as { id: number }[];
    // 10,049 more events of the same error, written in bulk.
    const db = s.server.ctx.db.kysely;
    for (let start = 0; start < 10_049; start += 1000) {
      await db
        .insertInto('error_tracking_events')
        .values(
          Array.from({ length: Math.min(1000, 10_049 - start) }, (_, i) => ({
            error_id: error!.id,
            project_id: id,
            event_id: `bulk-${start + i}`,
            level: 'error',
            environment: null,
            release: null,
            message: 'boom',
            user_key: null,
            occurred_at: new Date(now - DAY - (start + i + 1) * 1000).toISOString(),
            payload: '{}',
            created_at: new Date(now).toISOString(),
          })),
        )
        .execute();
    }
    // As intake would have counted them.
    await db
      .updateTable('error_tracking_errors')
      .set({ events_count: 10_050 })
      .where('id', '=', error!.id)
      .execute();
    const page = (p: number) =>
      api.get(`/api/v4/projects/${id}/error_tracking/errors/${error!.id}/events?per_page=20&page=${p}`, {
        token: s.rootToken,
      });
    const first = await page(1);
    expect(first.body).toHaveLength(20);
    expect(first.headers.get('x-total')).toBeNull();
    expect(first.headers.get('x-total-pages')).toBeNull();
    expect(first.headers.get('x-next-page')).toBe('2');
    // 10,050 events: page 502 ends at 10,040 (a next page), page 503 holds the last 10.
    expect((await page(502)).headers.get('x-next-page')).toBe('503');
    const last = await page(503);
    expect(last.body).toHaveLength(10);
    expect(last.headers.get('x-next-page')).toBe('');
    expect(last.headers.get('x-prev-page')).toBe('502');
  });
});
