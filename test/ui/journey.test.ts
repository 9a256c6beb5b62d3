import { spawn } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withPage } from '../helpers/browser.js';
import { databases } from '../helpers/databases.js';
import { SENTRY_DIR } from '../helpers/sentry.js';
import { startTestServer } from '../helpers/server.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Runs the real @sentry/node in its own process (test/e2e/sentry/node-send.mjs) against `dsn`. */
function sendWithSentryNode(dsn: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['node-send.mjs', '@sentry/node', dsn, '7'], {
      cwd: SENTRY_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += String(d);
    });
    child.stderr.on('data', (d) => {
      output += String(d);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** What the clipboard holds after clicking the copy button `label`. */
async function copyFromPage(page: Page, label: string): Promise<string> {
  const button = page.getByRole('button', { name: label, exact: true });
  await button.click();
  // The button itself says "Copied" once the clipboard holds the text.
  await button.filter({ hasText: 'Copied' }).waitFor();
  return (await page.evaluate('navigator.clipboard.readText()')) as string;
}

/**
 * A newcomer's whole first hour through the UI only: sign in as root; create a group and a project in
 * it; create an HTTP integration and copy its URL and key; an alert sent there shows up and opens; integrated error
 * tracking is switched on by the admin on the settings page; an exception sent with the real @sentry/node to the
 * DSN copied from the page shows up in the errors list and opens.
 */
describe.each(await databases())('newcomer journey through the UI (Chromium, %s)', (database) => {
  let server: Server | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    // Self-managed (the default): integrated error tracking needs the admin's feature flag.
    server = await startTestServer({ database });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('from sign-in to a first alert and a first error', async () => {
    await withPage(
      browser!,
      server!,
      'journey',
      async (page) => {
        await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server!.url });
        await page.getByLabel('Username or email').fill('root');
        await page.getByLabel('Password').fill(server!.rootPassword);
        await page.getByRole('button', { name: 'Sign in' }).click();

        // The empty projects page leads to New project; first a group.
        await page.getByRole('heading', { name: 'Projects' }).waitFor();
        await page.getByRole('link', { name: 'New group' }).click();
        const groupForm = page.getByRole('form', { name: 'New group' });
        await groupForm.getByLabel('Group name').fill('Shop Team');
        await page.screenshot({ path: screenshotPath('journey-new-group.png'), fullPage: true });
        await groupForm.getByRole('button', { name: 'Create group' }).click();
        await page.getByRole('heading', { name: 'Shop Team', level: 1 }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/groups/shop-team');

        await page.getByRole('link', { name: 'New project' }).click();
        const projectForm = page.getByRole('form', { name: 'New project' });
        await projectForm.getByLabel('Project name').fill('Web Store');
        expect(await projectForm.getByLabel('Namespace').inputValue()).not.toBe('');
        await page.screenshot({ path: screenshotPath('journey-new-project.png'), fullPage: true });
        await projectForm.getByRole('button', { name: 'Create project' }).click();
        await page.getByRole('heading', { name: 'Web Store', level: 1 }).waitFor();
        await page.getByText('shop-team/web-store').first().waitFor();

        // Settings > Alerts: an HTTP endpoint; its URL and key are on the page.
        await page.getByRole('tab', { name: 'Settings' }).click();
        const settings = page.getByRole('tabpanel', { name: 'Settings' });
        await settings.getByRole('button', { name: 'Add integration' }).click();
        const add = settings.getByRole('form', { name: 'Add integration' });
        await add.getByLabel('Name').fill('Uptime checks');
        await add.getByRole('button', { name: 'Save integration' }).click();
        await settings.getByText('Integration "Uptime checks" created.').waitFor();
        const url = await copyFromPage(page, 'Copy webhook URL');
        const key = await copyFromPage(page, 'Copy authorization key');
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/shop-team\/web-store\/alerts\/notify\/.+\.json$/);
        expect(key.length).toBeGreaterThan(10);
        await page.screenshot({ path: screenshotPath('journey-integration.png'), fullPage: true });

        const sent = await fetch(url, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ title: 'Checkout is down', severity: 'critical', fingerprint: 'checkout' }),
        });
        expect(sent.status).toBe(200);

        await page.getByRole('tab', { name: 'Alerts' }).click();
        await page.getByRole('link', { name: 'Checkout is down' }).click();
        await page.getByRole('heading', { name: 'Checkout is down', level: 1 }).waitFor();
        await page.getByRole('button', { name: 'Acknowledge', exact: true }).click();
        await page.getByText('Status changed to Acknowledged.').waitFor();
        await page.getByLabel('Comment', { exact: true }).fill('On it: rolling back the last deploy.');
        await page.getByRole('button', { name: 'Comment', exact: true }).click();
        const notes = page.getByRole('list', { name: 'Notes' });
        await notes.getByText('On it: rolling back the last deploy.').waitFor();
        await notes.getByText('changed the status to Acknowledged').waitFor();
        await page.screenshot({ path: screenshotPath('journey-alert.png'), fullPage: true });

        // Error tracking: the admin gets the feature flag switch in place of the refusal.
        await page.getByRole('link', { name: 'Web Store' }).first().click();
        await page.getByRole('tab', { name: 'Settings' }).click();
        const et = page.getByRole('region', { name: 'Error tracking' });
        const etForm = et.getByRole('form', { name: 'Error tracking settings' });
        await etForm.getByLabel('Active').check();
        await etForm.getByLabel('Integrated').check();
        await etForm.getByRole('button', { name: 'Save error tracking settings' }).click();
        const flagSwitch = et.getByRole('region', { name: 'Integrated error tracking feature flag' });
        await flagSwitch.waitFor();
        await page.screenshot({ path: screenshotPath('journey-flag-switch.png'), fullPage: true });
        await flagSwitch.getByRole('button', { name: 'Turn on for this project and save' }).click();
        await et.getByText('Error tracking settings saved.').waitFor();
        await et.getByRole('textbox', { name: 'Data Source Name (DSN)' }).waitFor();
        const dsn = await copyFromPage(page, 'Copy DSN');
        expect(dsn).toMatch(/^http:\/\/[^@]+@127\.0\.0\.1:\d+\/api\/v4\/error_tracking\/collector\/\d+$/);
        await page.screenshot({ path: screenshotPath('journey-dsn.png'), fullPage: true });

        const run = await sendWithSentryNode(dsn);
        expect(run.code, run.output).toBe(0);
        expect(run.output).toContain('"status":200');

        await page.getByRole('tab', { name: 'Error tracking' }).click();
        const errorLink = page.getByRole('link', { name: /division by zero/ }).first();
        // The list loads once; a reload shows what arrived meanwhile.
        for (let i = 0; i < 50 && (await errorLink.count()) === 0; i++) {
          await page.reload();
          await page.getByRole('heading', { name: 'Errors' }).waitFor();
        }
        await errorLink.click();
        await page.getByText('RangeError').first().waitFor();
        const chart = page.getByRole('region', { name: 'Events over time' });
        await chart.locator('figure[data-total="1"]').waitFor();
        expect(await chart.locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
        await page.screenshot({ path: screenshotPath('journey-error.png'), fullPage: true });
        await page
          .getByRole('region', { name: 'Latest events' })
          .getByRole('link', { name: /^Event / })
          .click();
        await page.getByRole('heading', { name: 'Exception' }).waitFor();
        expect(await page.getByRole('region', { name: 'Exception' }).innerText()).toContain(
          'division by zero',
        );
        await page.screenshot({ path: screenshotPath('journey-event.png'), fullPage: true });
      },
      { viewport: { width: 1280, height: 900 } },
    );
  }, 120_000);
});
