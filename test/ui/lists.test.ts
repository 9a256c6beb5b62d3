import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Alert, error and incident lists: state in the URL, updates while open, bulk actions. */
describe('lists (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let projectId: number;
  let notifyUrl = '';
  let notifyKey = '';
  let dsn = '';

  const api = async (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${server!.url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': server!.rootToken, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const notify = async (title: string, extra: Record<string, unknown> = {}): Promise<void> => {
    const r = await fetch(notifyUrl, {
      method: 'POST',
      headers: { Authorization: `Bearer ${notifyKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title, fingerprint: title, ...extra }),
    });
    expect(r.status).toBe(200);
  };
  const sendError = async (type: string): Promise<void> => {
    const u = new URL(dsn);
    const r = await fetch(
      `${u.protocol}//${u.host}/api/v4/error_tracking/collector/api/${projectId}/store/?sentry_key=${u.username}`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          event_id: randomBytes(16).toString('hex'),
          platform: 'node',
          timestamp: Date.now() / 1000,
          exception: { values: [{ type, value: `${type} happened` }] },
        }),
      },
    );
    expect(r.status).toBe(200);
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_OFFERING: 'hosted' } });
    const p = await api('POST', '/projects', { name: 'Lists' });
    projectId = ((await p.json()) as { id: number }).id;
    const i = await api('POST', `/projects/${projectId}/alert_management/integrations`, {
      name: 'Hook',
      type: 'http',
      active: true,
    });
    const integration = (await i.json()) as { url: string; authorization_key: string };
    notifyUrl = integration.url;
    notifyKey = integration.authorization_key;
    // A Developer to assign alerts to.
    const alice = (await (
      await api('POST', '/users', {
        username: 'alice',
        name: 'Alice',
        email: 'alice@example.com',
        password: 'password-123',
      })
    ).json()) as { id: number };
    await api('POST', `/projects/${projectId}/members`, { user_id: alice.id, access_level: 30 });
    for (let n = 1; n <= 6; n++) await notify(`Alert ${n}`, { severity: n % 2 === 0 ? 'high' : 'low' });
    expect(
      (await api('PUT', `/projects/${projectId}/error_tracking/settings`, { active: true, integrated: true }))
        .status,
    ).toBe(200);
    const keys = (await (await api('GET', `/projects/${projectId}/error_tracking/client_keys`)).json()) as {
      sentry_dsn: string;
    }[];
    dsn = keys[0]!.sentry_dsn;
    for (const t of ['KeyError', 'ValueError', 'IndexError']) await sendError(t);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const alertRows = (page: Page) => page.getByRole('tabpanel').getByRole('table').locator('tbody tr');

  it('keeps the alert list state in the URL across reload and Back', async () => {
    await withSignedInPage(browser!, server!, 'lists-url', async (page) => {
      await page.goto(`${server!.url}/-/ui/projects/${projectId}`);
      await alertRows(page).first().waitFor();
      expect(await alertRows(page).count()).toBe(6);

      await page.getByRole('tab', { name: /^Triggered/ }).click();
      await page.waitForURL(/status=triggered/);
      await page.getByRole('searchbox', { name: 'Search alerts' }).fill('Alert 3');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/search=Alert\+3/);
      await until(async () => (await alertRows(page).count()) === 1, '1 rows');

      await page.reload();
      await page.getByRole('tab', { name: /^Triggered/, selected: true }).waitFor();
      expect(await page.getByRole('searchbox', { name: 'Search alerts' }).inputValue()).toBe('Alert 3');
      await until(async () => (await alertRows(page).count()) === 1, '1 rows');

      // Back undoes the search, then the tab.
      await page.goBack();
      await page.waitForURL((u) => !u.search.includes('search='));
      expect(await page.getByRole('searchbox', { name: 'Search alerts' }).inputValue()).toBe('');
      await until(async () => (await alertRows(page).count()) === 6, '6 rows');
      await page.getByRole('tab', { name: /^Triggered/, selected: true }).waitFor();
      await page.goBack();
      await page.getByRole('tab', { name: /^All/, selected: true }).waitFor();

      // Sorting and a shared link: severity ascending puts the low ones first.
      await page.getByRole('button', { name: 'Severity' }).click();
      await page.waitForURL(/order_by=severity/);
      const shared = page.url();
      await page.goto(`${server!.url}/`);
      await page.goto(shared);
      await page
        .getByRole('columnheader', { name: /Severity/ })
        .and(page.locator('[aria-sort]'))
        .waitFor();
      await alertRows(page).first().waitFor();
    });
  });

  it('keeps the error list state in the URL across reload and Back', async () => {
    await withSignedInPage(browser!, server!, 'lists-errors-url', async (page) => {
      await page.goto(`${server!.url}/-/ui/projects/${projectId}/error_tracking`);
      const rows = page.getByRole('tabpanel').getByRole('table').first().locator('tbody tr');
      await until(async () => (await rows.count()) === 3, '3 rows');
      await page.getByLabel('Sort by').selectOption('frequency');
      await page.waitForURL(/sort=frequency/);
      await page.getByRole('searchbox', { name: 'Search errors' }).fill('KeyError');
      await page.getByRole('button', { name: 'Search' }).click();
      await until(async () => (await rows.count()) === 1, '1 rows');
      await page.reload();
      expect(await page.getByLabel('Sort by').inputValue()).toBe('frequency');
      await until(async () => (await rows.count()) === 1, '1 rows');
      await page.goBack();
      await until(async () => (await rows.count()) === 3, '3 rows');
      expect(await page.getByLabel('Sort by').inputValue()).toBe('frequency');
    });
  });

  it('shows a new alert while the list is open, keeping the scroll position and the selection', async () => {
    // A short window, so the list scrolls; oldest first, so the new alert lands below what is in view.
    await withSignedInPage(
      browser!,
      server!,
      'lists-live',
      async (page) => {
        await page.goto(`${server!.url}/-/ui/projects/${projectId}?sort=asc`);
        await alertRows(page).first().waitFor();
        await page.getByText(/Updated just now/).waitFor();
        const before = await alertRows(page).count();
        await page.getByRole('checkbox', { name: 'Select alert #2' }).check();
        await page.evaluate('window.scrollTo(0, 200)');
        const scrolled = await page.evaluate<number>('window.scrollY');
        expect(scrolled).toBeGreaterThan(0);

        await notify('Arrived while open');
        await page.getByRole('link', { name: 'Arrived while open' }).waitFor({ timeout: 45_000 });
        expect(await alertRows(page).count()).toBe(before + 1);
        expect(await page.evaluate<number>('window.scrollY')).toBe(scrolled);
        expect(await page.getByRole('checkbox', { name: 'Select alert #2' }).isChecked()).toBe(true);
        await page.getByText('1 selected').waitFor();
        await page.screenshot({ path: screenshotPath('lists-live.png'), fullPage: true });
      },
      { width: 1200, height: 500 },
    );
  });

  it('acknowledges, resolves and assigns selected alerts, and resolves selected errors', async () => {
    await withSignedInPage(browser!, server!, 'lists-bulk', async (page) => {
      await page.goto(`${server!.url}/-/ui/projects/${projectId}?status=triggered`);
      await alertRows(page).first().waitFor();
      await page.getByRole('checkbox', { name: 'Select alert #1' }).check();
      await page.getByRole('checkbox', { name: 'Select alert #3' }).check();
      const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
      await bar.getByText('2 selected').waitFor();
      await bar.getByRole('button', { name: 'Acknowledge' }).click();
      await page.getByText('Acknowledge: 2 done.').waitFor();
      const status = async (iid: number) =>
        (await (await api('GET', `/projects/${projectId}/alert_management/alerts/${iid}`)).json()) as {
          status: string;
          assignees: { username: string }[];
        };
      expect((await status(1)).status).toBe('acknowledged');
      expect((await status(3)).status).toBe('acknowledged');
      expect((await status(2)).status).toBe('triggered');

      // Select all on the page, then assign to Alice.
      await page.getByRole('checkbox', { name: 'Select all alerts on this page' }).check();
      const count = await alertRows(page).count();
      await bar.getByText(`${count} selected`).waitFor();
      await bar.getByLabel('Assignee').selectOption('alice');
      await bar.getByRole('button', { name: 'Assign' }).click();
      await page.getByText(`Assign: ${count} done.`).waitFor();
      expect((await status(2)).assignees.map((a) => a.username)).toEqual(['alice']);
      await page.screenshot({ path: screenshotPath('lists-bulk-alerts.png'), fullPage: true });

      await page.getByRole('checkbox', { name: 'Select all alerts on this page' }).check();
      await bar.getByRole('button', { name: 'Resolve' }).click();
      await page.getByText(/^Resolve: \d+ done\.$/).waitFor();
      await page.getByText('No alerts match this filter.').waitFor();

      await page.goto(`${server!.url}/-/ui/projects/${projectId}/error_tracking`);
      await page.getByRole('checkbox', { name: /^Select KeyError/ }).check();
      await page.getByRole('checkbox', { name: /^Select ValueError/ }).check();
      await page
        .getByRole('toolbar', { name: 'Bulk actions' })
        .getByRole('button', { name: 'Resolve' })
        .click();
      await page.getByText('Resolve: 2 done.').waitFor();
      await page.getByRole('tab', { name: /^Resolved/ }).click();
      await until(
        async () =>
          (await page.getByRole('tabpanel').getByRole('table').first().locator('tbody tr').count()) === 2,
        '2 rows',
      );
    });
  });
});
