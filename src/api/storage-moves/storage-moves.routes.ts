import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { ContainerType, StorageMove } from '../../storage-moves/storage-moves.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';
import { RepositoryStorageEntity } from './storage-moves.entities.js';

const KINDS: readonly { type: ContainerType; plural: 'projects' | 'snippets' | 'groups' }[] = [
  { type: 'project', plural: 'projects' },
  { type: 'snippet', plural: 'snippets' },
  { type: 'group', plural: 'groups' },
];

/**
 * Repository storage moves, all admin-only, for projects, snippets and groups (GitLab's endpoints):
 * `/<type>_repository_storage_moves` (list, get, bulk schedule) and `/<plural>/:id/repository_storage_moves`.
 */
export function storageMoveRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'config' | 'groups' | 'projects' | 'snippets' | 'storageMoves'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const url = ctx.config.externalUrl;

  /** The container's summary for the entity (null when it has been deleted since). */
  const container = async (req: FastifyRequest, m: StorageMove) => {
    const user = req.actor.user;
    const found =
      m.containerType === 'project'
        ? ctx.projects.find(user, String(m.containerId)).then((r) => r.project)
        : m.containerType === 'snippet'
          ? ctx.snippets.find(user, m.containerId).then((r) => r.snippet)
          : ctx.groups.find(user, String(m.containerId)).then((r) => r.group);
    return found.catch(() => null);
  };
  const shown = async (req: FastifyRequest, m: StorageMove) =>
    api.present.storageMove(m, await container(req, m), viewOf(req, url));

  app.get(
    '/repository_storages',
    {
      schema: {
        tags: ['repository storage moves'],
        summary: 'Configured repository storages with weights and repository counts (admin)',
        response: {
          200: Type.Array(RepositoryStorageEntity),
        },
      },
    },
    async (req) => ctx.storageMoves.storages(req.actor.user),
  );

  for (const { type, plural } of KINDS) {
    const tags = ['repository storage moves'];
    const collection = `/${type}_repository_storage_moves`;
    const Body = Type.Object({
      source_storage_name: Type.String(),
      destination_storage_name: Type.Optional(Type.String()),
    });

    app.get(
      collection,
      {
        schema: {
          tags,
          summary: `List ${type} repository storage moves (admin)`,
          querystring: PageQuery,
          response: { 200: Type.Array(E.StorageMoveEntity) },
        },
      },
      async (req, reply) => {
        const page = pageRequest(req.query);
        const result = await ctx.storageMoves.list(req.actor.user, type, null, page);
        setPageHeaders(reply, req, url, page, result.total);
        return Promise.all(result.items.map((m) => shown(req, m)));
      },
    );
    app.get(
      `${collection}/:id`,
      {
        schema: {
          tags,
          summary: `Get a ${type} repository storage move`,
          params: Type.Object({ id: Type.Integer() }),
          response: { 200: E.StorageMoveEntity },
        },
      },
      async (req) => shown(req, await ctx.storageMoves.get(req.actor.user, type, req.params.id)),
    );
    app.post(
      collection,
      { schema: { tags, summary: `Move every ${type} repository off a storage (202)`, body: Body } },
      async (req, reply) => {
        await ctx.storageMoves.scheduleAll(
          req.actor.user,
          type,
          req.body.source_storage_name,
          req.body.destination_storage_name,
        );
        return reply.status(202).send({ message: '202 Accepted' });
      },
    );

    const Params = Type.Object({ id: Type.Integer() });
    app.get(
      `/${plural}/:id/repository_storage_moves`,
      {
        schema: {
          tags,
          summary: `List the storage moves of a ${type}`,
          params: Params,
          querystring: PageQuery,
          response: { 200: Type.Array(E.StorageMoveEntity) },
        },
      },
      async (req, reply) => {
        const page = pageRequest(req.query);
        const result = await ctx.storageMoves.list(req.actor.user, type, req.params.id, page);
        setPageHeaders(reply, req, url, page, result.total);
        return Promise.all(result.items.map((m) => shown(req, m)));
      },
    );
    app.get(
      `/${plural}/:id/repository_storage_moves/:move_id`,
      {
        schema: {
          tags,
          summary: `Get a storage move of a ${type}`,
          params: Type.Object({ id: Type.Integer(), move_id: Type.Integer() }),
          response: { 200: E.StorageMoveEntity },
        },
      },
      async (req) =>
        shown(req, await ctx.storageMoves.get(req.actor.user, type, req.params.move_id, req.params.id)),
    );
    app.post(
      `/${plural}/:id/repository_storage_moves`,
      {
        schema: {
          tags,
          summary: `Move a ${type} repository (201)`,
          params: Params,
          body: Type.Object({ destination_storage_name: Type.Optional(Type.String()) }),
          response: { 201: E.StorageMoveEntity },
        },
      },
      async (req, reply) => {
        const move = await ctx.storageMoves.schedule(
          req.actor.user,
          type,
          req.params.id,
          req.body?.destination_storage_name,
        );
        return reply.status(201).send(await shown(req, move));
      },
    );
  }
}
