import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  optionalDependencies: Record<string, string>;
};

/**
 * `npm ci` installs Node 24 (node-linux-<arch>) and npm scripts put node_modules/.bin first on PATH, so
 * `npm test` runs on that Node whatever the system's Node is.
 */
describe('runtime', () => {
  it(`runs on Node 22.16 or later (this is ${process.versions.node})`, () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    expect(major > 22 || (major === 22 && minor >= 16)).toBe(true);
  });

  it('runs on the Node npm installed, where the platform has one', () => {
    const name = `node-${process.platform}-${process.arch}`;
    const version = pkg.optionalDependencies[name];
    if (version === undefined) return; // no Node package for this platform: the system's Node runs svc
    const installed = JSON.parse(
      readFileSync(createRequire(import.meta.url).resolve(`${name}/package.json`), 'utf8'),
    ) as { version: string };
    expect(installed.version).toBe(version);
    expect(process.versions.node).toBe(version);
  });

  it('installs one Node version for every platform, one that satisfies engines', () => {
    const versions = [...new Set(Object.values(pkg.optionalDependencies))];
    expect(versions).toHaveLength(1);
    const floor = /^>=(\d+)\.(\d+)$/.exec(pkg.engines.node);
    expect(floor).not.toBeNull();
    const [major = 0, minor = 0] = (versions[0] ?? '').split('.').map(Number);
    const [floorMajor, floorMinor] = [Number(floor?.[1]), Number(floor?.[2])];
    expect(major > floorMajor || (major === floorMajor && minor >= floorMinor)).toBe(true);
  });
});
