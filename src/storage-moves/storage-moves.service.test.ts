import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../test/helpers/clock.js';
import { databases } from '../../test/helpers/databases.js';
import { seedProjectRows } from '../../test/helpers/rows.js';
import { openTestDb } from '../../test/helpers/test-db.js';
import { AccessPolicy } from '../access/access.policy.js';
import { Git } from '../git/git.js';
import { GitRepositoriesService } from '../git/git-repositories.service.js';
import { WeightedStorages } from '../git/storages.js';
import { JobQueue } from '../jobs/queue.js';
import type { Access } from '../projects/access.js';
import type { User } from '../users/users.js';
import type { MoveState } from './storage-moves.js';
import { StorageMovesRepository } from './storage-moves.repository.js';
import { StorageMovesService } from './storage-moves.service.js';

/** A git whose copy gets one ref changed after it was written: its refs are not the source's. */
class MismatchingGit extends Git {
  override async mirror(source: string, target: string): Promise<void> {
    await super.mirror(source, target);
    const head = join(target, 'refs', 'heads', 'main');
    const oid = (await readFile(head, 'utf8')).trim();
    await writeFile(head, `${oid.replace(/^./, (c) => (c === '0' ? '1' : '0'))}\n`);
  }
}

/** A git that tells the test when the move copies a repository and when it deletes one. */
class WatchedGit extends Git {
  onMirror: () => Promise<void> = async () => undefined;
  onRemove: () => Promise<void> = async () => undefined;
  override async mirror(source: string, target: string): Promise<void> {
    await this.onMirror();
    return super.mirror(source, target);
  }
  override async remove(path: string): Promise<void> {
    await this.onRemove();
    return super.remove(path);
  }
}

/**
 * A git whose copy gets one byte flipped after it was written (a bad disk, a torn write): in the largest file
 * under `objects/` whose name matches `which`.
 */
class CorruptingGit extends Git {
  constructor(private readonly which: RegExp) {
    super();
  }
  override async mirror(source: string, target: string): Promise<void> {
    await super.mirror(source, target);
    const dir = join(target, 'objects');
    const files = (await readdir(dir, { recursive: true }))
      .map((f) => join(dir, f))
      .filter((f) => this.which.test(f));
    const sized = await Promise.all(files.map(async (f) => ({ f, s: await stat(f) })));
    const victim = sized.filter((x) => x.s.isFile()).sort((x, y) => y.s.size - x.s.size)[0];
    if (!victim) throw new Error(`no file matching ${this.which} in the copy`);
    const bytes = await readFile(victim.f);
    const at = Math.floor(bytes.length / 2);
    bytes[at] = bytes[at]! ^ 0x01;
    await chmod(victim.f, 0o600);
    await writeFile(victim.f, bytes);
  }
}

const ADMIN: User = {
  id: 1,
  username: 'u',
  name: 'u',
  email: 'u@x',
  admin: true,
  state: 'active',
  privateProfile: false,
  botSource: null,
  projectsLimit: 100000,
  bio: '',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  avatar: null,
};

const AUTHOR = { name: 't', email: 't@x' };
const ENDED: readonly MoveState[] = ['finished', 'failed', 'cleanup failed'];

