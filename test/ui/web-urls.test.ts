import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
type Json = Record<string, unknown> & { id: number; web_url: string };

/**
 * Every `web_url` the API returns opens a page of the UI, not "Page not found": projects
 * (also with a dot in the path), groups and subgroups, users (also with a dot), personal and project snippets,
 * merge requests and their commits, alerts, incidents; and errors at GitLab's path for them.
 */
describe('every web_url opens a page (Chromium)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  /** kind -> [web_url, text the page must show]. */
  const urls: [string, string, string][] = [];

  const api = async <T = Json>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${server!.url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': server!.rootToken, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text === '' ? null : JSON.parse(text)) as T;
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_OFFERING: 'hosted' } });
    browser = await launchChromium();

    const group = await api('POST', '/groups', { name: 'Platform', path: 'platform' });
    urls.push(['group', group.web_url, 'Platform']);
    const sub = await api('POST', '/groups', { name: 'Payments', path: 'payments', parent_id: group.id });
    urls.push(['subgroup', sub.web_url, 'Payments']);
    const project = await api<Json & { http_url_to_repo: string }>('POST', '/projects', {
      name: 'Billing',
      namespace_id: sub.id,
    });
    urls.push(['project in a subgroup', project.web_url, 'Billing']);
    const dotted = await api('POST', '/projects', { name: 'Docs Site', path: 'docs.site' });
    urls.push(['personal project with a dot', dotted.web_url, 'Docs Site']);
    const user = await api('POST', '/users', {
      name: 'Jane Doe',
      username: 'jane.doe',
      email: 'jane@example.com',
      password: 'jane-password-1',
    });
    urls.push(['user with a dot', user.web_url, 'Jane Doe']);
    const root = await api('GET', '/user');
    urls.push(['user', root.web_url, 'Administrator']);

    const personal = await api('POST', '/snippets', {
      title: 'Handy script',
      file_name: 'run.sh',
      content: 'echo personal-snippet-body',
      visibility: 'private',
    });
    urls.push(['personal snippet', personal.web_url, 'echo personal-snippet-body']);
    const projectSnippet = await api('POST', `/projects/${project.id}/snippets`, {
      title: 'Billing notes',
      file_name: 'notes.md',
      content: 'project-snippet-body',
      visibility: 'private',
    });
    urls.push(['project snippet', projectSnippet.web_url, 'project-snippet-body']);

    // A merge request needs branches: push main and a feature branch with the real git.
    const pushed = await pushCommit(authUrl(project.http_url_to_repo, 'root', server!.rootToken));
    expect(pushed.push.code, pushed.push.stderr).toBe(0);
    const ident = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com'];
    await git(['checkout', '--quiet', '-b', 'feature'], pushed.dir);
    writeFileSync(join(pushed.dir, 'f.txt'), 'feature\n');
    await git(['add', 'f.txt'], pushed.dir);
    await git([...ident, 'commit', '--quiet', '-m', 'Feature'], pushed.dir);
    expect((await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/feature'], pushed.dir)).code).toBe(0);
    const mr = await api('POST', `/projects/${project.id}/merge_requests`, {
      source_branch: 'feature',
      target_branch: 'main',
      title: 'Faster invoices',
    });
    urls.push(['merge request', mr.web_url, 'Faster invoices']);
    const [commit] = await api<Json[]>('GET', `/projects/${project.id}/merge_requests/${mr.iid}/commits`);
    urls.push(['commit', commit!.web_url, 'Commit']);

    // An alert and the incident it opens.
    await api('PUT', `/projects/${project.id}/alert_management/settings`, { create_incident: true });
    const integration = await api<Json & { url: string; authorization_key: string }>(
      'POST',
      `/projects/${project.id}/alert_management/integrations`,
      { name: 'Webhook', type: 'http' },
    );
    const notified = await fetch(integration.url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${integration.authorization_key}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ title: 'Invoices stuck', fingerprint: 'inv' }),
    });
    expect(notified.status).toBe(200);
    const [alert] = await api<Json[]>('GET', `/projects/${project.id}/alert_management/alerts`);
    urls.push(['alert', alert!.web_url, 'Invoices stuck']);
    const incident = await until(
      async () => (await api<Json[]>('GET', `/projects/${project.id}/issues?issue_type=incident`))[0],
      'the incident',
    );
    urls.push(['incident', incident.web_url, 'Invoices stuck']);

    // Errors have no web_url in the API (nor in GitLab's); GitLab's page path for one opens it too.
    await api('PUT', `/projects/${project.id}/error_tracking/settings`, { active: true, integrated: true });
    const [key] = await api<(Json & { public_key: string })[]>(
      'GET',
      `/projects/${project.id}/error_tracking/client_keys`,
    );
    const stored = await fetch(
      `${server!.url}/api/v4/error_tracking/collector/api/${project.id}/store?sentry_key=${key!.public_key}`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          event_id: 'a'.repeat(32),
          platform: 'node',
          exception: { values: [{ type: 'TypeError', value: 'invoice is undefined' }] },
        }),
      },
    );
    expect(stored.status).toBe(200);
    const [error] = await api<Json[]>('GET', `/projects/${project.id}/error_tracking/errors`);
    urls.push([
      'error (GitLab path)',
      `${project.web_url}/-/error_tracking/${error!.id}/details`,
      'invoice is undefined',
    ]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('serves the UI page (HTML) at each web_url, and JSON 404s elsewhere', async () => {
    expect(urls.length).toBe(13);
    for (const [kind, url] of urls) {
      const response = await fetch(url, { headers: { Accept: 'text/html' } });
      expect(response.status, kind).toBe(200);
      expect(response.headers.get('content-type'), kind).toContain('text/html');
    }
    for (const path of ['/assets/missing.js', '/-/nothing', '/api/v4/nothing', '/favicon.ico']) {
      const response = await fetch(`${server!.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toContain('application/json');
    }
  });

  it('opens a real page, not "Page not found", for each web_url', async () => {
    await withSignedInPage(browser!, server!, 'web-urls', async (page) => {
      for (const [kind, url, text] of urls) {
        await page.goto(url);
        await page.getByText(text).first().waitFor();
        expect(await page.getByRole('heading', { name: 'Page not found' }).count(), kind).toBe(0);
        await page.screenshot({
          path: screenshotPath(`web-url-${kind.replace(/\W+/g, '-')}.png`),
          fullPage: true,
        });
      }
      // And a path that names nothing says so (the check above can fail).
      await page.goto(`${server!.url}/platform/no-such-project`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      await page.goto(`${server!.url}/nobody-at-all`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    });
  }, 120_000);
});
