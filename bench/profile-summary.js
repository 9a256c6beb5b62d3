// Summarises a V8 CPU profile (from BENCH_PROFILE=<dir> or node --cpu-prof): self time by function and by
// package or source file, and inclusive time of chosen functions.
//   node bench/profile-summary.js <file.cpuprofile> [top=25] [from=<file or function>]
// With `from`, samples before the first one whose stack holds that source file or function are left out
// (startup: module loading and schema compilation), e.g. `from=intake.routes` or `from=collector.routes`.
import { readFileSync } from 'node:fs';

const [file, topArg, fromArg] = process.argv.slice(2);
const top = Number(topArg ?? 25);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// Sample counts per node, weighted by the time delta of each sample.
const from = fromArg?.replace(/^from=/, '');
const stackHas = (id, text) => {
  for (let n = id; n !== undefined; n = parent.get(n)) {
    const cf = byId.get(n).callFrame;
    if (cf.url.includes(text) || cf.functionName === text) return true;
  }
  return false;
};
const firstSample = from
  ? Math.max(
      0,
      prof.samples.findIndex((id) => stackHas(id, from)),
    )
  : 0;
const counted = (i) => i >= firstSample;
const self = new Map();
let total = 0;
prof.samples.forEach((id, i) => {
  if (!counted(i)) return;
  const dt = prof.timeDeltas[i] ?? 0;
  self.set(id, (self.get(id) ?? 0) + dt);
  total += dt;
});
const where = (cf) => {
  const u = cf.url || '';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  if (m) return m[1];
  if (u.includes('/dist/server/')) return `svc:${u.split('/dist/server/')[1]}`;
  if (u.startsWith('node:')) return u;
  return u ? u.split('/').slice(-2).join('/') : `(${cf.functionName || 'native'})`;
};
const fn = new Map();
const pkg = new Map();
for (const [id, t] of self) {
  const cf = byId.get(id).callFrame;
  const k = `${cf.functionName || '(anonymous)'} ${where(cf)}:${cf.lineNumber + 1}`;
  fn.set(k, (fn.get(k) ?? 0) + t);
  const p = where(cf);
  pkg.set(p, (pkg.get(p) ?? 0) + t);
}
const pct = (t) => `${((t / total) * 100).toFixed(1).padStart(5)}%`;
const show = (title, m) => {
  console.log(`\n${title}`);
  for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
show('self time by function', fn);
show('self time by package / file', pkg);
// Inclusive time by package (a sample counts once for each package on its stack).
const incl = new Map();
prof.samples.forEach((id, i) => {
  if (!counted(i)) return;
  const dt = prof.timeDeltas[i] ?? 0;
  const seen = new Set();
  for (let n = id; n !== undefined; n = parent.get(n)) seen.add(where(byId.get(n).callFrame));
  for (const p of seen) incl.set(p, (incl.get(p) ?? 0) + dt);
});
show('inclusive time by package / file', incl);
