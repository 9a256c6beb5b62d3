import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { compileDeferred, lazySerializers, validatorCompiler } from './validation.js';

describe('schemas compiled on first use', () => {
  let server: TestServer | undefined;
  afterAll(async () => server?.stop());

  it('compiles a validator when it first runs, and compileDeferred finds one that cannot compile', () => {
    compileDeferred();
    const validate = validatorCompiler({
      schema: { type: 'object', properties: { n: { type: 'integer' } } },
      httpPart: 'querystring',
      method: 'GET',
      url: '/x',
    });
    expect(compileDeferred()).toBe(1);
    const query = { n: '5' };
    expect(validate(query)).toBe(true);
    expect(query).toEqual({ n: 5 });

    validatorCompiler({ schema: { type: 'no-such-type' }, httpPart: 'body', method: 'POST', url: '/y' });
    // A body has two validators (JSON and form): both are reported.
    expect(() => compileDeferred()).toThrow(/^2 schemas cannot be compiled: schema is invalid/);
    expect(compileDeferred()).toBe(0);
  });

  it('builds a serializer when it first answers', () => {
    compileDeferred();
    const compiler = lazySerializers!.buildSerializer!(undefined, {});
    const serialize = compiler({
      schema: { type: 'object', properties: { a: { type: 'integer' } } },
      method: 'GET',
      url: '/z',
      httpStatus: '200',
    });
    expect(serialize({ a: 1, b: 2 })).toBe('{"a":1}');
    expect(compileDeferred()).toBe(0);
  });

  it("compiles every route's request and response schemas of the whole app (v4 and v5) without an error", async () => {
    compileDeferred();
    server = await startTestServer();
    // Hundreds of routes, each with a params, query or body validator and its response serializers.
    expect(compileDeferred()).toBeGreaterThan(300);
  });
});

describe("Grape's comma-separated arrays", () => {
  const schema = {
    type: 'object',
    properties: {
      scopes: { type: 'array', items: { type: 'string' } },
      ids: { type: 'array', items: { type: 'integer' } },
      maybe: { anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'null' }] },
      either: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
      files: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
    },
  };
  const run = (httpPart: 'body' | 'querystring', data: Record<string, unknown>) => {
    const validate = validatorCompiler({ schema, httpPart, method: 'POST', url: '/z' });
    return { ok: validate(data), data };
  };

  it('splits a string at its commas wherever an array of scalars is taken, in a JSON body and a query', () => {
    for (const part of ['body', 'querystring'] as const) {
      expect(run(part, { scopes: 'api, read_user', ids: '1,2', maybe: '7' })).toEqual({
        ok: true,
        data: { scopes: ['api', 'read_user'], ids: [1, 2], maybe: [7] },
      });
      // One value is a one-element array; an empty string an empty one; a trailing comma adds nothing.
      expect(run(part, { scopes: 'api', ids: '', maybe: '3,' })).toEqual({
        ok: true,
        data: { scopes: ['api'], ids: [], maybe: [3] },
      });
    }
  });

  it('leaves parameters that take a string, real arrays and arrays of objects alone; refuses what is no integer', () => {
    expect(run('body', { either: 'a,b', scopes: ['a,b'] })).toEqual({
      ok: true,
      data: { either: 'a,b', scopes: ['a,b'] },
    });
    expect(run('body', { files: 'a,b' }).ok).toBe(false);
    expect(run('body', { ids: '1,x' }).ok).toBe(false);
  });
});
