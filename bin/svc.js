#!/usr/bin/env node
// Entry point of the `svc` command: runs the compiled CLI (built by `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/server/cli/main.js', import.meta.url));
if (!existsSync(main)) {
  console.error('svc is not built yet: run `npm run build` (npm start does it for you).');
  process.exit(1);
}
await import(main);
