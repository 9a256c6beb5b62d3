import type { Paged, PageRequest, User } from '../accounts/accounts.js';
import type { Clock } from '../clock.js';
import type { Offering, Tier } from '../config.js';
import { AppError, forbidden, notFound, paramError, unauthorized } from '../errors.js';
import type { JobQueue } from '../jobs/queue.js';
import type { RepositoriesService } from '../repositories/repositories.service.js';
import { pickStorage } from '../repositories/storages.js';
import { type ContainerType, MOVE_JOB, type StorageMove } from './storage-moves.js';
import type { StorageMovesRepository } from './storage-moves.repository.js';

const badRequest = (message: string) => new AppError(400, { message: `400 Bad request - ${message}` });

/**
 * Schedules and runs repository storage moves (admin only). A move is a durable job: copy, verify the ref
 * checksum and fsck, switch the container's storage in one transaction, then delete the source. The source is
 * never deleted before the switch, nor when source and destination are the same directory.
 */
export class StorageMovesService {
  constructor(
    private readonly repo: StorageMovesRepository,
    private readonly repos: RepositoriesService,
    private readonly jobs: JobQueue,
    private readonly weights: () => Promise<Record<string, number>>,
    private readonly offering: Offering,
    private readonly tier: Tier,
    private readonly clock: Clock,
    /** Called after a repository moved (Geo records that secondaries must resync it). */
    private readonly moved: (type: ContainerType, id: number) => Promise<void> = async () => undefined,
  ) {
    jobs.register(MOVE_JOB, async (job) => this.run((job.payload as { moveId: number }).moveId));
  }

  private check(actor: User | null, type: ContainerType): void {
    if (!actor) throw unauthorized();
    if (!actor.admin) throw forbidden();
    // Spec tiers: project and snippet moves are for self-managed; group moves need Premium or Ultimate (self-managed).
    if (this.offering === 'hosted')
      throw forbidden('Repository storage moves are available on self-managed instances only');
    if (type === 'group' && this.tier === 'free')
      throw forbidden('Group repository storage moves need the Premium or Ultimate tier');
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
    const source = await this.repo.storageOf(type, id);
    if (source === null)
      throw notFound(type === 'project' ? 'Project' : type === 'snippet' ? 'Snippet' : 'Group');
    return this.scheduleFrom(type, id, source, destination);
  }

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
      if (await this.repo.active(trx, type, id)) throw badRequest('the repository is already being moved');
      const move = await this.repo.insert(
        trx,
        { containerType: type, containerId: id, source, destination: dest },
        now,
      );
      await this.repo.setReadOnly(type, id, true, trx);
      await this.jobs.enqueue(MOVE_JOB, { moveId: move.id }, { trx });
      return move;
    });
  }

  private async pickDestination(source: string): Promise<string> {
    const weights = { ...(await this.weights()) };
    delete weights[source];
    try {
      return pickStorage(weights, Math.random());
    } catch {
      throw badRequest('no other storage with a weight above 0; name destination_storage_name');
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
        // Containers already being moved keep their move; anything else stops the bulk request.
        if (!(err instanceof AppError && /already being moved/.test(String(err.body.message)))) throw err;
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
    if (!actor) throw unauthorized();
    if (!actor.admin) throw forbidden();
    const [weights, counts] = await Promise.all([this.weights(), this.repo.counts()]);
    return this.repos.storageNames().map((name) => ({
      name,
      path: this.repos.storagePath(name),
      weight: weights[name] ?? 0,
      ...(counts[name] ?? { projects: 0, snippets: 0, groups: 0 }),
    }));
  }

  /** The job: idempotent, resumable after a crash at any step. */
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

    if (move.state !== 'replicated') {
      await this.repo.setState(moveId, 'started', null, now());
      const fail = async (message: string) => {
        if (!same) await this.repos.git.remove(target).catch(() => undefined);
        await this.repo.transaction(async (trx) => {
          await this.repo.setState(moveId, 'failed', message, now(), trx);
          await this.repo.setReadOnly(type, id, false, trx);
        });
      };
      if (same)
        return fail(
          `storages "${src}" and "${dst}" resolve to the same directory; nothing was moved or deleted`,
        );
      if ((await this.repo.storageOf(type, id)) === null) {
        return this.repo.setState(moveId, 'failed', 'the container no longer exists', now());
      }
      if (!(await this.repos.git.exists(source)))
        return fail(`the source repository is missing at ${source}`);
      try {
        await this.repos.waitForWrites(source);
        await this.repos.git.mirror(source, target);
        const [a, b] = await Promise.all([this.repos.git.checksum(source), this.repos.git.checksum(target)]);
        if (a !== b) throw new Error(`checksum mismatch: source ${a}, destination ${b}`);
        await this.repos.git.fsck(target);
      } catch (err) {
        return fail(`copy failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      // The switch: from here on, the destination is the repository.
      await this.repo.transaction(async (trx) => {
        await this.repo.setStorage(trx, type, id, dst);
        await this.repo.setState(moveId, 'replicated', null, now(), trx);
      });
      await this.moved(type, id);
    }
    if (same) return this.repo.setState(moveId, 'finished', null, now());
    try {
      // A push that began before the move was scheduled (in another process) could still have landed on the
      // source after the verified copy: then the source is kept, not deleted, and the move says so.
      if (
        (await this.repos.git.exists(source)) &&
        (await this.repos.git.checksum(source)) !== (await this.repos.git.checksum(target))
      ) {
        return await this.repo.setState(
          moveId,
          'cleanup failed',
          'the source changed after it was copied; it was kept at its old location for inspection',
          now(),
        );
      }
      await this.repos.git.remove(source);
      await this.repo.setState(moveId, 'finished', null, now());
    } catch (err) {
      await this.repo.setState(moveId, 'cleanup failed', `deleting the source failed: ${String(err)}`, now());
    }
  }
}
