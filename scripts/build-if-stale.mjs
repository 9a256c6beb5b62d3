#!/usr/bin/env node
// Builds svc (`npm run build`) only when the build is missing or older than its sources, so that `npm start`
// after the first one serves in seconds instead of recompiling the server and the UI (a minute on two cores).
//
//   node scripts/build-if-stale.mjs          build if stale (`prestart`, `pretest`)
//   node scripts/build-if-stale.mjs --begin  `prebuild`: forget the stamp, note what this build starts from
//   node scripts/build-if-stale.mjs --end    `postbuild`: the build succeeded; it is the stamp now
//
// The stamp (dist/.build-stamp.json) lists every input file with its size and modification time as they were
// when the build started: a file changed during a build, added or deleted since, makes the build stale. A failed
// build leaves no stamp (`postbuild` does not run), so the next start builds again. `npm run build` itself
// stays unconditional.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the build reads: the sources (server and UI, with the vite config) and what decides how they compile. */
export const INPUTS = ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
/** What the build writes; a missing one means no usable build, whatever the stamp says. */
export const OUTPUTS = ['dist/server/cli/main.js', 'dist/web/index.html'];
export const STAMP = 'dist/.build-stamp.json';
const PENDING = 'dist/.build-stamp.pending.json';

/** Unit tests are not compiled into the build (tsconfig.build.json, vite): editing one needs no rebuild. */
const isBuildInput = (path) => !/\.test\.tsx?$/.test(path);

/** Every input file under `root`, by path relative to it, with `[size, mtimeMs]`. */
export function snapshot(root) {
  const files = {};
  const visit = (abs) => {
    let st;
    try {
      st = statSync(abs);
    } catch {
      return; // an optional input (no package-lock.json) or a file deleted while we look
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(abs).sort()) visit(join(abs, name));
      return;
    }
    const rel = relative(root, abs).split('\\').join('/');
    if (isBuildInput(rel)) files[rel] = [st.size, st.mtimeMs];
  };
  for (const input of INPUTS) visit(join(root, input));
  return files;
}

/** Why the build in `root` is stale, or null when it is up to date. */
export function staleReason(root) {
  for (const out of OUTPUTS) if (!existsSync(join(root, out))) return `${out} is missing`;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, STAMP), 'utf8')).files;
  } catch {
    return `${STAMP} is missing (no build finished since it was introduced, or the last one failed)`;
  }
  const now = snapshot(root);
  const changed = [];
  for (const [path, [size, mtime]] of Object.entries(now)) {
    const then = stamp[path];
    if (!then) changed.push(`${path} added`);
    else if (then[0] !== size || then[1] !== mtime) changed.push(`${path} changed`);
  }
  for (const path of Object.keys(stamp)) if (!(path in now)) changed.push(`${path} deleted`);
  if (changed.length === 0) return null;
  const more = changed.length > 1 ? ` (and ${changed.length - 1} more)` : '';
  return `${changed[0]} since the last build${more}`;
}

/** `prebuild`: the stamp goes (a failed build must not look finished); what the build starts from is noted. */
export function begin(root) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  rmSync(join(root, STAMP), { force: true });
  writeFileSync(join(root, PENDING), JSON.stringify({ files: snapshot(root) }));
}

/** `postbuild`: the build finished, so what it started from is what dist/ is built from. */
export function end(root) {
  if (existsSync(join(root, PENDING))) renameSync(join(root, PENDING), join(root, STAMP));
}

/** Runs `npm run build` in `root` with the npm that runs this script (its `npm_execpath`), or `npm`. */
function build(root) {
  const npmCli = process.env.npm_execpath;
  const [cmd, args] = npmCli ? [process.execPath, [npmCli, 'run', 'build']] : ['npm', ['run', 'build']];
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  return r.status ?? 1;
}

function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const mode = process.argv[2];
  if (mode === '--begin') return begin(root);
  if (mode === '--end') return end(root);
  if (mode !== undefined) {
    console.error(`build-if-stale: unknown option ${mode} (none, --begin or --end)`);
    process.exit(2);
  }
  const reason = staleReason(root);
  if (reason === null) {
    console.log('svc: build is up to date (dist/ matches src/); skipping `npm run build`');
    return;
  }
  console.log(`svc: building (${reason})`);
  const code = build(root);
  if (code !== 0) process.exit(code);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
