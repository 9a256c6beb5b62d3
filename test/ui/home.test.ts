import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { launchChromium, screenshotPath, withPage } from '../helpers/browser.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const DAY = 86_400_000;

describe.each(await databases())('the home page (Chromium, %s)', (database) => {
  let browser: Browser | null = null;
  let server: TestServer | null = null;

  beforeAll(async () => {
    [browser, server] = await Promise.all([
      launchChromium(),
      startTestServer({ database, env: { SVC_TIER: 'premium', SVC_OFFERING: 'hosted' } }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signInAs(page: Page, username: string): Promise<void> {
    await page.getByLabel('Username or email').fill(username);
    await page.getByLabel('Password').fill('password-123');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
  }

  it("shows a member's open alerts and incidents (theirs first), who is on call and new or regressed errors, from their projects only", async () => {
    const s = server!;
    const api = http(s.url);
    const root = (body?: unknown) => ({ token: s.rootToken, ...(body !== undefined && { body }) });
    const dana = await api.post(
      '/api/v4/users',
      root({ username: 'dana', name: 'Dana', email: 'dana@example.com', password: 'password-123' }),
    );
    await api.post(
      '/api/v4/users',
      root({ username: 'erik', name: 'Erik', email: 'erik@example.com', password: 'password-123' }),
    );
    const project = async (name: string, members: readonly string[]) => {
      const p = await api.post('/api/v4/projects', root({ name }));
      for (const username of members) {
        const u = await api.get(`/api/v4/users?username=${username}`, root());
        await api.post(
          `/api/v4/projects/${p.body.id}/members`,
          root({ user_id: u.body[0].id, access_level: 30 }),
        );
      }
      return p.body.id as number;
    };
    const web = await project('Web Shop', ['dana', 'erik']);
    const billing = await project('Billing', ['dana']);
    const secret = await project('Secret', []);

    for (const [id, title] of [
      [web, 'Checkout latency high'],
      [web, 'Disk almost full'],
      [secret, 'Hidden alert'],
    ] as const) {
      const integration = await createIntegration(api, s.rootToken, id, {
        name: `HTTP ${title}`,
        active: true,
      });
      expect(
        (await notify(integration.url, integration.authorization_key, { title, severity: 'critical' }))
          .status,
      ).toBe(200);
    }
    // Dana's own alert comes first even though it is older.
    const assigned = await api.put(
      `/api/v4/projects/${web}/alert_management/alerts/1`,
      root({ assignee_usernames: ['dana'] }),
    );
    expect(assigned.status).toBe(200);
    const incident = await api.post(
      `/api/v4/projects/${billing}/issues`,
      root({ title: 'Payments failing', issue_type: 'incident' }),
    );
    expect(incident.status).toBe(201);
    await api.post(
      `/api/v4/projects/${secret}/issues`,
      root({ title: 'Hidden incident', issue_type: 'incident' }),
    );

    const schedule = await api.post(
      `/api/v4/projects/${web}/incident_management/oncall_schedules`,
      root({ name: 'Primary', timezone: 'UTC' }),
    );
    const rotation = await api.post(
      `/api/v4/projects/${web}/incident_management/oncall_schedules/${schedule.body.iid}/rotations`,
      root({
        name: 'Weekly',
        starts_at: new Date(Date.now() - DAY).toISOString(),
        length: 1,
        length_unit: 'weeks',
        participants: [{ username: 'dana' }, { username: 'erik' }],
      }),
    );
    expect(rotation.status, JSON.stringify(rotation.body)).toBe(201);

    await api.put(
      `/api/v4/projects/${billing}/error_tracking/settings`,
      root({ active: true, integrated: true }),
    );
    const key = await api.post(`/api/v4/projects/${billing}/error_tracking/client_keys`, root());
    const store = async (eventId: string, type: string, value: string, timestamp?: string) => {
      const stored = await fetch(
        `${s.url}/api/v4/error_tracking/collector/api/${billing}/store/?sentry_key=${key.body.public_key}`,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            event_id: eventId.repeat(32),
            platform: 'node',
            ...(timestamp && { timestamp }),
            exception: { values: [{ type, value }] },
          }),
        },
      );
      expect(stored.status, `${key.status} ${JSON.stringify(key.body)} ${await stored.text()}`).toBe(200);
    };
    await store('a', 'RangeError', 'Invalid amount');
    // Two errors first seen three days ago, both seen again now: the one resolved in between regressed (and is
    // listed as such); the other was never resolved, so it is neither new nor regressed.
    const threeDaysAgo = new Date(Date.now() - 3 * DAY).toISOString();
    await store('b', 'TimeoutError', 'Ledger did not answer', threeDaysAgo);
    await store('c', 'TypeError', 'Cannot read total', threeDaysAgo);
    const old = await api.get(`/api/v4/projects/${billing}/error_tracking/errors?sort=first_seen`, root());
    const timeout = (old.body as { id: number; title: string }[]).find((e) =>
      e.title.includes('TimeoutError'),
    )!;
    const resolved = await api.put(
      `/api/v4/projects/${billing}/error_tracking/errors/${timeout.id}`,
      root({ status: 'resolved' }),
    );
    expect(resolved.status).toBe(200);
    await store('d', 'TimeoutError', 'Ledger did not answer');
    await store('e', 'TypeError', 'Cannot read total');
    const again = await api.get(`/api/v4/projects/${billing}/error_tracking/errors/${timeout.id}`, root());
    expect(again.body.status).toBe('unresolved');
    expect(Date.parse(again.body.regressed_at)).toBeGreaterThan(Date.now() - DAY);
    expect(dana.status).toBe(201);

    await withPage(browser!, s, 'home', async (page) => {
      await signInAs(page, 'dana');
      const work = page.getByRole('list', { name: 'Open alerts and incidents' });
      await work.waitFor();
      const rows = await work.getByRole('listitem').allInnerTexts();
      expect(rows).toHaveLength(3);
      expect(rows[0]).toContain('Checkout latency high');
      expect(rows[0]).toContain('Assigned to you');
      expect(rows.join('\n')).toContain('Payments failing');
      expect(rows.join('\n')).toContain('Disk almost full');
      expect(rows.join('\n')).not.toContain('Hidden');

      const oncall = page.getByRole('list', { name: 'On call now' });
      expect(await oncall.innerText()).toContain('Primary');
      expect(await oncall.innerText()).toContain('You are on call until');

      const errors = page.getByRole('list', { name: 'New and regressed errors' });
      const errorRows = await errors.getByRole('listitem').allInnerTexts();
      expect(errorRows).toHaveLength(2);
      const regressed = errorRows.find((row) => row.includes('TimeoutError'));
      expect(regressed).toMatch(/^Regressed\b/);
      expect(regressed).toContain('seen again');
      expect(regressed).toContain('Billing');
      const fresh = errorRows.find((row) => row.includes('RangeError'));
      expect(fresh).toMatch(/^New\b/);
      expect(fresh).toContain('first seen');
      expect(errorRows.join('\n')).not.toContain('TypeError');
      await page.screenshot({ path: screenshotPath('home.png'), fullPage: true });

      await work.getByRole('link', { name: 'Payments failing' }).click();
      await page.getByRole('heading', { name: /Payments failing/ }).waitFor();
      expect(page.url()).toContain(`/-/ui/projects/${billing}/issues/`);

      // The Projects link still leads to the whole list.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/-/ui/projects');
    });

    // Erik is on the same rotation but not on call this week.
    await withPage(browser!, s, 'home-erik', async (page) => {
      await signInAs(page, 'erik');
      const oncall = page.getByRole('list', { name: 'On call now' });
      await oncall.waitFor();
      expect(await oncall.innerText()).toContain('Dana');
      expect(await oncall.innerText()).not.toContain('You are on call');
      expect(await page.getByRole('list', { name: 'Open alerts and incidents' }).innerText()).not.toContain(
        'Payments failing',
      );
    });
  });

  it('says what to do when there is nothing, and what the tier lacks on Free', async () => {
    const free = await startTestServer({ database });
    try {
      const api = http(free.url);
      await api.post('/api/v4/users', {
        token: free.rootToken,
        body: { username: 'newbie', name: 'Newbie', email: 'n@example.com', password: 'password-123' },
      });
      await withPage(browser!, free, 'home-empty', async (page) => {
        await signInAs(page, 'newbie');
        await page.getByText('Join or create a project to see its alerts and incidents here.').waitFor();
        await page.getByText('On-call schedules need the Premium or Ultimate tier').waitFor();
        await page.getByText('No new or regressed error in the last 24 hours.').waitFor();
        await page.locator('.empty-state').getByRole('link', { name: 'New project' }).waitFor();
        expect(await page.locator('body').innerText()).not.toContain('403');
      });
    } finally {
      await free.stop();
    }
  });
});
