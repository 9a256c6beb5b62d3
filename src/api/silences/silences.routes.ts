import { type Static, Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { SILENCE_STATES } from '../../silences/silences.js';
import type { SilenceInput as DomainInput } from '../../silences/silences.service.js';
import type { User } from '../../users/users.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, viewOf } from '../version.js';
import { SilenceEntity, SilenceInput } from './silences.entities.js';
import { silence } from './silences.presenters.js';

const Params = Type.Object({ id: Type.String() });
const SilenceParams = Type.Object({ id: Type.String(), silence_id: Type.Integer() });

const input = (b: Static<typeof SilenceInput> | undefined): DomainInput => ({
  matchers: b?.matchers,
  startsAt: b?.starts_at,
  endsAt: b?.ends_at,
  comment: b?.comment,
});

/**
 * Alert silences under /projects/:id/alert_management/silences (Alertmanager's silences; GitLab has none):
 * Reporters read, Developers create, change and expire.
 */
export function silenceRoutes(app: ApiApp, ctx: Pick<AppContext, 'silences' | 'config'>): void {
  const url = ctx.config.externalUrl;
  const base = '/projects/:id/alert_management/silences';
  const tags = ['alert silences'];

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List silences, newest first (Reporter)',
        params: Params,
        querystring: Type.Object({
          ...PageQuery.properties,
          state: Type.Optional(Type.Union(SILENCE_STATES.map((s) => Type.Literal(s)))),
        }),
        response: { 200: Type.Array(SilenceEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.silences.list(req.actor.user, req.params.id, req.query.state, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((s) => silence(s, viewOf(req, url)));
    },
  );
  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Add a silence: matchers, ends_at and comment required, starts_at default now (Developer)',
        params: Params,
        body: SilenceInput,
        response: { 201: SilenceEntity },
      },
    },
    async (req, reply) => {
      const s = await ctx.silences.create(req.actor.user, req.params.id, input(req.body));
      return reply.status(201).send(silence(s, viewOf(req, url)));
    },
  );
  app.get(
    `${base}/:silence_id`,
    {
      schema: {
        tags,
        summary: 'One silence (Reporter)',
        params: SilenceParams,
        response: { 200: SilenceEntity },
      },
    },
    async (req) =>
      silence(await ctx.silences.get(req.actor.user, req.params.id, req.params.silence_id), viewOf(req, url)),
  );
  app.put(
    `${base}/:silence_id`,
    {
      schema: {
        tags,
        summary: 'Change a silence that has not expired (Developer)',
        params: SilenceParams,
        body: SilenceInput,
        response: { 200: SilenceEntity },
      },
    },
    async (req) =>
      silence(
        await ctx.silences.update(req.actor.user, req.params.id, req.params.silence_id, input(req.body)),
        viewOf(req, url),
      ),
  );
  // Expiring keeps the silence, listed as expired (Alertmanager's DELETE /silence/:id does the same).
  const expire = (req: { actor: { user: User | null }; params: Static<typeof SilenceParams> }) =>
    ctx.silences.expire(req.actor.user, req.params.id, req.params.silence_id);
  app.delete(
    `${base}/:silence_id`,
    {
      schema: {
        tags,
        summary: 'Expire a silence now; it stays listed as expired (Developer)',
        params: SilenceParams,
        response: { 200: SilenceEntity },
      },
    },
    async (req) => silence(await expire(req), viewOf(req, url)),
  );
  app.post(
    `${base}/:silence_id/expire`,
    {
      schema: {
        tags,
        summary: 'Expire a silence now; it stays listed as expired (Developer)',
        params: SilenceParams,
        response: { 200: SilenceEntity },
      },
    },
    async (req) => silence(await expire(req), viewOf(req, url)),
  );
}
