import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** An event of bug `type` in `release`. */
const event = (type: string, release: string, tags: Record<string, string> = {}) => ({
  event_id: randomBytes(16).toString('hex'),
  platform: 'node',
  release,
  tags,
  exception: {
    values: [
      {
        type,
        value: `${type} in the cart`,
        stacktrace: {
          frames: [{ filename: 'cart.js', function: type.toLowerCase(), lineno: 4, in_app: true }],
        },
      },
    ],
  },
});

describe('error triage UI (Chromium)', () => {
  let s: TestServer;
  let browser: Browser;
  let projectId: number;
  let store: (e: object) => Promise<void>;
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${s.url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': s.rootToken, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as any };
  };

  beforeAll(async () => {
    s = await startTestServer({ env: { SVC_OFFERING: 'hosted' } });
    projectId = (await api('POST', '/projects', { name: 'Triage UI' })).body.id;
    await api('PUT', `/projects/${projectId}/error_tracking/settings`, { active: true, integrated: true });
    const key = (await api('GET', `/projects/${projectId}/error_tracking/client_keys`)).body[0].public_key;
    store = async (e) => {
      const r = await fetch(
        `${s.url}/api/v4/error_tracking/collector/api/${projectId}/store/?sentry_key=${key}`,
        {
          method: 'POST',
          body: JSON.stringify(e),
        },
      );
      expect(r.status).toBe(200);
      s.clock.advance(1000);
    };
    await store(event('CartError', '1.0', { server: 'web-1' }));
    await store(event('CartError', '1.1', { server: 'web-1' }));
    await store(event('PriceError', '1.1', { server: 'web-2' }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  const errors = async () =>
    (await api('GET', `/projects/${projectId}/error_tracking/errors?per_page=100`)).body as any[];

  it('assigns, comments, resolves in a release and ignores with a condition on the error page', async () => {
    const cart = (await errors()).find((e) => e.type === 'CartError');
    await withSignedInPage(browser, s, 'error-triage', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${projectId}/errors/${cart.id}`);
      const triage = page.getByRole('region', { name: 'Triage' });
      await triage.waitFor();

      await triage.getByRole('button', { name: 'Assign to me' }).click();
      await triage.getByText('Assigned to you.').waitFor();
      await page.getByText('Administrator (@root)').waitFor();

      const activity = page.getByRole('region', { name: 'Activity' });
      await activity.getByRole('textbox', { name: 'Comment' }).fill('Seen after **the deploy**');
      await activity.getByRole('button', { name: 'Comment', exact: true }).click();
      await activity.locator('strong', { hasText: 'the deploy' }).waitFor();

      // A release the project never saw: the field says so, nothing changes.
      const resolve = triage.getByRole('form', { name: 'Resolve in release' });
      await resolve.getByLabel('Resolved in release').fill('9.9');
      await resolve.getByRole('button', { name: 'Resolve in release' }).click();
      await resolve.getByText(/release "9.9" has not been seen/).waitFor();
      await resolve.getByLabel('Resolved in release').fill('1.1');
      await resolve.getByRole('button', { name: 'Resolve in release' }).click();
      await triage.getByText('Resolved in release 1.1.').waitFor();
      await page.getByText('Resolved in release 1.1', { exact: true }).waitFor();
      await activity.getByText('resolved the error in release 1.1').waitFor();
      await page.screenshot({ path: screenshotPath('error-triage.png'), fullPage: true });

      // An event of an older release leaves it resolved; the next one of a newer release is a regression.
      await store(event('CartError', '1.0', { server: 'web-1' }));
      expect((await errors()).find((e) => e.id === cart.id).status).toBe('resolved');
      await store(event('CartError', '1.2', { server: 'web-1' }));
      expect((await errors()).find((e) => e.id === cart.id).status).toBe('unresolved');
      await page.reload();
      await page.getByRole('region', { name: 'Activity' }).getByText('regressed in 1.2').waitFor();

      const ignore = page
        .getByRole('region', { name: 'Triage' })
        .getByRole('form', { name: 'Ignore with a condition' });
      await ignore.getByLabel('Ignore', { exact: true }).selectOption('count');
      await ignore.getByLabel('How many').fill('2');
      await ignore.getByRole('button', { name: 'Ignore', exact: true }).click();
      await page.getByText('Ignored for 2 more events', { exact: true }).waitFor();
      const after = await api('GET', `/projects/${projectId}/error_tracking/errors/${cart.id}`);
      expect(after.body).toMatchObject({ status: 'ignored', assignee: { username: 'root' } });
      expect(after.body.status_details.ignore_count).toBe(2);
    });
  });

  it('searches the list with Sentry syntax, shows a bad search, and assigns and resolves selected errors', async () => {
    await withSignedInPage(browser, s, 'errors-search', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${projectId}/error_tracking`);
      const panel = page.getByRole('tabpanel', { name: 'Error tracking' });
      const search = panel.getByRole('searchbox', { name: 'Search errors' });
      await panel.getByRole('link', { name: /PriceError/ }).waitFor();

      await search.fill('server:web-2');
      await search.press('Enter');
      await panel.getByRole('link', { name: /PriceError/ }).waitFor();
      await expect.poll(() => panel.getByRole('link', { name: /CartError/ }).count()).toBe(0);

      await search.fill('is:ignored assigned:me');
      await search.press('Enter');
      await panel.getByRole('link', { name: /CartError/ }).waitFor();
      await expect.poll(() => panel.getByRole('link', { name: /PriceError/ }).count()).toBe(0);

      await search.fill('is:foo');
      await search.press('Enter');
      await panel.getByText(/Invalid search: unknown key "is:foo"/).waitFor();

      await search.fill('');
      await search.press('Enter');
      const row = panel.getByRole('row').filter({ has: page.getByRole('link', { name: /PriceError/ }) });
      await row.getByRole('checkbox').check();
      await panel
        .getByRole('toolbar', { name: 'Bulk actions' })
        .getByRole('button', { name: 'Assign to me' })
        .click();
      await panel.getByText('Assign to me: 1 done.').waitFor();
      await row.getByText('assigned to @root').waitFor();
      await row.getByRole('checkbox').check();
      await panel
        .getByRole('toolbar', { name: 'Bulk actions' })
        .getByRole('button', { name: 'Resolve', exact: true })
        .click();
      await panel.getByText('Resolve: 1 done.').waitFor();
      const price = (await errors()).find((e) => e.type === 'PriceError');
      expect(price).toMatchObject({ status: 'resolved', assignee: { username: 'root' } });
      await page.screenshot({ path: screenshotPath('errors-search.png'), fullPage: true });
    });
  });
});
