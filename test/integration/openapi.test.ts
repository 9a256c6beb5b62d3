import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The OpenAPI documents the server serves: v5's advertises nothing the spec's v4-to-v5 table removes (fields,
 * status values, endpoints), and v4's still does (so the search below finds what it looks for).
 */

type Doc = { paths: Record<string, Record<string, unknown>> };

/** Every property name a schema (or any part of an operation) declares, at any depth. */
function propertyNames(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) propertyNames(n, out);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && typeof value === 'object' && value !== null) {
        for (const name of Object.keys(value)) out.add(name);
      }
      propertyNames(value, out);
    }
  }
  return out;
}

/** Every string value a schema allows by `const` or `enum`, at any depth. */
function constants(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) constants(n, out);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'const' && typeof value === 'string') out.add(value);
      if (key === 'enum' && Array.isArray(value)) for (const v of value) out.add(String(v));
      constants(value, out);
    }
  }
  return out;
}

/** The operations (method and path) whose path matches `where`. */
function operations(doc: Doc, where: RegExp): { name: string; operation: unknown }[] {
  return Object.entries(doc.paths)
    .filter(([path]) => where.test(path))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ name: `${method} ${path}`, operation })),
    );
}

/** Spec, REST API v4 to v5 changes: the fields v5 removes, by the endpoints that carried them. */
const REMOVED_FIELDS = [
  { endpoints: /\/runners/, fields: ['active', 'ip_address'] },
  { endpoints: /\/merge_requests/, fields: ['merged_by', 'merge_status'] },
  { endpoints: /\/approvals$/, fields: ['approvers', 'approver_groups'] },
];

/** Offending names: `<operation>: <field>` for every removed field an operation still declares. */
function removedFieldsIn(doc: Doc): string[] {
  return REMOVED_FIELDS.flatMap(({ endpoints, fields }) =>
    operations(doc, endpoints).flatMap(({ name, operation }) => {
      const names = propertyNames(operation);
      return fields.filter((f) => names.has(f)).map((f) => `${name}: ${f}`);
    }),
  );
}

describe('OpenAPI documents', () => {
  let s: TestServer;
  let v4: Doc;
  let v5: Doc;

  beforeAll(async () => {
    s = await startTestServer({ database: 'sqlite' });
    const api = http(s.url);
    v4 = (await api.get('/api/v4/openapi.json')).body;
    v5 = (await api.get('/api/v5/openapi.json')).body;
  });
  afterAll(() => s?.stop());

  it('v5 advertises no field v5 removed; v4 still advertises each of them', () => {
    expect(removedFieldsIn(v5)).toEqual([]);
    const inV4 = new Set(removedFieldsIn(v4).map((o) => o.split(': ')[1]));
    expect([...inV4].sort()).toEqual(REMOVED_FIELDS.flatMap((r) => r.fields).sort());
  });

  it('v5 runner status values are only online, offline and not_connected (responses and the filter)', () => {
    const statuses = (doc: Doc) =>
      operations(doc, /\/runners/).flatMap(({ operation }) => [...constants(operation)]);
    expect(new Set(statuses(v5))).not.toContain('paused');
    expect(new Set(statuses(v5))).not.toContain('active');
    for (const status of ['online', 'offline', 'not_connected']) expect(statuses(v5)).toContain(status);
    expect(new Set(statuses(v4))).toContain('paused');
    expect(new Set(statuses(v4))).toContain('active');
  });

  it('v5 has none of the endpoints v5 removed (geo_nodes, merge request changes, managed licenses)', () => {
    const removed = /\/geo_nodes|\/merge_requests\/\{[a-z_]+\}\/changes$|\/managed_licenses/;
    expect(Object.keys(v5.paths).filter((p) => removed.test(p))).toEqual([]);
    expect(Object.keys(v4.paths).filter((p) => removed.test(p)).length).toBeGreaterThan(0);
  });

  it('v5 says in its schema that PUT /runners/:id refuses active', () => {
    const put = v5.paths['/runners/{id}']?.put as {
      requestBody: { content: Record<string, { schema: object }> };
    };
    expect(put.requestBody.content['application/json']!.schema).toMatchObject({
      'x-removed': { active: 'active was removed in API v5: use paused' },
    });
  });
});
