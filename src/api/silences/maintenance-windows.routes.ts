import { type Static, Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { WindowInput } from '../../silences/maintenance-windows.service.js';
import { SILENCE_STATES } from '../../silences/silences.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, viewOf } from '../version.js';
import { MaintenanceWindowEntity, MaintenanceWindowInput } from './maintenance-windows.entities.js';
import { maintenanceWindow } from './maintenance-windows.presenters.js';

const Params = Type.Object({ id: Type.String() });
const WindowParams = Type.Object({ id: Type.String(), window_id: Type.Integer() });

const input = (b: Static<typeof MaintenanceWindowInput> | undefined): WindowInput => ({
  integrationId: b?.integration_id,
  startsAt: b?.starts_at,
  endsAt: b?.ends_at,
  comment: b?.comment,
});

/**
 * Maintenance windows under /projects/:id/alert_management/maintenance_windows (PagerDuty's maintenance windows;
 * GitLab has none), with the silences' roles: Reporters read, Developers create, change and end.
 */
export function maintenanceWindowRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'maintenanceWindows' | 'config'>,
): void {
  const url = ctx.config.externalUrl;
  const base = '/projects/:id/alert_management/maintenance_windows';
  const tags = ['maintenance windows'];

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List maintenance windows, the latest start first (Reporter)',
        params: Params,
        querystring: Type.Object({
          ...PageQuery.properties,
          state: Type.Optional(Type.Union(SILENCE_STATES.map((s) => Type.Literal(s)))),
        }),
        response: { 200: Type.Array(MaintenanceWindowEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.maintenanceWindows.list(req.actor.user, req.params.id, req.query.state, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((w) => maintenanceWindow(w, viewOf(req, url)));
    },
  );
  app.post(
    base,
    {
      schema: {
        tags,
        summary:
          'Add a maintenance window: ends_at and comment required, starts_at default now, integration_id for one integration (Developer)',
        params: Params,
        body: MaintenanceWindowInput,
        response: { 201: MaintenanceWindowEntity },
      },
    },
    async (req, reply) => {
      const w = await ctx.maintenanceWindows.create(req.actor.user, req.params.id, input(req.body));
      return reply.status(201).send(maintenanceWindow(w, viewOf(req, url)));
    },
  );
  app.get(
    `${base}/:window_id`,
    {
      schema: {
        tags,
        summary: 'One maintenance window (Reporter)',
        params: WindowParams,
        response: { 200: MaintenanceWindowEntity },
      },
    },
    async (req) =>
      maintenanceWindow(
        await ctx.maintenanceWindows.get(req.actor.user, req.params.id, req.params.window_id),
        viewOf(req, url),
      ),
  );
  app.put(
    `${base}/:window_id`,
    {
      schema: {
        tags,
        summary: 'Change a maintenance window that has not ended; an earlier ends_at shortens it (Developer)',
        params: WindowParams,
        body: MaintenanceWindowInput,
        response: { 200: MaintenanceWindowEntity },
      },
    },
    async (req) =>
      maintenanceWindow(
        await ctx.maintenanceWindows.update(
          req.actor.user,
          req.params.id,
          req.params.window_id,
          input(req.body),
        ),
        viewOf(req, url),
      ),
  );
  // PagerDuty's DELETE: a future window is deleted, an ongoing one ends now (and stays listed, as expired).
  app.delete(
    `${base}/:window_id`,
    {
      schema: {
        tags,
        summary:
          'Delete a maintenance window that has not started (204), or end an active one now (200, listed as expired) (Developer)',
        params: WindowParams,
        response: { 200: MaintenanceWindowEntity, 204: Type.Null() },
      },
    },
    async (req, reply) => {
      const w = await ctx.maintenanceWindows.end(req.actor.user, req.params.id, req.params.window_id);
      if (!w) return reply.status(204).send(null);
      return maintenanceWindow(w, viewOf(req, url));
    },
  );
}
