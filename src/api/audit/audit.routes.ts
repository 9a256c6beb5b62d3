import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { AuditFilter } from '../../audit/audit.js';
import { AccessLevel } from '../../members/members.js';
import { requireAdmin, requireUser } from '../auth.js';
import { decodeCursor, encodeCursor, setKeysetHeaders } from '../pagination.js';
import type { ApiApp, ApiVersion } from '../version.js';

const Query = Type.Object({
  per_page: Type.Optional(Type.Integer({ minimum: 1 })),
  cursor: Type.Optional(Type.String()),
  pagination: Type.Optional(Type.Literal('keyset')),
  created_after: Type.Optional(Type.String({ format: 'date-time' })),
  created_before: Type.Optional(Type.String({ format: 'date-time' })),
  entity_type: Type.Optional(
    Type.Union([Type.Literal('Project'), Type.Literal('Group'), Type.Literal('User')]),
  ),
  entity_id: Type.Optional(Type.Integer()),
});

/** Audit events (keyset pagination, newest first) and streaming destinations. */
export function auditRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'access' | 'audit' | 'config'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const url = ctx.config.externalUrl;
  const tags = ['audit events'];

  const page = async (
    req: FastifyRequest,
    reply: FastifyReply,
    q: Static<typeof Query>,
    filter: AuditFilter,
  ) => {
    const perPage = Math.min(q.per_page ?? 20, 100);
    const after = q.cursor ? decodeCursor(q.cursor) : null;
    const rows = await ctx.audit.list(
      { ...filter, createdAfter: q.created_after, createdBefore: q.created_before },
      { orderBy: 'id', sort: 'desc', limit: perPage + 1, after },
    );
    const items = rows.slice(0, perPage);
    const last = items[items.length - 1];
    setKeysetHeaders(
      reply,
      req,
      url,
      perPage,
      rows.length > perPage && last?.id
        ? { pagination: 'keyset', cursor: encodeCursor(last.id, last.id) }
        : null,
    );
    return items.map(api.present.auditEvent);
  };

  app.get(
    '/audit_events',
    {
      schema: {
        tags,
        summary: 'Instance audit events (admin)',
        querystring: Query,
        response: { 200: Type.Array(E.AuditEventEntity) },
      },
    },
    async (req, reply) => {
      requireAdmin(req);
      return page(req, reply, req.query, {
        entityType: req.query.entity_type,
        entityId: req.query.entity_id,
      });
    },
  );

  app.get(
    '/projects/:id/audit_events',
    {
      schema: {
        tags,
        summary: 'Project audit events (Maintainer)',
        params: Type.Object({ id: Type.String() }),
        querystring: Query,
        response: { 200: Type.Array(E.AuditEventEntity) },
      },
    },
    async (req, reply) => {
      const { project } = await ctx.access.project(req.actor.user, req.params.id, AccessLevel.Maintainer);
      return page(req, reply, req.query, { entityType: 'Project', entityId: project.id });
    },
  );

  app.get(
    '/groups/:id/audit_events',
    {
      schema: {
        tags,
        summary: 'Group audit events (Owner)',
        params: Type.Object({ id: Type.String() }),
        querystring: Query,
        response: { 200: Type.Array(E.AuditEventEntity) },
      },
    },
    async (req, reply) => {
      const { group } = await ctx.access.group(requireUser(req), req.params.id, AccessLevel.Owner);
      return page(req, reply, req.query, { entityType: 'Group', entityId: group.id });
    },
  );

  const base = '/admin/audit_events/streaming/destinations';
  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'Streaming destinations (admin)',
        response: { 200: Type.Array(E.AuditDestinationEntity) },
      },
    },
    async (req) => (await ctx.audit.destinations(req.actor.user)).map(api.present.auditDestination),
  );
  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Add a streaming destination (admin)',
        body: Type.Object({ destination_url: Type.String() }),
        response: { 201: E.AuditDestinationEntity },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          api.present.auditDestination(
            await ctx.audit.addDestination(req.actor.user, req.body.destination_url),
          ),
        ),
  );
  app.delete(
    `${base}/:id`,
    {
      schema: {
        tags,
        summary: 'Remove a streaming destination (admin)',
        params: Type.Object({ id: Type.Integer() }),
      },
    },
    async (req, reply) => {
      await ctx.audit.deleteDestination(req.actor.user, req.params.id);
      return reply.status(204).send();
    },
  );
}
