import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedProjectRows } from '../../test/helpers/rows.js';
import { systemClock } from '../clock.js';
import { createDb, type Db, migrate } from '../db/db.js';
import { Git } from '../git/git.js';
import { RepositoriesService } from '../git/repositories.service.js';
import { WeightedStorages } from '../git/storages.js';
import { JobQueue } from '../jobs/queue.js';
import { StorageMovesRepository } from './storage-moves.repository.js';
import { StorageMovesService } from './storage-moves.service.js';

/** A git whose destination checksum never matches: the copy is corrupt as far as the move can tell. */
class MismatchingGit extends Git {
  override async checksum(path: string): Promise<string> {
    const real = await super.checksum(path);
    return path.includes('/b/') ? real.replace(/^./, (c) => (c === '0' ? '1' : '0')) : real;
  }
}

describe('storage move job', () => {
  let db: Db | null = null;
  afterEach(async () => {
    await db?.close();
    db = null;
  });

  it('fails on a checksum mismatch: destination removed, source intact, repository writable again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-move-unit-'));
    db = createDb({ databaseUrl: null, dataDir: dir });
    await migrate(db);
    const k = db.kysely;
    const now = new Date().toISOString();
    await seedProjectRows(k, 'a');
    const git = new MismatchingGit();
    const repos = new RepositoriesService(git, {
      a: { path: join(dir, 'a'), weight: 100 },
      b: { path: join(dir, 'b'), weight: 100 },
    });
    await repos.create('project', 1, 'a');
    const source = repos.path('project', 1, 'a');
    await git.commitFile(source, 'main', { name: 'f.txt', content: 'data' }, 'init', {
      name: 't',
      email: 't@x',
    });
    const jobs = new JobQueue(k, 'sqlite', systemClock);
    const moves = new StorageMovesService(
      new StorageMovesRepository(k),
      repos,
      jobs,
      new WeightedStorages(async () => ({ a: 100, b: 100 })),
      'self-managed',
      'free',
      systemClock,
    );
    const admin = {
      id: 1,
      username: 'u',
      name: 'u',
      email: 'u@x',
      admin: true,
      state: 'active' as const,
      privateProfile: false,
      bio: '',
      createdAt: now,
      updatedAt: now,
    };
    const move = await moves.schedule(admin, 'project', 1, 'b');
    expect(
      (await k.selectFrom('projects').select('repository_read_only').executeTakeFirstOrThrow())
        .repository_read_only,
    ).toBe(1);
    await jobs.drain();
    const after = await moves.get(admin, 'project', move.id);
    expect(after.state).toBe('failed');
    expect(after.errorMessage).toMatch(/checksum mismatch/);
    const row = await k
      .selectFrom('projects')
      .select(['repository_storage', 'repository_read_only'])
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ repository_storage: 'a', repository_read_only: 0 });
    expect(await git.exists(repos.path('project', 1, 'b'))).toBe(false);
    expect((await git.run(['show', 'main:f.txt'], { cwd: source })).trim()).toBe('data');
  });

  /** A project on storage `a` with one commit, its move service, and a move row in `state` (a -> b). */
  async function fixture(state: 'scheduled' | 'replicated') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-move-guard-'));
    db = createDb({ databaseUrl: null, dataDir: dir });
    await migrate(db);
    const k = db.kysely;
    const now = new Date().toISOString();
    await seedProjectRows(k, 'a');
    const git = new Git();
    const repos = new RepositoriesService(git, {
      a: { path: join(dir, 'a'), weight: 100 },
      b: { path: join(dir, 'b'), weight: 100 },
    });
    await repos.create('project', 1, 'a');
    await git.commitFile(repos.path('project', 1, 'a'), 'main', { name: 'f.txt', content: 'data' }, 'init', {
      name: 't',
      email: 't@x',
    });
    const jobs = new JobQueue(k, 'sqlite', systemClock);
    const service = new StorageMovesService(
      new StorageMovesRepository(k),
      repos,
      jobs,
      new WeightedStorages(async () => ({ a: 100, b: 100 })),
      'self-managed',
      'free',
      systemClock,
    );
    const move = await k
      .insertInto('repository_storage_moves')
      .values({
        container_type: 'project',
        container_id: 1,
        state,
        source_storage_name: 'a',
        destination_storage_name: 'b',
        error_message: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const storage = (name: string) =>
      k.updateTable('projects').set({ repository_storage: name }).where('id', '=', 1).execute();
    const stateOf = async () =>
      k
        .selectFrom('repository_storage_moves')
        .select(['state', 'error_message'])
        .where('id', '=', move.id)
        .executeTakeFirstOrThrow();
    return { k, git, repos, service, moveId: move.id, storage, stateOf };
  }

  it('a stale move whose source is gone never deletes its destination when that is the live repository', async () => {
    // Issue 10, finding 3: another move already switched the project to b and deleted a; this one then failed
    // ("source missing") and deleted its destination b, the live repository.
    const f = await fixture('scheduled');
    await f.git.mirror(f.repos.path('project', 1, 'a'), f.repos.path('project', 1, 'b'));
    await f.storage('b');
    await f.git.remove(f.repos.path('project', 1, 'a'));
    await f.service.run(f.moveId);
    expect((await f.stateOf()).state).toBe('failed');
    const live = f.repos.path('project', 1, 'b');
    expect(await f.git.exists(live)).toBe(true);
    expect((await f.git.run(['show', 'main:f.txt'], { cwd: live })).trim()).toBe('data');
  });

  it('the cleanup never deletes the source when it is the current repository', async () => {
    // A replicated move whose container is (again) on its source: the source is live and must stay.
    const f = await fixture('replicated');
    await f.git.mirror(f.repos.path('project', 1, 'a'), f.repos.path('project', 1, 'b'));
    await f.service.run(f.moveId);
    expect(await f.stateOf()).toMatchObject({ state: 'cleanup failed' });
    const live = f.repos.path('project', 1, 'a');
    expect(await f.git.exists(live)).toBe(true);
    expect((await f.git.run(['show', 'main:f.txt'], { cwd: live })).trim()).toBe('data');
  });

  it('two overlapping runs of one move (an expired lease) leave the repository intact and the move consistent', async () => {
    for (let round = 0; round < 5; round++) {
      await db?.close();
      const f = await fixture('scheduled');
      await Promise.all([f.service.run(f.moveId), f.service.run(f.moveId)]);
      const row = await f.k.selectFrom('projects').select('repository_storage').executeTakeFirstOrThrow();
      const live = f.repos.path('project', 1, row.repository_storage as string);
      expect(await f.git.exists(live), `round ${round}`).toBe(true);
      expect((await f.git.run(['show', 'main:f.txt'], { cwd: live })).trim()).toBe('data');
      const { state } = await f.stateOf();
      expect(['finished', 'failed', 'cleanup failed']).toContain(state);
      if (state === 'finished') expect(row.repository_storage).toBe('b');
    }
  });
});
