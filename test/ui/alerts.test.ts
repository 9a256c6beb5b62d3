import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { startTestServer } from '../helpers/server.js';

const PROJECT_NAME = 'Alerting UI';
const INTEGRATION_NAME = 'Ops webhook';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Opens the project's Settings tab and waits for the alert settings. */
async function openSettings(page: Page, projectName: string): Promise<Locator> {
  await page.getByRole('link', { name: projectName, exact: true }).click();
  await page.getByRole('tab', { name: 'Settings' }).click();
  const panel = page.getByRole('tabpanel', { name: 'Settings' });
  await panel.getByRole('heading', { name: 'Alerts', level: 3 }).waitFor();
  return panel;
}

describe('alert management UI (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let projectId: number;
  // Read from the View credentials tab in the first test, used by the later ones.
  let notifyUrl = '';
  let notifyKey = '';

  const api = async (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${server!.url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': server!.rootToken, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const notify = async (url: string, key: string, payload: unknown): Promise<Response> =>
    fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
    });

  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_TIER: 'premium' } });
    const response = await api('POST', '/projects', { name: PROJECT_NAME });
    expect(response.status).toBe(201);
    projectId = ((await response.json()) as { id: number }).id;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const withPage = (name: string, body: (page: Page) => Promise<void>): Promise<void> =>
    withSignedInPage(browser!, server!, `alerts-${name}`, body);

  const integrationsTable = (page: Page): Locator =>
    page.getByRole('region', { name: 'Integrations' }).getByRole('table');

  it('creates an HTTP integration, shows its credentials, and sends test alerts', async () => {
    await withPage('integration', async (page) => {
      await openSettings(page, PROJECT_NAME);
      await page.getByText('No integrations yet.').waitFor();

      await page.getByRole('button', { name: 'Add integration' }).click();
      const form = page.getByRole('form', { name: 'Add integration' });
      // The API URL field is only there for Prometheus and the on-call link.
      await form.getByLabel('Type').selectOption({ label: 'Prometheus' });
      await form.getByLabel('API URL').waitFor();
      await form.getByLabel('Type').selectOption({ label: 'HTTP endpoint' });
      expect(await form.getByLabel('API URL').count()).toBe(0);
      await form.getByLabel('Name').fill(INTEGRATION_NAME);
      expect(await form.getByLabel('Active').isChecked()).toBe(true);
      await page.screenshot({ path: screenshotPath('alerts-add-integration.png'), fullPage: true });
      await form.getByRole('button', { name: 'Save integration' }).click();

      await page.getByText(`Integration "${INTEGRATION_NAME}" created.`).waitFor();
      const row = integrationsTable(page).getByRole('row').filter({ hasText: INTEGRATION_NAME });
      await row.getByRole('cell', { name: 'Enabled' }).waitFor();
      expect(await row.getByRole('cell').allInnerTexts()).toEqual([
        INTEGRATION_NAME,
        'HTTP endpoint',
        'Enabled',
        'Close',
      ]);

      // View credentials: the notify URL and the key, with copy buttons.
      await page.getByRole('tab', { name: 'View credentials' }).click();
      const credentials = page.getByRole('tabpanel', { name: 'View credentials' });
      notifyUrl = await credentials.getByLabel('Webhook URL', { exact: true }).inputValue();
      notifyKey = await credentials.getByLabel('Authorization key', { exact: true }).inputValue();
      expect(notifyUrl).toMatch(
        new RegExp(`^${server!.url}/root/alerting-ui/alerts/notify/ops-webhook/[a-z0-9]+\\.json$`),
      );
      expect(notifyKey).toMatch(/^[0-9a-f]{32}$/);
      await credentials.getByRole('button', { name: 'Copy webhook URL' }).waitFor();
      await credentials.getByRole('button', { name: 'Copy authorization key' }).waitFor();
      await page.screenshot({ path: screenshotPath('alerts-credentials.png'), fullPage: true });

      // Send test alert: a valid payload creates an alert and names it.
      await page.getByRole('tab', { name: 'Send test alert' }).click();
      const testPanel = page.getByRole('tabpanel', { name: 'Send test alert' });
      const payload = testPanel.getByLabel('Alert test payload (JSON)');
      await payload.fill(JSON.stringify({ title: 'UI test alert', severity: 'low' }));
      await testPanel.getByRole('button', { name: 'Send' }).click();
      const sent = testPanel.getByRole('status').filter({ hasText: 'Test alert sent' });
      await sent.waitFor();
      expect(await sent.innerText()).toContain('#1 UI test alert');
      await page.screenshot({ path: screenshotPath('alerts-test-sent.png'), fullPage: true });

      // Invalid JSON goes to the server as text and its 400 message is shown.
      await payload.fill('{"title": "broken",');
      await testPanel.getByRole('button', { name: 'Send' }).click();
      const error = testPanel.getByRole('alert');
      await error.waitFor();
      expect(await error.innerText()).toContain('400 Bad request - The payload is not valid JSON');
      expect(await testPanel.getByText('Test alert sent').count()).toBe(0);
      await page.screenshot({ path: screenshotPath('alerts-test-error.png'), fullPage: true });
    });
  });

  it('lists alerts with counts, opens one, and changes its status', async () => {
    expect(notifyUrl).not.toBe('');
    const alert = { title: 'Disk full', severity: 'high', fingerprint: 'disk-1' };
    for (let i = 0; i < 2; i++) {
      const response = await notify(notifyUrl, notifyKey, alert);
      expect(response.status).toBe(200);
    }

    await withPage('alerts', async (page) => {
      await page.getByRole('link', { name: PROJECT_NAME, exact: true }).click();
      const panel = page.getByRole('tabpanel', { name: 'Alerts' });
      const row = panel.getByRole('row').filter({ has: page.getByRole('link', { name: 'Disk full' }) });
      await row.waitFor();
      // The first cell holds the row's selection checkbox.
      const cells = await row.getByRole('cell').allInnerTexts();
      expect(cells[1]).toBe('High');
      expect(cells[4]).toBe('2'); // two posts with one fingerprint are one alert with two events
      expect(cells[5]).toBe('Triggered');
      // The test alert from the settings page is listed as well.
      await panel.getByRole('link', { name: 'UI test alert' }).waitFor();

      const tabs = panel.getByRole('tablist', { name: 'Alert status' }).getByRole('tab');
      await panel.getByRole('tab', { name: 'All 2' }).waitFor();
      expect(await tabs.allInnerTexts()).toEqual([
        'All 2',
        'Open 2',
        'Triggered 2',
        'Acknowledged 0',
        'Resolved 0',
        'Ignored 0',
      ]);
      // Search narrows the list on the server.
      await panel.getByRole('searchbox', { name: 'Search alerts' }).fill('disk');
      await panel.getByRole('button', { name: 'Search' }).click();
      await panel.getByRole('link', { name: 'UI test alert' }).waitFor({ state: 'detached' });
      await panel.getByRole('link', { name: 'Disk full' }).waitFor();
      await page.screenshot({ path: screenshotPath('alerts-list.png'), fullPage: true });

      await panel.getByRole('link', { name: 'Disk full' }).click();
      await page.waitForURL(`**/-/ui/projects/${projectId}/alerts/2`);
      await page.getByRole('heading', { name: 'Disk full', level: 1 }).waitFor();
      const details = page.getByRole('region', { name: 'Alert details' });
      const detailsText = await details.innerText();
      expect(detailsText).toMatch(/Events\s+2/);
      expect(detailsText).toMatch(/Severity\s+High/);
      expect(detailsText).toMatch(/Fingerprint\s+[0-9a-f]{40}/);
      const payloadText = await page
        .getByRole('region', { name: 'Alert payload' })
        .locator('pre')
        .innerText();
      expect(JSON.parse(payloadText)).toEqual(alert);

      const notes = page.getByRole('list', { name: 'Notes' });
      await notes.getByText(`logged an alert from ${INTEGRATION_NAME}`).waitFor();
      await page.getByRole('button', { name: 'Acknowledge', exact: true }).click();
      const note = notes.getByRole('listitem').filter({ hasText: 'changed the status to Acknowledged' });
      await note.waitFor();
      // The Markdown bold is rendered as <strong>, not as literal asterisks.
      expect(await note.locator('strong').innerText()).toBe('Acknowledged');
      expect(await note.innerText()).not.toContain('**');
      await page.getByText('Status changed to Acknowledged.').waitFor();
      // Acknowledged: the button gives way to the other actions.
      await page.getByRole('button', { name: 'Resolve', exact: true }).waitFor();
      expect(await page.getByRole('button', { name: 'Acknowledge', exact: true }).count()).toBe(0);
      await page.screenshot({ path: screenshotPath('alerts-details.png'), fullPage: true });

      // Back in the list, the counts follow.
      await page
        .getByRole('navigation', { name: 'Breadcrumbs' })
        .getByRole('link', { name: 'Alerts' })
        .click();
      await page.getByRole('tab', { name: 'Acknowledged 1' }).click();
      const acknowledged = page.getByRole('tabpanel', { name: 'Alerts' });
      await acknowledged.getByRole('link', { name: 'Disk full' }).waitFor();
      expect(await acknowledged.getByRole('link', { name: 'UI test alert' }).count()).toBe(0);
      await page.getByRole('tab', { name: 'Open 2' }).click();
      await acknowledged.getByRole('link', { name: 'UI test alert' }).waitFor();
      await acknowledged.getByRole('link', { name: 'Disk full' }).waitFor();
    });
  });

  it('shows Alertmanager annotations, an incident link, and pages through many alerts', async () => {
    expect(
      (await api('PUT', `/projects/${projectId}/alert_management/settings`, { create_incident: true }))
        .status,
    ).toBe(200);
    const created = await api('POST', `/projects/${projectId}/alert_management/integrations`, {
      name: 'Prometheus',
      type: 'prometheus',
      active: true,
      api_url: 'http://prometheus.invalid',
    });
    expect(created.status).toBe(201);
    const prometheus = (await created.json()) as { url: string; authorization_key: string };
    const webhook = {
      version: '4',
      status: 'firing',
      receiver: 'svc',
      groupKey: '{}:{alertname="HighCPU"}',
      groupLabels: { alertname: 'HighCPU' },
      commonLabels: {},
      commonAnnotations: {},
      externalURL: 'http://alertmanager.invalid',
      alerts: [
        {
          status: 'firing',
          labels: { alertname: 'HighCPU', severity: 'critical', instance: 'web-1' },
          annotations: {
            title: 'CPU is high',
            summary: 'CPU above 90%',
            description: 'web-1 is busy',
            runbook: 'https://runbooks.invalid/cpu',
            dashboard: 'https://grafana.invalid/d/cpu',
            owner: '<b>team-a</b>',
          },
          startsAt: '2026-01-01T00:00:00Z',
          generatorURL: 'http://prometheus.invalid/graph',
        },
      ],
    };
    expect((await notify(prometheus.url, prometheus.authorization_key, webhook)).status).toBe(200);
    // Enough alerts for a second page (20 per page).
    for (let i = 0; i < 20; i++) {
      const response = await notify(notifyUrl, notifyKey, { title: `Bulk ${i}`, fingerprint: `bulk-${i}` });
      expect(response.status).toBe(200);
    }

    await withPage('alertmanager', async (page) => {
      await page.goto(`${server!.url}/-/ui/projects/${projectId}/alerts/3`);
      await page.getByRole('heading', { name: 'CPU is high', level: 1 }).waitFor();
      const annotations = page.getByRole('region', { name: 'Annotations' });
      const annotationText = await annotations.innerText();
      expect(annotationText).toContain('dashboard');
      expect(annotationText).toContain('https://grafana.invalid/d/cpu');
      // Payload text is shown as text, never as HTML.
      expect(annotationText).toContain('<b>team-a</b>');
      expect(annotationText).not.toContain('summary');
      expect(annotationText).not.toContain('runbook');
      const details = page.getByRole('region', { name: 'Alert details' });
      expect(await details.getByRole('link', { name: 'https://runbooks.invalid/cpu' }).count()).toBe(1);
      expect(await details.innerText()).toMatch(/Monitoring tool\s+Prometheus/);
      await page.screenshot({ path: screenshotPath('alerts-alertmanager.png'), fullPage: true });

      const incident = details.getByRole('link', { name: /^Incident #\d+$/ });
      await incident.click();
      await page.getByRole('heading', { name: 'CPU is high', level: 1 }).waitFor();
      await page.getByText('Incident #', { exact: false }).first().waitFor();
      await page.goBack();

      await page.goto(`${server!.url}/-/ui/projects/${projectId}`);
      const panel = page.getByRole('tabpanel', { name: 'Alerts' });
      await panel.getByRole('tab', { name: 'All 23' }).waitFor();
      const pagination = panel.getByRole('navigation', { name: 'Pagination' });
      await pagination.getByText('Showing 1–20 of 23').waitFor();
      expect(await pagination.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
      await pagination.getByRole('button', { name: 'Next' }).click();
      await pagination.getByText('Showing 21–23 of 23').waitFor();
      expect(await pagination.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
      await page.screenshot({ path: screenshotPath('alerts-page2.png'), fullPage: true });
      await pagination.getByRole('button', { name: 'Previous' }).click();
      await pagination.getByText('Showing 1–20 of 23').waitFor();

      // Sorting by events puts the alert with two events first.
      await panel.getByRole('button', { name: 'Events' }).click();
      await panel
        .getByRole('columnheader', { name: 'Events' })
        .and(page.locator('[aria-sort="descending"]'))
        .waitFor();
      const firstRow = panel.getByRole('row').nth(1);
      await firstRow.getByRole('link', { name: 'Disk full' }).waitFor();
    });
  });

  it('maps custom payload fields, saves alert settings, resets the key and deletes an integration', async () => {
    await withPage('configure', async (page) => {
      await openSettings(page, PROJECT_NAME);
      await integrationsTable(page)
        .getByRole('button', { name: `Edit ${INTEGRATION_NAME}` })
        .click();
      const configure = page.getByRole('tabpanel', { name: 'Configure' });
      await configure
        .getByLabel('Sample payload (JSON)')
        .fill(JSON.stringify({ alert: { name: 'Queue stuck', at: '2026-01-01T00:00:00Z', hosts: ['q1'] } }));
      await configure.getByRole('button', { name: 'Parse payload fields' }).click();
      await page.getByText('Sample payload saved. Map its fields below.').waitFor();
      await configure
        .getByLabel('Payload field for Title')
        .locator('option', { hasText: 'alert/name' })
        .waitFor({ state: 'attached' });
      const titleOptions = await configure
        .getByLabel('Payload field for Title')
        .locator('option')
        .allInnerTexts();
      expect(titleOptions).toContain('alert/name (string) = Queue stuck');
      // Start time takes datetimes only; the name is not offered there.
      const startOptions = await configure
        .getByLabel('Payload field for Start time')
        .locator('option')
        .allInnerTexts();
      expect(startOptions).toEqual(['Default (not mapped)', 'alert/at (datetime) = 2026-01-01T00:00:00Z']);
      // Option values are the key paths as JSON.
      await configure.getByLabel('Payload field for Title').selectOption(JSON.stringify(['alert', 'name']));
      await configure
        .getByLabel('Payload field for Start time')
        .selectOption(JSON.stringify(['alert', 'at']));
      await configure.getByLabel('Payload field for Hosts').selectOption(JSON.stringify(['alert', 'hosts']));
      await page.screenshot({ path: screenshotPath('alerts-mapping.png'), fullPage: true });
      await configure.getByRole('button', { name: 'Save integration' }).click();
      await page.getByText('Integration saved.').waitFor();

      const integrations = (await (
        await api('GET', `/projects/${projectId}/alert_management/integrations`)
      ).json()) as {
        name: string;
        payload_attribute_mapping: Record<string, { path: unknown[]; type: string }>;
      }[];
      const mapping = integrations.find((i) => i.name === INTEGRATION_NAME)!.payload_attribute_mapping;
      expect(mapping.title).toMatchObject({ path: ['alert', 'name'], type: 'string' });
      expect(mapping.start_time).toMatchObject({ path: ['alert', 'at'], type: 'datetime' });
      expect(mapping.hosts).toMatchObject({ path: ['alert', 'hosts'], type: 'array' });
      // The mapping stays selected after the save.
      expect(await configure.getByLabel('Payload field for Title').inputValue()).toBe(
        JSON.stringify(['alert', 'name']),
      );

      // Alert settings.
      const settings = page.getByRole('form', { name: 'Alert settings' });
      const create = settings.getByLabel('Create an incident for each alert');
      expect(await create.isChecked()).toBe(true); // set through the API in the previous test
      await create.uncheck();
      await settings.getByLabel('Close the incident automatically on recovery').uncheck();
      await settings.getByLabel('Send an e-mail to Owners and Maintainers for each new alert').check();
      await settings.getByRole('button', { name: 'Save alert settings' }).click();
      await settings.getByText('Alert settings saved.').waitFor();
      const saved = await (await api('GET', `/projects/${projectId}/alert_management/settings`)).json();
      expect(saved).toEqual({
        create_incident: false,
        auto_close_incident: false,
        send_email: true,
        auto_resolve_alerts: true,
      });

      // Reset key asks first; cancelling keeps the key.
      await page.getByRole('tab', { name: 'View credentials' }).click();
      const credentials = page.getByRole('tabpanel', { name: 'View credentials' });
      await credentials.getByRole('button', { name: 'Reset key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Reset authorization key?' });
      await dialog.waitFor();
      await page.screenshot({ path: screenshotPath('alerts-reset-dialog.png'), fullPage: true });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await credentials.getByLabel('Authorization key', { exact: true }).inputValue()).toBe(notifyKey);
      await credentials.getByRole('button', { name: 'Reset key' }).click();
      await dialog.getByRole('button', { name: 'Reset key' }).click();
      await page.getByText('A new authorization key was generated.').waitFor();
      const newKey = await credentials.getByLabel('Authorization key', { exact: true }).inputValue();
      expect(newKey).toMatch(/^[0-9a-f]{32}$/);
      expect(newKey).not.toBe(notifyKey);
      const refused = await notify(notifyUrl, notifyKey, { title: 'old key' });
      expect([401, 403]).toContain(refused.status);

      // Delete the Prometheus integration.
      await integrationsTable(page).getByRole('button', { name: 'Edit Prometheus' }).click();
      await page.getByRole('button', { name: 'Delete integration' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete integration?' });
      await confirm.getByRole('button', { name: 'Delete integration' }).click();
      await page.getByText('Integration "Prometheus" deleted.').waitFor();
      // Its row has two such cells (name and type) until the list reloads: wait until none is left.
      await integrationsTable(page)
        .getByRole('cell', { name: 'Prometheus', exact: true })
        .first()
        .waitFor({ state: 'detached' });
      await page.screenshot({ path: screenshotPath('alerts-settings.png'), fullPage: true });
    });
  });
});

describe('alert management UI on the Free tier (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_TIER: 'free' } });
    const response = await fetch(`${server.url}/api/v4/projects`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': server.rootToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Free Tier' }),
    });
    expect(response.status).toBe(201);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows the tier errors from the server and changes nothing', async () => {
    await withSignedInPage(browser!, server!, 'alerts-free-tier', async (page) => {
      await openSettings(page, 'Free Tier');
      await page.getByRole('button', { name: 'Add integration' }).click();
      const form = page.getByRole('form', { name: 'Add integration' });
      await form.getByLabel('Type').selectOption({ label: 'On-call tool link' });
      await form.getByLabel('Name').fill('Pager');
      await form.getByLabel('API URL').fill('https://oncall.invalid/schedule');
      await form.getByRole('button', { name: 'Save integration' }).click();
      const refused = form.getByRole('alert');
      await refused.waitFor();
      expect(await refused.innerText()).toContain('needs the Premium or Ultimate tier');
      await page.screenshot({ path: screenshotPath('alerts-free-tier.png'), fullPage: true });

      // An HTTP endpoint is fine; a custom sample payload is refused with the server's message.
      await form.getByLabel('Type').selectOption({ label: 'HTTP endpoint' });
      await form.getByLabel('Name').fill('Webhook');
      await form.getByRole('button', { name: 'Save integration' }).click();
      await page.getByText('Integration "Webhook" created.').waitFor();
      await page.getByRole('tab', { name: 'Configure' }).click();
      const configure = page.getByRole('tabpanel', { name: 'Configure' });
      await configure.getByLabel('Sample payload (JSON)').fill('{"a": "b"}');
      await configure.getByRole('button', { name: 'Parse payload fields' }).click();
      const mappingRefused = configure.getByRole('alert');
      await mappingRefused.waitFor();
      expect(await mappingRefused.innerText()).toContain('needs the Premium or Ultimate tier');
      // Saving the name alone works, because the unchanged payload parts are not sent.
      await configure.getByLabel('Sample payload (JSON)').fill('{}');
      await configure.getByLabel('Name').fill('Webhook 2');
      await configure.getByRole('button', { name: 'Save integration' }).click();
      await page.getByText('Integration saved.').waitFor();
      await page
        .getByRole('region', { name: 'Integrations' })
        .getByRole('cell', { name: 'Webhook 2', exact: true })
        .waitFor();
    });
  });
});
