import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import type { Outbox } from '../ingest/outbox.js';
import { AccessLevel } from '../members/members.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import { MAX_NOTE_LENGTH, type Note, type Noteable, type NoteableType, type NoteOrder } from './notes.js';
import type { NotesRepository } from './notes.repository.js';

/** A transaction of the caller's: a system note commits with the change it records. */

/** A note with its author and its noteable's iid, as the API shows it. */
export interface NoteView extends Note {
  readonly author: User | null;
  readonly noteableIid: number;
}

/** GitLab's validation message for a note's text (`Note {:note=>[...]}`). */
const invalidNote = (reason: string) => badRequest(`Note {:note=>["${reason}"]}`);

/**
 * Notes of any noteable: comments people write and the system notes features write when something happens to a
 * noteable. The noteable's feature decides who may read it (and so its notes) and passes the caller's level in the
 * project; this service applies GitLab's note rules on top: anyone who may read the noteable may comment, the
 * author and Maintainers (admins are Owners) may edit or delete a comment, and nobody may edit or delete a system
 * note (403, GitLab's `admin_note` is never granted on one).
 */
export class NotesService {
  constructor(
    private readonly repo: NotesRepository,
    private readonly users: Pick<UsersService, 'findById'>,
    private readonly clock: Clock,
    /** Where a comment's note event for project hooks is written; none: no events. */
    private readonly outbox: Pick<Outbox, 'emit'> | null = null,
  ) {}

  private async view(noteable: Noteable, n: Note): Promise<NoteView> {
    return (await this.views(noteable, [n]))[0]!;
  }

  /** Notes with their authors, each author read once however many of the notes they wrote. */
  private async views(noteable: Noteable, notes: readonly Note[]): Promise<NoteView[]> {
    const ids = [...new Set(notes.map((n) => n.authorId).filter((id): id is number => id !== null))];
    const authors = new Map(
      await Promise.all(ids.map(async (id) => [id, await this.users.findById(id)] as const)),
    );
    return notes.map((n) => ({
      ...n,
      author: n.authorId === null ? null : (authors.get(n.authorId) ?? null),
      noteableIid: noteable.iid,
    }));
  }

  private async find(noteable: Noteable, id: number): Promise<Note> {
    const note = await this.repo.find(noteable, id);
    if (!note) throw notFound('Note');
    return note;
  }

  async list(noteable: Noteable, order: NoteOrder, page: PageRequest): Promise<Paged<NoteView>> {
    const { items, total } = await this.repo.list(noteable, order, page);
    return { items: await this.views(noteable, items), total };
  }

  async get(noteable: Noteable, id: number): Promise<NoteView> {
    return this.view(noteable, await this.find(noteable, id));
  }

  /** A comment by `actor`, who may read the noteable. */
  async create(actor: User, noteable: Noteable, body: string): Promise<NoteView> {
    const note = await this.repo.insert(
      null,
      {
        noteableType: noteable.type,
        noteableId: noteable.id,
        projectId: noteable.projectId,
        authorId: actor.id,
        body: checked(body),
        system: false,
      },
      this.clock.now().toISOString(),
    );
    // GitLab's note hook, for a comment (system notes send none); written after the note committed.
    await this.outbox?.emit('project.event', {
      kind: 'note',
      eventId: randomUUID(),
      projectId: noteable.projectId,
      userId: actor.id,
      note: {
        id: note.id,
        body: note.body,
        noteableType: noteable.type,
        noteableId: noteable.id,
        noteableIid: noteable.iid,
        internal: note.internal,
        createdAt: note.createdAt,
        updatedAt: note.updatedAt,
      },
    });
    return this.view(noteable, note);
  }

  /** Changes a comment's text (`body` absent: nothing changes, as in GitLab). */
  async update(
    actor: User,
    level: number,
    noteable: Noteable,
    id: number,
    body: string | undefined,
  ): Promise<NoteView> {
    const note = this.administrable(actor, level, await this.find(noteable, id));
    if (body === undefined) return this.view(noteable, note);
    const updated = await this.repo.updateBody(note.id, checked(body), this.clock.now().toISOString());
    if (!updated) throw notFound('Note');
    return this.view(noteable, updated);
  }

  async delete(actor: User, level: number, noteable: Noteable, id: number): Promise<void> {
    await this.repo.delete(this.administrable(actor, level, await this.find(noteable, id)).id);
  }

  /** GitLab's `admin_note`: a comment's author, or a Maintainer and above; never a system note. */
  private administrable(actor: User, level: number, note: Note): Note {
    if (note.system || (note.authorId !== actor.id && level < AccessLevel.Maintainer)) throw forbidden();
    return note;
  }

  /**
   * Records what `authorId` did to the noteable as a system note: in the caller's transaction when given one (the
   * note commits with the change, or neither does). No access check: the feature making the change did it.
   */
  async addSystemNote(
    trx: UnitOfWork | null,
    noteable: Noteable,
    authorId: number | null,
    body: string,
  ): Promise<void> {
    await this.repo.insert(
      trx,
      {
        noteableType: noteable.type,
        noteableId: noteable.id,
        projectId: noteable.projectId,
        authorId,
        body,
        system: true,
      },
      this.clock.now().toISOString(),
    );
  }

  /** GitLab's `user_notes_count` of some noteables of one type: their comments, system notes aside. */
  countComments(type: NoteableType, ids: readonly number[]): Promise<Map<number, number>> {
    return this.repo.countComments(type, ids);
  }

  /** Deletes a noteable's notes with it (no foreign key can: the table holds notes of several kinds). */
  async deleteAllOf(trx: UnitOfWork | null, noteable: Noteable): Promise<void> {
    await this.repo.deleteAll(trx, noteable);
  }
}

/** A comment's text as GitLab validates it: not blank, at most MAX_NOTE_LENGTH characters. */
function checked(body: string): string {
  if (!body.trim()) throw invalidNote("can't be blank");
  if (body.length > MAX_NOTE_LENGTH)
    throw invalidNote(`is too long (maximum is ${MAX_NOTE_LENGTH} characters)`);
  return body;
}
