import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { allowLocalHooks, startHookReceiver } from '../helpers/hook-receiver.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** Settings that were add-only: webhooks and error notification rules are edited and removed in the UI. */
describe('editing and deleting settings (Chromium)', () => {
  let browser: Browser | null = null;
  let server: TestServer | null = null;
  let receiver: Awaited<ReturnType<typeof startHookReceiver>> | null = null;

  beforeAll(async () => {
    [browser, server, receiver] = await Promise.all([
      launchChromium(),
      startTestServer(),
      startHookReceiver(),
    ]);
    await allowLocalHooks(server);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  it('edits a webhook, tests it, resends a delivery and deletes it', async () => {
    const s = server!;
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Edited hooks' } });
    const hooksPath = `/api/v4/projects/${p.body.id}/hooks`;
    const created = await api.post(hooksPath, {
      token: s.rootToken,
      body: { url: `${receiver!.url}?first`, name: 'First', token: 'old-token' },
    });
    const integration = await createIntegration(api, s.rootToken, p.body.id, { name: 'http', type: 'http' });
    await notify(integration.url, integration.authorization_key, { title: 'to be resent' });
    await s.server.ctx.jobs.drain();
    await until(() => receiver!.received.length === 1, 'first delivery');

    await withSignedInPage(browser!, s, 'settings-hooks', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${p.body.id}/settings`);
      const item = page.getByRole('listitem', { name: `Webhook ${receiver!.url}?first` });
      await item.getByRole('button', { name: 'Edit First' }).click();
      const form = item.getByRole('form', { name: 'Edit webhook First' });
      expect(await form.getByLabel('URL').inputValue()).toBe(`${receiver!.url}?first`);
      await form.getByLabel('URL').fill(`${receiver!.url}?second`);
      await form.getByLabel('Name').fill('Second');
      await form.getByLabel('Description').fill('Pages the team');
      await form.getByLabel('Error tracking events').uncheck();
      await form.getByLabel('Verify the TLS certificate').uncheck();
      await page.screenshot({ path: screenshotPath('settings-hook-edit.png'), fullPage: true });
      await form.getByRole('button', { name: 'Save webhook' }).click();
      const edited = page.getByRole('listitem', { name: `Webhook ${receiver!.url}?second` });
      await edited.waitFor();
      const hook = (await api.get(`${hooksPath}/${created.body.id}`, { token: s.rootToken })).body;
      expect(hook).toMatchObject({
        url: `${receiver!.url}?second`,
        name: 'Second',
        description: 'Pages the team',
        alert_events: true,
        error_tracking_events: false,
        enable_ssl_verification: false,
      });

      // A blank token kept the stored one: the test delivery carries it.
      await edited.getByRole('button', { name: 'Test alert event' }).click();
      await edited.getByText('Test alert event sent.').waitFor();
      await until(() => receiver!.received.length === 2, 'test delivery');
      expect(receiver!.received[1]!.headers['x-svc-token']).toBe('old-token');
      expect(receiver!.received[1]!.path).toBe('/hook?second');

      // Resend the first delivery from the log: the same payload again.
      const table = edited.getByRole('table', { name: `Recent deliveries of ${receiver!.url}?second` });
      const rows = table.locator('tbody tr');
      await until(async () => (await rows.count()) === 2, '2 rows');
      await rows
        .last()
        .getByRole('button', { name: /^Resend delivery/ })
        .click();
      await edited.getByText('Delivery sent again.').waitFor();
      await until(() => receiver!.received.length === 3, 'resent delivery');
      expect(receiver!.received[2]!.body).toEqual(receiver!.received[0]!.body);
      await until(async () => (await rows.count()) === 3, '3 rows');

      await edited.getByRole('button', { name: 'Delete Second' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete webhook' }).click();
      await page.getByText('No webhooks yet.').waitFor();
      expect((await api.get(hooksPath, { token: s.rootToken })).body).toEqual([]);
    });
  });

  it('edits and deletes an error notification rule', async () => {
    const s = server!;
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Edited rules' } });
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: {
        username: 'rule-dev',
        name: 'Rule Dev',
        email: 'rule-dev@example.com',
        password: 'password-123',
      },
    });
    await api.post(`/api/v4/projects/${p.body.id}/members`, {
      token: s.rootToken,
      body: { user_id: u.body.id, access_level: 30 },
    });
    const rulesPath = `/api/v4/projects/${p.body.id}/error_tracking/notification_rules`;
    await withSignedInPage(browser!, s, 'settings-rules', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${p.body.id}/settings`);
      const add = page.getByRole('form', { name: 'Add error notification rule' });
      await add.getByLabel('rule-dev').check();
      await add.getByRole('button', { name: 'Add rule' }).click();
      const list = page.getByRole('list', { name: 'Error notification rules' });
      const item = list.getByRole('listitem', { name: 'A new error: e-mail rule-dev' });
      await item.waitFor();

      await item.getByRole('button', { name: 'Edit rule' }).click();
      const form = item.getByRole('form', { name: 'Edit error notification rule' });
      await form.getByLabel('When').selectOption('threshold');
      await form.getByLabel('Events (N)').fill('25');
      await form.getByLabel('Minutes (M)').fill('10');
      await form.getByLabel('Also send to the webhooks with error tracking events').check();
      await form.getByRole('button', { name: 'Save rule' }).click();
      const edited = list.getByRole('listitem', {
        name: '25 events of an error within 10 minutes: e-mail rule-dev; webhooks',
      });
      await edited.waitFor();
      const [rule] = (await api.get(rulesPath, { token: s.rootToken })).body;
      expect(rule).toMatchObject({
        trigger: 'threshold',
        threshold_count: 25,
        threshold_minutes: 10,
        webhook: true,
      });

      await edited.getByRole('button', { name: 'Delete rule' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete rule' }).click();
      await page.getByText('No rules: nobody is told about errors.').waitFor();
      expect((await api.get(rulesPath, { token: s.rootToken })).body).toEqual([]);
    });
  });
});
