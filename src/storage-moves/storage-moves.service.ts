import type { Clock } from '../clock.js';
import { PushTracker } from '../cluster/push-tracker.js';
import type { Offering } from '../config.js';
import { AppError, badRequest, forbidden, notFound, paramError } from '../errors.js';
import type { GitRepositoriesService } from '../git/git-repositories.service.js';
import { NoWeightedStorage, type WeightedStorages } from '../git/storages.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { User } from '../users/users.js';
import { type ContainerType, MOVE_JOB, type MoveState, type StorageMove } from './storage-moves.js';
import type { StorageMovesRepository } from './storage-moves.repository.js';

/**
 * GitLab's answer when the container already has an active move: its repository is read-only, a validation error
 * on the container (`{"message": {"project": ["is read-only"]}}`, 400; `container_repository_writable`).
 */
export class MoveInProgressError extends AppError {
  constructor(type: ContainerType) {
    super('invalid', { shape: 'fields', fields: { [type]: ['is read-only'] } });
  }
}

/** The container left the source storage between reading it and scheduling (another move just switched it). */
class SourceChanged extends Error {}

/** A move's states before its switch; the move can still fail from these. */
const BEFORE_SWITCH: readonly MoveState[] = ['initial', 'scheduled', 'started'];

/**
 * Schedules and runs repository storage moves (admin only). A move is a durable job: copy, verify the ref
 * checksum and the copied objects (Git.verifyCopy), switch the container's storage in one transaction, then delete the source. The source is
 * never deleted before the switch, nor when source and destination are the same directory.
 */
export class StorageMovesService {
  constructor(
    private readonly repo: StorageMovesRepository,
    private readonly repos: GitRepositoriesService,
    private readonly jobs: JobQueue,
    private readonly storagePicker: WeightedStorages,
    private readonly offering: Offering,
    private readonly access: Access,
    private readonly clock: Clock,
    /** Called after a repository moved (Geo records that secondaries must resync it). */
    private readonly moved: (type: ContainerType, id: number) => Promise<void> = async () => undefined,
    /** How long a move waits for pushes in progress before it fails. */
    private readonly pushWaitMs = 30_000,
    /** Pushes in progress (on every process when shared): a move waits for them before it copies. */
    private readonly pushes: PushTracker = new PushTracker(null, false),
  ) {
    jobs.register(MOVE_JOB, async (job) => this.run((job.payload as { moveId: number }).moveId));
  }

  private check(actor: User | null, type: ContainerType): void {
    this.access.admin(actor);
    // Spec tiers: project and snippet moves are for self-managed; group moves need Premium or Ultimate (self-managed).
    if (this.offering === 'hosted')
      throw forbidden('Repository storage moves are available on self-managed instances only');
    if (type === 'group') this.access.tier('group_storage_moves');
  }

  private storage(name: string, field: string): string {
    if (!this.repos.hasStorage(name))
      throw paramError(`${field} does not have a valid value: no storage named "${name}"`);
    return name;
  }

  /** Schedules a move of one container (201). */
  async schedule(
    actor: User | null,
    type: ContainerType,
    id: number,
    destination?: string,
  ): Promise<StorageMove> {
    this.check(actor, type);
    for (let attempt = 0; ; attempt++) {
      const source = await this.repo.storageOf(type, id);
      if (source === null)
        throw notFound(type === 'project' ? 'Project' : type === 'snippet' ? 'Snippet' : 'Group');
      try {
        return await this.scheduleFrom(type, id, source, destination);
      } catch (err) {
        // A move that just ended switched the storage under us: read it again (bounded; a move takes a while).
        if (err instanceof SourceChanged && attempt < 2) continue;
        if (err instanceof SourceChanged) throw new MoveInProgressError(type);
        throw err;
      }
    }
  }

  /**
   * Creates the move, makes the container read-only and enqueues the job in one transaction. The database allows
   * one active move per container (partial unique index): of concurrent requests, one wins and the others get
   * GitLab's 400. The container's row is updated (and so locked) in the same transaction and its storage checked
   * against `source`, so a move is never scheduled from a storage the repository has already left.
   */
  private async scheduleFrom(
    type: ContainerType,
    id: number,
    source: string,
    destination?: string,
  ): Promise<StorageMove> {
    const dest =
      destination !== undefined
        ? this.storage(destination, 'destination_storage_name')
        : await this.pickDestination(source);
    if (dest === source) throw badRequest(`the repository is already on storage "${source}"`);
    // Spec (Errors): moving a repository onto the storage it is already on once deleted it. Never again.
    if (await this.repos.sameDirectory(source, dest)) {
      throw badRequest(`storages "${source}" and "${dest}" resolve to the same directory`);
    }
    const now = this.clock.now().toISOString();
    return this.repo.transaction(async (trx) => {
      if (await this.repo.active(trx, type, id)) throw new MoveInProgressError(type);
      const move = await this.repo.insert(
        trx,
        { containerType: type, containerId: id, source, destination: dest },
        now,
      );
      if (!move) throw new MoveInProgressError(type);
      const current = await this.repo.claimContainer(trx, type, id);
      if (current === null)
        throw notFound(type === 'project' ? 'Project' : type === 'snippet' ? 'Snippet' : 'Group');
      if (current !== source) throw new SourceChanged();
      await this.jobs.enqueue(MOVE_JOB, { moveId: move.id }, { trx });
      return move;
    });
  }

