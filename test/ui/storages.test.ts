import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { databases } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';

const ALPHA = 'Storage Alpha';
const BETA = 'Storage Beta';
/** How long a move may take to finish in the background worker (it copies and verifies a real repository). */
const MOVE_TIMEOUT = 30_000;
/** How often the storages page polls the moves list while a move runs (POLL_MS in src/web/src/pages/storages.tsx). */
const POLL_MS = 1500;

/** Counts, in the page, the requests for the moves list it makes from now on (`settledMovesFetches` reads it). */
async function countMovesFetches(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as typeof globalThis & { svcMovesFetches?: number };
    const original = g.fetch;
    g.svcMovesFetches = 0;
    g.fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).includes('repository_storage_moves'))
        g.svcMovesFetches! += 1;
      return original(input, init);
    };
  });
}

/**
 * The moves-list requests the page made, read once the work already queued in the page ran: React renders and
 * runs effects in MessageChannel tasks (which the fake clock leaves real), so a poll that a timer set off has
 * called fetch by the time twenty such tasks in a row have run.
 */
function settledMovesFetches(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const channel = new MessageChannel();
        // The browser's MessagePort (Node's type has no onmessage).
        const port1 = channel.port1 as unknown as { onmessage: (() => void) | null; close(): void };
        let hops = 0;
        port1.onmessage = () => {
          hops += 1;
          if (hops < 20) channel.port2.postMessage(null);
          else {
            port1.close();
            resolve((globalThis as typeof globalThis & { svcMovesFetches?: number }).svcMovesFetches ?? -1);
          }
        };
        channel.port2.postMessage(null);
      }),
  );
}

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Calls the REST API as root with the root token. */
function apiClient(server: () => Server) {
  return async (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${server().url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': server().rootToken, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

/** Goes from the top bar to Admin area > Repository storages, as a user would. */
async function openStorages(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin area' }).click();
  await page
    .getByRole('navigation', { name: 'Admin area' })
    .getByRole('link', { name: 'Repository storages' })
    .click();
  await page.waitForURL('**/-/ui/admin/storages');
  await page.getByRole('heading', { name: 'Repository storages', level: 1 }).waitFor();
  await storagesTable(page).getByRole('rowheader').first().waitFor();
}

const storagesTable = (page: Page): Locator =>
  page.getByRole('region', { name: 'Storages', exact: true }).getByRole('table');

/** The storage's row as `[path, weight hint, projects, snippets, groups]` (the name is the row header). */
function storageCells(page: Page, name: string): Promise<string[]> {
  return storagesTable(page)
    .locator('tbody tr')
    .filter({ has: page.getByRole('rowheader', { name, exact: true }) })
    .getByRole('cell')
    .allInnerTexts();
}

/** Project counts of both storages, as the table shows them. */
async function projectCounts(page: Page): Promise<{ default: string; fast: string }> {
  return { default: (await storageCells(page, 'default'))[2]!, fast: (await storageCells(page, 'fast'))[2]! };
}

const movesRegion = (page: Page): Locator => page.getByRole('region', { name: 'Storage moves', exact: true });

/** The state badge of the listed move of `subject`. */
function moveState(page: Page, subject: string): Locator {
  return movesRegion(page).locator('tbody tr').filter({ hasText: subject }).locator('.status');
}

describe.each(await databases())('repository storages admin UI (Chromium, %s)', (database) => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let storageDir = '';
  const api = apiClient(() => server!);

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'svc-storages-ui-'));
    server = await startTestServer({
      database,
      env: { SVC_STORAGES: `default=${storageDir}/a,fast=${storageDir}/b`, SVC_TIER: 'premium' },
    });
    for (const name of [ALPHA, BETA]) {
      const response = await api('POST', '/projects', { name, repository_storage: 'default' });
      expect(response.status).toBe(201);
    }
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (storageDir !== '') rmSync(storageDir, { recursive: true, force: true });
  });

  const withPage = (name: string, body: (page: Page) => Promise<void>): Promise<void> =>
    withSignedInPage(browser!, server!, `storages-${name}`, body);

  it('lists the storages with their counts and saves a weight of 0 (refusing an invalid one)', async () => {
    await withPage('weights', async (page) => {
      await openStorages(page);
      const headers = await storagesTable(page).getByRole('columnheader').allInnerTexts();
      expect(headers).toEqual(['Storage', 'Path', 'Weight', 'Projects', 'Snippets', 'Groups']);
      const defaultRow = await storageCells(page, 'default');
      expect(defaultRow[0]).toBe(`${storageDir}/a`);
      expect(defaultRow.slice(2)).toEqual(['2', '0', '0']);
      const fastRow = await storageCells(page, 'fast');
      expect(fastRow[0]).toBe(`${storageDir}/b`);
      expect(fastRow.slice(2)).toEqual(['0', '0', '0']);
      const weight = page.getByLabel('Weight of default');
      expect(await weight.inputValue()).toBe('100');
      expect(await page.getByLabel('Weight of fast').inputValue()).toBe('100');
      await page.screenshot({ path: screenshotPath('storages-initial.png'), fullPage: true });

      const form = page.getByRole('form', { name: 'Storage weights' });
      // Out of range: the server's validation message is shown and nothing changes.
      await weight.fill('101');
      await form.getByRole('button', { name: 'Save weights' }).click();
      const refused = form.getByRole('alert');
      await refused.waitFor();
      expect(await refused.innerText()).toContain('weights must be integers from 0 to 100');
      await page.screenshot({ path: screenshotPath('storages-weights-refused.png'), fullPage: true });
      const unchanged = (await (await api('GET', '/application/settings')).json()) as {
        repository_storages_weighted: Record<string, number>;
      };
      expect(unchanged.repository_storages_weighted).toEqual({ default: 100, fast: 100 });

      await weight.fill('0');
      expect(await storageCells(page, 'default')).toContain('receives no new repositories');
      await form.getByRole('button', { name: 'Save weights' }).click();
      await form.getByText('Storage weights saved.').waitFor();
      expect(await form.getByRole('alert').count()).toBe(0);
      expect(await weight.inputValue()).toBe('0');
      const settings = (await (await api('GET', '/application/settings')).json()) as {
        repository_storages_weighted: Record<string, number>;
      };
      expect(settings.repository_storages_weighted).toEqual({ default: 0, fast: 100 });
      await page.screenshot({ path: screenshotPath('storages-weights.png'), fullPage: true });

      // A reload reads the saved weight back from the server.
      await page.reload();
      await page.getByLabel('Weight of default').waitFor();
      expect(await page.getByLabel('Weight of default').inputValue()).toBe('0');
    });
  });

  it('moves one project through the form and follows the move live until it finishes', async () => {
    await withPage('move-project', async (page) => {
      // The page's timers run on a clock the test moves: polling is observed without waiting for it.
      await page.clock.install();
      await countMovesFetches(page);
      await openStorages(page);
      const moves = movesRegion(page);
      await moves.getByText('No project repository storage moves yet.').waitFor();

      const form = page.getByRole('form', { name: 'Move a project' });
      const project = form.getByLabel('Project');
      expect(await project.locator('option').allInnerTexts()).toEqual([
        'Select a project',
        `Administrator / ${ALPHA} (on default)`,
        `Administrator / ${BETA} (on default)`,
      ]);
      await project.selectOption({ label: `Administrator / ${ALPHA} (on default)` });
      expect(await form.innerText()).toContain('Currently on default.');
      await form.getByLabel('Destination storage').selectOption('fast');
      // The job workers are held until the list has been polled a few times with the move still scheduled: the
      // same list again (a 304, the same object in the page) must keep the polling going.
      const { ctx } = server!.server;
      await ctx.jobs.stop();
      await form.getByRole('button', { name: 'Schedule move' }).click();
      await form.getByText(`scheduled: Administrator / ${ALPHA} from default to fast.`).waitFor();

      // The list shows the move at once and follows it through the background job to the end.
      const state = moveState(page, ALPHA);
      await state.waitFor();
      await page.screenshot({ path: screenshotPath('storages-move-running.png'), fullPage: true });
      try {
        for (let i = 0; i < 3; i++) {
          const before = await settledMovesFetches(page);
          await expect
            .poll(async () => {
              await page.clock.runFor(POLL_MS);
              return settledMovesFetches(page);
            })
            .toBeGreaterThan(before);
          expect(await state.innerText()).toBe('Scheduled');
        }
      } finally {
        ctx.jobs.start(1000, ctx.config.jobConcurrency);
      }
      await expect
        .poll(
          async () => {
            await page.clock.runFor(POLL_MS);
            return state.innerText();
          },
          { timeout: MOVE_TIMEOUT, interval: 200 },
        )
        .toBe('Finished');
      const row = await moves
        .locator('tbody tr')
        .filter({ hasText: ALPHA })
        .getByRole('cell')
        .allInnerTexts();
      expect(row.slice(1, 5)).toEqual([`Administrator / ${ALPHA}`, 'default', 'fast', 'Finished']);
      // The counts and the project's storage follow without a reload.
      await expect.poll(() => projectCounts(page)).toEqual({ default: '1', fast: '1' });
      await expect
        .poll(() => project.locator('option:checked').innerText())
        .toBe(`Administrator / ${ALPHA} (on fast)`);
      await page.screenshot({ path: screenshotPath('storages-move-finished.png'), fullPage: true });

      // Nothing runs any more, so the list stops polling: no request over three poll intervals of the page's clock
      // (while a move ran, one interval was enough for one).
      expect(await settledMovesFetches(page)).toBeGreaterThan(1);
      await expect.poll(() => moves.locator('output').innerText()).toBe('');
      const before = await settledMovesFetches(page);
      await page.clock.runFor(3 * POLL_MS);
      expect(await settledMovesFetches(page)).toBe(before);
    });
    const moved = (await (await api('GET', '/projects?per_page=100&order_by=name&sort=asc')).json()) as {
      name: string;
      repository_storage: string;
    }[];
    expect(moved.map((p) => [p.name, p.repository_storage])).toEqual([
      [ALPHA, 'fast'],
      [BETA, 'default'],
    ]);
  });

  it('moves a whole storage after confirming, and the counts follow', async () => {
    await withPage('bulk', async (page) => {
      await openStorages(page);
      const form = page.getByRole('form', { name: 'Move a whole storage' });
      await form.getByLabel('Repositories').selectOption('projects');
      await form.getByLabel('Source storage').selectOption('default');
      expect(await form.getByLabel('Source storage').locator('option:checked').innerText()).toBe(
        'default (1 project)',
      );
      await form.getByLabel('Destination storage').selectOption('fast');
      await form.getByRole('button', { name: 'Schedule moves' }).click();
      const dialog = page.getByRole('dialog', { name: 'Move every project repository?' });
      await dialog.waitFor();
      expect(await dialog.innerText()).toContain(
        'Every project repository on default (1 project now) will be moved to fast.',
      );
      await page.screenshot({ path: screenshotPath('storages-bulk-confirm.png'), fullPage: true });
      await dialog.getByRole('button', { name: 'Schedule moves' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await form.getByText('Moves scheduled for every project repository on default to fast.').waitFor();

      const state = moveState(page, BETA);
      await state.waitFor();
      await expect.poll(() => state.innerText(), { timeout: MOVE_TIMEOUT, interval: 200 }).toBe('Finished');
      await expect.poll(() => projectCounts(page)).toEqual({ default: '0', fast: '2' });
      // Newest first: the bulk move of Beta above the single move of Alpha.
      const subjects = await movesRegion(page).locator('tbody tr td:nth-child(2)').allInnerTexts();
      expect(subjects).toEqual([`Administrator / ${BETA}`, `Administrator / ${ALPHA}`]);
      await page.screenshot({ path: screenshotPath('storages-bulk-finished.png'), fullPage: true });

      // The other kinds have their own lists.
      await movesRegion(page).getByRole('tab', { name: 'Snippets' }).click();
      await movesRegion(page).getByText('No snippet repository storage moves yet.').waitFor();
      await movesRegion(page).getByRole('tab', { name: 'Groups' }).click();
      await movesRegion(page).getByText('No group repository storage moves yet.').waitFor();
    });
  });

  it("shows the server's refusals and changes nothing", async () => {
    await withPage('refusals', async (page) => {
      await openStorages(page);
      const single = page.getByRole('form', { name: 'Move a project' });
      await single.getByLabel('Project').selectOption({ label: `Administrator / ${ALPHA} (on fast)` });
      await single.getByLabel('Destination storage').selectOption('fast');
      await single.getByRole('button', { name: 'Schedule move' }).click();
      const refused = single.getByRole('alert');
      await refused.waitFor();
      expect(await refused.innerText()).toBe('400 Bad request - the repository is already on storage "fast"');

      const bulk = page.getByRole('form', { name: 'Move a whole storage' });
      await bulk.getByLabel('Source storage').selectOption('fast');
      await bulk.getByLabel('Destination storage').selectOption('fast');
      await bulk.getByRole('button', { name: 'Schedule moves' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Schedule moves' }).click();
      const bulkRefused = bulk.getByRole('alert');
      await bulkRefused.waitFor();
      expect(await bulkRefused.innerText()).toContain(
        '400 Bad request - the repository is already on storage',
      );
      await page.screenshot({ path: screenshotPath('storages-refused.png'), fullPage: true });
      expect(await projectCounts(page)).toEqual({ default: '0', fast: '2' });
    });
    const list = (await (await api('GET', '/project_repository_storage_moves')).json()) as unknown[];
    expect(list).toHaveLength(2);
  });
});
