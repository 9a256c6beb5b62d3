import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The local date and time `days` from now in Berlin, as a `datetime-local` input takes it (`2026-03-29T09:00`). */
function berlinAt(days: number, time: string): string {
  const date = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(
    new Date(Date.now() + days * 86_400_000),
  );
  return `${date}T${time}`;
}

describe('on-call schedules in the project (Chromium)', () => {
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

  it('creates a schedule and a rotation, and shows the next two weeks of shifts', async () => {
    const s = server!;
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Paging' } });
    for (const name of ['alice', 'bob']) {
      const u = await api.post('/api/v4/users', {
        token: s.rootToken,
        body: { username: name, name, email: `${name}@example.com`, password: 'password-123' },
      });
      await api.post(`/api/v4/projects/${p.body.id}/members`, {
        token: s.rootToken,
        body: { user_id: u.body.id, access_level: 30 },
      });
    }
    await withSignedInPage(
      browser!,
      s,
      'oncall',
      async (page) => {
        await page.goto(`${s.url}/-/ui/projects/${p.body.id}`);
        await page.getByRole('tab', { name: 'On-call schedules' }).click();
        const panel = page.getByRole('tabpanel', { name: 'On-call schedules' });
        await panel.getByText('No on-call schedules yet.').waitFor();

        const add = panel.getByRole('form', { name: 'Add on-call schedule' });
        await add.getByLabel('Schedule name').fill('Primary');
        await add.getByLabel('Timezone').selectOption('Europe/Berlin');
        await add.getByLabel('Description').fill('Production paging');
        await add.getByRole('button', { name: 'Add schedule' }).click();
        await panel.getByRole('heading', { name: 'Primary', level: 3 }).waitFor();

        const rotation = panel.getByRole('form', { name: 'Add rotation to Primary' });
        await rotation.getByLabel('Rotation name').fill('Daily');
        await rotation.getByLabel('alice').check();
        await rotation.getByLabel('bob').check();
        await rotation.getByLabel('Shift length').fill('1');
        await rotation.getByLabel('Unit').selectOption('days');
        await rotation.getByLabel('Starts (Europe/Berlin)').fill(berlinAt(-1, '08:00'));
        await rotation.getByLabel('Only on call during daily active hours').check();
        await rotation.getByLabel('Active from').fill('08:00');
        await rotation.getByLabel('Active until').fill('20:00');
        await rotation.getByRole('button', { name: 'Add rotation' }).click();

        const list = panel.getByRole('list', { name: 'Rotations of Primary' });
        await list.getByText('every 1 day, active 08:00–20:00').waitFor();
        const timeline = panel.getByRole('figure', { name: 'Shifts of Primary, next two weeks' });
        await timeline.waitFor();
        // Two weeks of daily shifts handing over at 08:00, alternating, each 08:00 to 20:00 (13 to 15 blocks in the
        // window, depending on the hour); each block names who and when.
        const blocks = timeline.getByRole('img');
        await blocks.first().waitFor();
        const labels = await blocks.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
        expect(labels.length).toBeGreaterThanOrEqual(13);
        expect(labels.length).toBeLessThanOrEqual(15);
        expect(labels.filter((l) => l.startsWith('alice: ')).length).toBeGreaterThanOrEqual(6);
        expect(labels.filter((l) => l.startsWith('bob: ')).length).toBeGreaterThanOrEqual(6);
        expect(labels.every((l) => / 08:00 – .* 20:00$/.test(l))).toBe(true);
        expect(await timeline.getByTitle('now').count()).toBe(1);
        await page.screenshot({ path: screenshotPath('oncall-schedules.png'), fullPage: true });

        const api4 = `/api/v4/projects/${p.body.id}/incident_management/oncall_schedules`;
        const stored = (await api.get(api4, { token: s.rootToken })).body;
        expect(stored).toEqual([
          expect.objectContaining({
            name: 'Primary',
            timezone: 'Europe/Berlin',
            description: 'Production paging',
            rotations: [
              expect.objectContaining({
                name: 'Daily',
                length: 1,
                length_unit: 'days',
                active_period: { start_time: '08:00', end_time: '20:00' },
                participants: [
                  expect.objectContaining({
                    user: expect.objectContaining({ username: 'alice' }),
                    position: 0,
                  }),
                  expect.objectContaining({
                    user: expect.objectContaining({ username: 'bob' }),
                    position: 1,
                  }),
                ],
              }),
            ],
          }),
        ]);

        // Editing: the rotation's form opens with what is stored (its start as Berlin wall time), and saving
        // replaces the participants; the schedule's own fields are edited the same way.
        await list.getByRole('button', { name: 'Edit rotation Daily' }).click();
        const edit = list.getByRole('form', { name: 'Edit rotation Daily' });
        expect(await edit.getByLabel('Starts (Europe/Berlin)').inputValue()).toBe(berlinAt(-1, '08:00'));
        expect(await edit.getByLabel('alice').isChecked()).toBe(true);
        await edit.getByLabel('Shift length').fill('2');
        await edit.getByLabel('bob').uncheck();
        await edit.getByRole('button', { name: 'Save rotation' }).click();
        await list.getByText('every 2 days, active 08:00–20:00').waitFor();
        const [edited] = (await api.get(api4, { token: s.rootToken })).body;
        expect(edited.rotations[0]).toMatchObject({
          name: 'Daily',
          length: 2,
          starts_at: stored[0].rotations[0].starts_at,
          participants: [expect.objectContaining({ user: expect.objectContaining({ username: 'alice' }) })],
        });
        expect(edited.rotations[0].participants).toHaveLength(1);
        await panel.getByRole('button', { name: 'Edit schedule' }).click();
        const scheduleForm = panel.getByRole('form', { name: 'Edit schedule Primary' });
        await scheduleForm.getByLabel('Description').fill('Paging for production');
        await scheduleForm.getByRole('button', { name: 'Save schedule' }).click();
        await panel.getByText('Europe/Berlin · Paging for production').waitFor();

        // Deleting the rotation asks first, then empties the schedule.
        await list.getByRole('button', { name: 'Delete rotation Daily' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
        await panel.getByText('No rotations yet: nobody is on call.').waitFor();
      },
      { width: 1280, height: 1000 },
    );
  });
});
