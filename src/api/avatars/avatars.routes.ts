import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { UploadedFile } from '../../avatars/avatars.js';
import { identiconPng } from '../../avatars/identicon.js';
import { notFound, paramError } from '../../errors.js';
import { authenticate } from '../auth.js';
import { uploadOf } from '../validation.js';
import type { ApiApp } from '../version.js';

/** The body field an avatar comes in, and what `config.uploads` names for routes that take one. */
export const AVATAR_UPLOAD = ['avatar'] as const;

/**
 * The `avatar` parameter of a create or update: a file part is a new avatar; an empty value (`avatar=`, GitLab's
 * documented way) removes it; absent changes nothing. Any other text is no file (Grape: `avatar is invalid`).
 */
export function avatarParam(body: unknown): UploadedFile | null | undefined {
  const file = uploadOf(body, 'avatar');
  if (file) return file;
  const value = (body as { avatar?: unknown } | null | undefined)?.avatar;
  if (value === undefined) return undefined;
  if (value === '' || value === null) return null;
  throw paramError('avatar is invalid');
}

/** What schemas declare for `avatar` sent as text (the file part itself never reaches the schema). */
export const AvatarText = Type.Optional(Type.Union([Type.String(), Type.Null()]));

const IDENTICON = /^([0-9a-f]{32})\.png$/;

/**
 * Avatar images, outside the API as in GitLab: uploaded ones at `/uploads/-/system/<kind>/avatar/<id>/<name>`
 * (users' to anyone; projects' and groups' to whoever may see the project or group, a session or a token), and the
 * identicons users without one get at `/-/identicon/<hash>.png` (drawn from the name: the same bytes forever).
 */
export function avatarRoutes(app: ApiApp, ctx: Pick<AppContext, 'users' | 'projects' | 'groups'>): void {
  app.addHook('preHandler', authenticate(ctx.users));

  app.get<{ Params: { name: string } }>('/-/identicon/:name', async (req, reply) => {
    const m = IDENTICON.exec(req.params.name);
    if (!m) throw notFound();
    return reply
      .type('image/png')
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .send(identiconPng(m[1]!));
  });

  app.get<{ Params: { kind: string; id: string; name: string } }>(
    '/uploads/-/system/:kind/avatar/:id/:name',
    async (req, reply) => {
      const { kind, name } = req.params;
      if (!/^[1-9]\d{0,15}$/.test(req.params.id)) throw notFound();
      const id = Number(req.params.id);
      const actor = req.actor.user;
      const file =
        kind === 'user'
          ? await ctx.users.avatarFile(id, name)
          : kind === 'project'
            ? await ctx.projects.avatarFile(actor, id, name)
            : kind === 'group'
              ? await ctx.groups.avatarFile(actor, id, name)
              : null;
      if (!file) throw notFound();
      // The same URL may name another file after a new upload of the same name: caches ask again.
      return reply
        .type(file.contentType)
        .header('Cache-Control', kind === 'user' ? 'no-cache' : 'private, no-cache')
        .header('Content-Disposition', 'inline')
        .send(file.data);
    },
  );
}
