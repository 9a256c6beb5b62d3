import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { MAX_NOTE_LENGTH } from '../../notes/notes.js';
import { Literals } from '../common/common.entities.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

const IidParams = Type.Object({ id: Type.String(), merge_request_iid: Type.Integer() });
const NoteParams = Type.Object({ ...IidParams.properties, note_id: Type.Integer() });
/** The service checks the length (GitLab's 400 body); the schema only keeps a string. */
const Body = Type.String({ description: `the note's text, at most ${MAX_NOTE_LENGTH} characters` });

/** A merge request's notes: GitLab's notes API for `merge_requests`, the same in v4 and v5. */
export function mergeRequestNoteRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'config' | 'mergeRequestNotes'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['notes'];
  const path = '/projects/:id/merge_requests/:merge_request_iid/notes';
  const notes = ctx.mergeRequestNotes;

  app.get(
    path,
    {
      schema: {
        tags,
        summary: "List a merge request's notes (comments and system notes)",
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
      const { id, merge_request_iid: iid } = req.params;
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
      const { id, merge_request_iid: iid, note_id } = req.params;
      return P.note(await notes.get(req.actor.user, id, iid, note_id), viewOf(req, url));
    },
  );

  app.post(
    path,
    {
      schema: {
        tags,
        summary: 'Comment on a merge request (whoever may read it)',
        params: IidParams,
        body: Type.Object({ body: Body }),
        response: { 201: E.NoteEntity },
      },
    },
    async (req, reply) => {
      const { id, merge_request_iid: iid } = req.params;
      const note = await notes.create(req.actor.user, id, iid, req.body.body);
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
      const { id, merge_request_iid: iid, note_id } = req.params;
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
      const { id, merge_request_iid: iid, note_id } = req.params;
      await notes.delete(req.actor.user, id, iid, note_id);
      return reply.status(204).send();
    },
  );
}
