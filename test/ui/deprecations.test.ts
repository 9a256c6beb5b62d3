import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { startTestServer } from '../helpers/server.js';

const USERS_PAGINATION = 'Offset pagination on the /users REST endpoint';
const SHARED_RUNNERS_TOKEN = 'Environment variable SVC_SHARED_RUNNERS_REGISTRATION_TOKEN';
/** The items of the spec's "REST API v4 to v5 changes" table (versioning-deprecations.md), in its order. */
const V5_TITLES = [
  'geo_nodes endpoints',
  'merged_by field of the merge request API',
  'merge_status field of the merge request API',
  'private_profile attribute of the user API',
  'Endpoint for the changes of a single merge request',
  'Managed licenses endpoint (all managed licenses of a project)',
  'approvers and approval_groups fields in the merge request approval configuration endpoint',
  'Runner property active',
  'Runner status values',
  'Runner ip_address',
];

/** The deprecations table needs the width. */
const WIDE = { width: 1280, height: 900 };

type Server = Awaited<ReturnType<typeof startTestServer>>;

interface Entry {
  id: string;
  title: string;
  area: string;
  removal: string | null;
  breaking: boolean;
  enforced: boolean;
  applies: boolean;
  replacement: string | null;
}

interface Catalog {
  instance_release: string;
  deprecations: Entry[];
}

/** GET a JSON resource of the REST API as root. */
async function apiGet<T>(server: Server, path: string): Promise<T> {
  const response = await fetch(`${server.url}/api/v4${path}`, {
    headers: { 'PRIVATE-TOKEN': server.rootToken },
  });
  expect(response.status, `GET ${path}`).toBe(200);
  return (await response.json()) as T;
}

/** From the top bar to Admin area > Deprecations, as a user would. */
async function openDeprecations(page: Page, release: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin area' }).click();
  await page.getByRole('heading', { name: 'Admin area', level: 1 }).waitFor();
  await page
    .getByRole('navigation', { name: 'Admin area' })
    .getByRole('link', { name: 'Deprecations' })
    .click();
  await page.waitForURL('**/-/ui/admin/deprecations');
  await page.getByRole('heading', { name: 'Deprecations', level: 1 }).waitFor();
  await page.getByRole('heading', { name: `This instance runs release ${release}` }).waitFor();
}

const catalogRegion = (page: Page): Locator => page.getByRole('region', { name: 'Catalog', exact: true });

/** The data rows of the table (the expandable details rows are left out). */
const dataRows = (page: Page): Locator => catalogRegion(page).locator('tbody tr.dep-row');

/** The row of the entry titled `title`. */
const rowOf = (page: Page, title: string): Locator =>
  dataRows(page).filter({ has: page.getByRole('button', { name: title, exact: true }) });

/** The titles of the rows shown, sorted (the UI groups by removal; the API lists in catalog order). */
async function shownTitles(page: Page): Promise<string[]> {
  return (await dataRows(page).locator('th .disclosure-label').allInnerTexts()).map((t) => t.trim()).sort();
}

const sorted = (entries: readonly Entry[]): string[] => entries.map((d) => d.title).sort();

/** The number of a summary card, by its label. */
function stat(page: Page, label: string): Promise<string> {
  return page.locator('.stat').filter({ hasText: label }).locator('.stat-value').innerText();
}

/** The headings of the removal groups shown, in page order. */
function groupHeadings(page: Page): Promise<string[]> {
  return catalogRegion(page).locator('.dep-group h3').allInnerTexts();
}

/** The details row a disclosure button controls. */
async function detailsOf(page: Page, toggle: Locator): Promise<Locator> {
  const id = await toggle.getAttribute('aria-controls');
  expect(id).toBeTruthy();
  return page.locator(`[id="${id}"]`);
}

const resultCount = (page: Page): Promise<string> => catalogRegion(page).locator('output').innerText();

