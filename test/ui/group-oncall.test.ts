import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe("a group's on-call in the group page (Chromium)", () => {
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

  it('adds a schedule with members of the group and of the group above, and a policy paging it', async () => {
    const s = server!;
    const api = http(s.url);
    const top = await api.post('/api/v4/groups', {
      token: s.rootToken,
      body: { name: 'Platform', path: 'platform' },
    });
    const team = await api.post('/api/v4/groups', {
      token: s.rootToken,
      body: { name: 'Storage team', path: 'storage', parent_id: top.body.id },
    });
    expect(team.status).toBe(201);
    // carol is a member of the group above only: she is a member of the team by inheritance.
    for (const [name, group] of [
      ['carol', top.body.id],
      ['dave', team.body.id],
    ] as const) {
      const u = await api.post('/api/v4/users', {
        token: s.rootToken,
        body: { username: name, name, email: `${name}@example.com`, password: 'password-123' },
      });
      await api.post(`/api/v4/groups/${group}/members`, {
        token: s.rootToken,
        body: { user_id: u.body.id, access_level: 30 },
      });
    }
    await withSignedInPage(browser!, s, 'group-oncall', async (page) => {
      await page.goto(`${s.url}/groups/platform/storage`);
      // The overview is the first section.
      await page.getByRole('tabpanel', { name: 'Overview' }).getByText('No subgroups.').waitFor();
      await page.getByRole('tab', { name: 'On-call schedules' }).click();
      const panel = page.getByRole('tabpanel', { name: 'On-call schedules' });
      await panel.getByText('No on-call schedules yet.').waitFor();

      const add = panel.getByRole('form', { name: 'Add on-call schedule' });
      await add.getByLabel('Schedule name').fill('Storage primary');
      await add.getByLabel('Timezone').selectOption('Europe/Berlin');
      await add.getByRole('button', { name: 'Add schedule' }).click();
      await panel.getByRole('heading', { name: 'Storage primary', level: 3 }).waitFor();

      const rotation = panel.getByRole('form', { name: 'Add rotation to Storage primary' });
      await rotation.getByLabel('Rotation name').fill('Weekly');
      await rotation.getByLabel('carol').check();
      await rotation.getByLabel('dave').check();
      await rotation.getByLabel('Shift length').fill('1');
      await rotation.getByLabel('Unit').selectOption('weeks');
      await rotation.getByLabel('Starts (Europe/Berlin)').fill('2026-01-05T09:00');
      await rotation.getByRole('button', { name: 'Add rotation' }).click();
      await panel
        .getByRole('list', { name: 'Rotations of Storage primary' })
        .getByText('every 1 week')
        .waitFor();
      await panel.getByRole('figure', { name: 'Shifts of Storage primary, next two weeks' }).waitFor();
      await page.screenshot({ path: screenshotPath('group-oncall-schedules.png'), fullPage: true });

      await page.getByRole('tab', { name: 'Escalation policy' }).click();
      const policyPanel = page.getByRole('tabpanel', { name: 'Escalation policy' });
      await policyPanel.getByText('No escalation policy: new alerts page nobody.').waitFor();
      const form = policyPanel.getByRole('form', { name: 'Create escalation policy' });
      await form.getByLabel('Name', { exact: true }).fill('Storage night');
      await form.getByLabel('Rule 1: page').selectOption({ label: 'Schedule: Storage primary' });
      await form.getByRole('button', { name: 'Create policy' }).click();
      await policyPanel.getByRole('heading', { name: 'Storage night' }).waitFor();
      const rules = policyPanel.getByRole('table', { name: 'Escalation rules' });
      await rules.getByText('Storage primary').waitFor();
      await page.screenshot({ path: screenshotPath('group-oncall-policy.png'), fullPage: true });
    });

    const base = `/api/v4/groups/${team.body.id}/incident_management`;
    const schedules = (await api.get(`${base}/oncall_schedules`, { token: s.rootToken })).body;
    expect(schedules).toEqual([
      expect.objectContaining({
        iid: 1,
        name: 'Storage primary',
        timezone: 'Europe/Berlin',
        rotations: [
          expect.objectContaining({
            name: 'Weekly',
            length_unit: 'weeks',
            participants: [
              expect.objectContaining({ user: expect.objectContaining({ username: 'carol' }) }),
              expect.objectContaining({ user: expect.objectContaining({ username: 'dave' }) }),
            ],
          }),
        ],
      }),
    ]);
    const policies = (await api.get(`${base}/escalation_policies`, { token: s.rootToken })).body;
    expect(policies).toEqual([
      expect.objectContaining({
        name: 'Storage night',
        rules: [
          expect.objectContaining({ oncall_schedule: { iid: 1, name: 'Storage primary' }, user: null }),
        ],
      }),
    ]);
    // The group above has none of these.
    expect(
      (
        await api.get(`/api/v4/groups/${top.body.id}/incident_management/oncall_schedules`, {
          token: s.rootToken,
        })
      ).body,
    ).toEqual([]);
  });
});
