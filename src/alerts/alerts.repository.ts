import {
  type Insertable,
  type Kysely,
  type RawBuilder,
  type Selectable,
  type SqlBool,
  sql,
  type Transaction,
} from 'kysely';
import { bucketKey } from '../db/buckets.js';
import type { DialectName } from '../db/dialect.js';
import { readBool, readCount, readNullableTimestamp, readTimestamp, writeBool } from '../db/dialect.js';
import { nextIid } from '../db/internal-ids.js';
import { containsPattern } from '../db/like.js';
import { fetchPage } from '../db/pagination.js';
import { Prepared } from '../db/prepared.js';
import type {
  AlertIntegrationsTable,
  AlertNotesTable,
  AlertsTable,
  Database,
  Queryable,
} from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import { type Bucket, type BucketWindow, fillBuckets } from '../time-buckets.js';
import { toUser } from '../users/user-row.js';
import type { User } from '../users/users.js';
import type {
  Alert,
  AlertNote,
  AlertStatus,
  Integration,
  IntegrationType,
  ParsedAlert,
  PayloadMapping,
  RecordedWarning,
  Severity,
} from './alerts.js';

type IidTitle = { iid: number; title: string };

/**
 * `status <> 'resolved'` as a literal in the SQL: the partial unique index `alerts_open_fingerprint` has that
 * condition, and a bound parameter in its place makes SQLite plan the statement again on every run (about 3x
 * the time of the lookup itself).
 */
const RESOLVED = sql<string>`'resolved'`;

// The services of this feature catch unique violations they turn into answers (a second open alert).
export { isUniqueViolation } from '../db/dialect.js';

function toIntegration(r: Selectable<AlertIntegrationsTable>): Integration & { tokenEncrypted: string } {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    type: r.type as IntegrationType,
    active: readBool(r.active),
    endpointIdentifier: r.endpoint_identifier,
    apiUrl: r.api_url,
    payloadExample: JSON.parse(r.payload_example) as unknown,
    payloadAttributeMapping: JSON.parse(r.payload_attribute_mapping) as PayloadMapping,
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
    recordedWarnings: r.warnings ? (JSON.parse(r.warnings) as RecordedWarning[]) : [],
    tokenEncrypted: r.token_encrypted,
  };
}

function toAlert(r: Selectable<AlertsTable>): Alert {
  return {
    id: r.id,
    projectId: r.project_id,
    iid: r.iid,
    integrationId: r.integration_id,
    title: r.title,
    description: r.description,
    severity: r.severity as Severity,
    status: r.status as AlertStatus,
    startedAt: readTimestamp(r.started_at),
    endedAt: readNullableTimestamp(r.ended_at),
    events: r.events,
    fingerprint: r.fingerprint,
    hosts: JSON.parse(r.hosts) as string[],
    service: r.service,
    monitoringTool: r.monitoring_tool,
    environment: r.environment,
    runbook: r.runbook,
    payload: JSON.parse(r.payload) as unknown,
    incidentIid: r.incident_iid,
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
    assignees: [],
  };
}

function toNote(r: Selectable<AlertNotesTable>): AlertNote {
  return {
    id: r.id,
    authorId: r.author_id,
    body: r.body,
    createdAt: readTimestamp(r.created_at),
    system: readBool(r.system),
  };
}

export interface AlertFilter {
  /** A status, or `open` for triggered and acknowledged. */
  status?: AlertStatus | 'open';
  search?: string;
  /** The alerts of one incident (by its iid). */
  incidentIid?: number;
}
/** A project's alert settings. */
export interface AlertSettings {
  readonly createIncident: boolean;
  readonly autoCloseIncident: boolean;
  readonly sendEmail: boolean;
  /** svc's: closing an incident by hand resolves its alerts (GitLab always does). */
  readonly autoResolveAlerts: boolean;
}

export type AlertOrder =
  | 'started_at'
  | 'ended_at'
  | 'created_at'
  | 'updated_at'
  | 'severity'
  | 'status'
  | 'events';

