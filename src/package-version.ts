import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

/**
 * svc's version from its package.json, found by walking up from this file (src/ when run from source,
 * dist/server/ when built), so the version is written in one place.
 */
export function packageVersion(): string {
  if (cached !== null) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'svc' && typeof pkg.version === 'string') {
        cached = pkg.version;
        return cached;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) {
      // Copied somewhere without its package.json: still runs, and says so rather than inventing a version.
      cached = 'unknown';
      return cached;
    }
    dir = parent;
  }
}
