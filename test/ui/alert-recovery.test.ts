import { readFileSync } from 'node:fs';
import { createServer, type Server as HttpServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { startTestServer } from '../helpers/server.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** A 1x1 transparent PNG: what the loopback image server answers. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

const grafanaFiring = (): Record<string, any> =>
  JSON.parse(
    readFileSync(new URL('../fixtures/monitoring-tools/grafana-firing.json', import.meta.url), 'utf8'),
  );

describe('alert recovery UI (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let images: HttpServer | undefined;
  let imageUrl = '';
  const imageRequests: IncomingHttpHeaders[] = [];

  const api = async (s: Server, method: string, path: string, body?: unknown) => {
    const r = await fetch(`${s.url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': s.rootToken, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  const notify = (url: string, key: string, payload: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
    });

  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_TIER: 'premium' } });
    images = createServer((req, res) => {
      imageRequests.push(req.headers);
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    });
    await new Promise<void>((resolve) => images!.listen(0, '127.0.0.1', resolve));
    imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/render/panel.png`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((resolve) => images?.close(resolve));
  });

  const openEditor = async (page: Page, projectName: string, integrationName: string) => {
    await page.getByRole('link', { name: projectName, exact: true }).click();
    await page.getByRole('tab', { name: 'Settings' }).click();
    const panel = page.getByRole('tabpanel', { name: 'Settings' });
    await panel.getByRole('heading', { name: 'Alerts', level: 3 }).waitFor();
    await panel.getByRole('button', { name: `Edit ${integrationName}` }).click();
  };

  it('maps a status field with the values that mean resolved, and a recovery then resolves', async () => {
    const s = server!;
    const project = (await api(s, 'POST', '/projects', { name: 'Status mapping' })).body;
    const example = { check: { id: 'db-1', name: 'Database down', state: 'CRITICAL' } };
    const created = await api(s, 'POST', `/projects/${project.id}/alert_management/integrations`, {
      name: 'Checks',
      type: 'http',
      payload_example: JSON.stringify(example),
    });
    expect(created.status).toBe(201);
    await withSignedInPage(browser!, s, 'alert-recovery-mapping', async (page) => {
      await openEditor(page, 'Status mapping', 'Checks');
      const configure = page.getByRole('tabpanel', { name: 'Configure' });
      const status = configure.getByLabel('Payload field for Status');
      await status.locator('option', { hasText: 'check/state' }).waitFor({ state: 'attached' });
      const resolved = configure.getByLabel('Values that mean resolved');
      // Nothing to say which values resolve until a status field is chosen.
      expect(await resolved.isDisabled()).toBe(true);
      await status.selectOption(JSON.stringify(['check', 'state']));
      await configure
        .getByLabel('Payload field for Fingerprint')
        .selectOption(JSON.stringify(['check', 'id']));
      await configure.getByLabel('Payload field for Title').selectOption(JSON.stringify(['check', 'name']));
      await resolved.fill('OK, Recovered');
      await page.screenshot({ path: screenshotPath('alert-recovery-mapping.png'), fullPage: true });
      await configure.getByRole('button', { name: 'Save integration' }).click();
      await page.getByText('Integration saved.').waitFor();
      // Still shown after the save, from what the server stored.
      expect(await configure.getByLabel('Values that mean resolved').inputValue()).toBe('OK, Recovered');
    });
    const saved = (await api(s, 'GET', `/projects/${project.id}/alert_management/integrations`)).body[0];
    expect(saved.payload_attribute_mapping.status).toEqual({
      path: ['check', 'state'],
      type: 'string',
      label: 'check/state',
      resolved_values: ['OK', 'Recovered'],
    });
    await notify(saved.url, saved.authorization_key, example);
    await notify(saved.url, saved.authorization_key, { check: { id: 'db-1', state: 'ok' } });
    const alerts = (await api(s, 'GET', `/projects/${project.id}/alert_management/alerts`)).body;
    expect(alerts.map((a: any) => [a.title, a.status])).toEqual([['Database down', 'resolved']]);
  });

  it("shows Grafana's links, values and panel image on the alert page, and the Alertmanager warning", async () => {
    const s = server!;
    const project = (await api(s, 'POST', '/projects', { name: 'Grafana alerts' })).body;
    const integration = (
      await api(s, 'POST', `/projects/${project.id}/alert_management/integrations`, {
        name: 'Grafana',
        type: 'http',
      })
    ).body;
    const payload = grafanaFiring();
    payload.alerts = [
      {
        ...payload.alerts[0],
        dashboardURL: 'https://grafana.example.com/d/abc/memory',
        panelURL: 'javascript:alert(1)',
        imageURL: imageUrl,
      },
    ];
    expect((await notify(integration.url, integration.authorization_key, payload)).status).toBe(200);
    // An Alertmanager payload on the same endpoint: stored as before, and a warning on the integration.
    const am: Record<string, unknown> = { ...payload, alerts: [{ ...payload.alerts[0] }] };
    delete am.orgId;
    expect((await notify(integration.url, integration.authorization_key, am)).status).toBe(200);

    await withSignedInPage(browser!, s, 'alert-recovery-grafana', async (page) => {
      await page.goto(`${s.url}/-/ui/projects/${project.id}/alerts/1`);
      const section = page.getByRole('region', { name: 'Grafana' });
      await section.waitFor();
      const dashboard = section.getByRole('link', { name: 'Dashboard' });
      expect(await dashboard.getAttribute('href')).toBe('https://grafana.example.com/d/abc/memory');
      expect(await dashboard.getAttribute('rel')).toBe('noopener noreferrer');
      // A javascript: URL is no link.
      expect(await section.getByRole('link', { name: 'Panel', exact: true }).count()).toBe(0);
      expect(await section.getByRole('link', { name: 'Silence' }).getAttribute('href')).toContain(
        'https://play.grafana.org/alerting/silence/new',
      );
      await section.getByText("[ var='B' labels={} value=44.23943737541908 ]", { exact: false }).waitFor();
      await section.getByText('44.23943737541908', { exact: true }).waitFor();
      const image = section.getByRole('img', { name: 'Panel screenshot sent by Grafana' });
      expect(await image.getAttribute('referrerpolicy')).toBe('no-referrer');
      // Loaded (the 1x1 image from the loopback server), not just present.
      await page.waitForFunction("document.querySelector('img.alert-image')?.naturalWidth === 1");
      // The runbook came from annotations.runbook_url, and is not listed again as an extra annotation.
      const details = page.getByRole('region', { name: 'Alert details' });
      await details.getByRole('link', { name: 'https://myrunbook.com/runbook/1234' }).waitFor();
      expect(await page.getByRole('region', { name: 'Annotations' }).count()).toBe(0);
      await page.screenshot({ path: screenshotPath('alert-recovery-grafana.png'), fullPage: true });

      await page.goto(`${s.url}/`);
      await openEditor(page, 'Grafana alerts', 'Grafana');
      const warnings = page.getByRole('list', { name: 'Integration warnings' });
      await warnings.getByText('this looks like an Alertmanager payload', { exact: false }).waitFor();
      await page.screenshot({ path: screenshotPath('alert-recovery-warning.png'), fullPage: true });
    });
    // The image was fetched without telling the image's host which alert page asked.
    expect(imageRequests.length).toBeGreaterThan(0);
    expect(imageRequests.every((h) => h.referer === undefined)).toBe(true);
  });
});

describe('alert recovery UI on the Free tier (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_TIER: 'free' } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('says that without a fingerprint every repeat is a new alert, and suggests one', async () => {
    const s = server!;
    const headers = { 'PRIVATE-TOKEN': s.rootToken, 'Content-Type': 'application/json' };
    const project = (await (
      await fetch(`${s.url}/api/v4/projects`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Free grouping' }),
      })
    ).json()) as { id: number };
    await fetch(`${s.url}/api/v4/projects/${project.id}/alert_management/integrations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Webhook', type: 'http' }),
    });
    await withSignedInPage(browser!, s, 'alert-recovery-free', async (page) => {
      await page.getByRole('link', { name: 'Free grouping', exact: true }).click();
      await page.getByRole('tab', { name: 'Settings' }).click();
      await page.getByRole('button', { name: 'Edit Webhook' }).click();
      const warnings = page.getByRole('list', { name: 'Integration warnings' });
      await warnings.getByText('every notification opens a new alert', { exact: false }).waitFor();
      await warnings.getByText('map a payload field to Fingerprint', { exact: false }).waitFor();
    });
  });
});
