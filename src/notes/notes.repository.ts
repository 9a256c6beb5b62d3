import type { Kysely, Selectable } from 'kysely';
import { readBool, readCount, readTimestamp, writeBool } from '../db/dialect.js';
import { fetchPage } from '../db/pagination.js';
import type { Database, NotesTable, Queryable } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Note, NoteableType, NoteOrder } from './notes.js';

function toNote(r: Selectable<NotesTable>): Note {
  return {
    id: r.id,
    noteableType: r.noteable_type as NoteableType,
    noteableId: r.noteable_id,
    projectId: r.project_id,
    authorId: r.author_id,
    body: r.body,
    system: readBool(r.system),
    internal: readBool(r.internal),
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
  };
}

/** The notes of every noteable (GitLab's one `notes` table). */
export class NotesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** One noteable's notes in `order`; ties (same timestamp) by id, in the same direction. */
  async list(
    noteable: { type: NoteableType; id: number },
    order: NoteOrder,
    page: PageRequest,
  ): Promise<Paged<Note>> {
    const base = this.db
      .selectFrom('notes')
      .where('noteable_type', '=', noteable.type)
      .where('noteable_id', '=', noteable.id);
    const { rows, total } = await fetchPage(
      base,
      (q) => q.selectAll().orderBy(order.orderBy, order.sort).orderBy('id', order.sort),
      page,
      this.db,
    );
    return { items: rows.map(toNote), total };
  }

  async find(noteable: { type: NoteableType; id: number }, id: number): Promise<Note | null> {
    const r = await this.db
      .selectFrom('notes')
      .selectAll()
      .where('noteable_type', '=', noteable.type)
      .where('noteable_id', '=', noteable.id)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toNote(r) : null;
  }

  /** Adds a note, in the caller's transaction when given one. */
  async insert(
    trx: Queryable | null,
    n: Pick<Note, 'noteableType' | 'noteableId' | 'projectId' | 'authorId' | 'body' | 'system'>,
    now: string,
  ): Promise<Note> {
    const r = await (trx ?? this.db)
      .insertInto('notes')
      .values({
        noteable_type: n.noteableType,
        noteable_id: n.noteableId,
        project_id: n.projectId,
        author_id: n.authorId,
        body: n.body,
        system: writeBool(n.system),
        internal: writeBool(false),
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toNote(r);
  }

  /** Changes a comment's text; system notes are never changed. Null when there is no such comment. */
  async updateBody(id: number, body: string, now: string): Promise<Note | null> {
    const r = await this.db
      .updateTable('notes')
      .set({ body, updated_at: now })
      .where('id', '=', id)
      .where('system', '=', writeBool(false))
      .returningAll()
      .executeTakeFirst();
    return r ? toNote(r) : null;
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('notes').where('id', '=', id).where('system', '=', writeBool(false)).execute();
  }

  /** How many comments (not system notes) each of some noteables of one type has; absent ones have none. */
  async countComments(type: NoteableType, ids: readonly number[]): Promise<Map<number, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('notes')
      .select((eb) => ['noteable_id', eb.fn.countAll().as('n')])
      .where('noteable_type', '=', type)
      .where('noteable_id', 'in', ids)
      .where('system', '=', writeBool(false))
      .groupBy('noteable_id')
      .execute();
    return new Map(rows.map((r) => [r.noteable_id, readCount(r.n as string | number)]));
  }

  /** Deletes every note of a noteable (which is being deleted). */
  async deleteAll(trx: Queryable | null, noteable: { type: NoteableType; id: number }): Promise<void> {
    await (trx ?? this.db)
      .deleteFrom('notes')
      .where('noteable_type', '=', noteable.type)
      .where('noteable_id', '=', noteable.id)
      .execute();
  }
}
