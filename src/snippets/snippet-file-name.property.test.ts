import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { snippetFileNameProblem } from './snippet-file-name.js';

const repo = mkdtempSync(join(tmpdir(), 'svc-names-'));
const env = { PATH: process.env.PATH, HOME: repo, GIT_CONFIG_NOSYSTEM: '1' };
execFileSync('git', ['init', '--bare', '--quiet', repo], { env });
const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: repo, env, input: 'x' })
  .toString()
  .trim();

/** Names built from the parts that matter to git, and anything else. */
const name = fc.oneof(
  fc
    .array(
      fc.oneof(
        fc.constantFrom(
          '.git',
          '.GIT',
          'git~1',
          '.',
          '..',
          '/',
          '\\',
          '\n',
          '\t',
          '\u0000',
          '\u200c',
          ' ',
          'a',
        ),
        fc.string({ unit: 'binary', maxLength: 4 }),
      ),
      { maxLength: 6 },
    )
    .map((p) => p.join('')),
  fc.string({ unit: 'binary', maxLength: 300 }),
);

describe('snippet file names (property)', () => {
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('never throws; every accepted name is one regular file in a tree git itself finds clean', () => {
    const accepted: string[] = [];
    fc.assert(
      fc.property(name, (n) => {
        const problem = snippetFileNameProblem(n);
        if (problem !== null) {
          expect(typeof problem).toBe('string');
          return;
        }
        // The same input svc gives git: one NUL-terminated entry, always a blob of mode 100644.
        const tree = execFileSync('git', ['mktree', '-z'], {
          cwd: repo,
          env,
          input: Buffer.from(`100644 blob ${blob}\t${n}\0`),
        })
          .toString()
          .trim();
        const ls = execFileSync('git', ['ls-tree', '-z', tree], { cwd: repo, env }).toString();
        expect(ls).toBe(`100644 blob ${blob}\t${n}\0`);
        accepted.push(n);
      }),
      { numRuns: 300 },
    );
    expect(accepted.length).toBeGreaterThan(10);
    // git fsck checks every object, reachable or not: no `.git` entry, no bad names, no gitlinks.
    execFileSync('git', ['fsck', '--strict', '--no-dangling'], { cwd: repo, env, stdio: 'pipe' });
  });
});
