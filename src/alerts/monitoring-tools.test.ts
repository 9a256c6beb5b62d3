import { describe, expect, it } from 'vitest';
import { parseGeneric, parsePrometheus, payloadFields, validateMapping } from './alerts.js';
import { isAlertmanagerPayload, isGrafanaPayload, isResolvedValue, readTool } from './monitoring-tools.js';

const now = new Date('2026-11-21T00:00:00Z');
const generic = (payload: unknown, mapping: Parameters<typeof parseGeneric>[1]['mapping'] = null) =>
  parseGeneric(payload, { mapping, autoFingerprint: false, now });

describe('monitoring tools', () => {
  it("reads each tool's recovery field and identifier", () => {
    expect(readTool({ alert_transition: 'Recovered', alert_cycle_key: 'c1', alert_id: 7 })).toEqual({
      tool: 'Datadog',
      resolves: true,
      identity: 'datadog:alert_cycle_key:c1',
    });
    expect(readTool({ alert_transition: 'Re-Triggered', alert_id: 7 })).toMatchObject({
      resolves: false,
      identity: 'datadog:alert_id:7',
    });
    expect(readTool({ current_state: 'closed', incident_id: 5, condition_name: 'CPU' })).toMatchObject({
      tool: 'New Relic',
      resolves: true,
      identity: 'newrelic:incident_id:5',
      title: 'CPU',
    });
    expect(readTool({ issueUrl: 'u', state: 'CLOSED', id: 'i-1' })).toMatchObject({
      resolves: true,
      identity: 'newrelic:id:i-1',
    });
    expect(readTool({ event_value: '0', event_id: '3871' })).toMatchObject({
      tool: 'Zabbix',
      resolves: true,
      identity: 'zabbix:event_id:3871',
    });
    expect(readTool({ event_value: 1 })).toMatchObject({ resolves: false, identity: null });
    expect(readTool({ title: 'x', state: 'closed' })).toBeNull();
  });

  it('tells Grafana from Alertmanager', () => {
    const am = { alerts: [], groupKey: '{}:{}', receiver: 'r', version: '4' };
    expect(isAlertmanagerPayload(am)).toBe(true);
    expect(isGrafanaPayload(am)).toBe(false);
    expect(isAlertmanagerPayload({ ...am, orgId: 1 })).toBe(false);
    expect(isGrafanaPayload({ ...am, orgId: 1 })).toBe(true);
    expect(isAlertmanagerPayload({ title: 'x', alerts: [] })).toBe(false);
  });

  it('compares resolved values without case or surrounding space', () => {
    expect(isResolvedValue(' OK ', ['ok'])).toBe(true);
    expect(isResolvedValue(0, ['0'])).toBe(true);
    expect(isResolvedValue('okay', ['ok'])).toBe(false);
    expect(isResolvedValue(null, ['ok'])).toBe(false);
  });
});

