import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withPage, withSignedInPage } from '../helpers/browser.js';
import { startTestServer } from '../helpers/server.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/**
 * Through the UI: create forms (group, subgroup, project, members), the admin area's
 * Users, Features and Settings pages, the personal access tokens page, and the error tracking switch that only
 * administrators get. Each change is checked through the API afterwards.
 */
describe('admin pages and create forms (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;

  const api = async (method: string, path: string, body?: unknown, token?: string) => {
    const response = await fetch(`${server!.url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': token ?? server!.rootToken, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text) };
  };

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const signedIn = (name: string, body: (page: Page) => Promise<void>) =>
    withSignedInPage(browser!, server!, name, body);

  it('the empty projects page leads to New project; groups, subgroups, projects and members are created in forms', async () => {
    await api('POST', '/users', {
      name: 'Carol',
      username: 'carol',
      email: 'c@example.com',
      password: 'carol-pass-1',
    });
    await signedIn('forms', async (page) => {
      const empty = page.locator('.empty-state');
      await empty.getByRole('link', { name: 'New project' }).waitFor();
      expect(await empty.innerText()).not.toContain('API');
      await page.screenshot({ path: screenshotPath('forms-empty-projects.png'), fullPage: true });

      await page.getByRole('link', { name: 'New group' }).click();
      const groupForm = page.getByRole('form', { name: 'New group' });
      await groupForm.getByLabel('Group name').fill('Ops');
      await groupForm.getByRole('button', { name: 'Create group' }).click();
      await page.getByRole('heading', { name: 'Ops', level: 1 }).waitFor();

      // A second group with the same path is refused, and the form says why.
      await page.goto(`${server!.url}/-/ui/groups/new`);
      await page.getByLabel('Group name').fill('Ops');
      await page.getByRole('button', { name: 'Create group' }).click();
      await page.getByRole('alert').filter({ hasText: /taken/ }).waitFor();
      await page.screenshot({ path: screenshotPath('forms-group-error.png'), fullPage: true });

      // Subgroup from the group page.
      await page.goto(`${server!.url}/groups/ops`);
      await page.getByRole('link', { name: 'New subgroup' }).click();
      expect(await page.getByLabel('Parent group').inputValue()).not.toBe('');
      await page.getByLabel('Group name').fill('Oncall');
      await page.getByRole('button', { name: 'Create group' }).click();
      await page.getByRole('heading', { name: 'Oncall', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/groups/ops/oncall');

      // Group member.
      const members = page.getByRole('region', { name: 'Members' });
      await members.getByLabel('Username').fill('carol');
      await members.getByLabel('Role', { exact: true }).selectOption('30');
      await members.getByRole('button', { name: 'Add member' }).click();
      await members.getByText('Carol was added as Developer.').waitFor();
      await page.screenshot({ path: screenshotPath('forms-group-members.png'), fullPage: true });

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Groups' }).click();
      await page.getByRole('list', { name: 'Groups' }).getByRole('link', { name: 'Oncall' }).waitFor();
      await page.screenshot({ path: screenshotPath('forms-groups.png'), fullPage: true });

      // A personal project, then a project member: add, change the role, remove.
      await page.goto(`${server!.url}/-/ui/projects/new`);
      await page.getByLabel('Project name').fill('Side Project');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.getByRole('heading', { name: 'Side Project', level: 1 }).waitFor();
      await page.getByRole('tab', { name: 'Members' }).click();
      const projectMembers = page.getByRole('region', { name: 'Members' });
      await projectMembers.getByLabel('Username').fill('@carol');
      await projectMembers.getByRole('button', { name: 'Add member' }).click();
      await projectMembers.getByText('Carol was added as Developer.').waitFor();
      await projectMembers.getByLabel('Role of carol').selectOption('40');
      await projectMembers.getByText('Carol is now Maintainer.').waitFor();
      await page.screenshot({ path: screenshotPath('forms-project-members.png'), fullPage: true });
      await projectMembers.getByRole('button', { name: 'Remove carol' }).click();
      await projectMembers.getByText('Carol was removed.').waitFor();
      // An unknown user is named.
      await projectMembers.getByLabel('Username').fill('nobody-here');
      await projectMembers.getByRole('button', { name: 'Add member' }).click();
      await projectMembers.getByText('No user with the username "nobody-here".').waitFor();
    });
    const sub = await api('GET', `/groups/${encodeURIComponent('ops/oncall')}`);
    expect(sub.body).toMatchObject({ name: 'Oncall', full_path: 'ops/oncall' });
    const groupMembers = await api('GET', `/groups/${sub.body.id}/members`);
    expect(groupMembers.body.map((m: { username: string }) => m.username)).toContain('carol');
    const project = await api('GET', `/projects/${encodeURIComponent('root/side-project')}`);
    expect(project.status).toBe(200);
    const projectMembers = await api('GET', `/projects/${project.body.id}/members`);
    expect(projectMembers.body.map((m: { username: string }) => m.username)).not.toContain('carol');
  });

  it('admin Users page: create, grant and revoke admin, block and unblock', async () => {
    await signedIn('admin-users', async (page) => {
      await page.getByRole('link', { name: 'Admin area' }).click();
      await page.getByRole('navigation', { name: 'Admin area' }).getByRole('link', { name: 'Users' }).click();
      await page.getByRole('button', { name: 'New user' }).click();
      const form = page.getByRole('form', { name: 'New user' });
      await form.getByLabel('Name', { exact: true }).fill('Dave');
      await form.getByLabel('Username').fill('dave');
      await form.getByLabel('Email').fill('dave@example.com');
      await form.getByLabel('Password').fill('dave-password-1');
      await form.getByRole('button', { name: 'Create user' }).click();
      await page.getByText('User @dave created.').waitFor();
      expect(await page.getByRole('button', { name: 'Block root' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Make admin dave' }).click();
      await page.getByText('@dave is now an administrator.').waitFor();
      await page.getByRole('button', { name: 'Block dave' }).click();
      await page.getByText('@dave is blocked').waitFor();
      await page.screenshot({ path: screenshotPath('admin-users.png'), fullPage: true });
      const dave = (await api('GET', '/users?username=dave')).body[0];
      expect(dave).toMatchObject({ state: 'blocked', is_admin: true });
      await page.getByRole('button', { name: 'Unblock dave' }).click();
      await page.getByText('@dave is unblocked.').waitFor();
      await page.getByRole('button', { name: 'Revoke admin from dave' }).click();
      await page.getByText('@dave is no longer an administrator.').waitFor();
    });
    expect((await api('GET', '/users?username=dave')).body[0]).toMatchObject({
      state: 'active',
      is_admin: false,
    });
  });

  it('Access tokens page: create with scopes and expiry (shown once), use, revoke', async () => {
    let token = '';
    await signedIn('tokens', async (page) => {
      await page.getByRole('link', { name: 'Access tokens' }).click();
      const form = page.getByRole('form', { name: 'New token' });
      await form.getByLabel('Token name').fill('reader');
      await form.getByLabel('api', { exact: true }).uncheck();
      await form.getByLabel('read_api').check();
      await form.getByLabel('Expiration date').fill('2099-12-31');
      await form.getByRole('button', { name: 'Create token' }).click();
      const shown = page.getByRole('textbox', { name: 'New personal access token' });
      await shown.waitFor();
      token = await shown.inputValue();
      const row = page.getByRole('row', { name: /reader/ });
      await row.getByText('read_api').waitFor();
      await row.getByText('2099-12-31').waitFor();
      await page.screenshot({ path: screenshotPath('tokens.png'), fullPage: true });
      expect((await api('GET', '/user', undefined, token)).status).toBe(200);
      // Shown once: a reload lists the token without its value.
      await page.reload();
      await page.getByRole('row', { name: /reader/ }).waitFor();
      expect(await page.getByRole('textbox', { name: 'New personal access token' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Revoke reader' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
      await page.getByText('Token "reader" revoked.').waitFor();
    });
    expect(token).toMatch(/^svcpat-/);
    expect((await api('GET', '/user', undefined, token)).status).toBe(401);
  });

  it('Features page: on for the instance, or for one project', async () => {
    const project = await api('POST', '/projects', { name: 'Flagged' });
    await signedIn('features', async (page) => {
      await page.goto(`${server!.url}/-/ui/admin/features`);
      const row = page.getByRole('row', { name: /integrated_error_tracking/ });
      await row.getByText('Off (default)').waitFor();
      await row.getByRole('button', { name: 'Turn integrated_error_tracking on for the instance' }).click();
      await row.getByText('On for the instance').waitFor();
      const form = page.getByRole('form', { name: 'Set a flag for one project' });
      await form.getByLabel('Flag').fill('generic_alert_fingerprinting');
      await form.getByLabel('Project').fill('root/flagged');
      await form.getByLabel('Value').selectOption('false');
      await form.getByRole('button', { name: 'Set for project' }).click();
      await page.getByText('generic_alert_fingerprinting is now off for project root/flagged.').waitFor();
      // An unknown project is refused, and said so.
      await form.getByLabel('Project').fill('root/none');
      await form.getByRole('button', { name: 'Set for project' }).click();
      await page.getByRole('alert').filter({ hasText: '404 Project Not Found' }).waitFor();
      await page.screenshot({ path: screenshotPath('admin-features.png'), fullPage: true });
    });
    const flags = (await api('GET', '/features')).body as { name: string; state: string }[];
    expect(flags.find((f) => f.name === 'integrated_error_tracking')?.state).toBe('on');
    expect(project.status).toBe(201);
    expect(flags.find((f) => f.name === 'generic_alert_fingerprinting')).toBeDefined();
  });

  it('Settings page: every setting, saved; invalid values shown and nothing changed', async () => {
    const before = (await api('GET', '/application/settings')).body;
    await signedIn('settings', async (page) => {
      await page.goto(`${server!.url}/-/ui/admin/settings`);
      const form = page.getByRole('form', { name: 'Application settings' });
      await form.getByLabel('Error retention (days)').waitFor();
      const shown = await form.innerText();
      // GitLab's older name of a setting is shown by the API only; the form edits the new one.
      const edited = Object.keys(before).filter(
        (k) => k !== 'id' && k !== 'allow_local_requests_from_hooks_and_services',
      );
      for (const key of edited) expect(shown, key).toContain(key);
      await form.getByLabel('Error retention (days)').fill('30');
      await form.getByLabel('Sign-up enabled').setChecked(!before.signup_enabled);
      await form.getByRole('button', { name: 'Save changes' }).click();
      await form.getByText('Application settings saved.').waitFor();
      await form.getByLabel('Alerts per Alertmanager payload').fill('5000');
      await form.getByLabel('Error retention (days)').fill('0');
      await form.getByRole('button', { name: 'Save changes' }).click();
      const error = form.getByRole('alert');
      await error.waitFor();
      expect(await error.innerText()).toContain('must be an integer from 1 to 1000');
      await page.screenshot({ path: screenshotPath('admin-settings.png'), fullPage: true });
    });
    const after = (await api('GET', '/application/settings')).body;
    expect(after).toMatchObject({
      error_tracking_retention_days: 30,
      signup_enabled: !before.signup_enabled,
      incident_management_notification_max_alerts: before.incident_management_notification_max_alerts,
    });
  });

  it('only administrators get the integrated_error_tracking switch on the error tracking settings', async () => {
    // The instance-wide flag was turned on above: turn it off again for this test.
    await api('POST', '/features/integrated_error_tracking', { value: false });
    const created = await api('POST', '/projects', { name: 'Carol App' });
    await api('POST', `/projects/${created.body.id}/members`, { user_id: 2, access_level: 40 });
    await withPage(browser!, server!, 'et-non-admin', async (page) => {
      await page.getByLabel('Username or email').fill('carol');
      await page.getByLabel('Password').fill('carol-pass-1');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: 'Carol App' }).click();
      await page.getByRole('tab', { name: 'Settings' }).click();
      const et = page.getByRole('region', { name: 'Error tracking' });
      const form = et.getByRole('form', { name: 'Error tracking settings' });
      await form.getByLabel('Active').check();
      await form.getByLabel('Integrated').check();
      await form.getByRole('button', { name: 'Save error tracking settings' }).click();
      await form.getByRole('alert').filter({ hasText: 'integrated_error_tracking' }).waitFor();
      expect(await et.getByRole('region', { name: 'Integrated error tracking feature flag' }).count()).toBe(
        0,
      );
    });
    // The refused save stored nothing: the project still has no settings (GitLab's 404).
    expect(await api('GET', `/projects/${created.body.id}/error_tracking/settings`)).toMatchObject({
      status: 404,
      body: { message: '404 Error Tracking Setting Not Found' },
    });
  });
});
