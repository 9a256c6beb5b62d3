import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Ajv, type ErrorObject, type FuncKeywordDefinition, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';

/** Marks a body parsed from a form or query string: its values are strings and may be coerced. */
export const FORM_BODY: unique symbol = Symbol('svc.formBody');
/** The file parts of a multipart body, by field name, beside its fields (schemas never see them). */
export const UPLOADS: unique symbol = Symbol('svc.uploads');

/** A file part of a multipart body. */
export interface UploadPart {
  readonly filename: string;
  readonly data: Buffer;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The multipart fields this route takes as files (`avatar`); a file in any other field is refused. */
    uploads?: readonly string[];
  }
}

/** The file a multipart body carries in `field`, if any. */
export function uploadOf(body: unknown, field: string): UploadPart | undefined {
  if (typeof body !== 'object' || body === null || !(UPLOADS in body)) return undefined;
  return (body as { [UPLOADS]: Map<string, UploadPart> })[UPLOADS].get(field);
}

/** The fields of `body` that carry files. */
export function uploadFields(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || !(UPLOADS in body)) return [];
  return [...(body as { [UPLOADS]: Map<string, UploadPart> })[UPLOADS].keys()];
}

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

/**
 * Schema keyword (an OpenAPI `x-` extension) naming the fields an API version removed, each with the message a
 * request still sending it gets: `{ "x-removed": { "active": "active was removed in API v5: use paused" } }`.
 * Without it the field would pass unnoticed (schemas allow unknown properties) and change nothing, silently.
 */
export const REMOVED_FIELDS = 'x-removed';

function refuseRemoved(schema: Record<string, string>, data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return true;
  const field = Object.keys(schema).find((k) => (data as Record<string, unknown>)[k] !== undefined);
  if (field === undefined) return true;
  refuseRemoved.errors = [{ keyword: REMOVED_FIELDS, message: schema[field], params: { field } }];
  return false;
}
refuseRemoved.errors = [] as Partial<ErrorObject>[];

const removedKeyword: FuncKeywordDefinition = {
  keyword: REMOVED_FIELDS,
  type: 'object',
  schemaType: 'object',
  errors: true,
  validate: refuseRemoved as FuncKeywordDefinition['validate'],
};

const base = { removeAdditional: true, useDefaults: true, allErrors: false, strict: false } as const;
const coercing = addFormats(new Ajv({ ...base, coerceTypes: 'array' })).addKeyword(removedKeyword);
const strict = addFormats(new Ajv({ ...base, coerceTypes: false })).addKeyword(removedKeyword);

/** Compilations put off until first use, held weakly so that `compileDeferred` can run what is still pending. */
const deferred = new Set<WeakRef<() => unknown>>();

/** `build()` run once, when the returned function is first called (or by `compileDeferred`). */
function onFirstUse<T>(build: () => T): () => T {
  let value: { built: T } | undefined;
  const get = (): T => {
    if (value === undefined) {
      value = { built: build() };
      deferred.delete(ref);
    }
    return value.built;
  };
  const ref = new WeakRef(get);
  deferred.add(ref);
  return get;
}

/**
 * Compiles every validator and serializer still waiting for its first use, and returns how many: a schema Ajv or
 * fast-json-stringify cannot compile throws here, as it would have at start (src/api/validation.test.ts runs it
 * on the whole app).
 */