describe('deprecations admin UI (Chromium, release 17.0)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let catalog: Catalog;

  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_RELEASE: '17.0' } });
    catalog = await apiGet<Catalog>(server, '/deprecations');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const withWidePage = (name: string, body: (page: Page) => Promise<void>): Promise<void> =>
    withSignedInPage(browser!, server!, `deprecations-${name}`, body, WIDE);

  it('shows the release, the counts, and what is in force and enforced', async () => {
    const version = await apiGet<{ version: string; release: string }>(server!, '/version');
    expect(version.release).toBe('17.0');
    expect(catalog.instance_release).toBe('17.0');
    await withWidePage('overview', async (page) => {
      // The admin Overview lists users with keyset pagination: offset pagination on /users is removed in 17.0.
      const usersRequests: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/api/v4/users') usersRequests.push(request.url());
      });
      await openDeprecations(page, '17.0');
      expect(usersRequests.length).toBeGreaterThan(0);
      for (const url of usersRequests) expect(new URL(url).searchParams.get('pagination')).toBe('keyset');
      await page.goBack();
      await page
        .getByRole('region', { name: 'Users' })
        .getByRole('cell', { name: 'root', exact: true })
        .waitFor();
      expect(await page.getByRole('region', { name: 'Users' }).getByRole('alert').count()).toBe(0);
      await page.goForward();
      await page.getByRole('heading', { name: 'This instance runs release 17.0' }).waitFor();
      expect(
        await page
          .getByRole('navigation', { name: 'Admin area' })
          .getByRole('link', { name: 'Deprecations' })
          .getAttribute('aria-current'),
      ).toBe('page');

      // The counts are the API's.
      const all = catalog.deprecations;
      expect(await stat(page, 'In force now')).toBe(String(all.filter((d) => d.applies).length));
      expect(await stat(page, 'Upcoming')).toBe(
        String(all.filter((d) => d.removal !== null && /^\d+\.\d+$/.test(d.removal) && !d.applies).length),
      );
      expect(await stat(page, 'v5 API changes')).toBe(String(V5_TITLES.length));
      expect(await resultCount(page)).toBe(`Showing ${all.length} of ${all.length} deprecations`);
      expect(await shownTitles(page)).toEqual(sorted(all));
      // Grouped by removal: releases oldest first, then the v5 API, then what has no removal release.
      expect(await groupHeadings(page)).toEqual([
        'Removed in 16.0',
        'Removed in 17.0',
        'Removal in 18.0',
        'REST API v5',
        'No removal scheduled',
      ]);

      // Removed in 17.0 and enforced: svc refuses offset pagination on /users at this release.
      const users = rowOf(page, USERS_PAGINATION);
      expect(await users.getByRole('cell').allInnerTexts()).toEqual([
        'REST API',
        '16.5',
        '17.0',
        'Breaking\nIn force\nEnforced by svc',
      ]);
      const removed17 = page.getByRole('region', { name: 'Removed in 17.0' });
      expect(await removed17.getByRole('button', { name: USERS_PAGINATION, exact: true }).count()).toBe(1);

      // An 18.0 removal is listed (and enforced by svc when the time comes) but not in force at 17.0.
      const token = rowOf(page, SHARED_RUNNERS_TOKEN);
      const tokenStatus = await token.getByRole('cell').last().innerText();
      expect(tokenStatus).not.toContain('In force');
      expect(tokenStatus).toContain('Enforced by svc');
      expect(tokenStatus).toContain('Breaking');
      const upcoming = page.getByRole('region', { name: 'Removal in 18.0' });
      expect(await upcoming.getByRole('button', { name: SHARED_RUNNERS_TOKEN, exact: true }).count()).toBe(1);
      expect(await upcoming.innerText()).toContain('Not in force yet');
      expect(await upcoming.getByText('In force', { exact: true }).count()).toBe(0);
      // Nothing in the v5 group is in force: it concerns /api/v5 only.
      expect(
        await page
          .getByRole('region', { name: 'REST API v5' })
          .getByText('In force', { exact: true })
          .count(),
      ).toBe(0);
      await page.screenshot({ path: screenshotPath('deprecations-overview.png'), fullPage: true });
      await page.getByRole('heading', { name: 'This instance runs release 17.0' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath('deprecations-top.png') });
    });
  });

  it('filters by breaking, area, removal and text, and says when nothing matches', async () => {
    await withWidePage('filters', async (page) => {
      await openDeprecations(page, '17.0');
      const all = catalog.deprecations;

      // Breaking only: the same entries as the API's own filter.
      await page.getByRole('checkbox', { name: 'Breaking only' }).check();
      const breaking = await apiGet<Catalog>(server!, '/deprecations?breaking=true');
      expect(breaking.deprecations.length).toBeLessThan(all.length);
      await expect.poll(() => shownTitles(page)).toEqual(sorted(breaking.deprecations));
      expect(await resultCount(page)).toBe(
        `Showing ${breaking.deprecations.length} of ${all.length} deprecations`,
      );
      expect(await shownTitles(page)).not.toContain('Runner legacy shell escaping and quoting');

      // Area REST API, still breaking only.
      const area = catalogRegion(page).getByLabel('Area');
      const areaOptions = await area.locator('option').allInnerTexts();
      expect(areaOptions[0]).toBe('All areas');
      expect(areaOptions).toContain('REST API');
      expect(areaOptions.length).toBe(new Set(all.map((d) => d.area)).size + 1);
      await area.selectOption('api');
      const breakingApi = await apiGet<Catalog>(server!, '/deprecations?breaking=true&area=api');
      await expect.poll(() => shownTitles(page)).toEqual(sorted(breakingApi.deprecations));
      expect(await shownTitles(page)).toContain(USERS_PAGINATION);
      expect(await shownTitles(page)).not.toContain('geo_nodes endpoints');
      await page.screenshot({ path: screenshotPath('deprecations-breaking-api.png'), fullPage: true });

      // Removal 17.0 within that: the entries the API lists for release=17.0 that are removed in 17.0 itself.
      await catalogRegion(page).getByRole('radio', { name: '17.0' }).check();
      const upTo17 = await apiGet<Catalog>(server!, '/deprecations?release=17.0&breaking=true&area=api');
      await expect
        .poll(() => shownTitles(page))
        .toEqual(sorted(upTo17.deprecations.filter((d) => d.removal === '17.0')));
      expect(await groupHeadings(page)).toEqual(['Removed in 17.0']);

      // Removal v5 API, every area, breaking or not: exactly the spec's v4-to-v5 table.
      await catalogRegion(page).getByRole('radio', { name: 'v5 API' }).check();
      await area.selectOption('');
      await page.getByRole('checkbox', { name: 'Breaking only' }).uncheck();
      await expect.poll(() => shownTitles(page)).toEqual([...V5_TITLES].sort());
      expect(await groupHeadings(page)).toEqual(['REST API v5']);
      expect(
        await dataRows(page)
          .locator('td:nth-child(4)')
          .allInnerTexts()
          .then((cells) => [...new Set(cells)]),
      ).toEqual(['v5 API']);
      await page.screenshot({ path: screenshotPath('deprecations-v5.png'), fullPage: true });

      // Text search narrows the v5 rows to the runner ones (title or change).
      await catalogRegion(page).getByRole('searchbox', { name: 'Search deprecations' }).fill('runner');
      await expect
        .poll(() => shownTitles(page))
        .toEqual(['Runner ip_address', 'Runner property active', 'Runner status values']);

      // The filters live in the URL: a reload keeps them.
      expect(new URL(page.url()).search).toBe('?removal=v5&q=runner');
      await page.reload();
      await page.getByRole('heading', { name: 'This instance runs release 17.0' }).waitFor();
      expect(await shownTitles(page)).toEqual([
        'Runner ip_address',
        'Runner property active',
        'Runner status values',
      ]);
      expect(await catalogRegion(page).getByRole('radio', { name: 'v5 API' }).isChecked()).toBe(true);

      // Nothing matches: a clear empty state, and one click brings everything back.
      await catalogRegion(page)
        .getByRole('searchbox', { name: 'Search deprecations' })
        .fill('no such deprecation');
      await catalogRegion(page).getByText('No deprecations match these filters.').waitFor();
      expect(await dataRows(page).count()).toBe(0);
      expect(await resultCount(page)).toBe(`Showing 0 of ${all.length} deprecations`);
      await page.screenshot({ path: screenshotPath('deprecations-empty.png'), fullPage: true });
      await catalogRegion(page).getByRole('button', { name: 'Clear filters' }).click();
      await expect.poll(() => dataRows(page).count()).toBe(all.length);
      expect(new URL(page.url()).search).toBe('');
      expect(await catalogRegion(page).getByRole('radio', { name: 'All' }).isChecked()).toBe(true);
    });
  });

  it('expands a row to show what changes and the replacement', async () => {
    await withWidePage('expand', async (page) => {
      await openDeprecations(page, '17.0');
      const geo = catalog.deprecations.find((d) => d.title === 'geo_nodes endpoints')!;
      expect(geo.replacement).not.toBeNull();
      const toggle = catalogRegion(page).getByRole('button', { name: 'geo_nodes endpoints', exact: true });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      const details = await detailsOf(page, toggle);
      expect(await details.isVisible()).toBe(false);

      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      await details.waitFor();
      const text = await details.innerText();
      expect(text).toContain('Replacement');
      expect(text).toContain(geo.replacement!);
      expect(text).toContain('geo_sites endpoints');
      expect(text).toContain('What changes');
      expect(text).toContain('geo_nodes_api');
      expect(text).toContain('REST API v4 to v5 changes');

      // The users pagination entry too: its replacement is keyset pagination.
      const users = catalogRegion(page).getByRole('button', { name: USERS_PAGINATION, exact: true });
      await users.click();
      const usersDetails = await detailsOf(page, users);
      expect(await usersDetails.innerText()).toContain('keyset pagination');
      await users.scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath('deprecations-expanded.png') });

      // Collapsing hides the details again.
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      await details.waitFor({ state: 'hidden' });
    });
  });
});

describe('deprecations admin UI (Chromium, release 16.11)', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_RELEASE: '16.11' } });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('follows the instance release: the 17.0 removals are upcoming, not in force', async () => {
    const catalog = await apiGet<Catalog>(server!, '/deprecations');
    expect(catalog.instance_release).toBe('16.11');
    await withSignedInPage(browser!, server!, 'deprecations-release-16-11', async (page) => {
      await openDeprecations(page, '16.11');
      const all = catalog.deprecations;
      expect(await stat(page, 'In force now')).toBe(String(all.filter((d) => d.applies).length));
      expect(await groupHeadings(page)).toEqual([
        'Removed in 16.0',
        'Removal in 17.0',
        'Removal in 18.0',
        'REST API v5',
        'No removal scheduled',
      ]);
      const status = await rowOf(page, USERS_PAGINATION).getByRole('cell').last().innerText();
      expect(status).not.toContain('In force');
      expect(status).toContain('Enforced by svc');
      await page.screenshot({ path: screenshotPath('deprecations-16.11.png') });
    });
  });
});
