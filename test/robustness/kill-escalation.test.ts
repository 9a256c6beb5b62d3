import { afterAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startSmtpReceiver } from '../helpers/smtp.js';
import { type RestartableSetup, restartableSetup, type SvcServer, startSvc } from '../helpers/svc.js';
import { until } from '../helpers/until.js';

type Run = {
  child: SvcServer | null;
  setup: RestartableSetup | null;
  smtp: Awaited<ReturnType<typeof startSmtpReceiver>> | null;
};

async function stopRun(run: Run): Promise<void> {
  await run.child?.stop();
  await run.smtp?.close();
  await run.setup?.dispose();
}

/**
 * A real server process (Premium, one job worker so a stuck send blocks the next page, and a 1 s lease so a
 * crashed worker's job is taken over a second after it ran out), an SMTP receiver that stalls while `stall` says,
 * a project whose escalation policy is `policy` (root and the Developer `oncall` can be paged), and an alert
 * titled `title` fired at it.
 */
async function escalate(
  run: Run,
  database: Parameters<typeof restartableSetup>[0],
  name: string,
  stall: () => boolean,
  /** The alert fired at the project (null: none). */
  title: string | null,
  policy: Record<string, unknown>,
) {
  run.smtp = await startSmtpReceiver({ stall });
  run.setup = await restartableSetup(database, name);
  const { token } = run.setup;
  const env = {
    ...run.setup.env,
    SVC_TIER: 'premium',
    SVC_SMTP_URL: run.smtp.url,
    SVC_JOB_LEASE_SECONDS: '1',
    SVC_JOB_CONCURRENCY: '1',
  };
  run.child = await startSvc(env);
  const api = http(run.child.url);
  const p = await api.post('/api/v4/projects', { token, body: { name: `${name}-project` } });
  expect(p.status).toBe(201);
  const u = await api.post('/api/v4/users', {
    token,
    body: { username: 'oncall', name: 'On call', email: 'oncall@example.com', password: 'password-123' },
  });
  expect(u.status).toBe(201);
  await api.post(`/api/v4/projects/${p.body.id}/members`, {
    token,
    body: { user_id: u.body.id, access_level: 30 },
  });
  const made = await api.post(`/api/v4/projects/${p.body.id}/incident_management/escalation_policies`, {
    token,
    body: policy,
  });
  expect(made.status).toBe(201);
  const integration = await createIntegration(api, token, p.body.id, { name: 'http', type: 'http' });
  if (title !== null)
    expect((await notify(integration.url, integration.authorization_key, { title })).status).toBe(200);
  return { env, token, projectId: p.body.id as number, api };
}

/**
 * kill -9 of a real server process in the middle of an escalation: the 0 s rule's page is being sent (the SMTP
 * receiver holds RCPT unanswered) and the 3 s rule's job waits in the queue. After a restart on the same data,
 * each page is sent exactly once: the interrupted one again (at least once over SMTP, recorded once), the
 * pending one at (or after) its due time.
 */
