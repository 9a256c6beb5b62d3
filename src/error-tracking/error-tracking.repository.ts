import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { type DialectName, readBool, readCount, readTimestamp, writeBool } from '../db/dialect.js';
import { fetchPage } from '../db/paged.js';
import type { Database, ErrorTrackingErrorsTable, ErrorTrackingEventsTable } from '../db/schema.js';
import type { Paged, PageRequest } from '../paging.js';
import type {
  ClientKey,
  ErrorEvent,
  ErrorStatus,
  ErrorTrackingSettings,
  TrackedError,
} from './error-tracking.js';
import type { NormalizedEvent } from './events.js';

function toError(r: Selectable<ErrorTrackingErrorsTable>): TrackedError {
  return {
    id: r.id,
    projectId: r.project_id,
    type: r.type,
    message: r.message,
    culprit: r.culprit,
    platform: r.platform,
    status: r.status as ErrorStatus,
    count: r.events_count,
    userCount: r.users_count,
    firstSeen: readTimestamp(r.first_seen_at),
    lastSeen: readTimestamp(r.last_seen_at),
    firstRelease: r.first_release,
    lastRelease: r.last_release,
    environment: r.environment,
    tags: JSON.parse(r.tags) as Record<string, string>,
  };
}

function toEvent(r: Selectable<ErrorTrackingEventsTable>): ErrorEvent {
  return {
    id: r.id,
    errorId: r.error_id,
    eventId: r.event_id,
    level: r.level,
    environment: r.environment,
    release: r.release,
    message: r.message,
    userKey: r.user_key,
    occurredAt: readTimestamp(r.occurred_at),
    payload: JSON.parse(r.payload) as Record<string, unknown>,
  };
}

/** Largest stored session count (PostgreSQL `integer`). */
const MAX_COUNT = 2_147_483_647;

export interface SessionCounts {
  readonly release: string;
  readonly environment: string;
  readonly started: number;
  readonly errored: number;
  readonly crashed: number;
}

/** Another transaction stored the same event_id first: the batch is run again (and skips it then). */
class DuplicateRace extends Error {}

export type ErrorSort = 'last_seen' | 'first_seen' | 'frequency';

