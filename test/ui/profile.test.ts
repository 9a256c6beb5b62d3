import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withPage } from '../helpers/browser.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('the profile page (Chromium)', () => {
  let browser: Browser | null = null;
  let server: TestServer | null = null;

  beforeAll(async () => {
    [browser, server] = await Promise.all([launchChromium(), startTestServer()]);
    const created = await http(server.url).post('/api/v4/users', {
      token: server.rootToken,
      body: { username: 'oncall', name: 'On Call', email: 'oncall@example.com', password: 'first-password' },
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signIn(page: Page, password: string): Promise<void> {
    await page.getByLabel('Username or email').fill('oncall');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
  }

  it('renames the user (the header follows), and changes the password with the current one', async () => {
    const s = server!;
    await withPage(browser!, s, 'profile', async (page) => {
      await signIn(page, 'first-password');
      await page.getByRole('banner').getByRole('link', { name: 'On Call' }).click();
      await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();

      const profile = page.getByRole('form', { name: 'Profile' });
      expect(await profile.getByLabel('E-mail').inputValue()).toBe('oncall@example.com');
      await profile.getByLabel('Full name').fill('Night Shift');
      await profile.getByRole('button', { name: 'Save profile' }).click();
      await profile.getByText('Profile saved.').waitFor();
      await page.getByRole('banner').getByRole('link', { name: 'Night Shift' }).waitFor();

      const password = page.getByRole('form', { name: 'Change password' });
      await password.getByLabel('Current password').fill('wrong-password');
      await password.getByLabel('New password', { exact: true }).fill('second-password');
      await password.getByLabel('Confirm new password').fill('second-password');
      await password.getByRole('button', { name: 'Change password' }).click();
      // The API's field error, as a sentence; the page stays signed in.
      await password.getByRole('alert').getByText('current_password is invalid').waitFor();

      await password.getByLabel('Current password').fill('first-password');
      await password.getByRole('button', { name: 'Change password' }).click();
      await password.getByText('Every other session of yours has been signed out').waitFor();
      await page.screenshot({ path: screenshotPath('ui-profile.png'), fullPage: true });
    });
    // A new browser signs in with the new password only.
    await withPage(browser!, s, 'profile-new-password', async (page) => {
      await signIn(page, 'second-password');
    });
  });
});
