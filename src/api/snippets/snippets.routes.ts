import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { paramError } from '../../errors.js';
import type { Snippet } from '../../snippets/snippets.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { VisibilityInput } from '../schemas.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

const Editable = {
  title: Type.String(),
  file_name: Type.String(),
  description: Type.String(),
  content: Type.String(),
  visibility: VisibilityInput,
};
/** GitLab's multi-file form (`files[]`); svc snippets hold one file, so exactly one entry. */
const Files = Type.Optional(
  Type.Array(Type.Object({ file_path: Type.String(), content: Type.String() }), { minItems: 1 }),
);
const CreateBody = Type.Object({
  ...Type.Partial(Type.Object(Editable)).properties,
  title: Type.String(),
  files: Files,
});
const UpdateBody = Type.Object({ ...Type.Partial(Type.Object(Editable)).properties, files: Files });

function sendRaw(reply: FastifyReply, s: Snippet) {
  return reply
    .header('content-type', 'text/plain; charset=utf-8')
    .header('content-disposition', `inline; filename="${s.fileName.replace(/["\\\r\n]/g, '_')}"`)
    .header('x-content-type-options', 'nosniff')
    .send(s.content);
}

/** Personal snippets (`/snippets`) and project snippets (`/projects/:id/snippets`). */
export function snippetRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'config' | 'snippets'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['snippets'];
  const Id = Type.Object({ id: Type.Integer() });
  const ProjectParams = Type.Object({ id: Type.String(), snippet_id: Type.Integer() });
  const input = (
    b: Partial<{
      title: string;
      file_name: string;
      description: string;
      content: string;
      files: { file_path: string; content: string }[];
      visibility: 'private' | 'internal' | 'public';
    }>,
    creating = false,
  ) => {
    if (b.files && (b.files.length > 1 || b.content !== undefined)) {
      throw paramError(
        b.files.length > 1
          ? 'files holds more than the one file of an svc snippet'
          : 'files, content are mutually exclusive',
      );
    }
    const file = b.files?.[0];
    if (creating && !file && b.content === undefined) throw paramError('content is missing');
    return {
      title: b.title,
      fileName: file?.file_path ?? b.file_name,
      description: b.description,
      content: file?.content ?? b.content,
      visibility: b.visibility,
    };
  };

  app.get(
    '/snippets',
    {
      schema: {
        tags,
        summary: "The caller's snippets",
        querystring: PageQuery,
        response: { 200: Type.Array(E.SnippetEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.snippets.listOwn(req.actor.user, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((s) => P.snippet(s, viewOf(req, url)));
    },
  );

  app.get(
    '/snippets/all',
    {
      schema: {
        tags,
        summary: 'Every snippet the caller may read (all for admins)',
        querystring: PageQuery,
        response: { 200: Type.Array(E.SnippetEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.snippets.listAll(req.actor.user, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((s) => P.snippet(s, viewOf(req, url)));
    },
  );

  app.get(
    '/snippets/public',
    {
      schema: {
        tags,
        summary: 'Public snippets',
        querystring: PageQuery,
        response: { 200: Type.Array(E.SnippetEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.snippets.listPublic(page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((s) => P.snippet(s, viewOf(req, url)));
    },
  );

  app.get(
    '/snippets/:id',
    { schema: { tags, summary: 'Get a snippet', params: Id, response: { 200: E.SnippetEntity } } },
    async (req) =>
      P.snippet((await ctx.snippets.find(req.actor.user, req.params.id)).snippet, viewOf(req, url)),
  );

  app.get(
    '/snippets/:id/raw',
    { schema: { tags, summary: 'Raw snippet content', params: Id } },
    async (req, reply) => sendRaw(reply, (await ctx.snippets.find(req.actor.user, req.params.id)).snippet),
  );

  app.post(
    '/snippets',
    {
      schema: {
        tags,
        summary: 'Create a personal snippet',
        body: CreateBody,
        response: { 201: E.SnippetEntity },
      },
    },
    async (req, reply) => {
      const s = await ctx.snippets.create(req.actor.user, input(req.body, true));
      return reply.status(201).send(P.snippet(s, viewOf(req, url)));
    },
  );

  app.put(
    '/snippets/:id',
    {
      schema: {
        tags,
        summary: 'Update a snippet',
        params: Id,
        body: UpdateBody,
        response: { 200: E.SnippetEntity },
      },
    },
    async (req) =>
      P.snippet(
        await ctx.snippets.update(req.actor.user, req.params.id, input(req.body ?? {})),
        viewOf(req, url),
      ),
  );

  app.delete(
    '/snippets/:id',
    { schema: { tags, summary: 'Delete a snippet', params: Id } },
    async (req, reply) => {
      await ctx.snippets.delete(req.actor.user, req.params.id);
      return reply.status(204).send();
    },
  );

  // Project snippets

  app.get(
    '/projects/:id/snippets',
    {
      schema: {
        tags,
        summary: "A project's snippets",
        params: Type.Object({ id: Type.String() }),
        querystring: PageQuery,
        response: { 200: Type.Array(E.SnippetEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.snippets.listProject(req.actor.user, req.params.id, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((s) => P.snippet(s, viewOf(req, url)));
    },
  );

  app.get(
    '/projects/:id/snippets/:snippet_id',
    {
      schema: {
        tags,
        summary: 'Get a project snippet',
        params: ProjectParams,
        response: { 200: E.SnippetEntity },
      },
    },
    async (req) =>
      P.snippet(
        (await ctx.snippets.find(req.actor.user, req.params.snippet_id, req.params.id)).snippet,
        viewOf(req, url),
      ),
  );

  app.get(
    '/projects/:id/snippets/:snippet_id/raw',
    { schema: { tags, summary: 'Raw project snippet content', params: ProjectParams } },
    async (req, reply) =>
      sendRaw(reply, (await ctx.snippets.find(req.actor.user, req.params.snippet_id, req.params.id)).snippet),
  );

  app.post(
    '/projects/:id/snippets',
    {
      schema: {
        tags,
        summary: 'Create a project snippet (Reporter)',
        params: Type.Object({ id: Type.String() }),
        body: CreateBody,
        response: { 201: E.SnippetEntity },
      },
    },
    async (req, reply) => {
      const s = await ctx.snippets.create(req.actor.user, input(req.body, true), req.params.id);
      return reply.status(201).send(P.snippet(s, viewOf(req, url)));
    },
  );

  app.put(
    '/projects/:id/snippets/:snippet_id',
    {
      schema: {
        tags,
        summary: 'Update a project snippet',
        params: ProjectParams,
        body: UpdateBody,
        response: { 200: E.SnippetEntity },
      },
    },
    async (req) =>
      P.snippet(
        await ctx.snippets.update(
          req.actor.user,
          req.params.snippet_id,
          input(req.body ?? {}),
          req.params.id,
        ),
        viewOf(req, url),
      ),
  );

  app.delete(
    '/projects/:id/snippets/:snippet_id',
    { schema: { tags, summary: 'Delete a project snippet', params: ProjectParams } },
    async (req, reply) => {
      await ctx.snippets.delete(req.actor.user, req.params.snippet_id, req.params.id);
      return reply.status(204).send();
    },
  );
}
