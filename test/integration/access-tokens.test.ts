import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { createUser, projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
type Role = keyof typeof LEVELS;
const ROLES = Object.keys(LEVELS) as Role[];

/**
 * Project and group access tokens (GitLab's lib/api/resource_access_tokens.rb), from outside: who may list, create,
 * read, rotate and revoke them, with GitLab's statuses for each; the token acts as its bot user, at the bot's access
 * level and with its scopes; revoking or rotating ends the old token.
 */
describe.each(await databases())('project and group access tokens (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let project: { id: number; path: string; tokens: Record<string, string> };
  let group: { id: number; tokens: Record<string, string> };
  const as = (role: Role | 'admin' | 'anonymous') =>
    role === 'admin' ? s.rootToken : role === 'anonymous' ? undefined : project.tokens[role];
  const asGroup = (role: Role | 'admin' | 'anonymous') =>
    role === 'admin' ? s.rootToken : role === 'anonymous' ? undefined : group.tokens[role];

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    project = await projectWithMembers(s, 'tokens', LEVELS, 'p');
    // A private project: a non-member does not learn it exists.
    await api.put(`/api/v4/projects/${project.id}`, { token: s.rootToken, body: { visibility: 'private' } });
    const g = await api.post('/api/v4/groups', { token: s.rootToken, body: { name: 'tg', path: 'tg' } });
    group = { id: g.body.id, tokens: {} };
    for (const role of ROLES) {
      const u = await createUser(s, `${role}-g`);
      await api.post(`/api/v4/groups/${group.id}/members`, {
        token: s.rootToken,
        body: { user_id: u.id, access_level: LEVELS[role] },
      });
      group.tokens[role] = u.token;
    }
  });
  afterAll(() => s?.stop());

  const createProjectToken = (token: string | undefined, body: Record<string, unknown> = {}) =>
    api.post(`/api/v4/projects/${project.id}/access_tokens`, {
      token,
      body: { name: 'ci', scopes: ['api'], expires_at: '2099-01-01', ...body },
    });

  it('lets Maintainers, Owners and admins create a token; others get GitLab’s answers', async () => {
    const expected: Record<string, number> = {
      anonymous: 401,
      guest: 400,
      reporter: 400,
      developer: 400,
      maintainer: 201,
      owner: 201,
      admin: 201,
    };
    for (const [role, status] of Object.entries(expected)) {
      const res = await createProjectToken(as(role as Role), { access_level: 30 });
      expect([role, res.status]).toEqual([role, status]);
      if (status === 400) {
        expect(res.body.message).toBe(
          '400 Bad request - User does not have permission to create project access token',
        );
      }
    }
    const outsider = await createUser(s, 'outsider-p');
    expect((await createProjectToken(outsider.token)).status).toBe(404);
  });

  it('creates a bot member and a token that acts as the bot, at its level and scopes', async () => {
    const res = await createProjectToken(as('maintainer'), { name: 'deployer', access_level: 20 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'deployer',
      scopes: ['api'],
      access_level: 20,
      revoked: false,
      active: true,
      expires_at: '2099-01-01',
      resource_type: 'project',
      resource_id: project.id,
    });
    const token = res.body.token as string;
    expect(token).toMatch(/^svcpat-/);
    const me = await api.get('/api/v4/user', { token });
    expect(me.body.username).toMatch(new RegExp(`^project_${project.id}_bot_[0-9a-f]{32}$`));
    expect(me.body.bot).toBe(true);
    expect(me.body.id).toBe(res.body.user_id);
    // The bot is a Reporter of the project: it reads it, and may not change it.
    expect((await api.get(`/api/v4/projects/${project.id}`, { token })).status).toBe(200);
    expect(
      (await api.put(`/api/v4/projects/${project.id}`, { token, body: { description: 'x' } })).status,
    ).toBe(403);
    const member = await api.get(`/api/v4/projects/${project.id}/members/${res.body.user_id}`, {
      token: s.rootToken,
    });
    expect(member.body.access_level).toBe(20);
    // The secret is shown once: reading the token again has no `token`.
    const again = await api.get(`/api/v4/projects/${project.id}/access_tokens/${res.body.id}`, {
      token: as('maintainer'),
    });
    expect(again.status).toBe(200);
    expect(again.body.token).toBeUndefined();
    expect(again.body.access_level).toBe(20);
  });

  it('refuses a level above the creator’s, Owner level to a Maintainer, and scopes a bot may not have', async () => {
    // Owners may make Owner-level tokens; a Maintainer may not.
    expect((await createProjectToken(as('owner'), { access_level: 50 })).status).toBe(201);
    const owner = await createProjectToken(as('maintainer'), { access_level: 50 });
    expect(owner.status).toBe(400);
    expect(owner.body.message).toBe(
      '400 Bad request - Could not provision owner access to project access token',
    );
    const sudo = await createProjectToken(as('maintainer'), { scopes: ['sudo'] });
    expect(sudo.status).toBe(400);
    const past = await createProjectToken(as('maintainer'), { expires_at: '2001-01-01' });
    expect(past.status).toBe(400);
    // Nothing was created for the refused requests: no extra bots among the project's users.
    const users = await api.get(`/api/v4/projects/${project.id}/users?per_page=100`, { token: s.rootToken });
    const bots = (users.body as { username: string }[]).filter((u) => u.username.startsWith('project_'));
    const tokens = await api.get(`/api/v4/projects/${project.id}/access_tokens?per_page=100`, {
      token: s.rootToken,
    });
    expect(bots.length).toBe((tokens.body as unknown[]).length);
  });

  it('counts a level inherited from the group: a group Maintainer manages a project’s tokens', async () => {
    const sub = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: 'levels', namespace_id: group.id },
    });
    expect(sub.status).toBe(201);
    const create = (role: Role, level: number) =>
      api.post(`/api/v4/projects/${sub.body.id}/access_tokens`, {
        token: asGroup(role),
        body: { name: 'x', scopes: ['read_api'], access_level: level },
      });
    expect((await create('maintainer', 40)).status).toBe(201);
    expect((await create('maintainer', 50)).status).toBe(400);
    expect((await create('developer', 30)).status).toBe(400);
    expect((await create('owner', 50)).status).toBe(201);
  });

  it('lets only Maintainers, Owners and admins list and read tokens (401 for others, 404 hidden)', async () => {
    const created = await createProjectToken(as('maintainer'), { name: 'listed' });
    const expected: Record<string, number> = {
      anonymous: 401,
      guest: 401,
      reporter: 401,
      developer: 401,
      maintainer: 200,
      owner: 200,
      admin: 200,
    };
    for (const [role, status] of Object.entries(expected)) {
      const list = await api.get(`/api/v4/projects/${project.id}/access_tokens`, { token: as(role as Role) });
      expect([role, list.status]).toEqual([role, status]);
      const one = await api.get(`/api/v4/projects/${project.id}/access_tokens/${created.body.id}`, {
        token: as(role as Role),
      });
      expect([role, one.status]).toEqual([role, status]);
      if (status === 200) {
        expect((list.body as { id: number }[]).map((t) => t.id)).toContain(created.body.id);
        expect(list.body[0].token).toBeUndefined();
      }
    }
    const outsider = await createUser(s, 'outsider-l');
    const hidden = await api.get(`/api/v4/projects/${project.id}/access_tokens`, { token: outsider.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body.message).toBe('404 Project Not Found');
    const missing = await api.get(`/api/v4/projects/${project.id}/access_tokens/999999`, {
      token: as('maintainer'),
    });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('404 project Access Token Not Found');
    // A personal access token is not one of the project's tokens.
    const personal = await api.get('/api/v4/personal_access_tokens', { token: as('maintainer') });
    const pat = (personal.body as { id: number }[])[0]!.id;
    expect(
      (await api.get(`/api/v4/projects/${project.id}/access_tokens/${pat}`, { token: s.rootToken })).status,
    ).toBe(404);
  });

  it('revokes: the token stops working, the bot leaves the project and the list; others get 400', async () => {
    const created = await createProjectToken(as('maintainer'), { name: 'short-lived' });
    const token = created.body.token as string;
    expect((await api.get(`/api/v4/projects/${project.id}`, { token })).status).toBe(200);
    for (const role of ['guest', 'reporter', 'developer'] as const) {
      const res = await api.delete(`/api/v4/projects/${project.id}/access_tokens/${created.body.id}`, {
        token: as(role),
      });
      expect([role, res.status]).toEqual([role, 400]);
    }
    expect(
      (await api.delete(`/api/v4/projects/${project.id}/access_tokens/${created.body.id}`, {})).status,
    ).toBe(401);
    const del = await api.delete(`/api/v4/projects/${project.id}/access_tokens/${created.body.id}`, {
      token: as('maintainer'),
    });
    expect(del.status).toBe(204);
    expect((await api.get('/api/v4/user', { token })).status).toBe(401);
    const members = await api.get(`/api/v4/projects/${project.id}/members/${created.body.user_id}`, {
      token: s.rootToken,
    });
    expect(members.status).toBe(404);
    const list = await api.get(`/api/v4/projects/${project.id}/access_tokens?per_page=100`, {
      token: as('maintainer'),
    });
    expect((list.body as { id: number }[]).map((t) => t.id)).not.toContain(created.body.id);
    const again = await api.delete(`/api/v4/projects/${project.id}/access_tokens/${created.body.id}`, {
      token: as('maintainer'),
    });
    expect(again.status).toBe(404);
  });

  it('rotates: the old token is revoked, the new one (shown once) works for the same bot', async () => {
    const created = await createProjectToken(as('maintainer'), { name: 'rotating', access_level: 30 });
    const old = created.body.token as string;
    const denied: Record<string, number> = { anonymous: 401, guest: 401, reporter: 401, developer: 401 };
    for (const [role, status] of Object.entries(denied)) {
      const res = await api.post(`/api/v4/projects/${project.id}/access_tokens/${created.body.id}/rotate`, {
        token: as(role as Role),
      });
      expect([role, res.status]).toEqual([role, status]);
    }
    const res = await api.post(`/api/v4/projects/${project.id}/access_tokens/${created.body.id}/rotate`, {
      token: as('maintainer'),
      body: { expires_at: '2098-06-30' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'rotating',
      user_id: created.body.user_id,
      access_level: 30,
      expires_at: '2098-06-30',
      active: true,
    });
    expect(res.body.id).not.toBe(created.body.id);
    expect((await api.get('/api/v4/user', { token: old })).status).toBe(401);
    expect((await api.get('/api/v4/user', { token: res.body.token })).body.id).toBe(created.body.user_id);
    // The old one is listed as revoked; rotating it again is refused.
    const oldNow = await api.get(`/api/v4/projects/${project.id}/access_tokens/${created.body.id}`, {
      token: as('maintainer'),
    });
    expect(oldNow.body).toMatchObject({ revoked: true, active: false });
    const twice = await api.post(`/api/v4/projects/${project.id}/access_tokens/${created.body.id}/rotate`, {
      token: as('maintainer'),
    });
    expect(twice.status).toBe(400);
    expect(twice.body.message).toBe('400 Bad request - Token already revoked');
    // Only admins learn that a token does not exist.
    const missing = (token: string | undefined) =>
      api.post(`/api/v4/projects/${project.id}/access_tokens/999999/rotate`, { token });
    expect((await missing(as('maintainer'))).status).toBe(401);
    expect((await missing(s.rootToken)).status).toBe(404);
    // A Maintainer may not rotate an Owner-level token.
    const ownerLevel = await createProjectToken(as('owner'), { access_level: 50 });
    const up = await api.post(`/api/v4/projects/${project.id}/access_tokens/${ownerLevel.body.id}/rotate`, {
      token: as('maintainer'),
    });
    expect(up.status).toBe(400);
    expect(up.body.message).toBe(
      '400 Bad request - Not eligible to rotate token with access level higher than the user',
    );
  });

  it('a rotated token without expires_at expires a week later', async () => {
    const created = await createProjectToken(as('maintainer'), { name: 'week' });
    const res = await api.post(`/api/v4/projects/${project.id}/access_tokens/${created.body.id}/rotate`, {
      token: as('maintainer'),
    });
    const week = new Date(s.clock.now().getTime() + 7 * 86_400_000).toISOString().slice(0, 10);
    expect(res.body.expires_at).toBe(week);
  });

  it('a bot cannot create access tokens', async () => {
    const created = await createProjectToken(as('owner'), { name: 'bot-owner', access_level: 50 });
    const res = await createProjectToken(created.body.token);
    expect(res.status).toBe(400);
  });

  it('group tokens: Owners and admins manage them; Maintainers and below do not', async () => {
    const create = (token: string | undefined) =>
      api.post(`/api/v4/groups/${group.id}/access_tokens`, {
        token,
        body: { name: 'g', scopes: ['read_api'], access_level: 30 },
      });
    const expected: Record<string, number> = {
      anonymous: 401,
      guest: 400,
      reporter: 400,
      developer: 400,
      maintainer: 400,
      owner: 201,
      admin: 201,
    };
    let made: { id: number; token: string; user_id: number } | undefined;
    for (const [role, status] of Object.entries(expected)) {
      const res = await create(asGroup(role as Role));
      expect([role, res.status]).toEqual([role, status]);
      if (status === 400) {
        expect(res.body.message).toBe(
          '400 Bad request - User does not have permission to create group access token',
        );
      }
      if (status === 201) made = res.body;
    }
    const me = await api.get('/api/v4/user', { token: made!.token });
    expect(me.body.username).toMatch(new RegExp(`^group_${group.id}_bot_`));
    // The group's bot reads the group's projects at Developer, not above.
    const sub = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: 'in-group', namespace_id: group.id, visibility: 'private' },
    });
    expect((await api.get(`/api/v4/projects/${sub.body.id}`, { token: made!.token })).status).toBe(200);
    // read_api only: it cannot write even where its level would let it.
    expect(
      (
        await api.post(`/api/v4/projects/${sub.body.id}/access_tokens`, {
          token: made!.token,
          body: { name: 'n', scopes: ['api'] },
        })
      ).status,
    ).toBe(403);
    const listStatus: Record<string, number> = {
      anonymous: 401,
      guest: 401,
      reporter: 401,
      developer: 401,
      maintainer: 401,
      owner: 200,
      admin: 200,
    };
    for (const [role, status] of Object.entries(listStatus)) {
      const res = await api.get(`/api/v4/groups/${group.id}/access_tokens`, { token: asGroup(role as Role) });
      expect([role, res.status]).toEqual([role, status]);
    }
    const rotated = await api.post(`/api/v4/groups/${group.id}/access_tokens/${made!.id}/rotate`, {
      token: asGroup('owner'),
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ resource_type: 'group', resource_id: group.id, access_level: 30 });
    const del = await api.delete(`/api/v4/groups/${group.id}/access_tokens/${rotated.body.id}`, {
      token: asGroup('maintainer'),
    });
    expect(del.status).toBe(400);
    expect(
      (
        await api.delete(`/api/v4/groups/${group.id}/access_tokens/${rotated.body.id}`, {
          token: asGroup('owner'),
        })
      ).status,
    ).toBe(204);
    expect((await api.get('/api/v4/user', { token: rotated.body.token })).status).toBe(401);
  });
});
