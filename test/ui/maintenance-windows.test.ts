import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration } from '../helpers/alerts.js';
import { launchChromium, withSignedInPage } from '../helpers/browser.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const HOUR = 3_600_000;

/** A `datetime-local` value (the machine's time zone, which Chromium shares) `ms` from now, to the minute. */
function localInput(ms: number): string {
  const d = new Date(Date.now() + ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

describe('maintenance windows in the project settings (Chromium)', () => {
  let browser: Browser | null = null;
  let server: TestServer | null = null;

  beforeAll(async () => {
    [browser, server] = await Promise.all([
      launchChromium(),
      startTestServer({ env: { SVC_TIER: 'premium' } }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('plans windows for the project and for one integration, refuses a bad one, ends one early and deletes a planned one', async () => {
    const s = server!;
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Maintained' } });
    const id = p.body.id as number;
    await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    const router = await createIntegration(api, s.rootToken, id, { name: 'router', type: 'http' });
    const url = `/api/v4/projects/${id}/alert_management/maintenance_windows`;
    await withSignedInPage(browser!, s, 'maintenance-windows', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${id}/settings`);
      const section = page.getByRole('region', { name: 'Maintenance windows' });
      await section.getByText('No maintenance windows yet.').waitFor();
      const form = page.getByRole('form', { name: 'Add maintenance window' });

      // Ends before it starts: the server's reason is shown and nothing is stored.
      await form.getByLabel('Starts').fill(localInput(3 * HOUR));
      await form.getByLabel('Ends').fill(localInput(2 * HOUR));
      await form.getByLabel('Comment').fill('backwards');
      await form.getByRole('button', { name: 'Add maintenance window' }).click();
      await form.getByText('ends_at must be after starts_at').waitFor();
      expect((await api.get(url, { token: s.rootToken })).body).toEqual([]);

      // Now, for the whole project.
      await form.getByLabel('Starts').fill('');
      await form.getByLabel('Ends').fill(localInput(2 * HOUR));
      await form.getByLabel('Comment').fill('database upgrade');
      await form.getByRole('button', { name: 'Add maintenance window' }).click();
      await form.getByText('Maintenance window added.').waitFor();
      // Tomorrow, for the router integration only.
      await form.getByLabel('Starts').fill(localInput(24 * HOUR));
      await form.getByLabel('Ends').fill(localInput(25 * HOUR));
      await form.getByLabel('Scope').selectOption({ label: 'Integration: router' });
      await form.getByLabel('Comment').fill('router swap');
      await form.getByRole('button', { name: 'Add maintenance window' }).click();
      await form.getByText('Maintenance window added.').waitFor();

      const stored = (await api.get(url, { token: s.rootToken })).body;
      expect(stored).toEqual([
        expect.objectContaining({ integration_id: router.id, state: 'pending', comment: 'router swap' }),
        expect.objectContaining({ integration_id: null, state: 'active', comment: 'database upgrade' }),
      ]);
      const [planned, active] = stored as { id: number }[];
      const table = section.getByRole('table', { name: 'Maintenance windows' });
      const plannedRow = table.getByRole('row', { name: `Maintenance window ${planned!.id}` });
      const activeRow = table.getByRole('row', { name: `Maintenance window ${active!.id}` });
      await plannedRow.getByText('Integration: router').waitFor();
      await plannedRow.getByText('pending').waitFor();
      await activeRow.getByText('Whole project').waitFor();
      await activeRow.getByText('active').waitFor();
      await activeRow.getByText('database upgrade').waitFor();
      await activeRow.getByText('root').waitFor();

      // End the active one early: it stays listed, as expired.
      await activeRow.getByRole('button', { name: 'End now' }).click();
      await page
        .getByRole('dialog', { name: 'End this maintenance window now?' })
        .getByRole('button', { name: 'End now' })
        .click();
      await activeRow.getByText('expired').waitFor();
      expect(await activeRow.getByRole('button').count()).toBe(0);
      expect((await api.get(`${url}/${active!.id}`, { token: s.rootToken })).body.state).toBe('expired');

      // Delete the planned one: it is gone.
      await plannedRow.getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('dialog', { name: 'Delete this maintenance window?' })
        .getByRole('button', { name: 'Delete' })
        .click();
      await plannedRow.waitFor({ state: 'detached' });
      expect((await api.get(`${url}/${planned!.id}`, { token: s.rootToken })).status).toBe(404);
    });
  });
});
