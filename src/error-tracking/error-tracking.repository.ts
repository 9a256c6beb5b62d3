import { randomUUID } from 'node:crypto';
import {
  type Expression,
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type Selectable,
  type SqlBool,
  sql,
  type Transaction,
} from 'kysely';
import { bucketKey } from '../db/buckets.js';
import {
  type DialectName,
  readBool,
  readCount,
  readNullableTimestamp,
  readTimestamp,
  writeBool,
} from '../db/dialect.js';
import { containsPattern, containsText, like } from '../db/like.js';
import { fetchPage } from '../db/pagination.js';
import { Prepared } from '../db/prepared.js';
import type {
  Database,
  ErrorTrackingActivitiesTable,
  ErrorTrackingErrorHashesTable,
  ErrorTrackingErrorsTable,
  ErrorTrackingEventsTable,
  Queryable,
} from '../db/schema.js';
import { WriteConflict } from '../ingest/retry.js';
import type { Paged, PageRequest } from '../pagination.js';
import { type Bucket, type BucketWindow, fillBuckets } from '../time-buckets.js';
import {
  type ActivityKind,
  type ClientKey,
  type ErrorActivity,
  type ErrorEvent,
  type ErrorHash,
  type ErrorStatus,
  type ErrorTrackingSettings,
  type IgnoreCondition,
  ignoreLapsed,
  type Resolution,
  resolutionHolds,
  type TrackedError,
} from './error-tracking.js';
import type { NormalizedEvent } from './events.js';
import { GROUPING_VERSION } from './grouping.js';
import type { SearchTerm } from './search.js';

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
    regressedAt: r.regressed_at === null ? null : readTimestamp(r.regressed_at),
    firstRelease: r.first_release,
    lastRelease: r.last_release,
    environment: r.environment,
    tags: JSON.parse(r.tags) as Record<string, string>,
    assigneeId: r.assignee_id,
    resolution: resolutionOf(r),
    ignore: ignoreOf(r),
  };
}

type TriageColumns = Pick<
  Selectable<ErrorTrackingErrorsTable>,
  | 'resolution_type'
  | 'resolved_in_release'
  | 'resolution_release_seen_at'
  | 'ignore_until'
  | 'ignore_count'
  | 'ignore_events_base'
  | 'ignore_user_count'
  | 'ignore_users_base'
>;

function resolutionOf(r: TriageColumns): Resolution | null {
  if (r.resolution_type === null || r.resolved_in_release === null || r.resolution_release_seen_at === null)
    return null;
  return {
    type: r.resolution_type as Resolution['type'],
    release: r.resolved_in_release,
    releaseSeenAt: readTimestamp(r.resolution_release_seen_at),
  };
}

function ignoreOf(r: TriageColumns): IgnoreCondition | null {
  if (r.ignore_until === null && r.ignore_count === null && r.ignore_user_count === null) return null;
  return {
    until: readNullableTimestamp(r.ignore_until),
    count: r.ignore_count,
    eventsBase: r.ignore_events_base,
    userCount: r.ignore_user_count,
    usersBase: r.ignore_users_base,
  };
}

/** The triage columns cleared: what a new status starts from. */
const NO_TRIAGE_STATE = {
  resolution_type: null,
  resolved_in_release: null,
  resolution_release_seen_at: null,
  ignore_until: null,
  ignore_count: null,
  ignore_events_base: null,
  ignore_user_count: null,
  ignore_users_base: null,
} as const;

/** A search term as the repository answers it: `assigned:` names a user id (the service found it), or nobody. */
export type ErrorSearchTerm =
  | Exclude<SearchTerm, { kind: 'assigned' }>
  | { readonly kind: 'assignee'; readonly userId: number | null; readonly negated: boolean };

export interface ErrorFilter {
  readonly status?: ErrorStatus;
  /** GitLab's plain text search. */
  readonly search?: string;
  readonly terms?: readonly ErrorSearchTerm[];
}

/** A change of an error's triage state, written with its activity in one transaction. */
export interface TriageChange {
  readonly status?: ErrorStatus;
  readonly resolution?: Resolution | null;
  readonly ignore?: IgnoreCondition | null;
  readonly assigneeId?: number | null;
}

export interface NewActivity {
  readonly kind: ActivityKind;
  readonly authorId: number | null;
  readonly body?: string | null;
  readonly data?: Record<string, unknown>;
}

