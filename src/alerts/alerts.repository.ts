import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import {
  readBool,
  readCount,
  readNullableTimestamp,
  readTimestamp,
  SQLITE_CONSTRAINT_UNIQUE,
  writeBool,
} from '../db/dialect.js';
import { nextIid } from '../db/internal-ids.js';
import { fetchPage } from '../db/paged.js';
import type { AlertIntegrationsTable, AlertsTable, Database } from '../db/schema.js';
import type { Paged, PageRequest } from '../paging.js';
import type {
  Alert,
  AlertNote,
  AlertStatus,
  Integration,
  IntegrationType,
  ParsedAlert,
  PayloadMapping,
  Severity,
} from './alerts.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Whether a database error is a unique-constraint violation (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errcode?: number; message?: string };
  return (
    e.code === '23505' ||
    e.errcode === SQLITE_CONSTRAINT_UNIQUE ||
    /UNIQUE constraint failed/.test(e.message ?? '')
  );
}

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
    tokenEncrypted: r.token_encrypted,
  };
}

function toAlert(r: Selectable<AlertsTable>): Alert {
  return {
    id: r.id,
    projectId: r.project_id,
    iid: r.iid,
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
  };
}

export interface AlertFilter {
  /** A status, or `open` for triggered and acknowledged. */
  status?: AlertStatus | 'open';
  search?: string;
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
  constructor(private readonly db: Kysely<Database>) {}

  /** Runs `fn` in a transaction. */
  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** Allocates the next per-project internal id for `usage`. */
  nextIid(trx: Db, projectId: number, usage: 'alerts' | 'issues'): Promise<number> {
    return nextIid(trx, projectId, usage);
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

  async openAlert(trx: Db, projectId: number, fingerprint: string): Promise<Alert | null> {
    const r = await trx
      .selectFrom('alerts')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('fingerprint', '=', fingerprint)
      .where('status', '<>', 'resolved')
      .executeTakeFirst();
    return r ? toAlert(r) : null;
  }

  async insertAlert(
    trx: Db,
    a: ParsedAlert & { projectId: number; iid: number; integrationId: number | null },
    now: string,
  ): Promise<Alert> {
    const r = await trx
      .insertInto('alerts')
      .values({
        project_id: a.projectId,
        iid: a.iid,
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
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toAlert(r);
  }

  /** Counts one more occurrence of the open alert with this fingerprint, if there is one (one statement). */
  async incrementOpen(
    trx: Db,
    projectId: number,
    fingerprint: string,
    now: string,
  ): Promise<{ iid: number; title: string } | null> {
    const r = await trx
      .updateTable('alerts')
      .set({ events: sql`events + 1`, updated_at: now })
      .where('project_id', '=', projectId)
      .where('fingerprint', '=', fingerprint)
      .where('status', '<>', 'resolved')
      .returning(['iid', 'title'])
      .executeTakeFirst();
    return r ?? null;
  }

  async setStatus(
    trx: Db,
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

  async linkIncident(trx: Db, id: number, incidentIid: number): Promise<void> {
    await trx.updateTable('alerts').set({ incident_iid: incidentIid }).where('id', '=', id).execute();
  }

  async alert(projectId: number, iid: number, trx: Db = this.db): Promise<Alert | null> {
    const r = await trx
      .selectFrom('alerts')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('iid', '=', iid)
      .executeTakeFirst();
    return r ? toAlert(r) : null;
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
    if (f.search) {
      const s = `%${f.search.toLowerCase()}%`;
      base = base.where((eb) =>
        eb.or([
          eb(sql`lower(title)`, 'like', s),
          eb(sql`lower(coalesce(description, ''))`, 'like', s),
          eb(sql`lower(coalesce(monitoring_tool, ''))`, 'like', s),
          eb(sql`lower(coalesce(service, ''))`, 'like', s),
        ]),
      );
    }
    // Severity sorts by rank (critical first when descending), not alphabetically.
    const orderExpr =
      order === 'severity'
        ? sql`CASE severity WHEN 'critical' THEN 5 WHEN 'high' THEN 4 WHEN 'medium' THEN 3 WHEN 'low' THEN 2 WHEN 'info' THEN 1 ELSE 0 END`
        : sql.ref(order);
    const { rows, total } = await fetchPage(
      base,
      (q) => q.selectAll().orderBy(orderExpr, sort).orderBy('iid', sort),
      page,
    );
    return { items: rows.map(toAlert), total };
  }

  async counts(projectId: number): Promise<Record<AlertStatus, number>> {
    const rows = await this.db
      .selectFrom('alerts')
      .select(['status', (eb) => eb.fn.countAll().as('n')])
      .where('project_id', '=', projectId)
      .groupBy('status')
      .execute();
    const out: Record<AlertStatus, number> = { triggered: 0, acknowledged: 0, resolved: 0, ignored: 0 };
    for (const r of rows) out[r.status as AlertStatus] = readCount(r.n as string | number);
    return out;
  }

  async addNote(trx: Db, alertId: number, body: string, authorId: number | null, now: string): Promise<void> {
    await trx
      .insertInto('alert_notes')
      .values({ alert_id: alertId, author_id: authorId, body, created_at: now })
      .execute();
  }

  async notes(alertId: number): Promise<AlertNote[]> {
    const rows = await this.db
      .selectFrom('alert_notes')
      .selectAll()
      .where('alert_id', '=', alertId)
      .orderBy('id', 'asc')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      authorId: r.author_id,
      body: r.body,
      createdAt: readTimestamp(r.created_at),
    }));
  }

  // Settings

  async settings(
    projectId: number,
    trx: Db = this.db,
  ): Promise<{ createIncident: boolean; autoCloseIncident: boolean }> {
    const r = await trx
      .selectFrom('project_alert_settings')
      .selectAll()
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    // Defaults (GitLab): no incident per alert; close the incident on recovery.
    return r
      ? { createIncident: readBool(r.create_incident), autoCloseIncident: readBool(r.auto_close_incident) }
      : { createIncident: false, autoCloseIncident: true };
  }

  async putSettings(
    projectId: number,
    s: { createIncident: boolean; autoCloseIncident: boolean },
  ): Promise<void> {
    const values = {
      create_incident: writeBool(s.createIncident),
      auto_close_incident: writeBool(s.autoCloseIncident),
    };
    await this.db
      .insertInto('project_alert_settings')
      .values({ project_id: projectId, ...values })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(values))
      .execute();
  }
}
