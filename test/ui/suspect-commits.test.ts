import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { createUser } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The error page's suspect commit line, in Chromium: an error whose release is a merge commit names the commit that
 * changed its culprit line, the merge request, its approver, and that the author is on call now.
 */
describe('suspect commit on the error page (Chromium)', () => {
  let server: TestServer;
  let browser: Browser;
  let projectId: number;
  let errorId: number;
  let featureSha: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startTestServer({ env: { SVC_TIER: 'premium', SVC_OFFERING: 'hosted' } }),
      launchChromium(),
    ]);
    const api = http(server.url);
    const alice = await createUser(server, 'alice');
    const bob = await createUser(server, 'bob');
    const root = { token: server.rootToken };
    const project = await api.post<{ id: number; http_url_to_repo: string }>('/api/v4/projects', {
      token: alice.token,
      body: { name: 'storefront' },
    });
    projectId = project.body.id;
    const base = `/api/v4/projects/${projectId}`;
    await api.post(`${base}/members`, { token: alice.token, body: { user_id: bob.id, access_level: 30 } });
    await api.put(`${base}/error_tracking/settings`, { ...root, body: { active: true, integrated: true } });
    const key = (await api.get<{ public_key: string }[]>(`${base}/error_tracking/client_keys`, root))
      .body[0]!;

    const first = await pushCommit(
      authUrl(project.body.http_url_to_repo, 'alice', alice.token),
      'src/cart.js',
      'export function total(items) {\n  return items.reduce((a, b) => a + b.price, 0);\n}\n',
    );
    expect(first.push.code).toBe(0);
    const work = first.dir;
    await git(['checkout', '--quiet', '-b', 'discounts'], work);
    writeFileSync(
      join(work, 'src/cart.js'),
      'export function total(items) {\n  return items.reduce((a, b) => a + b.price * b.discount.rate, 0);\n}\n',
    );
    await git(['add', 'src/cart.js'], work);
    await git(
      [
        '-c',
        'user.name=Alice',
        '-c',
        'user.email=alice@example.com',
        'commit',
        '--quiet',
        '-m',
        'Apply discounts',
      ],
      work,
    );
    featureSha = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    expect((await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/discounts'], work)).code).toBe(0);
    await api.post(`${base}/merge_requests`, {
      token: alice.token,
      body: { source_branch: 'discounts', target_branch: 'main', title: 'Apply discounts' },
    });
    expect((await api.post(`${base}/merge_requests/1/approve`, { token: bob.token })).status).toBe(201);
    const merged = await api.put<{ merge_commit_sha: string }>(`${base}/merge_requests/1/merge`, {
      token: alice.token,
    });
    const schedules = `${base}/incident_management/oncall_schedules`;
    const schedule = await api.post<{ iid: number }>(schedules, {
      token: alice.token,
      body: { name: 'Shop on-call', timezone: 'UTC' },
    });
    await api.post(`${schedules}/${schedule.body.iid}/rotations`, {
      token: alice.token,
      body: {
        name: 'Weekly',
        starts_at: '2020-01-01T00:00',
        length: 1,
        length_unit: 'weeks',
        participants: [{ user_id: alice.id }],
      },
    });

    const sent = await fetch(
      `${server.url}/api/v4/error_tracking/collector/api/${projectId}/store/?sentry_key=${key.public_key}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          event_id: randomBytes(16).toString('hex'),
          platform: 'javascript',
          release: `storefront@${merged.body.merge_commit_sha}`,
          exception: {
            values: [
              {
                type: 'TypeError',
                value: "Cannot read properties of undefined (reading 'rate')",
                stacktrace: {
                  frames: [
                    { abs_path: 'webpack:///./src/cart.js', function: 'total', lineno: 2, in_app: true },
                  ],
                },
              },
            ],
          },
        }),
      },
    );
    expect(sent.status).toBe(200);
    errorId = (await api.get<{ id: number }[]>(`${base}/error_tracking/errors`, root)).body[0]!.id;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows the suspect commit, its merge request, the approver and that the author is on call', async () => {
    for (const [width, height] of [
      [1280, 900],
      [390, 844],
    ] as const) {
      await withSignedInPage(
        browser,
        server,
        `suspect-commit-${width}`,
        async (page) => {
          await page.goto(`${server.url}/-/ui/projects/${projectId}/errors/${errorId}`);
          const section = page.getByRole('region', { name: 'Suspect commits' });
          const line = section.getByTestId('suspect-commit');
          // The line comes whole with the error's answer: once it is there, it says everything.
          await line.waitFor();
          const text = await line.innerText();
          expect(text).toMatch(
            new RegExp(
              `^Suspect commit ${featureSha.slice(0, 8)} Apply discounts by Alice, merge request !1 by @alice, approved by @bob`,
            ),
          );
          expect(text).toMatch(/src\/cart\.js line 2/);
          expect(text).toMatch(/@alice is on call now \(Shop on-call\)/);
          // The links go to svc's pages of the commit, the merge request and the users.
          expect(await section.getByRole('link', { name: '!1' }).getAttribute('href')).toMatch(
            /\/-\/merge_requests\/1$/,
          );
          expect(await section.getByRole('link', { name: '@bob' }).getAttribute('href')).toBe('/bob');
          // Both themes pass axe with the line shown (the theme follows the system's on a fresh load).
          for (const theme of ['dark', 'light'] as const) {
            await page.emulateMedia({ colorScheme: theme });
            await page.reload();
            await line.waitFor();
            expect(await page.evaluate('getComputedStyle(document.documentElement).backgroundColor')).toBe(
              theme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(246, 247, 249)',
            );
            expect(await axeViolations(page)).toEqual([]);
          }
          expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(
            width,
          );
          await page.screenshot({ path: screenshotPath(`suspect-commit-${width}.png`), fullPage: true });
          await section.getByRole('link', { name: '!1' }).click();
          await page.getByRole('heading', { name: 'Apply discounts', level: 1 }).waitFor();
        },
        { width, height },
      );
    }
  });
});