describe('generic payload recovery and times', () => {
  it('resolves on a top-level status of resolved, a tool recovery, or a mapped status', () => {
    expect(generic({ status: 'RESOLVED', fingerprint: 'a' })).toMatchObject({
      resolves: true,
      endedAt: now.toISOString(),
    });
    expect(generic({ status: 'firing' })).toMatchObject({ resolves: false, endedAt: null });
    const mapping = {
      status: { path: ['s'], type: 'string' as const, resolved_values: ['green'] },
    };
    expect(generic({ s: 'Green' }, mapping).resolves).toBe(true);
    // The mapped field, when present, alone decides.
    expect(generic({ s: 'red', status: 'resolved' }, mapping).resolves).toBe(false);
    expect(generic({ status: 'resolved' }, mapping).resolves).toBe(true);
    // A tool's identifier is the fingerprint only when none is sent.
    const dd = generic({ alert_transition: 'Triggered', alert_id: '1', fingerprint: 'mine' });
    expect(dd.fingerprint).toBe(generic({ fingerprint: 'mine' }).fingerprint);
    expect(generic({ alert_transition: 'Triggered', alert_id: '1' }).monitoringTool).toBe('Datadog');
  });

  it('takes epoch seconds and milliseconds, and treats Go zero time as absent', () => {
    expect(generic({ start_time: 1700000000 }).startedAt).toBe('2023-11-14T22:13:20.000Z');
    expect(generic({ start_time: 1700000000500 }).startedAt).toBe('2023-11-14T22:13:20.500Z');
    expect(generic({ start_time: '1406662672000' }).startedAt).toBe('2014-07-29T19:37:52.000Z');
    expect(generic({ start_time: '2024' }).startedAt).toBe('2024-01-01T00:00:00.000Z');
    const zero = generic({ start_time: '0001-01-01T00:00:00Z', end_time: '0001-01-01T00:00:00Z' });
    expect(zero).toMatchObject({ startedAt: now.toISOString(), endedAt: null, resolves: false });
    expect(() => generic({ end_time: 1e20 })).toThrow('end_time is out of range');
  });

  it('offers epoch numbers for the time fields of a mapping', () => {
    const fields = payloadFields({
      createdAt: 1700000000000,
      date: '1406662672',
      count: 3,
      id: 12345678901234,
    });
    expect(fields.map((f) => [f.label, f.type])).toEqual([
      ['createdAt', 'datetime'],
      ['date', 'datetime'],
      ['count', 'string'],
      ['id', 'string'],
    ]);
  });

  it('takes runbook_url as the runbook', () => {
    expect(generic({ runbook_url: 'https://r' }).runbook).toBe('https://r');
    expect(generic({ runbook: 'https://a', runbook_url: 'https://b' }).runbook).toBe('https://a');
  });

  it("titles a Grafana entry by its rule's name before the summary", () => {
    const item = {
      status: 'firing',
      labels: { alertname: 'High memory usage' },
      annotations: { summary: 'zone us-1 is at 95%', runbook_url: 'https://r' },
      startsAt: '2021-10-12T09:51:03Z',
      endsAt: '0001-01-01T00:00:00Z',
      fingerprint: 'c6ea',
    };
    const payload = {
      receiver: 'r',
      status: 'firing',
      orgId: 1,
      alerts: [item],
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: 'https://g',
      version: '1',
      groupKey: '{}:{}',
    };
    const [g] = parsePrometheus(payload, { mapping: null, now, grafana: true });
    expect(g).toMatchObject({ title: 'High memory usage', monitoringTool: 'Grafana', runbook: 'https://r' });
    const [p] = parsePrometheus(payload, { mapping: null, now });
    expect(p).toMatchObject({ title: 'zone us-1 is at 95%', monitoringTool: 'Prometheus' });
  });

  it('a mapped status decides an Alertmanager item too', () => {
    const item = (state: string) => ({
      status: 'firing',
      labels: { alertname: 'x', state },
      annotations: {},
      startsAt: '2026-01-01T00:00:00Z',
    });
    const payload = (state: string) => ({
      alerts: [item(state)],
      commonAnnotations: {},
      commonLabels: {},
      externalURL: '',
      groupKey: '',
      groupLabels: {},
      receiver: '',
      status: 'firing',
      version: '4',
    });
    const mapping = {
      status: { path: ['labels', 'state'], type: 'string' as const, resolved_values: ['ok'] },
    };
    expect(parsePrometheus(payload('OK'), { mapping, now })[0]!.resolves).toBe(true);
    expect(parsePrometheus(payload('bad'), { mapping, now })[0]!.resolves).toBe(false);
  });

  it('validates the status mapping', () => {
    expect(validateMapping({ status: { path: ['s'], type: 'string', resolved_values: ['ok'] } })).toEqual([]);
    expect(validateMapping({ status: { path: ['s'], type: 'string' } })[0]).toContain(
      'status.resolved_values must list 1 to 50 values',
    );
    expect(validateMapping({ status: { path: ['s'], type: 'string', resolved_values: [' '] } })).toHaveLength(
      1,
    );
    expect(validateMapping({ status: { path: ['s'], type: 'datetime', resolved_values: ['ok'] } })).toEqual([
      'status.type must be one of string',
    ]);
    expect(validateMapping({ title: { path: ['t'], type: 'string', resolved_values: ['ok'] } })).toEqual([
      'title has unknown keys: resolved_values',
    ]);
  });
});
