import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { http } from '../helpers/http.js';
import { createSentryProject, type SentryProject, startStaticServer } from '../helpers/sentry.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// The error page shows what users said about the error; the event page links its attachments (downloaded with
// the signed-in session); the settings page sets the attachment limit and shows what was received and not kept.

describe('user feedback, attachments and dropped items in the UI (Chromium)', () => {
  let s: TestServer;
  let browser: Browser;
  let p: SentryProject;
  const eventId = 'c0ffee00c0ffee00c0ffee00c0ffee00';
  let errorId = 0;

  beforeAll(async () => {
    [s, browser] = await Promise.all([
      startTestServer({ env: { SVC_OFFERING: 'hosted' } }),
      launchChromium(),
    ]);
    p = await createSentryProject(s.url, s.rootToken, 'Feedback UI');
    const collector = `${s.url}/api/v4/error_tracking/collector/api/${p.id}`;
    const envelope = [
      JSON.stringify({ event_id: eventId }),
      JSON.stringify({ type: 'event' }),
      JSON.stringify({ exception: { values: [{ type: 'PaymentError', value: 'card declined' }] } }),
      JSON.stringify({ type: 'attachment', filename: 'cart.txt', content_type: 'text/plain' }),
      'three items in the cart',
      JSON.stringify({ type: 'replay_event' }),
      '{}',
    ].join('\n');
    const r = await fetch(`${collector}/envelope/?sentry_key=${p.publicKey}`, {
      method: 'POST',
      body: envelope,
    });
    expect(r.status).toBe(200);
    // The error page form, as showReportDialog posts it.
    const form = await fetch(
      `${s.url}/api/v4/error_tracking/collector/api/embed/error-page/?${new URLSearchParams({ dsn: p.dsn, eventId })}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name: 'Ann', email: 'ann@example.com', comments: 'Pay did nothing' }),
      },
    );
    expect(form.status).toBe(200);
    const errors = await http(s.url).get<{ id: number }[]>(`/api/v4/projects/${p.id}/error_tracking/errors`, {
      token: s.rootToken,
    });
    errorId = errors.body[0]!.id;
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('the error page lists the feedback; its event link leads to the event, whose attachment downloads', async () => {
    await withSignedInPage(browser, s, 'error-feedback', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${p.id}/errors/${errorId}`);
      const section = page.getByRole('region', { name: 'User feedback' });
      await section.getByText('Pay did nothing').waitFor();
      expect(await section.innerText()).toContain('Ann <ann@example.com>');
      await page.screenshot({ path: screenshotPath('error-feedback.png'), fullPage: true });
      await section.getByRole('link', { name: `event ${eventId.slice(0, 8)}` }).click();
      await page.waitForURL(`**/errors/${errorId}/events/${eventId}`);
      const attachments = page.getByRole('region', { name: 'Attachments' });
      const link = attachments.getByRole('link', { name: 'cart.txt' });
      await link.waitFor();
      expect(await attachments.innerText()).toContain('23 B · text/plain');
      await page.screenshot({ path: screenshotPath('error-event-attachments.png'), fullPage: true });
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      expect(download.suggestedFilename()).toBe('cart.txt');
      expect(readFileSync((await download.path())!, 'utf8')).toBe('three items in the cart');
    });
  });

  it("showReportDialog's script shows the form on any site and posts it back (a script tag, as the SDK adds it)", async () => {
    // The shop's page, on another origin than svc's.
    const shop = await startStaticServer({
      '/': { type: 'text/html', body: '<!doctype html><title>shop</title><body><h1>Shop</h1></body>' },
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => problems.push(m.text()));
      await page.goto(`${shop.url}/`);
      // What @sentry/browser's showReportDialog({ eventId, user }) injects: the DSN unencoded, as the SDK writes it.
      const src = `${s.url}/api/v4/error_tracking/collector/api/embed/error-page/?dsn=${p.dsn}&eventId=${eventId}&name=${encodeURIComponent('Bo <b>')}&title=${encodeURIComponent('<i>Oops</i>')}`;
      await page.evaluate(
        `(() => { const s = document.createElement('script'); s.src = ${JSON.stringify(src)}; document.body.appendChild(s); })()`,
      );
      const dialog = page.getByRole('dialog', { name: 'Report a problem' });
      await dialog.waitFor({ timeout: 10_000 }).catch((err: Error) => {
        throw new Error(`${err.message}\n${problems.join('\n')}`);
      });
      // Query values are text, never markup.
      expect(await dialog.getByRole('heading').innerText()).toBe('<i>Oops</i>');
      expect(await dialog.getByLabel('Name').inputValue()).toBe('Bo <b>');
      await dialog.getByLabel('Email').fill('bo@example.com');
      await dialog.getByLabel('What happened?').fill('The dialog works');
      await dialog.getByRole('button', { name: 'Submit Crash Report' }).click();
      await dialog.getByText('Your feedback has been sent. Thank you!').waitFor();
      await page.screenshot({ path: screenshotPath('error-report-dialog.png') });
    } finally {
      await context.close();
      await shop.close();
    }
    const feedback = await http(s.url).get<{ comments: string; name: string; source: string }[]>(
      `/api/v4/projects/${p.id}/error_tracking/errors/${errorId}/feedback`,
      { token: s.rootToken },
    );
    expect(feedback.body).toContainEqual(
      expect.objectContaining({ comments: 'The dialog works', name: 'Bo <b>', source: 'error_page' }),
    );
  });

  it('the settings page sets the attachment limit and counts what was not kept', async () => {
    await withSignedInPage(browser, s, 'error-dropped', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${p.id}/settings`);
      const section = page.getByRole('region', { name: 'Error tracking' });
      const dropped = section.getByRole('region', { name: 'Received and not kept' });
      await dropped.getByRole('cell', { name: 'replay_event' }).waitFor();
      const limit = section.getByLabel('Largest attachment (KB)');
      expect(await limit.inputValue()).toBe('1024');
      // The browser refuses a size out of range before anything is sent.
      await limit.fill('0');
      await section.getByRole('button', { name: 'Save error tracking settings' }).click();
      expect(await limit.evaluate((e: { validity: { valid: boolean } }) => e.validity.valid)).toBe(false);
      await limit.fill('64');
      await section.getByRole('button', { name: 'Save error tracking settings' }).click();
      await section.getByText('Error tracking settings saved.').waitFor();
      await page.screenshot({ path: screenshotPath('error-tracking-dropped.png'), fullPage: true });
      const saved = await http(s.url).get<{ max_attachment_size: number }>(
        `/api/v4/projects/${p.id}/error_tracking/settings`,
        { token: s.rootToken },
      );
      expect(saved.body.max_attachment_size).toBe(64 * 1024);
    });
  });
});
