import { describe, expect, it } from 'vitest';
import { notFound } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { User } from '../users/users.js';
import type { Visibility } from '../visibility.js';
import { GitAccessService, type GitCredentials } from './git-access.service.js';

const user = (id: number, admin = false) => ({ id, admin }) as User;

/** A service over one project `team/app` (id 7), whose members are given by level, and one group wiki. */
function service(opts: {
  visibility: Visibility;
  levels?: Record<number, number>;
  repositoryExists?: boolean;
}): GitAccessService {
  const levelOf = (u: User | null) => (u ? (opts.levels?.[u.id] ?? 0) : 0);
  const visible = (u: User | null) =>
    opts.visibility === 'public' ||
    (opts.visibility === 'internal' && u !== null) ||
    levelOf(u) >= AccessLevel.Guest ||
    u?.admin === true;
  const projects = {
    find: async (u: User | null, path: string) => {
      if ((path !== 'team/app' && path !== '7') || !visible(u)) throw notFound('Project');
      const project = {
        id: 7,
        visibility: opts.visibility,
        repositoryStorage: 'default',
        repositoryReadOnly: false,
      };
      return { project, level: u?.admin ? AccessLevel.Owner : levelOf(u) };
    },
  };
  const groups = {
    find: async (u: User | null, path: string) => {
      if (path !== 'team' || !visible(u)) throw notFound('Group');
      const group = {
        id: 3,
        visibility: opts.visibility,
        repositoryStorage: 'default',
        repositoryReadOnly: false,
      };
      return { group, level: levelOf(u) };
    },
  };
  const repositories = {
    path: (kind: string, id: number, storage: string) => `/${storage}/${kind}-${id}.git`,
    git: { exists: async () => opts.repositoryExists ?? true },
  };
  return new GitAccessService(
    {} as never,
    groups as never,
    projects as never,
    { find: async () => Promise.reject(notFound('Snippet')) } as never,
    {} as never,
    repositories as never,
    {} as never,
    { recordVersions: async () => undefined },
  );
}

const anonymous: GitCredentials = { user: null, scopes: null };
const signedIn = (id: number, scopes: string[] | null = null): GitCredentials => ({
  user: user(id),
  scopes: scopes ? new Set(scopes) : null,
});

describe('GitAccessService: who may fetch and push over git smart HTTP', () => {
  it('lets anyone fetch a public project, and only Developers push to it', async () => {
    const s = service({
      visibility: 'public',
      levels: { 2: AccessLevel.Reporter, 3: AccessLevel.Developer },
    });
    expect(await s.access(anonymous, 'team/app', false)).toMatchObject({
      ok: true,
      path: '/default/project-7.git',
    });
    expect(await s.access(anonymous, 'team/app', true)).toEqual({ ok: false, reason: 'denied' });
    expect(await s.access(signedIn(2), 'team/app', true)).toEqual({ ok: false, reason: 'denied' });
    expect(await s.access(signedIn(3), 'team/app', true)).toMatchObject({ ok: true });
  });

  it('lets signed-in users fetch an internal project; anonymous callers know of none', async () => {
    const s = service({ visibility: 'internal' });
    expect(await s.access(anonymous, 'team/app', false)).toEqual({ ok: false, reason: 'unknown' });
    expect(await s.access(signedIn(9), 'team/app', false)).toMatchObject({ ok: true });
  });

  it('lets a private project be fetched from Reporter up: a Guest sees the project, not its code', async () => {
    const s = service({ visibility: 'private', levels: { 1: AccessLevel.Guest, 2: AccessLevel.Reporter } });
    expect(await s.access(signedIn(9), 'team/app', false)).toEqual({ ok: false, reason: 'unknown' });
    expect(await s.access(signedIn(1), 'team/app', false)).toEqual({ ok: false, reason: 'denied' });
    expect(await s.access(signedIn(2), 'team/app', false)).toMatchObject({ ok: true });
  });

  it('limits personal access tokens to their scopes', async () => {
    const s = service({ visibility: 'private', levels: { 3: AccessLevel.Developer } });
    expect(await s.access(signedIn(3, ['read_repository']), 'team/app', false)).toMatchObject({ ok: true });
    expect(await s.access(signedIn(3, ['read_repository']), 'team/app', true)).toEqual({
      ok: false,
      reason: 'denied',
    });
    expect(await s.access(signedIn(3, ['write_repository']), 'team/app', true)).toMatchObject({ ok: true });
    expect(await s.access(signedIn(3, ['api']), 'team/app', true)).toMatchObject({ ok: true });
    expect(await s.access(signedIn(3, ['read_user']), 'team/app', false)).toEqual({
      ok: false,
      reason: 'denied',
    });
  });

  it('reads a group wiki by the group visibility, admins always', async () => {
    const s = service({ visibility: 'private', levels: { 1: AccessLevel.Guest } });
    expect(await s.access(signedIn(1), 'groups/team.wiki', false)).toMatchObject({
      ok: true,
      path: '/default/group-3.git',
    });
    expect(await s.access(signedIn(1), 'groups/team.wiki', true)).toEqual({ ok: false, reason: 'denied' });
    expect(await s.access({ user: user(5, true), scopes: null }, 'groups/team.wiki', false)).toMatchObject({
      ok: true,
    });
  });

  it('names nothing for unknown paths, control characters and ids beyond the databases', async () => {
    const s = service({ visibility: 'public' });
    for (const path of ['team/other', 'team/\u0000app', '99999999999', 'snippets/1']) {
      expect(await s.access(signedIn(1), path, false)).toEqual({ ok: false, reason: 'unknown' });
    }
  });

  it('tells a known project without its repository apart', async () => {
    const s = service({ visibility: 'public', repositoryExists: false });
    expect(await s.access(anonymous, 'team/app', false)).toEqual({ ok: false, reason: 'missing' });
  });
});
