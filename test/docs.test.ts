import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAID_FEATURES } from '../src/access/access.policy.js';
import { loadConfig } from '../src/config.js';

const ROOT = join(import.meta.dirname, '..');
const DOCS = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f)),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fence = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    const m = fence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const slug = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n ? `${slug}-${n}` : slug);
  }
  return anchors;
}

/** Every relative link of a Markdown file (outside code), with its line. */
function links(file: string): { line: number; href: string }[] {
  const out: { line: number; href: string }[] = [];
  let fence = false;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (/^\s*```/.test(line)) fence = !fence;
      if (fence) return;
      const text = line.replace(/`[^`]*`/g, (c) => c.replace(/[[\]()]/g, ' '));
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g))
        if (!/^[a-z]+:/i.test(m[1]!)) out.push({ line: i + 1, href: m[1]! });
    });
  return out;
}

describe('the README and docs/', () => {
  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    let count = 0;
    for (const file of DOCS) {
      for (const { line, href } of links(file)) {
        count++;
        const [path, anchor] = href.split('#');
        const target = path ? resolve(dirname(file), path) : file;
        const where = `${relative(ROOT, file)}:${line} ${href}`;
        if (!existsSync(target)) broken.push(`${where}: no such file`);
        else if (
          anchor &&
          statSync(target).isFile() &&
          target.endsWith('.md') &&
          !anchorsOf(target).has(anchor)
        )
          broken.push(`${where}: no such heading`);
      }
    }
    expect(count).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it('keep the README short: what svc is, the two commands, the tests and a map of docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
    for (const doc of ['architecture', 'api', 'operations', 'benchmarks'])
      expect(readme).toContain(`(docs/${doc}.md)`);
  });

  it("keep the quick start's claims true: address, data directory, database, tier, and no path outside the repository", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const quickStart = readme.slice(0, readme.indexOf('### Your first alert'));
    const defaults = loadConfig({}, ROOT);
    expect(quickStart).toContain(
      `svc starts on ${defaults.externalUrl} with an embedded SQLite database in \`./data\``,
    );
    expect(defaults.dataDir).toBe(join(ROOT, 'data'));
    expect(defaults.databaseUrl).toBeNull(); // no URL: the embedded SQLite file
    expect(quickStart).toContain('`SVC_ROOT_PASSWORD`');
    expect(loadConfig({ SVC_ROOT_PASSWORD: 'a-long-password' }, ROOT).rootPassword).toBe('a-long-password');
    // The tier: Free by default, and what the README says needs Premium is what svc refuses on Free.
    expect(defaults.tier).toBe('free');
    expect(loadConfig({ SVC_TIER: 'premium' }, ROOT).tier).toBe('premium');
    expect(quickStart).toContain('SVC_TIER=premium npm start');
    expect(PAID_FEATURES.oncall_schedules).toContain('Premium');
    expect(PAID_FEATURES.escalation_policies).toContain('Premium');
    for (const named of ['on-call schedules', 'escalation policies', 'custom alert field mapping'])
      expect(quickStart).toContain(named);
    // The opening paragraph and the quick start name nothing outside the repository.
    expect(quickStart).not.toMatch(/\.\.\//);
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['start', 'test']));
  });
});