function toActivity(r: Selectable<ErrorTrackingActivitiesTable>): ErrorActivity {
  return {
    id: r.id,
    errorId: r.error_id,
    kind: r.kind as ActivityKind,
    authorId: r.author_id,
    body: r.body,
    data: JSON.parse(r.data) as Record<string, unknown>,
    createdAt: readTimestamp(r.created_at),
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

/** A stored event's error: whether it is new, or regressed (a resolved error seen again, at `regressedAt`). */
export interface RecordedError {
  readonly errorId: number;
  readonly created: boolean;
  readonly regressedAt: string | null;
}

export type ErrorSort = 'last_seen' | 'first_seen' | 'frequency';

/** Events retention deletes per statement and transaction, at most (it starts there). */
export const PRUNE_BATCH = 2000;
/** At least this many a batch. */
const PRUNE_MIN_BATCH = 100;
/** A batch that took longer than this halves the next one; a quicker one doubles it (up to PRUNE_BATCH). */
const PRUNE_TARGET_MS = 50;
/** Retention gives the database back between batches for as long as the batch took, and at least this. */
const PRUNE_PAUSE_MS = 10;
/** Errors recounted between two pauses after the deletes. */
const PRUNE_ERRORS_PER_PAUSE = 50;

/** Error tracking storage. */
export class ErrorTrackingRepository {
  /** The collector's statements, compiled once (see Prepared). */
  private readonly q;

  /** The database outside any transaction, for the reads and writes that need none. */
  get queryable(): Queryable {
    return this.db;
  }

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
  ) {
    const least = dialect === 'postgres' ? sql`LEAST` : sql`min`;
    const greatest = dialect === 'postgres' ? sql`GREATEST` : sql`max`;
    type EventKey = { projectId: number; eventId: string };
    this.q = {
      seen: new Prepared<EventKey, { id: number }>((p) =>
        db
          .selectFrom('error_tracking_events')
          .select('id')
          .where('project_id', '=', p('projectId'))
          .where('event_id', '=', p('eventId')),
      ),
      findHashes: new Prepared<
        { projectId: number; current: string; legacy: string },
        { hash: string; error_id: number }
      >((p) =>
        db
          .selectFrom('error_tracking_error_hashes')
          .select(['hash', 'error_id'])
          .where('project_id', '=', p('projectId'))
          .where('hash', 'in', [p('current'), p('legacy')]),
      ),
      insertHash: new Prepared<Insertable<ErrorTrackingErrorHashesTable>, { id: number }>((p) =>
        db
          .insertInto('error_tracking_error_hashes')
          .values({
            project_id: p('project_id'),
            hash: p('hash'),
            error_id: p('error_id'),
            grouping_version: p('grouping_version'),
            created_at: p('created_at'),
          })
          .onConflict((oc) => oc.columns(['project_id', 'hash']).doNothing())
          .returning('id'),
      ),
      insertError: new Prepared<Insertable<ErrorTrackingErrorsTable>, { id: number }>((p) =>
        db
          .insertInto('error_tracking_errors')
          .values({
            project_id: p('project_id'),
            fingerprint: p('fingerprint'),
            type: p('type'),
            message: p('message'),
            culprit: p('culprit'),
            platform: p('platform'),
            status: 'unresolved',
            events_count: 1,
            users_count: 0,
            first_seen_at: p('first_seen_at'),
            last_seen_at: p('last_seen_at'),
            first_release: p('first_release'),
            last_release: p('last_release'),
            environment: p('environment'),
            tags: p('tags'),
            created_at: p('created_at'),
            updated_at: p('updated_at'),
            regressed_at: null,
            grouping_version: p('grouping_version'),
          })
          .returning('id'),
      ),
      updateError: new Prepared<
        {
          id: number;
          message: string;
          seenAt: string;
          release: string | null;
          environment: string | null;
          tags: string;
          now: string;
        },
        UpdatedError
      >((p) =>
        db
          .updateTable('error_tracking_errors')
          .set({
            events_count: sql`events_count + 1`,
            message: p('message'),
            first_seen_at: sql`${least}(first_seen_at, ${p('seenAt')})`,
            last_seen_at: sql`${greatest}(last_seen_at, ${p('seenAt')})`,
            first_release: sql`coalesce(first_release, ${p('release')})`,
            last_release: sql`coalesce(${p('release')}, last_release)`,
            environment: sql`coalesce(${p('environment')}, environment)`,
            tags: p('tags'),
            // A resolved error that occurs again is a regression: unresolved again. Ignored stays ignored (until
            // its condition lapses), and one resolved in a release is decided by the event's release (recordOne).
            status: sql`CASE WHEN status = 'resolved' AND resolution_type IS NULL THEN 'unresolved' ELSE status END`,
            // When it became one (the error rules' "regression" trigger).
            regressed_at: sql`CASE WHEN status = 'resolved' AND resolution_type IS NULL THEN ${p('now')} ELSE regressed_at END`,
            updated_at: p('now'),
          })
          .where('id', '=', p('id'))
          .returning([
            'id',
            'events_count',
            'users_count',
            'regressed_at',
            'status',
            'resolution_type',
            'resolved_in_release',
            'resolution_release_seen_at',
            'ignore_until',
            'ignore_count',
            'ignore_events_base',
            'ignore_user_count',
            'ignore_users_base',
          ]),
      ),
      userSeen: new Prepared<{ errorId: number; userKey: string }, { id: number }>((p) =>
        db
          .selectFrom('error_tracking_events')
          .select('id')
          .where('error_id', '=', p('errorId'))
          .where('user_key', '=', p('userKey'))
          .limit(1),
      ),
      countUser: new Prepared<{ errorId: number }, never>((p) =>
        db
          .updateTable('error_tracking_errors')
          .set({ users_count: sql`users_count + 1` })
          .where('id', '=', p('errorId')),
      ),
      insertEvent: new Prepared<Insertable<ErrorTrackingEventsTable>, { id: number }>((p) =>
        db
          .insertInto('error_tracking_events')
          .values({
            error_id: p('error_id'),
            project_id: p('project_id'),
            event_id: p('event_id'),
            level: p('level'),
            environment: p('environment'),
            release: p('release'),
            message: p('message'),
            user_key: p('user_key'),
            occurred_at: p('occurred_at'),
            payload: p('payload'),
            created_at: p('created_at'),
            grouping_hash: p('grouping_hash'),
          })
          .onConflict((oc) => oc.columns(['project_id', 'event_id']).doNothing())
          .returning('id'),
      ),
    };
  }

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
      maxAttachmentSize: r.max_attachment_size,
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
      maxAttachmentSize: number;
    },
    now: string,
  ): Promise<void> {
    const values = {
      max_attachment_size: s.maxAttachmentSize,
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

  /** Records normalised events in one transaction of their own (tests; the collector uses `recordEvents`). */
  async record(projectId: number, events: readonly NormalizedEvent[], now: string): Promise<void> {
    await this.db.transaction().execute((trx) => this.recordEvents(trx, projectId, events, now));
  }

  /**
   * Records normalised events in the caller's transaction: each finds or creates its error and counts it. Returns
   * the errors of the events stored (a repeated event_id is skipped). A concurrent transaction (PostgreSQL) may
   * commit the same (project, event_id) between the check and the insert: the insert then does nothing and this
   * throws WriteConflict, for the caller to run the whole transaction again (where the check sees it).
   */
  async recordEvents(
    trx: Transaction<Database>,
    projectId: number,
    events: readonly NormalizedEvent[],
    now: string,
  ): Promise<RecordedError[]> {
    const out: RecordedError[] = [];
    for (const e of events) {
      const r = await this.recordOne(trx, projectId, e, now);
      if (r) out.push(r);
    }
    return out;
  }

  /** Whether the project already has an event with this id (Sentry deduplicates by event_id per project). */
  private async seen(trx: Transaction<Database>, projectId: number, eventId: string): Promise<boolean> {
    return (await this.q.seen.first(trx, { projectId, eventId })) !== undefined;
  }

  private async recordOne(
    trx: Transaction<Database>,
    projectId: number,
    e: NormalizedEvent,
    now: string,
  ): Promise<RecordedError | null> {
    // A repeated event_id (an SDK retry, or a replay) is accepted and not stored again.
    if (await this.seen(trx, projectId, e.eventId)) return null;
    const { current, legacy } = e.hashes;
    const found = (await this.q.findHashes.run(trx, { projectId, current, legacy })).rows;
    // The current version's hash first; else an error of the previous version, which from now on also has the
    // current hash (so it is still found once the previous version is no longer computed).
    const byCurrent = found.find((r) => r.hash === current);
    const existing = byCurrent ?? found.find((r) => r.hash === legacy);
    const tags = JSON.stringify({ ...e.tags, level: e.level });
    let error: UpdatedError | undefined;
    if (existing) {
      error = await this.q.updateError.first(trx, {
        id: existing.error_id,
        message: e.message,
        seenAt: e.timestamp,
        release: e.release,
        environment: e.environment,
        tags,
        now,
      });
      // Merged into another error or deleted by retention meanwhile: run again, the hash now says where.
      if (!error) throw new WriteConflict('the error of this hash changed meanwhile');
      if (!byCurrent) await this.addHash(trx, projectId, current, error.id, now);
    } else {
      const created = await this.q.insertError.first(trx, {
        project_id: projectId,
        // A unique tag only (errors are found by their hashes): the hash may later move to another error.
        fingerprint: randomUUID().replace(/-/g, ''),
        type: e.type,
        message: e.message,
        culprit: e.culprit,
        platform: e.platform,
        first_seen_at: e.timestamp,
        last_seen_at: e.timestamp,
        first_release: e.release,
        last_release: e.release,
        environment: e.environment,
        tags,
        created_at: now,
        updated_at: now,
        grouping_version: GROUPING_VERSION,
      } as Insertable<ErrorTrackingErrorsTable>);
      if (!created) throw new Error('the error insert returned no row');
      // Another transaction created the error of this hash first (PostgreSQL): run again, then it is found.
      if (!(await this.addHash(trx, projectId, current, created.id, now)))
        throw new WriteConflict('another transaction created the error of this hash first');
      error = {
        id: created.id,
        events_count: 1,
        users_count: 0,
        regressed_at: null,
        status: 'unresolved',
        ...NO_TRIAGE_STATE,
      };
    }
    let newUser = false;
    if (e.userKey !== null) {
      const seen = await this.q.userSeen.first(trx, { errorId: error.id, userKey: e.userKey });
      if (!seen) {
        await this.q.countUser.run(trx, { errorId: error.id });
        newUser = true;
      }
    }
    const inserted = await this.q.insertEvent.first(trx, {
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
      grouping_hash: current,
    });
    if (!inserted) throw new WriteConflict('another transaction stored the same event_id first');
    const stamp = new Date(now).toISOString();
    const regressedBefore = readNullableTimestamp(error.regressed_at);
    let regressed = regressedBefore !== null && regressedBefore === stamp;
    if (error.status === 'resolved' && !regressed)
      regressed = await this.resolutionBroken(trx, projectId, error, e.release, now);
    else if (error.status === 'ignored')
      await this.lapseOnEvent(trx, projectId, error, error.users_count + (newUser ? 1 : 0), now);
    if (regressed)
      await this.addActivities(
        trx,
        projectId,
        error.id,
        [{ kind: 'set_regression', authorId: null, data: { release: e.release } }],
        now,
      );
    return { errorId: error.id, created: error.events_count === 1, regressedAt: regressed ? stamp : null };
  }

  /**
   * An event of a resolved-in-release error: a release newer than the resolution's reopens it (a regression, which
   * the rules and chats hear about as any other); an older one, or none, leaves it resolved.
   */
  private async resolutionBroken(
    trx: Transaction<Database>,
    projectId: number,
    error: UpdatedError,
    release: string | null,
    now: string,
  ): Promise<boolean> {
    const resolution = resolutionOf(error);
    if (!resolution) return false;
    const seen = release === null ? null : await this.releaseFirstSeen(trx, projectId, release);
    if (resolutionHolds(resolution, release, seen)) return false;
    await trx
      .updateTable('error_tracking_errors')
      .set({ status: 'unresolved', regressed_at: now, updated_at: now, ...NO_TRIAGE_STATE })
      .where('id', '=', error.id)
      .execute();
    return true;
  }

  /** An event of an ignored error: past its time, or one event or user more than it was ignored for, unresolved. */
  private async lapseOnEvent(
    trx: Transaction<Database>,
    projectId: number,
    error: UpdatedError,
    userCount: number,
    now: string,
  ): Promise<void> {
    const c = ignoreOf(error);
    const reason = c && ignoreLapsed(c, now, { count: error.events_count, userCount });
    if (!reason) return;
    await trx
      .updateTable('error_tracking_errors')
      .set({ status: 'unresolved', updated_at: now, ...NO_TRIAGE_STATE })
      .where('id', '=', error.id)
      .execute();
    await this.addActivities(
      trx,
      projectId,
      error.id,
      [{ kind: 'unignored', authorId: null, data: { reason } }],
      now,
    );
  }

  /**
   * When a release was first seen in the project: the order of releases (Sentry's default, by date). The one
   * place that orders releases, so that a table of releases can answer it instead of the events.
   */
  async releaseFirstSeen(q: Queryable, projectId: number, release: string): Promise<string | null> {
    const r = await q
      .selectFrom('error_tracking_events')
      .select((eb) => eb.fn.min('created_at').as('at'))
      .where('project_id', '=', projectId)
      .where('release', '=', release)
      .executeTakeFirst();
    return r?.at ? readTimestamp(r.at as string | Date) : null;
  }

  /** The project's latest release (by the same order), with when it was first seen; null without releases. */
  async latestRelease(projectId: number): Promise<{ release: string; seenAt: string } | null> {
    const r = await this.db
      .selectFrom('error_tracking_events')
      .select(['release', (eb) => eb.fn.min('created_at').as('at')])
      .where('project_id', '=', projectId)
      .where('release', 'is not', null)
      .groupBy('release')
      .orderBy((eb) => eb.fn.min('created_at'), 'desc')
      .orderBy('release', 'desc')
      .limit(1)
      .executeTakeFirst();
    return r?.release ? { release: r.release, seenAt: readTimestamp(r.at as string | Date) } : null;
  }

  /** Writes activities of an error (in `q`, the caller's transaction when there is one). */
  async addActivities(
    q: Queryable,
    projectId: number,
    errorId: number,
    rows: readonly NewActivity[],
    now: string,
  ): Promise<void> {
    if (rows.length === 0) return;
    await q
      .insertInto('error_tracking_activities')
      .values(
        rows.map((a) => ({
          project_id: projectId,
          error_id: errorId,
          kind: a.kind,
          author_id: a.authorId,
          body: a.body ?? null,
          data: JSON.stringify(a.data ?? {}),
          created_at: now,
        })),
      )
      .execute();
  }

  /** An error's activity, oldest first (at most `limit`, the newest of them). */
  async activities(errorId: number, limit: number): Promise<ErrorActivity[]> {
    const rows = await this.db
      .selectFrom('error_tracking_activities')
      .selectAll()
      .where('error_id', '=', errorId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse().map(toActivity);
  }

  /** Changes an error's triage state and records what changed, together. */
  async triage(
    projectId: number,
    errorId: number,
    change: TriageChange,
    activity: readonly NewActivity[],
    now: string,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const set: Record<string, unknown> = { updated_at: now };
      if (change.status !== undefined) Object.assign(set, { status: change.status, ...NO_TRIAGE_STATE });
      if (change.resolution) {
        set.resolution_type = change.resolution.type;
        set.resolved_in_release = change.resolution.release;
        set.resolution_release_seen_at = change.resolution.releaseSeenAt;
      }
      if (change.ignore) {
        set.ignore_until = change.ignore.until;
        set.ignore_count = change.ignore.count;
        set.ignore_events_base = change.ignore.eventsBase;
        set.ignore_user_count = change.ignore.userCount;
        set.ignore_users_base = change.ignore.usersBase;
      }
      if (change.assigneeId !== undefined) set.assignee_id = change.assigneeId;
      await trx
        .updateTable('error_tracking_errors')
        .set(set)
        .where('id', '=', errorId)
        .where('project_id', '=', projectId)
        .execute();
      await this.addActivities(trx, projectId, errorId, activity, now);
    });
  }

  /**
   * Ignores past their time (of one project, or of one error): unresolved, each with an `unignored` activity.
   * Runs when errors are read and from the job due at the time, so a lapsed ignore never shows as ignored.
   */
  async lapseTimedIgnores(where: { projectId: number } | { errorId: number }, now: string): Promise<number> {
    // Reads call this on every list: nothing due (the usual answer) costs one indexed read, no transaction.
    const due = await this.db
      .selectFrom('error_tracking_errors')
      .select('id')
      .$if('projectId' in where, (b) =>
        b.where('project_id', '=', (where as { projectId: number }).projectId),
      )
      .$if('errorId' in where, (b) => b.where('id', '=', (where as { errorId: number }).errorId))
      .where('status', '=', 'ignored')
      .where('ignore_until', '<=', now)
      .limit(1)
      .execute();
    if (due.length === 0) return 0;
    return this.db.transaction().execute(async (trx) => {
      // The update checks again and says which rows it changed: another reader or the job may have lapsed some
      // meanwhile (PostgreSQL re-reads the condition after a concurrent update), and each lapse is recorded once.
      const rows = await trx
        .updateTable('error_tracking_errors')
        .set({ status: 'unresolved', updated_at: now, ...NO_TRIAGE_STATE })
        .$if('projectId' in where, (b) =>
          b.where('project_id', '=', (where as { projectId: number }).projectId),
        )
        .$if('errorId' in where, (b) => b.where('id', '=', (where as { errorId: number }).errorId))
        .where('status', '=', 'ignored')
        .where('ignore_until', '<=', now)
        .returning(['id', 'project_id'])
        .execute();
      for (const d of rows)
        await this.addActivities(
          trx,
          d.project_id,
          d.id,
          [{ kind: 'unignored', authorId: null, data: { reason: 'until' } }],
          now,
        );
      return rows.length;
    });
  }

  /** Records that `hash` leads to `errorId`; false when the hash already leads somewhere. */
  private async addHash(
    trx: Transaction<Database>,
    projectId: number,
    hash: string,
    errorId: number,
    now: string,
  ): Promise<boolean> {
    const row = await this.q.insertHash.first(trx, {
      project_id: projectId,
      hash,
      error_id: errorId,
      grouping_version: GROUPING_VERSION,
      created_at: now,
    });
    return row !== undefined;
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
    f: ErrorFilter,
    sort: ErrorSort,
    page: PageRequest,
  ): Promise<Paged<TrackedError>> {
    let base = this.db.selectFrom('error_tracking_errors').where('project_id', '=', projectId);
    if (f.status) base = base.where('status', '=', f.status);
    for (const t of f.terms ?? []) base = base.where((eb) => termCondition(eb, t));
    if (f.search) {
      const term = f.search;
      base = base.where((eb) =>
        eb.or([
          containsText(sql.ref('type'), term),
          containsText(sql.ref('message'), term),
          containsText(sql.ref('culprit'), term),
        ]),
      );
    }
    const order =
      sort === 'first_seen' ? 'first_seen_at' : sort === 'frequency' ? 'events_count' : 'last_seen_at';
    const { rows, total } = await fetchPage(
      base,
      (q) => q.selectAll().orderBy(order, 'desc').orderBy('id', 'desc'),
      page,
      this.db,
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

  /** The grouping hashes of an error, oldest first, with how many of its stored events each brought. */
  async hashes(errorId: number): Promise<ErrorHash[]> {
    const rows = await this.db
      .selectFrom('error_tracking_error_hashes')
      .select(['hash', 'grouping_version', 'created_at'])
      .where('error_id', '=', errorId)
      .orderBy('id')
      .execute();
    const counts = await this.db
      .selectFrom('error_tracking_events')
      .select(['grouping_hash', (eb) => eb.fn.countAll().as('n')])
      .where('error_id', '=', errorId)
      .groupBy('grouping_hash')
      .execute();
    const n = new Map(counts.map((c) => [c.grouping_hash, readCount(c.n as string | number)]));
    return rows.map((r) => ({
      hash: r.hash,
      groupingVersion: r.grouping_version,
      createdAt: readTimestamp(r.created_at),
      eventsCount: n.get(r.hash) ?? 0,
    }));
  }

  /**
   * Merges errors `sourceIds` into `targetId` (all of one project): their hashes and events move to it, so later
   * events of any of them land in it too; their counts add up; they are deleted.
   */
  async merge(
    targetId: number,
    sourceIds: readonly number[],
    now: string,
    activity?: { projectId: number; row: NewActivity },
  ): Promise<void> {
    if (sourceIds.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      const moved = await trx
        .selectFrom('error_tracking_errors')
        .select((eb) => eb.fn.sum<number | string>('events_count').as('n'))
        .where('id', 'in', [...sourceIds])
        .executeTakeFirst();
      await trx
        .updateTable('error_tracking_error_hashes')
        .set({ error_id: targetId })
        .where('error_id', 'in', [...sourceIds])
        .execute();
      await trx
        .updateTable('error_tracking_events')
        .set({ error_id: targetId })
        .where('error_id', 'in', [...sourceIds])
        .execute();
      // Their history comes along: comments and what happened to them stay readable on the error that took them.
      await trx
        .updateTable('error_tracking_activities')
        .set({ error_id: targetId })
        .where('error_id', 'in', [...sourceIds])
        .execute();
      if (activity) await this.addActivities(trx, activity.projectId, targetId, [activity.row], now);
      await trx
        .deleteFrom('error_tracking_errors')
        .where('id', 'in', [...sourceIds])
        .execute();
      await trx
        .updateTable('error_tracking_errors')
        .set({ events_count: sql`events_count + ${Number(moved?.n ?? 0)}`, updated_at: now })
        .where('id', '=', targetId)
        .execute();
      await this.recount(trx, targetId);
    });
  }

  /**
   * Moves the hashes `hashes` of error `errorId` and the events they brought into a new error, a copy of the
   * error's description until `describe` (the caller's, from the moved events) replaces it. Returns the new id.
   */
  async unmerge(
    projectId: number,
    errorId: number,
    hashes: readonly string[],
    now: string,
    describe: (payload: Record<string, unknown>) => {
      type: string;
      message: string;
      culprit: string;
      platform: string;
    },
    authorId: number | null = null,
  ): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const source = await trx
        .selectFrom('error_tracking_errors')
        .selectAll()
        .where('id', '=', errorId)
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow();
      const version = await trx
        .selectFrom('error_tracking_error_hashes')
        .select('grouping_version')
        .where('error_id', '=', errorId)
        .where('hash', 'in', [...hashes])
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      const created = await trx
        .insertInto('error_tracking_errors')
        .values({
          project_id: projectId,
          fingerprint: randomUUID().replace(/-/g, ''),
          type: source.type,
          message: source.message,
          culprit: source.culprit,
          platform: source.platform,
          status: 'unresolved',
          events_count: 0,
          users_count: 0,
          first_seen_at: readTimestamp(source.first_seen_at),
          last_seen_at: readTimestamp(source.last_seen_at),
          first_release: null,
          last_release: null,
          environment: source.environment,
          tags: source.tags,
          created_at: now,
          updated_at: now,
          grouping_version: version.grouping_version,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('error_tracking_error_hashes')
        .set({ error_id: created.id })
        .where('error_id', '=', errorId)
        .where('hash', 'in', [...hashes])
        .execute();
      const moved = await trx
        .updateTable('error_tracking_events')
        .set({ error_id: created.id })
        .where('error_id', '=', errorId)
        .where('grouping_hash', 'in', [...hashes])
        .executeTakeFirst();
      const n = Number(moved.numUpdatedRows);
      await trx
        .updateTable('error_tracking_errors')
        .set({ events_count: sql`${sql.ref('events_count')} - ${n}`, updated_at: now })
        .where('id', '=', errorId)
        .execute();
      const latest = await trx
        .selectFrom('error_tracking_events')
        .select(['payload', 'message'])
        .where('error_id', '=', created.id)
        .orderBy('occurred_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      const d = latest ? describe(JSON.parse(latest.payload) as Record<string, unknown>) : null;
      await trx
        .updateTable('error_tracking_errors')
        .set({ events_count: n, ...(d ?? {}) })
        .where('id', '=', created.id)
        .execute();
      await this.recount(trx, errorId);
      await this.recount(trx, created.id);
      const data = { hashes: [...hashes] };
      await this.addActivities(
        trx,
        projectId,
        errorId,
        [{ kind: 'unmerge_source', authorId, data: { ...data, destination_id: created.id } }],
        now,
      );
      await this.addActivities(
        trx,
        projectId,
        created.id,
        [{ kind: 'unmerge_destination', authorId, data: { ...data, source_id: errorId } }],
        now,
      );
      return created.id;
    });
  }

  /** An error's users, first and last seen and releases, from its stored events (after events moved). */
  private async recount(trx: Transaction<Database>, id: number): Promise<void> {
    const events = (order: 'asc' | 'desc', column: 'occurred_at' | 'release') =>
      trx
        .selectFrom('error_tracking_events')
        .select(column)
        .where('error_id', '=', id)
        .$if(column === 'release', (q) => q.where('release', 'is not', null))
        .orderBy('occurred_at', order)
        .orderBy('id', order)
        .limit(1);
    await trx
      .updateTable('error_tracking_errors')
      .set({
        users_count: sql<number>`(SELECT count(DISTINCT user_key) FROM error_tracking_events WHERE error_id = ${id})`,
        first_seen_at: sql<string>`coalesce((${events('asc', 'occurred_at')}), first_seen_at)`,
        last_seen_at: sql<string>`coalesce((${events('desc', 'occurred_at')}), last_seen_at)`,
        first_release: sql<string | null>`(${events('asc', 'release')})`,
        last_release: sql<string | null>`(${events('desc', 'release')})`,
      })
      .where('id', '=', id)
      .execute();
  }

  /**
   * A page of an error's events, newest first. The total is the error's own events_count, which intake and
   * retention keep in step with its events: counting them (46,415 for the largest error of the read-path bench)
   * read every one of their rows on PostgreSQL.
   */
  async events(errorId: number, total: number, page: PageRequest): Promise<Paged<ErrorEvent>> {
    const rows = await this.db
      .selectFrom('error_tracking_events')
      .selectAll()
      .where('error_id', '=', errorId)
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute();
    return { items: rows.map(toEvent), total };
  }

  /** Errors per status, counted by the database. */
  async counts(projectId: number): Promise<Record<ErrorStatus, number>> {
    const rows = await this.db
      .selectFrom('error_tracking_errors')
      .select(['status', (eb) => eb.fn.countAll().as('n')])
      .where('project_id', '=', projectId)
      .groupBy('status')
      .execute();
    const out: Record<ErrorStatus, number> = { unresolved: 0, resolved: 0, ignored: 0 };
    for (const r of rows) {
      if (r.status in out) out[r.status as ErrorStatus] = readCount(r.n as string | number);
    }
    return out;
  }

  /** Events per bucket of `window` for each error, counted by the database (GROUP BY error and bucket). */
  async stats(errorIds: readonly number[], window: BucketWindow): Promise<Map<number, Bucket[]>> {
    const out = new Map<number, Bucket[]>();
    if (errorIds.length === 0) return out;
    const key = bucketKey(this.dialect, 'occurred_at', window.interval);
    const rows = await this.db
      .selectFrom('error_tracking_events')
      .select((eb) => ['error_id', key.as('bucket'), eb.fn.countAll().as('n')])
      .where('error_id', 'in', [...errorIds])
      .where('occurred_at', '>=', window.from)
      .groupBy(['error_id', key])
      .execute();
    const counts = new Map<number, Map<string, number>>(errorIds.map((id) => [id, new Map()]));
    for (const r of rows) counts.get(r.error_id)?.set(r.bucket, readCount(r.n as string | number));
    for (const [id, c] of counts) out.set(id, fillBuckets(window, c));
    return out;
  }

  /** One event of an error by its Sentry event id. */
  async event(errorId: number, eventId: string): Promise<ErrorEvent | null> {
    const r = await this.db
      .selectFrom('error_tracking_events')
      .selectAll()
      .where('error_id', '=', errorId)
      .where('event_id', '=', eventId)
      .orderBy('id', 'asc')
      .limit(1)
      .executeTakeFirst();
    return r ? toEvent(r) : null;
  }

  /** The event ids just before (older) and after (newer) `e` in the error's timeline (occurrence time, then id). */
  async neighbours(e: ErrorEvent): Promise<{ previous: string | null; next: string | null }> {
    const side = async (dir: 'older' | 'newer'): Promise<string | null> => {
      const cmp = dir === 'older' ? '<' : '>';
      const order = dir === 'older' ? 'desc' : 'asc';
      const r = await this.db
        .selectFrom('error_tracking_events')
        .select('event_id')
        .where('error_id', '=', e.errorId)
        .where((eb) =>
          eb.or([
            eb('occurred_at', cmp, e.occurredAt),
            eb.and([eb('occurred_at', '=', e.occurredAt), eb('id', cmp, e.id)]),
          ]),
        )
        .orderBy('occurred_at', order)
        .orderBy('id', order)
        .limit(1)
        .executeTakeFirst();
      return r?.event_id ?? null;
    };
    return { previous: await side('older'), next: await side('newer') };
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
   * Retention: deletes events that occurred before `cutoff`, oldest first, a batch a statement and a transaction
   * (each batch also takes its events off their errors' counts), calling `pause` between batches so that intake and
   * reads get the database in between (on SQLite one long delete would hold the only writer, and svc's connection,
   * for its whole length). Batches are `batchSize` events; without it they adapt between PRUNE_MIN_BATCH and
   * PRUNE_BATCH so that one takes about PRUNE_TARGET_MS, and the pause after a batch lasts as long as the batch did
   * (retention gets at most half of the database's time). Then, in short statements, the errors it touched get
   * their users and first seen recounted, and those left without events are deleted. Returns how many events,
   * errors and batches, and whether it got through them all (not when `stopping` said to stop between batches).
   */
  async prune(
    cutoff: string,
    opts: { batchSize?: number; pause?: (tookMs: number) => Promise<void>; stopping?: () => boolean } = {},
  ): Promise<{ events: number; errors: number; batches: number; complete: boolean }> {
    let size = opts.batchSize ?? PRUNE_BATCH;
    const pause =
      opts.pause ??
      ((tookMs: number) =>
        new Promise<void>((resolve) => setTimeout(resolve, Math.max(PRUNE_PAUSE_MS, tookMs))));
    const touched = new Set<number>();
    let events = 0;
    let batches = 0;
    let complete = true;
    for (;;) {
      const started = performance.now();
      const deleted = await this.db.transaction().execute(async (trx) => {
        // Oldest first through the occurred_at index: each batch reads only what it deletes.
        const rows = await trx
          .deleteFrom('error_tracking_events')
          .where(
            'id',
            'in',
            trx
              .selectFrom('error_tracking_events')
              .select('id')
              .where('occurred_at', '<', cutoff)
              .orderBy('occurred_at')
              .limit(size),
          )
          .returning('error_id')
          .execute();
        // One update per distinct number of events taken off an error (a handful), not one per error.
        const perError = new Map<number, number>();
        for (const r of rows) perError.set(r.error_id, (perError.get(r.error_id) ?? 0) + 1);
        const byCount = new Map<number, number[]>();
        for (const [id, n] of perError) byCount.set(n, [...(byCount.get(n) ?? []), id]);
        for (const [n, ids] of byCount) {
          await trx
            .updateTable('error_tracking_errors')
            .set({ events_count: sql`events_count - ${n}` })
            .where('id', 'in', ids)
            .execute();
        }
        for (const id of perError.keys()) touched.add(id);
        return rows.length;
      });
      const took = performance.now() - started;
      if (deleted === 0) break;
      events += deleted;
      batches++;
      if (deleted < size) break;
      // A stopping server does not wait for the rest (the touched errors are still recounted below).
      if (opts.stopping?.()) {
        complete = false;
        break;
      }
      if (opts.batchSize === undefined) {
        size =
          took > PRUNE_TARGET_MS
            ? Math.max(PRUNE_MIN_BATCH, Math.floor(size / 2))
            : Math.min(PRUNE_BATCH, size * 2);
      }
      await pause(took);
    }
    let errors = 0;
    let n = 0;
    let since = performance.now();
    for (const id of touched) {
      // Users and first seen from the events left (each its own statement: an error may keep many events).
      await this.db
        .updateTable('error_tracking_errors')
        .set({
          users_count: sql<number>`(SELECT count(DISTINCT user_key) FROM error_tracking_events WHERE error_id = ${id})`,
          first_seen_at: sql<string>`coalesce((SELECT min(occurred_at) FROM error_tracking_events WHERE error_id = ${id}), first_seen_at)`,
        })
        .where('id', '=', id)
        .execute();
      // Left without events: gone. events_count is checked too, so an error an intake just counted again stays.
      const gone = await this.db
        .deleteFrom('error_tracking_errors')
        .where('id', '=', id)
        .where('events_count', '<=', 0)
        .where((eb) =>
          eb.not(eb.exists(eb.selectFrom('error_tracking_events').select('id').where('error_id', '=', id))),
        )
        .executeTakeFirst();
      errors += Number(gone.numDeletedRows);
      if (++n % PRUNE_ERRORS_PER_PAUSE === 0) {
        await pause(performance.now() - since);
        since = performance.now();
      }
    }
    return { events, errors, batches, complete };
  }
}

/** The row `updateError` returns: the counts and the triage state that decide what the event does to the error. */
type UpdatedError = {
  id: number;
  events_count: number;
  users_count: number;
  regressed_at: string | Date | null;
  status: string;
} & TriageColumns;

/** One search term as a condition on `error_tracking_errors` (events are asked through EXISTS). */
function termCondition(
  eb: ExpressionBuilder<Database, 'error_tracking_errors'>,
  t: ErrorSearchTerm,
): Expression<SqlBool> {
  const not = (c: Expression<SqlBool>, negated: boolean) => (negated ? eb.not(c) : c);
  const events = () =>
    eb
      .selectFrom('error_tracking_events as ev')
      .select('ev.id')
      .whereRef('ev.error_id', '=', 'error_tracking_errors.id');
  // Tags are the latest event's, stored as JSON text: `"key":"value"` (JSON escaping keeps it unambiguous).
  const tagNeedle = (key: string, value?: string) =>
    value === undefined ? `${JSON.stringify(key)}:` : `${JSON.stringify(key)}:${JSON.stringify(value)}`;
  switch (t.kind) {
    case 'text':
      return eb.or([
        containsText(sql.ref('type'), t.value),
        containsText(sql.ref('message'), t.value),
        containsText(sql.ref('culprit'), t.value),
      ]);
    case 'is':
      return not(
        t.value === 'assigned'
          ? eb('assignee_id', 'is not', null)
          : t.value === 'unassigned'
            ? eb('assignee_id', 'is', null)
            : eb('status', '=', t.value),
        t.negated,
      );
    case 'assignee':
      return not(t.userId === null ? sql<SqlBool>`1 = 0` : eb('assignee_id', '=', t.userId), t.negated);
    case 'field':
      if (t.key === 'release') return not(eb.exists(events().where('ev.release', '=', t.value)), t.negated);
      if (t.key === 'environment')
        return not(eb.exists(events().where('ev.environment', '=', t.value)), t.negated);
      return not(
        eb.exists(
          events().where((e) =>
            e.or([
              e('ev.user_key', '=', `email:${t.value}`),
              like(sql.ref('ev.payload'), containsPattern(`"email":${JSON.stringify(t.value)}`)),
              like(sql.ref('ev.payload'), containsPattern(`"email": ${JSON.stringify(t.value)}`)),
            ]),
          ),
        ),
        t.negated,
      );
    case 'has':
      return not(
        t.key === 'user'
          ? eb('users_count', '>', 0)
          : t.key === 'release'
            ? eb('last_release', 'is not', null)
            : t.key === 'environment'
              ? eb('environment', 'is not', null)
              : like(sql.ref('tags'), containsPattern(tagNeedle(t.key))),
        t.negated,
      );
    case 'tag':
      return not(like(sql.ref('tags'), containsPattern(tagNeedle(t.key, t.value))), t.negated);
  }
}
