import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withPage, withSignedInPage } from '../helpers/browser.js';
import { authUrl, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

describe('clone URL, rename, change path and delete of projects and groups (Chromium)', () => {
  let browser: Browser | null = null;
  let server: TestServer | null = null;

  beforeAll(async () => {
    [browser, server] = await Promise.all([launchChromium(), startTestServer()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const settingsOf = (page: Page) => page.getByRole('tabpanel', { name: 'Settings' });

  it('shows the clone URL and, while the repository is empty, the first push; the hint goes once pushed', async () => {
    const s = server!;
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Cloneable' } });
    expect(p.status).toBe(201);
    await withSignedInPage(browser!, s, 'clone-url', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${p.body.id}`);
      const url = page.getByLabel('Clone with HTTP');
      expect(await url.inputValue()).toBe(p.body.http_url_to_repo);
      await page.getByText('The repository is empty').click();
      const commands = await page.locator('.empty-repo-hint code').innerText();
      expect(commands).toContain(`git remote add origin ${p.body.http_url_to_repo}`);
      expect(commands).toContain('git push --set-upstream origin main');
      await page.screenshot({ path: screenshotPath('ui-project-clone.png'), fullPage: true });

      // The URL shown is one git really pushes to.
      const { push } = await pushCommit(authUrl(await url.inputValue(), 'root', s.rootToken));
      expect(push.code).toBe(0);
      // svc records what the repository holds once the push has ended, just after git's answer.
      await until(
        async () =>
          (await api.get(`/api/v4/projects/${p.body.id}`, { token: s.rootToken })).body.empty_repo === false,
        'the push recorded',
      );
      await page.reload();
      await url.waitFor();
      expect(await page.getByText('The repository is empty').count()).toBe(0);
    });
  });

  it('renames a project and changes its path (the old path redirects), then deletes it after the typed confirmation', async () => {
    const s = server!;
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Old Name' } });
    await withSignedInPage(browser!, s, 'project-rename', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${p.body.id}/settings`);
      const form = settingsOf(page).getByRole('form', { name: 'Rename project' });
      await form.getByLabel('Project name').fill('New Name');
      await form.getByLabel('Path').fill('new-path');
      await form.getByRole('button', { name: 'Save name and path' }).click();
      await form.getByText('The old path redirects').waitFor();
      await page.getByRole('heading', { name: 'New Name', level: 1 }).waitFor();
      expect(await page.getByLabel('Clone with HTTP').inputValue()).toMatch(/\/root\/new-path\.git$/);
      const old = await api.get(`/api/v4/projects/${encodeURIComponent('root/old-name')}`, {
        token: s.rootToken,
      });
      expect(old.body).toMatchObject({ id: p.body.id, path_with_namespace: 'root/new-path' });

      await settingsOf(page).getByRole('button', { name: 'Delete project' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete root/new-path?' });
      const confirm = dialog.getByRole('button', { name: 'Yes, delete project' });
      expect(await confirm.isDisabled()).toBe(true);
      await dialog.getByLabel('Full path').fill('root/new-pat');
      expect(await confirm.isDisabled()).toBe(true);
      await dialog.getByLabel('Full path').fill('root/new-path');
      await confirm.click();
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    });
    expect((await api.get(`/api/v4/projects/${p.body.id}`, { token: s.rootToken })).status).toBe(404);
  });

  it("shows a Maintainer the API's refusal to delete as a sentence, and deletes nothing", async () => {
    const s = server!;
    const { id, tokens } = await projectWithMembers(s, 'Kept', { maintainer: 40 }, 'ui-ns');
    await withPage(browser!, s, 'project-delete-refused', async (page) => {
      await page.getByLabel('Username or email').fill('maintainer-ui-ns');
      await page.getByLabel('Password').fill('password-123');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      await page.goto(`${s.url}/-/ui/projects/${id}/settings`);
      await settingsOf(page).getByRole('button', { name: 'Delete project' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Full path').fill('root/kept');
      await dialog.getByRole('button', { name: 'Yes, delete project' }).click();
      await dialog.getByRole('alert').getByText('403 Forbidden').waitFor();
    });
    expect((await http(s.url).get(`/api/v4/projects/${id}`, { token: tokens.maintainer! })).status).toBe(200);
  });

  it('renames a group, moves it to a new path (the page follows), and deletes it', async () => {
    const s = server!;
    const api = http(s.url);
    const g = await api.post('/api/v4/groups', { token: s.rootToken, body: { name: 'Ops', path: 'ops' } });
    expect(g.status).toBe(201);
    await withSignedInPage(browser!, s, 'group-rename', async (page) => {
      await page.goto(`${s.url}/groups/ops`);
      const form = page.getByRole('form', { name: 'Rename group' });
      await form.getByLabel('Group name').fill('Operations');
      await form.getByRole('button', { name: 'Save name and path' }).click();
      await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();
      await form.getByLabel('Path').fill('operations');
      await form.getByRole('button', { name: 'Save name and path' }).click();
      await page.waitForURL('**/groups/operations');
      await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();

      await page.getByRole('button', { name: 'Delete group' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete operations?' });
      await dialog.getByLabel('Full path').fill('operations');
      await dialog.getByRole('button', { name: 'Yes, delete group' }).click();
      await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    });
    // The deletion is a job (202, as GitLab's): the group is gone once it ran.
    await until(
      async () => (await api.get(`/api/v4/groups/${g.body.id}`, { token: s.rootToken })).status === 404,
      'the group deleted',
    );
  });
});
