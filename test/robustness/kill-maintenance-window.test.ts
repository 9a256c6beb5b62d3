import { afterAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startSmtpReceiver } from '../helpers/smtp.js';
import { type RestartableSetup, restartableSetup, type SvcServer, startSvc } from '../helpers/svc.js';
import { until } from '../helpers/until.js';

/**
 * kill -9 of a real server process while a maintenance window holds an alert's e-mail: after a restart on the
 * same data, the held e-mail goes out once the window has ended (the held job is a row, not a timer), and once
 * only.
 */
describe.each(await databases())('kill -9 during a maintenance window (%s)', (database) => {
  let child: SvcServer | null = null;
  let setup: RestartableSetup | null = null;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>> | null = null;
  afterAll(async () => {
    await child?.stop();
    await smtp?.close();
    await setup?.dispose();
  });

  it('sends the held e-mail once after the restart', async () => {
    smtp = await startSmtpReceiver();
    setup = await restartableSetup(database, 'kill-maintenance');
    const { token } = setup;
    const env = { ...setup.env, SVC_SMTP_URL: smtp.url, SVC_JOB_LEASE_SECONDS: '1' };
    child = await startSvc(env);
    let api = http(child.url);
    const p = await api.post('/api/v4/projects', { token, body: { name: 'kill-maintenance-project' } });
    expect(p.status).toBe(201);
    const id = p.body.id as number;
    const settings = await api.put(`/api/v4/projects/${id}/alert_management/settings`, {
      token,
      body: { send_email: true },
    });
    expect(settings.status).toBe(200);
    const integration = await createIntegration(api, token, id, { name: 'http', type: 'http' });
    // A short window in real time: the process's clock is the real one.
    const window = await api.post(`/api/v4/projects/${id}/alert_management/maintenance_windows`, {
      token,
      body: { ends_at: new Date(Date.now() + 4_000).toISOString(), comment: 'short maintenance' },
    });
    expect(window.status).toBe(201);
    expect(
      (await notify(integration.url, integration.authorization_key, { title: 'held mail' })).status,
    ).toBe(200);
    const alert = (await api.get(`/api/v4/projects/${id}/alert_management/alerts/1`, { token })).body;
    expect(alert.silenced_by).toEqual([
      expect.objectContaining({ type: 'maintenance_window', id: window.body.id }),
    ]);
    const triggered = () => smtp!.messages.filter((m) => m.subject.includes('Alert triggered: held mail'));
    expect(triggered()).toHaveLength(0);
    child.proc.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    child = await startSvc(env);
    api = http(child.url);
    await until(() => triggered().length === 1, 'the held e-mail after the restart', 30_000, 100);
    const emails = async () =>
      (await api.get(`/api/v4/admin/notifications/emails?project_id=${id}`, { token })).body as {
        status: string;
      }[];
    await until(
      async () => (await emails()).every((e) => e.status === 'sent'),
      'the e-mail recorded as sent',
    );
    expect(await emails()).toHaveLength(1);
    expect(triggered()).toHaveLength(1);
    expect(smtp.errors).toEqual([]);
  });
});
