// The layering of docs/architecture.md as a function of the sources: the folder-level import graph of src/, its
// cycles, and every import that runs against a rule. Shared by scripts/import-graph.mjs (which prints it) and
// test/architecture.test.ts (which fails on it, and runs it on planted violations so that no rule checks nothing).
// It reads files only in `readSources`; `analyze` works on any list of { path, text }, real or made up.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';

/** Folders that are the HTTP/CLI shells or the UI, not features. */
export const SHELLS = new Set(['api', 'web', 'cli']);
/**
 * Folders that are infrastructure, not features. `versioning` is the release schedule every layer asks
 * (configuration included) and imports nothing else.
 */
export const INFRA = new Set(['db', 'jobs', 'cluster', 'ingest', 'access', 'versioning', 'shared']);
/** The composition root, the context's type and the process entry: they may import anything. */
export const COMPOSITION = new Set(['context.ts', 'app-context.ts', 'app.ts', 'server.ts']);

/** The rules, by id, with the sentence each violation is reported with. */
export const RULES = {
  'feature-imports-http':
    'a feature or infrastructure imports Fastify, the HTTP layer, the CLI or the composition root',
  'foreign-repository': "imports another feature's repository",
  'repository-imports-service': 'a repository imports a service',
  'api-imports-repository': 'the HTTP layer imports a repository or the database',
  'infrastructure-imports-feature': 'infrastructure or a shared module imports a feature',
  'ui-imports-server': 'the UI imports server code other than entity types',
  'ui-copies-entity':
    'the UI declares by hand a type an entity describes, or reads an answer as a type not built from the entities',
  'folder-cycle': 'an import between folders that import each other, directly or through others',
};

/** The sources under `srcDir` (.ts and .tsx, no tests), with paths relative to it and `/` as separator. */
export function readSources(srcDir) {
  const walk = (dir) =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : walk(path);
      return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
    });
  return walk(srcDir).map((path) => ({
    path: relative(srcDir, path).split(sep).join('/'),
    text: readFileSync(path, 'utf8'),
  }));
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The node of the folder graph a file belongs to: its top folder under src, or the file itself at the top. */
export function nodeOf(path) {
  return path.split('/')[0];
}

const isFeature = (path) => path.includes('/') && !SHELLS.has(nodeOf(path)) && !INFRA.has(nodeOf(path));
const isTopFile = (path) => !path.includes('/');
const isEntities = (path) => /^api\/.*\.entities(\.v\d+)?\.ts$/.test(path);

