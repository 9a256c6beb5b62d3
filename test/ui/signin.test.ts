import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withPage } from '../helpers/browser.js';
import { startTestServer } from '../helpers/server.js';

const SCREENSHOT = 'ui.png';
const PROJECT_NAME = 'Shell Test';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe('web UI shell (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let projectId: number;

  beforeAll(async () => {
    server = await startTestServer();
    const response = await fetch(`${server.url}/api/v4/projects`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': server.rootToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: PROJECT_NAME }),
    });
    expect(response.status).toBe(201);
    projectId = ((await response.json()) as { id: number }).id;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signIn(page: Page, login: string, password: string): Promise<void> {
    await page.getByLabel('Username or email').fill(login);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('shows a clear error for a wrong password and stays signed out', async () => {
    await withPage(browser!, server!, 'wrong-password', async (page) => {
      await signIn(page, 'root', `${server!.rootPassword}-wrong`);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('Invalid login or password');
      expect(await page.getByRole('heading', { name: 'Projects' }).count()).toBe(0);
      // The password field is cleared so the user can type it again.
      expect(await page.getByLabel('Password').inputValue()).toBe('');
      await page.screenshot({ path: screenshotPath('ui-signin-error.png') });
    });
  });

  it('signs in as root, lists projects, opens a project with its tabs, and signs out', async () => {
    await withPage(browser!, server!, 'sign-in', async (page) => {
      await signIn(page, 'root', server!.rootPassword);

      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      const projectLink = page.getByRole('link', { name: PROJECT_NAME, exact: true });
      await projectLink.waitFor();
      await page.screenshot({ path: screenshotPath(SCREENSHOT), fullPage: true });

      // The session survives a reload (cookie auth, GET /-/session).
      await page.reload();
      await projectLink.click();
      await page.waitForURL(`**/-/ui/projects/${projectId}`);
      await page.getByRole('heading', { name: PROJECT_NAME, level: 1 }).waitFor();

      const tabs = page.getByRole('tablist', { name: 'Project sections' }).getByRole('tab');
      expect(await tabs.allTextContents()).toEqual([
        'Alerts',
        'Incidents',
        'Error tracking',
        'On-call schedules',
        'Escalation policy',
        'Members',
        'Settings',
      ]);
      expect(await page.getByRole('tab', { name: 'Alerts' }).getAttribute('aria-selected')).toBe('true');
      await page.getByRole('tabpanel', { name: 'Alerts' }).waitFor();

      await page.getByRole('tab', { name: 'Error tracking' }).click();
      await page.getByRole('tabpanel', { name: 'Error tracking' }).waitFor();

      // Keyboard (WAI-ARIA tabs): arrows wrap around, Home and End jump; selection follows focus.
      const expectSelected = async (name: string) => {
        const tab = page.getByRole('tab', { name, exact: true });
        await page.getByRole('tabpanel', { name }).waitFor();
        expect(await tab.getAttribute('aria-selected')).toBe('true');
        expect(await tab.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      };
      await page.getByRole('tab', { name: 'Error tracking' }).press('ArrowRight');
      await expectSelected('On-call schedules');
      await page.keyboard.press('ArrowRight');
      await expectSelected('Escalation policy');
      await page.keyboard.press('ArrowRight');
      await expectSelected('Members');
      await page.keyboard.press('ArrowRight');
      await expectSelected('Settings');
      await page.keyboard.press('ArrowRight');
      await expectSelected('Alerts');
      await page.keyboard.press('ArrowLeft');
      await expectSelected('Settings');
      await page.keyboard.press('Home');
      await expectSelected('Alerts');
      await page.keyboard.press('End');
      await expectSelected('Settings');
      await page.getByRole('tab', { name: 'Error tracking' }).click();

      await page.getByRole('tab', { name: 'Settings' }).click();
      const settings = page.getByRole('tabpanel', { name: 'Settings' });
      await settings.waitFor();
      const settingsText = await settings.textContent();
      expect(settingsText).toContain('Visibility');
      expect(settingsText).toContain('Monitor access level');
      await page.waitForURL(`**/-/ui/projects/${projectId}/settings`);
      await page.screenshot({ path: screenshotPath('ui-project.png'), fullPage: true });

      // Root is an administrator, so the admin area is linked and shows the version and the users.
      await page.getByRole('link', { name: 'Admin area' }).click();
      await page.getByRole('heading', { name: 'Admin area' }).waitFor();
      await page.getByRole('cell', { name: 'root', exact: true }).waitFor();
      expect(await page.getByRole('alert').count()).toBe(0);
      await page.screenshot({ path: screenshotPath('ui-admin.png'), fullPage: true });

      // An API error (here a project that does not exist) is shown, not thrown.
      await page.goto(`${server!.url}/-/ui/projects/999999999`);
      const notFound = page.getByRole('alert');
      await notFound.waitFor();
      expect(await notFound.textContent()).toContain('404');

      // Sign out sends the CSRF token; afterwards a reload shows the sign-in form again.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await page.reload();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
    });
  });
});
