import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { axeViolations, launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Every page of the UI (router.tsx's routes) at a desktop and a phone width, in the light and the dark theme:
 * no horizontal scrolling of the page and no table cell breaking a word on the phone, and no serious or critical
 * axe-core violation anywhere.
 * Screenshots of each land in the run's screenshot directory as responsive-<page>-<width>-<theme>.png.
 */

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

interface Visit {
  readonly name: string;
  readonly path: string;
}

/** How the theme is chosen: the system setting alone, or the user menu's switch overriding it. */
interface Mode {
  readonly theme: 'light' | 'dark';
  readonly system: 'light' | 'dark';
  readonly viaSwitch: boolean;
}

describe('every page at 1280 and 390 px, light and dark (Chromium, axe-core)', () => {
  let browser: Browser | null = null;
  let server: TestServer | null = null;
  const visits: Visit[] = [];

  beforeAll(async () => {
    [browser, server] = await Promise.all([
      launchChromium(),
      startTestServer({ env: { SVC_TIER: 'premium' } }),
    ]);
    const s = server;
    const api = http(s.url);
    const token = s.rootToken;
    const ok = <T>(res: { status: number; body: T }, what: string): T => {
      if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };

    const group = ok(
      await api.post<{ id: number; full_path: string }>('/api/v4/groups', {
        token,
        body: { name: 'Platform Operations', path: 'platform-operations' },
      }),
      'group',
    );
    const project = ok(
      await api.post<{ id: number; path_with_namespace: string }>('/api/v4/projects', {
        token,
        body: { name: 'Checkout Service', namespace_id: group.id },
      }),
      'project',
    );
    const id = project.id;
    const base = `/api/v4/projects/${id}`;

    // Alerts from an integration, with long unbroken strings (a URL, a fingerprint) that must wrap on a phone.
    const integration = await createIntegration(api, token, id, { name: 'Prometheus', type: 'http' });
    for (const [title, severity] of [
      [
        'Checkout latency above 2s on https://checkout.example.com/api/v1/orders/confirm?region=eu-west-1',
        'critical',
      ],
      ['Disk almost full on db-primary-0', 'high'],
      ['Certificate expires in 7 days', 'low'],
    ] as const) {
      const r = await notify(integration.url, integration.authorization_key, {
        title,
        severity,
        fingerprint: `${title.length}-${'f'.repeat(60)}`,
        monitoring_tool: 'Prometheus',
        hosts: ['db-primary-0.prod.internal.example.com'],
        description:
          'Runbook: https://runbooks.example.com/checkout/latency-above-threshold-for-five-minutes',
      });
      expect(r.status).toBe(200);
    }
    const incident = ok(
      await api.post<{ iid: number }>(`${base}/alert_management/alerts/1/create_issue`, { token }),
      'incident',
    );

    // An error from a Sentry envelope, as the SDKs send it.
    ok(
      await api.post('/api/v4/features/integrated_error_tracking', { token, body: { value: true } }),
      'feature flag',
    );
    ok(
      await api.put(`${base}/error_tracking/settings`, { token, body: { active: true, integrated: true } }),
      'error tracking',
    );
    const keys = ok(
      await api.get<{ public_key: string; sentry_dsn: string }[]>(`${base}/error_tracking/client_keys`, {
        token,
      }),
      'client keys',
    );
    const eventId = randomUUID().replaceAll('-', '');
    const event = {
      event_id: eventId,
      timestamp: new Date().toISOString(),
      platform: 'python',
      level: 'error',
      environment: 'production',
      release: 'checkout@2.14.0',
      breadcrumbs: {
        values: [
          {
            timestamp: new Date().toISOString(),
            category: 'http',
            message: 'POST https://payments.example.com/v2/charges/confirm failed with status 502',
            data: { url: 'https://payments.example.com/v2/charges/confirm', status_code: 502 },
          },
        ],
      },
      exception: {
        values: [
          {
            type: 'KeyError',
            value: "'customer_reference_identifier_that_is_quite_long_and_has_no_spaces_at_all_0123456789'",
            stacktrace: {
              frames: [
                {
                  filename: 'checkout/very/deeply/nested/module/path/payments_gateway_adapter.py',
                  function: 'confirm_order',
                  lineno: 42,
                  pre_context: ['def confirm_order(order):', '    gateway = load_gateway()'],
                  context_line: '    return gateway.charge(order.payload["customer_reference_identifier"])',
                  post_context: [''],
                  in_app: true,
                },
              ],
            },
          },
        ],
      },
    };
    // With an attachment, a user's report and a transaction (counted on the settings page), so that the error,
    // event and settings pages show them.
    const envelope = [
      JSON.stringify({ event_id: eventId, dsn: keys[0]!.sentry_dsn }),
      JSON.stringify({ type: 'event' }),
      JSON.stringify(event),
      JSON.stringify({
        type: 'attachment',
        filename: 'payments_gateway_adapter_request_dump_with_a_long_name_0123456789.json',
      }),
      '{"order": 42}',
      JSON.stringify({ type: 'user_report' }),
      JSON.stringify({
        event_id: eventId,
        name: 'Jane Doe',
        email: 'jane.doe.with.a.long.address@checkout-customers.example.com',
        comments:
          'I pressed "Pay" and https://checkout.example.com/api/v1/orders/confirm?region=eu-west-1 showed an error',
      }),
      JSON.stringify({ type: 'transaction' }),
      '{}',
    ].join('\n');
    const ingest = await fetch(
      `${s.url}/api/v4/error_tracking/collector/api/${id}/envelope/?sentry_key=${keys[0]!.public_key}`,
      { method: 'POST', headers: { 'Content-Type': 'application/x-sentry-envelope' }, body: envelope },
    );
    expect(ingest.status).toBe(200);
    const errors = ok(await api.get<{ id: number }[]>(`${base}/error_tracking/errors`, { token }), 'errors');
    expect(errors).toHaveLength(1);

    // On-call: a schedule with a rotation, and an escalation policy paging it (Premium).
    const schedules = `${base}/incident_management/oncall_schedules`;
    const schedule = ok(
      await api.post<{ iid: number }>(schedules, {
        token,
        body: { name: 'Primary', timezone: 'Europe/Berlin' },
      }),
      'schedule',
    );
    ok(
      await api.post(`${schedules}/${schedule.iid}/rotations`, {
        token,
        body: {
          name: 'Weekly',
          starts_at: new Date(Date.now() - 86_400_000).toISOString(),
          length: 1,
          length_unit: 'weeks',
          participants: [{ username: 'root' }],
        },
      }),
      'rotation',
    );
    ok(
      await api.post(`${base}/incident_management/escalation_policies`, {
        token,
        body: {
          name: 'Page the on-call',
          rules: [{ elapsed_time_seconds: 300, status: 'acknowledged', oncall_schedule_iid: schedule.iid }],
        },
      }),
      'policy',
    );

    const snippet = ok(
      await api.post<{ id: number }>('/api/v4/snippets', {
        token,
        body: { title: 'Restart script', file_name: 'restart.sh', content: 'systemctl restart checkout\n' },
      }),
      'snippet',
    );

    const ui = `/-/ui/projects/${id}`;
    visits.push(
      { name: 'projects', path: '/' },
      { name: 'project-alerts', path: ui },
      { name: 'project-incidents', path: `${ui}/incidents` },
      { name: 'project-errors', path: `${ui}/error_tracking` },
      { name: 'project-oncall', path: `${ui}/oncall_schedules` },
      { name: 'project-escalation', path: `${ui}/escalation_policy` },
      { name: 'project-members', path: `${ui}/members` },
      { name: 'project-settings', path: `${ui}/settings` },
      { name: 'alert', path: `${ui}/alerts/1` },
      { name: 'incident', path: `${ui}/issues/${incident.iid}` },
      { name: 'error', path: `${ui}/errors/${errors[0]!.id}` },
      { name: 'error-event', path: `${ui}/errors/${errors[0]!.id}/events/${eventId}` },
      { name: 'groups', path: '/-/ui/groups' },
      { name: 'group', path: `/groups/${group.full_path}` },
      { name: 'new-project', path: '/-/ui/projects/new' },
      { name: 'new-group', path: '/-/ui/groups/new' },
      { name: 'tokens', path: '/-/ui/profile/personal_access_tokens' },
      { name: 'profile', path: '/-/ui/profile' },
      { name: 'admin', path: '/-/ui/admin' },
      { name: 'admin-users', path: '/-/ui/admin/users' },
      { name: 'admin-features', path: '/-/ui/admin/features' },
      { name: 'admin-settings', path: '/-/ui/admin/settings' },
      { name: 'admin-storages', path: '/-/ui/admin/storages' },
      { name: 'admin-deprecations', path: '/-/ui/admin/deprecations' },
      { name: 'user', path: '/root' },
      { name: 'project-web-url', path: `/${project.path_with_namespace}` },
      { name: 'snippet', path: `/-/snippets/${snippet.id}` },
      { name: 'not-found', path: '/-/ui/no-such-page' },
    );
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Waits until the page has its heading, nothing says "Loading…" and no request is in flight. */
  async function settle(page: Page): Promise<void> {
    await page.locator('main h1').first().waitFor();
    await page.waitForLoadState('networkidle');
    await page.waitForFunction(
      "![...document.querySelectorAll('output')].some((o) => o.textContent.startsWith('Loading'))",
    );
  }

  /** The innermost elements reaching past the right edge of the window, to say what widens a page. */
  async function pastTheEdge(page: Page): Promise<string> {
    return String(
      await page.evaluate(`(() => {
        const past = (e) => e.getBoundingClientRect().right > window.innerWidth + 1;
        return [...document.querySelectorAll('body *')]
          .filter((e) => past(e) && ![...e.children].some(past))
          .slice(0, 4)
          .map((e) => e.tagName.toLowerCase() + '.' + String(e.className).replaceAll(' ', '.') + ' ' + Math.round(e.getBoundingClientRect().right) + 'px')
          .join(', ');
      })()`),
    );
  }

  /**
   * Table cells whose text breaks inside a word: a word (split at spaces and after hyphens) whose Range lies on
   * more than one line. Only a string wider than the table's box (TableScroll) may break: nothing else could
   * show it whole without widening the page. Visually hidden text (one pixel wide on purpose) is left out.
   */
  async function brokenWords(page: Page): Promise<string[]> {
    return (await page.evaluate(`(() => {
      const found = [];
      for (const cell of document.querySelectorAll('main td, main th')) {
        const box = cell.closest('.table-scroll') ?? cell.closest('table')?.parentElement ?? cell;
        const room = box.clientWidth;
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (node.parentElement.closest('.visually-hidden')) continue;
          for (const m of node.data.matchAll(/[^\\s-]+-?/g)) {
            const range = document.createRange();
            range.setStart(node, m.index);
            range.setEnd(node, m.index + m[0].length);
            const rects = [...range.getClientRects()].filter((r) => r.width > 0);
            const lines = new Set(rects.map((r) => Math.round(r.bottom)));
            const width = rects.reduce((sum, r) => sum + r.width, 0);
            if (lines.size > 1 && width <= room) {
              found.push('"' + m[0].slice(0, 40) + '" on ' + lines.size + ' lines in a ' + Math.round(cell.getBoundingClientRect().width) + 'px cell');
            }
          }
        }
      }
      return found.slice(0, 5);
    })()`)) as string[];
  }

  async function chooseTheme(page: Page, mode: Mode, viewport: { width: number }): Promise<void> {
    await page.emulateMedia({ colorScheme: mode.system });
    if (!mode.viaSwitch) return;
    const menu = page.getByRole('button', { name: 'Menu' });
    if (viewport.width < 720) await menu.click();
    await page.getByLabel('Theme').selectOption(mode.theme);
    if (viewport.width < 720) await menu.click();
  }

  const combos: readonly [typeof DESKTOP, Mode][] = [
    [DESKTOP, { theme: 'light', system: 'light', viaSwitch: false }],
    [DESKTOP, { theme: 'dark', system: 'dark', viaSwitch: false }],
    // The switch overrides the system setting both ways.
    [PHONE, { theme: 'light', system: 'dark', viaSwitch: true }],
    [PHONE, { theme: 'dark', system: 'light', viaSwitch: true }],
  ];

  it.each(combos)(
    '%o %o: fits, passes axe, and is photographed',
    async (viewport, mode) => {
      const s = server!;
      const label = `${viewport.width}-${mode.theme}`;
      await withSignedInPage(
        browser!,
        s,
        `responsive-${label}`,
        async (page) => {
          await chooseTheme(page, mode, viewport);
          const problems: string[] = [];
          for (const visit of visits) {
            await page.goto(`${s.url}${visit.path}`);
            await settle(page);
            // The theme in force: the dark background only when dark was asked for, by the system or the switch.
            const background = await page.evaluate(
              'getComputedStyle(document.documentElement).backgroundColor',
            );
            expect(background, visit.name).toBe(
              mode.theme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(246, 247, 249)',
            );
            const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
            if (width > viewport.width) {
              problems.push(
                `${visit.name}: the page is ${width}px wide, past the edge: ${await pastTheEdge(page)}`,
              );
            }
            if (viewport.width === PHONE.width) {
              for (const broken of await brokenWords(page)) problems.push(`${visit.name}: ${broken}`);
            }
            for (const v of await axeViolations(page)) {
              problems.push(`${visit.name}: ${v.impact} ${v.id} (${v.help}) at ${v.targets.join(' | ')}`);
            }
            await page.screenshot({
              path: screenshotPath(`responsive-${visit.name}-${label}.png`),
              fullPage: true,
            });
          }
          expect(problems).toEqual([]);
        },
        viewport,
      );
    },
    600_000,
  );

  it('the menu button shows and hides the navigation on a phone, by mouse and keyboard, and the theme survives a reload', async () => {
    const s = server!;
    await withSignedInPage(
      browser!,
      s,
      'responsive-menu',
      async (page) => {
        const menu = page.getByRole('button', { name: 'Menu' });
        const main = page.getByRole('navigation', { name: 'Main' });
        expect(await menu.getAttribute('aria-expanded')).toBe('false');
        expect(await main.isVisible()).toBe(false);

        await menu.focus();
        await page.keyboard.press('Enter');
        expect(await menu.getAttribute('aria-expanded')).toBe('true');
        await main.waitFor();
        const groups = main.getByRole('link', { name: 'Groups' });
        const box = await groups.boundingBox();
        expect(box!.height).toBeGreaterThanOrEqual(44);

        // Escape closes it and gives focus back to the button.
        await page.keyboard.press('Escape');
        expect(await menu.getAttribute('aria-expanded')).toBe('false');
        expect(await menu.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);

        // Following a link closes the menu.
        await menu.click();
        await groups.click();
        await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
        expect(await menu.getAttribute('aria-expanded')).toBe('false');

        // The theme is remembered and set on <html> before the app runs (public/theme.js).
        await page.emulateMedia({ colorScheme: 'light' });
        await menu.click();
        await page.getByLabel('Theme').selectOption('dark');
        await page.reload({ waitUntil: 'domcontentloaded' });
        expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
        await menu.click();
        expect(await page.getByLabel('Theme').inputValue()).toBe('dark');
        await page.getByLabel('Theme').selectOption('system');
        expect(await page.evaluate('document.documentElement.dataset.theme ?? null')).toBe(null);
        expect(await page.evaluate("localStorage.getItem('svc-theme')")).toBe(null);
      },
      PHONE,
    );
  });
});
