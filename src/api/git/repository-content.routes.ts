import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { badRequest, paramError } from '../../errors.js';
import type { CommitInput, FileView } from '../../git/repository.service.js';
import type { FileAction } from '../../git/repository-writer.js';
import { Nullable } from '../common/common.entities.js';
import { linkTo, PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';
import { repositoryFileMeta } from './repository.presenters.js';

/**
 * Largest request body a file or commit write takes (content in base64 is a third larger than the file). Beyond
 * it the answer is 413, before anything is written.
 */
export const MAX_CONTENT_BODY_BYTES = 16 * 1024 * 1024;

const Params = Type.Object({ id: Type.String() });
const FileParams = Type.Object({ id: Type.String(), file_path: Type.String({ minLength: 1 }) });
const ShaParams = Type.Object({ id: Type.String(), sha: Type.String({ minLength: 1 }) });
const BranchParams = Type.Object({ id: Type.String(), branch: Type.String({ minLength: 1 }) });
const tags = ['repository'];

/** GitLab's `set_http_headers`: each field of the file as `X-Gitlab-<Field-Name>`. */
function fileHeaders(reply: FastifyReply, f: FileView): void {
  for (const [key, value] of Object.entries(repositoryFileMeta(f))) {
    const name = key
      .split('_')
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('-');
    reply.header(`X-Gitlab-${name}`, String(value));
  }
}

/** Sends bytes as GitLab's raw endpoints do: text as text/plain, anything else as a download. */
function sendRaw(reply: FastifyReply, content: Buffer, name: string) {
  const text = !content.includes(0) && Buffer.from(content.toString('utf8'), 'utf8').equals(content);
  reply.header('Cache-Control', 'no-cache');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header(
    'Content-Disposition',
    `inline; filename="${name.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
  );
  reply.type(text ? 'text/plain; charset=utf-8' : 'application/octet-stream');
  return reply.send(content);
}

/**
 * A page of a list computed whole: `pagination=keyset` pages after `page_token` (the id, or name, of the last
 * entry seen) with a `rel="next"` link; otherwise offset pages with GitLab's headers.
 */
function pageOf<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  url: string,
  all: readonly T[],
  q: { page?: number; per_page?: number; pagination?: string; page_token?: string },
  key: (x: T) => string,
): readonly T[] {
  const page = pageRequest(q);
  if (q.pagination === 'keyset') {
    const from = q.page_token === undefined ? 0 : all.findIndex((x) => key(x) === q.page_token) + 1;
    const slice = from === 0 && q.page_token !== undefined ? [] : all.slice(from, from + page.perPage);
    reply.header('X-Per-Page', String(page.perPage));
    const last = slice.at(-1);
    if (last !== undefined && from + page.perPage < all.length) {
      const next = linkTo(url, req, {
        pagination: 'keyset',
        page_token: key(last),
        per_page: String(page.perPage),
      });
      reply.header('Link', `<${next}>; rel="next"`);
    }
    return slice;
  }
  setPageHeaders(reply, req, url, page, all.length);
  const from = (page.page - 1) * page.perPage;
  return all.slice(from, from + page.perPage);
}

function content(text: string, encoding: 'text' | 'base64' | null | undefined): Buffer {
  return encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
}

const isStr = (v: unknown): v is string => typeof v === 'string';

// Optional fields may be null: python-gitlab sends `start_branch: null` when saving a file, and Grape takes it.
const FileWriteBody = Type.Object({
  branch: Type.String({ minLength: 1 }),
  commit_message: Type.String({ minLength: 1 }),
  start_branch: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  author_email: Type.Optional(Nullable(Type.String())),
  author_name: Type.Optional(Nullable(Type.String())),
  last_commit_id: Type.Optional(Nullable(Type.String())),
});
const FileContentBody = Type.Object({
  ...FileWriteBody.properties,
  content: Type.String(),
  encoding: Type.Optional(Nullable(Type.Union([Type.Literal('text'), Type.Literal('base64')]))),
  execute_filemode: Type.Optional(Nullable(Type.Boolean())),
});

/** The parts of a files API write that every commit has. */
function commitBase(b: {
  branch: string;
  commit_message: string;
  start_branch?: string | null;
  author_email?: string | null;
  author_name?: string | null;
}): Omit<CommitInput, 'actions'> {
  return {
    branch: b.branch,
    message: b.commit_message,
    ...(isStr(b.start_branch) && { startBranch: b.start_branch }),
    ...(b.author_name && { authorName: b.author_name }),
    ...(b.author_email && { authorEmail: b.author_email }),
  };
}

const ACTIONS = ['create', 'update', 'move', 'delete', 'chmod'] as const;
const BOOL = new Map<unknown, boolean>([
  [true, true],
  [false, false],
  ['true', true],
  ['false', false],
]);

/**
 * The body of `POST /projects/:id/repository/commits`, checked as GitLab's `validate_commits_attrs!` does, with
 * its messages (400 `{"message": "400 Bad request - <reason>"}`).
 */
export function commitActionsInput(body: Record<string, unknown>): CommitInput {
  for (const key of ['branch', 'commit_message', 'start_branch', 'author_email', 'author_name'] as const) {
    if (body[key] !== undefined && body[key] !== null && !isStr(body[key]))
      throw badRequest(`${key} is invalid`);
  }
  if (!isStr(body.branch) || body.branch.trim() === '') throw badRequest('branch is required');
  if (!isStr(body.commit_message) || body.commit_message.trim() === '')
    throw badRequest('commit_message is required');
  const raw = body.actions;
  const allowEmpty = BOOL.get(body.allow_empty) === true;
  if (raw === undefined || (Array.isArray(raw) && raw.length === 0)) {
    if (!allowEmpty) throw badRequest('Provide at least one action, or set allow_empty to true');
  } else if (!Array.isArray(raw)) throw badRequest('actions must be an array');
  const lastCommitIds = new Map<string, string>();
  const actions = ((raw as unknown[] | undefined) ?? []).map((a, i): FileAction => {
    const at = `actions[${i}]`;
    if (typeof a !== 'object' || a === null || Array.isArray(a)) throw badRequest(`${at} is invalid`);
    const x = a as Record<string, unknown>;
    for (const key of ['file_path', 'previous_path', 'last_commit_id', 'content'] as const) {
      if (x[key] !== undefined && x[key] !== null && !isStr(x[key]))
        throw badRequest(`${at}[${key}] is invalid`);
    }
    if (x.action === undefined || x.action === '') throw badRequest(`${at}[action] is required`);
    if (!isStr(x.file_path) || x.file_path === '') throw badRequest(`${at}[file_path] is required`);
    if (!ACTIONS.includes(x.action as (typeof ACTIONS)[number]))
      throw badRequest(`${at}[action] must be one of: create, update, move, delete, chmod`);
    const encoding = x.encoding ?? 'text';
    if (encoding !== 'text' && encoding !== 'base64')
      throw badRequest(`${at}[encoding] must be text or base64`);
    const bytes = isStr(x.content) ? content(x.content, encoding) : undefined;
    const executable = x.execute_filemode === undefined ? undefined : BOOL.get(x.execute_filemode);
    if (x.execute_filemode !== undefined && executable === undefined && x.action !== 'chmod')
      throw badRequest(`${at}[execute_filemode] is invalid`);
    if (isStr(x.last_commit_id) && x.last_commit_id !== '') lastCommitIds.set(x.file_path, x.last_commit_id);
    const path = x.file_path;
    switch (x.action) {
      case 'create':
        return {
          action: 'create',
          path,
          content: bytes ?? Buffer.alloc(0),
          ...(executable !== undefined && { executable }),
        };
      case 'update':
        if (bytes === undefined) throw badRequest(`${at}[content] is required for update action`);
        return { action: 'update', path, content: bytes, ...(executable !== undefined && { executable }) };
      case 'delete':
        return { action: 'delete', path };
      case 'move':
        if (!isStr(x.previous_path) || x.previous_path === '')
          throw badRequest(`${at}[previous_path] is required for move action`);
        return {
          action: 'move',
          path,
          previousPath: x.previous_path,
          ...(bytes !== undefined && { content: bytes }),
        };
      default:
        if (x.execute_filemode === undefined)
          throw badRequest(`${at}[execute_filemode] is required for chmod action`);
        if (executable === undefined) throw badRequest(`${at}[execute_filemode] must be a boolean`);
        return { action: 'chmod', path, executable };
    }
  });
  return {
    ...commitBase(body as { branch: string; commit_message: string }),
    actions,
    lastCommitIds,
    changedMessage: (path) =>
      `You are attempting to update a file \`${path}\` that has changed since you started editing it.`,
  };
}

/**
 * The repository's content through the API, in GitLab's shapes: the tree, files (read, raw, HEAD, create, update,
 * delete), blobs, branches, commits (list, one, diff, create with actions) and compare.
 */
export function repositoryContentRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'config' | 'repository'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const repo = ctx.repository;
  const base = '/projects/:id/repository';

  app.get(
    `${base}/tree`,
    {
      schema: {
        tags,
        summary: 'List the files and directories of the repository',
        params: Params,
        querystring: Type.Object({
          ...PageQuery.properties,
          ref: Type.Optional(Type.String()),
          path: Type.Optional(Type.String()),
          recursive: Type.Optional(Type.Boolean()),
          pagination: Type.Optional(Type.Union(['legacy', 'keyset', 'none'].map((s) => Type.Literal(s)))),
          page_token: Type.Optional(Type.String()),
        }),
        response: { 200: Type.Array(E.TreeObjectEntity) },
      },
    },
    async (req, reply) => {
      const q = req.query;
      if (q.pagination === 'none' && !q.recursive)
        throw paramError('pagination cannot be "none" unless "recursive" is true');
      const { entries } = await repo.tree(req.actor.user, req.params.id, {
        ...(q.ref !== undefined && { ref: q.ref }),
        ...(q.path !== undefined && { path: q.path }),
        recursive: q.recursive ?? false,
      });
      const page = q.pagination === 'none' ? entries : pageOf(req, reply, url, entries, q, (e) => e.id);
      return page.map(P.treeObject);
    },
  );

  // Files. The path is one URL segment (`lib%2Fclass.rb`), as GitLab requires.
  // GitLab lets `read_repository` tokens read files (not the rest of the repository API).
  app.get(
    `${base}/files/:file_path`,
    {
      config: { readScope: 'read_repository' },
      schema: {
        tags,
        summary: 'Get a file of the repository (content in base64); HEAD answers only its X-Gitlab headers',
        params: FileParams,
        querystring: Type.Object({ ref: Type.String({ minLength: 1 }) }),
        response: { 200: E.RepositoryFileEntity },
      },
    },
    async (req, reply) => {
      const f = await repo.file(req.actor.user, req.params.id, req.params.file_path, req.query.ref);
      fileHeaders(reply, f);
      return P.repositoryFile(f);
    },
  );
  app.get(
    `${base}/files/:file_path/raw`,
    {
      config: { readScope: 'read_repository' },
      schema: {
        tags,
        summary: 'Get the raw content of a file (ref defaults to the default branch)',
        params: FileParams,
        querystring: Type.Object({
          ref: Type.Optional(Type.String({ minLength: 1 })),
          lfs: Type.Optional(Type.Boolean()),
        }),
      },
    },
    async (req, reply) => {
      const f = await repo.file(req.actor.user, req.params.id, req.params.file_path, req.query.ref);
      fileHeaders(reply, f);
      return sendRaw(reply, f.content, f.blob.name);
    },
  );
  const fileWrite = (method: 'post' | 'put') =>
    app[method](
      `${base}/files/:file_path`,
      {
        bodyLimit: MAX_CONTENT_BODY_BYTES,
        schema: {
          tags,
          summary: method === 'post' ? 'Create a file in the repository' : 'Update a file of the repository',
          params: FileParams,
          body: FileContentBody,
          response: { [method === 'post' ? 201 : 200]: E.RepositoryFileCommitEntity },
        },
      },
      async (req, reply) => {
        const b = req.body;
        const path = req.params.file_path;
        const bytes = content(b.content, b.encoding);
        const executable = b.execute_filemode ?? undefined;
        const action: FileAction =
          method === 'post'
            ? { action: 'create', path, content: bytes, ...(executable !== undefined && { executable }) }
            : { action: 'update', path, content: bytes, ...(executable !== undefined && { executable }) };
        const { commit } = await repo.commitFiles(req.actor.user, req.params.id, {
          ...commitBase(b),
          actions: [action],
          ...(b.last_commit_id && method === 'put' && { lastCommitIds: new Map([[path, b.last_commit_id]]) }),
        });
        reply.status(method === 'post' ? 201 : 200);
        return { file_path: path, branch: b.branch, commit_id: commit.id };
      },
    );
  fileWrite('post');
  fileWrite('put');
  app.delete(
    `${base}/files/:file_path`,
    {
      schema: {
        tags,
        summary: 'Delete a file of the repository',
        params: FileParams,
        body: FileWriteBody,
      },
    },
    async (req, reply) => {
      const b = req.body;
      const path = req.params.file_path;
      await repo.commitFiles(req.actor.user, req.params.id, {
        ...commitBase(b),
        actions: [{ action: 'delete', path }],
        ...(b.last_commit_id && { lastCommitIds: new Map([[path, b.last_commit_id]]) }),
      });
      return reply.status(204).send();
    },
  );

  // Blobs
  app.get(
    `${base}/blobs/:sha`,
    {
      schema: {
        tags,
        summary: 'Get a blob by its id (content in base64)',
        params: ShaParams,
        response: { 200: E.RepositoryBlobEntity },
      },
    },
    async (req) => P.repositoryBlob(await repo.blob(req.actor.user, req.params.id, req.params.sha)),
  );
  app.get(
    `${base}/blobs/:sha/raw`,
    { schema: { tags, summary: 'Get the raw content of a blob', params: ShaParams } },
    async (req, reply) => {
      const b = await repo.blob(req.actor.user, req.params.id, req.params.sha);
      return sendRaw(reply, b.content, b.id);
    },
  );

  // Branches
  app.get(
    `${base}/branches`,
    {
      schema: {
        tags,
        summary: 'List the branches, by name',
        params: Params,
        querystring: Type.Object({
          ...PageQuery.properties,
          search: Type.Optional(Type.String()),
          pagination: Type.Optional(Type.Union(['legacy', 'keyset'].map((s) => Type.Literal(s)))),
          page_token: Type.Optional(Type.String()),
        }),
        response: { 200: Type.Array(E.BranchEntity) },
      },
    },
    async (req, reply) => {
      const { project, branches } = await repo.branches(req.actor.user, req.params.id, req.query.search);
      const page = pageOf(req, reply, url, branches, req.query, (b) => b.name);
      return page.map((b) => P.branch(b, project, viewOf(req, url)));
    },
  );
  app.get(
    `${base}/branches/:branch`,
    {
      schema: {
        tags,
        summary: 'Get a branch (its name URL-encoded)',
        params: BranchParams,
        response: { 200: E.BranchEntity },
      },
    },
    async (req) => {
      const { project, branch } = await repo.branch(req.actor.user, req.params.id, req.params.branch);
      return P.branch(branch, project, viewOf(req, url));
    },
  );
  app.post(
    `${base}/branches`,
    {
      schema: {
        tags,
        summary: 'Create a branch from a ref',
        params: Params,
        body: Type.Object({ branch: Type.String({ minLength: 1 }), ref: Type.String({ minLength: 1 }) }),
        response: { 201: E.BranchEntity },
      },
    },
    async (req, reply) => {
      const { project, branch } = await repo.createBranch(
        req.actor.user,
        req.params.id,
        req.body.branch,
        req.body.ref,
      );
      reply.status(201);
      return P.branch(branch, project, viewOf(req, url));
    },
  );
  app.delete(
    `${base}/branches/:branch`,
    { schema: { tags, summary: 'Delete a branch', params: BranchParams } },
    async (req, reply) => {
      await repo.deleteBranch(req.actor.user, req.params.id, req.params.branch);
      return reply.status(204).send();
    },
  );

  // Commits
  app.get(
    `${base}/commits`,
    {
      schema: {
        tags,
        summary: 'List commits, newest first (the total is not counted)',
        params: Params,
        querystring: Type.Object({
          ...PageQuery.properties,
          ref_name: Type.Optional(Type.String()),
          since: Type.Optional(Type.String({ format: 'date-time' })),
          until: Type.Optional(Type.String({ format: 'date-time' })),
          path: Type.Optional(Type.String()),
          author: Type.Optional(Type.String()),
          first_parent: Type.Optional(Type.Boolean()),
          all: Type.Optional(Type.Boolean()),
          order: Type.Optional(Type.Union([Type.Literal('default'), Type.Literal('topo')])),
        }),
        response: { 200: Type.Array(E.CommitEntity) },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const page = pageRequest(q);
      const { project, commits, more } = await repo.commits(
        req.actor.user,
        req.params.id,
        {
          ...(q.ref_name !== undefined && { refName: q.ref_name }),
          ...(q.since !== undefined && { since: q.since }),
          ...(q.until !== undefined && { until: q.until }),
          ...(q.path !== undefined && { path: q.path }),
          ...(q.author !== undefined && { author: q.author }),
          ...(q.first_parent && { firstParent: true }),
          ...(q.order === 'topo' && { topo: true }),
          ...(q.all && { all: true }),
        },
        page,
      );
      setPageHeaders(reply, req, url, page, more ? null : (page.page - 1) * page.perPage + commits.length);
      return commits.map((c) => P.commit(c, project, viewOf(req, url)));
    },
  );
  app.post(
    `${base}/commits`,
    {
      bodyLimit: MAX_CONTENT_BODY_BYTES,
      schema: {
        tags,
        summary: 'Create a commit from actions (create, update, delete, move, chmod)',
        params: Params,
        body: Type.Object({}, { additionalProperties: true }),
        response: { 201: E.CommitDetailEntity },
      },
    },
    async (req, reply) => {
      const body = req.body as Record<string, unknown>;
      if (isStr(body.branch) && body.branch !== '')
        await repo.mayPush(req.actor.user, req.params.id, body.branch);
      const input = commitActionsInput(body);
      const stats = BOOL.get(body.stats) !== false;
      const { project, commit, stats: s } = await repo.commitFiles(req.actor.user, req.params.id, input);
      reply.status(201);
      return P.commitDetail(commit, stats ? s : null, project, viewOf(req, url));
    },
  );
  app.get(
    `${base}/commits/:sha`,
    {
      schema: {
        tags,
        summary: 'Get a commit (a sha, branch or tag) with its stats',
        params: ShaParams,
        querystring: Type.Object({ stats: Type.Optional(Type.Boolean()) }),
        response: { 200: E.CommitDetailEntity },
      },
    },
    async (req) => {
      const { project, commit, stats } = await repo.commit(req.actor.user, req.params.id, req.params.sha);
      return P.commitDetail(commit, req.query.stats === false ? null : stats, project, viewOf(req, url));
    },
  );
  app.get(
    `${base}/commits/:sha/diff`,
    {
      schema: {
        tags,
        summary: 'The diff of a commit against its first parent (paginated)',
        params: ShaParams,
        querystring: PageQuery,
        response: { 200: Type.Array(E.DiffEntity) },
      },
    },
    async (req, reply) => {
      const all = await repo.commitDiff(req.actor.user, req.params.id, req.params.sha);
      return pageOf(req, reply, url, all, req.query, (d) => d.new_path).map(P.diff);
    },
  );

  app.get(
    `${base}/compare`,
    {
      schema: {
        tags,
        summary: 'Compare two branches, tags or commits',
        params: Params,
        querystring: Type.Object({
          from: Type.String({ minLength: 1 }),
          to: Type.String({ minLength: 1 }),
          straight: Type.Optional(Type.Boolean()),
        }),
        response: { 200: E.CompareEntity },
      },
    },
    async (req) => {
      const q = req.query;
      const { project, comparison } = await repo.compare(req.actor.user, req.params.id, {
        from: q.from,
        to: q.to,
        straight: q.straight ?? false,
      });
      return P.compare(comparison, project, viewOf(req, url));
    },
  );
}
