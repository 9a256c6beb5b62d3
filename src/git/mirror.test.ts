import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Git, withoutSection } from './git.js';

describe('mirror copies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mirror-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('removes exactly the one section, as git config --remove-section', () => {
    const text =
      '[core]\n\tbare = true\n[remote "origin"]\n\turl = /old\n\tmirror = true\n[remote "originals"]\n\turl = /x\n';
    expect(withoutSection(text, '[remote "origin"]')).toBe(
      '[core]\n\tbare = true\n[remote "originals"]\n\turl = /x\n',
    );
    expect(withoutSection('[core]\n\tbare = true', '[remote "origin"]')).toBe('[core]\n\tbare = true');
  });

  it('a mirror keeps the source refs and its config but no remote pointing at the old location', async () => {
    const git = new Git();
    const source = join(dir, 'a.git');
    const target = join(dir, 'b.git');
    await git.init(source, 'main');
    await git.mirror(source, target);
    const config = await git.run(['config', '--list', '--local'], { cwd: target });
    expect(config).not.toMatch(/remote\.origin/);
    expect(config).toMatch(/core\.bare=true/);
    expect(config).toMatch(/core\.sharedrepository=0600/);
    expect(readFileSync(join(target, 'config'), 'utf8')).not.toContain(source);
    expect(await git.checksum(target)).toBe(await git.checksum(source));
  });
});
