import { describe, expect, it } from 'vitest';
import { covers } from './maintenance-windows.js';
import { silenceState } from './silences.js';

describe('maintenance windows', () => {
  it('a project-wide window covers every alert; an integration’s only that integration’s', () => {
    expect(covers({ integrationId: null }, 7)).toBe(true);
    expect(covers({ integrationId: null }, null)).toBe(true);
    expect(covers({ integrationId: 7 }, 7)).toBe(true);
    expect(covers({ integrationId: 7 }, 8)).toBe(false);
    // An alert of no integration (or of a deleted one) is covered by project-wide windows only.
    expect(covers({ integrationId: 7 }, null)).toBe(false);
  });

  it('is pending before its start, active from its start, and over at its end', () => {
    const w = { startsAt: '2026-01-01T10:00:00.000Z', endsAt: '2026-01-01T12:00:00.000Z' };
    expect(silenceState(w, new Date('2026-01-01T09:59:59.999Z'))).toBe('pending');
    expect(silenceState(w, new Date('2026-01-01T10:00:00.000Z'))).toBe('active');
    expect(silenceState(w, new Date('2026-01-01T11:59:59.999Z'))).toBe('active');
    expect(silenceState(w, new Date('2026-01-01T12:00:00.000Z'))).toBe('expired');
  });
});
