import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'web' ? [] : files(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

const sources = files(SRC).map((path) => ({
  path: relative(SRC, path),
  imports: [...readFileSync(path, 'utf8').matchAll(/^import[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]!),
  text: readFileSync(path, 'utf8'),
}));

/** What an import names: a package name, or a relative import resolved to its path (`src/db/db.js`). */
function target(from: string, spec: string): string {
  return spec.startsWith('.') ? `src/${normalize(join(dirname(from), spec))}` : spec;
}

/** Files matching `which` that import something (resolved as by `target`) matching `forbidden`. */
function resolvedViolations(which: RegExp, forbidden: RegExp): string[] {
  return sources
    .filter((f) => which.test(f.path))
    .flatMap((f) =>
      f.imports.filter((i) => forbidden.test(target(f.path, i))).map((i) => `${f.path} imports ${i}`),
    );
}

/** Files matching `which` that import something matching `forbidden`. */
function violations(which: RegExp, forbidden: RegExp): string[] {
  return sources
    .filter((f) => which.test(f.path))
    .flatMap((f) => f.imports.filter((i) => forbidden.test(i)).map((i) => `${f.path} imports ${i}`));
}

describe('architecture (ARCHITECTURE.md dependency rules)', () => {
  it('finds the source files', () => {
    expect(sources.length).toBeGreaterThan(20);
  });

  it('route handlers use services, never Kysely, repositories or the database', () => {
    expect(violations(/\.routes\.ts$/, /^kysely$|\.repository\.js$|\/db\//)).toEqual([]);
  });

  it('services never import Fastify, routes or presenters', () => {
    expect(violations(/\.service\.ts$/, /^fastify$|^@fastify\/|\.routes\.js$|\/api\//)).toEqual([]);
  });

  it('repositories never import Fastify, services or the API layer', () => {
    expect(violations(/\.repository\.ts$/, /^fastify$|\.service\.js$|\/api\//)).toEqual([]);
  });

  it('services never import Kysely or the database layer (repositories do)', () => {
    expect(resolvedViolations(/\.service\.ts$/, /^kysely$|^src\/db\//)).toEqual([]);
  });

  it('Fastify only in route files, src/api and app.ts', () => {
    // server.ts, the CLI and the features reach the HTTP application only through buildApp's return type.
    expect(resolvedViolations(/^(?!api\/|app\.ts$).*(?<!\.routes\.ts)$/, /^fastify$|^@fastify\//)).toEqual(
      [],
    );
  });

  it('db/ imports no feature: only itself, packages and the shared top-level modules', () => {
    // A feature is a folder under src; db/ may use top-level helpers such as crypto.ts and file-modes.ts.
    expect(resolvedViolations(/^db\//, /^src\/(?!db\/)[^/]+\//)).toEqual([]);
  });

  it('per-version presenters and schemas are reached only through src/api', () => {
    expect(violations(/^(?!api\/)/, /\/api\/v[0-9]+\//)).toEqual([]);
  });

  it('presenters are defined only in src/api (no present* function elsewhere)', () => {
    const definition = /\b(?:function\s+present\w*|(?:const|let|var)\s+present\w*\s*=)/;
    const outside = sources.filter((f) => !f.path.startsWith('api/') && definition.test(f.text));
    expect(outside.map((f) => f.path)).toEqual([]);
  });

  it('only config.ts, the CLI entry and the git adapter (PATH and HOME for the child) read process.env', () => {
    const readers = sources.filter((f) => /process\.env/.test(f.text)).map((f) => f.path);
    expect(readers.sort()).toEqual(['cli/main.ts', 'config.ts', 'git/git.ts']);
  });

  it('the CLI never imports Kysely or the database: it opens one only through the composition root', () => {
    expect(violations(/^cli\//, /^kysely$|\/db\//)).toEqual([]);
  });

  it('has no default exports', () => {
    expect(sources.filter((f) => /^export default/m.test(f.text)).map((f) => f.path)).toEqual([]);
  });
});