/** Every import of `files`: relative ones resolved to the file they name (`./x.js` is `./x.ts` in the sources). */
export function importsOf(files) {
  const known = new Set(files.map((f) => f.path));
  const resolve = (from, spec) => {
    const base = posix.normalize(posix.join(posix.dirname(from), spec));
    const stem = base.replace(/\.js$/, '');
    const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`];
    // Not among the files (a made-up tree, or a file not written yet): a `.js` specifier still names a `.ts` file.
    return candidates.find((c) => known.has(c)) ?? (base.endsWith('.js') ? `${stem}.ts` : base);
  };
  return files.flatMap((f) =>
    [...f.text.matchAll(IMPORT)].map((m) => {
      const spec = m[1] ?? m[2];
      return spec.startsWith('.')
        ? { from: f.path, to: resolve(f.path, spec), spec, external: false }
        : { from: f.path, to: spec, spec, external: true };
    }),
  );
}

/** Strongly connected components of more than one node (Tarjan), each sorted. */
function cyclesOf(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const sccs = [];
  const strong = (v) => {
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
  };
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return sccs;
}

/** Names an entity gives the UI: `AlertEntity` is `Alert` (and itself); `UserBasic` is itself. */
function entityNames(files) {
  const names = new Set();
  for (const f of files.filter((x) => isEntities(x.path))) {
    for (const m of f.text.matchAll(/^export const (\w+)\s*=/gm)) {
      names.add(m[1]);
      if (m[1].endsWith('Entity') && m[1] !== 'Entity') names.add(m[1].slice(0, -'Entity'.length));
    }
  }
  return names;
}

/**
 * The UI's data hooks and fetch helpers: the type argument of each is what the server answers
 * (src/web/src/use-resource.ts and api.ts), so it must be an entity's type.
 */
export const RESPONSE_HELPERS = [
  'useResource',
  'useLoader',
  'getJson',
  'getJsonWithCsrf',
  'sendJson',
  'postText',
  'getPage',
  'Page',
];

/** Words a response type may be built of besides names that come from the entities. */
const TYPE_WORDS = new Set([
  'string',
  'number',
  'boolean',
  'bigint',
  'null',
  'undefined',
  'unknown',
  'void',
  'never',
  'readonly',
  'typeof',
  'keyof',
  'Static',
  'Array',
  'ReadonlyArray',
  'Readonly',
  'Pick',
  'Omit',
  'Partial',
  'Required',
  'NonNullable',
]);

/** `import type { A, B as C } from '...'` of a file: each local name with the name it has in the module. */
function namedImports(file) {
  const out = [];
  const re = /(?:^|\n)\s*import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g;
  for (const m of file.text.matchAll(re)) {
    for (const part of m[1].split(',')) {
      const words = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/);
      if (words[0]) out.push({ local: (words[1] ?? words[0]).trim(), imported: words[0].trim(), spec: m[2] });
    }
  }
  return out;
}

/** The identifiers of a type expression, string literals and property names after `.` left out. */
const typeWords = (expr) =>
  [...expr.replace(/'[^']*'|"[^"]*"|`[^`]*`/g, "''").matchAll(/(?<![.\w$])[A-Za-z_$][\w$]*/g)].map(
    (m) => m[0],
  );

/** The text between the `<` at `open` and its matching `>` (an arrow's `=>` does not close it), or null. */
function typeArgument(text, open) {
  let depth = 0;
  let braces = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '{') braces++;
    else if (c === '}') braces--;
    else if (c === '<') depth++;
    else if (c === '>' && text[i - 1] !== '=') {
      depth--;
      if (depth === 0) return text.slice(open + 1, i);
    } else if (braces <= 0 && (c === ';' || c === ')')) return null;
  }
  return null;
}

/** The names the type parameters of the file's generic functions and types declare (`T` of `function f<T>`). */
function typeParameters(text) {
  const names = new Set();
  for (const m of text.matchAll(
    /(?:\bfunction\s+[\w$]+|\btype\s+[\w$]+|\binterface\s+[\w$]+|=)\s*<([^<>()=]*(?:<[^<>]*>[^<>()=]*)*)>(?=\s*[(={])/g,
  ))
    for (const p of m[1].split(',')) {
      const name = p.trim().match(/^(?:const\s+)?([A-Za-z_$][\w$]*)/);
      if (name) names.add(name[1]);
    }
  return names;
}

/**
 * Every response type argument of the UI that is not built from the entities: `useResource<Foo[]>` where `Foo` is
 * an interface or an object type declared in the UI. A name comes from the entities when it is imported from an
 * entities file, or is a type alias (in the file or in the UI module it is imported from, `types.ts` foremost) whose
 * right-hand side is built only of such names, `Static<typeof ...>`, primitives and the type operators of
 * `TYPE_WORDS`; an interface or a `{ ... }` object type never is.
 */
function responseTypeViolations(files) {
  const web = files.filter((f) => f.path.startsWith('web/'));
  const byPath = new Map(files.map((f) => [f.path, f]));
  const resolved = new Map(
    importsOf(web)
      .filter((e) => !e.external)
      .map((e) => [`${e.from} ${e.spec}`, e.to]),
  );
  const aliases = new Map(
    web.map((f) => [
      f.path,
      [...f.text.matchAll(/(?:^|\n)\s*(?:export\s+)?type\s+([\w$]+)\s*(?:<[^=]*>)?\s*=\s*([^;]*);/g)].map(
        (m) => ({
          name: m[1],
          rhs: m[2],
        }),
      ),
    ]),
  );
  // Names of each UI file that come from the entities, to a fixed point (files import each other's aliases).
  const derived = new Map(web.map((f) => [f.path, new Set()]));
  const imports = new Map(web.map((f) => [f.path, namedImports(f)]));
  const fromEntities = (path, name) => {
    if (derived.get(path).has(name)) return true;
    const imp = imports.get(path).find((i) => i.local === name);
    if (!imp || !imp.spec.startsWith('.')) return false;
    const to = resolved.get(`${path} ${imp.spec}`);
    if (to === undefined) return false;
    if (isEntities(to)) return true;
    return derived.get(to)?.has(imp.imported) ?? false;
  };
  const builtFromEntities = (path, expr, params = new Set()) =>
    !expr.includes('{') &&
    typeWords(expr).every((w) => TYPE_WORDS.has(w) || params.has(w) || fromEntities(path, w));
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of web) {
      for (const { name, rhs } of aliases.get(f.path)) {
        if (!derived.get(f.path).has(name) && builtFromEntities(f.path, rhs)) {
          derived.get(f.path).add(name);
          changed = true;
        }
      }
    }
  }

  const out = [];
  const call = new RegExp(`(?<![\\w$.])(${RESPONSE_HELPERS.join('|')})\\s*(?=<(?!\\/))`, 'g');
  for (const f of web) {
    if (!byPath.has(f.path)) continue;
    const params = typeParameters(f.text);
    for (const m of f.text.matchAll(call)) {
      const arg = typeArgument(f.text, m.index + m[0].length);
      if (arg === null) continue;
      if (!builtFromEntities(f.path, arg, params))
        out.push({ from: f.path, spec: `${m[1]}<${arg.replace(/\s+/g, ' ').trim()}>` });
    }
  }
  return out;
}

