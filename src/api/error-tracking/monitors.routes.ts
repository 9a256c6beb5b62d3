import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { ApiApp } from '../version.js';
import { MonitorEntity } from './monitors.entities.js';
import { monitor } from './monitors.presenters.js';

const Params = Type.Object({ id: Type.String() });
const SlugParams = Type.Object({ id: Type.String(), monitor_slug: Type.String({ maxLength: 50 }) });

/**
 * Sentry cron monitors under /projects/:id/error_tracking/monitors (svc's; GitLab has none): Reporters read.
 * Monitors are created and changed by the SDKs' check-ins only.
 */
export function monitorRoutes(app: ApiApp, ctx: Pick<AppContext, 'monitors'>): void {
  const base = '/projects/:id/error_tracking/monitors';
  const tags = ['error tracking'];

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'Cron monitors with their last check-ins (Reporter)',
        params: Params,
        response: { 200: Type.Array(MonitorEntity) },
      },
    },
    async (req) => (await ctx.monitors.list(req.actor.user, req.params.id)).map(monitor),
  );

  app.get(
    `${base}/:monitor_slug`,
    {
      schema: {
        tags,
        summary: 'One cron monitor with its recent check-ins (Reporter)',
        params: SlugParams,
        response: { 200: MonitorEntity },
      },
    },
    async (req) => monitor(await ctx.monitors.get(req.actor.user, req.params.id, req.params.monitor_slug)),
  );
}
