import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { launchChromium, screenshotPath, withPage, withSignedInPage } from '../helpers/browser.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The API requests the page made that failed, as `status path`. */
function failedRequests(page: Page): string[] {
  const failed: string[] = [];
  page.on('response', (res) => {
    const url = new URL(res.url());
    if (url.pathname.startsWith('/api/') && res.status() >= 400)
      failed.push(`${res.status()} ${url.pathname}`);
  });
  return failed;
}

describe('errors people can act on, on a Free instance with one storage (Chromium)', () => {
  let browser: Browser | null = null;
  let server: TestServer | null = null;
  let projectId = 0;

  beforeAll(async () => {
    [browser, server] = await Promise.all([launchChromium(), startTestServer()]);
    const api = http(server.url);
    const p = await api.post('/api/v4/projects', { token: server.rootToken, body: { name: 'Free Shop' } });
    projectId = p.body.id;
    const integration = await createIntegration(api, server.rootToken, projectId, {
      name: 'http',
      type: 'http',
    });
    await notify(integration.url, integration.authorization_key, { title: 'CPU high' });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('says what the on-call tab needs instead of a raw 403, and the alert page makes no failing request', async () => {
    const s = server!;
    await withSignedInPage(browser!, s, 'tier-free', async (page) => {
      // The home page's own requests (shown after sign-in) settle first: only the alert page's are counted.
      await page.waitForLoadState('networkidle');
      const failed = failedRequests(page);
      await page.goto(`${s.url}/-/ui/projects/${projectId}/alerts/1`);
      await page.getByRole('heading', { name: /CPU high/ }).waitFor();
      await page.getByRole('heading', { name: 'Alert details' }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(failed).toEqual([]);

      await page.goto(`${s.url}/-/ui/projects/${projectId}/oncall_schedules`);
      const panel = page.getByRole('tabpanel', { name: 'On-call schedules' });
      await panel.getByText('SVC_TIER=premium').waitFor();
      expect(await panel.innerText()).toContain('On-call schedules need the Premium or Ultimate tier');
      expect(await panel.innerText()).not.toContain('403');
      await page.screenshot({ path: screenshotPath('tier-free-oncall.png'), fullPage: true });
    });
  });

  it("shows the API's refusal of a field next to that field", async () => {
    const s = server!;
    await withSignedInPage(browser!, s, 'field-errors', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/new`);
      const form = page.getByRole('form', { name: 'New project' });
      await form.getByLabel('Project name').fill('Free Shop');
      await form.getByLabel('Project slug').fill('another-slug');
      await form.getByRole('button', { name: 'Create project' }).click();
      const name = form.getByLabel('Project name');
      await form.getByText('Name has already been taken.').waitFor();
      expect(await name.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await name.getAttribute('aria-describedby')) ?? '';
      const described = await Promise.all(
        describedBy.split(' ').map((id) => page.locator(`[id="${id}"]`).innerText()),
      );
      expect(described).toContain('Name has already been taken.');
      expect(await form.innerText()).not.toContain('{');
      await page.screenshot({ path: screenshotPath('field-errors.png'), fullPage: true });
    });
  });

  it("shows the webhook, chat and alert integration forms' refusals next to the field they name", async () => {
    const s = server!;
    await withSignedInPage(browser!, s, 'field-errors-settings', async (page) => {
      /** The field is marked invalid, described by the sentence shown under it, and the form shows no JSON. */
      const refused = async (form: Locator, label: string, sentence: string): Promise<void> => {
        await form.getByText(sentence, { exact: true }).waitFor();
        const field = form.getByLabel(label, { exact: true });
        expect(await field.getAttribute('aria-invalid')).toBe('true');
        const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
        const described = await Promise.all(
          describedBy.split(' ').map((id) => page.locator(`[id="${id}"]`).innerText()),
        );
        expect(described).toContain(sentence);
        expect(await form.innerText()).not.toMatch(/[{[]"/);
      };
      await page.goto(`${s.url}/-/ui/projects/${projectId}/settings`);

      const hook = page.getByRole('form', { name: 'Add webhook' });
      await hook.getByLabel('URL', { exact: true }).fill('ftp://hooks.example.com/svc');
      await hook.getByRole('button', { name: 'Add webhook' }).click();
      await refused(hook, 'URL', 'Url is blocked: Only allowed schemes are http, https.');

      const chat = page.getByRole('region', { name: 'Chat integrations' });
      await chat.getByLabel('Service').selectOption('slack');
      const slack = chat.getByRole('form', { name: 'Slack integration' });
      await slack.getByLabel('Webhook URL').fill('ftp://chat.example.com/hook');
      await slack.getByRole('button', { name: 'Save' }).click();
      await refused(slack, 'Webhook URL', 'Webhook is blocked: Only allowed schemes are http, https.');

      await page.getByRole('button', { name: 'Add integration' }).click();
      const add = page.getByRole('form', { name: 'Add integration' });
      await add.getByLabel('Type').selectOption({ label: 'Prometheus' });
      await add.getByLabel('Name').fill('Prometheus');
      await add.getByLabel('API URL').fill('ftp://prometheus.example.com');
      await add.getByRole('button', { name: 'Save integration' }).click();
      await refused(add, 'API URL', 'Api url must be an absolute http(s) URL.');
      await page.screenshot({ path: screenshotPath('field-errors-settings.png'), fullPage: true });
    });
  });

  it('disables the storage move forms with the reason when there is one storage', async () => {
    const s = server!;
    await withSignedInPage(browser!, s, 'one-storage', async (page) => {
      await page.goto(`${s.url}/-/ui/admin/storages`);
      await page.getByText('Moves are off: this instance has one storage (default)').waitFor();
      expect(await page.getByRole('button', { name: 'Schedule move', exact: true }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Schedule moves', exact: true }).isDisabled()).toBe(true);
    });
  });

  it('tells a non-admin that the admin area is for administrators', async () => {
    const s = server!;
    const api = http(s.url);
    await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'plain', name: 'Plain', email: 'plain@example.com', password: 'password-123' },
    });
    await withPage(browser!, s, 'non-admin-admin', async (page) => {
      await page.getByLabel('Username or email').fill('plain');
      await page.getByLabel('Password').fill('password-123');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
      for (const path of ['admin', 'admin/users', 'admin/storages']) {
        await page.goto(`${s.url}/-/ui/${path}`);
        await page.getByText('Only administrators can open the admin area').waitFor();
        expect(await page.locator('main').innerText()).not.toContain('403');
      }
    });
  });
});
