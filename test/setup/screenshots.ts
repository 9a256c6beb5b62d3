import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * One directory per run for the UI tests' screenshots (created by the first screenshot; see
 * test/helpers/browser.ts), so that runs never overwrite or mix each other's pictures. The run names it at the end.
 */
export function setup(project: TestProject): () => void {
  const dir = join(
    tmpdir(),
    `svc-ui-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`,
  );
  project.provide('screenshotDir', dir);
  return () => {
    if (existsSync(dir)) console.info(`svc tests: screenshots in ${dir}`);
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's screenshot directory (test/setup/screenshots.ts). */
    screenshotDir: string;
  }
}
