import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { isUniqueViolation, readCount, readTimestamp, writeBool } from '../db/dialect.js';
import { fetchPage } from '../db/pagination.js';
import type { Database, Queryable, RepositoryStorageMovesTable } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import {
  ACTIVE_STATES,
  type ContainerType,
  type MoveState,
  ONE_ACTIVE_INDEX,
  type StorageMove,
} from './storage-moves.js';

const TABLE = { project: 'projects', snippet: 'snippets', group: 'namespaces' } as const;

function toMove(r: Selectable<RepositoryStorageMovesTable>): StorageMove {
  return {
    id: r.id,
    containerType: r.container_type as ContainerType,
    containerId: r.container_id,
    state: r.state as MoveState,
    sourceStorageName: r.source_storage_name,
    destinationStorageName: r.destination_storage_name,
    errorMessage: r.error_message,
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
  };
}

/** Storage moves and the storage fields of their containers. */
export class StorageMovesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /**
   * Inserts a scheduled move; null when the container already has an active move (the database's partial unique
   * index decides, so concurrent inserts on PostgreSQL cannot both win). On PostgreSQL the transaction is then
   * aborted: the caller must end it.
   */
  async insert(
    trx: Queryable,
    m: { containerType: ContainerType; containerId: number; source: string; destination: string },
    now: string,
  ): Promise<StorageMove | null> {
    const r = await trx
      .insertInto('repository_storage_moves')
      .values({
        container_type: m.containerType,
        container_id: m.containerId,
        state: 'scheduled',
        source_storage_name: m.source,
        destination_storage_name: m.destination,
        error_message: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch((err: unknown) => {
        if (isUniqueViolation(err, ONE_ACTIVE_INDEX)) return null;
        throw err;
      });
    return r ? toMove(r) : null;
  }

  async find(id: number, type?: ContainerType): Promise<StorageMove | null> {
    let q = this.db.selectFrom('repository_storage_moves').selectAll().where('id', '=', id);
    if (type) q = q.where('container_type', '=', type);
    const r = await q.executeTakeFirst();
    return r ? toMove(r) : null;
  }

  async list(
    type: ContainerType,
    containerId: number | null,
    page: PageRequest,
  ): Promise<Paged<StorageMove>> {
    let base = this.db.selectFrom('repository_storage_moves').where('container_type', '=', type);
    if (containerId !== null) base = base.where('container_id', '=', containerId);
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('id', 'desc'), page);
    return { items: rows.map(toMove), total };
  }

  async active(trx: Queryable, type: ContainerType, containerId: number): Promise<boolean> {
    const r = await trx
      .selectFrom('repository_storage_moves')
      .select('id')
      .where('container_type', '=', type)
      .where('container_id', '=', containerId)
      .where('state', 'in', [...ACTIVE_STATES])
      .executeTakeFirst();
    return r !== undefined;
  }

  /** Sets the state only when the move is in one of `from` (another run may have moved it on); true when it did. */
  async setStateIf(
    id: number,
    from: readonly MoveState[],
    state: MoveState,
    errorMessage: string | null,
    now: string,
    trx: Queryable = this.db,
  ): Promise<boolean> {
    const r = await trx
      .updateTable('repository_storage_moves')
      .set({ state, error_message: errorMessage, updated_at: now })
      .where('id', '=', id)
      .where('state', 'in', [...from])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Locks the container's row until the transaction ends (PostgreSQL: a row lock; SQLite: the write lock) and
   * returns its current storage (null when the container is gone). The switch of a move updates this row, so while
   * the lock is held the storage cannot change: a path checked against it can be deleted safely.
   */
  async lockContainer(trx: Transaction<Database>, type: ContainerType, id: number): Promise<string | null> {
    const r = await trx
      .updateTable(TABLE[type])
      .set({ repository_read_only: sql<number>`repository_read_only` })
      .where('id', '=', id)
      .returning('repository_storage')
      .executeTakeFirst();
    return (r?.repository_storage as string | null | undefined) ?? null;
  }

  /** Makes the container read-only and returns its current storage, under the same row lock (null when gone). */
  async claimContainer(trx: Transaction<Database>, type: ContainerType, id: number): Promise<string | null> {
    const r = await trx
      .updateTable(TABLE[type])
      .set({ repository_read_only: writeBool(true) })
      .where('id', '=', id)
      .returning('repository_storage')
      .executeTakeFirst();
    return (r?.repository_storage as string | null | undefined) ?? null;
  }

  async setState(
    id: number,
    state: MoveState,
    errorMessage: string | null,
    now: string,
    trx: Queryable = this.db,
  ): Promise<void> {
    await trx
      .updateTable('repository_storage_moves')
      .set({ state, error_message: errorMessage, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  /** The storage a container's repository is on, and whether it exists. */
  async storageOf(type: ContainerType, id: number): Promise<string | null> {
    const table = TABLE[type];
    const r = await (this.db as Kysely<Database>)
      .selectFrom(table)
      .select('repository_storage')
      .where('id', '=', id)
      .executeTakeFirst();
    return (r?.repository_storage as string | null | undefined) ?? null;
  }

  async setReadOnly(
    type: ContainerType,
    id: number,
    readOnly: boolean,
    trx: Queryable = this.db,
  ): Promise<void> {
    await trx
      .updateTable(TABLE[type])
      .set({ repository_read_only: writeBool(readOnly) })
      .where('id', '=', id)
      .execute();
  }

  /** The switch: the container's storage becomes `to`, only if it still is `from`; true when it switched. */
  async switchStorage(
    trx: Queryable,
    type: ContainerType,
    id: number,
    from: string,
    to: string,
  ): Promise<boolean> {
    const r = await trx
      .updateTable(TABLE[type])
      .set({ repository_storage: to, repository_read_only: writeBool(false) })
      .where('id', '=', id)
      .where('repository_storage', '=', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Containers whose repository is on a storage (groups: their wiki). */
  async onStorage(type: ContainerType, storage: string): Promise<number[]> {
    let q = this.db.selectFrom(TABLE[type]).select('id').where('repository_storage', '=', storage);
    if (type === 'group') q = q.where(sql.ref('kind'), '=', 'group');
    const rows = await q.orderBy('id').execute();
    return rows.map((r) => r.id);
  }

  /** How many repositories of each kind are on each storage. */
  async counts(): Promise<Record<string, { projects: number; snippets: number; groups: number }>> {
    const out: Record<string, { projects: number; snippets: number; groups: number }> = {};
    const add = (
      rows: { repository_storage: string | null; n: unknown }[],
      key: 'projects' | 'snippets' | 'groups',
    ) => {
      for (const r of rows) {
        if (!r.repository_storage) continue;
        out[r.repository_storage] ??= { projects: 0, snippets: 0, groups: 0 };
        out[r.repository_storage]![key] = readCount(r.n as string | number);
      }
    };
    add(
      await this.db
        .selectFrom('projects')
        .select(['repository_storage', (eb) => eb.fn.countAll().as('n')])
        .groupBy('repository_storage')
        .execute(),
      'projects',
    );
    add(
      await this.db
        .selectFrom('snippets')
        .select(['repository_storage', (eb) => eb.fn.countAll().as('n')])
        .groupBy('repository_storage')
        .execute(),
      'snippets',
    );
    add(
      await this.db
        .selectFrom('namespaces')
        .select(['repository_storage', (eb) => eb.fn.countAll().as('n')])
        .where('kind', '=', 'group')
        .groupBy('repository_storage')
        .execute(),
      'groups',
    );
    return out;
  }

  /** Moves stuck in an active state whose job is gone (recovery after a crash). */
  async activeMoves(): Promise<StorageMove[]> {
    const rows = await this.db
      .selectFrom('repository_storage_moves')
      .selectAll()
      .where('state', 'in', [...ACTIVE_STATES])
      .execute();
    return rows.map(toMove);
  }
}
