import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The CLI's entry point (what bin/svc.js runs once compiled). */
const ENTRY = join(REPO_ROOT, 'src/cli/main.ts');

/**
 * Bundles the CLI from the current source once per run, so that tests which run `svc` as a process (CLI, crash,
 * backup, kill -9) run the code under test and never a `dist/` left by an older build. esbuild is tsx's own
 * transpiler; the packages stay external and resolve from the checkout's node_modules. A bundle starts in less
 * than half the time `node --import tsx src/cli/main.ts` takes.
 */
export async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-bundle-'));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  // svc finds its version in the package.json above its code (src/package-version.ts), as the build does.
  copyFileSync(join(REPO_ROOT, 'package.json'), join(dir, 'package.json'));
  const main = join(dir, 'main.mjs');
  await build({
    entryPoints: [ENTRY],
    outfile: main,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    sourcemap: 'inline',
    logLevel: 'error',
  });
  project.provide('svcMain', main);
  return () => rmSync(dir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The CLI bundled from the current source (test/setup/svc-bundle.ts). */
    svcMain: string;
  }
}
