import type { Kysely, Transaction } from 'kysely';
import { readTimestamp } from '../db/dialect.js';
import type { Database, Queryable } from '../db/schema.js';
import type { KeysetRequest } from '../pagination.js';
import type { AuditEvent, AuditFilter, Destination } from './audit.js';

/** Stored audit events and streaming destinations (verification tokens as stored: encrypted). */
export class AuditRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Runs `fn` in a transaction. */
  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** Stores an event; returns its id. */
  async insertEvent(trx: Queryable, event: AuditEvent): Promise<number> {
    const row = await trx
      .insertInto('audit_events')
      .values({
        author_id: event.authorId,
        entity_type: event.entityType,
        entity_id: event.entityId,
        event_name: event.eventName,
        details: JSON.stringify(event.details),
        ip_address: event.ipAddress,
        created_at: event.createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** One keyset page of events matching the filter. */
  async list(filter: AuditFilter, k: KeysetRequest<'id'>): Promise<AuditEvent[]> {
    let q = this.db.selectFrom('audit_events').selectAll();
    if (filter.entityType) q = q.where('entity_type', '=', filter.entityType);
    if (filter.entityId !== undefined) q = q.where('entity_id', '=', filter.entityId);
    if (filter.createdAfter) q = q.where('created_at', '>=', filter.createdAfter);
    if (filter.createdBefore) q = q.where('created_at', '<=', filter.createdBefore);
    if (k.after) q = q.where('id', k.sort === 'asc' ? '>' : '<', k.after.id);
    const rows = await q.orderBy('id', k.sort).limit(k.limit).execute();
    return rows.map((r) => ({
      id: r.id,
      authorId: r.author_id,
      entityType: r.entity_type as AuditEvent['entityType'],
      entityId: r.entity_id,
      eventName: r.event_name,
      details: JSON.parse(r.details) as Record<string, unknown>,
      ipAddress: r.ip_address,
      createdAt: readTimestamp(r.created_at),
    }));
  }

  async destinationIds(trx: Queryable = this.db): Promise<number[]> {
    return (await trx.selectFrom('audit_event_destinations').select('id').execute()).map((d) => d.id);
  }

  async destination(id: number): Promise<Destination | null> {
    const r = await this.db
      .selectFrom('audit_event_destinations')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return r
      ? { id: r.id, destinationUrl: r.destination_url, verificationToken: r.verification_token }
      : null;
  }

  async destinations(): Promise<Destination[]> {
    const rows = await this.db.selectFrom('audit_event_destinations').selectAll().orderBy('id').execute();
    return rows.map((r) => ({
      id: r.id,
      destinationUrl: r.destination_url,
      verificationToken: r.verification_token,
    }));
  }

  async insertDestination(url: string, storedToken: string, now: string): Promise<Destination> {
    const r = await this.db
      .insertInto('audit_event_destinations')
      .values({ destination_url: url, verification_token: storedToken, created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { id: r.id, destinationUrl: r.destination_url, verificationToken: r.verification_token };
  }

  /** Deletes a destination; false when there was none with that id. */
  async deleteDestination(id: number): Promise<boolean> {
    const r = await this.db.deleteFrom('audit_event_destinations').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
