import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { startTestServer } from '../helpers/server.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const HOUR = 3_600_000;
const XSS_TAG = '<script>window.__xss = 1</script>';

/** Error and alert details in Chromium: charts and counts, the event page, the alert detail's actions. */
describe('error and alert details (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;

  const api = async (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${server!.url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': server!.rootToken, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const json = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await api(method, path, body);
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return (await res.json()) as T;
  };

  /** A project with integrated error tracking; returns its id and a function that stores one event. */
  async function errorProject(name: string) {
    const { id } = await json<{ id: number }>('POST', '/projects', { name });
    await json('PUT', `/projects/${id}/error_tracking/settings`, { active: true, integrated: true });
    const { public_key } = await json<{ public_key: string }>(
      'POST',
      `/projects/${id}/error_tracking/client_keys`,
    );
    const store = async (event: Record<string, unknown>): Promise<string> => {
      const eventId = randomBytes(16).toString('hex');
      const res = await fetch(
        `${server!.url}/api/v4/error_tracking/collector/api/${id}/store/?sentry_key=${public_key}`,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ event_id: eventId, platform: 'node', ...event }),
        },
      );
      expect(res.status).toBe(200);
      return eventId;
    };
    return { id, store };
  }

  const exception = (type: string, frame: Record<string, unknown> = {}) => ({
    exception: {
      values: [
        {
          type,
          value: `${type} happened`,
          stacktrace: {
            frames: [
              {
                filename: 'app.js',
                function: 'checkout',
                lineno: 12,
                pre_context: ['function checkout(cart) {'],
                context_line: '  return cart.total / cart.count;',
                post_context: ['}'],
                ...frame,
              },
            ],
          },
        },
      ],
    },
  });

  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_OFFERING: 'hosted' } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const withPage = (name: string, body: (page: Page) => Promise<void>): Promise<void> =>
    withSignedInPage(browser!, server!, `details-${name}`, body);

  it('counts on the errors tabs, a sparkline per row, the error chart over 24 hours and 30 days, relative times', async () => {
    const { id, store } = await errorProject('Charts');
    const now = Date.now();
    for (const at of [now, now, now - 3 * HOUR])
      await store({ timestamp: at / 1000, ...exception('TypeError') });
    await store({ timestamp: (now - 10 * 24 * HOUR) / 1000, ...exception('TypeError') });
    await store({ timestamp: now / 1000, ...exception('RangeError') });
    const errors = await json<{ id: number; type: string }[]>('GET', `/projects/${id}/error_tracking/errors`);
    const range = errors.find((e) => e.type === 'RangeError')!;
    await json('PUT', `/projects/${id}/error_tracking/errors/${range.id}`, { status: 'resolved' });

    await withPage('charts', async (page) => {
      await page.goto(`${server!.url}/-/ui/projects/${id}/error_tracking`);
      await page.getByRole('tab', { name: 'Unresolved 1', exact: true }).waitFor();
      await page.getByRole('tab', { name: 'Resolved 1', exact: true }).waitFor();
      await page.getByRole('tab', { name: 'Ignored 0', exact: true }).waitFor();
      const spark = page.getByRole('img', { name: /^Events of TypeError.*: 3 in the last 24 hours$/ });
      await spark.waitFor();
      expect(await spark.locator('svg path').count()).toBeGreaterThan(0);
      // Relative times, with the absolute time on hover.
      const lastSeen = page.getByRole('table').locator('time').last();
      expect(await lastSeen.innerText()).toMatch(/just now|min ago/);
      expect(await lastSeen.getAttribute('title')).toMatch(
        /\(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\)$/,
      );
      await page.screenshot({ path: screenshotPath('details-errors-list.png'), fullPage: true });

      await page.getByRole('link', { name: /TypeError/ }).click();
      const chart = page.getByRole('region', { name: 'Events over time' });
      const figure = chart.locator('figure');
      await chart.locator('figure[data-total="3"]').waitFor();
      expect(await figure.getAttribute('data-buckets')).toBe('24');
      expect(await chart.locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
      expect(await figure.innerText()).toContain('3 events in the last 24 hours');
      await page.screenshot({ path: screenshotPath('details-error-chart-24h.png'), fullPage: true });
      await chart.getByLabel('30 days').check();
      await chart.locator('figure[data-total="4"][data-buckets="30"]').waitFor();
      await page.screenshot({ path: screenshotPath('details-error-chart-30d.png'), fullPage: true });
    });
  });

  it('an event page with exception, local variables, breadcrumbs, tags, user, request, contexts, raw JSON and neighbours; values stay text', async () => {
    const { id, store } = await errorProject('Events');
    const now = Date.now();
    const older = await store({ timestamp: (now - 2 * HOUR) / 1000, ...exception('Boom') });
    const middle = await store({
      timestamp: (now - HOUR) / 1000,
      ...exception('Boom', { vars: { cartId: 'c-42', note: '<b>not bold</b>', count: 0 } }),
      breadcrumbs: {
        values: [{ timestamp: (now - HOUR) / 1000, category: 'http', message: 'GET /cart', level: 'info' }],
      },
      contexts: {
        runtime: { name: 'node', version: 'v24.1.0' },
        os: { name: 'Linux', version: '6.1' },
        browser: { name: 'Chrome', version: '131' },
        device: { family: 'Desktop' },
      },
      request: { url: 'https://shop.example/cart', method: 'POST', headers: { 'User-Agent': 'curl/8' } },
      user: { id: 'u-7', email: 'u7@example.com' },
      tags: { region: 'eu-west', evil: XSS_TAG },
    });
    const newer = await store({ timestamp: now / 1000, ...exception('Boom') });
    const [error] = await json<{ id: number }[]>('GET', `/projects/${id}/error_tracking/errors`);

    await withPage('event', async (page) => {
      await page.goto(`${server!.url}/-/ui/projects/${id}/errors/${error!.id}`);
      await page
        .getByRole('region', { name: 'Latest events' })
        .getByRole('link', { name: `Event ${middle}` })
        .click();
      await page.waitForURL(`**/errors/${error!.id}/events/${middle}`);
      await page.getByRole('heading', { name: 'Breadcrumbs' }).waitFor();

      const exceptionRegion = page.getByRole('region', { name: 'Exception' });
      expect(await exceptionRegion.innerText()).toContain('Boom happened');
      const vars = exceptionRegion.getByRole('table', { name: 'Local variables of checkout' });
      expect(await vars.innerText()).toContain('cartId');
      expect(await vars.innerText()).toContain('<b>not bold</b>');
      expect(await vars.locator('b').count()).toBe(0);
      expect(await page.getByRole('region', { name: 'Breadcrumbs' }).innerText()).toContain('GET /cart');
      const tags = page.getByRole('region', { name: 'Tags' });
      expect(await tags.innerText()).toContain('eu-west');
      expect(await tags.innerText()).toContain(XSS_TAG);
      expect(await page.getByRole('region', { name: 'User' }).innerText()).toContain('u7@example.com');
      const request = await page.getByRole('region', { name: 'Request' }).innerText();
      expect(request).toContain('https://shop.example/cart');
      expect(request).toContain('curl/8');
      const contexts = page.getByRole('region', { name: 'Contexts' });
      for (const [name, text] of [
        ['Runtime', 'v24.1.0'],
        ['Operating system', 'Linux'],
        ['Browser', 'Chrome'],
        ['Device', 'Desktop'],
      ]) {
        expect(await contexts.getByRole('region', { name }).innerText()).toContain(text);
      }
      const raw = page.getByRole('region', { name: 'Raw JSON' });
      await raw.getByText('Show the event as the SDK sent it').click();
      expect(JSON.parse(await raw.locator('pre').innerText())).toMatchObject({ event_id: middle });
      expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
      await page.screenshot({ path: screenshotPath('details-event.png'), fullPage: true });

      await page.getByRole('link', { name: '← Older event' }).click();
      await page.waitForURL(`**/events/${older}`);
      await page.getByRole('region', { name: 'Breadcrumbs' }).getByText('No breadcrumbs.').waitFor();
      expect(await page.getByRole('link', { name: '← Older event' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Newer event →' }).click();
      await page.waitForURL(`**/events/${middle}`);
      await page.getByRole('link', { name: 'Newer event →' }).click();
      await page.waitForURL(`**/events/${newer}`);
      expect(await page.getByRole('link', { name: 'Newer event →' }).count()).toBe(0);
    });
  });

  it('alert chart, assignee, acknowledge, ignore and resolve, comments, an incident on demand whose Markdown renders inert', async () => {
    const { id } = await json<{ id: number }>('POST', '/projects', { name: 'Alert actions' });
    const integration = await json<{ url: string; authorization_key: string }>(
      'POST',
      `/projects/${id}/alert_management/integrations`,
      { name: 'Ops', type: 'http' },
    );
    const markdown = [
      '## Runbook',
      '',
      'Restart the **payment** worker, then check [the dashboard](https://dash.example/d/1).',
      '',
      '| step | who |',
      '|---|---|',
      '| restart | on-call |',
      '',
      XSS_TAG,
      '',
      '[click me](javascript:window.__xss=1)',
      '',
      '<img src="x" onerror="window.__xss=1">',
    ].join('\n');
    const dev = await json<{ id: number }>('POST', '/users', {
      username: 'dana',
      name: 'Dana Dev',
      email: 'dana@example.com',
      password: 'password-123',
    });
    await json('POST', `/projects/${id}/members`, { user_id: dev.id, access_level: 30 });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(integration.url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${integration.authorization_key}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({
          title: 'Payments failing',
          fingerprint: 'payments',
          svc_incident_markdown: markdown,
        }),
      });
      expect(res.status).toBe(200);
    }

    await withPage('alert', async (page) => {
      await page.goto(`${server!.url}/-/ui/projects/${id}/alerts/1`);
      const chart = page.getByRole('region', { name: 'Occurrences over time' });
      await chart.locator('figure[data-total="2"]').waitFor();
      expect(await chart.locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);

      await page.getByLabel('Assignee').selectOption('dana');
      await page.getByText('Assigned to Dana Dev.').waitFor();
      await page.getByRole('button', { name: 'Acknowledge', exact: true }).click();
      await page.getByText('Status changed to Acknowledged.').waitFor();
      await page.getByRole('button', { name: 'Ignore', exact: true }).click();
      await page.getByText('Status changed to Ignored.').waitFor();
      await page.getByRole('button', { name: 'Resolve', exact: true }).click();
      await page.getByText('Status changed to Resolved.').waitFor();

      await page.getByLabel('Comment', { exact: true }).fill('Checked the **database**: fine');
      await page.getByRole('button', { name: 'Comment', exact: true }).click();
      const notes = page.getByRole('list', { name: 'Notes' });
      const comment = notes.getByRole('listitem').filter({ hasText: 'Checked the database: fine' });
      await comment.waitFor();
      expect(await comment.locator('strong').innerText()).toBe('database');
      expect(await page.getByLabel('Comment', { exact: true }).inputValue()).toBe('');
      await notes.getByText('assigned to @dana').waitFor();
      await page.screenshot({ path: screenshotPath('details-alert.png'), fullPage: true });

      await page.getByRole('button', { name: 'Create incident' }).click();
      const link = page.locator('.alert-sidebar').getByRole('link', { name: 'Incident #1' });
      await link.click();
      await page.waitForURL(`**/-/ui/projects/${id}/issues/1`);
      const description = page.getByRole('region', { name: 'Description' });
      await description.getByRole('heading', { name: 'Runbook' }).waitFor();
      expect(await description.locator('strong').allInnerTexts()).toContain('payment');
      expect(await description.getByRole('table').innerText()).toContain('on-call');
      // GitLab's alert reference links back to the alert, in this tab.
      const ref = description.getByRole('link', { name: '^alert#1' });
      expect(await ref.getAttribute('href')).toBe(`/-/ui/projects/${id}/alerts/1`);
      expect(await ref.getAttribute('target')).toBeNull();
      const dash = description.getByRole('link', { name: 'the dashboard' });
      expect(await dash.getAttribute('href')).toBe('https://dash.example/d/1');
      expect(await dash.getAttribute('rel')).toContain('noopener');
      // Raw HTML and javascript: links stay text: nothing runs, no such elements exist.
      expect(await description.innerText()).toContain(XSS_TAG);
      expect(await description.locator('script, img').count()).toBe(0);
      expect(await description.getByRole('link', { name: 'click me' }).count()).toBe(0);
      expect(await description.locator('a[href^="javascript"]').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
      await page.screenshot({ path: screenshotPath('details-incident.png'), fullPage: true });
    });
  });
});
