import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { launchChromium, screenshotPath, withPage } from '../helpers/browser.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver } from '../helpers/smtp.js';
import { until } from '../helpers/until.js';

/** A page's acknowledge link opened on a phone (390 px wide), signed out: look, press once, refused the second time. */
describe('acknowledge link page (Chromium, 390 px)', () => {
  let s: TestServer | undefined;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>> | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    s = await startTestServer({ env: { SVC_TIER: 'premium', SVC_SMTP_URL: smtp.url } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await smtp?.close();
  });

  it('shows the alert and a button that works without JavaScript or signing in, once', async () => {
    const api = http(s!.url);
    const token = s!.rootToken;
    const p = await api.post('/api/v4/projects', { token, body: { name: 'phone' } });
    const policy = await api.post(`/api/v4/projects/${p.body.id}/incident_management/escalation_policies`, {
      token,
      body: { name: 'Wake', rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'root' }] },
    });
    expect(policy.status).toBe(201);
    const integration = await createIntegration(api, token, p.body.id, { name: 'http', type: 'http' });
    const title = 'Payments failing for every card issued in the last seven days';
    expect((await notify(integration.url, integration.authorization_key, { title })).status).toBe(200);
    const mail = await until(async () => {
      await s!.server.ctx.jobs.drain();
      return smtp!.messages.find((m) => m.subject.includes('Paged:')) ?? null;
    }, 'the page e-mail');
    const link = /https?:\/\/[^\s"<>]+\/-\/acknowledge\/[\w-]+/.exec(mail.text)![0];
    const alertUrl = `/api/v4/projects/${p.body.id}/alert_management/alerts/1`;

    await withPage(
      browser!,
      s!,
      'acknowledge-link',
      async (page) => {
        await page.goto(link);
        await page.getByRole('heading', { name: 'Acknowledge this page?' }).waitFor();
        expect(await page.getByText(title).count()).toBe(1);
        expect(await page.getByText(`Alert #1`).count()).toBe(1);
        // Nothing wider than the phone, and the button is on screen.
        const width = await page.evaluate<number>('document.documentElement.scrollWidth');
        expect(width).toBeLessThanOrEqual(390);
        const box = await page.getByRole('button', { name: 'Acknowledge' }).boundingBox();
        expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
        await page.screenshot({ path: screenshotPath('acknowledge-link.png'), fullPage: true });
        // Looking changed nothing.
        expect((await api.get(alertUrl, { token })).body.status).toBe('triggered');

        await page.getByRole('button', { name: 'Acknowledge' }).click();
        await page.getByRole('heading', { name: 'Acknowledged' }).waitFor();
        expect((await api.get(alertUrl, { token })).body.status).toBe('acknowledged');

        // The same link again: used.
        const again = await page.goto(link);
        expect(again?.status()).toBe(410);
        await page.getByRole('heading', { name: 'Link already used' }).waitFor();
      },
      { viewport: { width: 390, height: 844 } },
    );
  });
});
