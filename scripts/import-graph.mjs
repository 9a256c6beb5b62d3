#!/usr/bin/env node
// Prints the folder-level import graph of src/: the cycles between folders and every import that runs against
// the layering of docs/architecture.md. Exit status 1 when either count is not zero (`--check`).
//
//   node scripts/import-graph.mjs            counts and the list of offending imports
//   node scripts/import-graph.mjs --check    the same, exit 1 on any cycle or violation
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const SRC = join(ROOT, 'src');

/** Folders that are infrastructure or the HTTP/CLI shells, not features. */
const SHELLS = new Set(['api', 'web', 'cli']);
const INFRA = new Set(['db', 'jobs', 'cluster', 'ingest', 'access', 'shared']);

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : walk(path);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The file a relative specifier names (`./x.js` is `./x.ts` in the sources). */
function resolveSpec(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, `${base}.tsx`]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return base;
}

/** The node of the folder graph a file belongs to: its top folder under src, or the file itself at the top. */
function nodeOf(rel) {
  const [first, ...rest] = rel.split('/');
  return rest.length === 0 ? first : first;
}

const files = walk(SRC);
const edges = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    const from = relative(SRC, file);
    if (spec.startsWith('.')) {
      const to = relative(SRC, resolveSpec(file, spec));
      edges.push({ from, to, spec, external: false });
    } else edges.push({ from, to: spec, spec, external: true });
  }
}

// Cycles between folders: strongly connected components of more than one node (Tarjan).
const graph = new Map();
for (const e of edges) {
  if (e.external || e.to.startsWith('..')) continue;
  const a = nodeOf(e.from);
  const b = nodeOf(e.to);
  if (a === b) continue;
  if (!graph.has(a)) graph.set(a, new Set());
  if (!graph.has(b)) graph.set(b, new Set());
  graph.get(a).add(b);
}
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const on = new Set();
const sccs = [];
function strong(v) {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  on.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!idx.has(w)) {
      strong(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const scc = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1) sccs.push(scc.sort());
  }
}
for (const v of graph.keys()) if (!idx.has(v)) strong(v);

// The layering.
const isFeature = (rel) => rel.includes('/') && !SHELLS.has(nodeOf(rel)) && !INFRA.has(nodeOf(rel));
const isTopFile = (rel) => !rel.includes('/');
const COMPOSITION = new Set(['context.ts', 'app.ts', 'server.ts']);
const violations = [];
for (const e of edges) {
  const why = [];
  const { from, to } = e;
  const fromNode = nodeOf(from);
  if (isFeature(from) || INFRA.has(fromNode)) {
    if (e.external && /^fastify$|^@fastify\//.test(to)) why.push('a feature or infrastructure imports Fastify');
    if (!e.external && (nodeOf(to) === 'api' || nodeOf(to) === 'cli' || COMPOSITION.has(to)))
      why.push('a feature or infrastructure imports the HTTP layer, the CLI or the composition root');
  }
  if (!e.external && /\.repository\.ts$/.test(to) && nodeOf(to) !== fromNode && !COMPOSITION.has(from))
    why.push("imports another feature's repository");
  if (!e.external && /\.repository\.ts$/.test(from) && /\.service\.ts$/.test(to)) why.push('a repository imports a service');
  if (fromNode === 'api' && (/\.repository\.ts$/.test(to) || /^db\//.test(to) || to === 'kysely'))
    why.push('the HTTP layer imports a repository or the database');
  if ((INFRA.has(fromNode) || (isTopFile(from) && !COMPOSITION.has(from))) && !e.external && isFeature(to))
    why.push('infrastructure or a shared module imports a feature');
  if (fromNode === 'web' && !e.external && !to.startsWith('web/') && !/^api\/.*entities(\.v\d)?\.ts$|^api\/.*\/entities/.test(to))
    why.push('the UI imports server code other than entity types');
  for (const w of why) violations.push(`${from} -> ${e.spec}: ${w}`);
}

console.log(`folders: ${graph.size}`);
console.log(`cycles between folders: ${sccs.length}${sccs.map((s) => `\n  [${s.length}] ${s.join(' ')}`).join('')}`);
console.log(`imports against the layering: ${violations.length}`);
for (const v of violations) console.log(`  ${v}`);
if (process.argv.includes('--check') && (sccs.length > 0 || violations.length > 0)) process.exit(1);
