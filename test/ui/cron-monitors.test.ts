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

describe('cron monitors in the error tracking tab (Chromium)', () => {
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
});
