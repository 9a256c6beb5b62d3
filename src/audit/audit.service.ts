import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Cipher } from '../crypto.js';
import { readTimestamp } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { forbidden, invalidFields, notFound, unauthorized } from '../errors.js';
import type { JobQueue } from '../jobs/queue.js';
import { OutboundError, type OutboundHttp } from '../outbound.js';
import type { KeysetRequest } from '../paging.js';
import type { Project } from '../projects/projects.js';
import type { User } from '../users/users.js';
import type { ReleaseGates } from '../versioning/gates.js';

export const AUDIT_STREAM_JOB = 'audit_event_stream';
/** The header carrying a destination's verification token on every streamed event. */
export const STREAMING_TOKEN_HEADER = 'X-Svc-Event-Streaming-Token';

export interface AuditEvent {
  readonly id: number | null;
  readonly authorId: number | null;
  readonly entityType: 'Project' | 'Group' | 'User';
  readonly entityId: number;
  readonly eventName: string;
  readonly details: Record<string, unknown>;
  readonly ipAddress: string | null;
  readonly createdAt: string;
}

export interface Destination {
  readonly id: number;
  readonly destinationUrl: string;
  readonly verificationToken: string;
}

export interface AuditFilter {
  entityType?: string;
  entityId?: number;
  createdAfter?: string;
  createdBefore?: string;
}

/**
 * Audit events: stored events, the API that lists them, and streaming to external destinations (each event
 * POSTed as JSON by the job worker, with retries; a download never waits for it).
 */
export class AuditService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly jobs: JobQueue,
    private readonly gates: ReleaseGates,
    private readonly http: OutboundHttp,
    private readonly clock: Clock,
    /** Verification tokens are shown again by the API, so they are encrypted at rest (migration 0008). */
    private readonly cipher: Cipher,
  ) {
    jobs.register(AUDIT_STREAM_JOB, async (job) =>
      this.deliver(job.payload as { destinationId: number; event: StreamedEvent }),
    );
  }

  /**
   * A repository download (archive, clone or fetch). Spec (17.0): before 17.0 every project's download records
   * `repository_download_operation`; from 17.0 only private and internal projects do, and a public project's
   * download emits `public_repository_download_operation`, streamed only, never stored.
   */
  async recordDownload(
    actor: User | null,
    project: Project,
    ip: string | null,
    via: 'archive' | 'git',
  ): Promise<void> {
    const publicOnlyStream =
      this.gates.isRemoved('audit_repository_download_operation') && project.visibility === 'public';
    const event: AuditEvent = {
      id: null,
      authorId: actor?.id ?? null,
      entityType: 'Project',
      entityId: project.id,
      eventName: publicOnlyStream ? 'public_repository_download_operation' : 'repository_download_operation',
      details: {
        author_name: actor?.name ?? 'An unauthenticated user',
        target_id: project.id,
        target_type: 'Project',
        target_details: project.fullPath,
        custom_message:
          via === 'archive' ? 'Repository Download Started' : 'Repository cloned or fetched over HTTP',
        ip_address: ip,
        entity_path: project.fullPath,
      },
      ipAddress: ip,
      createdAt: this.clock.now().toISOString(),
    };
    await this.record(event, !publicOnlyStream);
  }

  private async record(event: AuditEvent, store: boolean): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      let stored = event;
      if (store) {
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
        stored = { ...event, id: row.id };
      }
      const destinations = await trx.selectFrom('audit_event_destinations').select('id').execute();
      for (const d of destinations) {
        await this.jobs.enqueue(
          AUDIT_STREAM_JOB,
          { destinationId: d.id, event: streamedEvent(stored) },
          { trx },
        );
      }
    });
  }

  /** POSTs one event to one destination; a failure throws, so the job worker retries with backoff. */
  private async deliver(p: { destinationId: number; event: StreamedEvent }): Promise<void> {
    const d = await this.db
      .selectFrom('audit_event_destinations')
      .selectAll()
      .where('id', '=', p.destinationId)
      .executeTakeFirst();
    if (!d) return; // The destination was deleted: nothing to deliver.
    const url = new URL(d.destination_url);
    let res: Awaited<ReturnType<OutboundHttp['request']>>;
    try {
      res = await this.http.request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [STREAMING_TOKEN_HEADER]: this.reveal(d.verification_token),
        },
        body: JSON.stringify(p.event),
        maxResponseBytes: 64 * 1024,
      });
    } catch (err) {
      // The job records the reason (never the token) and retries with backoff.
      const reason = err instanceof OutboundError ? err.message : 'the request failed';
      throw new Error(`not delivered to ${url.origin}: ${reason}`);
    }
    if (res.status < 200 || res.status > 299) throw new Error(`destination answered ${res.status}`);
  }

  // Reading (admins: every event; project Maintainers and group Owners: their entity's)

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

  // Streaming destinations (admin)

  private admin(actor: User | null): void {
    if (!actor) throw unauthorized();
    if (!actor.admin) throw forbidden();
  }

  async destinations(actor: User | null): Promise<Destination[]> {
    this.admin(actor);
    const rows = await this.db.selectFrom('audit_event_destinations').selectAll().orderBy('id').execute();
    return rows.map((r) => ({
      id: r.id,
      destinationUrl: r.destination_url,
      verificationToken: this.reveal(r.verification_token),
    }));
  }

  async addDestination(actor: User | null, destinationUrl: string): Promise<Destination> {
    this.admin(actor);
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(destinationUrl).protocol);
    } catch {
      ok = false;
    }
    if (!ok) throw invalidFields({ destination_url: ['must be an absolute http(s) URL'] });
    try {
      await this.http.addresses(new URL(destinationUrl));
    } catch (err) {
      // GitLab's UrlBlocker: a local destination is refused while local requests are not allowed. A name
      // that does not resolve yet is kept; delivery checks again on every request.
      if (err instanceof OutboundError && err.reason === 'blocked')
        throw invalidFields({ destination_url: [`is blocked: ${err.message}`] });
    }
    const token = randomBytes(12).toString('hex');
    const r = await this.db
      .insertInto('audit_event_destinations')
      .values({
        destination_url: destinationUrl,
        verification_token: this.cipher.encrypt(token),
        created_at: this.clock.now().toISOString(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { id: r.id, destinationUrl: r.destination_url, verificationToken: token };
  }

  /**
   * A stored verification token in clear. Rows are encrypted (`v1:...`); a plain one can only come from an archive
   * made before migration 0008 and restored as is, and is used as it is rather than breaking the destination.
   */
  private reveal(stored: string): string {
    return stored.startsWith('v1:') ? this.cipher.decrypt(stored) : stored;
  }

  async deleteDestination(actor: User | null, id: number): Promise<void> {
    this.admin(actor);
    const r = await this.db.deleteFrom('audit_event_destinations').where('id', '=', id).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw notFound('Destination');
  }
}

/** The JSON body POSTed to a streaming destination for one event (the API's presenter answers the same). */
export type StreamedEvent = ReturnType<typeof streamedEvent>;

export function streamedEvent(e: AuditEvent) {
  return {
    id: e.id,
    author_id: e.authorId,
    entity_id: e.entityId,
    entity_type: e.entityType,
    event_name: e.eventName,
    details: e.details,
    created_at: e.createdAt,
  };
}
