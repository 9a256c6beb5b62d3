import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

/** `GET /projects/:id/issues` (filter `issue_type=incident`, `state`) and `GET /projects/:id/issues/:issue_iid`. */
export function issueRoutes(app: ApiApp, ctx: Pick<AppContext, 'config' | 'issues'>, api: ApiVersion): void {
  const url = ctx.config.externalUrl;
  const tags = ['issues'];
  app.get(
    '/projects/:id/issues',
    {
      schema: {
        tags,
        summary: 'List issues and incidents',
        params: Type.Object({ id: Type.String() }),
        querystring: Type.Object({
          ...PageQuery.properties,
          issue_type: Type.Optional(Type.Union([Type.Literal('issue'), Type.Literal('incident')])),
          state: Type.Optional(
            Type.Union([Type.Literal('opened'), Type.Literal('closed'), Type.Literal('all')]),
          ),
        }),
        response: { 200: Type.Array(api.entities.IssueEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const state = req.query.state === 'all' ? undefined : req.query.state;
      const result = await ctx.issues.list(
        req.actor.user,
        req.params.id,
        { issueType: req.query.issue_type, state },
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((i) => api.present.issue(i, viewOf(req, url)));
    },
  );
  app.get(
    '/projects/:id/issues/:issue_iid',
    {
      schema: {
        tags,
        summary: 'Get an issue',
        params: Type.Object({ id: Type.String(), issue_iid: Type.Integer() }),
        response: { 200: api.entities.IssueEntity },
      },
    },
    async (req) =>
      api.present.issue(
        await ctx.issues.get(req.actor.user, req.params.id, req.params.issue_iid),
        viewOf(req, url),
      ),
  );
}
