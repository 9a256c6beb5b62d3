import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Migration, Migrator } from 'kysely/migration';
import { afterEach, describe, expect, it } from 'vitest';
import { createCipher, loadOrCreateSecretKey } from '../../src/crypto.js';
import { createDb, type Db, migrate } from '../../src/db/db.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { createPostgresDatabase, databases } from '../helpers/databases.js';
import { seedProjectRows } from '../helpers/rows.js';

/**
 * Migration 0008 on a database that concurrent storage moves and merge request creations already damaged, with
 * secrets stored in plain text before it: duplicates are ended so the unique indexes can be built, the furthest
 * move and the oldest open merge request are kept, and existing tokens are converted.
 */
describe.each(await databases())('migration 0008 on existing rows (%s)', (database) => {
  let db: Db | null = null;
  let drop: (() => Promise<void>) | null = null;
  afterEach(async () => {
    await db?.close();
    await drop?.();
    db = null;
    drop = null;
  });

  it('ends duplicate active moves and open merge requests, digests registration tokens, encrypts verification tokens', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-m0008-'));
    const pg = database === 'postgres' ? await createPostgresDatabase() : null;
    drop = pg?.drop ?? null;
    db = createDb({ databaseUrl: pg?.url ?? null, dataDir });
    const open = db;
    const migrations: Record<string, Migration> = {};
    const env = { secretKey: () => loadOrCreateSecretKey(dataDir), warn: (m: string) => expect.fail(m) };
    for (const [name, up] of MIGRATIONS) migrations[name] = { up: (k) => up(k as never, open.dialect, env) };
    const before = await new Migrator({
      db: db.kysely,
      provider: { getMigrations: async () => migrations },
    }).migrateTo('0007_runners_mrs');
    expect(before.error).toBeUndefined();

    const k = db.kysely;
    const now = new Date().toISOString();
    await seedProjectRows(k, 'b');
    // What the race left: three active moves of project 1 (the second one already switched), one of project 2.
    const move = (containerId: number, state: string) =>
      k
        .insertInto('repository_storage_moves')
        .values({
          container_type: 'project',
          container_id: containerId,
          state,
          source_storage_name: 'a',
          destination_storage_name: 'b',
          error_message: null,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    const m1 = await move(1, 'scheduled');
    const m2 = await move(1, 'replicated');
    const m3 = await move(1, 'started');
    const m4 = await move(2, 'scheduled');
    const m5 = await move(1, 'finished');
    const mr = (iid: number, source: string, state: string) =>
      k
        .insertInto('merge_requests')
        .values({
          project_id: 1,
          iid,
          title: `mr ${iid}`,
          description: '',
          source_branch: source,
          target_branch: 'main',
          state,
          author_id: 1,
          merge_user_id: null,
          merged_at: null,
          closed_at: null,
          closed_by_id: null,
          merge_commit_sha: null,
          force_remove_source_branch: null,
          should_remove_source_branch: null,
          diff_base_sha: null,
          diff_head_sha: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    await mr(1, 'feature', 'opened');
    await mr(2, 'feature', 'opened');
    await mr(3, 'feature', 'opened');
    await mr(4, 'other', 'opened');
    await mr(5, 'feature', 'closed');
    await k
      .insertInto('runner_registration_tokens')
      .values([
        { scope: 'instance', token: 'GR1348941instance-plain' },
        { scope: 'project:1', token: 'GR1348941project-plain' },
      ])
      .execute();
    await k
      .insertInto('audit_event_destinations')
      .values({
        destination_url: 'https://audit.example.com/',
        verification_token: '0123456789abcdef01234567',
        created_at: now,
      })
      .execute();

    expect(await migrate(db)).toContain('0008_hardening_moves');

    const moves = await k
      .selectFrom('repository_storage_moves')
      .select(['id', 'state', 'error_message'])
      .orderBy('id')
      .execute();
    const stateOf = (id: number) => moves.find((m) => m.id === id)?.state;
    // The move that already switched is kept; the others of project 1 end without running; others untouched.
    expect([m1.id, m2.id, m3.id, m4.id, m5.id].map(stateOf)).toEqual([
      'failed',
      'replicated',
      'failed',
      'scheduled',
      'finished',
    ]);
    expect(moves.find((m) => m.id === m1.id)?.error_message).toMatch(/another move/);
    const mrs = await k.selectFrom('merge_requests').select(['iid', 'state']).orderBy('iid').execute();
    expect(mrs.map((r) => [r.iid, r.state])).toEqual([
      [1, 'opened'],
      [2, 'closed'],
      [3, 'closed'],
      [4, 'opened'],
      [5, 'closed'],
    ]);
    const tokens = await k.selectFrom('runner_registration_tokens').selectAll().orderBy('scope').execute();
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    expect(tokens).toEqual([
      { scope: 'instance', token: sha('GR1348941instance-plain') },
      { scope: 'project:1', token: sha('GR1348941project-plain') },
    ]);
    const dest = await k.selectFrom('audit_event_destinations').selectAll().executeTakeFirstOrThrow();
    expect(dest.verification_token).toMatch(/^v1:/);
    expect(createCipher(loadOrCreateSecretKey(dataDir)).decrypt(dest.verification_token)).toBe(
      '0123456789abcdef01234567',
    );

    // The indexes now refuse what the races did.
    await expect(move(1, 'scheduled')).rejects.toThrow();
    await expect(mr(6, 'other', 'opened')).rejects.toThrow();
    await move(2, 'failed');
    await mr(7, 'other', 'closed');
  });
});
