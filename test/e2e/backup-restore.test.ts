import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { start } from '../../src/server.js';
import { createIntegration, notify } from '../helpers/alerts.js';
import { createPostgresDatabase, postgresAvailable } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { svc } from '../helpers/svc.js';
import { until } from '../helpers/until.js';

const TOKEN = 'svcpat-backup-test-root-token-01';
const run = promisify(execFile);

/** Starts svc in this process on a given environment, on an ephemeral port. */
async function serve(env: Record<string, string>) {
  const config = loadConfig({
    SVC_PORT: '0',
    SVC_LOG_LEVEL: 'silent',
    SVC_OFFERING: 'hosted',
    SVC_TIER: 'premium',
    ...env,
  });
  const server = await start(config, { log: false, print: () => undefined });
  return { server, url: server.address, api: http(server.address) };
}

/**
 * A copy of a .tar.gz with one byte of its compressed stream flipped. Not every flip changes what the stream
 * decodes to (about 1 archive in 100 has a harmless byte in the middle, for example in the code lengths of
 * unused Huffman symbols), so the first position from the middle on that really breaks it is taken.
 */
function brokenStream(archive: Buffer): Buffer {
  const original = gunzipSync(archive);
  for (let at = Math.floor(archive.length / 2); at < archive.length - 8; at++) {
    const copy = Buffer.from(archive);
    copy[at]! ^= 0xff;
    try {
      if (!gunzipSync(copy).equals(original)) return copy;
    } catch {
      return copy;
    }
  }
  throw new Error('no byte of the archive changes its content');
}

/** A well-formed .tar.gz like `archive` with one byte of the member `name`'s content changed. */
function tamperedMember(archive: Buffer, name: string): Buffer {
  const tar = gunzipSync(archive);
  for (let header = 0; header + 512 <= tar.length; header += 512) {
    const field = tar.subarray(header, header + 100);
    if (field.subarray(0, field.indexOf(0)).toString() !== name) continue;
    tar[header + 512]! ^= 0xff; // the first byte of its content, which follows its 512-byte header
    return gzipSync(tar);
  }
  throw new Error(`${name} is not in the archive`);
}

const target = (await postgresAvailable()) ? 'PostgreSQL' : 'SQLite';

