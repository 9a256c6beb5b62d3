import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe('escalation policy UI (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let projectId: number;

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${server!.url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': server!.rootToken, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_TIER: 'premium' } });
    const p = await api('POST', '/projects', { name: 'Escalation UI' });
    expect(p.status).toBe(201);
    projectId = p.body.id;
    for (const [username, name] of [
      ['pager', 'Pat Pager'],
      ['sleeper', 'Sam Sleeper'],
    ]) {
      const u = await api('POST', '/users', {
        username,
        name,
        email: `${username}@example.com`,
        password: 'password-123',
      });
      await api('POST', `/projects/${projectId}/members`, { user_id: u.body.id, access_level: 30 });
    }
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('creates, edits and deletes a policy; the alert page shows who was paged', async () => {
    await withSignedInPage(browser!, server!, 'escalation', async (page) => {
      await page.goto(`${server!.url}/-/ui/projects/${projectId}/escalation_policy`);
      const panel = page.getByRole('tabpanel', { name: 'Escalation policy' });
      await panel.getByText('No escalation policy: new alerts page nobody.').waitFor();
      // No schedules API in this build, or none in the project: members only.
      await panel.getByText('No on-call schedules in this project').waitFor();

      const form = panel.getByRole('form', { name: 'Create escalation policy' });
      await form.getByLabel('Name', { exact: true }).fill('Night shift');
      await form.getByLabel('Description').fill('Wake someone up');
      await form.getByLabel('Repeat (times').fill('2');
      await form.getByLabel('Acknowledgement timeout').fill('30');
      await form.getByLabel('Rule 1: page').selectOption({ label: 'Pat Pager (@pager)' });
      await form.getByRole('button', { name: 'Add rule' }).click();
      await form.getByLabel('Rule 2 minutes').fill('5');
      await form.getByLabel('Rule 2 seconds').fill('30');
      await form.getByLabel('Rule 2: if the alert').selectOption('resolved');
      await form.getByLabel('Rule 2: page').selectOption({ label: 'Sam Sleeper (@sleeper)' });
      await page.screenshot({ path: screenshotPath('escalation-create.png'), fullPage: true });
      await form.getByRole('button', { name: 'Create policy' }).click();

      const rules = panel.getByRole('table', { name: 'Escalation rules' });
      await rules.waitFor();
      await panel.getByRole('heading', { name: 'Night shift' }).waitFor();
      const rows = rules.getByRole('row');
      await until(async () => (await rows.count()) === 3, 'two rule rows');
      expect(await rows.nth(1).textContent()).toContain('0 s');
      expect(await rows.nth(1).textContent()).toContain('is not acknowledged');
      expect(await rows.nth(1).textContent()).toContain('Pat Pager (@pager)');
      expect(await rows.nth(2).textContent()).toContain('5 min 30 s');
      expect(await rows.nth(2).textContent()).toContain('is not resolved');
      await panel.getByText('the rules run 2 more times').waitFor();
      await panel.getByText('not resolved within 30 min triggers the alert again').waitFor();
      const stored = await api('GET', `/projects/${projectId}/incident_management/escalation_policies`);
      expect(stored.body[0]).toMatchObject({
        name: 'Night shift',
        description: 'Wake someone up',
        repeat: 2,
        ack_timeout_minutes: 30,
        rules: [
          { elapsed_time_seconds: 0, status: 'acknowledged', user: { username: 'pager' } },
          { elapsed_time_seconds: 330, status: 'resolved', user: { username: 'sleeper' } },
        ],
      });
      await page.screenshot({ path: screenshotPath('escalation-policy.png'), fullPage: true });

      // Edit: drop the second rule.
      await panel.getByRole('button', { name: 'Edit policy' }).click();
      const edit = panel.getByRole('form', { name: 'Edit escalation policy' });
      expect(await edit.getByLabel('Rule 2 minutes').inputValue()).toBe('5');
      await edit.getByRole('button', { name: 'Remove rule 2' }).click();
      // The remaining rule is due at 0 s: repeating it is refused until the repeat is taken away.
      expect(await edit.getByLabel('Repeat (times').inputValue()).toBe('2');
      await edit.getByRole('button', { name: 'Save policy' }).click();
      await edit.getByText('Repeat needs a last rule with an elapsed time above 0 seconds').waitFor();
      await edit.getByLabel('Repeat (times').fill('0');
      await edit.getByRole('button', { name: 'Save policy' }).click();
      await until(async () => (await rules.getByRole('row').count()) === 2, 'one rule row');

      // An alert pages the user at 0 s: the alert page shows it.
      const integration = await api('POST', `/projects/${projectId}/alert_management/integrations`, {
        name: 'http',
        type: 'http',
      });
      const sent = await fetch(integration.body.url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${integration.body.authorization_key}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ title: 'cpu hot' }),
      });
      expect(sent.status).toBe(200);
      await server!.server.ctx.jobs.drain();
      await page.goto(`${server!.url}/-/ui/projects/${projectId}/alerts/1`);
      const section = page.getByRole('region', { name: 'Escalation' });
      await section.getByText('@pager').waitFor();
      expect(await section.textContent()).toContain('paged');
      await page.screenshot({ path: screenshotPath('escalation-alert.png'), fullPage: true });

      // Delete.
      await page.goto(`${server!.url}/-/ui/projects/${projectId}/escalation_policy`);
      await panel.getByRole('button', { name: 'Delete policy' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await panel.getByText('No escalation policy: new alerts page nobody.').waitFor();
      expect(
        (await api('GET', `/projects/${projectId}/incident_management/escalation_policies`)).body,
      ).toEqual([]);
    });
  });
});
