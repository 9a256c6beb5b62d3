import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Git } from './git.js';

const AUTHOR = { name: 'A', email: 'a@example.com' };

describe('repository copies (storage moves)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mirror-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const git = new Git();

  it('copies the repository file for file: refs, objects, config, modes and symlinks', async () => {
    const source = join(dir, 'a.git');
    const target = join(dir, 'copies', 'b.git');
    await git.init(source, 'main');
    await git.commitFile(source, 'main', { name: 'f.txt', content: 'one' }, 'first', AUTHOR);
    await git.run(['pack-refs', '--all'], { cwd: source });
    await git.commitFile(source, 'main', { name: 'f.txt', content: 'two' }, 'second', AUTHOR);
    symlinkSync('../elsewhere', join(source, 'hooks', 'linked'));
    await git.mirror(source, target);
    expect(await git.checksum(target)).toBe(await git.checksum(source));
    expect(await git.refsDigest(target)).toBe(await git.refsDigest(source));
    await git.verifyCopy(source, target);
    await git.fsck(target);
    expect(readFileSync(join(target, 'config'), 'utf8')).toBe(readFileSync(join(source, 'config'), 'utf8'));
    expect(statSync(target).mode & 0o777).toBe(0o700);
    expect(statSync(join(target, 'HEAD')).mode & 0o777).toBe(statSync(join(source, 'HEAD')).mode & 0o777);
    expect(lstatSync(join(target, 'hooks', 'linked')).isSymbolicLink()).toBe(true);
    expect((await git.run(['show', 'main:f.txt'], { cwd: target })).trim()).toBe('two');
  });

  it('the refs digest changes with any ref, loose or packed, and not with objects alone', async () => {
    const repo = join(dir, 'c.git');
    await git.init(repo, 'main');
    const empty = await git.refsDigest(repo);
    await git.commitFile(repo, 'main', { name: 'f.txt', content: 'one' }, 'first', AUTHOR);
    const one = await git.refsDigest(repo);
    expect(one).not.toBe(empty);
    await git.run(['hash-object', '-w', '--stdin'], { cwd: repo, input: 'an object no ref names' });
    expect(await git.refsDigest(repo)).toBe(one);
    await git.run(['update-ref', 'refs/tags/v1', 'main'], { cwd: repo });
    const tagged = await git.refsDigest(repo);
    expect(tagged).not.toBe(one);
    await git.run(['pack-refs', '--all'], { cwd: repo });
    await git.run(['update-ref', '-d', 'refs/tags/v1'], { cwd: repo });
    expect(await git.refsDigest(repo)).not.toBe(tagged);
  });

  it('copies only where nothing is; puts a copy in place of a stale repository, never of anything else', async () => {
    const source = join(dir, 'd.git');
    await git.init(source, 'main');
    await git.commitFile(source, 'main', { name: 'f.txt', content: 'one' }, 'first', AUTHOR);
    const target = join(dir, 'not-a-repo');
    mkdirSync(target);
    writeFileSync(join(target, 'notes.txt'), 'mine');
    await expect(git.mirror(source, target)).rejects.toThrow(/already exists/);
    const copy = git.scratch(target);
    await git.mirror(source, copy);
    await expect(git.place(copy, target)).rejects.toThrow(/exists and is not a repository/);
    expect(readdirSync(target)).toEqual(['notes.txt']);

    const live = join(dir, 'e.git');
    await git.init(live, 'main');
    const stale = await git.place(copy, live);
    expect(stale).toMatch(/e\.git\.deleted-/);
    expect(await git.refsDigest(live)).toBe(await git.refsDigest(source));
    expect(await git.occupied(copy)).toBe(false);
  });
});
