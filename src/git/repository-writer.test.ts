import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Git } from './git.js';
import { matchesSearch } from './repository.service.js';
import { RepositoryReader } from './repository-reader.js';
import { ActionRefused, checkPath, RepositoryWriter } from './repository-writer.js';

const WHO = { name: 'A', email: 'a@example.com' };

describe('commits without a work tree', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-writer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const git = new Git();
  const writer = new RepositoryWriter(git);
  const reader = new RepositoryReader(git);
  const repo = join(dir, 'r.git');
  /** The commit the first test ends with (the writer moves no branch). */
  let last = '';
  const commit = (parent: string | null, actions: Parameters<RepositoryWriter['commit']>[1]['actions']) =>
    writer.commit(repo, { parent, actions, message: 'm', author: WHO, committer: WHO });
  const files = async (sha: string) =>
    (await reader.tree(repo, sha, '', true))!
      .filter((e) => e.type === 'blob')
      .map((e) => `${e.path}:${e.mode}`);

  it('applies every action to the parent tree and leaves no index behind', async () => {
    await git.init(repo, 'main');
    const before = readdirSync(tmpdir()).filter((f) => f.startsWith('svc-index-')).length;
    const first = await commit(null, [
      { action: 'create', path: 'a/b.txt', content: Buffer.from('b') },
      { action: 'create', path: '/top.txt', content: Buffer.from('t'), executable: true },
    ]);
    expect(await files(first)).toEqual(['a/b.txt:100644', 'top.txt:100755']);
    const second = await commit(first, [
      { action: 'move', path: 'c/moved.txt', previousPath: 'a/b.txt' },
      { action: 'chmod', path: 'top.txt', executable: false },
      { action: 'update', path: 'top.txt', content: Buffer.from('t2') },
    ]);
    expect(await files(second)).toEqual(['c/moved.txt:100644', 'top.txt:100644']);
    const moved = await reader.blobAt(repo, second, 'c/moved.txt');
    expect((await reader.blobContent(repo, moved!.id)).toString()).toBe('b');
    expect((await reader.commit(repo, second)).parentIds).toEqual([first]);
    const third = await commit(second, [{ action: 'delete', path: 'c/moved.txt' }]);
    expect(await files(third)).toEqual(['top.txt:100644']);
    last = third;
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith('svc-index-')).length).toBe(before);
  });

  it('filters the log by dates past 2099, which git itself would read as "now"', async () => {
    // The commits above were made this second: git, given `--since=@<after 2099>`, would list them.
    const q = { skip: 0, limit: 10 };
    expect(await reader.log(repo, last, { ...q, since: '2999-01-01T00:00:00Z' })).toEqual([]);
    expect(await reader.log(repo, last, { ...q, until: '2999-01-01T00:00:00Z' })).toHaveLength(3);
    expect(await reader.log(repo, last, { ...q, until: '2000-01-01T00:00:00Z' })).toEqual([]);
  });

  it('refuses what Gitaly refuses, with its messages', async () => {
    const head = last;
    const refused = (actions: Parameters<typeof commit>[1]) => commit(head, actions).catch((e: unknown) => e);
    const c = Buffer.from('x');
    expect(await refused([{ action: 'create', path: 'top.txt', content: c }])).toEqual(
      new ActionRefused('A file with this name already exists'),
    );
    expect(await refused([{ action: 'create', path: 'top.txt/inner', content: c }])).toEqual(
      new ActionRefused('A file with this name already exists'),
    );
    await commit(head, [{ action: 'create', path: 'd/e.txt', content: c }]).then(async (sha) => {
      expect(
        await commit(sha, [{ action: 'create', path: 'd', content: c }]).catch((e: unknown) => e),
      ).toEqual(new ActionRefused('A directory with this name already exists'));
    });
    for (const action of ['update', 'delete', 'chmod'] as const)
      expect(
        await refused([
          action === 'update'
            ? { action, path: 'nope', content: c }
            : action === 'chmod'
              ? { action, path: 'nope', executable: true }
              : { action, path: 'nope' },
        ]),
      ).toEqual(new ActionRefused("A file with this name doesn't exist"));
    expect(await refused([{ action: 'move', path: 'x', previousPath: 'nope' }])).toEqual(
      new ActionRefused("A file with this name doesn't exist"),
    );
  });

  it('checks paths: traversal, empty, .git and control characters', () => {
    expect(checkPath('/a/b')).toBe('a/b');
    expect(() => checkPath('a/../b')).toThrow('Path cannot include directory traversal');
    expect(() => checkPath('./a')).toThrow('Path cannot include directory traversal');
    expect(() => checkPath('/')).toThrow('You must provide a file path');
    expect(() => checkPath('a//b')).toThrow(ActionRefused);
    expect(() => checkPath('.git/config')).toThrow(ActionRefused);
    expect(() => checkPath('a/.GIT/hooks/x')).toThrow(ActionRefused);
    expect(() => checkPath('a\nb')).toThrow(ActionRefused);
  });

  it('searches branches as GitLab: substring, ^prefix, suffix$, case-insensitive', () => {
    expect(matchesSearch('feature/Login', 'login')).toBe(true);
    expect(matchesSearch('feature/login', '^feat')).toBe(true);
    expect(matchesSearch('my-feature', '^feat')).toBe(false);
    expect(matchesSearch('fix-login', 'login$')).toBe(true);
    expect(matchesSearch('login-fix', 'login$')).toBe(false);
    expect(matchesSearch('main', '^main$')).toBe(true);
    expect(matchesSearch('mainline', '^main$')).toBe(false);
  });
});
