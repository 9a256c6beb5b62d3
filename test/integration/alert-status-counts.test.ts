import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(await databases())('alert status counts kept by triggers (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
  });
  afterAll(() => s?.stop());

  /** The counts as a GROUP BY over the alerts themselves (what the counts endpoint used to run). */
  async function counted(projectId: number): Promise<Record<string, number>> {
    const rows = await sql<{ status: string; n: number | string }>`SELECT status, count(*) AS n FROM alerts
      WHERE project_id = ${projectId} GROUP BY status`.execute(s.server.ctx.db.kysely);
    const out: Record<string, number> = { triggered: 0, acknowledged: 0, resolved: 0, ignored: 0 };
    for (const r of rows.rows) out[r.status] = Number(r.n);
    return out;
  }

  it('follow new alerts, repeats, status changes in every direction, resolving payloads and deletes', async () => {
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'counted' } });
    const projectId = p.body.id as number;
    const other = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'other' } });
    const i = await createIntegration(api, s.rootToken, projectId, { name: 'X', type: 'http' });
    const o = await createIntegration(api, s.rootToken, other.body.id, { name: 'Y', type: 'http' });
    const base = `/api/v4/projects/${projectId}/alert_management/alerts`;
    const counts = async () => (await api.get(`${base}/counts`, { token: s.rootToken })).body;

    for (let n = 1; n <= 6; n++)
      await notify(i.url, i.authorization_key, { title: `A${n}`, fingerprint: `f${n}` });
    await notify(i.url, i.authorization_key, { title: 'A1', fingerprint: 'f1' }); // a repeat: no new alert
    await notify(o.url, o.authorization_key, { title: 'elsewhere', fingerprint: 'f1' });
    expect(await counts()).toEqual({
      triggered: 6,
      acknowledged: 0,
      resolved: 0,
      ignored: 0,
      open: 6,
      all: 6,
    });

    const put = (iid: number, status: string) =>
      api.put(`${base}/${iid}`, { token: s.rootToken, body: { status } });
    await put(1, 'acknowledged');
    await put(2, 'resolved');
    await put(3, 'ignored');
    await put(3, 'triggered');
    await put(4, 'resolved');
    await put(4, 'acknowledged');
    await put(5, 'resolved');
    await put(5, 'resolved'); // no change
    // A payload that resolves alert 6 (end time given).
    await notify(i.url, i.authorization_key, {
      title: 'A6',
      fingerprint: 'f6',
      end_time: new Date().toISOString(),
    });
    const now = await counts();
    const exact = await counted(projectId);
    expect(now).toEqual({
      ...exact,
      open: exact.triggered! + exact.acknowledged!,
      all: Object.values(exact).reduce((a, b) => a + b, 0),
    });
    expect(exact).toEqual({ triggered: 1, acknowledged: 2, resolved: 3, ignored: 0 });
    expect(
      (
        await api.get(`/api/v4/projects/${other.body.id}/alert_management/alerts/counts`, {
          token: s.rootToken,
        })
      ).body,
    ).toMatchObject({ triggered: 1, all: 1 });

    // Deleting alerts (here: the project, whose alerts cascade) takes them off too.
    await s.server.ctx.db.kysely
      .deleteFrom('alerts')
      .where('project_id', '=', projectId)
      .where('iid', '<=', 2)
      .execute();
    expect(await counts()).toMatchObject({ acknowledged: 1, resolved: 2, all: 4 });
    await sql`DELETE FROM projects WHERE id = ${projectId}`.execute(s.server.ctx.db.kysely);
    const left = await sql<{ n: number | string }>`SELECT count(*) AS n FROM alert_status_counts
      WHERE project_id = ${projectId}`.execute(s.server.ctx.db.kysely);
    expect(Number(left.rows[0]!.n)).toBe(0);
  });
});