  private async pickDestination(source: string): Promise<string> {
    try {
      return await this.storagePicker.pick(source);
    } catch (err) {
      if (err instanceof NoWeightedStorage)
        throw badRequest('no other storage with a weight above 0; name destination_storage_name');
      throw err;
    }
  }

  /** Schedules moves of every container on a storage (202); returns how many were scheduled. */
  async scheduleAll(
    actor: User | null,
    type: ContainerType,
    source: string,
    destination?: string,
  ): Promise<number> {
    this.check(actor, type);
    this.storage(source, 'source_storage_name');
    if (destination !== undefined) this.storage(destination, 'destination_storage_name');
    let n = 0;
    for (const id of await this.repo.onStorage(type, source)) {
      try {
        await this.scheduleFrom(type, id, source, destination);
        n++;
      } catch (err) {
        // Containers already being moved keep their move, and containers that left the storage meanwhile are no
        // longer the bulk request's business; anything else stops it.
        if (!(err instanceof MoveInProgressError || err instanceof SourceChanged)) throw err;
      }
    }
    return n;
  }

  async list(
    actor: User | null,
    type: ContainerType,
    containerId: number | null,
    page: PageRequest,
  ): Promise<Paged<StorageMove>> {
    this.check(actor, type);
    if (containerId !== null && (await this.repo.storageOf(type, containerId)) === null) throw notFound();
    return this.repo.list(type, containerId, page);
  }

  async get(actor: User | null, type: ContainerType, id: number, containerId?: number): Promise<StorageMove> {
    this.check(actor, type);
    const move = await this.repo.find(id, type);
    if (!move || (containerId !== undefined && move.containerId !== containerId))
      throw notFound('Storage Move');
    return move;
  }

  /** The configured storages with their weight and how many repositories each holds (admin). */
  async storages(actor: User | null) {
    this.access.admin(actor);
    const [weights, counts] = await Promise.all([this.storagePicker.weights(), this.repo.counts()]);
    return this.repos.storageNames().map((name) => ({
      name,
      path: this.repos.storagePath(name),
      weight: weights[name] ?? 0,
      ...(counts[name] ?? { projects: 0, snippets: 0, groups: 0 }),
    }));
  }

