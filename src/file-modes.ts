import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Directories svc keeps (data directory, storages, repositories, backup work): owner only. */
const PRIVATE_DIR = 0o700;
/** Files svc keeps (secret key, SQLite files, backup archives and their members): owner only. */
export const PRIVATE_FILE = 0o600;

/**
 * Makes everything this process (and the git it starts) creates owner-only, whatever umask the operator's shell
 * had: the CLI calls it first. Modes are also set explicitly where svc creates files, so code run in another
 * process (tests, embedders) gets the same result; this is the net for anything a child process creates.
 */
export function restrictUmask(): void {
  process.umask(0o077);
}

/** Creates `dir` (and missing parents) owner-only, and makes it owner-only when it already existed. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  chmodSync(dir, PRIVATE_DIR);
}

/** Creates `file` empty and owner-only when missing, and makes it owner-only when it already existed. */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE));
  chmodSync(file, PRIVATE_FILE);
}

/**
 * Brings an existing installation to owner-only modes at start: the data directory and each storage root become
 * 0700, the files directly in the data directory (secret key, SQLite database, WAL and shared-memory files)
 * 0600. Nothing below a 0700 directory is reachable by other users, so repositories written before this fix
 * (0755 folders) need no walk of their millions of files; new ones are created owner-only (git `--shared=0600`).
 */
export function secureDataDir(dataDir: string, storagePaths: readonly string[]): void {
  ensurePrivateDir(dataDir);
  for (const name of readdirSync(dataDir)) {
    const path = join(dataDir, name);
    const st = lstatSync(path);
    if (st.isFile()) chmodSync(path, PRIVATE_FILE);
    else if (st.isDirectory()) chmodSync(path, PRIVATE_DIR);
  }
  for (const path of storagePaths) ensurePrivateDir(path);
}

/** Makes `file` owner-only when it exists (SQLite's WAL and shared-memory files come and go). */
export function restrictIfPresent(file: string): void {
  if (existsSync(file)) chmodSync(file, PRIVATE_FILE);
}
