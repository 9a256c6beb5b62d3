import fc from 'fast-check';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { keyFrom, parseNotifyPath } from '../api/alerts/intake.routes.js';
import { AppError } from '../errors.js';
import {
  jsonDepth,
  MAX_PAYLOAD_DEPTH,
  MAX_TIME_MS,
  MIN_TIME_MS,
  type ParsedAlert,
  PayloadShapeError,
  PayloadTextError,
  PROMETHEUS_REQUIRED,
  parseGeneric,
  parsePayloadText,
  parsePrometheus,
} from './alerts.js';
import { valueDepth } from './intake.service.js';

/** Property-based tests of every parser of outside input in alert intake: only the typed 4xx errors escape. */

const now = new Date('2026-11-21T10:00:00Z');
const RUNS = { numRuns: 300 };

/** Times as senders get them wrong: any number, absurd years, garbage, and real ones. */
const timeValue = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.double({ min: -1e17, max: 1e17, noNaN: true }),
  fc.string(),
  fc.constantFrom(
    '+275760-09-13T00:00:00Z',
    '+275760-09-13T00:00:00.001Z',
    '-271821-04-20T00:00:00Z',
    '+010000-01-01T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '2026-11-21T10:00:00Z',
    '1e20',
    '',
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.jsonValue({ maxDepth: 2 }),
);

/** A stored time: ISO 8601 with a four-digit year, inside the range both databases hold. */
function expectStorableTime(t: string | null): void {
  if (t === null) return;
  expect(t).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  const ms = Date.parse(t);
  expect(ms).toBeGreaterThanOrEqual(MIN_TIME_MS);
  expect(ms).toBeLessThanOrEqual(MAX_TIME_MS);
}

function expectSane(a: ParsedAlert): void {
  expect(a.title.length).toBeGreaterThan(0);
  expect(a.title.length).toBeLessThanOrEqual(200);
  expectStorableTime(a.startedAt);
  expectStorableTime(a.endedAt);
  expect(a.resolves).toBe(a.endedAt !== null);
  expect(a.hosts.join('').length).toBeLessThanOrEqual(255);
}

/** Runs `f`; an exception must be an instance of one of `allowed`. */
function onlyThrows<T>(f: () => T, ...allowed: (abstract new (...args: never[]) => Error)[]): T | undefined {
  try {
    return f();
  } catch (err) {
    if (!allowed.some((c) => err instanceof c)) throw err;
    return undefined;
  }
}

const mapping = fc.option(
  fc.record(
    {
      title: fc.constant({ path: ['alert', 'name'], type: 'string' as const }),
      start_time: fc.constant({ path: ['alert', 'ts', 0], type: 'datetime' as const }),
      end_time: fc.constant({ path: ['alert', 'end'], type: 'datetime' as const }),
      fingerprint: fc.constant({ path: ['alert', 'id'], type: 'array' as const }),
      hosts: fc.constant({ path: ['alert', 'hosts'], type: 'array' as const }),
    },
    { requiredKeys: [] },
  ),
);