export function compileDeferred(): number {
  let n = 0;
  const errors: string[] = [];
  for (const ref of [...deferred]) {
    const get = ref.deref();
    deferred.delete(ref);
    if (!get) continue;
    n++;
    try {
      get();
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  if (errors.length > 0) throw new Error(`${errors.length} schemas cannot be compiled: ${errors.join('; ')}`);
  return n;
}

/**
 * A validator that Ajv compiles when it first runs, not when its route is registered: svc has hundreds of routes
 * (v4 and v5) and a process serves few of them, so compiling all at start cost about 90 MiB of memory and start
 * time (docs/benchmarks.md, Memory).
 */
function compiledOnFirstUse(ajv: Ajv, schema: object): ValidateFunction {
  const compiled = onFirstUse(() => ajv.compile(schema));
  const validate = ((data: unknown) => {
    const fn = compiled();
    const ok = fn(data);
    validate.errors = fn.errors;
    return ok;
  }) as ValidateFunction;
  return validate;
}

/**
 * Fastify's own response serializers (fast-json-stringify), each built when its route first answers with that
 * status instead of when the route is registered (as the validators above).
 */
export const lazySerializers: NonNullable<FastifyServerOptions['schemaController']>['compilersFactory'] = {
  buildSerializer: (externalSchemas, options) => {
    const build = SerializerSelector()(externalSchemas, options);
    return (route) => {
      const serializer = onFirstUse(() => build(route));
      return (doc: unknown) => serializer()(doc);
    };
  },
};

/**
 * Validator compiler. Query strings, params and form bodies are text, so Ajv coerces them; JSON bodies get only
 * Grape's coercions of scalars (`"118"` for an integer, `"yes"` for a boolean, `5` for a string), so `null` stays
 * `null` (v5 rejects `private_profile: null`; Ajv's coercion would turn it into false).
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const coerced = compiledOnFirstUse(coercing, schema);
  const loose = ((data: unknown) => {
    grapeScalars(schema, data);
    const ok = coerced(data);
    (loose as unknown as { errors: unknown }).errors = coerced.errors;
    return ok;
  }) as unknown as ValidateFunction;
  if (httpPart !== 'body') return loose;
  const exact = compiledOnFirstUse(strict, schema);
  const validate = (data: unknown) => {
    const fn = typeof data === 'object' && data !== null && FORM_BODY in data ? loose : exact;
    if (fn === exact) grapeScalars(schema, data);
    const ok = fn(data);
    (validate as unknown as { errors: unknown }).errors = fn.errors;
    return ok;
  };
  return validate as unknown as ValidateFunction;
};

// Grape's Boolean coercion (dry-types `Params::Bool`): python-gitlab sends `True`, Perl clients `1`.
const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);
const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

type Node = { type?: unknown; anyOf?: Node[]; properties?: Record<string, Node>; items?: Node };

const accepts = (s: Node | undefined, type: string): boolean =>
  s !== undefined &&
  (s.type === type ||
    (Array.isArray(s.type) && s.type.includes(type)) ||
    (s.anyOf ?? []).some((x) => accepts(x, type)));

/** The element schema of an array of scalars the parameter takes, when it takes no string itself. */
function scalarItems(s: Node): Node | null {
  if (accepts(s, 'string')) return null;
  const array = s.type === 'array' ? s : (s.anyOf ?? []).find((x) => x.type === 'array');
  const items = array?.items;
  if (!items || accepts(items, 'object') || accepts(items, 'array')) return null;
  return items;
}

/**
 * Grape's `CommaSeparatedToArray`: `"api,read_user"` is `["api", "read_user"]`, each part stripped; one value
 * without a comma is a one-element array, an empty string an empty one (Ruby's `split` drops trailing empty parts).
 */
function commaSeparated(value: string, items: Node): unknown[] {
  const parts = value.split(',').map((p) => p.trim());
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts.map((p) => grapeScalar(items, p));
}

/** One value as Grape would coerce it to the parameter's declared type; anything else is left for the schema. */
function grapeScalar(schema: Node, value: unknown): unknown {
  if (typeof value === 'string') {
    if (accepts(schema, 'string')) return value;
    if (accepts(schema, 'boolean')) {
      const word = value.toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
    }
    const numeric = accepts(schema, 'integer') ? INTEGER : accepts(schema, 'number') ? NUMBER : null;
    if (numeric?.test(value.trim()) && Number.isFinite(Number(value))) return Number(value);
    return value;
  }
  if (
    typeof value === 'number' &&
    accepts(schema, 'string') &&
    !accepts(schema, 'number') &&
    !accepts(schema, 'integer')
  ) {
    return String(value);
  }
  return value;
}

/**
 * Grape's coercion of declared parameter types, in place: CLIs send every value as a string (`{"parent_id":"118"}`),
 * python-gitlab sends `True`, Perl clients `1`. Strings become the integer, number or boolean the schema takes (when it
 * takes no string); numbers become strings where only a string is taken; arrays element by element. A string where
 * an array of scalars is taken is split at its commas (`"1,2"` is `[1, 2]`), in the body and the query alike: every
 * array parameter reads as GitLab's `coerce_with: CommaSeparatedToArray` ones do (gitbeaker's CLI sends
 * `--scopes api,read_user` that way). `null` and
 * anything that does not read as the declared type are left for the schema to refuse, as Grape refuses them.
 */
function grapeScalars(schema: Node, data: unknown): void {
  if (typeof data !== 'object' || data === null) return;
  if (Array.isArray(data)) {
    if (!schema.items) return;
    data.forEach((value, i) => {
      if (typeof value === 'object') grapeScalars(schema.items as Node, value);
      else data[i] = grapeScalar(schema.items as Node, value);
    });
    return;
  }
  if (!schema.properties) return;
  const record = data as Record<string, unknown>;
  for (const [key, prop] of Object.entries(schema.properties)) {
    const value = record[key];
    const items = typeof value === 'string' ? scalarItems(prop) : null;
    if (items) record[key] = commaSeparated(value as string, items);
    else if (typeof value === 'object') grapeScalars(prop, value);
    else if (value !== undefined) record[key] = grapeScalar(prop, value);
  }
}

/**
 * Parses a query string as Rails does: `key[]=a&key[]=b` is an array, and so is a repeated `key=a&key=b` (as
 * Fastify's own parser has it); `key[]=a` alone is a one-element array.
 */
export function parseQuery(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const list = rawKey.endsWith('[]');
    const key = list ? rawKey.slice(0, -2) : rawKey;
    const seen = out[key];
    if (Array.isArray(seen)) seen.push(value);
    else if (seen !== undefined) out[key] = [seen, value];
    else out[key] = list ? [value] : value;
  }
  return out;
}

/** Parses `application/x-www-form-urlencoded`, with Rails-style `key[]=a&key[]=b` arrays. */
export function parseForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    if (rawKey.endsWith('[]')) {
      const key = rawKey.slice(0, -2);
      const list = Array.isArray(out[key]) ? (out[key] as unknown[]) : [];
      list.push(value);
      out[key] = list;
    } else {
      out[rawKey] = value;
    }
  }
  Object.defineProperty(out, FORM_BODY, { value: true, enumerable: false });
  return out;
}
