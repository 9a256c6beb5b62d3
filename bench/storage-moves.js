// Storage move benchmark: N repositories of mixed sizes (made with git) moved from one storage to another
// through the API, against `cp -a` of the same directories (the floor), in the same run.
//   npm run build && node bench/storage-moves.js      (BENCH_REPOS=200 by default; SVC_JOB_CONCURRENCY=10)
import { execFile, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { apiClient, peakRssMiB, resetPeakRss, SVC_READY, startChild, stopChild } from './lib.js';

const count = Number(process.env.BENCH_REPOS ?? 200);
const token = 'svcpat-bench-root-token-000000003';
const root = mkdtempSync(join(tmpdir(), 'svc-bench-moves-'));
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@x',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@x',
};
const sh = (cmd, cwd) =>
  execFileSync('sh', ['-c', cmd], { cwd, env: gitEnv, stdio: ['ignore', 'pipe', 'pipe'] });
const du = (dir) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

/** Template repositories: mostly small, some medium, a few large (random data does not compress). */
const sizes = [
  { name: 'small', bytes: 20 * 1024, commits: 20, share: 0.7 },
  { name: 'medium', bytes: 1024 * 1024, commits: 5, share: 0.25 },
  { name: 'large', bytes: 20 * 1024 * 1024, commits: 2, share: 0.05 },
];
const templates = {};
for (const s of sizes) {
  const work = join(root, `tpl-${s.name}`);
  mkdirSync(work);
  sh('git init -q -b main .', work);
  for (let c = 0; c < s.commits; c++) {
    writeFileSync(join(work, `file-${c}.bin`), randomBytes(Math.floor(s.bytes / s.commits)));
    sh(`git add . && git commit -qm c${c}`, work);
  }
  sh(`git clone -q --bare . ${join(root, `tpl-${s.name}.git`)}`, work);
  templates[s.name] = join(root, `tpl-${s.name}.git`);
}

const a = join(root, 'a');
const b = join(root, 'b');
const dataDir = join(root, 'data');
const svc = await startChild(
  'node',
  ['bin/svc.js', 'server'],
  {
    SVC_PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_STORAGES: `default=${a},fast=${b}`,
    SVC_ROOT_PASSWORD: 'bench-password-1',
    SVC_ROOT_TOKEN: token,
    SVC_LOG_LEVEL: 'warn',
  },
  SVC_READY,
);
const base = svc.url;
const api = apiClient(base, token);

try {
  // Projects through the API; their (empty) repositories replaced by copies of the templates.
  for (let i = 0; i < count; i++) {
    const p = await api('POST', '/api/v4/projects', { name: `bench-${i}`, repository_storage: 'default' });
    const r = i / count;
    const kind = r < sizes[0].share ? 'small' : r < sizes[0].share + sizes[1].share ? 'medium' : 'large';
    const h = createHash('sha256').update(String(p.id)).digest('hex');
    const repo = join(a, '@hashed', h.slice(0, 2), h.slice(2, 4), `${h}.git`);
    rmSync(repo, { recursive: true, force: true });
    // Not execFileSync: a blocked event loop keeps a keep-alive socket the server has closed meanwhile, and the
    // next request fails on it ("other side closed").
    await promisify(execFile)('cp', ['-a', templates[kind], repo]);
  }
  const bytes = du(a);
  // The floor: cp -a of the same directories (a fresh target), timed. Both timings start with no dirty pages and
  // end with `sync`, so each pays for writing its own data to disk (without it the floor measured 0.8 to 12 s
  // for the same copy, depending on how much of the previous step's writing was still pending).
  const floorTarget = join(root, 'floor');
  sh('sync');
  const t0 = process.hrtime.bigint();
  sh(`cp -a ${a} ${floorTarget} && sync`);
  const floorSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  rmSync(floorTarget, { recursive: true, force: true });
  sh('sync');

  resetPeakRss(svc.pid);
  const t1 = process.hrtime.bigint();
  await api('POST', '/api/v4/project_repository_storage_moves', {
    source_storage_name: 'default',
    destination_storage_name: 'fast',
  });
  for (;;) {
    const left = await api('GET', '/api/v4/projects?repository_storage=default&per_page=1');
    const moves = await api('GET', '/api/v4/project_repository_storage_moves?per_page=100');
    const active = moves.some((m) => !['finished', 'failed', 'cleanup failed'].includes(m.state));
    if (left.length === 0 && !active) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  sh('sync');
  const moveSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
  const failed = (await api('GET', '/api/v4/project_repository_storage_moves?per_page=100')).filter(
    (m) => m.state !== 'finished',
  ).length;
  const mb = bytes / 1024 / 1024;
  console.log(
    `svc storage move benchmark: ${count} repositories (${sizes.map((s) => `${Math.round(s.share * 100)}% ${s.name}`).join(', ')}), ${mb.toFixed(0)} MB, concurrency ${process.env.SVC_JOB_CONCURRENCY ?? 10}`,
  );
  console.log(
    `floor: cp -a                ${(count / floorSeconds).toFixed(1).padStart(7)} repos/s  ${(mb / floorSeconds).toFixed(1).padStart(7)} MB/s  ${floorSeconds.toFixed(2)} s`,
  );
  console.log(
    `svc: bulk move via the API  ${(count / moveSeconds).toFixed(1).padStart(7)} repos/s  ${(mb / moveSeconds).toFixed(1).padStart(7)} MB/s  ${moveSeconds.toFixed(2)} s  ${(moveSeconds / floorSeconds).toFixed(2)}x cp -a  peak RSS ${peakRssMiB(svc.pid).toFixed(0)} MiB  failed moves ${failed}`,
  );
} finally {
  await stopChild(svc);
  rmSync(root, { recursive: true, force: true });
}