describe('alert payload parsers (property-based)', () => {
  it('parseGeneric: any payload gives a storable alert or a PayloadShapeError (422)', () => {
    const generic = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          title: fc.jsonValue({ maxDepth: 2 }),
          description: fc.jsonValue({ maxDepth: 2 }),
          start_time: timeValue,
          end_time: timeValue,
          severity: fc.jsonValue({ maxDepth: 1 }),
          fingerprint: fc.jsonValue({ maxDepth: 3 }),
          hosts: fc.jsonValue({ maxDepth: 3 }),
          service: fc.jsonValue({ maxDepth: 2 }),
          monitoring_tool: fc.jsonValue({ maxDepth: 2 }),
          alert: fc.record(
            {
              name: fc.jsonValue(),
              ts: fc.array(timeValue),
              end: timeValue,
              id: fc.jsonValue(),
              hosts: fc.jsonValue(),
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(generic, mapping, fc.boolean(), (payload, m, autoFingerprint) => {
        const a = onlyThrows(
          () => parseGeneric(payload, { mapping: m, autoFingerprint, now }),
          PayloadShapeError,
        );
        if (a) expectSane(a);
      }),
      RUNS,
    );
  });

  it('parsePrometheus: any payload gives at most maxAlerts storable alerts or a PayloadShapeError (422/413)', () => {
    const item = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record(
        {
          status: fc.oneof(fc.constantFrom('firing', 'resolved'), fc.jsonValue({ maxDepth: 1 })),
          labels: fc.oneof(
            fc.dictionary(
              fc.constantFrom('alertname', 'severity', 'svc_environment_name', 'x'),
              fc.jsonValue(),
            ),
            fc.jsonValue({ maxDepth: 2 }),
          ),
          annotations: fc.oneof(
            fc.dictionary(
              fc.constantFrom('title', 'summary', 'description', 'runbook', 'svc_y_label'),
              fc.jsonValue(),
            ),
            fc.jsonValue({ maxDepth: 2 }),
          ),
          startsAt: timeValue,
          endsAt: timeValue,
          generatorURL: fc.oneof(
            fc.webUrl({ withQueryParameters: true }),
            fc.string(),
            fc.jsonValue({ maxDepth: 1 }),
          ),
          fingerprint: fc.jsonValue({ maxDepth: 1 }),
          alert: fc.record(
            { name: fc.jsonValue(), id: fc.jsonValue(), hosts: fc.jsonValue() },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
    );
    const payload = fc.oneof(
      fc.jsonValue(),
      fc
        .tuple(
          fc.dictionary(fc.constantFrom(...PROMETHEUS_REQUIRED), fc.jsonValue({ maxDepth: 2 })),
          fc.oneof(fc.array(item, { maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })),
          fc.boolean(),
        )
        .map(([rest, alerts, complete]) => ({
          ...(complete ? Object.fromEntries(PROMETHEUS_REQUIRED.map((k) => [k, ''])) : {}),
          ...rest,
          alerts,
        })),
    );
    fc.assert(
      fc.property(payload, mapping, fc.integer({ min: 1, max: 10 }), (p, m, maxAlerts) => {
        const out = onlyThrows(() => parsePrometheus(p, { mapping: m, now, maxAlerts }), PayloadShapeError);
        if (!out) return;
        expect(out.length).toBeLessThanOrEqual(maxAlerts);
        for (const a of out) expectSane(a);
      }),
      RUNS,
    );
  });

  it('parseNotifyPath: any URL is a notify target, null (404), or a 4xx AppError', () => {
    const segment = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('%', '%E0%A4%A', '%ZZ', '%00', '%2F', '..', 'alerts', 'notify', 'prometheus', 'x.json'),
    );
    const url = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.array(segment, { maxLength: 8 }).map((s) => `/${s.join('/')}`),
      fc
        .tuple(segment, segment, segment, fc.boolean(), fc.string())
        .map(([p, name, id, json, q]) => `/${p}/alerts/notify/${name}/${id}${json ? '.json' : ''}?${q}`),
    );
    fc.assert(
      fc.property(url, (u) => {
        try {
          const t = parseNotifyPath(u);
          if (t) {
            expect(t.projectPath.length).toBeGreaterThan(0);
            if (t.identifier !== null) expect(t.identifier).toMatch(/^[A-Za-z0-9]+$/);
          }
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
          expect(['bad_request', 'invalid']).toContain((err as AppError).kind);
        }
      }),
      RUNS,
    );
  });

  it('parsePayloadText: any text is a JSON value or a PayloadTextError (400)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.json(),
      fc.integer({ min: 0, max: 300 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
      fc.integer({ min: 0, max: 300 }).map((d) => `${'{"a":'.repeat(d)}"\\u0000"${'}'.repeat(d)}`),
    );
    fc.assert(
      fc.property(text, (t) => {
        try {
          parsePayloadText(t);
        } catch (err) {
          expect(err).toBeInstanceOf(PayloadTextError);
        }
      }),
      RUNS,
    );
  });

  it('keyFrom: any Authorization header gives a key or none, never an error', () => {
    const header = fc.option(
      fc.oneof(
        fc.string({ unit: 'binary' }),
        fc.string().map((s) => `Bearer ${s}`),
        fc.string({ unit: 'binary' }).map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
        fc.string().map((s) => `basic ${s}`),
      ),
    );
    fc.assert(
      fc.property(header, (h) => {
        const key = keyFrom({ headers: { authorization: h ?? undefined } } as unknown as FastifyRequest);
        expect(key === null || typeof key === 'string').toBe(true);
      }),
      RUNS,
    );
  });

  it('valueDepth agrees with jsonDepth on the JSON text of any value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (v) => {
        const text = JSON.stringify(v);
        expect(valueDepth(v, MAX_PAYLOAD_DEPTH)).toBe(jsonDepth(text, MAX_PAYLOAD_DEPTH));
      }),
      RUNS,
    );
  });
});
