import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from './db/db.js';
import { PRIVATE_FILE } from './file-modes.js';

/** The outcome of one readiness probe: `ok` only when every check passed; each check by name. */
export interface ReadinessResult {
  readonly ok: boolean;
  readonly checks: Readonly<Record<string, 'ok' | 'failed'>>;
  /** The failing checks with why, for the server log (never sent: paths and driver messages stay inside). */
  readonly failures: readonly { check: string; error: string }[];
}

/** How long one check may take before it counts as failed (a hung disk or database must not hang the probe). */
const CHECK_TIMEOUT_MS = 5000;
/** A result is reused this long: a flood of probes costs at most one database write per second. */
const CACHE_MS = 1000;

/**
 * Readiness (`/-/readiness`): the database accepts a committed write, and the data directory and every
 * repository storage accept a new file. A full disk, a read-only database or a storage path that is not a
 * writable directory fails the probe, with the failing check named.
 */
export class Readiness {
  private last: { at: number; result: ReadinessResult } | null = null;
  private running: Promise<ReadinessResult> | null = null;

  constructor(
    private readonly db: Pick<Db, 'pingWrite'>,
    private readonly dataDir: string,
    private readonly storages: Readonly<Record<string, { readonly path: string }>>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs the checks (or reuses a result under a second old; concurrent probes share one run). */
  check(): Promise<ReadinessResult> {
    if (this.last && this.now() - this.last.at < CACHE_MS) return Promise.resolve(this.last.result);
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(): Promise<ReadinessResult> {
    const checks: [string, () => Promise<void>][] = [
      ['database', () => this.db.pingWrite()],
      ['data_dir', () => writable(this.dataDir)],
      ...Object.entries(this.storages).map(
        ([name, s]) => [`storage:${name}`, () => writable(s.path)] as [string, () => Promise<void>],
      ),
    ];
    const outcomes = await Promise.all(
      checks.map(async ([name, fn]) => {
        try {
          await withTimeout(fn(), CHECK_TIMEOUT_MS);
          return { name, error: null };
        } catch (err) {
          return { name, error: err instanceof Error ? err.message : String(err) };
        }
      }),
    );
    const result: ReadinessResult = {
      ok: outcomes.every((o) => o.error === null),
      checks: Object.fromEntries(outcomes.map((o) => [o.name, o.error === null ? 'ok' : 'failed'])),
      failures: outcomes.flatMap((o) => (o.error === null ? [] : [{ check: o.name, error: o.error }])),
    };
    this.last = { at: this.now(), result };
    return result;
  }
}

/** Creates and removes a small file in `dir` (ENOSPC, EROFS, ENOTDIR, ENOENT all fail it). */
async function writable(dir: string): Promise<void> {
  const file = join(dir, `.svc-readiness-${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(file, 'ok\n', { flag: 'wx', mode: PRIVATE_FILE });
  } finally {
    await rm(file, { force: true }).catch(() => undefined);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
