import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

interface Issue {
  iid: number;
  title: string;
  state: string;
  severity: string;
  escalation_status: string | null;
  assignees: { username: string }[];
}

/** Screenshots of the page as it is, at a desktop and a phone width (for looking at, not asserted). */
async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: screenshotPath(`${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: screenshotPath(`${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 1000 });
}

describe.each(await databases())('incidents, overrides and silences in the UI (Chromium, %s)', (database) => {
  let browser: Browser | null = null;
  let server: TestServer | null = null;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    [browser, server] = await Promise.all([
      launchChromium(),
      startTestServer({ database, env: { SVC_TIER: 'premium' } }),
    ]);
    const api = http(server.url);
    for (const name of ['alice', 'bob']) {
      const u = await api.post('/api/v4/users', {
        token: server.rootToken,
        body: {
          username: name,
          name: `${name[0]!.toUpperCase()}${name.slice(1)}`,
          email: `${name}@example.com`,
          password: 'password-123',
        },
      });
      ids[name] = u.body.id;
    }
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A project with alice (Developer) and bob (Reporter), and an HTTP integration. */
  async function project(name: string): Promise<{ id: number; notify: (body: object) => Promise<void> }> {
    const s = server!;
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name } });
    for (const [who, level] of [
      ['alice', 30],
      ['bob', 20],
    ] as const) {
      await api.post(`/api/v4/projects/${p.body.id}/members`, {
        token: s.rootToken,
        body: { user_id: ids[who], access_level: level },
      });
    }
    const integration = await api.post(`/api/v4/projects/${p.body.id}/alert_management/integrations`, {
      token: s.rootToken,
      body: { name: 'Ops', type: 'http' },
    });
    const notify = async (body: object) => {
      const res = await fetch(integration.body.url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${integration.body.authorization_key}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
    };
    return { id: p.body.id, notify };
  }

  it('lists incidents with filters, opens one by hand, and works in it: severity, status, assignees, comments, timeline, close', async () => {
    const s = server!;
    const api = http(s.url);
    const { id, notify } = await project('Shop');
    const base = `/api/v4/projects/${id}`;
    await notify({ title: 'Payments failing', fingerprint: 'payments', severity: 'critical' });
    expect(
      (await api.post(`${base}/alert_management/alerts/1/create_issue`, { token: s.rootToken })).status,
    ).toBe(201);
    await api.post<Issue>(`${base}/issues`, {
      token: s.rootToken,
      body: { title: 'DB slow', issue_type: 'incident', severity: 'HIGH', assignee_ids: [ids.bob] },
    });
    const old = await api.post<Issue>(`${base}/issues`, {
      token: s.rootToken,
      body: { title: 'Old outage', issue_type: 'incident' },
    });
    await api.put(`${base}/issues/${old.body.iid}`, { token: s.rootToken, body: { state_event: 'close' } });

    await withSignedInPage(
      browser!,
      s,
      'incidents',
      async (page) => {
        await page.goto(`${s.url}/-/ui/projects/${id}`);
        await page.getByRole('tab', { name: 'Incidents' }).click();
        await page.waitForURL(`**/-/ui/projects/${id}/incidents`);
        const panel = page.getByRole('tabpanel', { name: 'Incidents' });
        const table = panel.getByRole('table', { name: 'Incidents' });
        const titles = () => table.getByRole('link').allInnerTexts();
        await table.getByRole('link', { name: 'DB slow' }).waitFor();
        expect(await titles()).toEqual(['DB slow', 'Payments failing']);

        const filters = panel.getByRole('search');
        await filters.getByLabel('Severity').selectOption('HIGH');
        await table.getByRole('link', { name: 'Payments failing' }).waitFor({ state: 'detached' });
        await table.getByRole('link', { name: 'DB slow' }).waitFor();
        expect(await titles()).toEqual(['DB slow']);
        await filters.getByLabel('Severity').selectOption('');
        await table.getByRole('link', { name: 'Payments failing' }).waitFor();
        await filters.getByLabel('Assignee').selectOption('bob');
        await table.getByRole('link', { name: 'Payments failing' }).waitFor({ state: 'detached' });
        await table.getByRole('link', { name: 'DB slow' }).waitFor();
        expect(await titles()).toEqual(['DB slow']);
        await filters.getByLabel('Assignee').selectOption('');
        await filters.getByLabel('Search incidents').fill('payments');
        await filters.getByRole('button', { name: 'Search' }).click();
        await table.getByRole('link', { name: 'DB slow' }).waitFor({ state: 'detached' });
        await table.getByRole('link', { name: 'Payments failing' }).waitFor();
        expect(await titles()).toEqual(['Payments failing']);
        await filters.getByLabel('Search incidents').fill('');
        await panel.getByRole('tab', { name: 'Closed' }).click();
        await table.getByRole('link', { name: 'Old outage' }).waitFor();
        expect(await titles()).toEqual(['Old outage']);
        await panel.getByRole('tab', { name: 'All' }).click();
        // Only the whole list has both an open and the closed incident.
        await table.getByRole('link', { name: 'Payments failing' }).waitFor();
        expect(await titles()).toEqual(['Old outage', 'DB slow', 'Payments failing']);
        await panel.getByRole('tab', { name: 'Open' }).click();
        await table.getByRole('link', { name: 'Old outage' }).waitFor({ state: 'detached' });
        await shoot(page, 'incidents-list');

        // A new incident by hand opens its page.
        await panel.getByText('New incident', { exact: true }).click();
        const form = panel.getByRole('form', { name: 'New incident' });
        await form.getByLabel('Title').fill('Checkout down');
        await form.getByLabel('Description').fill('**Checkout** answers 500');
        await form.getByLabel('Severity').selectOption('CRITICAL');
        await form.getByLabel('Alice (@alice)').check();
        await form.getByRole('button', { name: 'Open incident' }).click();
        await page.getByRole('heading', { name: 'Checkout down', level: 1 }).waitFor();
        const created = (await api.get<Issue[]>(`${base}/issues?search=Checkout`, { token: s.rootToken }))
          .body[0]!;
        expect(created).toMatchObject({
          severity: 'CRITICAL',
          escalation_status: 'triggered',
          assignees: [{ username: 'alice' }],
        });
        expect(page.url()).toBe(`${s.url}/-/ui/projects/${id}/issues/${created.iid}`);
        const description = page.getByRole('region', { name: 'Description' });
        expect(await description.locator('strong').innerText()).toBe('Checkout');

        // Severity and escalation status change at once, each with its system note.
        await page.getByLabel('Severity').selectOption('HIGH');
        await page.getByText('Severity changed to High - S2.').waitFor();
        await page.getByLabel('Escalation status').selectOption('acknowledged');
        await page.getByText('Escalation status changed to Acknowledged.').waitFor();
        const notes = page.getByRole('list', { name: 'Notes' });
        const severityNote = notes.getByRole('listitem').filter({ hasText: 'changed the severity to' });
        await severityNote.waitFor();
        expect(await severityNote.getAttribute('class')).toContain('system-note');

        // Assignees: tick bob too.
        const assignees = page.getByRole('region', { name: 'Assignees' });
        await assignees.getByText('Change assignees').click();
        await assignees.getByLabel('Bob (@bob)').check();
        await assignees.getByRole('button', { name: 'Save assignees' }).click();
        await assignees.getByText('Assigned to @alice, @bob.').waitFor();

        // Title and description.
        await page.getByRole('button', { name: 'Edit', exact: true }).click();
        const edit = page.getByRole('form', { name: 'Edit incident' });
        await edit.getByLabel('Title').fill('Checkout down in EU');
        await edit.getByRole('button', { name: 'Save' }).click();
        await page.getByRole('heading', { name: 'Checkout down in EU', level: 1 }).waitFor();

        // A comment, rendered as Markdown, then added to the timeline.
        await page.getByLabel('Comment', { exact: true }).fill('Rolled back **v2**');
        await page.getByRole('button', { name: 'Comment', exact: true }).click();
        const comment = notes.getByRole('listitem').filter({ hasText: 'Rolled back v2' });
        await comment.waitFor();
        expect(await comment.locator('strong').innerText()).toBe('v2');
        expect(await comment.getAttribute('class')).not.toContain('system-note');
        await comment.getByRole('button', { name: 'Add to timeline' }).click();
        const timeline = page.getByRole('list', { name: 'Timeline events' });
        await timeline.getByText('Rolled back').waitFor();

        // An event by hand, an hour ago, tagged.
        const timelineRegion = page.getByRole('region', { name: 'Timeline' });
        await timelineRegion.getByText('Add a timeline event').click();
        const add = timelineRegion.getByRole('form', { name: 'Add timeline event' });
        await add.getByLabel('What happened').fill('Traffic moved to US');
        const hourAgo = new Date(Date.now() - 3_600_000);
        hourAgo.setMinutes(hourAgo.getMinutes() - hourAgo.getTimezoneOffset());
        await add.getByLabel('Occurred at (your time)').fill(hourAgo.toISOString().slice(0, 16));
        await add.getByLabel('Impact mitigated').check();
        await add.getByRole('button', { name: 'Add event' }).click();
        const handMade = timeline.getByRole('listitem').filter({ hasText: 'Traffic moved to US' });
        await handMade.waitFor();
        expect(await handMade.locator('.badge').allInnerTexts()).toEqual(['Impact mitigated']);
        const events = (
          await api.get<{ note: string; occurred_at: string; timeline_event_tags: { name: string }[] }[]>(
            `${base}/issues/${created.iid}/timeline_events`,
            { token: s.rootToken },
          )
        ).body;
        const times = events.map((e) => Date.parse(e.occurred_at));
        expect(times).toEqual([...times].sort((a, b) => a - b));
        expect(events.find((e) => e.note === 'Traffic moved to US')?.timeline_event_tags).toEqual([
          expect.objectContaining({ name: 'Impact mitigated' }),
        ]);
        expect(events.some((e) => e.note === 'Rolled back **v2**')).toBe(true);
        // The page lists them in the API's (time) order.
        const shown = await timeline.getByRole('listitem').allInnerTexts();
        expect(shown.findIndex((t) => t.includes('Traffic moved to US'))).toBeLessThan(
          shown.findIndex((t) => t.includes('Rolled back')),
        );
        await shoot(page, 'incident-page');

        // An event someone wrote can be deleted, after a confirmation; the ones svc wrote cannot.
        await handMade.getByRole('button', { name: 'Delete event' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
        await handMade.waitFor({ state: 'detached' });
        expect(
          await timeline
            .getByRole('listitem')
            .filter({ hasText: 'created the incident' })
            .getByRole('button')
            .count(),
        ).toBe(0);

        // Close, then reopen.
        await page.getByRole('button', { name: 'Close incident' }).click();
        await page.getByText('Incident closed.').waitFor();
        await page.getByRole('button', { name: 'Reopen incident' }).waitFor();
        const closed = (await api.get<Issue>(`${base}/issues/${created.iid}`, { token: s.rootToken })).body;
        expect(closed).toMatchObject({
          state: 'closed',
          title: 'Checkout down in EU',
          severity: 'HIGH',
          escalation_status: 'resolved',
          assignees: [{ username: 'alice' }, { username: 'bob' }],
        });
        await page.getByRole('button', { name: 'Reopen incident' }).click();
        await page.getByText('Incident reopened.').waitFor();
        expect(
          (await api.get<Issue>(`${base}/issues/${created.iid}`, { token: s.rootToken })).body.state,
        ).toBe('opened');

        // The incident the alert opened links it.
        await page.goto(`${s.url}/-/ui/projects/${id}/issues/1`);
        const linked = page.getByRole('region', { name: 'Linked alerts' });
        await linked.getByRole('link', { name: 'Payments failing' }).click();
        await page.waitForURL(`**/-/ui/projects/${id}/alerts/1`);
      },
      { width: 1280, height: 1000 },
    );
  });

  it('pages from the incident page: a sentence without a policy, then the policy pages and the timeline tells it', async () => {
    const s = server!;
    const api = http(s.url);
    const { id } = await project('Paged from the UI');
    const incident = await api.post(`/api/v4/projects/${id}/issues`, {
      token: s.rootToken,
      body: { title: 'Checkout is down', issue_type: 'incident' },
    });
    expect(incident.status).toBe(201);
    await withSignedInPage(browser!, s, 'incident-page-button', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${id}/issues/${incident.body.iid}`);
      await page.getByRole('button', { name: 'Page', exact: true }).click();
      await page.getByText('Could not page anyone: The project has no escalation policy').waitFor();

      const policy = await api.post(`/api/v4/projects/${id}/incident_management/escalation_policies`, {
        token: s.rootToken,
        body: {
          name: 'Night shift',
          rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'alice' }],
        },
      });
      expect(policy.status).toBe(201);
      await page.reload();
      await page.getByRole('button', { name: 'Page', exact: true }).click();
      await page.getByText('Paging with Night shift.').waitFor();
      // The page job runs at once (its rule is due at 0 s) and tells the incident's timeline who was paged.
      await until(async () => {
        const events = await api.get(`/api/v4/projects/${id}/issues/${incident.body.iid}/timeline_events`, {
          token: s.rootToken,
        });
        return (events.body as { note: string }[]).some((e) =>
          e.note.includes('@alice paged by escalation policy'),
        );
      }, 'the page on the timeline');
      await page.reload();
      await page.getByText('@alice paged by escalation policy').first().waitFor();
      await page.screenshot({ path: screenshotPath('ui-incident-paged.png'), fullPage: true });
    });
    const after = await api.get(`/api/v4/projects/${id}/issues/${incident.body.iid}`, { token: s.rootToken });
    expect(after.body).toMatchObject({
      escalation_status: 'triggered',
      escalation_policy: { name: 'Night shift' },
    });
  });

  it('silences from settings (matchers, expire early) and from an alert, which then shows what silences it', async () => {
    const s = server!;
    const api = http(s.url);
    const { id, notify } = await project('Silenced');
    const base = `/api/v4/projects/${id}/alert_management`;
    await notify({
      title: 'Disk full',
      severity: 'high',
      service: 'db',
      labels: { host: 'db-1', team: 'storage' },
    });

    await withSignedInPage(
      browser!,
      s,
      'silences',
      async (page) => {
        // From the alert: the form comes pre-filled with its labels and fields.
        await page.goto(`${s.url}/-/ui/projects/${id}/alerts/1`);
        await page.getByRole('heading', { name: 'Disk full', level: 1 }).waitFor();
        expect(await page.getByRole('list', { name: 'Silenced by' }).count()).toBe(0);
        await page.getByRole('button', { name: 'Silence alerts like this' }).click();
        const form = page.getByRole('form', { name: 'New silence' });
        const rows = form.getByRole('group', { name: /^Matcher \d+$/ });
        const prefilled = await rows.evaluateAll((els) =>
          els.map((el) => {
            const [name, value] = [...el.querySelectorAll('input')].map((i) => i.value);
            return `${name}${el.querySelector('select')!.value}${value}`;
          }),
        );
        expect(prefilled).toEqual([
          'host=db-1',
          'team=storage',
          'title=Disk full',
          'severity=high',
          'service=db',
        ]);
        // Keep host and team only; make host a regex.
        for (const n of [5, 4, 3]) await form.getByRole('button', { name: `Remove matcher ${n}` }).click();
        const host = form.getByRole('group', { name: 'Matcher 1' });
        await host.getByLabel('Operator').selectOption('=~');
        await host.getByLabel('Value').fill('db-[0-9]+');
        await form.getByLabel('Comment').fill('Disk swap tonight');
        await form.getByRole('button', { name: 'Create silence' }).click();
        await form.getByText(/^Silence #\d+ created\.$/).waitFor();
        const silencedBy = page.getByRole('list', { name: 'Silenced by' });
        await silencedBy.getByText(/Disk swap tonight/).waitFor();
        await shoot(page, 'alert-silenced');

        const stored = (await api.get(`${base}/silences`, { token: s.rootToken })).body;
        expect(stored).toEqual([
          expect.objectContaining({
            comment: 'Disk swap tonight',
            state: 'active',
            matchers: [
              { name: 'host', value: 'db-[0-9]+', isRegex: true, isEqual: true },
              { name: 'team', value: 'storage', isRegex: false, isEqual: true },
            ],
          }),
        ]);

        // Settings: a pending silence with a != matcher, listed by state; the active one expired early.
        await page.goto(`${s.url}/-/ui/projects/${id}/settings`);
        const section = page.getByRole('region', { name: 'Silences' });
        const list = section.getByRole('list', { name: 'Silences' });
        await list.getByText(/Disk swap tonight/).waitFor();
        await section.getByText('New silence', { exact: true }).click();
        const create = section.getByRole('form', { name: 'New silence' });
        const first = create.getByRole('group', { name: 'Matcher 1' });
        await first.getByLabel('Name').fill('service');
        await first.getByLabel('Value').fill('web');
        await create.getByRole('button', { name: 'Add matcher' }).click();
        const second = create.getByRole('group', { name: 'Matcher 2' });
        await second.getByLabel('Name').fill('environment');
        await second.getByLabel('Operator').selectOption('!=');
        await second.getByLabel('Value').fill('staging');
        const later = (hours: number) => {
          const d = new Date(Date.now() + hours * 3_600_000);
          d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
          return d.toISOString().slice(0, 16);
        };
        await create.getByLabel('Starts (your time)').fill(later(24));
        await create.getByLabel('Ends (your time)').fill(later(26));
        await create.getByLabel('Comment').fill('Web deploy window');
        await create.getByRole('button', { name: 'Create silence' }).click();
        await create.getByText(/^Silence #\d+ created\.$/).waitFor();
        await section.getByRole('tab', { name: 'Pending' }).click();
        const pending = list.getByRole('listitem', { name: /^Silence #\d+$/ });
        await pending.filter({ hasText: 'Web deploy window' }).waitFor();
        expect(await pending.count()).toBe(1);
        expect(await pending.getByRole('list', { name: 'Matchers' }).innerText()).toContain(
          'environment!="staging"',
        );

        // A bad regex is refused with the server's reason, and adds nothing.
        await create.getByRole('group', { name: 'Matcher 1' }).getByLabel('Operator').selectOption('=~');
        await create.getByRole('group', { name: 'Matcher 1' }).getByLabel('Value').fill('(a+)+');
        await create.getByLabel('Comment').fill('Bad');
        await create.getByRole('button', { name: 'Create silence' }).click();
        await create.getByRole('alert').waitFor();
        expect(await create.getByRole('alert').innerText()).toMatch(/^Could not create the silence: /);

        await section.getByRole('tab', { name: 'Active' }).click();
        const active = list.getByRole('listitem').filter({ hasText: 'Disk swap tonight' });
        await active.getByRole('button', { name: 'Expire now' }).click();
        await section.getByText(/^Silence #\d+ expired\.$/).waitFor();
        await section.getByText('No active silences.').waitFor();
        await section.getByRole('tab', { name: 'Expired' }).click();
        await list.getByText(/Disk swap tonight/).waitFor();
        expect((await api.get(`${base}/silences`, { token: s.rootToken })).body).toHaveLength(2);
        await shoot(page, 'silences-settings');

        // The alert is no longer silenced.
        await page.goto(`${s.url}/-/ui/projects/${id}/alerts/1`);
        await page.getByRole('heading', { name: 'Disk full', level: 1 }).waitFor();
        expect(await page.getByRole('list', { name: 'Silenced by' }).count()).toBe(0);
      },
      { width: 1280, height: 1000 },
    );
  });

  it('adds an override over the rotations, shows it in the timeline, and deletes it', async () => {
    const s = server!;
    const api = http(s.url);
    const { id } = await project('Overrides');
    const schedules = `/api/v4/projects/${id}/incident_management/oncall_schedules`;
    await api.post(schedules, { token: s.rootToken, body: { name: 'Primary', timezone: 'UTC' } });
    const day = (days: number, time: string) =>
      `${new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)}T${time}`;
    await api.post(`${schedules}/1/rotations`, {
      token: s.rootToken,
      body: {
        name: 'Daily',
        starts_at: day(-1, '00:00'),
        length: 1,
        length_unit: 'days',
        participants: [{ username: 'alice' }],
      },
    });

    await withSignedInPage(
      browser!,
      s,
      'overrides',
      async (page) => {
        await page.goto(`${s.url}/-/ui/projects/${id}/oncall_schedules`);
        const panel = page.getByRole('tabpanel', { name: 'On-call schedules' });
        const overrides = panel.getByRole('region', { name: 'Overrides' });
        await overrides.getByText('No overrides.').waitFor();
        await overrides.getByText('Add an override to Primary').click();
        const form = overrides.getByRole('form', { name: 'Add override to Primary' });
        const options = await form.getByLabel('On call instead').locator('option').allInnerTexts();
        // The rotation's participant first, then the other members.
        expect(options.slice(0, 2)).toEqual(['Choose a person', 'Alice (@alice)']);
        expect(options).toContain('Bob (@bob)');
        await form.getByLabel('On call instead').selectOption({ label: 'Bob (@bob)' });
        await form.getByLabel('From (UTC)').fill(day(2, '10:00'));
        await form.getByLabel('Until (UTC)').fill(day(2, '14:00'));
        await form.getByRole('button', { name: 'Add override' }).click();
        const list = overrides.getByRole('list', { name: 'Overrides of Primary' });
        await list.getByText('bob', { exact: true }).waitFor();

        const timeline = panel.getByRole('figure', { name: 'Shifts of Primary, next two weeks' });
        const block = timeline.getByRole('img', { name: /^Override bob: / });
        await block.waitFor();
        expect(await block.getAttribute('aria-label')).toMatch(/^Override bob: .* 10:00 – .* 14:00$/);
        // Alice's shift that day is cut around it.
        const alice = await timeline
          .getByRole('img', { name: /^alice: / })
          .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
        expect(alice.some((l) => / 10:00$/.test(l))).toBe(true);
        expect(alice.some((l) => / 14:00 – /.test(l))).toBe(true);
        await shoot(page, 'oncall-overrides');

        const stored = (await api.get(`${schedules}/1/overrides`, { token: s.rootToken })).body;
        expect(stored).toEqual([
          expect.objectContaining({ user: expect.objectContaining({ username: 'bob' }) }),
        ]);

        await list.getByRole('button', { name: 'Delete override of bob' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
        await overrides.getByText('No overrides.').waitFor();
        await block.waitFor({ state: 'detached' });
        expect((await api.get(`${schedules}/1/overrides`, { token: s.rootToken })).body).toEqual([]);
      },
      { width: 1280, height: 1000 },
    );
  });
});
