import { unauthorized } from '../errors.js';
import type { NoteOrder } from '../notes/notes.js';
import type { NotesService, NoteView } from '../notes/notes.service.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { User } from '../users/users.js';
import { type MergeRequestsService, noteableOf } from './merge-requests.service.js';

/**
 * The notes of merge requests (`/projects/:id/merge_requests/:merge_request_iid/notes`): whoever may read the merge
 * request may read and write its notes; the notes service decides who may change one. Signed-in callers only, as
 * GitLab's notes API (401 before anything else).
 */
export class MergeRequestNotesService {
  constructor(
    private readonly mergeRequests: Pick<MergeRequestsService, 'readable'>,
    private readonly notes: NotesService,
  ) {}

  private async noteable(actor: User | null, idOrPath: string, iid: number) {
    if (!actor) throw unauthorized();
    const { mr, level } = await this.mergeRequests.readable(actor, idOrPath, iid);
    return { actor, noteable: noteableOf(mr), level };
  }

  async list(
    actor: User | null,
    idOrPath: string,
    iid: number,
    order: NoteOrder,
    page: PageRequest,
  ): Promise<Paged<NoteView>> {
    const { noteable } = await this.noteable(actor, idOrPath, iid);
    return this.notes.list(noteable, order, page);
  }

  async get(actor: User | null, idOrPath: string, iid: number, noteId: number): Promise<NoteView> {
    const { noteable } = await this.noteable(actor, idOrPath, iid);
    return this.notes.get(noteable, noteId);
  }

  async create(actor: User | null, idOrPath: string, iid: number, body: string): Promise<NoteView> {
    const c = await this.noteable(actor, idOrPath, iid);
    return this.notes.create(c.actor, c.noteable, body);
  }

  async update(
    actor: User | null,
    idOrPath: string,
    iid: number,
    noteId: number,
    body: string | undefined,
  ): Promise<NoteView> {
    const c = await this.noteable(actor, idOrPath, iid);
    return this.notes.update(c.actor, c.level, c.noteable, noteId, body);
  }

  async delete(actor: User | null, idOrPath: string, iid: number, noteId: number): Promise<void> {
    const c = await this.noteable(actor, idOrPath, iid);
    await this.notes.delete(c.actor, c.level, c.noteable, noteId);
  }
}
