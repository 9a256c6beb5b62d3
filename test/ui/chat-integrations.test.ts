import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { launchChromium, withSignedInPage } from '../helpers/browser.js';
import { allowLocalHooks, startHookReceiver } from '../helpers/hook-receiver.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

describe('chat integrations in the project settings (Chromium)', () => {
  let browser: Browser | null = null;
  let server: TestServer | null = null;
  let receiver: Awaited<ReturnType<typeof startHookReceiver>> | null = null;

  beforeAll(async () => {
    [browser, server, receiver] = await Promise.all([
      launchChromium(),
      startTestServer({ env: { SVC_TIER: 'premium' } }),
      startHookReceiver(),
    ]);
    await allowLocalHooks(server);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  it('sets up Slack, sends a test message, shows the messages sent, and removes it', async () => {
    const s = server!;
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Chatty' } });
    const id = p.body.id as number;
    const webhook = `${receiver!.url}?ui=slack`;
    await withSignedInPage(browser!, s, 'chat', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${id}/settings`);
      const section = page.getByRole('region', { name: 'Chat integrations' });
      await section.getByText('No active chat integrations.').waitFor();
      await section.getByLabel('Service').selectOption('slack');
      const form = section.getByRole('form', { name: 'Slack integration' });
      await form.getByText('Not set up yet.').waitFor();
      await form.getByLabel('Webhook URL').fill(webhook);
      await form.getByLabel('Username').fill('svc-bot');
      await form.getByLabel('Channel').fill('#ops');
      await form.getByLabel('Error tracking events').uncheck();
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByText('Slack saved.').waitFor();
      await section
        .getByRole('list', { name: 'Active chat integrations' })
        .getByText('Slack notifications')
        .waitFor();
      const saved = await api.get(`/api/v4/projects/${id}/integrations/slack`, { token: s.rootToken });
      expect(saved.body).toMatchObject({
        active: true,
        alert_events: true,
        error_tracking_events: false,
        properties: { username: 'svc-bot', channel: '#ops' },
      });
      // The webhook is write-only: the form never shows it again.
      expect(await form.getByLabel('Webhook URL').inputValue()).toBe('');
      expect(await page.content()).not.toContain(receiver!.url);

      await form.getByRole('button', { name: 'Send test message' }).click();
      await form.getByText('Test message sent.').waitFor();
      expect(receiver!.received.filter((r) => r.path === '/hook?ui=slack')).toHaveLength(1);

      const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
      await notify(integration.url, integration.authorization_key, { title: 'ui chat alert' });
      await s.server.ctx.jobs.drain();
      await until(
        () => receiver!.received.filter((r) => r.path === '/hook?ui=slack').length === 2,
        'the alert',
      );
      await page.reload();
      await page
        .getByRole('region', { name: 'Chat integrations' })
        .getByLabel('Service')
        .selectOption('slack');
      const table = page.getByRole('table', { name: 'Recent messages to Slack' });
      await table.waitFor();
      const rows = table.locator('tbody tr');
      expect(await rows.nth(0).locator('td').nth(0).innerText()).toBe('alert_new');
      expect(await rows.nth(0).locator('td').nth(1).innerText()).toBe('success');
      expect(await rows.nth(1).locator('td').nth(0).innerText()).toBe('test_test');

      // A failing test says why.
      receiver!.status = 404;
      try {
        const again = page.getByRole('form', { name: 'Slack integration' });
        await again.getByRole('button', { name: 'Send test message' }).click();
        await again.getByText('Test failed: the service answered 404').waitFor();
      } finally {
        receiver!.status = 200;
      }

      await page
        .getByRole('form', { name: 'Slack integration' })
        .getByRole('button', { name: 'Remove' })
        .click();
      await page.getByRole('form', { name: 'Slack integration' }).getByText('Not active.').waitFor();
      await page.getByText('No active chat integrations.').waitFor();
    });
    // GitLab's DELETE disables it and clears its settings.
    expect(
      (await api.get(`/api/v4/projects/${id}/integrations/slack`, { token: s.rootToken })).body,
    ).toMatchObject({
      active: false,
      properties: { username: null, channel: null },
    });
  });
  it('an escalation rule chosen in the policy form pages the Slack channel', async () => {
    const s = server!;
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Paged channel' } });
    const id = p.body.id as number;
    const set = await api.put(`/api/v4/projects/${id}/integrations/slack`, {
      token: s.rootToken,
      body: { webhook: `${receiver!.url}?ui=page`, alert_events: false },
    });
    expect(set.status).toBe(200);
    await withSignedInPage(browser!, s, 'chat-page', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${id}/escalation_policy`);
      const panel = page.getByRole('tabpanel', { name: 'Escalation policy' });
      const form = panel.getByRole('form', { name: 'Create escalation policy' });
      await form.getByLabel('Name', { exact: true }).fill('Channel first');
      await form.getByLabel('Rule 1: page').selectOption({ label: 'Chat: Slack notifications' });
      await form.getByRole('button', { name: 'Create policy' }).click();
      const rules = panel.getByRole('table', { name: 'Escalation rules' });
      await rules.getByText('the slack chat channel').waitFor();
    });
    const stored = await api.get(`/api/v4/projects/${id}/incident_management/escalation_policies`, {
      token: s.rootToken,
    });
    expect(stored.body[0].rules).toEqual([
      expect.objectContaining({ integration_slug: 'slack', user: null }),
    ]);
    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    await notify(integration.url, integration.authorization_key, { title: 'page the channel' });
    await s.server.ctx.jobs.drain();
    await until(() => receiver!.received.some((r) => r.path === '/hook?ui=page'), 'the page');
    const pages = receiver!.received.filter((r) => r.path === '/hook?ui=page');
    expect(pages).toHaveLength(1);
    expect(pages[0]!.body.text).toContain('Paged');
    expect(pages[0]!.body.text).toContain('page the channel');
  });
});