/**
 * The folder graph of `files`, its cycles and the violations of the layering. A violation is
 * { rule, from, spec, key }: `key` (`from -> spec`, or `from -> to` for a folder edge of a cycle) is how an
 * allow-list names it.
 */
export function analyze(files) {
  const edges = importsOf(files);
  const violations = [];
  const add = (rule, from, spec) => violations.push({ rule, from, spec, key: `${from} -> ${spec}` });

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
  const cycles = cyclesOf(graph);
  const componentOf = new Map(cycles.flatMap((scc, i) => scc.map((v) => [v, i])));
  for (const [a, targets] of graph) {
    for (const b of targets) {
      if (componentOf.has(a) && componentOf.get(a) === componentOf.get(b)) add('folder-cycle', a, b);
    }
  }

  for (const e of edges) {
    const { from, to, spec, external } = e;
    const fromNode = nodeOf(from);
    if (isFeature(from) || INFRA.has(fromNode)) {
      if (external && /^fastify$|^@fastify\//.test(to)) add('feature-imports-http', from, spec);
      if (!external && (nodeOf(to) === 'api' || nodeOf(to) === 'cli' || COMPOSITION.has(to)))
        add('feature-imports-http', from, spec);
    }
    if (!external && /\.repository\.ts$/.test(to) && nodeOf(to) !== fromNode && !COMPOSITION.has(from))
      add('foreign-repository', from, spec);
    if (!external && /\.repository\.ts$/.test(from) && /\.service\.ts$/.test(to))
      add('repository-imports-service', from, spec);
    if (fromNode === 'api' && (/\.repository\.ts$/.test(to) || /^db\//.test(to) || to === 'kysely'))
      add('api-imports-repository', from, spec);
    if ((INFRA.has(fromNode) || (isTopFile(from) && !COMPOSITION.has(from))) && !external && isFeature(to))
      add('infrastructure-imports-feature', from, spec);
    if (fromNode === 'web' && !external && !to.startsWith('web/') && !isEntities(to))
      add('ui-imports-server', from, spec);
  }

  // Every type the UI names as what the server answers comes from the entities.
  for (const r of responseTypeViolations(files)) add('ui-copies-entity', r.from, r.spec);

  // The UI's own types file holds view models only: an object type named after an entity is a copy of it.
  const entities = entityNames(files);
  for (const f of files.filter((x) => x.path === 'web/src/types.ts')) {
    const declared =
      /^\s*(?:export\s+)?(?:interface\s+(\w+)\b|type\s+(\w+)\s*(?:<[^=]*>)?\s*=\s*(?:Readonly<\s*)?\{)/gm;
    for (const m of f.text.matchAll(declared)) {
      const name = m[1] ?? m[2];
      if (entities.has(name)) add('ui-copies-entity', f.path, name);
    }
  }

  return { nodes: graph.size, cycles, violations };
}
