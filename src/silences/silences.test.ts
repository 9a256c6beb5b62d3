import { describe, expect, it } from 'vitest';
import {
  type Matchable,
  matchersProblem,
  normalise,
  regexProblem,
  silenceState,
  silences,
} from './silences.js';

const alert: Matchable = {
  title: 'Disk full',
  severity: 'high',
  service: 'db',
  monitoringTool: 'Prometheus',
  environment: null,
  payload: { labels: { alertname: 'DiskFull', instance: 'db-1:9100', severity: 'page', n: 3 } },
};
const m = (name: string, value: string, isRegex = false, isEqual = true) =>
  normalise([{ name, value, isRegex, isEqual }]);

describe('silence matchers', () => {
  it('= and != compare exactly; a missing label is the empty string', () => {
    expect(silences(m('alertname', 'DiskFull'), alert)).toBe(true);
    expect(silences(m('alertname', 'Disk'), alert)).toBe(false);
    expect(silences(m('alertname', 'DiskFull', false, false), alert)).toBe(false);
    expect(silences(m('alertname', 'Other', false, false), alert)).toBe(true);
    expect(silences(m('missing', ''), alert)).toBe(true);
    expect(silences(m('missing', 'x', false, false), alert)).toBe(true);
    // Only string labels count.
    expect(silences(m('n', '3'), alert)).toBe(false);
  });

  it('=~ and !~ are anchored at both ends', () => {
    expect(silences(m('instance', 'db-.*', true), alert)).toBe(true);
    expect(silences(m('instance', 'db', true), alert)).toBe(false);
    expect(silences(m('instance', '9100', true), alert)).toBe(false);
    expect(silences(m('instance', 'db-1:9100|web', true), alert)).toBe(true);
    expect(silences(m('instance', 'db-.*', true, false), alert)).toBe(false);
    expect(silences(m('instance', 'web-.*', true, false), alert)).toBe(true);
  });

  it("svc's fields are names too, and win over a label of the same name", () => {
    expect(silences(m('title', 'Disk full'), alert)).toBe(true);
    expect(silences(m('severity', 'high'), alert)).toBe(true);
    expect(silences(m('severity', 'page'), alert)).toBe(false);
    expect(silences(m('service', 'db'), alert)).toBe(true);
    expect(silences(m('monitoring_tool', 'Prom.*', true), alert)).toBe(true);
    expect(silences(m('environment', ''), alert)).toBe(true);
    // Every matcher must match.
    const both = normalise([
      { name: 'service', value: 'db' },
      { name: 'alertname', value: 'Other' },
    ]);
    expect(silences(both, alert)).toBe(false);
  });

  it('refuses regexes that could backtrack without bound, and bad matchers', () => {
    expect(regexProblem('db-[0-9]+|web.*')).toBeNull();
    expect(regexProblem('(?:a|b)c+')).toBeNull();
    expect(regexProblem('(a+)+')).toMatch(/nested/);
    expect(regexProblem('(a|aa)*')).toMatch(/nested/);
    expect(regexProblem('(a)\\1')).toMatch(/backreference/);
    expect(regexProblem('a(?=b)')).toMatch(/lookaround/);
    expect(regexProblem('(?<!a)b')).toMatch(/lookaround/);
    expect(regexProblem('a'.repeat(257))).toMatch(/256/);
    expect(regexProblem('[')).not.toBeNull();
    expect(matchersProblem([])).not.toBeNull();
    expect(matchersProblem([{ name: '1x', value: 'a' }])).not.toBeNull();
    // Alertmanager's rule: some matcher must not match the empty string.
    expect(matchersProblem([{ name: 'a', value: '.*', isRegex: true }])).toMatch(/empty/);
    expect(matchersProblem([{ name: 'a', value: 'x' }])).toBeNull();
  });

  it('is pending before it starts, active until it ends, expired from then', () => {
    const s = { startsAt: '2026-01-01T10:00:00.000Z', endsAt: '2026-01-01T11:00:00.000Z' };
    expect(silenceState(s, new Date('2026-01-01T09:59:59Z'))).toBe('pending');
    expect(silenceState(s, new Date('2026-01-01T10:00:00Z'))).toBe('active');
    expect(silenceState(s, new Date('2026-01-01T11:00:00Z'))).toBe('expired');
  });
});
