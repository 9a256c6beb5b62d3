import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { notFound } from '../../errors.js';
import { AccessLevel } from '../../members/members.js';
import type { User } from '../../users/users.js';
import type { ApiApp } from '../version.js';

/**
 * `GET /projects/:id/repository/archive`: a tar.gz of the default branch (or `sha`), for readers of the code.
 * GitLab also takes the format as a suffix (`archive.tar.gz`, as python-gitlab asks); svc makes only tar.gz, so
 * another suffix names nothing here (404).
 */
export function repositoryRoutes(app: ApiApp, ctx: Pick<AppContext, 'access' | 'audit' | 'git'>): void {
  app.get(
    '/projects/:id/repository/archive.:format',
    {
      schema: {
        tags: ['git'],
        summary: 'Download an archive of the repository (format suffix: tar.gz or tgz)',
        params: Type.Object({ id: Type.String(), format: Type.String() }),
        querystring: Type.Object({
          sha: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._/-]{1,200}$' })),
        }),
      },
    },
    async (req, reply) => {
      if (req.params.format !== 'tar.gz' && req.params.format !== 'tgz') throw notFound();
      return archive(req.actor.user, req.params.id, req.query.sha, req.ip, req.log, reply);
    },
  );
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
    async (req, reply) => archive(req.actor.user, req.params.id, req.query.sha, req.ip, req.log, reply),
  );

  async function archive(
    user: User | null,
    id: string,
    sha: string | undefined,
    ip: string,
    log: FastifyBaseLogger,
    reply: FastifyReply,
  ) {
    const { project, level } = await ctx.access.project(user, id);
    const open = project.visibility === 'public' || (project.visibility === 'internal' && user !== null);
    if (!open) ctx.access.level(user, level, AccessLevel.Reporter);
    const path = ctx.git.path('project', project.id, project.repositoryStorage);
    const ref = sha ?? project.defaultBranch;
    const head = await ctx.git.git
      .run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: path })
      .catch(() => '');
    if (!head.trim()) throw notFound('Tree');
    const prefix = `${project.path}-${ref.replace(/[^A-Za-z0-9._-]/g, '-')}-${head.trim().slice(0, 12)}`;
    await ctx.audit.recordDownload(user, project, ip, 'archive');
    const stream = ctx.git.git.archive(path, head.trim(), prefix);
    stream.done.catch((err: unknown) => log.error({ err }, 'git archive failed'));
    return reply
      .header('content-type', 'application/gzip')
      .header('content-disposition', `attachment; filename="${prefix}.tar.gz"`)
      .send(stream);
  }
}