describe.each(await databases())('storage move states and job (%s)', (kind) => {
  let drop: (() => Promise<void>) | null = null;
  afterEach(async () => {
    await drop?.();
    drop = null;
  });

  /**
   * Project 1 on storage `a` with one commit (`f.txt`: `data`), its move service, and, with `state`, a move row
   * a -> b in that state (the project read-only while the move is active, as scheduling leaves it).
   */
  async function fixture<G extends Git = Git>(state: MoveState | null, git: G = new Git() as G) {
    const opened = await openTestDb(kind);
    drop = opened.drop;
    const k = opened.db.kysely;
    await seedProjectRows(k, 'a');
    const repos = new GitRepositoriesService(git, {
      a: { path: join(opened.dir, 'a'), weight: 100 },
      b: { path: join(opened.dir, 'b'), weight: 100 },
    });
    await repos.create('project', 1, 'a');
    const path = (storage: 'a' | 'b') => repos.path('project', 1, storage);
    await git.commitFile(path('a'), 'main', { name: 'f.txt', content: 'data' }, 'init', AUTHOR);
    const clock = new TestClock();
    const jobs = new JobQueue(k, opened.db.dialect, clock);
    const movesRepo = new StorageMovesRepository(k);
    const service = new StorageMovesService(
      movesRepo,
      repos,
      jobs,
      new WeightedStorages(async () => ({ a: 100, b: 100 })),
      'self-managed',
      // Storage moves only ask the policy about admins and the tier: no project or group is ever looked up.
      new AccessPolicy(
        {
          findProject: async () => null,
          findGroup: async () => null,
          projectLevel: async () => 0,
          groupLevel: async () => 0,
        },
        'free',
      ) as Access,
      clock,
    );
    let moveId = 0;
    if (state) {
      const now = clock.now().toISOString();
      const created = await movesRepo.transaction((trx) =>
        movesRepo.insert(
          trx,
          { containerType: 'project', containerId: 1, source: 'a', destination: 'b' },
          now,
        ),
      );
      moveId = created!.id;
      await movesRepo.setState(moveId, state, null, now);
      if (!ENDED.includes(state)) await movesRepo.setReadOnly('project', 1, true);
    }
    const move = async (id = moveId) =>
      k
        .selectFrom('repository_storage_moves')
        .select(['state', 'error_message'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const project = async () => {
      const r = await k
        .selectFrom('projects')
        .select(['repository_storage', 'repository_read_only'])
        .executeTakeFirstOrThrow();
      return { storage: r.repository_storage, readOnly: Boolean(r.repository_read_only) }; // 0/1 on SQLite, a boolean on PostgreSQL
    };
    /** The content of `name` on the default branch of the copy on `storage`, or null when there is no copy. */
    const file = async (storage: 'a' | 'b', name = 'f.txt') =>
      (await git.exists(path(storage)))
        ? (await git.run(['show', `main:${name}`], { cwd: path(storage) })).trim()
        : null;
    const setStorage = (name: string) =>
      k.updateTable('projects').set({ repository_storage: name }).where('id', '=', 1).execute();
    return { k, git, repos, jobs, service, movesRepo, moveId, path, move, project, file, setStorage };
  }

  it('scheduled -> started (copying) -> replicated (switched, deleting the source) -> finished', async () => {
    const f = await fixture(null, new WatchedGit());
    const scheduled = await f.service.schedule(ADMIN, 'project', 1, 'b');
    expect(scheduled.state).toBe('scheduled');
    expect(await f.project()).toEqual({ storage: 'a', readOnly: true });
    const seen: string[] = [];
    f.git.onMirror = async () => {
      const p = await f.project();
      seen.push(`copy: ${(await f.move(scheduled.id)).state}, on ${p.storage}, read-only ${p.readOnly}`);
    };
    f.git.onRemove = async () => {
      const p = await f.project();
      seen.push(`delete: ${(await f.move(scheduled.id)).state}, on ${p.storage}, read-only ${p.readOnly}`);
    };
    expect(await f.jobs.drain()).toBe(1);
    expect(seen).toEqual([
      'copy: started, on a, read-only true',
      'delete: replicated, on b, read-only false',
    ]);
    expect(await f.move(scheduled.id)).toEqual({ state: 'finished', error_message: null });
    expect(await f.project()).toEqual({ storage: 'b', readOnly: false });
    expect(await f.file('b')).toBe('data');
    expect(await f.file('a')).toBeNull();
  });

  it('initial: runs like a scheduled move, to finished', async () => {
    const f = await fixture('initial');
    await f.service.run(f.moveId);
    expect(await f.move()).toEqual({ state: 'finished', error_message: null });
    expect(await f.project()).toEqual({ storage: 'b', readOnly: false });
    expect([await f.file('a'), await f.file('b')]).toEqual([null, 'data']);
  });

  it('started (a crash mid-copy): copies again over the stale destination and finishes', async () => {
    const f = await fixture('started');
    await f.git.mirror(f.path('a'), f.path('b'));
    await f.git.commitFile(f.path('a'), 'main', { name: 'g.txt', content: 'later' }, 'second', AUTHOR);
    await f.service.run(f.moveId);
    expect(await f.move()).toEqual({ state: 'finished', error_message: null });
    expect(await f.project()).toEqual({ storage: 'b', readOnly: false });
    expect(await f.file('b', 'g.txt')).toBe('later');
    expect(await f.file('a')).toBeNull();
  });

  it('replicated (a crash after the switch): deletes the source and finishes', async () => {
    const f = await fixture('replicated');
    await f.git.mirror(f.path('a'), f.path('b'));
    await f.setStorage('b');
    await f.movesRepo.setReadOnly('project', 1, false);
    await f.service.run(f.moveId);
    expect(await f.move()).toEqual({ state: 'finished', error_message: null });
    expect(await f.project()).toEqual({ storage: 'b', readOnly: false });
    expect([await f.file('a'), await f.file('b')]).toEqual([null, 'data']);
  });

  it.each(ENDED)('%s: ended, a second run changes nothing', async (state) => {
    const f = await fixture(state);
    await f.k
      .updateTable('repository_storage_moves')
      .set({ error_message: state === 'finished' ? null : 'as it ended' })
      .execute();
    const before = { move: await f.move(), project: await f.project() };
    await f.service.run(f.moveId);
    expect({ move: await f.move(), project: await f.project() }).toEqual(before);
    expect([await f.file('a'), await f.file('b')]).toEqual(['data', null]);
  });

  it('-> failed: the source repository is missing; the project is writable again', async () => {
    const f = await fixture('scheduled');
    await f.git.remove(f.path('a'));
    await f.service.run(f.moveId);
    expect(await f.move()).toEqual({
      state: 'failed',
      error_message: `the source repository is missing at ${f.path('a')}`,
    });
    expect(await f.project()).toEqual({ storage: 'a', readOnly: false });
  });

  it('-> failed: the container no longer exists', async () => {
    const f = await fixture('scheduled');
    await f.k.deleteFrom('projects').execute();
    await f.service.run(f.moveId);
    expect(await f.move()).toEqual({ state: 'failed', error_message: 'the container no longer exists' });
    expect(await f.file('b')).toBeNull();
  });

  it('-> failed on a refs mismatch: destination removed, source intact, project writable again', async () => {
    const f = await fixture(null, new MismatchingGit());
    const move = await f.service.schedule(ADMIN, 'project', 1, 'b');
    expect(await f.project()).toEqual({ storage: 'a', readOnly: true });
    await f.jobs.drain();
    const after = await f.service.get(ADMIN, 'project', move.id);
    expect(after.state).toBe('failed');
    expect(after.errorMessage).toMatch(/refs mismatch/);
    expect(await f.project()).toEqual({ storage: 'a', readOnly: false });
    expect([await f.file('a'), await f.file('b')]).toEqual(['data', null]);
  });

  it.each([
    ['a pack', /\.pack$/],
    ['a pack index', /\.idx$/],
    ['a loose object', /objects\/[0-9a-f]{2}\/[0-9a-f]+$/],
  ])('-> failed when one byte of %s in the copy is corrupt: source kept, intact and writable', async (_, which) => {
    const f = await fixture(null, new CorruptingGit(which));
    // Two commits: one packed, one loose.
    await f.git.run(['repack', '-a', '-d', '-q'], { cwd: f.path('a') });
    await f.git.commitFile(f.path('a'), 'main', { name: 'g.txt', content: 'loose' }, 'second', AUTHOR);
    const before = await f.git.checksum(f.path('a'));
    const move = await f.service.schedule(ADMIN, 'project', 1, 'b');
    await f.jobs.drain();
    const after = await f.service.get(ADMIN, 'project', move.id);
    expect(after.state).toBe('failed');
    expect(after.errorMessage).toMatch(/differs from the source's in the copy/);
    expect(await f.project()).toEqual({ storage: 'a', readOnly: false });
    expect(await f.git.exists(f.path('b'))).toBe(false);
    // The source: same refs, every object sound, and it takes a new commit.
    expect(await f.git.checksum(f.path('a'))).toBe(before);
    await f.git.fsck(f.path('a'));
    await f.git.commitFile(f.path('a'), 'main', { name: 'h.txt', content: 'after' }, 'third', AUTHOR);
    const show = async (rev: string) => (await f.git.run(['show', rev], { cwd: f.path('a') })).trim();
    expect([await show('main~2:f.txt'), await show('main~1:g.txt'), await show('main:h.txt')]).toEqual([
      'data',
      'loose',
      'after',
    ]);
  });

  it('-> cleanup failed: the source changed after it was copied, so it is kept', async () => {
    const f = await fixture('replicated');
    await f.git.mirror(f.path('a'), f.path('b'));
    await f.setStorage('b');
    await f.git.commitFile(f.path('a'), 'main', { name: 'g.txt', content: 'late push' }, 'late', AUTHOR);
    await f.service.run(f.moveId);
    expect(await f.move()).toEqual({
      state: 'cleanup failed',
      error_message: 'the source changed after it was copied; it was kept at its old location for inspection',
    });
    expect(await f.file('a', 'g.txt')).toBe('late push');
    expect(await f.file('b')).toBe('data');
  });

  it('-> cleanup failed: the source is the current repository (never deleted)', async () => {
    // A replicated move whose container is (again) on its source: the source is live and must stay.
    const f = await fixture('replicated');
    await f.git.mirror(f.path('a'), f.path('b'));
    await f.service.run(f.moveId);
    expect(await f.move()).toMatchObject({ state: 'cleanup failed' });
    expect(await f.file('a')).toBe('data');
  });

  it('a stale move whose source is gone never deletes its destination when that is the live repository', async () => {
    // Racing moves: another move already switched the project to b and deleted a; this one then failed
    // ("source missing") and deleted its destination b, the live repository.
    const f = await fixture('scheduled');
    await f.git.mirror(f.path('a'), f.path('b'));
    await f.setStorage('b');
    await f.git.remove(f.path('a'));
    await f.service.run(f.moveId);
    expect((await f.move()).state).toBe('failed');
    expect(await f.file('b')).toBe('data');
  });

  it('two overlapping runs of one move (an expired lease) leave the repository intact and the move consistent', async () => {
    for (let round = 0; round < 5; round++) {
      await drop?.();
      const f = await fixture('scheduled');
      await Promise.all([f.service.run(f.moveId), f.service.run(f.moveId)]);
      const { storage } = await f.project();
      expect(await f.file(storage as 'a' | 'b'), `round ${round}`).toBe('data');
      const { state } = await f.move();
      expect(ENDED).toContain(state);
      if (state === 'finished') expect(storage).toBe('b');
    }
  });
});
