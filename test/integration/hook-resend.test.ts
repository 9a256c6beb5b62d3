import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { allowLocalHooks, startHookReceiver } from '../helpers/hook-receiver.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

describe.each(await databases())('resending a webhook delivery (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let receiver: Awaited<ReturnType<typeof startHookReceiver>>;

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    await allowLocalHooks(s);
    receiver = await startHookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await s?.stop();
  });

  async function member(projectId: number, name: string, level: number): Promise<string> {
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: name, name, email: `${name}@example.com`, password: 'password-123' },
    });
    await api.post(`/api/v4/projects/${projectId}/members`, {
      token: s.rootToken,
      body: { user_id: u.body.id, access_level: level },
    });
    const t = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    return t.body.token;
  }

  it('sends the same payload again as a new delivery, for Maintainers only, and names a failure', async () => {
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'resend' } });
    const projectId = p.body.id as number;
    const maintainer = await member(projectId, 'resend-maintainer', 40);
    const developer = await member(projectId, 'resend-developer', 30);
    const hooks = `/api/v4/projects/${projectId}/hooks`;
    const hook = await api.post(hooks, { token: maintainer, body: { url: receiver.url, token: 'tok' } });
    expect(hook.status).toBe(201);
    const i = await createIntegration(api, s.rootToken, projectId, { name: 'X', type: 'http' });
    await notify(i.url, i.authorization_key, { title: 'Disk full', fingerprint: 'disk' });
    await s.server.ctx.jobs.drain();
    await until(() => receiver.received.length === 1, 'first delivery');
    const events = `${hooks}/${hook.body.id}/events`;
    const [delivery] = (await api.get(events, { token: maintainer })).body as { id: number }[];

    expect((await api.post(`${events}/${delivery!.id}/resend`, { token: developer })).status).toBe(403);
    expect(receiver.received.length).toBe(1);
    const again = await api.post(`${events}/${delivery!.id}/resend`, { token: maintainer });
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ response_status: 200 });
    expect(receiver.received.length).toBe(2);
    expect(receiver.received[1]!.body).toEqual(receiver.received[0]!.body);
    expect(receiver.received[1]!.headers['x-svc-token']).toBe('tok');
    const log = (await api.get(events, { token: maintainer })).body as { id: number; status: string }[];
    expect(log.length).toBe(2);
    expect(log[0]!.id).not.toBe(delivery!.id);
    expect(log[0]!.status).toBe('success');

    // The receiver failing: 422 naming it, and the failed attempt is in the log.
    receiver.status = 500;
    const failed = await api.post(`${events}/${delivery!.id}/resend`, { token: maintainer });
    receiver.status = 200;
    expect(failed.status).toBe(422);
    expect(failed.body.message).toMatch(/^Hook execution failed/);
    expect(((await api.get(events, { token: maintainer })).body as { status: string }[])[0]!.status).toBe(
      'failed',
    );

    // Another hook's delivery, or none: 404.
    const other = await api.post(hooks, { token: maintainer, body: { url: `${receiver.url}?other` } });
    const wrong = await api.post(`${hooks}/${other.body.id}/events/${delivery!.id}/resend`, {
      token: maintainer,
    });
    expect(wrong.status).toBe(404);
    expect(wrong.body).toEqual({ message: '404 Hook event Not Found' });
    expect((await api.post(`${events}/999999/resend`, { token: maintainer })).status).toBe(404);
  });
});
