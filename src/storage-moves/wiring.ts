import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { PushTracker } from '../cluster/push-tracker.js';
import type { Offering } from '../config.js';
import type { Database } from '../db/schema.js';
import type { GitRepositoriesService } from '../git/git-repositories.service.js';
import type { WeightedStorages } from '../git/storages.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Access } from '../projects/access.js';
import type { ContainerType } from './storage-moves.js';
import { StorageMovesRepository } from './storage-moves.repository.js';
import { StorageMovesService } from './storage-moves.service.js';

/** Repository storage moves: durable jobs that copy, verify and switch a repository to another storage. */
export function wireStorageMoves(deps: {
  kysely: Kysely<Database>;
  git: GitRepositoriesService;
  jobs: JobQueue;
  storagePicker: WeightedStorages;
  offering: Offering;
  access: Access;
  clock: Clock;
  /** Called after a repository moved. */
  moved: (type: ContainerType, id: number) => Promise<void>;
  /** How long a move waits for pushes in progress before it fails. */
  pushWaitMs: number;
  pushes: PushTracker;
}): { storageMoves: StorageMovesService } {
  return {
    storageMoves: new StorageMovesService(
      new StorageMovesRepository(deps.kysely),
      deps.git,
      deps.jobs,
      deps.storagePicker,
      deps.offering,
      deps.access,
      deps.clock,
      deps.moved,
      deps.pushWaitMs,
      deps.pushes,
    ),
  };
}
