import { describe, expect, it } from 'vitest';
import { branchFilterPasses, validWildcardFilter } from './notifications.js';

const hook = (filter: string | null, strategy: 'wildcard' | 'all_branches' = 'wildcard') => ({
  pushEventsBranchFilter: filter,
  branchFilterStrategy: strategy,
});

describe('push branch filter (GitLab wildcard)', () => {
  it('passes every branch when blank or all_branches; names a branch exactly without a wildcard', () => {
    expect(branchFilterPasses(hook(null), 'refs/heads/main')).toBe(true);
    expect(branchFilterPasses(hook(''), 'refs/heads/any')).toBe(true);
    expect(branchFilterPasses(hook('main', 'all_branches'), 'refs/heads/other')).toBe(true);
    expect(branchFilterPasses(hook('main'), 'refs/heads/main')).toBe(true);
    expect(branchFilterPasses(hook('main'), 'refs/heads/main2')).toBe(false);
    expect(branchFilterPasses(hook('main'), 'refs/heads/feature/main')).toBe(false);
  });

  it('reads * as any run of characters (slashes included) and nothing else as special', () => {
    expect(branchFilterPasses(hook('release/*'), 'refs/heads/release/1.0')).toBe(true);
    expect(branchFilterPasses(hook('release/*'), 'refs/heads/release/a/b')).toBe(true);
    expect(branchFilterPasses(hook('release/*'), 'refs/heads/prerelease/1')).toBe(false);
    expect(branchFilterPasses(hook('*-hotfix'), 'refs/heads/1.2-hotfix')).toBe(true);
    expect(branchFilterPasses(hook('v1.0*'), 'refs/heads/v1x0')).toBe(false);
    expect(branchFilterPasses(hook('a+b*'), 'refs/heads/a+b-c')).toBe(true);
  });

  it('does not filter tags', () => {
    expect(branchFilterPasses(hook('main'), 'refs/tags/v1')).toBe(true);
  });

  it('validates a wildcard filter as a branch name', () => {
    for (const ok of ['main', 'release/*', '*', 'feature-*-x', 'a.b'])
      expect(validWildcardFilter(ok), ok).toBe(true);
    for (const bad of [
      'a..b',
      'with space',
      'a~b',
      'a^b',
      'a:b',
      'a?b',
      'a[b',
      'a\\b',
      '/a',
      'a/',
      'a.lock',
      '.a',
      'a//b',
      '-a',
      'a@{b',
      'x'.repeat(4001),
    ])
      expect(validWildcardFilter(bad), bad).toBe(false);
  });
});
