import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { createSentryProject, type SentryProject } from '../helpers/sentry.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const PROJECT_NAME = 'Cron Monitors UI';

/** Posts `check_in` items in one envelope, as the SDKs send them. */
async function checkIns(s: TestServer, p: SentryProject, items: object[]): Promise<void> {
  const body = [
    JSON.stringify({ sent_at: new Date().toISOString(), dsn: p.dsn }),
    ...items.flatMap((i) => [JSON.stringify({ type: 'check_in' }), JSON.stringify(i)]),
  ].join('\n');
  const r = await fetch(`${s.url}/api/v4/error_tracking/collector/api/${p.id}/envelope/`, {
    method: 'POST',
    body,
  });
  expect(r.status).toBe(200);
}

describe('cron monitors and heartbeats in the UI (Chromium)', () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    s = await startTestServer({ env: { SVC_OFFERING: 'hosted' } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('lists each monitor with its status, schedule and recent runs', async () => {
    const p = await createSentryProject(s.url, s.rootToken, PROJECT_NAME);
    const nightly = {
      monitor_slug: 'nightly-backup',
      monitor_config: { schedule: { type: 'crontab', value: '0 3 * * *' }, timezone: 'Europe/Berlin' },
    };
    await checkIns(s, p, [
      { ...nightly, check_in_id: 'a'.repeat(32), status: 'in_progress', environment: 'production' },
      { ...nightly, check_in_id: 'a'.repeat(32), status: 'ok', duration: 42, environment: 'production' },
      { ...nightly, check_in_id: 'b'.repeat(32), status: 'error', duration: 3 },
      {
        monitor_slug: 'sync',
        check_in_id: 'c'.repeat(32),
        status: 'ok',
        monitor_config: { schedule: { type: 'interval', value: 15, unit: 'minute' } },
      },
    ]);

    await withSignedInPage(browser, s, 'cron-monitors', async (page) => {
      await page.getByRole('link', { name: PROJECT_NAME, exact: true }).click();
      await page.getByRole('tab', { name: 'Error tracking' }).click();
      const section = page.getByRole('region', { name: 'Cron monitors' });
      await section.waitFor();
      const rows = section.locator('tbody tr');
      expect(await rows.count()).toBe(2);
      const first = rows.nth(0);
      expect(await first.getByRole('rowheader').innerText()).toBe('nightly-backup');
      const cells = await first.getByRole('cell').allInnerTexts();
      expect(cells[0]).toBe('Failed');
      expect(cells[1]).toBe('0 3 * * * (Europe/Berlin)');
      const runs = section.getByRole('list', { name: 'Recent runs of nightly-backup' }).getByRole('listitem');
      const texts = await runs.allInnerTexts();
      expect(texts).toHaveLength(2);
      expect(texts[0]).toMatch(/^Failed[\s\S]* 3\.0 s$/);
      expect(texts[1]).toMatch(/^OK[\s\S]* 42 s/);
      expect(texts[1]).toContain('production');
      const sync = await rows.nth(1).getByRole('cell').allInnerTexts();
      expect(sync.slice(0, 2)).toEqual(['OK', 'every 15 minutes']);
      await page.screenshot({ path: screenshotPath('cron-monitors.png'), fullPage: true });
    });
  });

  it('adds a heartbeat integration with its interval and grace period; its credentials show the heartbeat URL', async () => {
    const created = await fetch(`${s.url}/api/v4/projects`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': s.rootToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Heartbeat UI' }),
    });
    const projectId = ((await created.json()) as { id: number }).id;
    await withSignedInPage(browser, s, 'heartbeat-add', async (page) => {
      await page.getByRole('link', { name: 'Heartbeat UI', exact: true }).click();
      await page.getByRole('tab', { name: 'Settings' }).click();
      await page.getByRole('button', { name: 'Add integration' }).click();
      const form = page.getByRole('form', { name: 'Add integration' });
      await form.getByLabel('Type').selectOption({ label: 'Heartbeat' });
      await form.getByLabel('Name').fill('Nightly backup');
      await form.getByLabel('Interval (seconds)').fill('3600');
      await form.getByLabel('Grace period (seconds)').fill('600');
      await page.screenshot({ path: screenshotPath('heartbeat-add.png'), fullPage: true });
      await form.getByRole('button', { name: 'Save integration' }).click();
      await page.getByText('Integration "Nightly backup" created.').waitFor();
      await page.getByRole('tab', { name: 'View credentials' }).click();
      const credentials = page.getByRole('tabpanel', { name: 'View credentials' });
      const url = await credentials.getByLabel('Webhook URL', { exact: true }).inputValue();
      expect(url).toMatch(new RegExp(`^${s.url}/-/alerts/heartbeat/${projectId}/[a-z0-9]+$`));
    });
    const list = await fetch(`${s.url}/api/v4/projects/${projectId}/alert_management/integrations`, {
      headers: { 'PRIVATE-TOKEN': s.rootToken },
    });
    expect(await list.json()).toMatchObject([
      {
        name: 'Nightly backup',
        type: 'heartbeat',
        heartbeat: { interval_seconds: 3600, grace_seconds: 600 },
      },
    ]);
  });
});
