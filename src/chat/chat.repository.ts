import { type Kysely, type Selectable, sql } from 'kysely';
import { readBool, readNullableTimestamp, readTimestamp, writeBool } from '../db/dialect.js';
import { fetchPage } from '../db/pagination.js';
import type { ChatDeliveriesTable, ChatIntegrationsTable, Database, Queryable } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import type {
  ChatDelivery,
  ChatDeliveryStatus,
  ChatEventFlag,
  ChatIntegration,
  ChatProperties,
  ChatSlug,
} from './chat.js';

function toIntegration(r: Selectable<ChatIntegrationsTable>): ChatIntegration {
  return {
    id: r.id,
    projectId: r.project_id,
    slug: r.slug as ChatSlug,
    active: readBool(r.active),
    properties: JSON.parse(r.properties) as ChatProperties,
    events: {
      alert_events: readBool(r.alert_events),
      incident_events: readBool(r.incident_events),
      error_tracking_events: readBool(r.error_tracking_events),
      page_events: readBool(r.page_events),
    },
    failures: r.failures,
    disabledReason: r.disabled_reason,
    disabledUntil: readNullableTimestamp(r.disabled_until),
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
  };
}

function toDelivery(r: Selectable<ChatDeliveriesTable>): ChatDelivery {
  return {
    id: r.id,
    integrationId: r.integration_id,
    event: r.event,
    action: r.action,
    payload: JSON.parse(r.payload) as unknown,
    status: r.status as ChatDeliveryStatus,
    responseStatus: r.response_status,
    durationMs: r.duration_ms,
    error: r.error,
    attempts: r.attempts,
    createdAt: readTimestamp(r.created_at),
    finishedAt: readNullableTimestamp(r.finished_at),
  };
}

export interface ChatInput {
  readonly active: boolean;
  readonly secretEncrypted: string;
  readonly properties: ChatProperties;
  readonly events: Readonly<Record<ChatEventFlag, boolean>>;
}

export type StoredChatIntegration = ChatIntegration & { readonly secretEncrypted: string };

const stored = (r: Selectable<ChatIntegrationsTable>): StoredChatIntegration => ({
  ...toIntegration(r),
  secretEncrypted: r.secret_encrypted,
});

const columns = (i: ChatInput) => ({
  active: writeBool(i.active),
  secret_encrypted: i.secretEncrypted,
  properties: JSON.stringify(i.properties),
  alert_events: writeBool(i.events.alert_events),
  incident_events: writeBool(i.events.incident_events),
  error_tracking_events: writeBool(i.events.error_tracking_events),
  page_events: writeBool(i.events.page_events),
});

/** Chat integrations and their deliveries. */
export class ChatRepository {
  constructor(private readonly db: Kysely<Database>) {}

  transaction<T>(fn: (trx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** A project's integrations, in the order of GitLab's list (by title). */
  async list(projectId: number, trx: Queryable = this.db): Promise<StoredChatIntegration[]> {
    const rows = await trx
      .selectFrom('chat_integrations')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
    return rows.map(stored);
  }

  async find(projectId: number, slug: ChatSlug): Promise<StoredChatIntegration | null> {
    const r = await this.db
      .selectFrom('chat_integrations')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('slug', '=', slug)
      .executeTakeFirst();
    return r ? stored(r) : null;
  }

  async byId(id: number): Promise<StoredChatIntegration | null> {
    const r = await this.db
      .selectFrom('chat_integrations')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? stored(r) : null;
  }

  /**
   * Creates or changes the project's integration of `slug` (one each, as GitLab's); a change re-enables one that
   * was disabled for failing.
   */
  async upsert(projectId: number, slug: ChatSlug, input: ChatInput, now: string): Promise<void> {
    await this.db
      .insertInto('chat_integrations')
      .values({
        project_id: projectId,
        slug,
        ...columns(input),
        failures: 0,
        disabled_until: null,
        disabled_reason: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.columns(['project_id', 'slug']).doUpdateSet({
          ...columns(input),
          failures: 0,
          disabled_until: null,
          disabled_reason: null,
          updated_at: now,
        }),
      )
      .execute();
  }

  /**
   * GitLab's DELETE: the integration stays, inactive, with its secret cleared and its settings back to their
   * defaults (`input`); its deliveries stay.
   */
  async disable(id: number, input: ChatInput, now: string): Promise<void> {
    await this.db
      .updateTable('chat_integrations')
      .set({ ...columns(input), failures: 0, disabled_until: null, disabled_reason: null, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  async succeeded(id: number): Promise<void> {
    await this.db
      .updateTable('chat_integrations')
      .set({ failures: 0, disabled_reason: null, disabled_until: null })
      .where('id', '=', id)
      .execute();
  }

  /** Counts a failed attempt; at `limit` in a row disables the integration with `reason`. Returns the count. */
  async failed(id: number, limit: number, reason: string): Promise<number> {
    const r = await this.db
      .updateTable('chat_integrations')
      .set({
        failures: sql`failures + 1`,
        disabled_reason: sql`CASE WHEN disabled_reason IS NULL AND failures + 1 >= ${limit} THEN ${reason} ELSE disabled_reason END`,
      })
      .where('id', '=', id)
      .returning('failures')
      .executeTakeFirst();
    return r?.failures ?? 0;
  }

  async disabledUntil(id: number, until: string): Promise<void> {
    await this.db
      .updateTable('chat_integrations')
      .set({ disabled_until: until })
      .where('id', '=', id)
      .execute();
  }

  // Deliveries

  async insertDelivery(
    trx: Queryable,
    d: { integrationId: number; event: string; action: string; payload: unknown; dedupeKey: string },
    now: string,
  ): Promise<number | null> {
    const r = await trx
      .insertInto('chat_deliveries')
      .values({
        integration_id: d.integrationId,
        event: d.event,
        action: d.action,
        payload: JSON.stringify(d.payload),
        dedupe_key: d.dedupeKey,
        status: 'pending',
        response_status: null,
        duration_ms: null,
        error: null,
        created_at: now,
        finished_at: null,
      })
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .returning('id')
      .executeTakeFirst();
    return r?.id ?? null;
  }

  async delivery(id: number): Promise<ChatDelivery | null> {
    const r = await this.db.selectFrom('chat_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toDelivery(r) : null;
  }

  async updateDelivery(
    id: number,
    d: {
      status: ChatDeliveryStatus;
      responseStatus: number | null;
      durationMs: number | null;
      error: string | null;
      attempts: number;
      finishedAt: string | null;
    },
  ): Promise<void> {
    await this.db
      .updateTable('chat_deliveries')
      .set({
        status: d.status,
        response_status: d.responseStatus,
        duration_ms: d.durationMs,
        error: d.error,
        attempts: d.attempts,
        finished_at: d.finishedAt,
      })
      .where('id', '=', id)
      .execute();
  }

  async deliveries(integrationId: number, page: PageRequest): Promise<Paged<ChatDelivery>> {
    const base = this.db.selectFrom('chat_deliveries').where('integration_id', '=', integrationId);
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('id', 'desc'), page);
    return { items: rows.map(toDelivery), total };
  }
}
