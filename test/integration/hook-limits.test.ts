import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { allowLocalHooks } from '../helpers/hook-receiver.js';
import { projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(await databases())('project hook limits (%s)', (database) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ database });
    await allowLocalHooks(s);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('at most 100 hooks a project (422 beyond, nothing added); the list is paginated with headers', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'many-hooks', { maintainer: 40 }, 'hooks');
    const token = tokens.maintainer!;
    const base = `/api/v4/projects/${id}/hooks`;
    for (let i = 0; i < 100; i++) {
      const r = await api.post(base, { token, body: { url: `http://127.0.0.1:9/hook/${i}` } });
      expect(r.status).toBe(201);
    }
    const over = await api.post(base, { token, body: { url: 'http://127.0.0.1:9/hook/100' } });
    expect(over.status).toBe(422);
    expect(over.body).toEqual({ message: { base: ['Maximum number of project hooks (100) exceeded'] } });

    const page = await api.get(`${base}?per_page=20&page=2`, { token });
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(20);
    expect(page.body[0].url).toBe('http://127.0.0.1:9/hook/20');
    expect(page.headers.get('x-total')).toBe('100');
    expect(page.headers.get('x-total-pages')).toBe('5');
    expect(page.headers.get('x-next-page')).toBe('3');
    expect(page.headers.get('link')).toContain('rel="next"');
    // The default page is GitLab's 20.
    expect((await api.get(base, { token })).body).toHaveLength(20);

    // Room again after a delete.
    expect((await api.delete(`${base}/${page.body[0].id}`, { token })).status).toBe(204);
    expect((await api.post(base, { token, body: { url: 'http://127.0.0.1:9/hook/again' } })).status).toBe(
      201,
    );
  });
});
