import { randomBytes } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { type FakeSentry, startFakeSentry } from '../helpers/fake-sentry.js';
import { startTestServer } from '../helpers/server.js';

const PROJECT_NAME = 'Error Tracking UI';
const EXTERNAL_PROJECT_NAME = 'Sentry Backed';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Opens the project's Settings tab and returns the Monitor > Error tracking section once it has loaded. */
async function openErrorTrackingSettings(page: Page, projectName: string): Promise<Locator> {
  await page.getByRole('link', { name: projectName, exact: true }).click();
  await page.getByRole('tab', { name: 'Settings' }).click();
  const section = page.getByRole('region', { name: 'Error tracking' });
  await section.getByRole('form', { name: 'Error tracking settings' }).waitFor();
  return section;
}

/** Calls the REST API as root with the root token. */
function apiClient(server: () => Server) {
  return async (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${server().url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': server().rootToken, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

async function createProject(api: ReturnType<typeof apiClient>, name: string): Promise<number> {
  const response = await api('POST', '/projects', { name });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

/** The store endpoint for a DSN `<scheme>://<key>@<host>/api/v4/error_tracking/collector/<project id>`. */
function storeUrl(dsn: string): string {
  const u = new URL(dsn);
  const projectId = u.pathname.split('/').at(-1);
  return `${u.protocol}//${u.host}/api/v4/error_tracking/collector/api/${projectId}/store/?sentry_key=${u.username}`;
}

function event(user: string): Record<string, unknown> {
  return {
    event_id: randomBytes(16).toString('hex'),
    platform: 'node',
    timestamp: Date.now() / 1000,
    user: { id: user },
    exception: {
      values: [
        {
          type: 'TypeError',
          value: 'x is undefined',
          stacktrace: {
            frames: [
              {
                filename: 'app.js',
                function: 'main',
                lineno: 10,
                pre_context: ['a', 'b'],
                context_line: 'x.y()',
                post_context: ['c'],
              },
            ],
          },
        },
      ],
    },
  };
}

const sendEvent = (dsn: string, body: unknown): Promise<Response> =>
  fetch(storeUrl(dsn), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Polls `check` until it returns true or the deadline passes (never a fixed sleep; generous for a loaded machine). */
async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('error tracking UI on the hosted offering (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let sentry: FakeSentry | undefined;
  let projectId: number;
  // Read from the settings page in the first test, used by the later ones.
  let dsn = '';
  let errorTitle = '';
  const api = apiClient(() => server!);

  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_OFFERING: 'hosted' } });
    projectId = await createProject(api, PROJECT_NAME);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await sentry?.stop();
    await server?.stop();
  });

  const withPage = (name: string, body: (page: Page) => Promise<void>): Promise<void> =>
    withSignedInPage(browser!, server!, `errors-${name}`, body);

  it('starts with an empty state that links to settings, then enables the integrated backend', async () => {
    await withPage('enable', async (page) => {
      await page.getByRole('link', { name: PROJECT_NAME, exact: true }).click();
      await page.getByRole('tab', { name: 'Error tracking' }).click();
      const panel = page.getByRole('tabpanel', { name: 'Error tracking' });
      await panel.getByText('Error tracking is not set up for this project.').waitFor();
      expect(await panel.innerText()).toContain('400 Bad request - Error Tracking is not enabled');
      await page.screenshot({ path: screenshotPath('errors-not-enabled.png'), fullPage: true });
      await panel.getByRole('link', { name: 'Enable error tracking' }).click();
      await page.waitForURL(`**/-/ui/projects/${projectId}/settings`);

      const section = page.getByRole('region', { name: 'Error tracking' });
      const form = section.getByRole('form', { name: 'Error tracking settings' });
      await form.waitFor();
      expect(await form.getByLabel('Active').isChecked()).toBe(false);
      // Nothing configured yet: the integrated backend is offered first, and there is no DSN yet.
      expect(await form.getByLabel('Integrated').isChecked()).toBe(true);
      expect(await section.getByRole('textbox', { name: 'Data Source Name (DSN)' }).count()).toBe(0);
      await form.getByLabel('Active').check();
      await form.getByRole('button', { name: 'Save error tracking settings' }).click();
      await form.getByText('Error tracking settings saved.').waitFor();

      // Saving enabled + integrated creates a first client key; its DSN is shown with a copy button.
      const dsnField = section.getByRole('textbox', { name: 'Data Source Name (DSN)' });
      await dsnField.waitFor();
      dsn = await dsnField.inputValue();
      const host = new URL(server!.url).host;
      expect(dsn).toMatch(
        new RegExp(`^http://glet_[0-9a-f]{32}@${host}/api/v4/error_tracking/collector/${projectId}$`),
      );
      await section.getByRole('button', { name: 'Copy DSN', exact: true }).waitFor();
      expect(await section.getByRole('textbox', { name: 'Runner configuration' }).inputValue()).toBe(
        `sentry_dsn = "${dsn}"`,
      );
      const secretDsn = await section.getByRole('textbox', { name: 'DSN with a secret part' }).inputValue();
      const key = new URL(dsn).username;
      expect(secretDsn).toMatch(new RegExp(`^http://${key}:[0-9a-f]+@${host}/`));
      const rows = section.getByRole('table').getByRole('row');
      expect(await rows.count()).toBe(2); // header + the one key
      expect(await rows.nth(1).getByRole('cell').first().innerText()).toBe(key);

      const saved = await (await api('GET', `/projects/${projectId}/error_tracking/settings`)).json();
      expect(saved).toMatchObject({ active: true, integrated: true });
      await page.screenshot({ path: screenshotPath('errors-settings-integrated.png'), fullPage: true });
    });
  });

  it('lists reported errors, shows the details with the stack trace and events, and resolves one', async () => {
    expect(dsn).not.toBe('');
    for (const user of ['u1', 'u2']) {
      const response = await sendEvent(dsn, event(user));
      expect(response.status).toBe(200);
    }
    // Release health: pre-aggregated sessions in an envelope, as the Python SDK sends them.
    const sessions = await fetch(storeUrl(dsn).replace('/store/', '/envelope/'), {
      method: 'POST',
      body: [
        JSON.stringify({ sent_at: new Date().toISOString() }),
        JSON.stringify({ type: 'sessions' }),
        JSON.stringify({
          attrs: { release: 'app@1.0.0', environment: 'staging' },
          aggregates: [{ started: new Date().toISOString(), exited: 3, errored: 2, crashed: 1 }],
        }),
      ].join('\n'),
    });
    expect(sessions.status).toBe(200);

    await withPage('errors', async (page) => {
      await page.getByRole('link', { name: PROJECT_NAME, exact: true }).click();
      await page.getByRole('tab', { name: 'Error tracking' }).click();
      const panel = page.getByRole('tabpanel', { name: 'Error tracking' });
      const link = page.getByRole('link', { name: /TypeError/ });
      await link.waitFor();
      errorTitle = await link.innerText();
      expect(errorTitle).toContain('x is undefined');
      expect(
        await panel.getByRole('tab', { name: /^Unresolved( \d+)?$/ }).getAttribute('aria-selected'),
      ).toBe('true');
      const headers = await panel
        .getByRole('table', { name: 'Errors', exact: true })
        .getByRole('columnheader')
        .allInnerTexts();
      // The first column holds the selection checkboxes.
      expect(headers).toEqual(['', 'Error', 'Events', 'Users', 'First seen', 'Last seen', 'Last 24 hours']);
      const cells = await panel.getByRole('row').filter({ has: link }).getByRole('cell').allInnerTexts();
      expect(cells[2]).toBe('2'); // two events with one fingerprint are one error
      expect(cells[3]).toBe('2'); // from two users

      // Search and sort go to the server.
      await panel.getByLabel('Sort by').selectOption({ label: 'Frequency' });
      await link.waitFor();
      await panel.getByRole('searchbox', { name: 'Search errors' }).fill('no-such-error');
      await panel.getByRole('button', { name: 'Search' }).click();
      await panel.getByText('No errors match this search.').waitFor();
      await panel.getByRole('searchbox', { name: 'Search errors' }).fill('');
      await link.waitFor();
      const health = panel.getByRole('region', { name: 'Release health' });
      expect(await health.locator('tbody tr').first().getByRole('cell').allInnerTexts()).toEqual([
        'app@1.0.0',
        'staging',
        '6',
        '2',
        '1',
      ]);
      await page.screenshot({ path: screenshotPath('errors-list.png'), fullPage: true });

      await link.click();
      await page.waitForURL(new RegExp(`/-/ui/projects/${projectId}/errors/\\d+$`));
      await page.getByRole('heading', { name: errorTitle, level: 1 }).waitFor();
      const details = page.getByRole('region', { name: 'Error details' });
      const detailsText = await details.innerText();
      expect(detailsText).toMatch(/Type\s+TypeError/);
      expect(detailsText).toMatch(/Message\s+x is undefined/);
      expect(detailsText).toMatch(/Platform\s+node/);
      expect(detailsText).toMatch(/Occurrences\s+2/);
      expect(detailsText).toMatch(/Users affected\s+2/);
      expect(detailsText).toMatch(/Status\s+Unresolved/);

      // The stack trace: the frame with its context, the current line highlighted.
      const trace = page.getByRole('region', { name: 'Stack trace' });
      const frame = trace.getByRole('list', { name: 'Frames' }).getByRole('listitem').first();
      expect(await frame.locator('summary').innerText()).toMatch(/app\.js in main at line 10/);
      const code = trace.getByRole('list', { name: 'Code of app.js' });
      expect(await code.getByRole('listitem').allInnerTexts()).toEqual([
        '8\na',
        '9\nb',
        '10\nx.y()',
        '11\nc',
      ]);
      const current = code.locator('li[aria-current="true"]');
      expect(await current.count()).toBe(1);
      expect(await current.locator('code').innerText()).toBe('x.y()');

      // The latest events, with their users.
      const events = page.getByRole('region', { name: 'Latest events' });
      const eventRows = events.getByRole('row');
      expect(await eventRows.count()).toBe(3);
      const users = (await events.locator('tbody tr td:nth-child(5)').allInnerTexts()).sort();
      expect(users).toEqual(['u1', 'u2']);
      expect(await events.locator('tbody tr td:nth-child(2)').allInnerTexts()).toEqual(['Error', 'Error']);
      await page.screenshot({ path: screenshotPath('errors-details.png'), fullPage: true });

      await page.getByRole('button', { name: 'Resolve', exact: true }).click();
      await page.getByText('Status changed to Resolved.').waitFor();
      await page.getByRole('button', { name: 'Unresolve' }).waitFor();
      expect(await page.getByRole('button', { name: 'Resolve', exact: true }).count()).toBe(0);
      expect(await details.innerText()).toMatch(/Status\s+Resolved/);
      await page.screenshot({ path: screenshotPath('errors-resolved.png'), fullPage: true });

      // Back in the list: it left the Unresolved list and is under Resolved.
      await page
        .getByRole('navigation', { name: 'Breadcrumbs' })
        .getByRole('link', { name: 'Error tracking', exact: true })
        .click();
      const list = page.getByRole('tabpanel', { name: 'Error tracking' });
      await list.getByText('No unresolved errors.').waitFor();
      await list.getByRole('tab', { name: /^Resolved( \d+)?$/ }).click();
      await list.getByRole('link', { name: errorTitle }).waitFor();
      await list.getByRole('tab', { name: 'Ignored' }).click();
      await list.getByText('No ignored errors.').waitFor();
    });
  });

  it('merges two errors on the error page and unmerges one of their hashes into a new error', async () => {
    const bug = (fn: string) => {
      const e = event('u9');
      const [value] = (e.exception as { values: Record<string, unknown>[] }).values;
      e.exception = {
        values: [
          {
            ...value,
            type: 'RangeError',
            value: `bad ${fn}`,
            stacktrace: { frames: [{ filename: 'shop.js', function: fn, lineno: 3, in_app: true }] },
          },
        ],
      };
      return e;
    };
    expect((await sendEvent(dsn, bug('checkoutTotal'))).status).toBe(200);
    expect((await sendEvent(dsn, bug('checkoutTotal'))).status).toBe(200);
    expect((await sendEvent(dsn, bug('applyCoupon'))).status).toBe(200);
    const list = (await (
      await api('GET', `/projects/${projectId}/error_tracking/errors?search=RangeError`)
    ).json()) as {
      id: number;
      message: string;
    }[];
    const total = list.find((e) => e.message === 'bad checkoutTotal')!;
    const coupon = list.find((e) => e.message === 'bad applyCoupon')!;

    await withPage('merge', async (page) => {
      await page.goto(`${server!.url}/-/ui/projects/${projectId}/errors/${coupon.id}`);
      const grouping = page.getByRole('region', { name: 'Grouping' });
      await grouping.getByRole('table', { name: 'Grouping hashes' }).waitFor();
      await grouping.getByLabel('Merge with errors').fill(String(total.id));
      await grouping.getByRole('button', { name: 'Merge', exact: true }).click();
      // The error with more events takes the other: the page moves to it.
      await page.waitForURL(`**/-/ui/projects/${projectId}/errors/${total.id}`);
      const rows = page.getByRole('table', { name: 'Grouping hashes' }).getByRole('row');
      await expect.poll(() => rows.count()).toBe(3);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toContain('bad checkoutTotal');
      await page.screenshot({ path: screenshotPath('errors-grouping.png'), fullPage: true });

      await rows
        .nth(2)
        .getByRole('button', { name: /^Unmerge/ })
        .click();
      await page.waitForURL((url) => !url.pathname.endsWith(`/errors/${total.id}`));
      await page.getByRole('heading', { level: 1, name: /RangeError bad applyCoupon/ }).waitFor();
      await expect
        .poll(() => page.getByRole('table', { name: 'Grouping hashes' }).getByRole('row').count())
        .toBe(2);
    });
  });

  it('rotates a leaked key: creates a new key, deletes the old one, and the old key is refused', async () => {
    expect(dsn).not.toBe('');
    const oldKey = new URL(dsn).username;

    await withPage('rotate', async (page) => {
      const section = await openErrorTrackingSettings(page, PROJECT_NAME);
      const table = section.getByRole('table');
      await table.getByRole('cell', { name: oldKey, exact: true }).waitFor();
      await section.getByRole('button', { name: 'Create new key' }).click();
      await section.getByText('New client key').waitFor();
      await expect.poll(() => table.getByRole('row').count()).toBe(3);
      // The newest key is the one handed out.
      const newDsn = await section.getByRole('textbox', { name: 'Data Source Name (DSN)' }).inputValue();
      const newKey = new URL(newDsn).username;
      expect(newKey).not.toBe(oldKey);
      expect(await section.getByRole('textbox', { name: 'Runner configuration' }).inputValue()).toBe(
        `sentry_dsn = "${newDsn}"`,
      );

      // Delete asks first; cancelling keeps the key.
      await section.getByRole('button', { name: `Delete key ${oldKey}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete client key?' });
      await dialog.waitFor();
      expect(await dialog.innerText()).toContain(oldKey);
      await page.screenshot({ path: screenshotPath('errors-delete-key.png'), fullPage: true });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await table.getByRole('row').count()).toBe(3);
      await section.getByRole('button', { name: `Delete key ${oldKey}` }).click();
      await dialog.getByRole('button', { name: 'Delete key' }).click();
      await section.getByText(`Client key ${oldKey} deleted.`).waitFor();
      await table.getByRole('cell', { name: oldKey, exact: true }).waitFor({ state: 'detached' });
      expect(await table.getByRole('row').count()).toBe(2);
      await page.screenshot({ path: screenshotPath('errors-keys-rotated.png'), fullPage: true });

      // Through the API: only the new key is listed; the old one is refused, the new one accepted.
      const keys = (await (await api('GET', `/projects/${projectId}/error_tracking/client_keys`)).json()) as {
        public_key: string;
      }[];
      expect(keys.map((k) => k.public_key)).toEqual([newKey]);
      await eventually(
        async () => (await sendEvent(dsn, event('u3'))).status === 404,
        'the old key to be refused with 404',
      );
      expect((await sendEvent(newDsn, event('u3'))).status).toBe(200);
    });
  });

  it('connects an external Sentry: shows a failed connection, lists projects, saves, and lists its errors', async () => {
    sentry = await startFakeSentry();
    const local = await api('PUT', '/application/settings', {
      allow_local_requests_from_web_hooks_and_services: true,
    });
    expect(local.status).toBe(200);
    const externalId = await createProject(api, EXTERNAL_PROJECT_NAME);

    await withPage('external', async (page) => {
      const section = await openErrorTrackingSettings(page, EXTERNAL_PROJECT_NAME);
      const form = section.getByRole('form', { name: 'Error tracking settings' });
      await form.getByLabel('External Sentry').check();
      await form.getByLabel('Sentry API URL').fill(sentry!.url);
      const token = form.getByLabel('Auth token');
      expect(await token.getAttribute('type')).toBe('password');
      expect(await form.getByLabel('Project').isDisabled()).toBe(true);

      // A wrong token: the Connect action fails with the server's reason.
      await token.fill('wrong-token');
      await form.getByRole('button', { name: 'Connect' }).click();
      const failed = form.getByRole('alert');
      await failed.waitFor();
      const failedText = await failed.innerText();
      expect(failedText).toContain('Connection failed. Check auth token and try again.');
      expect(failedText).toContain('Sentry response status code: 401');
      await page.screenshot({ path: screenshotPath('errors-connect-failed.png'), fullPage: true });

      await token.fill(sentry!.token);
      await form.getByRole('button', { name: 'Connect' }).click();
      await form.getByText('Connected. 2 projects found; choose one.').waitFor();
      expect(await form.getByRole('alert').count()).toBe(0);
      const select = form.getByLabel('Project');
      expect(await select.locator('option').allInnerTexts()).toEqual([
        'Select project',
        'Acme | Backend',
        'Acme | Frontend',
      ]);
      await select.selectOption({ label: 'Acme | Backend' });
      await form.getByLabel('Active').check();
      await form.getByRole('button', { name: 'Save error tracking settings' }).click();
      await form.getByText('Error tracking settings saved.').waitFor();
      // The token is stored and shown masked; the stored project stays selected.
      expect(await token.inputValue()).toBe('********');
      expect(await select.inputValue()).toBe('acme/backend');
      const saved = await (await api('GET', `/projects/${externalId}/error_tracking/settings`)).json();
      expect(saved).toEqual({
        active: true,
        project_name: 'Backend',
        sentry_external_url: `${sentry!.url}/acme/backend/`,
        api_url: `${sentry!.url}/api/0/projects/acme/backend/`,
        integrated: false,
        // The integrated backend's attachment limit, untouched by the external form.
        max_attachment_size: 1024 * 1024,
        dropped_items: {},
      });
      await page.screenshot({ path: screenshotPath('errors-external.png'), fullPage: true });

      // After a reload the masked token still connects (the server uses the stored one).
      await page.reload();
      const again = page
        .getByRole('region', { name: 'Error tracking' })
        .getByRole('form', { name: 'Error tracking settings' });
      await again.waitFor();
      expect(await again.getByLabel('External Sentry').isChecked()).toBe(true);
      expect(await again.getByLabel('Auth token').inputValue()).toBe('********');
      expect(await again.getByLabel('Sentry API URL').inputValue()).toBe(sentry!.url);
      await again.getByRole('button', { name: 'Connect' }).click();
      await again.getByText('Connected. 2 projects found; choose one.').waitFor();
      expect(await again.getByLabel('Project').inputValue()).toBe('acme/backend');

      // The Error tracking tab reads the external Sentry's issues.
      await page.getByRole('tab', { name: 'Error tracking' }).click();
      const panel = page.getByRole('tabpanel', { name: 'Error tracking' });
      // Titles are the server's (type + message); see the report on how they differ from Sentry's titles.
      const zero = page.getByRole('link', { name: /division by zero/ });
      await panel.getByRole('link', { name: /division by zero/ }).waitFor();
      await panel.getByRole('link', { name: /'user'/ }).waitFor();
      const cells = await panel.getByRole('row').filter({ has: zero }).getByRole('cell').allInnerTexts();
      expect(cells.slice(2, 4)).toEqual(['12', '3']);
      await page.screenshot({ path: screenshotPath('errors-external-list.png'), fullPage: true });

      // Details come from Sentry too; it keeps no event list here, which the page says instead of failing.
      await panel.getByRole('link', { name: /division by zero/ }).click();
      await page.waitForURL(`**/-/ui/projects/${externalId}/errors/1001`);
      const details = page.getByRole('region', { name: 'Error details' });
      await details.waitFor();
      expect(await details.innerText()).toMatch(/First release\s+1\.0\.0/);
      const trace = page.getByRole('region', { name: 'Stack trace' });
      await trace.getByRole('list', { name: 'Frames' }).waitFor();
      expect(await trace.innerText()).toContain('app/compute.py');
      const events = page.getByRole('region', { name: 'Latest events' });
      await events.getByText('only kept by the integrated backend').waitFor();
      await page.screenshot({ path: screenshotPath('errors-external-details.png'), fullPage: true });
    });
  });
});

describe('error tracking UI on self-managed (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let projectId: number;
  const api = apiClient(() => server!);

  beforeAll(async () => {
    server = await startTestServer();
    projectId = await createProject(api, PROJECT_NAME);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows the server refusal when enabling the integrated backend, and changes nothing', async () => {
    await withSignedInPage(browser!, server!, 'errors-self-managed', async (page) => {
      const section = await openErrorTrackingSettings(page, PROJECT_NAME);
      const form = section.getByRole('form', { name: 'Error tracking settings' });
      await form.getByLabel('Active').check();
      await form.getByLabel('Integrated').check();
      await form.getByRole('button', { name: 'Save error tracking settings' }).click();
      const refused = form.getByRole('alert');
      await refused.waitFor();
      const text = await refused.innerText();
      expect(text).toContain('hosted offering');
      expect(text).toContain('integrated_error_tracking');
      expect(await form.getByText('Error tracking settings saved.').count()).toBe(0);
      expect(await section.getByRole('textbox', { name: 'Data Source Name (DSN)' }).count()).toBe(0);
      await page.screenshot({ path: screenshotPath('errors-self-managed.png'), fullPage: true });
    });
    // The refused save stored nothing: the project still has no settings (GitLab's 404).
    const settings = await api('GET', `/projects/${projectId}/error_tracking/settings`);
    expect(settings.status).toBe(404);
    expect(await settings.json()).toEqual({ message: '404 Error Tracking Setting Not Found' });
    const keys = await (await api('GET', `/projects/${projectId}/error_tracking/client_keys`)).json();
    expect(keys).toEqual([]);
  });
});
