import { describe, expect, it } from 'vitest';
import { appErrorResponse } from '../api/errors.js';
import { AppError } from '../errors.js';
import { AccessLevel, type Visibility, verdict } from './access.js';
import { AccessPolicy, type Principal } from './access.policy.js';

type Obj = { readonly id: number; readonly visibility: Visibility };

const objects: Record<string, Obj> = {
  'g/public': { id: 1, visibility: 'public' },
  'g/internal': { id: 2, visibility: 'internal' },
  'g/private': { id: 3, visibility: 'private' },
};
/** Levels per user id and object id. */
const levels: Record<number, Record<number, number>> = {
  7: { 3: AccessLevel.Developer, 1: AccessLevel.Guest },
};

const policy = (tier: 'free' | 'premium' = 'premium') =>
  new AccessPolicy<Principal, Obj, Obj>(
    {
      findProject: async (p) => objects[p] ?? null,
      findGroup: async (p) => objects[p] ?? null,
      projectLevel: async (a, o) => (a?.admin ? AccessLevel.Owner : (levels[a?.id ?? 0]?.[o.id] ?? 0)),
      groupLevel: async (a, o) => (a?.admin ? AccessLevel.Owner : (levels[a?.id ?? 0]?.[o.id] ?? 0)),
    },
    tier,
  );

const member: Principal = { id: 7, admin: false };
const stranger: Principal = { id: 8, admin: false };
const admin: Principal = { id: 1, admin: true };

/** The HTTP answer a refusal gets, or 'ok'. */
async function answer(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
    return 'ok';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const { status, body } = appErrorResponse(err);
    return [status, body.message];
  }
}

describe('verdict: the one 401/403/404 rule', () => {
  it('hidden is 404 for everyone, anonymous callers included', () => {
    expect(verdict({ signedIn: false, visible: false, level: 0, min: 0 })).toBe('not_found');
    expect(verdict({ signedIn: true, visible: false, level: 50, min: 0 })).toBe('not_found');
  });
  it('visible and enough is allowed', () => {
    expect(verdict({ signedIn: false, visible: true, level: 0, min: 0 })).toBe('allow');
    expect(verdict({ signedIn: true, visible: true, level: 30, min: 30 })).toBe('allow');
  });
  it('visible but too low: 401 anonymous, 403 signed in', () => {
    expect(verdict({ signedIn: false, visible: true, level: 0, min: 10 })).toBe('unauthorized');
    expect(verdict({ signedIn: true, visible: true, level: 20, min: 30 })).toBe('forbidden');
  });
});

describe('AccessPolicy', () => {
  const p = policy();
  for (const kind of ['project', 'group'] as const) {
    const find = (a: Principal | null, path: string, min?: number) =>
      kind === 'project' ? p.project(a, path, min) : p.group(a, path, min);
    const Name = kind === 'project' ? 'Project' : 'Group';

    it(`${kind}: unknown is 404 ${Name} Not Found`, async () => {
      expect(await answer(() => find(member, 'g/none'))).toEqual([404, `404 ${Name} Not Found`]);
    });
    it(`${kind}: private and not a member is 404, signed in or not`, async () => {
      expect(await answer(() => find(null, 'g/private'))).toEqual([404, `404 ${Name} Not Found`]);
      expect(await answer(() => find(stranger, 'g/private'))).toEqual([404, `404 ${Name} Not Found`]);
    });
    it(`${kind}: internal is hidden from anonymous callers only`, async () => {
      expect(await answer(() => find(null, 'g/internal'))).toEqual([404, `404 ${Name} Not Found`]);
      expect(await answer(() => find(stranger, 'g/internal'))).toBe('ok');
    });
    it(`${kind}: visible but below the level: 401 anonymous, 403 signed in`, async () => {
      expect(await answer(() => find(null, 'g/public', AccessLevel.Reporter))).toEqual([
        401,
        '401 Unauthorized',
      ]);
      expect(await answer(() => find(member, 'g/public', AccessLevel.Reporter))).toEqual([
        403,
        '403 Forbidden',
      ]);
      expect(await answer(() => find(member, 'g/private', AccessLevel.Maintainer))).toEqual([
        403,
        '403 Forbidden',
      ]);
    });
    it(`${kind}: enough returns the object and the level; admins see and do everything`, async () => {
      await expect(find(member, 'g/private', AccessLevel.Developer)).resolves.toMatchObject({
        level: AccessLevel.Developer,
      });
      await expect(find(admin, 'g/private', AccessLevel.Owner)).resolves.toMatchObject({
        level: AccessLevel.Owner,
      });
    });
  }

  it('level: the level check alone (401 anonymous, 403 signed in)', async () => {
    expect(await answer(() => p.level(null, 0, AccessLevel.Reporter))).toEqual([401, '401 Unauthorized']);
    expect(await answer(() => p.level(member, 10, AccessLevel.Reporter))).toEqual([403, '403 Forbidden']);
    expect(await answer(() => p.level(member, 20, AccessLevel.Reporter))).toBe('ok');
  });

  it('snippet: readable by author, admin, or per visibility; 404 Snippet otherwise', async () => {
    const s = (visibility: Visibility) => ({ visibility, authorId: 7 });
    expect(await answer(() => p.snippet(stranger, s('private'), 0))).toEqual([404, '404 Snippet Not Found']);
    expect(await answer(() => p.snippet(null, s('internal'), 0))).toEqual([404, '404 Snippet Not Found']);
    expect(await answer(() => p.snippet(member, s('private'), 0))).toBe('ok');
    expect(await answer(() => p.snippet(admin, s('private'), 0))).toBe('ok');
    expect(await answer(() => p.snippet(stranger, s('private'), AccessLevel.Guest))).toBe('ok');
    expect(await answer(() => p.snippet(null, s('public'), 0))).toBe('ok');
  });

  it('signedIn and admin: 401 anonymous, 403 a non-admin', async () => {
    expect(await answer(() => p.signedIn(null))).toEqual([401, '401 Unauthorized']);
    expect(p.signedIn(member)).toBe(member);
    expect(await answer(() => p.admin(null))).toEqual([401, '401 Unauthorized']);
    expect(await answer(() => p.admin(member))).toEqual([403, '403 Forbidden']);
    expect(p.admin(admin)).toBe(admin);
  });

  it('tier: a paid feature is 403 with its message on Free, allowed on Premium', async () => {
    const free = policy('free');
    expect(free.hasTier('oncall_schedules')).toBe(false);
    expect(await answer(() => free.tier('oncall_schedules'))).toEqual([
      403,
      '403 Forbidden - On-call schedules need the Premium or Ultimate tier',
    ]);
    expect(await answer(() => free.tier('multiple_integrations'))).toEqual([
      403,
      '403 Forbidden - Multiple integrations of a single type: This needs the Premium or Ultimate tier',
    ]);
    expect(p.hasTier('oncall_schedules')).toBe(true);
    expect(await answer(() => p.tier('escalation_policies'))).toBe('ok');
  });
});