describe.each(await databases())('kill -9 during an escalation (%s)', (database) => {
  const run: Run = { child: null, setup: null, smtp: null };
  afterAll(() => stopRun(run));

  it('pages every target once after the restart', async () => {
    let stall = true;
    const started = await escalate(run, database, 'kill-escalation', () => stall, 'db down', {
      name: 'Wake up',
      rules: [
        { elapsed_time_seconds: 0, status: 'acknowledged', username: 'root' },
        { elapsed_time_seconds: 3, status: 'acknowledged', username: 'oncall' },
      ],
    });
    const { env, token, projectId } = started;
    let { api } = started;
    const smtp = run.smtp!;

    // The 0 s page is being sent (stuck in the SMTP conversation); the 3 s page is not due yet: kill now.
    await until(() => smtp.stalled >= 1, 'the first page to be sent', 30_000, 50);
    const escalations = `/api/v4/projects/${projectId}/alert_management/alerts/1/escalations`;
    const before = (await api.get(escalations, { token })).body as { state: string; pages: unknown[] }[];
    expect(before.map((e) => e.state)).toEqual(['paged', 'pending']);
    expect(before[0]!.pages).toMatchObject([{ user: { username: 'root' }, email_status: 'pending' }]);
    run.child!.proc.kill('SIGKILL');
    expect((await run.child!.exited).signal).toBe('SIGKILL');
    expect(smtp.messages).toHaveLength(0);

    stall = false;
    run.child = await startSvc(env);
    api = http(run.child.url);
    const done = await until(
      async () => {
        const list = (await api.get(escalations, { token })).body as {
          state: string;
          pages: { user: { username: string }; email_status: string }[];
        }[];
        return list.length === 2 &&
          list.every((e) => e.pages.length > 0 && e.pages.every((pg) => pg.email_status === 'sent'))
          ? list
          : null;
      },
      'both pages to be sent after the restart',
      30_000,
      100,
    );
    expect(done.map((e) => e.state)).toEqual(['paged', 'paged']);
    expect(done.map((e) => e.pages.map((pg) => pg.user.username))).toEqual([['root'], ['oncall']]);
    const paged = smtp.messages.filter((m) => m.subject.includes('Paged: db down'));
    expect(paged.map((m) => m.to).sort()).toEqual([['admin@example.com'], ['oncall@example.com']]);
    expect(smtp.errors).toEqual([]);
    // Nothing is left to send (no duplicate later).
    const pending = await api.get('/api/v4/admin/notifications/emails?status=pending', { token });
    expect(pending.body).toEqual([]);
    const emails = await api.get(`/api/v4/admin/notifications/emails?project_id=${projectId}`, { token });
    expect(emails.body).toHaveLength(2);
  });
});

/**
 * kill -9 in the middle of a repeating escalation: the first round was paged, the second round's first page is
 * being sent. After a restart on the same data, every round pages each rule's target once: none is skipped, none
 * is paged twice, and nothing pages after the last repeat.
 */
describe.each(await databases())('kill -9 during a repeating escalation (%s)', (database) => {
  const run: Run = { child: null, setup: null, smtp: null };
  afterAll(() => stopRun(run));

  it('pages each round once after the restart', async () => {
    let restarted = false;
    // The first round's two pages go through; the next one sticks until the restart.
    const started = await escalate(
      run,
      database,
      'kill-escalation-repeat',
      () => !restarted && (run.smtp?.messages.length ?? 0) >= 2,
      'disk full',
      {
        name: 'Keep waking',
        repeat: 2,
        rules: [
          { elapsed_time_seconds: 0, status: 'acknowledged', username: 'root' },
          { elapsed_time_seconds: 1, status: 'acknowledged', username: 'oncall' },
        ],
      },
    );
    const { env, token, projectId } = started;
    let { api } = started;
    const smtp = run.smtp!;

    await until(() => smtp.stalled >= 1, 'a page of the second round to be sent', 30_000, 50);
    expect(smtp.messages).toHaveLength(2);
    run.child!.proc.kill('SIGKILL');
    expect((await run.child!.exited).signal).toBe('SIGKILL');

    restarted = true;
    run.child = await startSvc(env);
    api = http(run.child.url);
    const escalations = `/api/v4/projects/${projectId}/alert_management/alerts/1/escalations`;
    type Page = { round: number; user: { username: string }; email_status: string };
    const done = await until(
      async () => {
        const list = (await api.get(escalations, { token })).body as { state: string; pages: Page[] }[];
        return list.length === 2 &&
          list.every((e) => e.state === 'paged' && e.pages.length === 3) &&
          list.every((e) => e.pages.every((pg) => pg.email_status === 'sent'))
          ? list
          : null;
      },
      'three rounds of pages to be sent after the restart',
      30_000,
      100,
    );
    // Each rule paged once per round: rounds 0, 1 and 2, none twice.
    for (const e of done) expect(e.pages.map((pg) => pg.round).sort()).toEqual([0, 1, 2]);
    expect(done.map((e) => e.pages[0]!.user.username)).toEqual(['root', 'oncall']);
    // Nothing is left to run: no pending page job, no e-mail to send, six pages recorded.
    expect(done.every((e) => e.state === 'paged')).toBe(true);
    const pending = await api.get('/api/v4/admin/notifications/emails?status=pending', { token });
    expect(pending.body).toEqual([]);
    const emails = await api.get(`/api/v4/admin/notifications/emails?project_id=${projectId}`, { token });
    expect(emails.body).toHaveLength(6);
    expect(smtp.errors).toEqual([]);
  });
});

