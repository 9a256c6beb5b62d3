import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relativePath } from '../../src/git/git.js';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Concurrent storage moves of one repository. The database allows one active move per
 * container; the losers get GitLab's 400, nothing else is stored, and the repository survives every round on its
 * current storage (cloned with real git). The worker is held during each burst so every request races the others
 * (not a move that already ended), then drained.
 */
describe.each(await databases())('concurrent repository storage moves (%s)', (database) => {
  const STORAGES = ['default', 'fast', 'slow'] as const;
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let root: string;
  let n = 0;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-moves-race-'));
    s = await startTestServer({
      database,
      env: { SVC_STORAGES: STORAGES.map((name) => `${name}=${root}/${name}`).join(','), SVC_TIER: 'premium' },
    });
    api = http(s.url);
    await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { repository_storages_weighted: { default: 100, fast: 50, slow: 50 } },
    });
  });
  afterAll(async () => {
    await s?.stop();
  });

  async function project() {
    const p = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: `race-${++n}`, visibility: 'private', repository_storage: 'default' },
    });
    expect(p.status).toBe(201);
    const body = p.body as { id: number; http_url_to_repo: string };
    const { dir, push } = await pushCommit(authUrl(body.http_url_to_repo, 'root', s.rootToken));
    expect(push.code).toBe(0);
    const head = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    return { ...body, head };
  }

  /** Runs `fn` with the job worker held, then drains every job and restarts the worker. */
  async function held<T>(fn: () => Promise<T>): Promise<T> {
    await s.server.ctx.jobs.stop();
    try {
      return await fn();
    } finally {
      await s.server.ctx.jobs.drain();
      s.server.ctx.jobs.start(200, 2);
    }
  }

  const movesOf = async (kind: string, id: number) =>
    (await api.get(`/api/v4/${kind}/${id}/repository_storage_moves?per_page=100`, { token: s.rootToken }))
      .body as { id: number; state: string; destination_storage_name: string }[];

  /** The repository is where its container says, clones with the pushed head, and is on no other storage. */
  async function intact(p: { id: number; http_url_to_repo: string; head: string }) {
    const now = await api.get(`/api/v4/projects/${p.id}`, { token: s.rootToken });
    const storage = now.body.repository_storage as string;
    const rel = relativePath('project', p.id);
    for (const name of STORAGES) {
      expect(existsSync(join(root, name, rel)), `${rel} on ${name} (current: ${storage})`).toBe(
        name === storage,
      );
      // Nothing set aside for deletion is left behind either.
      const parent = dirname(join(root, name, rel));
      if (existsSync(parent)) expect(readdirSync(parent).filter((f) => f.includes('.deleted-'))).toEqual([]);
    }
    const dir = mkdtempSync(join(tmpdir(), 'svc-race-clone-'));
    const clone = await git(['clone', '--quiet', authUrl(p.http_url_to_repo, 'root', s.rootToken), 'c'], dir);
    expect(clone.code, clone.stderr).toBe(0);
    expect((await git(['rev-parse', 'HEAD'], join(dir, 'c'))).stdout.trim()).toBe(p.head);
    expect((await git(['fsck', '--no-progress'], join(dir, 'c'))).code).toBe(0);
    return storage;
  }

  it('20 concurrent moves of one project, 5 rounds: one move each round, 19 clear 400s, repository intact', async () => {
    const p = await project();
    let before = 0;
    for (let round = 0; round < 5; round++) {
      const answers = await held(() =>
        Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            api.post(`/api/v4/projects/${p.id}/repository_storage_moves`, {
              token: s.rootToken,
              // Half name a destination, half let the weights pick one: both paths race.
              body: i % 2 === 0 ? {} : { destination_storage_name: i % 4 === 1 ? 'fast' : 'slow' },
            }),
          ),
        ),
      );
      const created = answers.filter((a) => a.status === 201);
      const refused = answers.filter((a) => a.status !== 201);
      expect(created, `round ${round}`).toHaveLength(1);
      // A request that named the storage the repository is already on gets its own clear 400.
      for (const a of refused) {
        expect(a.status).toBe(400);
        if (typeof a.body.message === 'string')
          expect(a.body.message).toMatch(/^400 Bad request - the repository is already on storage/);
        else expect(a.body).toEqual({ message: { project: ['is read-only'] } });
      }
      expect(refused.filter((a) => typeof a.body.message !== 'string').length).toBeGreaterThanOrEqual(9);
      const all = await movesOf('projects', p.id);
      expect(all).toHaveLength(before + 1);
      before = all.length;
      expect(all[0]).toMatchObject({ id: created[0]!.body.id, state: 'finished' });
      expect(await intact(p)).toBe(created[0]!.body.destination_storage_name);
    }
    // Writable again after the last move: a push lands.
    const { push } = await pushCommit(authUrl(p.http_url_to_repo, 'root', s.rootToken), 'after.txt', 'x\n');
    expect(push.code).toBe(0);
    expect((await api.get('/-/health')).status).toBe(200);
  });

  it('bulk moves race single moves and each other: at most one move per project, every repository intact', async () => {
    const ps = [await project(), await project(), await project(), await project()];
    const answers = await held(() =>
      Promise.all([
        api.post('/api/v4/project_repository_storage_moves', {
          token: s.rootToken,
          body: { source_storage_name: 'default', destination_storage_name: 'fast' },
        }),
        ...ps.flatMap((p) =>
          Array.from({ length: 5 }, () =>
            api.post(`/api/v4/projects/${p.id}/repository_storage_moves`, {
              token: s.rootToken,
              body: { destination_storage_name: 'slow' },
            }),
          ),
        ),
        api.post('/api/v4/project_repository_storage_moves', {
          token: s.rootToken,
          body: { source_storage_name: 'default' },
        }),
      ]),
    );
    const bulk = [answers[0]!, answers[answers.length - 1]!];
    for (const b of bulk) expect(b).toMatchObject({ status: 202, body: { message: '202 Accepted' } });
    for (const a of answers.slice(1, -1)) {
      if (a.status === 201) continue;
      expect(a).toMatchObject({ status: 400, body: { message: { project: ['is read-only'] } } });
    }
    for (const p of ps) {
      const moves = await movesOf('projects', p.id);
      expect(moves, `project ${p.id}`).toHaveLength(1);
      expect(moves[0]!.state).toBe('finished');
      expect(await intact(p)).toBe(moves[0]!.destination_storage_name);
    }
  });

  it('20 concurrent moves of one snippet: one move, the others a clear 400', async () => {
    const sn = await api.post('/api/v4/snippets', {
      token: s.rootToken,
      body: { title: 't', file_name: 'a.txt', content: 'snippet body', visibility: 'private' },
    });
    expect(sn.status).toBe(201);
    const answers = await held(() =>
      Promise.all(
        Array.from({ length: 20 }, () =>
          api.post(`/api/v4/snippets/${sn.body.id}/repository_storage_moves`, {
            token: s.rootToken,
            body: {},
          }),
        ),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201))
      expect(a).toMatchObject({ status: 400, body: { message: { snippet: ['is read-only'] } } });
    const moves = await movesOf('snippets', sn.body.id);
    expect(moves).toHaveLength(1);
    expect(moves[0]!.state).toBe('finished');
    const raw = await api.get(`/api/v4/snippets/${sn.body.id}/raw`, { token: s.rootToken });
    expect(raw).toMatchObject({ status: 200, body: 'snippet body' });
    expect((await api.get('/-/health')).status).toBe(200);
  });

  it('20 concurrent moves of one group wiki: one move, the others a clear 400', async () => {
    const g = await api.post('/api/v4/groups', {
      token: s.rootToken,
      body: { name: 'race-g', path: 'race-g' },
    });
    expect(g.status).toBe(201);
    const answers = await held(() =>
      Promise.all(
        Array.from({ length: 20 }, () =>
          api.post(`/api/v4/groups/${g.body.id}/repository_storage_moves`, { token: s.rootToken, body: {} }),
        ),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201))
      expect(a).toMatchObject({ status: 400, body: { message: { group: ['is read-only'] } } });
    const moves = await movesOf('groups', g.body.id);
    expect(moves).toHaveLength(1);
    expect(moves[0]!.state).toBe('finished');
    const rel = relativePath('group', g.body.id);
    const on = STORAGES.filter((name) => existsSync(join(root, name, rel)));
    expect(on).toEqual([moves[0]!.destination_storage_name]);
  });

  it('refuses hostile move requests clearly and stores nothing', async () => {
    const p = await project();
    const cases: [unknown, number, unknown][] = [
      [
        { destination_storage_name: 'nope' },
        400,
        { error: expect.stringMatching(/destination_storage_name/) },
      ],
      [
        { destination_storage_name: 'default' },
        400,
        { message: expect.stringMatching(/already on storage/) },
      ],
      [{ destination_storage_name: ['fast'] }, 400, { error: expect.any(String) }],
      [{ destination_storage_name: '../../etc' }, 400, { error: expect.any(String) }],
    ];
    for (const [body, status, shape] of cases) {
      const r = await api.post(`/api/v4/projects/${p.id}/repository_storage_moves`, {
        token: s.rootToken,
        body,
      });
      expect(r, JSON.stringify(body)).toMatchObject({ status, body: shape });
    }
    expect(
      await api.post(`/api/v4/projects/${p.id}/repository_storage_moves`, {
        raw: '{"destination_storage_name":',
        headers: { 'content-type': 'application/json' },
        token: s.rootToken,
      }),
    ).toMatchObject({ status: 400 });
    expect(
      await api.post('/api/v4/projects/999999/repository_storage_moves', { token: s.rootToken, body: {} }),
    ).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await api.post(`/api/v4/projects/${p.id}/repository_storage_moves`, { body: {} })).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized' },
    });
    expect(await movesOf('projects', p.id)).toEqual([]);
    await intact(p);
    expect((await api.get('/-/health')).status).toBe(200);
  });
});

