import { afterAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startSmtpReceiver } from '../helpers/smtp.js';
import { type RestartableSetup, restartableSetup, type SvcServer, startSvc } from '../helpers/svc.js';
import { until } from '../helpers/until.js';

/**
 * kill -9 of a real server process while it is sending an alert e-mail (the SMTP receiver holds the RCPT
 * command unanswered): after a restart on the same data, the e-mail is sent once, neither lost nor repeated.
 */
describe.each(await databases())('kill -9 while an alert e-mail is being sent (%s)', (database) => {
  let child: SvcServer | null = null;
  let setup: RestartableSetup | null = null;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>> | null = null;

  afterAll(async () => {
    await child?.stop();
    await smtp?.close();
    await setup?.dispose();
  });

  it('sends the e-mail once after the restart', async () => {
    let stall = true;
    smtp = await startSmtpReceiver({ stall: () => stall });
    setup = await restartableSetup(database, 'kill-notify');
    const { token } = setup;
    const env = {
      ...setup.env,
      SVC_SMTP_URL: smtp.url,
      // A crashed worker's job is taken over one second after its lease ran out.
      SVC_JOB_LEASE_SECONDS: '1',
    };
    child = await startSvc(env);
    let api = http(child.url);
    const p = await api.post('/api/v4/projects', { token, body: { name: 'paged' } });
    expect(p.status).toBe(201);
    await api.put(`/api/v4/projects/${p.body.id}/alert_management/settings`, {
      token,
      body: { send_email: true },
    });
    const integration = await createIntegration(api, token, p.body.id, { name: 'http', type: 'http' });
    expect(
      (await notify(integration.url, integration.authorization_key, { title: 'disk full' })).status,
    ).toBe(200);

    // The worker picked the e-mail job up and is stuck in the SMTP conversation: kill it there.
    await until(() => smtp!.stalled >= 1, 'the e-mail send to start', 30_000, 50);
    child.proc.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    expect(smtp.messages).toHaveLength(0);

    stall = false;
    child = await startSvc(env);
    api = http(child.url);
    const emails = async () =>
      (await api.get(`/api/v4/admin/notifications/emails?project_id=${p.body.id}`, { token })).body as {
        status: string;
        attempts: number;
      }[];
    const sent = await until(
      async () => {
        const list = await emails();
        return list.length === 1 && list[0]!.status === 'sent' ? list : null;
      },
      'the e-mail to be sent after the restart',
      30_000,
      100,
    );
    expect(sent[0]!.attempts).toBe(2);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.to).toEqual(['admin@example.com']);
    expect(smtp.errors).toEqual([]);
    expect(smtp.messages[0]!.subject).toContain('Alert triggered: disk full');
    // Nothing is left to send (no duplicate later).
    const pending = await api.get(`/api/v4/admin/notifications/emails?status=pending`, { token });
    expect(pending.body).toEqual([]);
  });
});
