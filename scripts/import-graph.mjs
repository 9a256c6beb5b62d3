#!/usr/bin/env node
// Prints the folder-level import graph of src/: the cycles between folders and every import that runs against
// the layering of docs/architecture.md (the rules live in scripts/layering.mjs, which the architecture test
// shares). Exit status 1 when either count is not zero (`--check`).
//
//   node scripts/import-graph.mjs            counts and the list of offending imports
//   node scripts/import-graph.mjs --check    the same, exit 1 on any cycle or violation
import { dirname, join, resolve } from 'node:path';
import { analyze, RULES, readSources } from './layering.mjs';

const SRC = join(resolve(dirname(new URL(import.meta.url).pathname), '..'), 'src');

const { nodes, cycles, violations } = analyze(readSources(SRC));
const imports = violations.filter((v) => v.rule !== 'folder-cycle');

console.log(`folders: ${nodes}`);
console.log(
  `cycles between folders: ${cycles.length}${cycles.map((s) => `\n  [${s.length}] ${s.join(' ')}`).join('')}`,
);
console.log(`imports against the layering: ${imports.length}`);
for (const v of imports) console.log(`  ${v.from} -> ${v.spec}: ${RULES[v.rule]}`);
if (process.argv.includes('--check') && (cycles.length > 0 || imports.length > 0)) process.exit(1);
