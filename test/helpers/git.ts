import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs the real git client (asynchronously: the server under test may run in this process). */
export async function git(
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run('git', args, {
      cwd,
      env: { PATH: process.env.PATH, HOME: cwd, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** An HTTP clone URL with credentials. */
export function authUrl(httpUrl: string, username: string, token: string): string {
  const u = new URL(httpUrl);
  u.username = username;
  u.password = token;
  return u.toString();
}

/** Clones `url` into a fresh directory, commits a file (its folders made) and pushes it; returns the work tree. */
export async function pushCommit(
  url: string,
  file = 'README.md',
  content = 'hello\n',
): Promise<{ dir: string; push: Awaited<ReturnType<typeof git>> }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-git-'));
  const clone = await git(['clone', '--quiet', url, 'w'], dir);
  if (clone.code !== 0) throw new Error(`clone failed: ${clone.stderr}`);
  const w = join(dir, 'w');
  mkdirSync(dirname(join(w, file)), { recursive: true });
  writeFileSync(join(w, file), content);
  await git(['add', file], w);
  await git(
    ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '-m', `Add ${file}`],
    w,
  );
  const push = await git(['push', '--quiet', 'origin', 'HEAD:main'], w);
  return { dir: w, push };
}
