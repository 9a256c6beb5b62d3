import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import { createBackupService, createContext } from '../../src/context.js';
import { createDb, migrate } from '../../src/db/db.js';
import { createIntegration, notify } from '../helpers/alerts.js';
import { createPostgresDatabase, databases } from '../helpers/databases.js';
import { authUrl, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';

/** A backup service on its own database connection, as the `svc backup` command opens one beside a running server. */
function openBackup(config: Config) {
  const db = createDb(config);
  const ctx = createContext(config, db);
  const service = createBackupService(ctx);
  return { service, db, close: () => db.close() };
}

/** A fresh, empty, migrated instance of the same database kind to restore into. */
async function emptyInstance(database: 'sqlite' | 'postgres', root: string) {
  const pg = database === 'postgres' ? await createPostgresDatabase() : null;
  const config = loadConfig({
    SVC_DATA_DIR: mkdtempSync(join(root, 'restore-')),
    SVC_LOG_LEVEL: 'silent',
    ...(pg && { SVC_DATABASE_URL: pg.url }),
  });
  const opened = openBackup(config);
  await migrate(opened.db);
  return {
    ...opened,
    close: async () => {
      await opened.close();
      await pg?.drop();
    },
  };
}

describe.each(await databases())('backup of a running instance (%s)', (database) => {
  const root = mkdtempSync(join(tmpdir(), 'svc-backup-live-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it(
    'taken under continuous alert, note, event and push writes, restores cleanly',
    { timeout: 240_000 },
    async () => {
      const s = await startTestServer({ database, env: { SVC_OFFERING: 'hosted' } });
      const api = http(s.url);
      const cleanups: (() => Promise<void>)[] = [];
      try {
        const project = await api.post('/api/v4/projects', {
          token: s.rootToken,
          body: { name: 'Live', visibility: 'private' },
        });
        expect(project.status).toBe(201);
        const id = project.body.id as number;
        const integration = await createIntegration(api, s.rootToken, id, { name: 'HTTP', type: 'http' });
        await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
          token: s.rootToken,
          body: { active: true, integrated: true },
        });
        const keys = await api.get(`/api/v4/projects/${id}/error_tracking/client_keys`, {
          token: s.rootToken,
        });
        expect(keys.status).toBe(200);
        const key = keys.body[0];
        const repo = authUrl(project.body.http_url_to_repo, 'root', s.rootToken);
        expect((await pushCommit(repo, 'a.txt', 'first\n')).push.code).toBe(0);

        // Bounded writers: every alert is new (an alert row and its system note in one transaction), every event
        // a new error group (an error row and its event), every third alert is resolved again (another note).
        let writes = 0;
        let stop = false;
        const failures: string[] = [];
        const deadline = Date.now() + 90_000;
        const writer = async (w: number) => {
          for (let i = 0; !stop && i < 500 && Date.now() < deadline; i++) {
            try {
              await write(w, i);
            } catch (err) {
              failures.push(String(err));
              return;
            }
            writes++;
          }
        };
        const write = async (w: number, i: number) => {
          {
            const a = await notify(integration.url, integration.authorization_key, {
              title: `w${w}-${i}`,
              fingerprint: `w${w}-${i}`,
            });
            if (a.status !== 200) failures.push(`alert ${a.status}`);
            if (i % 3 === 0) {
              const r = await notify(integration.url, integration.authorization_key, {
                title: `w${w}-${i}`,
                fingerprint: `w${w}-${i}`,
                end_time: new Date().toISOString(),
              });
              if (r.status !== 200) failures.push(`resolve ${r.status}`);
            }
            const e = await fetch(
              `${s.url}/api/v4/error_tracking/collector/api/${id}/store/?sentry_key=${key.public_key}`,
              {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({
                  platform: 'node',
                  exception: { values: [{ type: `E${w}x${i}`, value: 'boom' }] },
                }),
              },
            );
            await e.arrayBuffer();
            if (e.status !== 200) failures.push(`event ${e.status}`);
          }
        };
        const writers = [0, 1, 2, 3].map(writer);
        const pusher = (async () => {
          for (let i = 0; !stop && i < 30 && Date.now() < deadline; i++) {
            const p = await pushCommit(repo, `p${i}.txt`, `${i}\n`);
            if (p.push.code !== 0) failures.push(`push ${p.push.code}`);
          }
        })();
        try {
          // Let the writers get going, then take backups one after another while they write.
          while (writes < 40 && failures.length === 0 && Date.now() < deadline)
            await new Promise((r) => setImmediate(r));
          const before = writes;
          const backup = openBackup(s.server.ctx.config);
          cleanups.push(backup.close);
          const archives: string[] = [];
          for (let b = 0; b < 3; b++) {
            const archive = join(root, `${database}-${b}.tar.gz`);
            await backup.service.create(archive);
            archives.push(archive);
          }
          expect(writes, 'the writers ran during the backups').toBeGreaterThan(before);
          stop = true;
          await Promise.all([...writers, pusher]);
          expect(failures).toEqual([]);

          for (const archive of archives) {
            const target = await emptyInstance(database, root);
            cleanups.push(target.close);
            const manifest = await target.service.restore(archive, { secretKey: `${archive}.secret.key` });
            expect(manifest.lostSecrets).toEqual([]);
            const k = target.db.kysely;
            const count = async (
              t: 'alerts' | 'alert_notes' | 'error_tracking_errors' | 'error_tracking_events',
            ) =>
              Number(
                (
                  await k
                    .selectFrom(t)
                    .select((eb) => eb.fn.countAll().as('n'))
                    .executeTakeFirstOrThrow()
                ).n,
              );
            expect(await count('alerts')).toBe(manifest.tables.alerts);
            expect(await count('alert_notes')).toBe(manifest.tables.alert_notes);
            expect(await count('error_tracking_events')).toBe(manifest.tables.error_tracking_events);
            expect(manifest.tables.alerts).toBeGreaterThan(0);
            // Each alert has its "logged an alert" note, each error its event: the snapshot is whole.
            const orphans = await k
              .selectFrom('alerts')
              .leftJoin('alert_notes', 'alert_notes.alert_id', 'alerts.id')
              .where('alert_notes.id', 'is', null)
              .select('alerts.id')
              .execute();
            expect(orphans).toEqual([]);
            expect(await count('error_tracking_errors')).toBe(manifest.tables.error_tracking_errors);
            expect(
              manifest.repositories.find((r) => r.kind === 'project' && r.id === id)?.bundle,
            ).toBeTruthy();
          }
        } finally {
          stop = true;
          await Promise.allSettled([...writers, pusher]);
        }
        expect((await fetch(`${s.url}/-/health`)).status).toBe(200);
      } finally {
        for (const c of cleanups.reverse()) await c();
        await s.stop();
      }
    },
  );
});
