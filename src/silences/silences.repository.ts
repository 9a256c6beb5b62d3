import type { Kysely, Selectable } from 'kysely';
import { readTimestamp } from '../db/dialect.js';
import { fetchPage } from '../db/pagination.js';
import type { AlertSilencesTable, Database } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Matcher, Silence, SilenceState } from './silences.js';

const toSilence = (r: Selectable<AlertSilencesTable>): Silence => ({
  id: r.id,
  projectId: r.project_id,
  matchers: JSON.parse(r.matchers) as Matcher[],
  startsAt: readTimestamp(r.starts_at),
  endsAt: readTimestamp(r.ends_at),
  createdById: r.created_by_id,
  comment: r.comment,
  createdAt: readTimestamp(r.created_at),
  updatedAt: readTimestamp(r.updated_at),
});

export interface SilenceFields {
  readonly matchers: readonly Matcher[];
  readonly startsAt: string;
  readonly endsAt: string;
  readonly comment: string;
}

export class SilencesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** A page of a project's silences, newest first, of one state at `now` when given. */
  async list(
    projectId: number,
    state: SilenceState | undefined,
    now: string,
    page: PageRequest,
  ): Promise<Paged<Silence>> {
    let base = this.db.selectFrom('alert_silences').where('project_id', '=', projectId);
    if (state === 'pending') base = base.where('starts_at', '>', now);
    else if (state === 'active') base = base.where('starts_at', '<=', now).where('ends_at', '>', now);
    else if (state === 'expired') base = base.where('ends_at', '<=', now);
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('id', 'desc'), page);
    return { items: rows.map(toSilence), total };
  }

  async find(projectId: number, id: number): Promise<Silence | null> {
    const r = await this.db
      .selectFrom('alert_silences')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toSilence(r) : null;
  }

  /** The project's silences that have not ended at `now` (active or pending). */
  async unended(projectId: number, now: string): Promise<Silence[]> {
    const rows = await this.db
      .selectFrom('alert_silences')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('ends_at', '>', now)
      .orderBy('id')
      .execute();
    return rows.map(toSilence);
  }

  async insert(projectId: number, f: SilenceFields, createdById: number, now: string): Promise<number> {
    const r = await this.db
      .insertInto('alert_silences')
      .values({
        project_id: projectId,
        matchers: JSON.stringify(f.matchers),
        starts_at: f.startsAt,
        ends_at: f.endsAt,
        created_by_id: createdById,
        comment: f.comment,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return r.id;
  }

  async update(id: number, f: SilenceFields, now: string): Promise<void> {
    await this.db
      .updateTable('alert_silences')
      .set({
        matchers: JSON.stringify(f.matchers),
        starts_at: f.startsAt,
        ends_at: f.endsAt,
        comment: f.comment,
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }
}
