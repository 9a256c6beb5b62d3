import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, RULES, type RuleId, readSources, type SourceFile } from '../scripts/layering.mjs';

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

/** The layering checker of scripts/layering.mjs (shared with `node scripts/import-graph.mjs`) on the real sources. */
const layering = analyze(readSources(SRC));

/** Violations of `rule` found by the checker in `files`. */
const found = (files: readonly SourceFile[], rule: RuleId) =>
  analyze(files)
    .violations.filter((v) => v.rule === rule)
    .map((v) => v.key);

/** A small made-up source tree, clean under every rule; each planted violation adds one file to it. */
const CLEAN: readonly SourceFile[] = [
  { path: 'context.ts', text: "import { AlertsService } from './alerts/alerts.service.js';" },
  {
    path: 'app.ts',
    text: "import Fastify from 'fastify';\nimport type { AppContext } from './app-context.js';",
  },
  { path: 'errors.ts', text: 'export class AppError extends Error {}' },
  { path: 'db/db.ts', text: "import { Kysely } from 'kysely';\nimport { encrypt } from '../crypto.js';" },
  { path: 'crypto.ts', text: '' },
  {
    path: 'alerts/alerts.service.ts',
    text: "import { AlertsRepository } from './alerts.repository.js';\nimport { UsersService } from '../users/users.service.js';\nimport type { Db } from '../db/db.js';",
  },
  {
    path: 'alerts/alerts.repository.ts',
    text: "import { sql } from 'kysely';\nimport type { Db } from '../db/db.js';",
  },
  { path: 'alerts/alerts.ts', text: "import { AppError } from '../errors.js';" },
  { path: 'users/users.service.ts', text: "import { UsersRepository } from './users.repository.js';" },
  { path: 'users/users.repository.ts', text: '' },
  {
    path: 'api/alerts/alerts.routes.ts',
    text: "import type { FastifyInstance } from 'fastify';\nimport { AlertEntity } from './alerts.entities.js';\nimport type { AlertsService } from '../../alerts/alerts.service.js';",
  },
  {
    path: 'api/alerts/alerts.entities.ts',
    text: "import { Type } from 'typebox';\nexport const AlertEntity = Type.Object({});",
  },
  {
    path: 'web/src/types.ts',
    text: "import type { Static } from 'typebox';\nimport type { AlertEntity } from '../../api/alerts/alerts.entities.js';\nexport type Alert = Static<typeof AlertEntity>;\n/** A view model. */\nexport interface AlertRow { readonly alert: Alert }",
  },
  {
    path: 'web/src/app.tsx',
    text: "import { useState } from 'react';\nimport type { Alert } from './types';",
  },
  {
    // Response types from the entities: through types.ts, an alias of them, a direct entities import, primitives.
    path: 'web/src/pages/alerts.tsx',
    text: [
      "import { getJson, getPage, type Page, sendJson } from '../api';",
      "import type { Static } from 'typebox';",
      "import type { AlertEntity } from '../../../api/alerts/alerts.entities.js';",
      "import type { Alert } from '../types';",
      "import { useLoader, useResource } from '../use-resource';",
      'type Listed = Pick<Alert, "iid">;',
      '/** A view model: not what the server answers. */',
      'interface AlertView { readonly alert: Alert; readonly open: boolean }',
      'export function show(view: AlertView): AlertView { return view; }',
      'export function helper<T>(p: string): Promise<Page<T>> { return getPage<T>(p); }',
      "const a = useResource<Alert[]>('/a');",
      "const b = useLoader<readonly Listed[]>('/b', getJson);",
      "const c = getJson<Static<typeof AlertEntity>>('/c');",
      "const d = sendJson<null>('DELETE', '/d');",
      "const e = sendJson<unknown>('POST', '/e');",
      "const f = getPage<Alert>('/f');",
      'const g = <th>Page</th>;',
    ].join('\n'),
  },
];

