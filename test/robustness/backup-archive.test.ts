import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupError } from '../../src/backup/backup.service.js';
import { loadConfig } from '../../src/config.js';
import { createBackupService, createContext } from '../../src/context.js';
import { createDb, migrate } from '../../src/db/db.js';
import { createPostgresDatabase, databases } from '../helpers/databases.js';

const run = promisify(execFile);

/**
 * Restore reads an archive's member list and manifest before it unpacks anything: members the manifest does not
 * list, members that are no regular file, sizes other than the manifest's and archives beyond the size limit are
 * refused with nothing written and nothing restored.
 */
describe.each(await databases())('backup archives checked before unpacking (restore into %s)', (database) => {
  const root = mkdtempSync(join(tmpdir(), 'svc-backup-archive-'));
  let good: string;
  let unpacked: string;
  let target: Awaited<ReturnType<typeof emptyInstance>>;

  async function emptyInstance() {
    const pg = database === 'postgres' ? await createPostgresDatabase() : null;
    const config = loadConfig({
      SVC_DATA_DIR: mkdtempSync(join(root, 'restore-')),
      SVC_LOG_LEVEL: 'silent',
      ...(pg && { SVC_DATABASE_URL: pg.url }),
    });
    const db = createDb(config);
    await migrate(db);
    const ctx = createContext(config, db);
    return {
      ctx,
      service: createBackupService(ctx),
      close: async () => {
        await db.close();
        await pg?.drop();
      },
    };
  }

  /** Packs the directory `dir` as svc does (`tar -cz -C dir .`). */
  async function pack(dir: string, name: string): Promise<string> {
    const out = join(root, name);
    await run('tar', ['-cz', '-f', out, '-C', dir, '.']);
    return out;
  }

  /** A copy of the good archive's content, changed by `change`, packed again. */
  async function variant(name: string, change: (dir: string) => void): Promise<string> {
    const dir = mkdtempSync(join(root, `${name}-`));
    await run('cp', ['-a', `${unpacked}/.`, dir]);
    change(dir);
    return pack(dir, `${name}.tar.gz`);
  }

  async function refused(archive: string, opts: { maxBytes?: number } = {}): Promise<string> {
    const err = await target.service.restore(archive, opts).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BackupError);
    // Nothing restored: the instance is still empty, so the good archive restores afterwards.
    expect(await target.ctx.db.kysely.selectFrom('users').select('id').execute()).toEqual([]);
    return (err as Error).message;
  }

  beforeAll(async () => {
    const config = loadConfig({ SVC_DATA_DIR: join(root, 'source'), SVC_LOG_LEVEL: 'silent' });
    const db = createDb(config);
    await migrate(db);
    const ctx = createContext(config, db);
    await ctx.users.bootstrap({ rootPassword: 'backup-archive-pw', rootToken: null });
    good = join(root, 'good.tar.gz');
    await createBackupService(ctx).create(good);
    await db.close();
    unpacked = mkdtempSync(join(root, 'unpacked-'));
    await run('tar', ['-xzf', good, '-C', unpacked]);
    target = await emptyInstance();
  }, 60_000);
  afterAll(async () => {
    await target?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses a member the manifest does not list (20 MB of zeros compressed to KBs) before unpacking', async () => {
    const junk = await variant('junk', (dir) => writeFileSync(join(dir, 'junk.bin'), Buffer.alloc(20 << 20)));
    expect(readFileSync(junk).length).toBeLessThan(200_000);
    expect(await refused(junk)).toMatch(/unexpected member "junk\.bin"/);
    const hidden = await variant('hidden', (dir) =>
      writeFileSync(join(dir, 'db', 'not_a_table.jsonl'), Buffer.alloc(20 << 20)),
    );
    expect(await refused(hidden)).toMatch(/db\/not_a_table\.jsonl/);
  });

  it('refuses links and other non-regular members', async () => {
    const link = await variant('link', (dir) => {
      rmSync(join(dir, 'db', 'users.jsonl'));
      symlinkSync('/etc/passwd', join(dir, 'db', 'users.jsonl'));
    });
    expect(await refused(link)).toMatch(/db\/users\.jsonl is not a regular file/);
    const dir = await variant('dir', (d) => mkdirSync(join(d, 'repos', 'project-1.bundle')));
    expect(await refused(dir)).toMatch(/repos\/project-1\.bundle is not a regular file/);
  });

  it('refuses a listed member bigger than the manifest says, before unpacking it', async () => {
    const big = await variant('big', (dir) =>
      writeFileSync(join(dir, 'db', 'users.jsonl'), Buffer.alloc(20 << 20)),
    );
    expect(await refused(big)).toMatch(/db\/users\.jsonl is \d+ bytes, the manifest says \d+/);
  });

  it('refuses an archive larger than the size limit, naming it', async () => {
    expect(await refused(good, { maxBytes: 1000 })).toMatch(
      /unpacks to \d+ bytes, more than the limit of 1000 bytes/,
    );
  });

  it('restores the good archive after all those refusals', async () => {
    const manifest = await target.service.restore(good);
    expect(manifest.tables.users).toBe(1);
  });
});