describe(`backup on SQLite, restore into a fresh instance on ${target} with another storage layout`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-backup-'));
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const d of drops) await d();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reproduces users, projects, groups, snippets, repositories, alerts and errors, and refuses a damaged archive', async () => {
    const envA = {
      SVC_DATA_DIR: join(dir, 'a'),
      SVC_STORAGES: `default=${dir}/a-repos`,
      SVC_ROOT_PASSWORD: 'backup-password-1',
      SVC_ROOT_TOKEN: TOKEN,
    };
    const a = await serve(envA);
    const group = await a.api.post('/api/v4/groups', { token: TOKEN, body: { name: 'Team', path: 'team' } });
    const project = await a.api.post('/api/v4/projects', {
      token: TOKEN,
      body: { name: 'App', namespace_id: group.body.id, visibility: 'private' },
    });
    const pushed = await pushCommit(
      authUrl(project.body.http_url_to_repo, 'root', TOKEN),
      'main.txt',
      'version one\n',
    );
    expect(pushed.push.code).toBe(0);
    const snippet = await a.api.post('/api/v4/snippets', {
      token: TOKEN,
      body: { title: 'Notes', content: 'remember this', file_name: 'notes.md' },
    });
    const integration = await createIntegration(a.api, TOKEN, project.body.id, {
      name: 'HTTP',
      type: 'http',
    });
    expect(
      (
        await notify(integration.url, integration.authorization_key, {
          title: 'Disk full',
          fingerprint: 'disk',
        })
      ).status,
    ).toBe(200);
    await a.api.put(`/api/v4/projects/${project.body.id}/error_tracking/settings`, {
      token: TOKEN,
      body: { active: true, integrated: true },
    });
    const [key] = (
      await a.api.get(`/api/v4/projects/${project.body.id}/error_tracking/client_keys`, { token: TOKEN })
    ).body;
    const event = {
      event_id: 'd'.repeat(32),
      platform: 'node',
      user: { id: 'u1' },
      exception: { values: [{ type: 'TypeError', value: 'boom' }] },
    };
    const store = await fetch(
      `${a.url}/api/v4/error_tracking/collector/api/${project.body.id}/store/?sentry_key=${key.public_key}`,
      {
        method: 'POST',
        body: gzipSync(JSON.stringify(event)),
        headers: { 'content-encoding': 'gzip' },
      },
    );
    expect(store.status).toBe(200);
    // The event's attachment (binary), a user's report and a dropped span: kept in the database, so restored.
    const attachment = Buffer.from([0, 1, 2, 250, 255, 10, 13]);
    const envelope = Buffer.concat([
      Buffer.from(
        `${JSON.stringify({ event_id: 'd'.repeat(32) })}\n${JSON.stringify({ type: 'attachment', length: attachment.length, filename: 'dump.bin' })}\n`,
      ),
      attachment,
      Buffer.from(
        `\n${JSON.stringify({ type: 'user_report' })}\n${JSON.stringify({ event_id: 'd'.repeat(32), name: 'U', email: 'u@example.com', comments: 'it broke' })}\n${JSON.stringify({ type: 'span' })}\n{}`,
      ),
    ]);
    const sent = await fetch(
      `${a.url}/api/v4/error_tracking/collector/api/${project.body.id}/envelope/?sentry_key=${key.public_key}`,
      { method: 'POST', body: envelope },
    );
    expect(sent.status).toBe(200);
    const schedules = `/api/v4/projects/${project.body.id}/incident_management/oncall_schedules`;
    const schedule = await a.api.post(schedules, {
      token: TOKEN,
      body: { name: 'Primary', timezone: 'Europe/Berlin' },
    });
    const rotation = await a.api.post(`${schedules}/${schedule.body.iid}/rotations`, {
      token: TOKEN,
      body: {
        name: 'Daily',
        starts_at: '2026-03-27T09:00',
        length: 1,
        length_unit: 'days',
        participants: [{ username: 'root' }],
      },
    });
    expect(rotation.status).toBe(201);
    const scheduleBefore = (await a.api.get(`${schedules}/${schedule.body.iid}`, { token: TOKEN })).body;
    // An incident worked in: assignee, labels, a comment, a tagged timeline event.
    const issues = `/api/v4/projects/${project.body.id}/issues`;
    const incident = await a.api.post(issues, {
      token: TOKEN,
      body: {
        title: 'Outage',
        issue_type: 'incident',
        severity: 'HIGH',
        assignee_ids: [1],
        labels: 'db,sev 1',
      },
    });
    expect(incident.status).toBe(201);
    await a.api.post(`${issues}/${incident.body.iid}/notes`, { token: TOKEN, body: { body: 'on it' } });
    const tagged = await a.api.post(`${issues}/${incident.body.iid}/timeline_events`, {
      token: TOKEN,
      body: {
        note: 'Failover',
        occurred_at: '2026-03-27T09:00:00Z',
        timeline_event_tag_names: ['Start time'],
      },
    });
    expect(tagged.status).toBe(201);
    const incidentBefore = (await a.api.get(`${issues}/${incident.body.iid}`, { token: TOKEN })).body;
    const timelineBefore = (
      await a.api.get(`${issues}/${incident.body.iid}/timeline_events`, { token: TOKEN })
    ).body;
    // Secrets encrypted with the instance key: a hook's secret token and an external Sentry's token.
    expect(
      (
        await a.api.put('/api/v4/application/settings', {
          token: TOKEN,
          body: { allow_local_requests_from_web_hooks_and_services: true },
        })
      ).status,
    ).toBe(200);
    const hook = await a.api.post(`/api/v4/projects/${project.body.id}/hooks`, {
      token: TOKEN,
      body: { url: 'http://127.0.0.1:9/hook', token: 'hook-secret', alert_events: true },
    });
    expect(hook.status).toBe(201);
    const external = await a.api.post('/api/v4/projects', { token: TOKEN, body: { name: 'External' } });
    const sentry = await a.api.put(`/api/v4/projects/${external.body.id}/error_tracking/settings`, {
      token: TOKEN,
      body: {
        active: true,
        integrated: false,
        api_host: 'http://127.0.0.1:9',
        token: 'sentry-token',
        project: { slug: 'p', name: 'P', organization_slug: 'o', organization_name: 'O' },
      },
    });
    expect(sentry.status).toBe(200);
    // On-call and alert tables added after the first backups: an override, a silence, a maintenance window, a
    // Slack integration (its webhook encrypted with the instance key), and a heartbeat called once (its deadline
    // a row; the job that waits for it is not in the archive).
    const hour = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();
    const override = await a.api.post(`${schedules}/${schedule.body.iid}/overrides`, {
      token: TOKEN,
      body: { username: 'root', starts_at: hour(3), ends_at: hour(5) },
    });
    expect(override.status, JSON.stringify(override.body)).toBe(201);
    const silencesUrl = `/api/v4/projects/${project.body.id}/alert_management/silences`;
    const silence = await a.api.post(silencesUrl, {
      token: TOKEN,
      body: { matchers: [{ name: 'alertname', value: 'DiskFull' }], ends_at: hour(2), comment: 'db-1' },
    });
    expect(silence.status, JSON.stringify(silence.body)).toBe(201);
    const windowsUrl = `/api/v4/projects/${project.body.id}/alert_management/maintenance_windows`;
    const window = await a.api.post(windowsUrl, {
      token: TOKEN,
      body: { starts_at: hour(1), ends_at: hour(2), comment: 'upgrade' },
    });
    expect(window.status, JSON.stringify(window.body)).toBe(201);
    const slackUrl = `/api/v4/projects/${project.body.id}/integrations/slack`;
    const slack = await a.api.put(slackUrl, {
      token: TOKEN,
      body: { webhook: 'http://127.0.0.1:9/slack', alert_events: true },
    });
    expect(slack.status, JSON.stringify(slack.body)).toBe(200);
    const heartbeat = await createIntegration(a.api, TOKEN, project.body.id, {
      name: 'Nightly job',
      type: 'heartbeat',
      heartbeat: { interval_seconds: 10, grace_seconds: 0 },
    });
    const beat = await fetch(heartbeat.url, {
      headers: { authorization: `Bearer ${heartbeat.authorization_key}` },
    });
    expect(beat.status).toBe(200);
    const onCallBefore = (await a.api.get(`${schedules}/${schedule.body.iid}/overrides`, { token: TOKEN }))
      .body;
    const silencesBefore = (await a.api.get(silencesUrl, { token: TOKEN })).body;
    const windowsBefore = (await a.api.get(windowsUrl, { token: TOKEN })).body;
    const slackBefore = (await a.api.get(slackUrl, { token: TOKEN })).body;
    await a.server.close();

    const archive = join(dir, 'backup.tar.gz');
    const created = await svc(['backup', 'create', '--output', archive], envA, 120_000);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/wrote .*backup\.tar\.gz: \d+ rows, 4 repositories/);
    // The key that decrypts the archive's secrets is not in it: it is written beside it, owner-only.
    const keyFile = `${archive}.secret.key`;
    expect(created.stdout).toContain(`wrote the secret key to ${keyFile} (mode 0600)`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toBe(readFileSync(join(envA.SVC_DATA_DIR, 'secret.key'), 'utf8'));
    expect((await run('tar', ['-tzf', archive])).stdout).not.toContain('secret.key');
    const keyless = join(dir, 'keyless.tar.gz');
    const noKey = await svc(['backup', 'create', '--output', keyless, '--no-key'], envA, 120_000);
    expect(noKey.code, noKey.stderr).toBe(0);
    expect(noKey.stdout).toMatch(/secret key was not written \(--no-key\)/);
    expect(existsSync(`${keyless}.secret.key`)).toBe(false);

    // Damaged copies are refused and change nothing: one whose compressed stream is broken (gzip's own check
    // catches it), and one that is well-formed gzip but has one byte of a repository bundle changed (only the
    // manifest's checksums can catch that).
    const bytes = readFileSync(archive);
    const damaged = join(dir, 'damaged.tar.gz');
    writeFileSync(damaged, brokenStream(bytes));
    const tampered = join(dir, 'tampered.tar.gz');
    writeFileSync(tampered, tamperedMember(bytes, './repos/project-1.bundle'));
    const envB: Record<string, string> = {
      SVC_DATA_DIR: join(dir, 'b'),
      SVC_STORAGES: `other=${dir}/b-repos`,
    };
    if (target === 'PostgreSQL') {
      const pg = await createPostgresDatabase();
      drops.push(pg.drop);
      envB.SVC_DATABASE_URL = pg.url;
    }
    const refused = await svc(['backup', 'restore', damaged], envB, 120_000);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/restore failed, nothing was changed: the archive cannot be read/);
    const mismatch = await svc(['backup', 'restore', tampered], envB, 120_000);
    expect(mismatch.code, mismatch.stderr).toBe(1);
    expect(mismatch.stderr).toMatch(
      /restore failed, nothing was changed: the archive is damaged: repos\/project-1\.bundle does not match its checksum/,
    );

    const restored = await svc(['backup', 'restore', archive, '--secret-key', keyFile], envB, 120_000);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/restored \d+ rows and 4 repositories \(checksums verified\)/);
    expect(restored.stdout).not.toMatch(/could not be restored/);
    // Restoring twice is refused: the instance is no longer empty.
    expect((await svc(['backup', 'restore', archive], envB, 120_000)).stderr).toMatch(
      /needs an empty instance/,
    );

    const b = await serve(envB);
    try {
      const me = await b.api.get('/api/v4/user', { token: TOKEN });
      expect(me.body.username).toBe('root');
      const p = await b.api.get('/api/v4/projects/team%2Fapp', { token: TOKEN });
      expect(p.body).toMatchObject({ id: project.body.id, repository_storage: 'other' });
      const clone = mkdtempSync(join(dir, 'clone-'));
      expect(
        (await git(['clone', '--quiet', authUrl(p.body.http_url_to_repo, 'root', TOKEN), 'c'], clone)).code,
      ).toBe(0);
      expect(readFileSync(join(clone, 'c', 'main.txt'), 'utf8')).toBe('version one\n');
      const s = await b.api.get(`/api/v4/snippets/${snippet.body.id}/raw`, { token: TOKEN });
      expect(s.body).toBe('remember this');
      const alerts = await b.api.get(`/api/v4/projects/${project.body.id}/alert_management/alerts`, {
        token: TOKEN,
      });
      // (The heartbeat's alert may already be there too: see below.)
      expect(
        alerts.body.map((x: { title: string }) => x.title).filter((t: string) => !t.startsWith('Heartbeat')),
      ).toEqual(['Disk full']);
      // The integration key survived (encrypted with the restored secret key): notify still works and counts.
      const again = await notify(integration.url.replace(a.url, b.url), integration.authorization_key, {
        title: 'Disk full',
        fingerprint: 'disk',
      });
      expect(again.body).toEqual([{ iid: 1, title: 'Disk full' }]);
      const errors = await b.api.get(`/api/v4/projects/${project.body.id}/error_tracking/errors`, {
        token: TOKEN,
      });
      expect(errors.body).toEqual([expect.objectContaining({ type: 'TypeError', count: 1, user_count: 1 })]);
      const et = `/api/v4/projects/${project.body.id}/error_tracking`;
      const event = `${et}/errors/${errors.body[0].id}/events/${'d'.repeat(32)}`;
      const [restored] = (await b.api.get(`${event}/attachments`, { token: TOKEN })).body;
      expect(restored).toMatchObject({ filename: 'dump.bin', size: 7 });
      const bytes = await fetch(`${b.url}${event}/attachments/${restored.id}`, {
        headers: { 'PRIVATE-TOKEN': TOKEN },
      });
      expect(Buffer.from(await bytes.arrayBuffer())).toEqual(Buffer.from([0, 1, 2, 250, 255, 10, 13]));
      expect((await b.api.get(`${et}/feedback`, { token: TOKEN })).body).toEqual([
        expect.objectContaining({ comments: 'it broke', event_id: 'd'.repeat(32) }),
      ]);
      expect((await b.api.get(`${et}/settings`, { token: TOKEN })).body.dropped_items).toEqual({ span: 1 });
      // On-call schedules with their rotations and participants; the next schedule takes the next iid.
      // (Users' web_url names the new instance's address.)
      const scheduleAfter = (await b.api.get(`${schedules}/${schedule.body.iid}`, { token: TOKEN })).body;
      const incidentAfter = (await b.api.get(`${issues}/${incident.body.iid}`, { token: TOKEN })).body;
      expect(JSON.stringify(incidentAfter)).toBe(JSON.stringify(incidentBefore).replaceAll(a.url, b.url));
      const timelineAfter = (
        await b.api.get(`${issues}/${incident.body.iid}/timeline_events`, { token: TOKEN })
      ).body;
      expect(JSON.stringify(timelineAfter)).toBe(JSON.stringify(timelineBefore).replaceAll(a.url, b.url));
      expect(JSON.stringify(scheduleAfter)).toBe(JSON.stringify(scheduleBefore).replaceAll(a.url, b.url));
      const onCall = await b.api.get(`${schedules}/${schedule.body.iid}/on_call?at=2026-03-29T07:30:00Z`, {
        token: TOKEN,
      });
      expect(onCall.body.map((u: { username: string }) => u.username)).toEqual(['root']);
      const second = await b.api.post(schedules, { token: TOKEN, body: { name: 'Second', timezone: 'UTC' } });
      expect(second.body.iid).toBe(schedule.body.iid + 1);
      const same = (before: unknown, path: string) =>
        b.api
          .get(path, { token: TOKEN })
          .then((r) => expect(JSON.stringify(r.body)).toBe(JSON.stringify(before).replaceAll(a.url, b.url)));
      await same(onCallBefore, `${schedules}/${schedule.body.iid}/overrides`);
      await same(silencesBefore, silencesUrl);
      await same(windowsBefore, windowsUrl);
      await same(slackBefore, slackUrl);
      // The heartbeat's deadline (ten seconds after its call, long passed) gets its job again on the restored
      // instance: the missed heartbeat opens its alert there.
      const alertsUrl = `/api/v4/projects/${project.body.id}/alert_management/alerts`;
      await until(
        async () =>
          ((await b.api.get(alertsUrl, { token: TOKEN })).body as { title: string }[]).some(
            (x) => x.title === 'Heartbeat missed: Nightly job',
          ) || null,
        'the restored heartbeat to miss its deadline',
        30_000,
        200,
      );
      // New rows get new ids after the restored ones (sequences moved on).
      const next = await b.api.post('/api/v4/projects', { token: TOKEN, body: { name: 'After restore' } });
      expect(next.status).toBe(201);
      expect(next.body.id).toBeGreaterThan(project.body.id);
    } finally {
      await b.server.close();
    }

    // Without the key everything else is restored; each kind of secret it cannot decrypt is named once, and the
    // instance answers cleanly where those secrets are read.
    const envC: Record<string, string> = {
      SVC_DATA_DIR: join(dir, 'c'),
      SVC_STORAGES: `default=${dir}/c-repos`,
    };
    const wrongKey = join(dir, 'wrong.secret.key');
    writeFileSync(wrongKey, `${randomBytes(32).toString('base64')}\n`);
    const wrong = await svc(['backup', 'restore', archive, '--secret-key', wrongKey], envC, 120_000);
    expect(wrong.code, wrong.stderr).toBe(1);
    expect(wrong.stderr).toMatch(/nothing was changed: the secret key .* does not decrypt the archive's/);
    const blind = await svc(['backup', 'restore', archive], envC, 120_000);
    expect(blind.code, blind.stderr).toBe(0);
    expect(blind.stdout).toMatch(/restored \d+ rows and 4 repositories/);
    expect(blind.stdout).toMatch(/1 hook secret token could not be restored without the backup's secret key/);
    expect(blind.stdout).toMatch(
      /2 alert integration keys could not be restored without the backup's secret key/,
    );
    expect(blind.stdout).toMatch(/1 Sentry token could not be restored without the backup's secret key/);
    expect(blind.stdout).toMatch(
      /1 chat webhook URL or bot token could not be restored without the backup's secret key/,
    );
    const c = await serve(envC);
    try {
      const list = await c.api.get(`/api/v4/projects/${project.body.id}/alert_management/integrations`, {
        token: TOKEN,
      });
      expect(list.status).toBe(200);
      const stale = await notify(integration.url.replace(a.url, c.url), integration.authorization_key, {
        title: 'Disk full',
      });
      expect(stale.status).toBe(401);
      const hooks = await c.api.get(`/api/v4/projects/${project.body.id}/hooks`, { token: TOKEN });
      expect(hooks.body).toEqual([
        expect.objectContaining({
          alert_status: 'disabled',
          disabled_reason: expect.stringMatching(/secret token/),
        }),
      ]);
      const errors = await c.api.get(`/api/v4/projects/${external.body.id}/error_tracking/errors`, {
        token: TOKEN,
      });
      expect(errors.status).toBeGreaterThanOrEqual(400);
      expect(errors.status).toBeLessThan(500);
    } finally {
      await c.server.close();
    }
  });
});
