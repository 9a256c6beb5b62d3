import type { Kysely, Selectable } from 'kysely';
import { readCount, readTimestamp } from '../db/dialect.js';
import type { Database, ErrorTrackingAttachmentsTable, ErrorTrackingFeedbackTable } from '../db/schema.js';
import type { Attachment, Feedback, FeedbackInput, FeedbackSource } from './reports.js';

type Queryable = Kysely<Database>;

/** Most feedback one list returns (newest first). */
const FEEDBACK_LIST_LIMIT = 100;
/** Largest dropped count kept (bigint would hold more; a count this size says all there is to say). */
const MAX_DROPPED = Number.MAX_SAFE_INTEGER;

function toFeedback(r: Selectable<ErrorTrackingFeedbackTable>): Feedback {
  return {
    id: r.id,
    eventId: r.event_id,
    source: r.source as FeedbackSource,
    name: r.name,
    email: r.email,
    comments: r.comments,
    url: r.url,
    createdAt: readTimestamp(r.created_at),
  };
}

function toAttachment(r: Omit<Selectable<ErrorTrackingAttachmentsTable>, 'content'>): Attachment {
  return {
    id: r.id,
    eventId: r.event_id,
    filename: r.filename,
    contentType: r.content_type,
    attachmentType: r.attachment_type,
    size: r.size,
    createdAt: readTimestamp(r.created_at),
  };
}

export interface AttachmentInput {
  readonly eventId: string;
  readonly filename: string;
  readonly contentType: string;
  readonly attachmentType: string;
  readonly content: Buffer;
}

/**
 * Feedback, attachments and dropped-item counts. Feedback and attachments name their event by its id and are
 * joined to it when read, so that either may arrive first (Sentry's SDKs send a feedback after its event, a
 * standalone attachment before it).
 */
export class ReportsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async addFeedback(
    trx: Queryable,
    projectId: number,
    f: readonly FeedbackInput[],
    now: string,
  ): Promise<void> {
    if (f.length === 0) return;
    await trx
      .insertInto('error_tracking_feedback')
      .values(
        f.map((x) => ({
          project_id: projectId,
          event_id: x.eventId,
          source: x.source,
          name: x.name,
          email: x.email,
          comments: x.comments,
          url: x.url,
          created_at: now,
        })),
      )
      .execute();
  }

  async addAttachments(
    trx: Queryable,
    projectId: number,
    a: readonly AttachmentInput[],
    now: string,
  ): Promise<void> {
    for (const x of a)
      await trx
        .insertInto('error_tracking_attachments')
        .values({
          project_id: projectId,
          event_id: x.eventId,
          filename: x.filename,
          content_type: x.contentType,
          attachment_type: x.attachmentType,
          size: x.content.length,
          content: x.content.toString('base64'),
          created_at: now,
        })
        .execute();
  }

  /** Adds to the project's dropped-item counts (one upsert per type). */
  async addDropped(
    trx: Queryable,
    projectId: number,
    counts: Readonly<Record<string, number>>,
  ): Promise<void> {
    for (const [type, n] of Object.entries(counts)) {
      if (n <= 0) continue;
      await trx
        .insertInto('error_tracking_dropped_items')
        .values({ project_id: projectId, item_type: type, count: n })
        .onConflict((oc) =>
          oc.columns(['project_id', 'item_type']).doUpdateSet((eb) => ({
            count: eb('error_tracking_dropped_items.count', '+', n),
          })),
        )
        .execute();
    }
  }

  async dropped(projectId: number): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('error_tracking_dropped_items')
      .select(['item_type', 'count'])
      .where('project_id', '=', projectId)
      .orderBy('item_type')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.item_type, Math.min(readCount(r.count), MAX_DROPPED)]));
  }

  /** Feedback about the events of one error, newest first. */
  async feedbackOfError(projectId: number, errorId: number): Promise<Feedback[]> {
    const rows = await this.db
      .selectFrom('error_tracking_feedback as f')
      .selectAll('f')
      .where('f.project_id', '=', projectId)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('error_tracking_events as e')
            .select('e.id')
            .whereRef('e.event_id', '=', 'f.event_id')
            .where('e.project_id', '=', projectId)
            .where('e.error_id', '=', errorId),
        ),
      )
      .orderBy('f.id', 'desc')
      .limit(FEEDBACK_LIST_LIMIT)
      .execute();
    return rows.map(toFeedback);
  }

  /** The project's feedback, newest first (also feedback that names no event, or one svc never received). */
  async feedbackOfProject(projectId: number): Promise<Feedback[]> {
    const rows = await this.db
      .selectFrom('error_tracking_feedback')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id', 'desc')
      .limit(FEEDBACK_LIST_LIMIT)
      .execute();
    return rows.map(toFeedback);
  }

  async attachments(projectId: number, eventId: string): Promise<Attachment[]> {
    const rows = await this.db
      .selectFrom('error_tracking_attachments')
      .select([
        'id',
        'project_id',
        'event_id',
        'filename',
        'content_type',
        'attachment_type',
        'size',
        'created_at',
      ])
      .where('project_id', '=', projectId)
      .where('event_id', '=', eventId)
      .orderBy('id')
      .execute();
    return rows.map(toAttachment);
  }

  /** Retention: feedback and attachments received before `cutoff` (their events are deleted by then too). */
  async prune(cutoff: string): Promise<void> {
    await this.db.deleteFrom('error_tracking_attachments').where('created_at', '<', cutoff).execute();
    await this.db.deleteFrom('error_tracking_feedback').where('created_at', '<', cutoff).execute();
  }

  async attachment(
    projectId: number,
    eventId: string,
    id: number,
  ): Promise<{ attachment: Attachment; content: Buffer } | null> {
    const r = await this.db
      .selectFrom('error_tracking_attachments')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('event_id', '=', eventId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? { attachment: toAttachment(r), content: Buffer.from(r.content, 'base64') } : null;
  }
}
