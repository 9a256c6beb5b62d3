import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/** Marks a body parsed from a form or query string: its values are strings and may be coerced. */
export const FORM_BODY: unique symbol = Symbol('svc.formBody');

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

const base = { removeAdditional: true, useDefaults: true, allErrors: false, strict: false } as const;
const coercing = addFormats(new Ajv({ ...base, coerceTypes: 'array' }));
const strict = addFormats(new Ajv({ ...base, coerceTypes: false }));

/**
 * Validator compiler. Query strings, params and form bodies are text, so they are coerced; JSON bodies are
 * validated as sent, so `null` stays `null` (v5 rejects `private_profile: null`; coercion would turn it into false).
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const loose: ValidateFunction = coercing.compile(schema);
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
