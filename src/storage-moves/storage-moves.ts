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

/** A move that has not ended keeps its repository read-only and blocks a second move. */
export const ACTIVE_STATES: readonly MoveState[] = ['initial', 'scheduled', 'started', 'replicated'];

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