/**
 * kill -9 in the middle of an incident's re-page: an incident paged by hand was acknowledged, its acknowledgement
 * timed out (a minute: the shortest), and the page of the new run is being sent. After a restart on the same data
 * the incident was triggered again once (one note, one timeline event) and the re-page is sent once.
 */
describe.each(
  await databases(),
)('kill -9 during an incident re-page after an ack timeout (%s)', (database) => {
  const run: Run = { child: null, setup: null, smtp: null };
  afterAll(() => stopRun(run));

  it(
    'triggers the incident again once and re-pages once after the restart',
    { timeout: 150_000 },
    async () => {
      let restarted = false;
      // The first page goes through; the re-page sticks until the restart.
      const started = await escalate(
        run,
        database,
        'kill-incident-ack',
        () => !restarted && (run.smtp?.messages.length ?? 0) >= 1,
        null,
        {
          name: 'Keep it acknowledged',
          ack_timeout_minutes: 1,
          rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'oncall' }],
        },
      );
      const { env, token, projectId } = started;
      let { api } = started;
      const smtp = run.smtp!;
      const issues = `/api/v4/projects/${projectId}/issues`;
      const incident = await api.post(issues, {
        token,
        body: { title: 'cache cold', issue_type: 'incident' },
      });
      expect(incident.status).toBe(201);
      const url = `${issues}/${incident.body.iid}`;
      expect((await api.post(`${url}/page`, { token })).status).toBe(201);
      await until(() => smtp.messages.length === 1, 'the first page', 30_000, 50);
      expect((await api.put(url, { token, body: { escalation_status: 'acknowledged' } })).status).toBe(200);

      // A minute later the acknowledgement times out and the re-page is being sent: kill now.
      await until(() => smtp.stalled >= 1, 'the re-page to be sent', 100_000, 100);
      run.child!.proc.kill('SIGKILL');
      expect((await run.child!.exited).signal).toBe('SIGKILL');
      expect(smtp.messages).toHaveLength(1);

      restarted = true;
      run.child = await startSvc(env);
      api = http(run.child.url);
      await until(
        async () => {
          const emails = (
            await api.get(`/api/v4/admin/notifications/emails?project_id=${projectId}`, { token })
          ).body as { status: string }[];
          return emails.length === 2 && emails.every((e) => e.status === 'sent');
        },
        'the re-page to be sent after the restart',
        30_000,
        100,
      );
      expect(smtp.messages.filter((m) => m.subject.includes('Paged: cache cold'))).toHaveLength(2);
      expect((await api.get(url, { token })).body.escalation_status).toBe('triggered');
      const notes = (await api.get(`${url}/notes?per_page=100`, { token })).body as { body: string }[];
      expect(notes.filter((n) => n.body.includes('acknowledgement timed out'))).toHaveLength(1);
      const timeline = (await api.get(`${url}/timeline_events`, { token })).body as { note: string }[];
      expect(timeline.filter((e) => e.note.startsWith('The acknowledgement timed out'))).toHaveLength(1);
      expect(timeline.filter((e) => e.note.startsWith('@oncall paged by escalation policy'))).toHaveLength(2);
      const pending = await api.get('/api/v4/admin/notifications/emails?status=pending', { token });
      expect(pending.body).toEqual([]);
      expect(smtp.errors).toEqual([]);
    },
  );
});
