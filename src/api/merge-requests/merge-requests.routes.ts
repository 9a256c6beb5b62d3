import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

const Params = Type.Object({ id: Type.String() });
const IidParams = Type.Object({ id: Type.String(), merge_request_iid: Type.Integer() });

/** Merge requests on real repositories, with v4's and v5's shapes; the v4-only `/changes` endpoint. */
export function mergeRequestRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'config' | 'mergeRequests'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['merge requests'];
  /** v4 responses carry the deprecated `merged_by` and `merge_status` fields: signal them. */
  const signalFields = (reply: FastifyReply) => {
    if (!api.removes('mr_merged_by')) reply.deprecated('mr_merged_by');
    if (!api.removes('mr_merge_status')) reply.deprecated('mr_merge_status');
    return reply;
  };
  const path = '/projects/:id/merge_requests';

  app.post(
    path,
    {
      schema: {
        tags,
        summary: 'Create a merge request',
        params: Params,
        body: Type.Object({
          source_branch: Type.String({ minLength: 1 }),
          target_branch: Type.String({ minLength: 1 }),
          title: Type.String(),
          description: Type.Optional(Type.String()),
          remove_source_branch: Type.Optional(Type.Boolean()),
        }),
        response: { 201: E.MergeRequestEntity },
      },
    },
    async (req, reply) => {
      const mr = await ctx.mergeRequests.create(req.actor.user, req.params.id, req.body);
      signalFields(reply).status(201);
      return P.mergeRequest(mr, viewOf(req, url));
    },
  );
  app.get(
    path,
    {
      schema: {
        tags,
        summary: 'List merge requests of a project',
        params: Params,
        querystring: Type.Object({
          ...PageQuery.properties,
          state: Type.Optional(Type.Union(['opened', 'closed', 'merged', 'all'].map((s) => Type.Literal(s)))),
          source_branch: Type.Optional(Type.String()),
          target_branch: Type.Optional(Type.String()),
          iids: Type.Optional(
            Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), { maxItems: 100 }),
          ),
        }),
        response: { 200: Type.Array(E.MergeRequestEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const q = req.query;
      const result = await ctx.mergeRequests.list(
        req.actor.user,
        req.params.id,
        {
          state: (q.state ?? 'all') as 'opened' | 'closed' | 'merged' | 'all',
          sourceBranch: q.source_branch,
          targetBranch: q.target_branch,
          iids: q.iids,
        },
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      signalFields(reply);
      return result.items.map((m) => P.mergeRequest(m, viewOf(req, url)));
    },
  );
  app.get(
    `${path}/:merge_request_iid`,
    {
      schema: {
        tags,
        summary: 'Get a merge request',
        params: IidParams,
        querystring: Type.Object({ include_rebase_in_progress: Type.Optional(Type.Boolean()) }),
        response: { 200: E.MergeRequestEntity },
      },
    },
    async (req, reply) => {
      const mr = await ctx.mergeRequests.get(req.actor.user, req.params.id, req.params.merge_request_iid);
      signalFields(reply);
      const entity = P.mergeRequest(mr, viewOf(req, url));
      return req.query.include_rebase_in_progress
        ? { ...entity, rebase_in_progress: mr.rebaseInProgress }
        : entity;
    },
  );
  app.get(
    `${path}/:merge_request_iid/participants`,
    {
      schema: {
        tags,
        summary: 'List the participants of a merge request (author, note authors, mentioned users)',
        params: IidParams,
        querystring: PageQuery,
        response: { 200: Type.Array(E.UserBasic) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const all = await ctx.mergeRequests.participants(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
      );
      setPageHeaders(reply, req, url, page, all.length);
      const from = (page.page - 1) * page.perPage;
      return all.slice(from, from + page.perPage).map((u) => P.userBasic(u, viewOf(req, url)));
    },
  );
  app.get(
    `${path}/:merge_request_iid/merge_ref`,
    {
      schema: {
        tags,
        summary: 'The merge ref of a merge request (refs/merge-requests/:iid/merge), brought up to date',
        params: IidParams,
        response: { 200: E.MergeRefEntity },
      },
    },
    async (req) => ({
      commit_id: await ctx.mergeRequests.mergeRef(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
      ),
    }),
  );
  app.put(
    `${path}/:merge_request_iid/rebase`,
    {
      schema: {
        tags,
        summary: 'Rebase the source branch onto the target branch (in the background: 202)',
        params: IidParams,
        body: Type.Optional(Type.Object({ skip_ci: Type.Optional(Type.Boolean()) })),
        response: { 202: E.RebaseEntity },
      },
    },
    async (req, reply) => {
      const inProgress = await ctx.mergeRequests.rebase(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
        req.body?.skip_ci ?? false,
      );
      return reply.status(202).send({ rebase_in_progress: inProgress });
    },
  );
  app.put(
    `${path}/:merge_request_iid`,
    {
      schema: {
        tags,
        summary: 'Update, close or reopen a merge request',
        params: IidParams,
        body: Type.Object({
          title: Type.Optional(Type.String()),
          description: Type.Optional(Type.String()),
          target_branch: Type.Optional(Type.String({ minLength: 1 })),
          state_event: Type.Optional(Type.Union([Type.Literal('close'), Type.Literal('reopen')])),
          remove_source_branch: Type.Optional(Type.Boolean()),
        }),
        response: { 200: E.MergeRequestEntity },
      },
    },
    async (req, reply) => {
      const mr = await ctx.mergeRequests.update(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
        req.body,
      );
      signalFields(reply);
      return P.mergeRequest(mr, viewOf(req, url));
    },
  );
  app.put(
    `${path}/:merge_request_iid/merge`,
    {
      schema: {
        tags,
        summary: 'Merge a merge request (a merge commit on the target branch)',
        params: IidParams,
        body: Type.Optional(
          Type.Object({
            merge_commit_message: Type.Optional(Type.String()),
            sha: Type.Optional(Type.String()),
            should_remove_source_branch: Type.Optional(Type.Boolean()),
          }),
        ),
        response: { 200: E.MergeRequestEntity },
      },
    },
    async (req, reply) => {
      const mr = await ctx.mergeRequests.merge(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
        req.body ?? {},
      );
      signalFields(reply);
      return P.mergeRequest(mr, viewOf(req, url));
    },
  );
  app.get(
    `${path}/:merge_request_iid/diffs`,
    {
      schema: {
        tags,
        summary: 'List the diffs of a merge request (paginated)',
        params: IidParams,
        querystring: PageQuery,
        response: { 200: Type.Array(E.DiffEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const all = await ctx.mergeRequests.diffs(req.actor.user, req.params.id, req.params.merge_request_iid);
      setPageHeaders(reply, req, url, page, all.length);
      const from = (page.page - 1) * page.perPage;
      return all.slice(from, from + page.perPage).map(P.diff);
    },
  );
  app.get(
    `${path}/:merge_request_iid/commits`,
    {
      schema: {
        tags,
        summary: 'List the commits of a merge request (newest first)',
        params: IidParams,
        response: { 200: Type.Array(E.CommitEntity) },
      },
    },
    async (req) => {
      const { project, commits } = await ctx.mergeRequests.commits(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
      );
      return commits.map((c) => P.commit(c, project, viewOf(req, url)));
    },
  );
  app.get(
    `${path}/:merge_request_iid/versions`,
    {
      schema: {
        tags,
        summary: 'List the diff versions of a merge request (newest first)',
        params: IidParams,
        querystring: PageQuery,
        response: { 200: Type.Array(E.MergeRequestVersionEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.mergeRequests.versions(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map(P.mergeRequestVersion);
    },
  );
  app.get(
    `${path}/:merge_request_iid/versions/:version_id`,
    {
      schema: {
        tags,
        summary: 'A diff version of a merge request with its commits and diffs',
        params: Type.Object({ ...IidParams.properties, version_id: Type.Integer() }),
        response: { 200: E.MergeRequestVersionFullEntity },
      },
    },
    async (req) =>
      P.mergeRequestVersionFull(
        await ctx.mergeRequests.version(
          req.actor.user,
          req.params.id,
          req.params.merge_request_iid,
          req.params.version_id,
        ),
        viewOf(req, url),
      ),
  );
  app.delete(
    `${path}/:merge_request_iid`,
    { schema: { tags, summary: 'Delete a merge request (Owner)', params: IidParams } },
    async (req, reply) => {
      await ctx.mergeRequests.delete(req.actor.user, req.params.id, req.params.merge_request_iid);
      return reply.status(204).send();
    },
  );
  // Spec: "Endpoint for the changes of a single merge request — Removed" in v5 (use /diffs).
  if (!api.removes('mr_changes_endpoint')) {
    app.get(
      `${path}/:merge_request_iid/changes`,
      {
        schema: {
          tags,
          summary: 'A merge request with its changes (deprecated: use /diffs; removed in v5)',
          deprecated: true,
          params: IidParams,
          response: { 200: E.MergeRequestChangesEntity },
        },
      },
      async (req, reply) => {
        const { mr, diffs } = await ctx.mergeRequests.changes(
          req.actor.user,
          req.params.id,
          req.params.merge_request_iid,
        );
        reply.deprecated('mr_changes_endpoint');
        signalFields(reply);
        return P.mergeRequestChanges(mr, diffs, viewOf(req, url));
      },
    );
  }
}
