import { Type } from 'typebox';
import { MAX_NOTE_LENGTH, type NoteOrder } from '../../notes/notes.js';
import type { NoteView } from '../../notes/notes.service.js';
import type { Paged, PageRequest } from '../../pagination.js';
import type { User } from '../../users/users.js';
import { Literals } from '../common/common.entities.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

/** The notes of one kind of noteable, found by project and iid (merge requests, issues). */
export interface NoteableNotes {
  list(
    actor: User | null,
    idOrPath: string,
    iid: number,
    order: NoteOrder,
    page: PageRequest,
  ): Promise<Paged<NoteView>>;
  get(actor: User | null, idOrPath: string, iid: number, noteId: number): Promise<NoteView>;
  /** The note made, or, for a note of quick actions only, what they did (GitLab answers 202). */
  create(actor: User | null, idOrPath: string, iid: number, body: string): Promise<NoteView | NoteCommands>;
  update(
    actor: User | null,
    idOrPath: string,
    iid: number,
    noteId: number,
    body: string | undefined,
  ): Promise<NoteView>;
  delete(actor: User | null, idOrPath: string, iid: number, noteId: number): Promise<void>;
}

/** What a note of quick actions only did: GitLab's `commands_changes` and the actions' messages (`summary`). */
export interface NoteCommands {
  readonly commandsOnly: true;
  readonly changes: Record<string, unknown>;
  readonly summary: readonly string[];
}

// GitLab's notes API serves every noteable with the same routes and calls the iid `noteable_id` (lib/api/notes.rb).
const IidParams = Type.Object({ id: Type.String(), noteable_id: Type.Integer() });
const NoteParams = Type.Object({ ...IidParams.properties, note_id: Type.Integer() });
/** The service checks the length (GitLab's 400 body); the schema only keeps a string. */
const Body = Type.String({ description: `the note's text, at most ${MAX_NOTE_LENGTH} characters` });

/**
 * GitLab's notes API for one kind of noteable (`/projects/:id/<noteables>/:noteable_id/notes`), the same in v4 and
 * v5: `noteables` is the path segment (`merge_requests`, `issues`), `what` names one in the summaries.
 */
export function noteRoutes(
  app: ApiApp,
  externalUrl: string,
  api: ApiVersion,
  o: { noteables: string; what: string; notes: NoteableNotes },
): void {
  const E = api.entities;
  const P = api.present;
  const url = externalUrl;
  const tags = ['notes'];
  const path = `/projects/:id/${o.noteables}/:noteable_id/notes`;
  const notes = o.notes;

  app.get(
    path,
    {
      schema: {
        tags,
        summary: `List ${o.what}'s notes (comments and system notes)`,
        params: IidParams,
        querystring: Type.Object({
          ...PageQuery.properties,
          order_by: Type.Optional(Literals(['created_at', 'updated_at'] as const)),
          sort: Type.Optional(Literals(['asc', 'desc'] as const)),
        }),
        response: { 200: Type.Array(E.NoteEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const { id, noteable_id: iid } = req.params;
      const order = { orderBy: req.query.order_by ?? 'created_at', sort: req.query.sort ?? 'desc' } as const;
      const result = await notes.list(req.actor.user, id, iid, order, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((n) => P.note(n, viewOf(req, url)));
    },
  );

  app.get(
    `${path}/:note_id`,
    { schema: { tags, summary: 'Get one note', params: NoteParams, response: { 200: E.NoteEntity } } },
    async (req) => {
      const { id, noteable_id: iid, note_id } = req.params;
      return P.note(await notes.get(req.actor.user, id, iid, note_id), viewOf(req, url));
    },
  );

  app.post(
    path,
    {
      schema: {
        tags,
        summary: `Comment on ${o.what} (whoever may read it)`,
        params: IidParams,
        body: Type.Object({ body: Body }),
        response: {
          201: E.NoteEntity,
          // GitLab's `NoteCommands`: a note of quick actions only is not stored.
          202: Type.Object({
            commands_changes: Type.Object({}, { additionalProperties: true }),
            summary: Type.Array(Type.String()),
          }),
        },
      },
    },
    async (req, reply) => {
      const { id, noteable_id: iid } = req.params;
      const note = await notes.create(req.actor.user, id, iid, req.body.body);
      if ('commandsOnly' in note)
        return reply.status(202).send({ commands_changes: note.changes, summary: [...note.summary] });
      return reply.status(201).send(P.note(note, viewOf(req, url)));
    },
  );

  app.put(
    `${path}/:note_id`,
    {
      schema: {
        tags,
        summary: 'Edit a comment (its author, or Maintainer and above; system notes: 403)',
        params: NoteParams,
        body: Type.Optional(Type.Object({ body: Type.Optional(Type.String({ minLength: 1 })) })),
        response: { 200: E.NoteEntity },
      },
    },
    async (req) => {
      const { id, noteable_id: iid, note_id } = req.params;
      const note = await notes.update(req.actor.user, id, iid, note_id, req.body?.body);
      return P.note(note, viewOf(req, url));
    },
  );

  app.delete(
    `${path}/:note_id`,
    {
      schema: {
        tags,
        summary: 'Delete a comment (its author, or Maintainer and above; system notes: 403)',
        params: NoteParams,
      },
    },
    async (req, reply) => {
      const { id, noteable_id: iid, note_id } = req.params;
      await notes.delete(req.actor.user, id, iid, note_id);
      return reply.status(204).send();
    },
  );
}