/** Planted violations of each rule: a file that breaks it, and a key the checker must report for it. */
const PLANTED: Record<RuleId, readonly { file: SourceFile; key: string }[]> = {
  'feature-imports-http': [
    {
      file: { path: 'alerts/a.ts', text: "import { x } from '../api/alerts/alerts.routes.js';" },
      key: 'alerts/a.ts -> ../api/alerts/alerts.routes.js',
    },
    {
      file: { path: 'alerts/b.ts', text: "import type { FastifyReply } from 'fastify';" },
      key: 'alerts/b.ts -> fastify',
    },
    {
      file: { path: 'alerts/c.ts', text: "import { cors } from '@fastify/cors';" },
      key: 'alerts/c.ts -> @fastify/cors',
    },
    {
      file: { path: 'alerts/d.ts', text: "import { createContext } from '../context.js';" },
      key: 'alerts/d.ts -> ../context.js',
    },
    {
      file: { path: 'alerts/g.ts', text: "import type { AppContext } from '../app-context.js';" },
      key: 'alerts/g.ts -> ../app-context.js',
    },
    {
      file: { path: 'alerts/e.ts', text: "import { buildApp } from '../app.js';" },
      key: 'alerts/e.ts -> ../app.js',
    },
    {
      file: { path: 'alerts/f.ts', text: "export { start } from '../server.js';" },
      key: 'alerts/f.ts -> ../server.js',
    },
  ],
  'foreign-repository': [
    {
      file: {
        path: 'alerts/alerts.helper.ts',
        text: "import { UsersRepository } from '../users/users.repository.js';",
      },
      key: 'alerts/alerts.helper.ts -> ../users/users.repository.js',
    },
  ],
  'repository-imports-service': [
    {
      file: {
        path: 'users/users-extra.repository.ts',
        text: "import type { UsersService } from './users.service.js';",
      },
      key: 'users/users-extra.repository.ts -> ./users.service.js',
    },
  ],
  'api-imports-repository': [
    {
      file: {
        path: 'api/alerts/alerts.presenters.ts',
        text: "import { AlertsRepository } from '../../alerts/alerts.repository.js';",
      },
      key: 'api/alerts/alerts.presenters.ts -> ../../alerts/alerts.repository.js',
    },
    {
      file: { path: 'api/alerts/other.routes.ts', text: "import type { Db } from '../../db/db.js';" },
      key: 'api/alerts/other.routes.ts -> ../../db/db.js',
    },
  ],
  'infrastructure-imports-feature': [
    {
      file: { path: 'db/seed.ts', text: "import { AlertsService } from '../alerts/alerts.service.js';" },
      key: 'db/seed.ts -> ../alerts/alerts.service.js',
    },
  ],
  'ui-imports-server': [
    {
      file: {
        path: 'web/src/page.tsx',
        text: "import { AlertsService } from '../../alerts/alerts.service.js';",
      },
      key: 'web/src/page.tsx -> ../../alerts/alerts.service.js',
    },
    {
      file: {
        path: 'web/src/list.tsx',
        text: "import type { presentAlert } from '../../api/alerts/alerts.routes.js';",
      },
      key: 'web/src/list.tsx -> ../../api/alerts/alerts.routes.js',
    },
  ],
  'ui-copies-entity': [
    {
      file: { path: 'web/src/types.ts', text: 'export interface Alert {\n  readonly iid: number;\n}' },
      key: 'web/src/types.ts -> Alert',
    },
    {
      file: { path: 'web/src/types.ts', text: 'export type AlertEntity = Readonly<{ iid: number }>;' },
      key: 'web/src/types.ts -> AlertEntity',
    },
    {
      file: {
        path: 'web/src/pages/foo.tsx',
        text: "import { useResource } from '../use-resource';\ninterface Foo { id: number }\nexport const x = () => useResource<Foo[]>('/api/v4/foo');",
      },
      key: 'web/src/pages/foo.tsx -> useResource<Foo[]>',
    },
    {
      file: {
        path: 'web/src/pages/bar.tsx',
        text: "import { sendJson } from '../api';\nimport type { Alert } from '../types';\ntype Bar = Alert & { extra: string };\nexport const x = () => sendJson<Bar>('POST', '/api/v4/bar');",
      },
      key: 'web/src/pages/bar.tsx -> sendJson<Bar>',
    },
    {
      file: {
        path: 'web/src/pages/baz.tsx',
        text: "import { getJson } from '../api';\nexport const x = () =>\n  getJson<{ readonly id: number; readonly name: string }[]>('/api/v4/baz');",
      },
      key: 'web/src/pages/baz.tsx -> getJson<{ readonly id: number; readonly name: string }[]>',
    },
    {
      file: {
        path: 'web/src/pages/qux.tsx',
        text: "import { getPage, type Page } from '../api';\nimport type { AlertRow } from '../types';\nexport const load = (p: string): Promise<Page<AlertRow>> => getPage<AlertRow>(p);",
      },
      key: 'web/src/pages/qux.tsx -> getPage<AlertRow>',
    },
  ],
  'folder-cycle': [
    {
      file: { path: 'users/users.ts', text: "import type { Alert } from '../alerts/alerts.js';" },
      key: 'users -> alerts',
    },
  ],
};

/** `CLEAN` with `file` added, or in place of the file of the same path. */
const planted = (file: SourceFile) => [...CLEAN.filter((f) => f.path !== file.path), file];

describe('layering (scripts/layering.mjs, as `node scripts/import-graph.mjs` prints it)', () => {
  it('the made-up tree the planted violations go into is clean under every rule', () => {
    expect(analyze(CLEAN).violations).toEqual([]);
  });

  for (const [rule, sentence] of Object.entries(RULES) as [RuleId, string][]) {
    describe(`${rule}: ${sentence}`, () => {
      it('has no violation in src/', () => {
        expect(layering.violations.filter((v) => v.rule === rule).map((v) => v.key)).toEqual([]);
      });

      it('is proven by planted violations: the checker reports each one', () => {
        expect(PLANTED[rule].length).toBeGreaterThan(0);
        for (const { file, key } of PLANTED[rule])
          expect(found(planted(file), rule), file.path).toContain(key);
      });
    });
  }

  it('the folder-cycle rule reports both directions of a two-folder cycle', () => {
    const { file } = PLANTED['folder-cycle'][0]!;
    expect(found(planted(file), 'folder-cycle').sort()).toEqual(['alerts -> users', 'users -> alerts']);
  });

  it('reads the UI and its entity imports (the UI rules check something)', () => {
    const web = readSources(SRC).filter((f) => f.path.startsWith('web/'));
    expect(web.length).toBeGreaterThan(10);
  });
});