/** Error tracking storage. */
export class ErrorTrackingRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
  ) {}

  // Settings and keys

  async settings(
    projectId: number,
  ): Promise<(ErrorTrackingSettings & { tokenEncrypted: string | null }) | null> {
    const r = await this.db
      .selectFrom('error_tracking_settings')
      .selectAll()
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    if (!r) return null;
    return {
      enabled: readBool(r.enabled),
      integrated: readBool(r.integrated),
      apiUrl: r.api_url,
      hasToken: r.token_encrypted !== null,
      projectName: r.project_name,
      organizationName: r.organization_name,
      tokenEncrypted: r.token_encrypted,
    };
  }

  async putSettings(
    projectId: number,
    s: {
      enabled: boolean;
      integrated: boolean;
      apiUrl: string | null;
      tokenEncrypted: string | null;
      projectName: string | null;
      organizationName: string | null;
    },
    now: string,
  ): Promise<void> {
    const values = {
      enabled: writeBool(s.enabled),
      integrated: writeBool(s.integrated),
      api_url: s.apiUrl,
      token_encrypted: s.tokenEncrypted,
      project_name: s.projectName,
      organization_name: s.organizationName,
      updated_at: now,
    };
    await this.db
      .insertInto('error_tracking_settings')
      .values({ project_id: projectId, ...values })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(values))
      .execute();
  }

  async keys(projectId: number): Promise<ClientKey[]> {
    const rows = await this.db
      .selectFrom('error_tracking_client_keys')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id', 'asc')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      projectId: r.project_id,
      active: readBool(r.active),
      publicKey: r.public_key,
      createdAt: readTimestamp(r.created_at),
    }));
  }

  async insertKey(projectId: number, publicKey: string, now: string): Promise<void> {
    await this.db
      .insertInto('error_tracking_client_keys')
      .values({ project_id: projectId, active: writeBool(true), public_key: publicKey, created_at: now })
      .execute();
  }

  async deleteKey(projectId: number, id: number): Promise<void> {
    await this.db
      .deleteFrom('error_tracking_client_keys')
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .execute();
  }

  // Recording

  /** Records normalised events in one transaction: each finds or creates its error and counts it. */
  async record(projectId: number, events: readonly NormalizedEvent[], now: string): Promise<void> {
    await this.recordMany([{ projectId, events }], now);
  }

  /** Records the events of several requests in one transaction (the collector's group commit). */
  async recordMany(
    batches: readonly { projectId: number; events: readonly NormalizedEvent[] }[],
    now: string,
  ): Promise<void> {
    // A concurrent transaction (PostgreSQL) may commit the same (project, event_id) between our check and our
    // insert: the insert then does nothing, and the whole transaction is run again, where the check sees it.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.db.transaction().execute(async (trx) => {
          for (const b of batches) for (const e of b.events) await this.recordOne(trx, b.projectId, e, now);
        });
        return;
      } catch (err) {
        if (!(err instanceof DuplicateRace) || attempt >= 3) throw err;
      }
    }
  }

  /** Whether the project already has an event with this id (Sentry deduplicates by event_id per project). */
  private async seen(trx: Transaction<Database>, projectId: number, eventId: string): Promise<boolean> {
    const r = await trx
      .selectFrom('error_tracking_events')
      .select('id')
      .where('project_id', '=', projectId)
      .where('event_id', '=', eventId)
      .executeTakeFirst();
    return r !== undefined;
  }

  private async recordOne(
    trx: Transaction<Database>,
    projectId: number,
    e: NormalizedEvent,
    now: string,
  ): Promise<void> {
    // A repeated event_id (an SDK retry, or a replay) is accepted and not stored again.
    if (await this.seen(trx, projectId, e.eventId)) return;
    const least = this.dialect === 'postgres' ? sql`LEAST` : sql`min`;
    const greatest = this.dialect === 'postgres' ? sql`GREATEST` : sql`max`;
    const tags = JSON.stringify({ ...e.tags, level: e.level });
    const error = await trx
      .insertInto('error_tracking_errors')
      .values({
        project_id: projectId,
        fingerprint: e.fingerprint,
        type: e.type,
        message: e.message,
        culprit: e.culprit,
        platform: e.platform,
        status: 'unresolved',
        events_count: 1,
        users_count: 0,
        first_seen_at: e.timestamp,
        last_seen_at: e.timestamp,
        first_release: e.release,
        last_release: e.release,
        environment: e.environment,
        tags,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.columns(['project_id', 'fingerprint']).doUpdateSet({
          events_count: sql`error_tracking_errors.events_count + 1`,
          message: e.message,
          first_seen_at: sql`${least}(error_tracking_errors.first_seen_at, excluded.first_seen_at)`,
          last_seen_at: sql`${greatest}(error_tracking_errors.last_seen_at, excluded.last_seen_at)`,
          first_release: sql`coalesce(error_tracking_errors.first_release, excluded.first_release)`,
          last_release: sql`coalesce(excluded.last_release, error_tracking_errors.last_release)`,
          environment: sql`coalesce(excluded.environment, error_tracking_errors.environment)`,
          tags,
          // A resolved error that occurs again is a regression: unresolved again. Ignored stays ignored.
          status: sql`CASE WHEN error_tracking_errors.status = 'resolved' THEN 'unresolved' ELSE error_tracking_errors.status END`,
          updated_at: now,
        }),
      )
      .returning('id')
      .executeTakeFirstOrThrow();
    if (e.userKey !== null) {
      const seen = await trx
        .selectFrom('error_tracking_events')
        .select('id')
        .where('error_id', '=', error.id)
        .where('user_key', '=', e.userKey)
        .limit(1)
        .executeTakeFirst();
      if (!seen) {
        await trx
          .updateTable('error_tracking_errors')
          .set({ users_count: sql`users_count + 1` })
          .where('id', '=', error.id)
          .execute();
      }
    }
    const inserted = await trx
      .insertInto('error_tracking_events')
      .values({
        error_id: error.id,
        project_id: projectId,
        event_id: e.eventId,
        level: e.level,
        environment: e.environment,
        release: e.release,
        message: e.message,
        user_key: e.userKey,
        occurred_at: e.timestamp,
        payload: e.payloadJson,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(['project_id', 'event_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) throw new DuplicateRace();
  }

  async addSessions(projectId: number, rows: readonly SessionCounts[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const r of rows) {
        await trx
          .insertInto('error_tracking_sessions')
          .values({ project_id: projectId, ...r })
          .onConflict((oc) =>
            oc.columns(['project_id', 'release', 'environment']).doUpdateSet({
              started: this.saturatingAdd('started'),
              errored: this.saturatingAdd('errored'),
              crashed: this.saturatingAdd('crashed'),
            }),
          )
          .execute();
      }
    });
  }

  /** `column + excluded.column`, saturating at the column's maximum instead of failing (or growing) past it. */
  private saturatingAdd(column: 'started' | 'errored' | 'crashed') {
    const cur = sql.ref(`error_tracking_sessions.${column}`);
    const add = sql.ref(`excluded.${column}`);
    return this.dialect === 'postgres'
      ? sql<number>`LEAST(${cur}::bigint + ${add}, ${sql.lit(MAX_COUNT)})::integer`
      : sql<number>`min(${cur} + ${add}, ${sql.lit(MAX_COUNT)})`;
  }

  async sessions(projectId: number): Promise<SessionCounts[]> {
    const rows = await this.db
      .selectFrom('error_tracking_sessions')
      .select(['release', 'environment', 'started', 'errored', 'crashed'])
      .where('project_id', '=', projectId)
      .orderBy('release')
      .orderBy('environment')
      .execute();
    // Rows written before sessions were validated may hold negative, fractional or non-finite numbers.
    const clean = (n: unknown) => {
      const v = Number(n);
      return Number.isFinite(v) ? Math.min(Math.max(Math.trunc(v), 0), MAX_COUNT) : 0;
    };
    return rows.map((r) => ({
      release: r.release,
      environment: r.environment,
      started: clean(r.started),
      errored: clean(r.errored),
      crashed: clean(r.crashed),
    }));
  }

  // Reading

  async list(
    projectId: number,
    f: { status?: ErrorStatus; search?: string },
    sort: ErrorSort,
    page: PageRequest,
  ): Promise<Paged<TrackedError>> {
    let base = this.db.selectFrom('error_tracking_errors').where('project_id', '=', projectId);
    if (f.status) base = base.where('status', '=', f.status);
    if (f.search) {
      const s = `%${f.search.toLowerCase()}%`;
      base = base.where((eb) =>
        eb.or([
          eb(sql`lower(type)`, 'like', s),
          eb(sql`lower(message)`, 'like', s),
          eb(sql`lower(culprit)`, 'like', s),
        ]),
      );
    }
    const order =
      sort === 'first_seen' ? 'first_seen_at' : sort === 'frequency' ? 'events_count' : 'last_seen_at';
    const { rows, total } = await fetchPage(
      base,
      (q) => q.selectAll().orderBy(order, 'desc').orderBy('id', 'desc'),
      page,
    );
    return { items: rows.map(toError), total };
  }

  async error(projectId: number, id: number): Promise<TrackedError | null> {
    const r = await this.db
      .selectFrom('error_tracking_errors')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toError(r) : null;
  }

  async setStatus(id: number, status: ErrorStatus, now: string): Promise<void> {
    await this.db
      .updateTable('error_tracking_errors')
      .set({ status, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  async events(errorId: number, page: PageRequest): Promise<Paged<ErrorEvent>> {
    const base = this.db.selectFrom('error_tracking_events').where('error_id', '=', errorId);
    const { rows, total } = await fetchPage(
      base,
      (q) => q.selectAll().orderBy('occurred_at', 'desc').orderBy('id', 'desc'),
      page,
    );
    return { items: rows.map(toEvent), total };
  }

  async latestEvent(errorId: number): Promise<ErrorEvent | null> {
    const r = await this.db
      .selectFrom('error_tracking_events')
      .selectAll()
      .where('error_id', '=', errorId)
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return r ? toEvent(r) : null;
  }

  /**
   * Retention: deletes events that occurred before `cutoff`, recounts the errors they belonged to, and deletes
   * errors left without events. Returns how many events and errors were deleted.
   */
  async prune(cutoff: string): Promise<{ events: number; errors: number }> {
    return this.db.transaction().execute(async (trx) => {
      const affected = await trx
        .selectFrom('error_tracking_events')
        .select('error_id')
        .distinct()
        .where('occurred_at', '<', cutoff)
        .execute();
      const deleted = await trx
        .deleteFrom('error_tracking_events')
        .where('occurred_at', '<', cutoff)
        .executeTakeFirst();
      const ids = affected.map((r) => r.error_id);
      let errors = 0;
      for (const id of ids) {
        const stats = await trx
          .selectFrom('error_tracking_events')
          .select((eb) => [
            eb.fn.countAll().as('n'),
            eb.fn.count(eb.ref('user_key')).distinct().as('users'),
            eb.fn.min('occurred_at').as('first'),
          ])
          .where('error_id', '=', id)
          .executeTakeFirst();
        const n = readCount(stats?.n as string | number | undefined);
        if (n === 0) {
          await trx.deleteFrom('error_tracking_errors').where('id', '=', id).execute();
          errors++;
        } else {
          await trx
            .updateTable('error_tracking_errors')
            .set({
              events_count: n,
              users_count: readCount(stats?.users as string | number | undefined),
              first_seen_at: readTimestamp(stats!.first as string | Date),
            })
            .where('id', '=', id)
            .execute();
        }
      }
      return { events: Number(deleted.numDeletedRows), errors };
    });
  }
}