  /**
   * The job: idempotent, resumable after a crash at any step, and safe when two runs of one move overlap (a lease
   * that expired). Nothing is deleted unless, under the container's row lock, the path is not its repository: the
   * copy only while the container is still on the source, the source only once the container is on the destination.
   */
  async run(moveId: number): Promise<void> {
    const move = await this.repo.find(moveId);
    if (!move || !['scheduled', 'started', 'replicated', 'initial'].includes(move.state)) return;
    const {
      containerType: type,
      containerId: id,
      sourceStorageName: src,
      destinationStorageName: dst,
    } = move;
    const source = this.repos.path(type, id, src);
    const target = this.repos.path(type, id, dst);
    const same = await this.repos.sameDirectory(src, dst);
    const now = () => this.clock.now().toISOString();
    // The refs digest source and copy had when the copy was verified (unknown when an earlier run copied).
    let copied: string | null = null;

    if (move.state !== 'replicated') {
      // Another run of this move (a lease that expired) may have ended or switched it meanwhile: then it owns it.
      if (!(await this.repo.setStateIf(moveId, BEFORE_SWITCH, 'started', null, now()))) return;
      const fail = (message: string) => this.fail(move, message, same ? null : target);
      if (same)
        return fail(
          `storages "${src}" and "${dst}" resolve to the same directory; nothing was moved or deleted`,
        );
      const current = await this.repo.storageOf(type, id);
      if (current === null) {
        return this.repo.setState(moveId, 'failed', 'the container no longer exists', now());
      }
      if (current !== src)
        return fail(
          `the repository is no longer on storage "${src}" (it is on "${current}"); nothing was moved`,
        );
      if (!(await this.repos.git.exists(source)))
        return fail(`the source repository is missing at ${source}`);
      // GitLab waits about 30 s for pushes in progress, then fails the move and makes the repository writable.
      if (!(await this.pushes.waitForNone(`${type}:${id}`, this.pushWaitMs)))
        return fail(`Timeout waiting for ${type} repository pushes`);
      // The copy is made and proved beside the destination, and put in place only in the switch, under the
      // container's lock: an overlapping run of this move (an expired lease) never touches a copy that is live.
      if (!(await this.repos.git.exists(target)) && (await this.repos.git.occupied(target)))
        return fail(`copy failed: ${target} exists and is not a repository; it was left as it is`);
      const copy = this.repos.git.scratch(target);
      const dropCopy = () => this.repos.git.remove(copy).catch(() => undefined);
      try {
        await this.repos.git.mirror(source, copy);
        // The copy's refs are the source's, byte for byte, and its objects too, intact (git's pack checksums,
        // loose objects byte for byte): docs/api.md, What a move proves.
        const [a, b] = await Promise.all([
          this.repos.git.refsDigest(source),
          this.repos.git.refsDigest(copy),
        ]);
        if (a !== b) throw new Error(`refs mismatch: source ${a}, destination ${b}`);
        copied = a;
        await this.repos.git.verifyCopy(source, copy);
      } catch (err) {
        await dropCopy();
        return fail(`copy failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      // The switch: from here on, the destination is the repository. Both rows are conditional: when another run
      // of this move ended it, or the container left the source, nothing switches and the copy is dropped.
      let stale: string | null = null;
      const switched = await this.repo
        .transaction(async (trx) => {
          if (!(await this.repo.switchStorage(trx, type, id, src, dst))) throw new SourceChanged();
          if (!(await this.repo.setStateIf(moveId, ['started'], 'replicated', null, now(), trx)))
            throw new SourceChanged();
          stale = await this.repos.git.place(copy, target);
          return true;
        })
        .catch(async (err: unknown) => {
          await dropCopy();
          if (err instanceof SourceChanged) return false;
          throw err;
        });
      if (stale) await this.repos.git.remove(stale);
      if (!switched) return;
      await this.moved(type, id);
    }
    if (same) return this.repo.setState(moveId, 'finished', null, now());
    try {
      // A push that began before the move was scheduled (in another process) could still have landed on the
      // source after the verified copy: then the source is kept, not deleted, and the move says so. (Compared
      // with the copy as verified: the destination is live now and may already have taken new pushes.)
      if (
        (await this.repos.git.exists(source)) &&
        (await this.repos.git.refsDigest(source)) !== (copied ?? (await this.repos.git.refsDigest(target)))
      ) {
        return await this.repo.setState(
          moveId,
          'cleanup failed',
          'the source changed after it was copied; it was kept at its old location for inspection',
          now(),
        );
      }
      const aside = await this.repo.transaction(async (trx) => {
        const current = await this.repo.lockContainer(trx, type, id);
        if (current === src) return 'live' as const;
        return this.repos.git.detach(source);
      });
      if (aside === 'live') {
        return await this.repo.setState(
          moveId,
          'cleanup failed',
          `the source at storage "${src}" is the repository's current location; it was not deleted`,
          now(),
        );
      }
      if (aside) await this.repos.git.remove(aside);
      await this.repo.setState(moveId, 'finished', null, now());
    } catch (err) {
      await this.repo.setState(moveId, 'cleanup failed', `deleting the source failed: ${String(err)}`, now());
    }
  }

  /**
   * Ends a move that failed before its switch and deletes its copy, under the container's row lock: the copy is
   * deleted only while the container is still on the move's source (so never the live repository), and only by
   * the run that ended the move.
   */
  private async fail(move: StorageMove, message: string, target: string | null): Promise<void> {
    const { id: moveId, containerType: type, containerId: id, sourceStorageName: src } = move;
    const aside = await this.repo.transaction(async (trx) => {
      const current = await this.repo.lockContainer(trx, type, id);
      const now = this.clock.now().toISOString();
      if (!(await this.repo.setStateIf(moveId, BEFORE_SWITCH, 'failed', message, now, trx))) return null;
      await this.repo.setReadOnly(type, id, false, trx);
      if (current !== src) return null;
      // Only a repository (a copy of an earlier attempt) is taken away: anything else there is not ours.
      return target !== null && (await this.repos.git.exists(target)) ? this.repos.git.detach(target) : null;
    });
    if (aside) await this.repos.git.remove(aside).catch(() => undefined);
  }
}
