#!/usr/bin/env -S node --max-semi-space-size=8
// Entry point of the `svc` command: runs the compiled CLI (built by `npm run build`).
// svc needs Node 22.16 or later (it uses Node's built-in SQLite). `npm ci` installs Node 24 into
// node_modules (the node-linux-* packages) and npm scripts run on it; started directly by an older Node, this
// file hands over to that Node, or says what to run when there is none.
// `--max-semi-space-size=8` (MiB): V8 otherwise grows the young generation to 128 MiB under load, most of svc's
// resident memory then (docs/benchmarks.md, Memory); with 8 the alert benches stay under 200 MiB at about the same CPU.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 16)) {
  const node = installedNode();
  if (node === null) {
    console.error(
      `svc needs Node 22.16 or later; this is Node ${process.versions.node}. Run \`npm ci\` in ${dirname(dirname(self))} ` +
        'to install Node 24 there (on Linux x64 and arm64), or install Node 24 LTS yourself.',
    );
    process.exit(1);
  }
  const child = spawn(
    node,
    ['--max-semi-space-size=8', ...process.execArgv, self, ...process.argv.slice(2)],
    {
      stdio: 'inherit',
    },
  );
  // A service manager signals this process only: pass SIGTERM on, so the server drains and stops. Ctrl-C
  // reaches the whole process group, the child included, so SIGINT is only kept from ending this process first.
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  process.on('SIGINT', () => undefined);
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
} else {
  const main = fileURLToPath(new URL('../dist/server/cli/main.js', import.meta.url));
  if (!existsSync(main)) {
    console.error('svc is not built yet: run `npm run build` (npm start does it for you).');
    process.exit(1);
  }
  await import(main);
}

/** The Node binary npm installed beside svc (the node-linux-<arch> optional dependency), or null. */
function installedNode() {
  try {
    const pkg = createRequire(self).resolve(`node-${process.platform}-${process.arch}/package.json`);
    const bin = join(dirname(pkg), 'bin', 'node');
    return existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}
