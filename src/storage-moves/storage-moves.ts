/** Repository storage moves: states and the pure rules. */

export type ContainerType = 'project' | 'snippet' | 'group';

export type MoveState =
  | 'initial'
  | 'scheduled'
  | 'started'
  | 'replicated'
  | 'finished'
  | 'failed'
  | 'cleanup failed';

/**
 * A move that has not ended keeps its repository read-only and blocks a second move: the partial unique index
 * `repository_storage_moves_one_active` (migration 0008) allows one move in these states per container.
 */
export const ACTIVE_STATES: readonly MoveState[] = ['initial', 'scheduled', 'started', 'replicated'];

/** The index that allows one active move per container (what a losing concurrent insert violates). */
export const ONE_ACTIVE_INDEX = {
  name: 'repository_storage_moves_one_active',
  table: 'repository_storage_moves',
  columns: ['container_type', 'container_id'],
};

export interface StorageMove {
  readonly id: number;
  readonly containerType: ContainerType;
  readonly containerId: number;
  readonly state: MoveState;
  readonly sourceStorageName: string;
  readonly destinationStorageName: string;
  readonly errorMessage: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const MOVE_JOB = 'repository_storage_move';
