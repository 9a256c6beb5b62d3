import { describe, expect, it } from 'vitest';
import {
  automaticFingerprint,
  explicitFingerprint,
  genericSeverity,
  jsonDepth,
  parseGeneric,
  payloadFields,
  prometheusIdentity,
  prometheusSeverity,
  validateMapping,
  yLabel,
} from './alerts.js';

const now = new Date('2026-11-21T00:00:00Z');

describe('fingerprints', () => {
  it('matches GitLab for explicit fingerprints', () => {
    expect(explicitFingerprint('testing')).toBe('dc724af18fbdd4e59189f5fe768a5f8311527050');
    expect(explicitFingerprint(123)).toBe(explicitFingerprint('123'));
    expect(explicitFingerprint(['a', 'b'])).toBe(explicitFingerprint('ab'));
    expect(explicitFingerprint([1, 'fingerprint', 'given'])).toBe(explicitFingerprint('1fingerprintgiven'));
    expect(explicitFingerprint('  ')).toBeNull();
    expect(explicitFingerprint([])).toBeNull();
  });

  it('matches GitLab for metrics-alerting alerts without an Alertmanager fingerprint', () => {
    expect(prometheusIdentity('2020-04-27T10:10:22.265949279Z', 'Alert title', 'vector(1)', undefined)).toBe(
      'd34c1223b1bdada0affb3efda3bb0029ab0b4328',
    );
    const am = prometheusIdentity('2020-04-27T10:10:22Z', 'A', 'x', 'abc');
    expect(prometheusIdentity('2020-04-27T10:10:22Z', 'A', null, 'abc')).toBe(am);
  });

  it('ignores key order, start_time, end_time and hosts for automatic fingerprints', () => {
    const a = automaticFingerprint({ title: 't', service: 's', start_time: '1', hosts: ['a'] });
    expect(automaticFingerprint({ service: 's', title: 't', end_time: '2', hosts: 'b' })).toBe(a);
    expect(automaticFingerprint({ start_time: 'x', title: '' })).toBeNull();
  });
});

describe('severities', () => {
  it('accepts the six generic values case-insensitively, default critical', () => {
    expect(['CRITICAL', 'High', 'medium', 'low', 'info', 'Unknown'].map(genericSeverity)).toEqual([
      'critical',
      'high',
      'medium',
      'low',
      'info',
      'unknown',
    ]);
    expect(genericSeverity('warning')).toBe('critical');
    expect(genericSeverity(3)).toBe('critical');
  });

  it('maps the metrics-alerting synonym table', () => {
    const table: Record<string, string> = {
      critical: 'critical',
      s1: 'critical',
      p1: 'critical',
      emergency: 'critical',
      fatal: 'critical',
      high: 'high',
      s2: 'high',
      p2: 'high',
      major: 'high',
      page: 'high',
      medium: 'medium',
      s3: 'medium',
      p3: 'medium',
      error: 'medium',
      alert: 'medium',
      low: 'low',
      s4: 'low',
      p4: 'low',
      warn: 'low',
      warning: 'low',
      info: 'info',
      s5: 'info',
      p5: 'info',
      debug: 'info',
      information: 'info',
      notice: 'info',
    };
    for (const [value, severity] of Object.entries(table)) {
      expect(prometheusSeverity(value.toUpperCase()), value).toBe(severity);
    }
    expect(prometheusSeverity('minor')).toBe('critical');
  });
});

describe('generic parser', () => {
  it('applies defaults and truncates long fields', () => {
    const p = parseGeneric(
      { title: 'x'.repeat(300), hosts: ['a', ['b']] },
      { mapping: null, autoFingerprint: false, now },
    );
    expect(p.title).toHaveLength(200);
    expect(p.title.endsWith('...')).toBe(true);
    expect(p.hosts).toEqual(['a', 'b']);
    expect(p.startedAt).toBe(now.toISOString());
    expect(p.resolves).toBe(false);
    expect(
      parseGeneric({ end_time: 1767225600000 }, { mapping: null, autoFingerprint: false, now }).endedAt,
    ).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('payload paths and mapping', () => {
  it('lists leaf paths with GitLab labels', () => {
    const fields = payloadFields({ a: { b: [{ c: 1 }], d: 'x' }, t: '2026-01-01T00:00:00Z' });
    expect(fields.map((f) => [f.label, f.type])).toEqual([
      ['a/b', 'array'],
      ['a/b[0]/c', 'string'],
      ['a/d', 'string'],
      ['t', 'datetime'],
    ]);
  });

  it('validates mappings against the field table', () => {
    expect(validateMapping({ title: { path: ['x'], type: 'string', label: 'x' } })).toEqual([]);
    expect(validateMapping({ start_time: { path: ['x'], type: 'string' } })).toEqual([
      'start_time.type must be one of datetime',
    ]);
    expect(validateMapping([])).toHaveLength(1);
  });
});

describe('jsonDepth and yLabel', () => {
  it('counts nesting without parsing and skips brackets in strings', () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[["}]}', 100)).toBe(3);
    expect(jsonDepth('[[[[[[', 3)).toBe(4);
  });
  it('takes the y-axis label from svc_y_label, then the title sources', () => {
    expect(yLabel({ annotations: { svc_y_label: 'req/s', title: 't' } })).toBe('req/s');
    expect(yLabel({ labels: { alertname: 'A' } })).toBe('A');
  });
});
