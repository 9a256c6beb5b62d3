import { execFile } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import { createBackupService, createContext } from '../../src/context.js';
import { createDb, migrate } from '../../src/db/db.js';
import { type RunningServer, start } from '../../src/server.js';
import { createIntegration, notify } from '../helpers/alerts.js';
import { authUrl, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';

const run = promisify(execFile);
const TOKEN = 'svcpat-file-modes-root-token-0001';

/** Every file and folder under `dir` (itself included) whose mode lets anyone but the owner in. */
function opened(dir: string): string[] {
  const out: string[] = [];
  const visit = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) out.push(`${(st.mode & 0o777).toString(8)} ${p}`);
    if (st.isDirectory()) for (const name of readdirSync(p)) visit(join(p, name));
  };
  visit(dir);
  return out;
}

function backupService(config: Config) {
  const db = createDb(config);
  const ctx = createContext(config, db);
  const service = createBackupService(ctx);
  return { service, db };
}

// The most permissive umask: every mode below must come from svc itself, not from the environment.
describe('files and folders svc writes are owner-only under umask 0000', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-modes-'));
  let previous = 0;
  const env = {
    SVC_DATA_DIR: join(root, 'data'),
    SVC_STORAGES: `default=${root}/data/repositories,other=${root}/other`,
    SVC_ROOT_PASSWORD: 'modes-password-1',
    SVC_ROOT_TOKEN: TOKEN,
    SVC_LOG_LEVEL: 'silent',
    SVC_TIER: 'premium',
  };
  const serve = async (): Promise<{ server: RunningServer; url: string }> => {
    const server = await start(loadConfig({ ...env, SVC_PORT: '0' }), { log: false, print: () => undefined });
    return { server, url: server.address };
  };

  beforeAll(() => {
    previous = process.umask(0o000);
  });
  afterAll(() => {
    process.umask(previous);
    rmSync(root, { recursive: true, force: true });
  });

  it('data directory, SQLite files, secret key, repositories (pushed, moved, snippets), backup archive and its members, restored instance', async () => {
    const { server, url } = await serve();
    const api = http(url);
    try {
      await api.put('/api/v4/application/settings', {
        token: TOKEN,
        body: { repository_storages_weighted: { default: 100, other: 0 } },
      });
      const project = await api.post('/api/v4/projects', {
        token: TOKEN,
        body: { name: 'Modes', visibility: 'private' },
      });
      expect(project.status).toBe(201);
      const repo = authUrl(project.body.http_url_to_repo, 'root', TOKEN);
      expect((await pushCommit(repo, 'a.txt', 'one\n')).push.code).toBe(0);
      const snippet = await api.post('/api/v4/snippets', {
        token: TOKEN,
        body: { title: 'S', content: 'secret content', file_name: 's.md' },
      });
      expect(snippet.status).toBe(201);
      const integration = await createIntegration(api, TOKEN, project.body.id, {
        name: 'HTTP',
        type: 'http',
      });
      expect((await notify(integration.url, integration.authorization_key, { title: 'x' })).status).toBe(200);
      // A storage move mirror-clones the repository onto the other storage.
      const move = await api.post(`/api/v4/projects/${project.body.id}/repository_storage_moves`, {
        token: TOKEN,
        body: { destination_storage_name: 'other' },
      });
      expect(move.status, JSON.stringify(move.body)).toBe(201);
      const deadline = Date.now() + 30_000;
      let state = move.body.state as string;
      while (state !== 'finished' && state !== 'failed' && Date.now() < deadline) {
        await server.ctx.jobs.drain();
        state = (
          await api.get(`/api/v4/projects/${project.body.id}/repository_storage_moves/${move.body.id}`, {
            token: TOKEN,
          })
        ).body.state;
        if (state !== 'finished') await new Promise((r) => setTimeout(r, 50));
      }
      expect(state).toBe('finished');
      expect((await pushCommit(repo, 'b.txt', 'two\n')).push.code).toBe(0);

      const archive = join(root, 'backups', 'nested', 'b.tar.gz');
      const b = backupService(server.ctx.config);
      try {
        await b.service.create(archive);
      } finally {
        await b.db.close();
      }
      expect(lstatSync(archive).mode & 0o777).toBe(0o600);
      const listing = (await run('tar', ['-tvzf', archive])).stdout.split('\n').filter(Boolean);
      // The key is kept apart from the archive, owner-only too.
      expect(listing.some((l) => l.endsWith('secret.key'))).toBe(false);
      expect(lstatSync(`${archive}.secret.key`).mode & 0o777).toBe(0o600);
      expect(listing.filter((l) => !/^[-d]rw[-x]------ /.test(l))).toEqual([]);

      const restoredConfig = loadConfig({
        SVC_DATA_DIR: join(root, 'restored'),
        SVC_STORAGES: `default=${root}/restored-repos`,
        SVC_LOG_LEVEL: 'silent',
      });
      const r = backupService(restoredConfig);
      try {
        await migrate(r.db);
        await r.service.restore(archive, { secretKey: `${archive}.secret.key` });
      } finally {
        await r.db.close();
      }
    } finally {
      await server.close();
    }
    expect(opened(root)).toEqual([]);
  });

  it('makes an existing installation owner-only at start (data directory, its files, storage roots)', async () => {
    const data = join(root, 'data');
    const loosen = (p: string) => {
      const st = lstatSync(p);
      chmodSync(p, st.isDirectory() ? 0o755 : 0o644);
      if (st.isDirectory()) for (const name of readdirSync(p)) loosen(join(p, name));
    };
    loosen(data);
    loosen(join(root, 'other'));
    const { server } = await serve();
    try {
      const mode = (p: string) => (lstatSync(p).mode & 0o777).toString(8);
      expect(mode(data)).toBe('700');
      expect(mode(join(data, 'repositories'))).toBe('700');
      expect(mode(join(root, 'other'))).toBe('700');
      for (const name of readdirSync(data)) {
        if (lstatSync(join(data, name)).isFile())
          expect(`${name} ${mode(join(data, name))}`).toBe(`${name} 600`);
      }
      expect(readdirSync(data)).toEqual(expect.arrayContaining(['secret.key', 'svc.sqlite3']));
    } finally {
      await server.close();
    }
  });
});
