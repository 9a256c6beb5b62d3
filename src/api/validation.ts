import { Ajv, type ErrorObject, type FuncKeywordDefinition, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/** Marks a body parsed from a form or query string: its values are strings and may be coerced. */
export const FORM_BODY: unique symbol = Symbol('svc.formBody');

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

/**
 * Validator compiler. Query strings, params and form bodies are text, so they are coerced; JSON bodies are
 * validated as sent, so `null` stays `null` (v5 rejects `private_profile: null`; coercion would turn it into false).
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const coerced: ValidateFunction = coercing.compile(schema);
  const loose = ((data: unknown) => {
    grapeBooleans(schema, data);
    const ok = coerced(data);
    (loose as unknown as { errors: unknown }).errors = coerced.errors;
    return ok;
  }) as unknown as ValidateFunction;
  if (httpPart !== 'body') return loose;
  const exact: ValidateFunction = strict.compile(schema);
  const validate = (data: unknown) => {
    const fn = typeof data === 'object' && data !== null && FORM_BODY in data ? loose : exact;
    const ok = fn(data);
    (validate as unknown as { errors: unknown }).errors = fn.errors;
    return ok;
  };
  return validate as unknown as ValidateFunction;
};

// Grape's Boolean coercion (dry-types `Params::Bool`): python-gitlab sends `True`, Perl clients `1`.
const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

type Node = { type?: unknown; anyOf?: Node[]; properties?: Record<string, Node> };

const accepts = (s: Node | undefined, type: string): boolean =>
  s !== undefined &&
  (s.type === type ||
    (Array.isArray(s.type) && s.type.includes(type)) ||
    (s.anyOf ?? []).some((x) => accepts(x, type)));

/**
 * Turns Grape's spellings of booleans in text parameters (query strings, path parameters, form bodies) into
 * booleans, in place, where the schema takes a boolean and no string; Ajv's own coercion knows only
 * `true`/`false`. Anything else is left for the schema to refuse.
 */
function grapeBooleans(schema: Node, data: unknown): void {
  if (typeof data !== 'object' || data === null || !schema.properties) return;
  const record = data as Record<string, unknown>;
  for (const [key, prop] of Object.entries(schema.properties)) {
    const value = record[key];
    if (typeof value === 'string' && accepts(prop, 'boolean') && !accepts(prop, 'string')) {
      const word = value.toLowerCase();
      if (TRUE_WORDS.has(word)) record[key] = true;
      else if (FALSE_WORDS.has(word)) record[key] = false;
    } else if (typeof value === 'object') {
      grapeBooleans(prop, value);
    }
  }
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
