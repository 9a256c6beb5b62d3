import { randomBytes } from 'node:crypto';
import type { InstancePolicy } from '../access/access.policy.js';
import type { Clock } from '../clock.js';
import type { Cipher } from '../crypto.js';
import { invalidFields, notFound } from '../errors.js';
import type { JobQueue } from '../jobs/queue.js';
import { OutboundError, type OutboundHttp } from '../outbound.js';
import type { KeysetRequest } from '../pagination.js';
import type { Project } from '../projects/projects.js';
import type { User } from '../users/users.js';
import type { ReleaseGates } from '../versioning/gates.js';
import {
  type AuditEvent,
  type AuditFilter,
  type Destination,
  type StreamedEvent,
  streamedEvent,
} from './audit.js';
import type { AuditRepository } from './audit.repository.js';

export const AUDIT_STREAM_JOB = 'audit_event_stream';
/** The header carrying a destination's verification token on every streamed event. */
export const STREAMING_TOKEN_HEADER = 'X-Svc-Event-Streaming-Token';

/**
 * Audit events: stored events, the API that lists them, and streaming to external destinations (each event
 * POSTed as JSON by the job worker, with retries; a download never waits for it).
 */
export class AuditService {
  constructor(
    private readonly repo: AuditRepository,
    private readonly jobs: JobQueue,
    private readonly gates: ReleaseGates,
    private readonly http: OutboundHttp,
    private readonly access: InstancePolicy<User>,
    private readonly clock: Clock,
    /** Verification tokens are shown again by the API, so they are encrypted at rest (migration 0008). */
    private readonly cipher: Cipher,
  ) {
    jobs.register(
      AUDIT_STREAM_JOB,
      async (job) => this.deliver(job.payload as { destinationId: number; event: StreamedEvent }),
      'hooks',
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
    await this.repo.transaction(async (trx) => {
      const stored = store ? { ...event, id: await this.repo.insertEvent(trx, event) } : event;
      for (const id of await this.repo.destinationIds(trx)) {
        await this.jobs.enqueue(
          AUDIT_STREAM_JOB,
          { destinationId: id, event: streamedEvent(stored) },
          { trx },
        );
      }
    });
  }

  /** POSTs one event to one destination; a failure throws, so the job worker retries with backoff. */
  private async deliver(p: { destinationId: number; event: StreamedEvent }): Promise<void> {
    const d = await this.repo.destination(p.destinationId);
    if (!d) return; // The destination was deleted: nothing to deliver.
    const url = new URL(d.destinationUrl);
    let res: Awaited<ReturnType<OutboundHttp['request']>>;
    try {
      res = await this.http.request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [STREAMING_TOKEN_HEADER]: this.reveal(d.verificationToken),
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
    return this.repo.list(filter, k);
  }

  // Streaming destinations (admin)

  private admin(actor: User | null): void {
    this.access.admin(actor);
  }

  async destinations(actor: User | null): Promise<Destination[]> {
    this.admin(actor);
    const stored = await this.repo.destinations();
    return stored.map((d) => ({ ...d, verificationToken: this.reveal(d.verificationToken) }));
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
    const d = await this.repo.insertDestination(
      destinationUrl,
      this.cipher.encrypt(token),
      this.clock.now().toISOString(),
    );
    return { ...d, verificationToken: token };
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
    if (!(await this.repo.deleteDestination(id))) throw notFound('Destination');
  }
}
