import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { launchChromium, withSignedInPage } from '../helpers/browser.js';
import { startHookReceiver } from '../helpers/hook-receiver.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

describe('webhooks in the project settings (Chromium)', () => {
  let browser: Browser | null = null;
  let server: TestServer | null = null;
  let receiver: Awaited<ReturnType<typeof startHookReceiver>> | null = null;

  beforeAll(async () => {
    [browser, server, receiver] = await Promise.all([
      launchChromium(),
      startTestServer(),
      startHookReceiver(),
    ]);
    await http(server.url).put('/api/v4/application/settings', {
      token: server.rootToken,
      body: { allow_local_requests_from_web_hooks_and_services: true },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  it('adds a webhook, shows its recent deliveries, and why and until when it rests', async () => {
    const s = server!;
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Hooked' } });
    const integration = await createIntegration(api, s.rootToken, p.body.id, { name: 'http', type: 'http' });
    await withSignedInPage(browser!, s, 'hooks', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${p.body.id}/settings`);
      const form = page.getByRole('form', { name: 'Add webhook' });
      await form.getByLabel('URL').fill(receiver!.url);
      await form.getByLabel('Secret token').fill('ui-token');
      await form.getByLabel('Error tracking events').uncheck();
      await form.getByRole('button', { name: 'Add webhook' }).click();
      await form.getByText('Webhook added.').waitFor();
      const item = page.getByRole('listitem', { name: `Webhook ${receiver!.url}` });
      await item.getByText('No deliveries yet.').waitFor();
      const hooks = (await api.get(`/api/v4/projects/${p.body.id}/hooks`, { token: s.rootToken })).body;
      expect(hooks).toEqual([
        expect.objectContaining({ url: receiver!.url, alert_events: true, error_tracking_events: false }),
      ]);

      await notify(integration.url, integration.authorization_key, { title: 'ui alert' });
      await s.server.ctx.jobs.drain();
      await until(() => receiver!.received.length === 1, 'delivery');
      expect(receiver!.received[0]!.headers['x-svc-token']).toBe('ui-token');
      await page.reload();
      const table = page.getByRole('table', { name: `Recent deliveries of ${receiver!.url}` });
      await table.waitFor();
      const row = table.locator('tbody tr').first();
      expect(await row.locator('td').nth(0).innerText()).toBe('alert_new');
      expect(await row.locator('td').nth(1).innerText()).toBe('success');
      expect(await row.locator('td').nth(2).innerText()).toBe('200');

      // Resting after failing: why, and until when, is on the page.
      receiver!.status = 500;
      for (let i = 0; i < 2; i++)
        await notify(integration.url, integration.authorization_key, { title: `fail ${i}` });
      // Retries come due as the clock moves on; the hook rests once enough deliveries in a row failed.
      const hooksPath = `/api/v4/projects/${p.body.id}/hooks`;
      await until(async () => {
        await s.server.ctx.jobs.drain();
        const [hook] = (await api.get(hooksPath, { token: s.rootToken })).body;
        if (hook.alert_status === 'temporarily_disabled') return true;
        s.clock.advance(5_000);
        return false;
      }, 'the hook resting after failures');
      await page.reload();
      await page
        .getByRole('listitem', { name: `Webhook ${receiver!.url}` })
        .getByText(/^Temporarily disabled until \d{4}-\d\d-\d\dT[\d:.]+Z: its last deliveries failed/)
        .waitFor();
    });
  });

  it('adds an error notification rule for chosen members', async () => {
    const s = server!;
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Ruled' } });
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: {
        username: 'oncall-dev',
        name: 'Dev',
        email: 'oncall-dev@example.com',
        password: 'password-123',
      },
    });
    await api.post(`/api/v4/projects/${p.body.id}/members`, {
      token: s.rootToken,
      body: { user_id: u.body.id, access_level: 30 },
    });
    await withSignedInPage(browser!, s, 'error-rules', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${p.body.id}/settings`);
      const form = page.getByRole('form', { name: 'Add error notification rule' });
      await form.getByLabel('When').selectOption('threshold');
      await form.getByLabel('Events (N)').fill('25');
      await form.getByLabel('Minutes (M)').fill('10');
      await form.getByLabel('oncall-dev').check();
      await form.getByLabel('Also send to the webhooks with error tracking events').check();
      await form.getByRole('button', { name: 'Add rule' }).click();
      await form.getByText('Rule added.').waitFor();
      await page
        .getByRole('list', { name: 'Error notification rules' })
        .getByText('25 events of an error within 10 minutes: e-mail oncall-dev; webhooks')
        .waitFor();
    });
    const rules = await api.get(`/api/v4/projects/${p.body.id}/error_tracking/notification_rules`, {
      token: s.rootToken,
    });
    expect(rules.body).toEqual([
      expect.objectContaining({
        trigger: 'threshold',
        threshold_count: 25,
        threshold_minutes: 10,
        recipient_ids: [u.body.id],
        webhook: true,
      }),
    ]);
  });
});