/**
 * Concurrent merge request creation for one branch pair. The database allows one open
 * request per project, source and target branch; the others get GitLab's 409 naming the open one.
 */
describe.each(await databases())('concurrent merge request creation (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let p: { id: number; http_url_to_repo: string };
  let work: string;

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    p = (await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'mr-race' } })).body;
    const first = await pushCommit(authUrl(p.http_url_to_repo, 'root', s.rootToken));
    expect(first.push.code).toBe(0);
    work = first.dir;
  });
  afterAll(async () => {
    await s?.stop();
  });

  const branch = async (name: string) => {
    const ident = ['-c', 'user.name=T', '-c', 'user.email=t@x'];
    expect((await git(['checkout', '--quiet', '-B', name, 'main'], work)).code).toBe(0);
    expect((await git([...ident, 'commit', '--quiet', '--allow-empty', '-m', name], work)).code).toBe(0);
    expect((await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${name}`], work)).code).toBe(0);
  };
  const path = () => `/api/v4/projects/${p.id}/merge_requests`;
  const openFor = async (source: string) =>
    (await api.get(`${path()}?state=opened&source_branch=${source}&per_page=100`, { token: s.rootToken }))
      .body as { iid: number }[];

  it('20 concurrent creations for one branch pair, 5 rounds: one 201 each, 19 clear 409s, no iid spent', async () => {
    const winners: number[] = [];
    for (let round = 0; round < 5; round++) {
      const source = `feature-${round}`;
      await branch(source);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api.post(path(), {
            token: s.rootToken,
            body: { source_branch: source, target_branch: 'main', title: `race ${round}.${i}` },
          }),
        ),
      );
      const created = answers.filter((a) => a.status === 201);
      expect(created, `round ${round}`).toHaveLength(1);
      const iid = created[0]!.body.iid as number;
      winners.push(iid);
      for (const a of answers.filter((x) => x.status !== 201))
        expect(a).toMatchObject({
          status: 409,
          body: { message: `Another open merge request already exists for this source branch: !${iid}` },
        });
      expect((await openFor(source)).map((m) => m.iid)).toEqual([iid]);
    }
    // The losers rolled back their iid: the winners are numbered 1..5.
    expect(winners).toEqual([1, 2, 3, 4, 5]);
    expect((await api.get('/-/health')).status).toBe(200);
  });

  it('reopening or retargeting onto a pair that has an open request is a 409, also when racing', async () => {
    await branch('topic');
    const a = await api.post(path(), {
      token: s.rootToken,
      body: { source_branch: 'topic', target_branch: 'main', title: 'a' },
    });
    expect(a.status).toBe(201);
    expect(
      (await api.put(`${path()}/${a.body.iid}`, { token: s.rootToken, body: { state_event: 'close' } }))
        .status,
    ).toBe(200);
    const b = await api.post(path(), {
      token: s.rootToken,
      body: { source_branch: 'topic', target_branch: 'main', title: 'b' },
    });
    expect(b.status).toBe(201);
    expect(
      await api.put(`${path()}/${a.body.iid}`, { token: s.rootToken, body: { state_event: 'reopen' } }),
    ).toMatchObject({
      status: 409,
      body: { message: `Another open merge request already exists for this source branch: !${b.body.iid}` },
    });
    // Two closed requests of one pair reopened at once: exactly one is open afterwards.
    expect(
      (await api.put(`${path()}/${b.body.iid}`, { token: s.rootToken, body: { state_event: 'close' } }))
        .status,
    ).toBe(200);
    const reopen = await Promise.all(
      [a.body.iid, b.body.iid, a.body.iid, b.body.iid].map((iid) =>
        api.put(`${path()}/${iid}`, { token: s.rootToken, body: { state_event: 'reopen' } }),
      ),
    );
    for (const r of reopen) expect([200, 409]).toContain(r.status);
    expect(await openFor('topic')).toHaveLength(1);
    // Retargeting another request onto the open pair is refused too.
    await branch('other');
    const c = await api.post(path(), {
      token: s.rootToken,
      body: { source_branch: 'topic', target_branch: 'other', title: 'c' },
    });
    expect(c.status).toBe(201);
    expect(
      await api.put(`${path()}/${c.body.iid}`, { token: s.rootToken, body: { target_branch: 'main' } }),
    ).toMatchObject({ status: 409, body: { message: expect.stringMatching(/^Another open merge request/) } });
    expect(await openFor('topic')).toHaveLength(2);
    expect((await api.get('/-/health')).status).toBe(200);
  });
});

/**
 * Secrets at rest: runner registration tokens are only checked, so only their SHA-256 digest is stored;
 * audit streaming verification tokens are shown again by the destinations API, so they are encrypted at rest.
 * Neither is anywhere in the database in plain text.
 */
describe.each(await databases())('secrets at rest (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;

  beforeAll(async () => {
    // 16.11: registration tokens still register runners, so the stored digest is shown to work.
    s = await startTestServer({ database, env: { SVC_RELEASE: '16.11' } });
    api = http(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** Every text value of every row of a table. */
  const dump = async (table: 'runner_registration_tokens' | 'audit_event_destinations') =>
    JSON.stringify(await s.server.ctx.db.kysely.selectFrom(table).selectAll().execute());

  it('stores runner registration tokens as digests; the token still registers, a wrong one is refused', async () => {
    const group = await api.post('/api/v4/groups', { token: s.rootToken, body: { name: 'g', path: 'g' } });
    const project = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'secrets' } });
    const resets = await Promise.all(
      [
        '/api/v4/runners/reset_registration_token',
        `/api/v4/projects/${project.body.id}/runners/reset_registration_token`,
        `/api/v4/groups/${group.body.id}/runners/reset_registration_token`,
      ].map((path) => api.post(path, { token: s.rootToken })),
    );
    const tokens = resets.map((r) => {
      expect(r.status).toBe(201);
      return r.body.token as string;
    });
    const stored = await dump('runner_registration_tokens');
    for (const t of tokens) {
      expect(stored).not.toContain(t);
      expect(stored).toContain(createHash('sha256').update(t).digest('hex'));
    }
    for (const [i, t] of tokens.entries()) {
      const r = await api.post('/api/v4/runners', { body: { token: t, description: `r${i}` } });
      expect(r.status).toBe(201);
      expect(r.body.token).toMatch(/^glrt-/);
    }
    // The digest itself is not a token, nor is a near miss.
    const digestOfFirst = createHash('sha256').update(tokens[0]!).digest('hex');
    for (const bad of [digestOfFirst, `${tokens[0]}x`, tokens[0]!.slice(0, -1), '', 'x'.repeat(10_000)])
      expect(await api.post('/api/v4/runners', { body: { token: bad } })).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden - invalid token supplied' },
      });
    expect((await api.get('/-/health')).status).toBe(200);
  });

  it('encrypts audit streaming verification tokens; the API shows them again', async () => {
    const d = await api.post('/api/v4/admin/audit_events/streaming/destinations', {
      token: s.rootToken,
      body: { destination_url: 'https://audit.example.com/ingest' },
    });
    expect(d.status).toBe(201);
    const token = d.body.verification_token as string;
    expect(token).toMatch(/^[0-9a-f]{24}$/);
    const stored = await dump('audit_event_destinations');
    expect(stored).not.toContain(token);
    expect(stored).toMatch(/"verification_token":"v1:/);
    const list = await api.get('/api/v4/admin/audit_events/streaming/destinations', { token: s.rootToken });
    expect(list.body).toEqual([expect.objectContaining({ id: d.body.id, verification_token: token })]);
  });
});
