import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../clock.js';
import { createDb, type Db, migrate } from '../db/db.js';
import { JobQueue } from '../jobs/queue.js';
import { Git } from '../repositories/git.js';
import { RepositoriesService } from '../repositories/repositories.service.js';
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
    await k
      .insertInto('users')
      .values({
        username: 'u',
        name: 'u',
        email: 'u@x',
        password_digest: null,
        admin: 1,
        state: 'active',
        private_profile: 0,
        bio: '',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await k
      .insertInto('namespaces')
      .values({
        kind: 'user',
        name: 'u',
        path: 'u',
        full_path: 'u',
        parent_id: null,
        owner_id: 1,
        visibility: 'public',
        description: '',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await k
      .insertInto('projects')
      .values({
        namespace_id: 1,
        name: 'p',
        path: 'p',
        description: '',
        visibility: 'private',
        default_branch: 'main',
        monitor_enabled: 1,
        repository_storage: 'a',
        creator_id: 1,
        created_at: now,
        updated_at: now,
        last_activity_at: now,
      })
      .execute();
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
      async () => ({ a: 100, b: 100 }),
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
});
