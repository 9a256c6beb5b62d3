import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { notFound, paramError } from '../../errors.js';
import { packageVersion } from '../../package-version.js';
import { formatRelease } from '../../versioning/release.js';
import { requireAdmin, requireUser } from '../auth.js';
import { Nullable } from '../common/common.entities.js';
import type { ApiApp, ApiVersion } from '../version.js';

/** `/version`, application settings and feature flags. */
export function adminRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'config' | 'gates' | 'projects' | 'release' | 'settings' | 'users'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;

  app.get(
    '/version',
    {
      schema: {
        tags: ['metadata'],
        summary: 'Instance version and release',
        response: { 200: E.VersionEntity },
      },
    },
    async (req) => {
      // GitLab requires authentication for /version.
      requireUser(req);
      const release = formatRelease(ctx.release);
      return {
        version: `${release}.0`,
        revision: `svc-${packageVersion()}`,
        release,
        enterprise: ctx.config.tier !== 'free',
        kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
      };
    },
  );

  app.get(
    '/license',
    {
      schema: {
        tags: ['license'],
        summary: "The instance's license (admin): svc's tier as the plan; null on the Free tier",
        response: { 200: Nullable(E.LicenseEntity) },
      },
    },
    async (req) => {
      requireAdmin(req);
      // GitLab without a license answers 200 with null (`present nil`); a Free svc has none.
      const tier = ctx.config.tier;
      if (tier === 'free') return null;
      const [since, active] = await Promise.all([
        ctx.users.instanceCreatedAt(),
        ctx.users.countActiveHumans(),
      ]);
      return P.license(tier, since ?? new Date(0).toISOString(), active);
    },
  );

  app.get(
    '/application/settings',
    {
      schema: {
        tags: ['settings'],
        summary: 'Application settings (admin)',
        response: { 200: E.SettingsEntity },
      },
    },
    async (req) =>
      P.settings(
        await ctx.settings.read(req.actor.user),
        ctx.gates.isRemoved('settings_sign_in_text_help_text'),
      ),
  );

  app.put(
    '/application/settings',
    {
      schema: {
        tags: ['settings'],
        summary: 'Change application settings (admin)',
        body: E.SettingsInput,
        response: { 200: E.SettingsEntity },
      },
    },
    async (req, reply) => {
      const body = req.body ?? {};
      const texts = (['sign_in_text', 'help_text'] as const).filter((k) => body[k] !== undefined);
      if (texts.length > 0) {
        // Spec (17.0 removals): sign_in_text and help_text are removed; the Appearance API's description replaces them.
        if (ctx.gates.isRemoved('settings_sign_in_text_help_text')) {
          throw paramError(
            `${texts.join(', ')} ${texts.length > 1 ? 'were' : 'was'} removed in 17.0: use the description of the Appearance API (PUT /application/appearance)`,
          );
        }
        reply.deprecated('settings_sign_in_text_help_text');
      }
      return P.settings(
        await ctx.settings.update(req.actor.user, body),
        ctx.gates.isRemoved('settings_sign_in_text_help_text'),
      );
    },
  );

  const Appearance = Type.Partial(Type.Object({ ...E.AppearanceEntity.properties }));
  app.get(
    '/application/appearance',
    { schema: { tags: ['settings'], summary: 'Appearance (admin)', response: { 200: E.AppearanceEntity } } },
    async (req) => ctx.settings.appearance(req.actor.user),
  );
  app.put(
    '/application/appearance',
    {
      schema: {
        tags: ['settings'],
        summary: 'Change the appearance (admin)',
        body: Appearance,
        response: { 200: E.AppearanceEntity },
      },
    },
    async (req) => ctx.settings.updateAppearance(req.actor.user, req.body ?? {}),
  );

  const ftags = ['features'];
  app.get(
    '/features',
    {
      schema: {
        tags: ftags,
        summary: 'List feature flags (admin)',
        response: { 200: Type.Array(E.FeatureEntity) },
      },
    },
    async (req) => (await ctx.settings.listFeatures(req.actor.user)).map(P.feature),
  );

  app.post(
    '/features/:name',
    {
      schema: {
        tags: ftags,
        summary: 'Set a feature flag instance-wide or for a project (admin)',
        params: Type.Object({ name: Type.String() }),
        body: Type.Object({
          value: Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')]),
          project: Type.Optional(Type.String()),
        }),
        response: { 201: E.FeatureEntity },
      },
    },
    async (req, reply) => {
      const enabled = req.body.value === true || req.body.value === 'true';
      let projectId: number | null = null;
      if (req.body.project !== undefined) {
        const { project } = await ctx.projects.find(req.actor.user, req.body.project).catch(() => {
          throw notFound('Project');
        });
        projectId = project.id;
      }
      const f = await ctx.settings.setFeature(req.actor.user, req.params.name, enabled, projectId);
      return reply.status(201).send(P.feature(f));
    },
  );

  app.delete(
    '/features/:name',
    {
      schema: {
        tags: ftags,
        summary: 'Remove a feature flag (admin)',
        params: Type.Object({ name: Type.String() }),
      },
    },
    async (req, reply) => {
      await ctx.settings.deleteFeature(req.actor.user, req.params.name);
      return reply.status(204).send();
    },
  );
}
