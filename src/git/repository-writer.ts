import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from './git.js';

/** One change of a commit made through the API (GitLab's commit actions). */
export type FileAction =
  | {
      readonly action: 'create';
      readonly path: string;
      readonly content: Buffer;
      readonly executable?: boolean;
    }
  | {
      readonly action: 'update';
      readonly path: string;
      readonly content: Buffer;
      readonly executable?: boolean;
    }
  | { readonly action: 'delete'; readonly path: string }
  | {
      readonly action: 'move';
      readonly path: string;
      readonly previousPath: string;
      /** New content; the moved file keeps its own when absent. */
      readonly content?: Buffer;
    }
  | { readonly action: 'chmod'; readonly path: string; readonly executable: boolean };

/** An action the tree it applies to refuses (Gitaly's index errors); nothing was written to any branch. */
export class ActionRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ActionRefused';
  }
}

// Gitaly's index error messages, which GitLab answers with as they are.
export const FILE_EXISTS = 'A file with this name already exists';
export const FILE_MISSING = "A file with this name doesn't exist";
export const DIRECTORY_EXISTS = 'A directory with this name already exists';
export const TRAVERSAL = 'Path cannot include directory traversal';
export const EMPTY_PATH = 'You must provide a file path';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A file path as a commit may hold it, or the refusal: no `.` or `..` component (directory traversal), no empty
 * component, no `.git` component, no control character. A leading slash is dropped (GitLab accepts `/README.md`).
 */
export function checkPath(raw: string): string {
  const path = raw.replace(/^\/+/, '');
  if (path === '') throw new ActionRefused(EMPTY_PATH);
  const parts = path.split('/');
  if (parts.some((p) => p === '..' || p === '.')) throw new ActionRefused(TRAVERSAL);
  if (parts.some((p) => p === '' || p.toLowerCase() === '.git') || CONTROL.test(path))
    throw new ActionRefused(`invalid path: '${raw}'`);
  return path;
}

interface IndexEntry {
  mode: string;
  id: string;
}

/**
 * Makes commits without a work tree: the parent's tree is read into a temporary index (its own GIT_INDEX_FILE,
 * so concurrent writers never share one), the actions are applied to it with `update-index`, and `write-tree`
 * and `commit-tree` make the commit. Moving a branch to it is the caller's (compare-and-swap with `update-ref`).
 */
export class RepositoryWriter {
  constructor(private readonly git: Git) {}

  async commit(
    repo: string,
    input: {
      readonly parent: string | null;
      readonly actions: readonly FileAction[];
      readonly message: string;
      readonly author: { readonly name: string; readonly email: string };
      readonly committer: { readonly name: string; readonly email: string };
    },
  ): Promise<string> {
    const index = join(tmpdir(), `svc-index-${randomBytes(8).toString('hex')}`);
    const env = { GIT_INDEX_FILE: index };
    const git = (args: readonly string[], input?: string | Buffer, extra: NodeJS.ProcessEnv = {}) =>
      this.git.run(['--literal-pathspecs', ...args], {
        cwd: repo,
        env: { ...env, ...extra },
        ...(input !== undefined && { input }),
      });
    try {
      await git(input.parent ? ['read-tree', input.parent] : ['read-tree', '--empty']);
      const entries = new Map<string, IndexEntry>();
      for (const rec of (await git(['ls-files', '-s', '-z'])).split('\0').filter(Boolean)) {
        const tab = rec.indexOf('\t');
        const [mode, id] = rec.slice(0, tab).split(' ') as [string, string];
        entries.set(rec.slice(tab + 1), { mode, id });
      }
      const touched = new Set<string>();
      const hash = async (content: Buffer) => (await git(['hash-object', '-w', '--stdin'], content)).trim();
      for (const a of input.actions) {
        const path = checkPath(a.path);
        const current = entries.get(path);
        const put = (p: string, e: IndexEntry) => {
          entries.set(p, e);
          touched.add(p);
        };
        switch (a.action) {
          case 'create': {
            refuseTaken(entries, path);
            put(path, { mode: a.executable ? '100755' : '100644', id: await hash(a.content) });
            break;
          }
          case 'update': {
            if (!current) throw new ActionRefused(FILE_MISSING);
            const mode = a.executable === undefined ? current.mode : a.executable ? '100755' : '100644';
            put(path, { mode, id: await hash(a.content) });
            break;
          }
          case 'delete': {
            if (!current) throw new ActionRefused(FILE_MISSING);
            entries.delete(path);
            touched.add(path);
            break;
          }
          case 'move': {
            const from = checkPath(a.previousPath);
            const moved = entries.get(from);
            if (!moved) throw new ActionRefused(FILE_MISSING);
            entries.delete(from);
            touched.add(from);
            refuseTaken(entries, path);
            put(path, { mode: moved.mode, id: a.content ? await hash(a.content) : moved.id });
            break;
          }
          case 'chmod': {
            if (!current) throw new ActionRefused(FILE_MISSING);
            // Symlinks and submodules have no executable bit to change.
            if (current.mode === '100644' || current.mode === '100755')
              put(path, { ...current, mode: a.executable ? '100755' : '100644' });
            break;
          }
        }
      }
      const zero = '0'.repeat(input.parent?.length ?? 40);
      const info = [...touched]
        .map((p) => {
          const e = entries.get(p);
          return e ? `${e.mode} ${e.id}\t${p}\0` : `0 ${zero}\t${p}\0`;
        })
        .join('');
      if (info) await git(['update-index', '-z', '--index-info'], info);
      const tree = (await git(['write-tree'])).trim();
      const ident = {
        GIT_AUTHOR_NAME: input.author.name,
        GIT_AUTHOR_EMAIL: input.author.email,
        GIT_COMMITTER_NAME: input.committer.name,
        GIT_COMMITTER_EMAIL: input.committer.email,
      };
      const args = ['commit-tree', tree, ...(input.parent ? ['-p', input.parent] : []), '-F', '-'];
      return (await git(args, input.message, ident)).trim();
    } finally {
      await rm(index, { force: true });
      await rm(`${index}.lock`, { force: true });
    }
  }
}

/** A new file's path must be free: no file there, no directory there, and no file where it needs a directory. */
function refuseTaken(entries: ReadonlyMap<string, IndexEntry>, path: string): void {
  if (entries.has(path)) throw new ActionRefused(FILE_EXISTS);
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    if (entries.has(parts.slice(0, i).join('/'))) throw new ActionRefused(FILE_EXISTS);
  }
  const dir = `${path}/`;
  for (const p of entries.keys()) if (p.startsWith(dir)) throw new ActionRefused(DIRECTORY_EXISTS);
}
