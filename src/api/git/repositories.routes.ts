import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { notFound } from '../../errors.js';
import { AccessLevel } from '../../members/members.js';
import type { ApiApp } from '../version.js';

/** `GET /projects/:id/repository/archive`: a tar.gz of the default branch (or `sha`), for readers of the code. */
export function repositoryRoutes(app: ApiApp, ctx: Pick<AppContext, 'access' | 'audit' | 'git'>): void {
  app.get(
    '/projects/:id/repository/archive',
    {
      schema: {
        tags: ['git'],
        summary: 'Download an archive of the repository',
        params: Type.Object({ id: Type.String() }),
        querystring: Type.Object({
          sha: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._/-]{1,200}$' })),
        }),
      },
    },
    async (req, reply) => {
      const { project, level } = await ctx.access.project(req.actor.user, req.params.id);
      const open =
        project.visibility === 'public' || (project.visibility === 'internal' && req.actor.user !== null);
      if (!open) ctx.access.level(req.actor.user, level, AccessLevel.Reporter);
      const path = ctx.git.path('project', project.id, project.repositoryStorage);
      const ref = req.query.sha ?? project.defaultBranch;
      const head = await ctx.git.git
        .run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: path })
        .catch(() => '');
      if (!head.trim()) throw notFound('Tree');
      const prefix = `${project.path}-${ref.replace(/[^A-Za-z0-9._-]/g, '-')}-${head.trim().slice(0, 12)}`;
      await ctx.audit.recordDownload(req.actor.user, project, req.ip, 'archive');
      const stream = ctx.git.git.archive(path, head.trim(), prefix);
      stream.done.catch((err: unknown) => req.log.error({ err }, 'git archive failed'));
      return reply
        .header('content-type', 'application/gzip')
        .header('content-disposition', `attachment; filename="${prefix}.tar.gz"`)
        .send(stream);
    },
  );
}