/** Integrations, alerts, notes and per-project alert settings. */
export class AlertsRepository {
  // The intake's statements, compiled once (see Prepared).
  private readonly q;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
  ) {
    this.q = {
      incrementOpen: new Prepared<
        { projectId: number; fingerprint: string; now: string },
        IidTitle & { id: number }
      >((p) =>
        db
          .updateTable('alerts')
          .set({ events: sql`events + 1`, updated_at: p('now') })
          .where('project_id', '=', p('projectId'))
          .where('fingerprint', '=', p('fingerprint'))
          .where('status', '<>', RESOLVED)
          .returning(['id', 'iid', 'title']),
      ),
      insertAlert: new Prepared<Insertable<AlertsTable>, { id: number }>((p) =>
        db
          .insertInto('alerts')
          .values({
            project_id: p('project_id'),
            iid: p('iid'),
            integration_id: p('integration_id'),
            title: p('title'),
            description: p('description'),
            severity: p('severity'),
            status: p('status'),
            started_at: p('started_at'),
            ended_at: p('ended_at'),
            events: p('events'),
            fingerprint: p('fingerprint'),
            hosts: p('hosts'),
            service: p('service'),
            monitoring_tool: p('monitoring_tool'),
            environment: p('environment'),
            runbook: p('runbook'),
            payload: p('payload'),
            incident_iid: p('incident_iid'),
            created_at: p('created_at'),
            updated_at: p('updated_at'),
          })
          .returning('id'),
      ),
      addNote: new Prepared<
        { alertId: number; authorId: number | null; body: string; now: string; system: number },
        Selectable<AlertNotesTable>
      >((p) =>
        db
          .insertInto('alert_notes')
          .values({
            alert_id: p('alertId'),
            author_id: p('authorId'),
            body: p('body'),
            created_at: p('now'),
            system: p('system'),
          })
          .returningAll(),
      ),
      addOccurrence: new Prepared<{ alertId: number; now: string }, Record<string, never>>((p) =>
        db.insertInto('alert_events').values({ alert_id: p('alertId'), occurred_at: p('now') }),
      ),
      // PostgreSQL: each statement is a round trip, and intake runs one transaction at a time (group commit), so
      // a repeat (count and occurrence) and a new alert (iid, alert, system note, occurrence) are one statement
      // each, with data-modifying CTEs. SQLite has none; there a statement costs microseconds.
      incrementOpenPg: new Prepared<
        { projectId: number; fingerprint: string; now: string },
        IidTitle & { id: number }
      >((p) => {
        const q = sql<IidTitle & { id: number }>`WITH counted AS (
            UPDATE alerts SET events = events + 1, updated_at = ${p('now')}
            WHERE project_id = ${p('projectId')} AND fingerprint = ${p('fingerprint')} AND status <> 'resolved'
            RETURNING id, iid, title),
          occurrence AS (INSERT INTO alert_events (alert_id, occurred_at)
            SELECT id, ${p('now')}::timestamptz FROM counted)
          SELECT id, iid, title FROM counted`;
        return { compile: () => q.compile(db) };
      }),
      createAlertPg: new Prepared<Insertable<AlertsTable> & { note: string }, { id: number; iid: number }>(
        (p) => {
          const q = sql<{ id: number; iid: number }>`WITH next AS (
              INSERT INTO internal_ids (project_id, usage, last_value) VALUES (${p('project_id')}, 'alerts', 1)
              ON CONFLICT (project_id, usage) DO UPDATE SET last_value = internal_ids.last_value + 1
              RETURNING last_value),
            created AS (
              INSERT INTO alerts (project_id, iid, integration_id, title, description, severity, status, started_at,
                ended_at, events, fingerprint, hosts, service, monitoring_tool, environment, runbook, payload,
                incident_iid, created_at, updated_at)
              SELECT ${p('project_id')}::integer, next.last_value, ${p('integration_id')}::integer, ${p('title')}::text,
                ${p('description')}::text, ${p('severity')}::text, 'triggered', ${p('started_at')}::timestamptz, NULL,
                1, ${p('fingerprint')}::text, ${p('hosts')}::text, ${p('service')}::text,
                ${p('monitoring_tool')}::text, ${p('environment')}::text, ${p('runbook')}::text, ${p('payload')}::text,
                NULL, ${p('created_at')}::timestamptz, ${p('created_at')}::timestamptz
              FROM next
              RETURNING id, iid),
            note AS (INSERT INTO alert_notes (alert_id, author_id, body, created_at, system)
              SELECT id, NULL, ${p('note')}::text, ${p('created_at')}::timestamptz, true FROM created),
            occurrence AS (INSERT INTO alert_events (alert_id, occurred_at)
              SELECT id, ${p('created_at')}::timestamptz FROM created)
            SELECT id, iid FROM created`;
          return { compile: () => q.compile(db) };
        },
      ),
      settings: new Prepared<{ projectId: number }, Selectable<Database['project_alert_settings']>>((p) =>
        db.selectFrom('project_alert_settings').selectAll().where('project_id', '=', p('projectId')),
      ),
    };
  }

  /** Runs `fn` in a transaction. */
  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  // Integrations

  async insertIntegration(
    i: {
      projectId: number;
      name: string;
      type: IntegrationType;
      active: boolean;
      endpointIdentifier: string;
      tokenEncrypted: string;
      apiUrl: string | null;
      payloadExample: unknown;
      payloadAttributeMapping: PayloadMapping;
    },
    now: string,
  ): Promise<number> {
    const row = await this.db
      .insertInto('alert_integrations')
      .values({
        project_id: i.projectId,
        name: i.name,
        type: i.type,
        active: writeBool(i.active),
        endpoint_identifier: i.endpointIdentifier,
        token_encrypted: i.tokenEncrypted,
        api_url: i.apiUrl,
        payload_example: JSON.stringify(i.payloadExample),
        payload_attribute_mapping: JSON.stringify(i.payloadAttributeMapping),
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async integrations(projectId: number): Promise<(Integration & { tokenEncrypted: string })[]> {
    const rows = await this.db
      .selectFrom('alert_integrations')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id', 'asc')
      .execute();
    return rows.map(toIntegration);
  }

  async integration(
    projectId: number,
    id: number,
  ): Promise<(Integration & { tokenEncrypted: string }) | null> {
    const r = await this.db
      .selectFrom('alert_integrations')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toIntegration(r) : null;
  }

  async updateIntegration(
    id: number,
    patch: Partial<{
      name: string;
      active: boolean;
      apiUrl: string | null;
      payloadExample: unknown;
      payloadAttributeMapping: PayloadMapping;
      tokenEncrypted: string;
    }>,
    now: string,
  ): Promise<void> {
    await this.db
      .updateTable('alert_integrations')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.active !== undefined && { active: writeBool(patch.active) }),
        ...(patch.apiUrl !== undefined && { api_url: patch.apiUrl }),
        ...(patch.payloadExample !== undefined && { payload_example: JSON.stringify(patch.payloadExample) }),
        ...(patch.payloadAttributeMapping !== undefined && {
          payload_attribute_mapping: JSON.stringify(patch.payloadAttributeMapping),
        }),
        ...(patch.tokenEncrypted !== undefined && { token_encrypted: patch.tokenEncrypted }),
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }

  /** Replaces what intake noticed about an integration's payloads (not a change of its settings). */
  async setIntegrationWarnings(id: number, warnings: readonly RecordedWarning[]): Promise<void> {
    await this.db
      .updateTable('alert_integrations')
      .set({ warnings: warnings.length === 0 ? null : JSON.stringify(warnings) })
      .where('id', '=', id)
      .execute();
  }

  /** Deactivates every integration of a project except one (the on-call link rule). */
  async deactivateOthers(projectId: number, exceptId: number, now: string): Promise<void> {
    await this.db
      .updateTable('alert_integrations')
      .set({ active: writeBool(false), updated_at: now })
      .where('project_id', '=', projectId)
      .where('id', '!=', exceptId)
      .execute();
  }

  async deleteIntegration(id: number): Promise<void> {
    await this.db.deleteFrom('alert_integrations').where('id', '=', id).execute();
  }

  // Alerts

  async openAlert(trx: Queryable, projectId: number, fingerprint: string): Promise<Alert | null> {
    const r = await trx
      .selectFrom('alerts')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('fingerprint', '=', fingerprint)
      .where('status', '<>', RESOLVED)
      .executeTakeFirst();
    return r ? toAlert(r) : null;
  }

  /**
   * Creates a new triggered alert with the next iid of its project, its system note `note` and its first
   * occurrence; the answer is built from what was written (no read back of the row).
   */
  async createAlert(
    trx: Queryable,
    a: ParsedAlert & { projectId: number; integrationId: number | null },
    note: string,
    now: string,
  ): Promise<Alert> {
    const values: Insertable<AlertsTable> = {
      project_id: a.projectId,
      iid: 0,
      integration_id: a.integrationId,
      title: a.title,
      description: a.description,
      severity: a.severity,
      status: 'triggered',
      started_at: a.startedAt,
      ended_at: null,
      events: 1,
      fingerprint: a.fingerprint,
      hosts: JSON.stringify(a.hosts),
      service: a.service,
      monitoring_tool: a.monitoringTool,
      environment: a.environment,
      runbook: a.runbook,
      payload: JSON.stringify(a.payload),
      incident_iid: null,
      created_at: now,
      updated_at: now,
    };
    let r: { id: number; iid: number } | undefined;
    if (this.dialect === 'postgres') {
      r = await this.q.createAlertPg.first(trx, { ...values, note });
    } else {
      values.iid = await nextIid(trx, a.projectId, 'alerts');
      const inserted = await this.q.insertAlert.first(trx, values);
      r = inserted && { id: inserted.id, iid: values.iid };
      if (r) {
        await this.addNote(trx, r.id, note, null, now);
        await this.addOccurrence(trx, r.id, now);
      }
    }
    if (!r) throw new Error('the alert insert returned no row');
    return {
      id: r.id,
      projectId: a.projectId,
      iid: r.iid,
      integrationId: a.integrationId,
      title: a.title,
      description: a.description,
      severity: a.severity,
      status: 'triggered',
      startedAt: readTimestamp(a.startedAt),
      endedAt: null,
      events: 1,
      fingerprint: a.fingerprint,
      hosts: [...a.hosts],
      service: a.service,
      monitoringTool: a.monitoringTool,
      environment: a.environment,
      runbook: a.runbook,
      payload: a.payload,
      incidentIid: null,
      assignees: [],
      createdAt: readTimestamp(now),
      updatedAt: readTimestamp(now),
    };
  }

  /** Records when an alert fired (its first firing and each repeat), for the occurrences chart. */
  private async addOccurrence(trx: Queryable, alertId: number, now: string): Promise<void> {
    await this.q.addOccurrence.run(trx, { alertId, now });
  }

  /** Counts one more occurrence of the open alert with this fingerprint, if there is one (one statement). */
  async incrementOpen(
    trx: Queryable,
    projectId: number,
    fingerprint: string,
    now: string,
  ): Promise<IidTitle | null> {
    if (this.dialect === 'postgres') {
      const r = await this.q.incrementOpenPg.first(trx, { projectId, fingerprint, now });
      return r ? { iid: r.iid, title: r.title } : null;
    }
    const r = await this.q.incrementOpen.first(trx, { projectId, fingerprint, now });
    if (!r) return null;
    await this.addOccurrence(trx, r.id, now);
    return { iid: r.iid, title: r.title };
  }

  async setStatus(
    trx: Queryable,
    id: number,
    status: AlertStatus,
    endedAt: string | null,
    now: string,
  ): Promise<void> {
    await trx
      .updateTable('alerts')
      .set({ status, ended_at: endedAt, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  /** The alerts linked to an incident that are not resolved yet. */
  async openAlertsOfIncident(trx: Queryable, projectId: number, incidentIid: number): Promise<Alert[]> {
    const rows = await trx
      .selectFrom('alerts')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('incident_iid', '=', incidentIid)
      .where('status', '!=', 'resolved')
      .orderBy('iid')
      .execute();
    return rows.map(toAlert);
  }

  async unlinkIncident(trx: Queryable, projectId: number, incidentIid: number): Promise<void> {
    await trx
      .updateTable('alerts')
      .set({ incident_iid: null })
      .where('project_id', '=', projectId)
      .where('incident_iid', '=', incidentIid)
      .execute();
  }

  async linkIncident(trx: Queryable, id: number, incidentIid: number): Promise<void> {
    await trx.updateTable('alerts').set({ incident_iid: incidentIid }).where('id', '=', id).execute();
  }

  async alert(projectId: number, iid: number, trx: Queryable = this.db): Promise<Alert | null> {
    const r = await trx
      .selectFrom('alerts')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('iid', '=', iid)
      .executeTakeFirst();
    if (!r) return null;
    return (await this.withAssignees([toAlert(r)], trx))[0]!;
  }

  async alertById(id: number, trx: Queryable = this.db): Promise<Alert | null> {
    const r = await trx.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst();
    if (!r) return null;
    return (await this.withAssignees([toAlert(r)], trx))[0]!;
  }

  /** The alerts with their assignees (one query for all of them). */
  private async withAssignees(alerts: Alert[], trx: Queryable = this.db): Promise<Alert[]> {
    if (alerts.length === 0) return alerts;
    const rows = await trx
      .selectFrom('alert_assignees')
      .innerJoin('users', 'users.id', 'alert_assignees.user_id')
      .selectAll('users')
      .select('alert_assignees.alert_id')
      .where(
        'alert_assignees.alert_id',
        'in',
        alerts.map((a) => a.id),
      )
      .orderBy('users.username')
      .execute();
    const byAlert = new Map<number, User[]>();
    for (const { alert_id, ...user } of rows) {
      byAlert.set(alert_id, [...(byAlert.get(alert_id) ?? []), toUser(user)]);
    }
    return alerts.map((a) => ({ ...a, assignees: byAlert.get(a.id) ?? [] }));
  }

  /**
   * Locks the alert's row until the transaction ends (a no-op update: a row lock on PostgreSQL, the write lock on
   * SQLite), so that concurrent changes of one alert's assignees run one after the other.
   */
  async lock(trx: Queryable, projectId: number, iid: number): Promise<void> {
    await trx
      .updateTable('alerts')
      .set({ updated_at: sql`updated_at` })
      .where('project_id', '=', projectId)
      .where('iid', '=', iid)
      .execute();
  }

  /** Replaces the alert's assignees. */
  async setAssignees(
    trx: Queryable,
    alertId: number,
    userIds: readonly number[],
    now: string,
  ): Promise<void> {
    await trx.deleteFrom('alert_assignees').where('alert_id', '=', alertId).execute();
    if (userIds.length === 0) return;
    await trx
      .insertInto('alert_assignees')
      .values(userIds.map((id) => ({ alert_id: alertId, user_id: id, created_at: now })))
      .execute();
    await trx.updateTable('alerts').set({ updated_at: now }).where('id', '=', alertId).execute();
  }

  /** Firings of an alert per bucket of `window`, counted by the database. */
  async occurrences(alertId: number, window: BucketWindow): Promise<Bucket[]> {
    const key = bucketKey(this.dialect, 'occurred_at', window.interval);
    const rows = await this.db
      .selectFrom('alert_events')
      .select((eb) => [key.as('bucket'), eb.fn.countAll().as('n')])
      .where('alert_id', '=', alertId)
      .where('occurred_at', '>=', window.from)
      .groupBy(key)
      .execute();
    return fillBuckets(window, new Map(rows.map((r) => [r.bucket, readCount(r.n as string | number)])));
  }

  async list(
    projectId: number,
    f: AlertFilter,
    order: AlertOrder,
    sort: 'asc' | 'desc',
    page: PageRequest,
  ): Promise<Paged<Alert>> {
    let base = this.db.selectFrom('alerts').where('project_id', '=', projectId);
    if (f.status === 'open') base = base.where('status', 'in', ['triggered', 'acknowledged']);
    else if (f.status) base = base.where('status', '=', f.status);
    if (f.incidentIid !== undefined) base = base.where('incident_iid', '=', f.incidentIid);
    // The page and the count may read the matches differently (see `matching`); the filter is the same.
    let pageBase = base;
    if (f.search) {
      const m = await this.matching(f.search);
      base = base.where(m.count);
      pageBase = pageBase.where(m.page);
    }
    // Severity sorts by rank (critical first when descending), not alphabetically.
    const orderExpr =
      order === 'severity'
        ? sql`CASE severity WHEN 'critical' THEN 5 WHEN 'high' THEN 4 WHEN 'medium' THEN 3 WHEN 'low' THEN 2 WHEN 'info' THEN 1 ELSE 0 END`
        : sql.ref(order);
    const { rows, total } = await fetchPage(
      base,
      () => pageBase.selectAll().orderBy(orderExpr, sort).orderBy('iid', sort),
      page,
      this.db,
    );
    return { items: await this.withAssignees(rows.map(toAlert)), total };
  }

  /**
   * SQLite: adds to the search index up to `limit` alerts above its mark (migration 0021), in one transaction;
   * returns how many. PostgreSQL maintains its index itself: 0.
   */
  async indexForSearch(limit: number): Promise<number> {
    if (this.dialect !== 'sqlite') return 0;
    const pending = await sql<{ n: number }>`SELECT EXISTS (SELECT 1 FROM alerts
      WHERE id > (SELECT indexed_up_to FROM alerts_search_state)) AS n`.execute(this.db);
    if (!pending.rows[0]?.n) return 0;
    return this.db.transaction().execute(async (trx) => {
      const mark = await sql<{ from_id: number; to_id: number | null; n: number }>`
        SELECT s.indexed_up_to AS from_id, max(a.id) AS to_id, count(a.id) AS n FROM alerts_search_state s
        LEFT JOIN (SELECT id FROM alerts WHERE id > (SELECT indexed_up_to FROM alerts_search_state)
          ORDER BY id LIMIT ${limit}) a ON 1`.execute(trx);
      const { from_id, to_id, n } = mark.rows[0]!;
      if (to_id === null) return 0;
      await sql`INSERT INTO alerts_search (rowid, title, description, monitoring_tool, service)
        SELECT id, title, description, monitoring_tool, service FROM alerts
        WHERE id > ${from_id} AND id <= ${to_id}`.execute(trx);
      await sql`UPDATE alerts_search_state SET indexed_up_to = ${to_id}`.execute(trx);
      return Number(n);
    });
  }

  /**
   * Alerts whose title, description, monitoring tool or service contains `term`, case-insensitively (GitLab's
   * alert search). Read through the index of migration 0021: the trigram FTS table `alerts_search` on SQLite for a
   * term of three characters or more (the caller indexes new alerts first: AlertSearchIndex; shorter terms, which
   * no trigram index can serve, compare the columns), and
   * `ILIKE` on the expression of the `pg_trgm` index `alerts_search_trgm` on PostgreSQL. `%` and `_` in the term
   * are literal. The same filter for the list's capped count and for its page, written for each to read well.
   */
  private async matching(term: string): Promise<{ count: RawBuilder<SqlBool>; page: RawBuilder<SqlBool> }> {
    if (this.dialect === 'postgres') {
      const m = sql<SqlBool>`(title || chr(1) || coalesce(description, '') || chr(1) || coalesce(monitoring_tool, '') || chr(1) || coalesce(service, '')) ILIKE ${containsPattern(term)}`;
      return { count: m, page: m };
    }
    if ([...term].length >= 3) {
      const phrase = `"${term.replaceAll('"', '""')}"`;
      const matches = sql`(SELECT rowid FROM alerts_search WHERE alerts_search MATCH ${phrase})`;
      // A rare term: the page reads its few matches by id and sorts them. A common one (one alert in eight in
      // bench/read-paths.js, 25,000 matches): sorting every match took 50 ms, so the page reads the alerts in
      // the list's order and keeps the matching ones (`+id` keeps SQLite from reading by id), stopping at 20.
      const probe = await sql<{ n: number }>`SELECT count(*) AS n FROM
        (SELECT 1 FROM alerts_search WHERE alerts_search MATCH ${phrase} LIMIT ${COMMON_MATCHES})`.execute(
        this.db,
      );
      const common = Number(probe.rows[0]?.n ?? 0) >= COMMON_MATCHES;
      return {
        count: sql<SqlBool>`id IN ${matches}`,
        page: common ? sql<SqlBool>`+id IN ${matches}` : sql<SqlBool>`id IN ${matches}`,
      };
    }
    const pattern = containsPattern(term.toLowerCase());
    const m = sql<SqlBool>`(lower(title) LIKE ${pattern} ESCAPE '\\' OR lower(coalesce(description, '')) LIKE ${pattern} ESCAPE '\\'
      OR lower(coalesce(monitoring_tool, '')) LIKE ${pattern} ESCAPE '\\' OR lower(coalesce(service, '')) LIKE ${pattern} ESCAPE '\\')`;
    return { count: m, page: m };
  }

  async counts(projectId: number): Promise<Record<AlertStatus, number>> {
    // Kept by triggers on alerts (migration 0020): counting 200,000 alerts took 50-100 ms a request on SQLite.
    const rows = await this.db
      .selectFrom('alert_status_counts')
      .select(['status', 'n'])
      .where('project_id', '=', projectId)
      .execute();
    const out: Record<AlertStatus, number> = { triggered: 0, acknowledged: 0, resolved: 0, ignored: 0 };
    for (const r of rows) out[r.status as AlertStatus] = readCount(r.n as string | number);
    return out;
  }

  async addNote(
    trx: Queryable,
    alertId: number,
    body: string,
    authorId: number | null,
    now: string,
    system = true,
  ): Promise<AlertNote> {
    const r = await this.q.addNote.first(trx, { alertId, authorId, body, now, system: writeBool(system) });
    if (!r) throw new Error('the note insert returned no row');
    return toNote(r);
  }

  async notes(alertId: number): Promise<AlertNote[]> {
    const rows = await this.db
      .selectFrom('alert_notes')
      .selectAll()
      .where('alert_id', '=', alertId)
      .orderBy('id', 'asc')
      .execute();
    return rows.map(toNote);
  }

  // Settings

  async settings(projectId: number, trx: Queryable = this.db): Promise<AlertSettings> {
    const r = await this.q.settings.first(trx, { projectId });
    // Defaults (GitLab): no incident per alert; close the incident on recovery; no e-mail; closing an incident
    // resolves its alerts.
    return r
      ? {
          createIncident: readBool(r.create_incident),
          autoCloseIncident: readBool(r.auto_close_incident),
          sendEmail: readBool(r.send_email),
          autoResolveAlerts: readBool(r.auto_resolve_alerts),
        }
      : { createIncident: false, autoCloseIncident: true, sendEmail: false, autoResolveAlerts: true };
  }

  async putSettings(projectId: number, s: AlertSettings): Promise<void> {
    const values = {
      create_incident: writeBool(s.createIncident),
      auto_close_incident: writeBool(s.autoCloseIncident),
      send_email: writeBool(s.sendEmail),
      auto_resolve_alerts: writeBool(s.autoResolveAlerts),
    };
    await this.db
      .insertInto('project_alert_settings')
      .values({ project_id: projectId, ...values })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(values))
      .execute();
  }
}

/** Search matches (in every project) from which a term counts as common: see `matching`. */
const COMMON_MATCHES = 1000;
