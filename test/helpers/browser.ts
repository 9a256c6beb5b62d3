import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AxeResults } from 'axe-core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import type { TestServer } from './server.js';

/** Where a screenshot called `name` goes: this run's screenshot directory (test/setup/screenshots.ts). */
export function screenshotPath(name: string): string {
  const dir = inject('screenshotDir');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

/** Debian's chromium package; playwright-core never downloads a browser of its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface PageOptions {
  /** Sign in as root through the form before `body` runs. */
  readonly signIn?: boolean;
  readonly viewport?: { width: number; height: number };
}

/**
 * Runs `body` in a fresh browser context on the server's start page (no cookie carries over between tests);
 * page errors fail the test. On failure it saves `failure-<name>.png` in the run's screenshot directory and adds the page's visible
 * text to the error, so a red run says what the user saw.
 */
export async function withPage(
  browser: Browser,
  server: Pick<TestServer, 'url' | 'rootPassword'>,
  name: string,
  body: (page: Page) => Promise<void>,
  opts: PageOptions = {},
): Promise<void> {
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1200, height: 900 } });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  try {
    await page.goto(`${server.url}/`);
    if (opts.signIn) {
      await page.getByLabel('Username or email').fill('root');
      await page.getByLabel('Password').fill(server.rootPassword);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    }
    await body(page);
    expect(pageErrors).toEqual([]);
  } catch (err) {
    const shot = screenshotPath(`failure-${name}.png`);
    await page.screenshot({ path: shot, fullPage: true }).catch(() => undefined);
    const text = await page
      .locator('body')
      .innerText({ timeout: 1000 })
      .catch(() => '(unreadable)');
    if (err instanceof Error) {
      err.message += `\nURL: ${page.url()}\nPage errors: ${pageErrors.join(' | ') || 'none'}\nScreenshot: ${shot}\nPage text:\n${text}`;
    }
    throw err;
  } finally {
    await context.close();
  }
}

/** `withPage`, signed in as root. */
export function withSignedInPage(
  browser: Browser,
  server: Pick<TestServer, 'url' | 'rootPassword'>,
  name: string,
  body: (page: Page) => Promise<void>,
  viewport?: PageOptions['viewport'],
): Promise<void> {
  return withPage(browser, server, name, body, { signIn: true, viewport });
}

/** axe-core's bundle, injected into pages by `axeViolations`. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One accessibility rule the page breaks, with the elements that break it. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  readonly targets: readonly string[];
}

/**
 * Runs axe-core (all its default WCAG A/AA and best-practice rules) on the page as it is and returns the serious
 * and critical violations. The source goes in through the DevTools protocol, which the UI's CSP does not block.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as AxeResults;
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact!,
      help: v.help,
      targets: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`.slice(0, 300)),
    }));
}
